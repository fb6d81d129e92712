"""Bodies of the instructors' course view: the progress table and account management."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from api.schemas import Username

MAX_BATCH = 100  # accounts created by one request: each password hash takes about 0.1 s


class ProgressCell(BaseModel):
    attempts: int
    verdict: str | None = Field(description="the best verdict of a graded submission")
    first_ac: datetime | None = Field(description="when the first accepted one was made")


class ProgressRow(BaseModel):
    user: str
    disabled: bool
    solved: int
    problems: dict[str, ProgressCell] = Field(description="only problems the student tried")


class ProgressPublic(BaseModel):
    problems: list[str]
    students: list[ProgressRow]


class RosterUser(BaseModel):
    id: int
    username: str
    role: Literal["student", "instructor"]
    disabled: bool
    created_at: datetime
    submissions: int


class RosterPage(BaseModel):
    items: list[RosterUser]
    more: bool = Field(description="more users matched than the limit")


class AccountsCreate(BaseModel):
    """Names one per line or as the first column of a CSV (a header `username` is skipped);
    or a list."""

    usernames: list[str] | None = Field(default=None, max_length=MAX_BATCH)
    csv: str | None = Field(default=None, max_length=64 * 1024)
    role: Literal["student", "instructor"] = "student"


class CreatedAccount(BaseModel):
    id: int
    username: str
    role: Literal["student", "instructor"]
    password: str = Field(description="the initial password, shown this once")


class AccountChange(BaseModel):
    disabled: bool


class NewPassword(BaseModel):
    username: Username
    password: str = Field(description="shown this once")


class BoardNotes(BaseModel):
    label: str | None = Field(default=None, max_length=80)
    note: str | None = Field(default=None, max_length=2000)


class BoardReport(BaseModel):
    id: int
    label: str | None
    note: str | None
    judged: int = Field(description="submissions whose current judging ran this board")
    failing: int = Field(description="... of them failing it; 0 of many: a weak board")
    failing_students: int
