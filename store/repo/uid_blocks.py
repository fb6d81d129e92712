"""The registry of sandbox uid blocks: claim one for a worker, renew it, give it back.

Every change is conditional on the row being as it was read (the holder and the expiry),
so two workers racing for one block cannot both win: one insert or update succeeds, the
other sees a conflict and moves on to the next block.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from store.db import rowcount
from store.models import SandboxUidBlock, utcnow


@dataclass(frozen=True)
class Holder:
    """Who holds a block: enough to tell, on the same host, whether it still runs."""

    host: str
    boot_id: str
    pid_namespace: str
    pid: int
    started: int


def holder_of(row: SandboxUidBlock) -> Holder:
    return Holder(row.host, row.boot_id, row.pid_namespace, row.pid, row.started)


def _is(row_holder: Holder):
    """WHERE clause: the row still belongs to `row_holder`."""
    return [getattr(SandboxUidBlock, k) == v for k, v in asdict(row_holder).items()]


def claim_block(
    *,
    session: Session,
    holder: Holder,
    lease_s: float,
    blocks: int,
    wanted: int | None = None,
    is_gone: Callable[[Holder], bool] = lambda _: False,
) -> int | None:
    """The lowest free block below `blocks` (or exactly `wanted`), now leased to `holder`;
    None when every one is held. A block is free when it was never claimed, its lease
    expired, it is `holder`'s own, or `is_gone` proves its holder dead."""
    now = utcnow()
    expires = now + timedelta(seconds=lease_s)
    held = {row.block: row for row in session.scalars(select(SandboxUidBlock))}
    candidates = [wanted] if wanted is not None else range(blocks)
    for block in candidates:
        row = held.get(block)
        if row is None:
            session.add(SandboxUidBlock(block=block, expires_at=expires, **asdict(holder)))
            try:
                session.commit()
            except IntegrityError:  # another worker inserted it first
                session.rollback()
                continue
            return block
        previous = holder_of(row)
        if not (row.expires_at <= now or previous == holder or is_gone(previous)):
            continue
        taken = session.execute(
            update(SandboxUidBlock)
            .where(
                SandboxUidBlock.block == block,
                SandboxUidBlock.expires_at == row.expires_at,
                *_is(previous),
            )
            .values(expires_at=expires, **asdict(holder))
            .execution_options(synchronize_session=False)
        )
        session.commit()
        if rowcount(taken) == 1:
            return block
    return None


def renew_block(*, session: Session, block: int, holder: Holder, lease_s: float) -> bool:
    """Extend the lease; False when the block is no longer `holder`'s (it expired and
    another worker took it)."""
    renewed = session.execute(
        update(SandboxUidBlock)
        .where(SandboxUidBlock.block == block, *_is(holder))
        .values(expires_at=utcnow() + timedelta(seconds=lease_s))
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return rowcount(renewed) == 1


def release_block(*, session: Session, block: int, holder: Holder) -> None:
    session.execute(delete(SandboxUidBlock).where(SandboxUidBlock.block == block, *_is(holder)))
    session.commit()


def held_blocks(*, session: Session) -> dict[int, Holder]:
    now = utcnow()
    rows = session.scalars(select(SandboxUidBlock).where(SandboxUidBlock.expires_at > now))
    return {row.block: holder_of(row) for row in rows}
