"""Wake-ups for the embedded broker: a consumer waits on a datagram socket instead of sleeping
between polls, and whoever puts a message sends each waiting consumer one byte.

SQLite has no way to tell another process that a row arrived, so kombu's transport polls; at
its 0.1 s interval a submission waited 50 ms on average before a worker saw it. A wake-up
takes it to well under a millisecond, and the poll stays as the fallback: a lost or refused
datagram costs one interval, never a message (the message is in the database either way).

The sockets live in a private folder beside the broker's file, one per consuming process,
named by its pid. A socket whose process is gone refuses the datagram and is removed by the
sender; a full one already has a wake-up waiting. Everything here is best effort.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import select
import socket
import time
from pathlib import Path

log = logging.getLogger(__name__)

# sockaddr_un holds 108 bytes with its terminating zero: a longer path cannot be bound, and
# such a consumer just polls.
MAX_SOCKET_PATH = 107


def folder_for(broker_file: str) -> Path:
    return Path(f"{broker_file}.wake")


class Waiter:
    """One consumer's socket: `wait(seconds)` returns early when a message was put."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / f"{os.getpid()}.sock"
        self.sock: socket.socket | None = None
        if len(os.fsencode(self.path)) > MAX_SOCKET_PATH:
            log.info("broker wake-ups off: %s is too long for a socket; polling only", self.path)
            return
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()  # a pid reused after a crash
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            sock.bind(str(self.path))
            sock.setblocking(False)
            self.sock = sock
        except OSError as exc:
            log.info("broker wake-ups off (%s); polling only", exc)

    def wait(self, seconds: float) -> None:
        if self.sock is None:
            time.sleep(seconds)
            return
        readable, _, _ = select.select([self.sock], [], [], seconds)
        if readable:
            self._drain()

    def poke(self) -> None:
        """Wake this consumer from another of its threads (a slot of its pool came free)."""
        sock = self.sock  # closed meanwhile: the send fails, and nobody waits any more
        if sock is None:
            return
        with contextlib.suppress(OSError):  # full: a wake-up is waiting already
            sock.sendto(b"!", str(self.path))

    def _drain(self) -> None:
        assert self.sock is not None
        while True:
            try:
                self.sock.recv(64)
            except OSError:  # BlockingIOError: nothing left
                return

    def close(self) -> None:
        sock, self.sock = self.sock, None
        if sock is None:
            return
        sock.close()
        with contextlib.suppress(OSError):
            self.path.unlink()


def wake_all(folder: Path) -> None:
    """One byte to every consumer's socket in `folder`; a refused one (its process is gone)
    is removed."""
    try:
        names = os.listdir(folder)
    except OSError:
        return  # no consumer has waited yet
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sender:
        sender.setblocking(False)
        for name in names:
            if not name.endswith(".sock"):
                continue
            path = os.path.join(folder, name)
            try:
                sender.sendto(b"!", path)
            except OSError as exc:
                if exc.errno == errno.ECONNREFUSED:
                    with contextlib.suppress(OSError):
                        os.unlink(path)
                # EAGAIN: its buffer is full, so a wake-up is already waiting there
