"""Shared fixtures of the XO! referee tests: the small, valid card set in
tests/data/xo-cards.yaml, games set up on it, and the CLI through the one harness."""

from __future__ import annotations

import random
from functools import partial

import pytest

from tests.harness import ROOT, run_cli

FIXTURE_DB = ROOT / "tests" / "data" / "xo-cards.yaml"
# The fixture's characters in pick order (the row order that decides AOE neighbours).
HEROES = ["Captain Volt", "Iron Ward", "Swift", "Mindlock", "Sky Lancer", "Arcana", "Gearhead"]
VILLAINS = ["Doctor Null", "Brute", "Wraith", "Blaze", "Frostbite", "Psyche", "Razor"]


@pytest.fixture(scope="session")
def xo_db():
    import carddb

    return carddb.load(FIXTURE_DB)


@pytest.fixture(scope="session")
def xo_cards(xo_db):
    from referee.xo.play import XoCards

    return XoCards.from_db(xo_db)


@pytest.fixture
def fresh_state(xo_db):
    """A new XO! game (heroes Ann, villains Bob) before the picks; heroes go first."""
    from referee.xo.game import new_state

    for seed in range(100):
        state = new_state(["Ann", "Bob"], xo_db, random.Random(seed))
        if state["turn"]["active"] == "heroes":
            return state
    raise AssertionError("no seed lets the heroes go first")


@pytest.fixture
def started(fresh_state, xo_cards):
    """Both leagues picked (HEROES, VILLAINS): turn 1, heroes active."""
    from referee.xo import play

    state = play.pick(fresh_state, xo_cards, "heroes", HEROES).state
    return play.pick(state, xo_cards, "Bob", VILLAINS).state


@pytest.fixture
def picks():
    return {"heroes": list(HEROES), "villains": list(VILLAINS)}


@pytest.fixture
def fixture_db_path():
    return FIXTURE_DB


@pytest.fixture
def referee():
    """`referee ARGS` through the one harness (tests.harness.run_cli), in this process."""
    return partial(run_cli, "referee")
