"""`referee.state_copy.copy_state`: the copy a command changes is equal to the state it was
given and shares none of its dicts and lists, so a refused command leaves the caller's state
as it was (what deepcopy gave, at a quarter of its CPU: issue 34)."""

from __future__ import annotations

import copy
import random

import carddb
from referee.state_copy import copy_state
from referee.xs import game
from tests.harness import BUNDLED


def containers(value):
    """The id of every dict, list, tuple and set inside `value`, `value` included."""
    if isinstance(value, dict | list | tuple | set):
        yield id(value)
        for item in value.values() if isinstance(value, dict) else value:
            yield from containers(item)


def test_a_dealt_state_is_copied_whole_and_shares_no_container():
    state = game.new_state(["Ann", "Bob", "Cy"], carddb.load(str(BUNDLED)), random.Random(1),
                           seed=1)
    before = copy.deepcopy(state)
    copied = copy_state(state)
    assert copied == state
    assert not set(containers(copied)) & set(containers(state))
    copied["table"]["Ann"]["hand"].append("Loud")
    copied["deck"].pop()
    assert state == before


def test_values_other_than_json_are_deep_copied():
    inner = [1, 2]
    state = {"pair": (inner, "x"), "set": {1, 2}, "n": 8.5, "none": None, "flag": True}
    copied = copy_state(state)
    assert copied == state
    assert copied["pair"][0] is not inner
    assert copied["set"] is not state["set"]
    inner.append(3)
    assert copied["pair"][0] == [1, 2]


def test_plain_values_are_returned_as_they_are():
    for value in ("text", 0, -3, 2.5, True, None):
        assert copy_state(value) is value
