"""Balance-lab tests: sim_support (next to this file) importable under importlib mode; the
real card database once per session."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sim_support import CARDS  # noqa: E402


@pytest.fixture(scope="session")
def db():
    import carddb

    return carddb.load(CARDS)
