"""The table's moves on a declared game (the starter's Harbour Lights, `pnp init` into
tmp_path) never change the state they are given, though they copy only what a rule changes
in place (`kit.copy_state`, issue 30: the balance lab's speed); and expressions compiled
once per game give the values worked out by hand."""

from __future__ import annotations

import copy
import random

import pytest
from click.testing import CliRunner

import carddb
from pnp.cli.main import main as pnp_main
from referee.table import kit, rules, turn
from referee.table.dice import FaceSource

SHARED = {"setup", "last_roll"}  # only ever replaced whole: the copy may share them


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    root = tmp_path_factory.mktemp("starter")
    result = CliRunner().invoke(pnp_main, ["init", str(root)])
    assert result.exit_code == 0, result.output
    return kit.TableGame.from_db(carddb.load(str(root / "cards.yaml")), "harbour")


def containers(value, path="state"):
    """Every dict and list inside `value`, by id, with where it is."""
    if isinstance(value, dict):
        yield id(value), path
        for key, item in value.items():
            yield from containers(item, f"{path}.{key}")
    elif isinstance(value, list):
        yield id(value), path
        for i, item in enumerate(value):
            yield from containers(item, f"{path}[{i}]")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_step_leaves_the_state_given_unchanged(game, seed):
    rng = random.Random(seed)
    source = FaceSource(rng)
    state = kit.new_state(["Ann", "Bob", "Cy"], game, source)
    steps = 0
    while not state["over"] and steps < 400:
        before = copy.deepcopy(state)
        copied = kit.copy_state(state)
        assert copied == state
        mine = {i for k, v in state.items() if k not in SHARED for i, _ in containers(v)}
        theirs = {i for k, v in copied.items() if k not in SHARED for i, _ in containers(v)}
        assert not mine & theirs, "a container shared by the copy"
        result = turn.step(state, game, [], source, rng)
        assert state == before
        state = result.state
        steps += 1
    assert state["over"], "the starter ends within 400 steps"


def test_a_command_on_an_unknown_part_deep_copies_it(game):
    state = kit.new_state(["Ann", "Bob"], game, FaceSource(random.Random(4)))
    state["notes"] = {"Ann": ["a"]}
    copied = kit.copy_state(state)
    copied["notes"]["Ann"].append("b")
    assert state["notes"] == {"Ann": ["a"]}


def test_compiled_expressions_give_the_values_worked_by_hand(game):
    state = kit.new_state(["Ann", "Bob"], game, FaceSource(random.Random(5)))
    state["tokens"]["Ann"]["cargo"] = 7
    state["pool"]["lantern"] = 4
    state["zones"]["Ann"]["harbour"] = ["Kestrel", "Dawn Treader"]
    cargo = sum(game.card_fields[c]["cargo"] for c in ["Kestrel", "Dawn Treader"])
    ann, table = rules.Env(state, game, "Ann"), rules.Env(state, game, None)
    assert rules.evaluate("cargo + sum(harbour.cargo)", ann) == 7 + cargo
    assert rules.evaluate("cargo >= 20", ann) == 0
    assert rules.evaluate("lantern <= 4", table) == 1
    assert rules.evaluate("-cargo * 2 + count(harbour)", ann) == -14 + 2
    assert rules.evaluate("cargo if lantern > 3", ann) == 7
    assert rules.evaluate("cargo", table) == 0  # the table holds no player's tokens
    assert rules.scores(state, game)["Ann"] == 7 + cargo
