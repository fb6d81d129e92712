"""`python -m judge`: the command line (judge/cli.py), started and ended for speed.

A command is one short process, and a grading from the command line takes about 0.15 s, so
two costs of the interpreter itself weigh (issue 24, measured in turns):
- The garbage collector's passes over the modules being imported, which free nothing (about
  15 ms): it starts off, and judge.cli turns it back on once the work begins, with what was
  imported frozen out of its passes (`collector_back_on`).
- The interpreter's teardown, which frees every module and object one by one (about 7 ms):
  once the command has returned and every thread that is not a daemon has ended, the exit
  handlers run, the output is flushed, and the process ends. A thread still running a
  second later gets the interpreter's own exit, which waits for it.
"""

import gc

gc.disable()

import atexit  # noqa: E402 (after the collector is off: these imports are what it would scan)
import contextlib  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402

from judge.cli import main  # noqa: E402

status = main()
for thread in threading.enumerate():
    if thread is not threading.current_thread() and not thread.daemon:
        thread.join(timeout=1.0)  # a pool's worker told to stop (grade's reference solver)
        if thread.is_alive():
            sys.exit(status)
atexit._run_exitfuncs()
for stream in (sys.stdout, sys.stderr):
    with contextlib.suppress(OSError):  # the reader left (`| head`): nothing more to say
        stream.flush()
os._exit(status)
