"""The table's moves on a declared game (the starter's Harbour Lights, `pnp init` into
tmp_path) never change the state they are given, though they copy only what a rule changes
in place (`kit.copy_state`, issue 30: the balance lab's speed); and expressions compiled
once per game give the values worked out by hand."""

from __future__ import annotations

import json
import random

import pytest

from referee.table import kit, rules, turn
from referee.table.dice import FaceSource

SHARED = {"setup", "last_roll"}  # only ever replaced whole: the copy may share them


@pytest.fixture(scope="module")
def game(harbour):
    return harbour  # conftest.py: the starter's declared game


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
        before = json.loads(json.dumps(state))  # a deep copy not made by the copier under test
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


@pytest.mark.parametrize(("policy", "players"), [("random", 2), ("greedy", 3), ("random", 4),
                                                 ("greedy,random", 2)])
def test_the_settled_scores_and_ends_are_those_worked_out_afresh_over_whole_games(
        game, monkeypatch, policy, players):
    """`rules.settle` works the score and the token ends out again only when what they read
    changed (`rules.settled`, remembered across states and games): at every settle of whole
    simulated games, what it gives equals the full recomputation."""
    from referee.simulate.declared import game_seed, play_game
    from referee.table import lab_steps

    real = rules.settle_check
    checked = []

    def checking(game_):  # rules.settle and the lab's plan settle through `settle_check`
        check = real(game_)

        def check_it(state):
            if not game_.rules.declared or state.get("over"):
                return check(state)
            afresh = (rules.scores(state, game_), list(rules.token_ends(state, game_)))
            assert rules.settled(state, game_) == afresh
            held = check(state)
            assert held == bool(afresh[1])
            assert state["scores"] == afresh[0]  # kept in the state by the check
            checked.append(held)
            return held
        return check_it

    monkeypatch.setattr(rules, "settle_check", checking)
    monkeypatch.setattr(lab_steps, "_PLANS", {})  # plans made afresh, with `checking`
    for i in range(25):
        record = play_game(game, players, policy, game_seed(11, i))
        assert record["end"] != "no end (unfinished)"
    assert len(checked) > 25 * 20 and any(checked), "token ends that held were checked too"


def test_the_settled_scores_follow_every_part_they_read(game):
    """A card in play swapped for another (the zone as long as before), a token, the
    shared pool: each a state not seen, worked out again."""
    state = kit.new_state(["Ann", "Bob"], game, FaceSource(random.Random(6)))
    state["zones"]["Ann"]["harbour"] = ["Kestrel"]
    before = rules.settled(state, game)[0]["Ann"]
    swapped = kit.copy_state(state)
    other = next(c for c, f in game.card_fields.items()
                 if "cargo" in f and f["cargo"] != game.card_fields["Kestrel"]["cargo"])
    swapped["zones"]["Ann"]["harbour"] = [other]
    assert rules.settled(swapped, game)[0]["Ann"] == before - game.card_fields["Kestrel"][
        "cargo"] + game.card_fields[other]["cargo"]
    richer = kit.copy_state(state)
    richer["tokens"]["Ann"]["cargo"] = 20
    assert rules.settled(richer, game)[0]["Ann"] == before - state["tokens"]["Ann"]["cargo"] + 20
    assert [end.kind for end, _ in rules.settled(richer, game)[1]] == ["token"]
    dark = kit.copy_state(state)
    dark["pool"]["lantern"] = 0
    assert [end.kind for end, _ in rules.settled(dark, game)[1]] == ["pool"]
    assert rules.settled(state, game)[1] == []
    assert rules.settled(state, game)[0]["Ann"] == before
