"""The starter's declared game (Harbour Lights, `pnp init` into a temporary folder), made
once per test process for the tests that read the table's compiled parts of it."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import carddb
from pnp.cli.main import main as pnp_main
from referee.table import kit


@pytest.fixture(scope="session")
def harbour(tmp_path_factory) -> kit.TableGame:
    """Read-only: a test that changes the game makes its own."""
    root = tmp_path_factory.mktemp("starter")
    result = CliRunner().invoke(pnp_main, ["init", str(root)])
    assert result.exit_code == 0, result.output
    return kit.TableGame.from_db(carddb.load(str(root / "cards.yaml")), "harbour")
