"""Test-set strength for instructors: which mutants of the reference the tests kill.

- `GET /problems/{slug}/strength`: the mutation analysis (`judge.strength`) of the problem's
  current tests: samples, the hidden boards now stored and the random plan over K seeds; and,
  for every mutant the samples and hidden boards leave alive, a small board that kills it,
  ready to be added with `POST /problems/{slug}/boards`.
- `POST /problems/{slug}/strength/board`: what adding a board would do: which mutants it
  kills, and which of the current survivors.

The report takes seconds (footholds: about 10 s the first time), so a worker computes it in
the background and the database keeps it per hidden-board set: the API answers at once with
the report, or 202 "computing" (ask again after Retry-After). The single-board check runs
here (mutants are trusted code), on the app's own StrengthMemory, and never waits for a report.
Its first run for a problem fills that memory (every mutant on every plan's tests: seconds),
so it runs in the background then, the request answering 202 "computing" as the report does;
the page asks again with the same board.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, status
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import BaseModel

import judge
from api import catalog
from api.deps import Instructor, ServicesDep, SessionDep, SettingsDep
from api.routers.problems import validated_case
from api.schemas import BoardCreate, Message
from judge.strength.analysis import killed_by_fixed_tests
from judge.strength.memory import StrengthMemory
from judge.strength.mutants import mutants
from store import repo
from store.repo import strength_reports as reports

router = APIRouter(tags=["strength"])


# -- schemas -----------------------------------------------------------------------------------
class MutantPublic(BaseModel):
    name: str
    description: str
    samples: list[int]  # indices of the samples that kill it
    small: dict[str, Any] | None  # the first small position that kills it
    worst: list[int]  # indices of the worst cases that kill it
    hidden: list[int]  # ids of the hidden boards that kill it
    random_rate: float | None  # fraction of seeded random plans (without samples) killing it
    plan_rate: float  # the default plan: samples + random boards
    rate: float  # what a submission faces now: samples + hidden boards + random boards
    killed: bool  # for certain: by a sample, the small tier, a worst case or a hidden board


class TestKillsPublic(BaseModel):
    kind: str  # "sample" | "small" (every small position, one test) | "worst" | "hidden"
    index: int
    id: int | None  # the hidden board's id
    kills: list[str]


class SuggestionPublic(BaseModel):
    kills: list[str]  # the surviving mutants this board kills
    input: dict[str, Any]  # ready for POST /problems/{slug}/boards as {"input": ...}
    answer: Any
    got: dict[str, Any]  # each mutant's wrong answer ({"raised": error} when it raised)
    profile: str


class StrengthPublic(BaseModel):
    problem: str
    mutant_count: int
    sample_count: int
    hidden_count: int
    random_count: int
    seeds: int
    mutants: list[MutantPublic]
    tests: list[TestKillsPublic]
    plan_kills_all: float  # fraction of seeds whose default plan kills every mutant
    plan_kills_all_low: float  # its 95% lower confidence bound
    kills_all: float  # the same with the hidden boards
    weakest: str | None  # the mutant the default plan kills least often
    survivors: list[str]  # alive after the samples, small tier, worst cases and hidden boards
    suggestions: list[SuggestionPublic]
    unkillable: list[str]  # survivors no board was found for within the time budget


class BoardKills(BaseModel):
    problem: str
    input: dict[str, Any]
    answer: Any
    kills: list[str]  # every mutant this board kills
    survivors: list[str]  # the mutants every plan's fixed tests and the hidden boards leave alive
    kills_survivors: list[str]  # the survivors this board would kill
    remaining: list[str]  # the survivors left after adding it


class StrengthComputing(BaseModel):
    status: Literal["computing"] = "computing"
    detail: str


def _known(slug: str) -> Any:
    # Strength reports run the problem's code in the API's worker: built-ins only.
    module = catalog.builtin(slug)
    if not mutants(slug):
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"no mutants for problem {slug!r}")
    return module


COMPUTING_RETRY_AFTER_S = 2
BOARD_CHECK_RETRY_AFTER_S = 1


class ColdBoardChecks:
    """Board checks run in the background until a problem's mutant answers are in an app's
    memory: one thread, one job per distinct (memory, problem, board, hidden boards), kept
    until its request comes back for it."""

    MAX_JOBS = 64  # finished checks nobody came back for are dropped, oldest first

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.jobs: OrderedDict[Hashable, Future] = OrderedDict()
        # The problems whose answers each memory holds (weak: an id could be reused).
        self.warm: weakref.WeakKeyDictionary[StrengthMemory, set[str]] = weakref.WeakKeyDictionary()
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="board-check")

    def job(self, key: Hashable) -> Future | None:
        with self.lock:
            return self.jobs.get(key)

    def is_warm(self, memory: StrengthMemory, slug: str) -> bool:
        with self.lock:
            return slug in self.warm.get(memory, ())

    def start(
        self, key: Hashable, memory: StrengthMemory, slug: str, work: Callable[[], BoardKills]
    ) -> Future:
        def run() -> BoardKills:
            result = work()
            with self.lock:
                self.warm.setdefault(memory, set()).add(slug)
            return result

        with self.lock:
            job = self.jobs.get(key)
            if job is None:
                job = self.jobs[key] = self.pool.submit(run)
            while len(self.jobs) > self.MAX_JOBS:
                done = next((k for k, f in self.jobs.items() if f.done()), None)
                if done is None:
                    break
                del self.jobs[done]
            return job

    def take(self, key: Hashable) -> None:
        with self.lock:
            self.jobs.pop(key, None)


cold_board_checks = ColdBoardChecks()


@router.get(
    "/problems/{slug}/strength",
    response_model=StrengthPublic,
    responses={
        202: {"model": StrengthComputing, "description": "a worker is computing the report"},
        403: {"model": Message},
        404: {"model": Message},
    },
)
def strength(
    slug: str,
    services: ServicesDep,
    session: SessionDep,
    settings: SettingsDep,
    user: Instructor,
    seeds: Annotated[int, Query(ge=1, le=200)] = 20,
    suggestions: bool = True,
) -> Any:
    """How strong this problem's tests are now, and boards that would make them stronger.

    202 with `{"status": "computing"}` and Retry-After while a worker computes it (seconds
    the first time); then the cached report until the hidden boards change."""
    _known(slug)
    wanted = reports.ReportRequest(slug, seeds, settings.random_count, suggestions)
    hidden = repo.hidden_cases(session=session, problem=slug)
    key = reports.report_key(wanted, hidden, judge.__version__)
    row = reports.find(session=session, key=key)
    if row is not None and row.status == reports.READY:
        return row.report
    error = row.error if row is not None and row.status == reports.FAILED else None
    if reports.request(session=session, key=key, problem=slug):
        services.request_strength(wanted)
    detail = "a worker is computing the report"
    if error:
        detail += f" again (the last attempt failed: {error[:200]})"
    return JSONResponse(
        StrengthComputing(detail=detail).model_dump(),
        status_code=status.HTTP_202_ACCEPTED,
        headers={"Retry-After": str(COMPUTING_RETRY_AFTER_S)},
    )


@router.post(
    "/problems/{slug}/strength/board",
    response_model=BoardKills,
    responses={
        202: {"model": StrengthComputing, "description": "the mutants' answers are being computed"},
        403: {"model": Message},
        404: {"model": Message},
        422: {"model": Message},
    },
)
async def board_kills(
    slug: str, board_in: BoardCreate, services: ServicesDep, session: SessionDep, user: Instructor
) -> Any:
    """Which mutants a board would kill if it were added as a hidden board (nothing is saved).

    202 with `{"status": "computing"}` and Retry-After while the problem's mutant answers are
    first computed (seconds); the same request sent again then answers."""
    module = _known(slug)
    case = validated_case(module, board_in.input)
    hidden = repo.hidden_cases(session=session, problem=slug)
    mem = services.strength_memory

    def work() -> BoardKills:
        with mem.problem_lock(slug):
            killer = mem.killer(module)
            kills = killer.killed_by(case)
            fixed = killed_by_fixed_tests(module, killer, hidden)
            answer = killer.answer(case)
        survivors = [n for n in killer.mutants if n not in fixed]
        return BoardKills(
            problem=slug,
            input=case,
            answer=answer,
            kills=kills,
            survivors=survivors,
            kills_survivors=[n for n in survivors if n in kills],
            remaining=[n for n in survivors if n not in kills],
        )

    key = (id(mem), slug, json.dumps(case, sort_keys=True), json.dumps(hidden, sort_keys=True))
    job = cold_board_checks.job(key)
    if job is None and cold_board_checks.is_warm(mem, slug):  # answers in memory: milliseconds
        return await run_in_threadpool(work)
    if job is None:
        job = cold_board_checks.start(key, mem, slug, work)
    if not job.done():
        detail = "computing the mutants' answers for this problem"
        return JSONResponse(
            StrengthComputing(detail=detail).model_dump(),
            status_code=status.HTTP_202_ACCEPTED,
            headers={"Retry-After": str(BOARD_CHECK_RETRY_AFTER_S)},
        )
    cold_board_checks.take(key)
    return job.result()
