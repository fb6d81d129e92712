import pytest

from judge.sandbox import make_sandbox


@pytest.fixture(scope="session")
def sandbox():
    """The real bubblewrap sandbox. Missing bubblewrap fails the tests: it is required."""
    box = make_sandbox("bwrap")
    assert box.sandboxed
    return box
