"""What the table works out once per game for the balance lab's speed (issue 30) gives
what the declaration says, on every state of many simulated games of the starter (Harbour
Lights, `pnp init` into tmp_path): the step a turn is at (`TableGame.step_at`), read here
the long way, through the phases as declared."""

from __future__ import annotations

import json

import pytest

from referee.simulate import declared
from referee.table import kit, lab_steps, rules, turn


def general_path(mp: pytest.MonkeyPatch) -> None:
    """The lab steps by `turn.step_in_place` alone (its own path, every run a plan makes,
    takes no answer): these tests watch the referee's general step."""
    mp.setattr(lab_steps, "watch", lambda kind, run: lambda *answer: None)
    mp.setattr(lab_steps, "_PLANS", {})


@pytest.fixture(scope="module")
def game(harbour):
    return harbour  # conftest.py: the starter's declared game


@pytest.fixture(scope="module")
def states(game):
    """Every state the lab stepped to in a few games of each policy and player count."""
    seen: list[dict] = []
    step = turn.step_in_place

    def spy(new, *args, **kwargs):  # type: ignore[no-untyped-def]
        result = step(new, *args, **kwargs)
        seen.append(json.loads(json.dumps(result.state)))  # a deep copy, faster than deepcopy
        return result

    mp = pytest.MonkeyPatch()
    mp.setattr(turn, "step_in_place", spy)
    general_path(mp)
    try:
        for players in (2, 3, 4):
            for policy in declared.POLICIES:
                for i in range(4):
                    declared.play_game(game, players, policy, declared.game_seed(5, i))
    finally:
        mp.undo()
    assert len(seen) > 500
    return seen


def declared_step(state, game):
    """The step the turn is at, read through the declared phases (the first of a name)."""
    name, index = state["turn"].get("phase"), state["turn"].get("step", 0)
    phase = next((p for p in game.rules.phases if p.name == name), None)
    if phase is None or not 0 <= index < len(phase.steps):
        return None
    return phase.steps[index]


def test_the_step_looked_up_is_the_declared_one(game, states):
    kinds = set()
    for state in states:
        now = turn.current_step(state, game)
        assert now is declared_step(state, game)
        kinds.add(now.kind if now is not None else None)
    assert kinds >= {"effect", "choose", "play", "roll", "reveal", "discard_to"}


@pytest.mark.parametrize("index", [-1, 0, 1, 2, 3, 9])
def test_a_step_out_of_its_phase_is_none(game, index):
    state = {"turn": {"phase": "Sail", "step": index}}
    assert turn.current_step(state, game) is declared_step(state, game)
    assert turn.current_step({"turn": {"phase": "Nowhere", "step": 0}}, game) is None
    assert turn.current_step({"turn": {"phase": None}}, game) is None


def test_advance_moves_to_the_next_phase_after_the_last_step(game, states):
    for state in states[:300]:
        if state.get("over") or declared_step(state, game) is None:
            continue
        new = kit.copy_state(state)
        turn.advance(new, game)
        phase = next(p for p in game.rules.phases if p.name == state["turn"]["phase"])
        if state["turn"]["step"] + 1 < len(phase.steps):
            assert new["turn"]["phase"] == state["turn"]["phase"]
            assert new["turn"]["step"] == state["turn"]["step"] + 1
        else:
            assert (new["turn"]["phase"], new["turn"]["step"]) != (state["turn"]["phase"],
                                                                  state["turn"]["step"] + 1)
            assert new["turn"]["step"] == 0


def test_the_phase_after_each_is_the_next_declared(game):
    phases = game.phases
    for name in (*phases, "Nowhere", None):
        at = phases.index(name) if name in phases else None
        expected = phases[at + 1] if at is not None and at + 1 < len(phases) else None
        assert game.phase_after.get(name) == expected
    assert len(phases) == 3 and phases[-1] not in game.phase_after


def test_of_a_phase_named_twice_its_first_place_counts():
    twice = kit.TableGame("g", "G", 2, 4, {}, {}, {}, {}, {}, ("A", "B", "A", "C"))
    assert twice.phase_after == {"A": "B", "B": "A"}


