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


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 10 games, not 50 (runner.CHUNK_GAMES, read at each run; forked workers
    inherit it): 24 games are then 3 chunks, shared out over two workers as 120 games would
    be. What a one-worker/two-workers identity needs is several chunks, not many games."""
    from referee.simulate import runner

    monkeypatch.setattr(runner, "CHUNK_GAMES", 10)
    return runner.chunks(24)
