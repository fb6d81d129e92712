"""Strength reports cached in the database: requested by the API, computed by a worker.

A report's key hashes everything it depends on, so adding or deleting a hidden board (or a
new judge version with other mutants) asks for a new report and the old ones are never read.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from store.db import rowcount
from store.models import StrengthReport, utcnow

COMPUTING, READY, FAILED = "computing", "ready", "failed"
LOST_AFTER_S = 180  # a report computing this long lost its message or its worker: ask again
RETRY_FAILED_AFTER_S = 30
KEEP_PER_PROBLEM = 20


@dataclass(frozen=True)
class ReportRequest:
    problem: str
    seeds: int
    random_count: int | None
    suggestions: bool


def report_key(request: ReportRequest, hidden: list[dict[str, Any]], version: str) -> str:
    """Names a report: the problem, its hidden boards (id, input, answer), the options."""
    material = {
        "problem": request.problem,
        "seeds": request.seeds,
        "random_count": request.random_count,
        "suggestions": request.suggestions,
        "hidden": [[case["id"], case["input"], case["answer"]] for case in hidden],
        "version": version,
    }
    text = json.dumps(material, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def find(*, session: Session, key: str) -> StrengthReport | None:
    return session.scalar(select(StrengthReport).where(StrengthReport.key == key))


def request(*, session: Session, key: str, problem: str) -> bool:
    """Make sure the report is on its way; True when the caller must send it to a worker
    (asked for the first time, lost, or failed a while ago). Commits."""
    now = utcnow()
    row = find(session=session, key=key)
    if row is None:
        try:
            with session.begin_nested():
                session.add(StrengthReport(key=key, problem=problem, requested_at=now))
        except IntegrityError:  # another request inserted it first: that one sends it
            session.commit()
            return False
        session.commit()
        return True
    lost = row.status == COMPUTING and row.requested_at < now - timedelta(seconds=LOST_AFTER_S)
    retry = row.status == FAILED and (row.finished_at or now) < now - timedelta(
        seconds=RETRY_FAILED_AFTER_S
    )
    if not (lost or retry):
        return False
    # Conditional, so two requests at once send it once.
    taken = session.execute(
        update(StrengthReport)
        .where(StrengthReport.key == key, StrengthReport.requested_at == row.requested_at)
        .values(status=COMPUTING, requested_at=now, error=None)
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return rowcount(taken) == 1


def store(
    *,
    session: Session,
    key: str,
    problem: str,
    report: dict[str, Any] | None = None,
    error: str | None = None,
) -> None:
    """Save a computed report (or why it failed), and forget the problem's old reports."""
    now = utcnow()
    fields = {
        "status": READY if error is None else FAILED,
        "report": report,
        "error": error,
        "finished_at": now,
    }
    updated = session.execute(
        update(StrengthReport)
        .where(StrengthReport.key == key)
        .values(**fields)
        .execution_options(synchronize_session=False)
    )
    if rowcount(updated) == 0:  # computed without a request (e.g. the boards changed since)
        session.add(StrengthReport(key=key, problem=problem, requested_at=now, **fields))
    keep = select(StrengthReport.id).where(StrengthReport.problem == problem)
    keep = keep.order_by(StrengthReport.requested_at.desc()).limit(KEEP_PER_PROBLEM)
    session.execute(
        delete(StrengthReport).where(
            StrengthReport.problem == problem, StrengthReport.id.not_in(keep.scalar_subquery())
        )
    )
    session.commit()
