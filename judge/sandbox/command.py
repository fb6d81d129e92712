"""What one sandboxed run executes: a command line, the files it gets in /box, and what else
of the host it may see. Languages build these (judge/languages/); the sandbox runs them.

    Command(
        argv=("/box/bin/solution", "--results-fd", "{results_fd}", "--tests-fd", "{input_fd}"),
        files={"notes.txt": b"..."},        # written to /box, read-only
        layout=toolchain_layout(()),        # host paths bound read-only, masked dirs, symlinks
        trees={"bin": "/var/cache/judge/builds/ab12"},  # host dirs bound read-only at /box/NAME
        input_pipe=True,                    # a pipe the judge writes to as the run goes
    )

"{results_fd}" in any argument becomes the number of the results channel, "{python}" the sandbox's
interpreter; `layout=None` means the sandbox's Python layout (the interpreter, its stdlib and
libraries: what judge/languages/drivers/harness.py and a Python submission need). The program's cwd
is /box. stdin is empty unless `stdin` is given; stdout and stderr go to the capped output pipe,
unless `stdout_to_results` sends stdout to the results channel (a whole program's answers, read
line by line with the same bounds as a harness's reports).

`input_pipe` gives the run a pipe the judge writes to while it runs (`Process.write_input`,
`Process.close_input`): "{input_fd}" in any argument becomes the number of its read end. A
function-style driver reads its tests there (judge/execution/runners/function.py writes each once
it has read the report of the one before).

`writable` (compilation only) is a host directory the caller created and owns, bound
read-write at /box/out: the compiler's output. The sandbox hands it to the run's uid for the
run and back to the caller after it; what is in it is the submission's and must be treated
as such (sizes checked, run only inside the sandbox).

Trees and `writable` are bound by bwrap as the run's uid: their parent directories must be
passable by other users (mode o+x, as /tmp is), which pytest's tmp_path, for one, is not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from judge.sandbox.layout import Layout


@dataclass(frozen=True)
class Command:
    argv: tuple[str, ...]
    files: Mapping[str, bytes] = field(default_factory=dict)
    layout: Layout | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    trees: Mapping[str, str] = field(default_factory=dict)
    writable: str | None = None
    stdin: bytes | None = None
    stdout_to_results: bool = False
    input_pipe: bool = False