def test_a_name_is_found_case_aside_and_a_folding_twice_gives_the_last(game):
    assert kit.named(" p2 ", ["P1", "P2"], "player", "players are") == "P2"
    assert kit.named("ann", ("Ann", "ANN"), "player", "players are") == "ANN"
    with pytest.raises(kit.UsageError, match="did you mean P1"):
        kit.named("P", ["P1", "Q"], "player", "players are")


def ends_the_long_way(state, game):
    """Each end condition on tokens that holds, evaluated from its text, with who holds."""
    held = []
    for end in game.rules.end:
        if end.kind == "token":
            who = next((p for p in state["players"]
                        if rules.evaluate(end.test, rules.Env(state, game, p))), None)
            if who is not None:
                held.append((end, who))
        elif end.kind == "pool" and rules.evaluate(end.test, rules.Env(state, game, None)):
            held.append((end, "the shared"))
    return held


def test_the_token_ends_with_their_tests_compiled_once_are_those_the_rules_say(game, states):
    tests = rules.end_tests(game)
    assert [end.kind for end, _ in tests] == ["token", "pool"]
    seen = 0
    for state in states[::5]:
        for cargo, lantern in ((None, None), (25, None), (None, 0), (20, -1)):
            state = kit.copy_state(state)
            if cargo is not None:
                state["tokens"][state["players"][-1]]["cargo"] = cargo
            if lantern is not None:
                state["pool"]["lantern"] = lantern
            found = list(rules.token_ends(state, game, tests))
            assert found == list(rules.token_ends(state, game))
            expected = ends_the_long_way(state, game)
            assert [end for end, _ in found] == [end for end, _ in expected]
            for (_, reason), (end, who) in zip(found, expected, strict=True):
                assert reason.startswith(who) and reason.endswith(f"({end.test})")
            seen += bool(found)
    assert seen > 100


def test_a_step_that_does_not_settle_changes_nothing_settle_reads(game):
    """`turn.settles` is False only at steps after which the scores and the token ends,
    worked out afresh, are what they were before (over whole simulated games)."""
    step = turn.step_in_place
    skipped: set[str] = set()
    mp = pytest.MonkeyPatch()

    def checking(new, game_, *args, **kwargs):  # type: ignore[no-untyped-def]
        now = None if new.get("pending") else turn.current_step(new, game_)
        before = (rules.scores(new, game_), list(rules.token_ends(new, game_)))
        result = step(new, game_, *args, **kwargs)
        if now is not None and not turn.settles(game_, now):
            skipped.add(now.kind)
            after = result.state
            assert (rules.scores(after, game_), list(rules.token_ends(after, game_))) == before
        return result

    mp.setattr(turn, "step_in_place", checking)
    general_path(mp)
    try:
        for players in (2, 3):
            for policy in declared.POLICIES:
                for i in range(4):
                    declared.play_game(game, players, policy, declared.game_seed(9, i))
    finally:
        mp.undo()
    assert skipped == {"effect", "roll", "discard_to"}  # the draw, the weather, the discard


def test_the_lab_plays_the_same_games_when_every_step_settles(game):
    """Settling only after the steps that may change what it reads leaves every game of
    the lab as it was when every step settled."""
    seeds = [declared.game_seed(3, i) for i in range(6)]
    runs = [(players, policy, seed) for players in (2, 4) for policy in declared.POLICIES
            for seed in seeds]
    fast = [declared.play_game(game, *run) for run in runs]
    mp = pytest.MonkeyPatch()
    mp.setattr(turn, "settles", lambda game_, now: True)
    try:
        slow = [declared.play_game(game, *run) for run in runs]
    finally:
        mp.undo()
    assert fast == slow


def test_what_each_kind_of_step_may_change(game):
    parts = {(phase, i): turn.step_parts(game, step) for (phase, i), step in game.step_at.items()}
    assert parts[("Draw", 0)] == {"rolls", "hands", "decks"}  # draw 1 ship
    assert parts[("Sail", 1)] == {"rolls"}  # the weather roll
    assert {"tokens", "hands", "zones"} <= parts[("Sail", 0)]  # a ship played for cargo
    assert rules.settle_parts(game) == {"tokens", "zones"}  # cargo + sum(harbour.cargo), lantern
    unknown = kit.TableGame("g", "G", 2, 4, {}, {}, {}, {}, {}, ())
    assert "tokens" in turn.step_parts(unknown, type(game.step_at[("Sail", 1)])("vote"))
