"""The registry of sandbox uid blocks (store/repo/uid_blocks.py) and the worker's lease of one
(worker/uid_block_lease.py): two workers never hold the same block; a dead one's comes back."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from datetime import timedelta

from sqlalchemy import update
from sqlalchemy.orm import Session

from store.models import SandboxUidBlock, utcnow
from store.repo import uid_blocks
from store.repo.uid_blocks import Holder
from worker.uid_block_lease import is_gone, start_time, this_process

A = Holder("worker-a", "boot", "pid:[1]", 100, 5)
B = Holder("worker-b", "boot", "pid:[2]", 100, 5)


def claim(session: Session, holder: Holder, **kw) -> int | None:
    return uid_blocks.claim_block(session=session, holder=holder, lease_s=60, blocks=4, **kw)


def test_workers_get_different_blocks_until_none_is_left(session: Session) -> None:
    holders = [replace(A, pid=pid) for pid in range(5)]
    blocks = [claim(session, h) for h in holders]
    assert blocks == [0, 1, 2, 3, None]
    assert uid_blocks.held_blocks(session=session) == dict(enumerate(holders[:4]))


def test_a_worker_claiming_again_gets_its_own_block_back(session: Session) -> None:
    assert claim(session, A) == 0
    assert claim(session, B) == 1
    assert claim(session, A) == 0


def test_an_expired_block_is_taken_and_its_old_holder_loses_it(session: Session) -> None:
    assert claim(session, A) == 0
    assert uid_blocks.renew_block(session=session, block=0, holder=A, lease_s=60)
    session.execute(update(SandboxUidBlock).values(expires_at=utcnow() - timedelta(seconds=1)))
    session.commit()
    assert claim(session, B) == 0
    assert not uid_blocks.renew_block(session=session, block=0, holder=A, lease_s=60)
    uid_blocks.release_block(session=session, block=0, holder=A)  # not A's: kept
    assert uid_blocks.held_blocks(session=session) == {0: B}


def test_a_live_block_is_taken_only_from_a_holder_proved_gone(session: Session) -> None:
    assert claim(session, A) == 0
    assert claim(session, B, is_gone=lambda h: False) == 1
    uid_blocks.release_block(session=session, block=1, holder=B)
    assert claim(session, B, is_gone=lambda h: h == A) == 0
    assert uid_blocks.held_blocks(session=session) == {0: B}


def test_a_wanted_block_or_nothing(session: Session) -> None:
    assert claim(session, A, wanted=2) == 2
    assert claim(session, B, wanted=2) is None


def test_only_a_dead_process_on_this_host_is_proved_gone() -> None:
    me = this_process()
    assert not is_gone(me)
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead = replace(me, pid=int(done.stdout), started=me.started + 1)
    assert is_gone(dead)
    assert not is_gone(replace(dead, boot_id="another-boot"))  # another machine
    assert not is_gone(replace(dead, pid_namespace="pid:[0]"))  # another container
    parent = replace(me, pid=os.getppid(), started=start_time(os.getppid()))
    assert not is_gone(parent)  # alive, another process
