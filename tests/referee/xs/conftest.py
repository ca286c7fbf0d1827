"""X-Statix rules tests: the catalog fixture and one whole scripted game; xs_support (next
to this file) importable by the test modules under pytest's importlib import mode."""

from __future__ import annotations

import pytest

from referee.xs.catalog import Catalog  # noqa: E402
from tests.referee.xs.xs_support import Table, load_catalog, play_to_the_end  # noqa: E402


@pytest.fixture(scope="session")
def cat() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="session")
def whole_game(tmp_path_factory, cat) -> Table:
    """A 3-player game (seed 1) played through the command line to the end of the deck,
    once per test process: some 350 commands, which the CLI game test checks and the report
    tests read. Read-only: a test that writes to it copies the file first."""
    return play_to_the_end(tmp_path_factory.mktemp("whole") / "game.db", cat, "Ann,Bo,Cy", 1)
