"""Balance-lab tests: the real card database once per session, and a starter project
(`pnp init`: the designer's own declared game, Harbour Lights) once per test module."""

from __future__ import annotations

import pytest

from tests.harness import run_cli
from tests.referee.simulate.sim_support import CARDS


@pytest.fixture(scope="session")
def db():
    import carddb

    return carddb.load(CARDS)


@pytest.fixture(scope="module")
def cards(tmp_path_factory):
    """The starter's cards.yaml (a fresh `pnp init` project)."""
    root = tmp_path_factory.mktemp("starter")
    done = run_cli("pnp", "init", str(root))
    assert done.returncode == 0, done.stderr
    return str(root / "cards.yaml")
