"""Files at rest: the data directory is 0700; the embedded database (with its -wal and -shm
files), the broker's database and the secret are 0600, from a fresh start under the usual
umask, and after a start on a data directory an older version left open."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from api.serve import local_secret, prestart
from config import Settings
from store.db import make_engine
from worker.app import make_celery
from worker.queue import Enqueuer

SECRET = "files-test-secret-" + "u" * 32


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    previous = os.umask(0o022)  # what most shells have: new files 0644, directories 0755
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def start() -> Iterator[Callable[[Path], None]]:
    """What `make run` does to the data dir before serving, then a write to each database
    (the connections stay open until the test ends, so the -wal and -shm files exist)."""
    opened = []

    def run(data_dir: Path) -> None:
        local_secret(data_dir)
        settings = Settings(data_dir=data_dir, secret_key=SECRET, admin_password="admin-pw-1")
        prestart(settings)
        engine = make_engine(settings.db_url)
        connection = engine.connect()
        opened.append((engine, connection))
        connection.execute(text("UPDATE users SET role = role"))
        connection.commit()
        celery = make_celery(settings)
        opened.append((celery, None))
        assert Enqueuer(celery)(1)  # the API publishes to the embedded broker

    yield run
    for owner, connection in reversed(opened):
        if connection is not None:
            connection.close()
            owner.dispose()
        else:
            owner.close()


def assert_private(data_dir: Path) -> None:
    assert mode(data_dir) == 0o700, oct(mode(data_dir))
    files = sorted(p.name for p in data_dir.iterdir())
    for name in ("judge.sqlite", "judge.sqlite-wal", "judge.sqlite-shm", "broker.sqlite"):
        assert name in files, files
    assert "secret_key" in files
    for path in data_dir.iterdir():
        assert mode(path) == 0o600, (path.name, oct(mode(path)))


def test_a_fresh_data_dir_is_private(tmp_path: Path, start) -> None:
    data_dir = tmp_path / "var"
    start(data_dir)
    assert_private(data_dir)


def test_a_data_dir_left_open_by_an_older_version_is_tightened_at_start(
    tmp_path: Path, start
) -> None:
    data_dir = tmp_path / "var"
    data_dir.mkdir(mode=0o755)
    for name in ("judge.sqlite", "broker.sqlite"):
        old = sqlite3.connect(data_dir / name)  # SQLite's own default: 0644
        old.execute("PRAGMA journal_mode=WAL")
        old.execute("CREATE TABLE leftover (x)")
        old.commit()
        old.close()
    (data_dir / "judge.sqlite-wal").write_bytes(b"")
    (data_dir / "secret_key").write_text("an old secret")
    assert mode(data_dir) == 0o755 and mode(data_dir / "judge.sqlite") == 0o644
    assert mode(data_dir / "secret_key") == 0o644
    start(data_dir)
    assert_private(data_dir)
    assert local_secret(data_dir) == "an old secret"
