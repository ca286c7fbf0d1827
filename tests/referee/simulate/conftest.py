"""Balance-lab tests: sim_support (next to this file) importable under importlib mode; the
real card database once per session."""

from __future__ import annotations

import pytest

from tests.referee.simulate.sim_support import CARDS  # noqa: E402


@pytest.fixture(scope="session")
def db():
    import carddb

    return carddb.load(CARDS)
