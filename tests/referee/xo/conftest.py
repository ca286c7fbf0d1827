"""Shared fixtures of the XO! referee tests: the small card set in tests/data/xo-cards.yaml."""

from __future__ import annotations

import random

import pytest
from xo_helpers import FIXTURE_DB


def load_fixture_db():
    import carddb

    return carddb.load(FIXTURE_DB)


@pytest.fixture(scope="session")
def xo_db():
    return load_fixture_db()


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
