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
