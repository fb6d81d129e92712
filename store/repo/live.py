"""What a live-progress poll reads, whatever it watches (a submission's judging, a run): the
reader's cursor, and the state and new items the poll found."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple


class ProgressCursor(NamedTuple):
    """How far a live-progress reader has read one item: its attempt (a submission's lease
    token, a run's claim token) and the last index seen in it."""

    token: int
    last: int


@dataclass(frozen=True)
class Progress:
    """One item's state, and one new entry of its current attempt (a TestRow of a
    submission, a RunCase of a run); None when there is none: then this is the item's only
    Progress of the poll."""

    id: int
    status: str
    token: int
    test: Any
    # A submission's: when its finished judging is released to its student (store.release).
    released_at: datetime | None = None
