"""Test-set strength for instructors: which mutants of the reference the tests kill.

- `GET /problems/{slug}/strength`: the mutation analysis (`judge.strength`) of the problem's
  current tests: samples, the hidden boards now stored and the random plan over K seeds; and,
  for every mutant the samples and hidden boards leave alive, a small board that kills it,
  ready to be added with `POST /problems/{slug}/boards`.
- `POST /problems/{slug}/strength/board`: what adding a board would do: which mutants it
  kills, and which of the current survivors.

Mutants are trusted code and run in the API process, in the thread pool. The random part of
the analysis does not depend on the hidden boards, so it is computed once per problem, seed
count and plan size and kept for the life of the app, with the mutants' answers on every board
seen (bounded); a first request for a problem takes seconds, later ones are quick.
"""

from __future__ import annotations

import threading
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request, status
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel

from api.deps import Instructor, SessionDep, SettingsDep
from api.routers.problems import find_problem, validated_case
from api.schemas import BoardCreate, Message
from judge.mutants import mutants
from judge.strength import Killer, analyse, killed_by_fixed_tests, random_kills, suggest
from store import repo

router = APIRouter(tags=["strength"])

MAX_REMEMBERED = 500_000  # mutant answers kept per problem before the memory is dropped
SUGGEST_BUDGET_S = 2.0  # per surviving mutant
SUGGEST_TOTAL_S = 15.0  # for all of them in one request


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


# -- the app's memory of analyses ------------------------------------------------------------
class StrengthMemory:
    """Per problem: a Killer (reference and mutant answers) and the seeded random kills."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.killers: dict[str, Killer] = {}
        self.random: dict[tuple[str, int, int | None], list[frozenset[str]]] = {}
        self.locks: dict[str, threading.Lock] = {}

    def problem_lock(self, slug: str) -> threading.Lock:
        with self.lock:
            return self.locks.setdefault(slug, threading.Lock())

    def killer(self, module: Any) -> Killer:
        killer = self.killers.get(module.SLUG)
        if killer is None or killer.size > MAX_REMEMBERED:
            killer = self.killers[module.SLUG] = Killer(module)
        return killer

    def seed_kills(self, module: Any, seeds: int, random_count: int | None):
        key = (module.SLUG, seeds, random_count)
        if key not in self.random:
            self.random[key] = random_kills(
                module, seeds, random_count=random_count, killer=self.killer(module)
            )
        return self.random[key]


def memory(request: Request) -> StrengthMemory:
    """The app's StrengthMemory, made on first use (called on the event loop: no race)."""
    state = request.app.state
    mem = getattr(state, "strength_memory", None)
    if mem is None:
        mem = state.strength_memory = StrengthMemory()
    return mem


def _known(slug: str) -> Any:
    module = find_problem(slug)
    if not mutants(slug):
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"no mutants for problem {slug!r}")
    return module


def _report(
    mem: StrengthMemory,
    module: Any,
    hidden: list[dict[str, Any]],
    seeds: int,
    random_count: int | None,
    with_suggestions: bool,
) -> dict[str, Any]:
    with mem.problem_lock(module.SLUG):
        killer = mem.killer(module)
        report = analyse(
            module,
            hidden,
            seeds,
            random_count=random_count,
            seed_kills=mem.seed_kills(module, seeds, random_count),
            killer=killer,
        )
        if with_suggestions and report.survivors:
            report.suggestions, report.unkillable = suggest(
                module,
                report.survivors,
                killer=killer,
                budget_s=SUGGEST_BUDGET_S,
                total_s=SUGGEST_TOTAL_S,
            )
    data = report.to_dict()
    data["seeds"] = len(report.seeds)
    data["weakest"] = data["weakest"]["name"] if data["weakest"] else None
    for item, mutant in zip(data["mutants"], report.mutants, strict=True):
        item["killed"] = mutant.killed
    return data


@router.get(
    "/problems/{slug}/strength",
    response_model=StrengthPublic,
    responses={403: {"model": Message}, 404: {"model": Message}},
)
async def strength(
    slug: str,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    user: Instructor,
    seeds: Annotated[int, Query(ge=1, le=200)] = 20,
    suggestions: bool = True,
) -> dict[str, Any]:
    """How strong this problem's tests are now, and boards that would make them stronger."""
    module = _known(slug)
    hidden = repo.hidden_cases(session=session, problem=slug)
    return await run_in_threadpool(
        _report, memory(request), module, hidden, seeds, settings.random_count, suggestions
    )


@router.post(
    "/problems/{slug}/strength/board",
    response_model=BoardKills,
    responses={403: {"model": Message}, 404: {"model": Message}, 422: {"model": Message}},
)
async def board_kills(
    slug: str, board_in: BoardCreate, request: Request, session: SessionDep, user: Instructor
) -> BoardKills:
    """Which mutants a board would kill if it were added as a hidden board (nothing is saved)."""
    module = _known(slug)
    case = validated_case(module, board_in.input)
    hidden = repo.hidden_cases(session=session, problem=slug)
    mem = memory(request)

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

    return await run_in_threadpool(work)
