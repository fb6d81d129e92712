from pathlib import PurePath

import pytest

from judge.execution.build import BuildCache
from judge.sandbox import SandboxConfig, make_sandbox


@pytest.fixture(scope="session")
def sandbox():
    """The real bubblewrap sandbox. Missing bubblewrap fails the tests: it is required."""
    box = make_sandbox(SandboxConfig(mode="bwrap"))
    assert box.sandboxed
    return box


@pytest.fixture(scope="session")
def build_cache(tmp_path_factory):
    """One build cache for the session (a private directory of this run's): a source compiled
    once for a problem, language and style is not compiled again by another test."""
    return BuildCache(str(tmp_path_factory.mktemp("build-cache")))


# Markers follow from what a test uses, so `make test-fast` (no sandbox, database, broker or
# browser) stays right without anyone remembering to mark a new test.
SERVICE_FIXTURES = {"postgres", "redis_main", "stack", "db_engine", "session"}
SANDBOX_FIXTURES = {"sandbox", "stack"}
# Modules whose tests grade through the real sandbox without asking for the fixture.
SANDBOX_MODULES = {
    "test_cli.py",
    "test_corpus.py",
    "test_grade.py",
    "test_hostile.py",
    "test_hostile_reports.py",
    "test_sandbox.py",
    "test_strength.py",
}


# Roughly what one test of each kind costs, in seconds: enough to hand the slowest modules out
# first when `make test` spreads modules over processes (a slow module started last is the
# whole run waiting for one process).
# A test marked slow is seconds of CPU on its own (a property test's hundreds of examples):
# last in a process, it was the run's last half-minute with one core idle.
COST_S = {"slow": 12.0, "e2e": 8.0, "stack": 8.0, "sandbox": 1.5, "services": 0.3}
# A benchmark's smoke test (tests/*/test_bench_*.py) starts stacks and grades plans of its own:
# 15 to 90 s each on the shared 2-core machine.
BENCH_COST_S = 30.0


def _cost(item: pytest.Item) -> float:
    if item.path.name.startswith("test_bench_"):
        return BENCH_COST_S
    if "stack" in getattr(item, "fixturenames", ()):
        return COST_S["stack"]
    marks = {mark.name for mark in item.iter_markers()}
    return max((cost for kind, cost in COST_S.items() if kind in marks), default=0.05)


def pytest_collection_modifyitems(items):
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        path = item.path
        if "e2e" in path.parts:
            item.add_marker(pytest.mark.e2e)
        if used & SERVICE_FIXTURES:
            item.add_marker(pytest.mark.services)
        if used & SANDBOX_FIXTURES or (
            path.parent.name == "judge" and path.name in SANDBOX_MODULES
        ):
            item.add_marker(pytest.mark.sandbox)
    # The costliest modules first, each module's tests in their own order (the same order in
    # every process, as pytest-xdist requires). The browser tests go first as one block: each
    # process that takes them (BROWSER_PROCESSES, below) then starts the shared service and
    # browser once and stops them when it moves on (tests/e2e/conftest.py), instead of keeping
    # an idle stack through the whole run.
    module_cost: dict[object, float] = {}
    for item in items:
        module_cost[item.path] = module_cost.get(item.path, 0.0) + _cost(item)
    browser_cost = sum(cost for path, cost in module_cost.items() if _is_e2e(path))

    def order(item: pytest.Item) -> tuple[float, float]:
        own = module_cost[item.path]
        return (-(browser_cost if _is_e2e(item.path) else own), -own)

    items.sort(key=order)


def _is_e2e(path) -> bool:
    return "e2e" in path.parts


# How many processes run the browser tests. A browser test mostly waits (for a grading, a
# page's poll, an animation): with every process in the browser block first, the two cores
# were half idle for its first minutes. The other processes start on the costliest modules
# of the rest meanwhile, and fewer processes start the shared service and browser.
BROWSER_PROCESSES = 2


def pytest_xdist_make_scheduler(config, log):
    """Modules go to a process each (their stack starts once), except that a module run on two
    stacks (`every_stack`: services, embedded) hands each half out on its own: each half starts
    its own stack anyway, and the two then run side by side. Only the first BROWSER_PROCESSES
    processes take browser tests while other work is left."""
    from xdist.scheduler import LoadScopeScheduling

    class ByModuleAndStack(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = super()._split_scope(nodeid)
            for kind in ("embedded", "services"):
                if f"[{kind}" in nodeid or f"-{kind}" in nodeid:
                    return f"{module}[{kind}]"
            return module

        def _assign_work_unit(self, node) -> None:
            browsers = sorted(n.gateway.id for n in self.nodes)[:BROWSER_PROCESSES]
            if node.gateway.id not in browsers:
                other = next((s for s in self.workqueue if not _is_e2e(PurePath(s))), None)
                if other is not None:
                    self.workqueue.move_to_end(other, last=False)
            super()._assign_work_unit(node)

    return ByModuleAndStack(config, log)
