"""The starter's declared game (Harbour Lights, `pnp init` into a temporary folder), made
once per test process for the tests that read the table's compiled parts of it; and the
starter played to its end by `referee play`, once per test process and seed, for the
rules-as-data and report tests."""

from __future__ import annotations

from pathlib import Path

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


@pytest.fixture(scope="session")
def starter_game(tmp_path_factory):
    """`starter_game(seed)`: (project, session, transcript) of the starter played to its
    end by `referee play` on Enter alone (Ann and Bob, `seed`), played once a test process
    per seed; a test works on `copied(session, folder)`, never on the shared session."""
    from tests.referee.table.test_rules_as_data import harbour, play, referee

    played: dict[str, tuple[Path, Path, str]] = {}

    def get(seed: str) -> tuple[Path, Path, str]:
        if seed not in played:
            place = tmp_path_factory.mktemp(f"starter{seed}")
            with pytest.MonkeyPatch.context() as patch:  # as the `folder` fixture sets up
                patch.delenv("REFEREE_SESSION", raising=False)
                patch.delenv("REFEREE_CARDS", raising=False)
                patch.chdir(place)
                project = harbour(place)
                session = place / f"h{seed}.db"
                referee(project, session)("--seed", seed, "new", "harbour", "--players",
                                          "Ann,Bob")
                played[seed] = (project, session, play(project, session, [""] * 600))
        return played[seed]

    return get
