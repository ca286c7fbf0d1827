"""The balance lab's own path through a declared game's steps (referee/table/lab_steps.py,
issue 30 item 5) does what the referee's general step (`turn.step_in_place`, quiet) does:
every answer the lab gives in whole games of the starter (Harbour Lights) and of Bazaar
(tests/referee/table/test_rules_as_data.py: a shared zone, two cards a turn paid by a
field, a choice of player an option waits for, transfers, a draw and a discard face down,
a phase without steps), each policy, 2 to 4 players, is stepped both ways from the same
state and the same dice, and both leave the same state and the same dice, or both refuse
(the lab's path changing nothing). An answer the lab's path does not take falls to the
general step, and the games are the same either way. Expressions written as one function
(referee/table/expr_source.py) give what the closures of the tree give."""

from __future__ import annotations

import copy
import random

import pytest

import carddb
from carddb import expr
from referee.errors import RefereeError, UsageError
from referee.simulate import declared
from referee.state_copy import copy_state
from referee.table import kit, lab_steps, rules, turn
from referee.table.expr_source import generated
from tests.referee.table.test_rules_as_data import BAZAAR


@pytest.fixture(scope="module")
def bazaar(tmp_path_factory) -> kit.TableGame:
    root = tmp_path_factory.mktemp("bazaar")
    (root / "cards.yaml").write_text(BAZAAR)
    return kit.TableGame.from_db(carddb.load(str(root / "cards.yaml")), "bazaar")


def runs(game: kit.TableGame, seed: int, games: int) -> list[tuple[int, str, int]]:
    """(players, policy, seed) of `games` games a player count and policy (a mixed table
    too: greedy first, random after)."""
    return [(players, policy, declared.game_seed(seed, i))
            for players in range(game.min_players, min(game.max_players, 4) + 1)
            for policy in (*declared.POLICIES, ",".join(["greedy"] + ["random"] * (players - 1)))
            for i in range(games)]


def general(state: dict, game: kit.TableGame, words: list[str],
            rng: random.Random) -> dict | None:
    """The general step on `state` (a copy the caller gives up: it is changed) with dice of
    their own (`rng`): the state after it, None when refused."""
    try:
        return turn.step_in_place(state, game, words, declared.LabFaces(rng), rng,
                                  quiet=True).state
    except (RefereeError, UsageError):
        return None


def watching(mp: pytest.MonkeyPatch, watch) -> None:  # type: ignore[no-untyped-def]
    """Every run a plan makes (`lab_steps.watch`) passed through `watch(kind, run)`, the
    plans made afresh: the runs the lab calls however it reaches them (`run_of`, or the
    random policy's takes, referee/simulate/declared.py `random_takes`)."""
    mp.setattr(lab_steps, "watch", watch)
    mp.setattr(lab_steps, "_PLANS", {})


def no_run(kind, run):  # type: ignore[no-untyped-def]
    """A watch under which the lab's path takes no answer: every step the general way."""
    return lambda *answer: None


def twin_steps(game: kit.TableGame, seed: int, games: int) -> dict[str, int]:
    """Every step the lab's path takes in whole games, checked against the general step;
    how many of each outcome (`play taken`, `pending refused`, ...)."""
    seen: dict[str, int] = {}

    def twin(kind, run):  # type: ignore[no-untyped-def]
        def both(state, words, source):  # type: ignore[no-untyped-def]
            before, rng = copy_state(state), random.Random(0)
            rng.setstate(source.rng.getstate())
            done = run(state, words, source)
            said = f"{kind} {({True: 'taken', False: 'refused', None: 'left'})[done]}"
            seen[said] = seen.get(said, 0) + 1
            if done is None:
                assert state == before  # left to the general step: nothing changed
                return done
            if not done:
                assert state == before, (kind, words)  # refused: nothing changed
            after = general(before, game, words, rng)  # the copy is the general step's
            if done:
                assert after == state, (kind, words)
                assert rng.getstate() == source.rng.getstate()
            else:
                assert after is None, (kind, words)
            return done
        return both

    with pytest.MonkeyPatch.context() as mp:
        watching(mp, twin)
        for players, policy, game_seed in runs(game, seed, games):
            declared.play_game(game, players, policy, game_seed)
    return seen


def test_the_starters_steps_are_the_general_steps(harbour):
    seen = twin_steps(harbour, 21, 6)
    taken = {key.split()[0] for key in seen if key.endswith("taken")}
    assert taken >= {"effect", "choose", "play", "roll", "reveal", "discard_to", "pending"}
    assert seen.get("pending refused", 0) > 0  # Fog Bank: a player takes from themselves
    assert seen.get("play refused", 0) > 0  # a ship not paid for


def test_bazaars_steps_are_the_general_steps(bazaar):
    seen = twin_steps(bazaar, 22, 6)
    taken = {key.split()[0] for key in seen if key.endswith("taken")}
    assert taken >= {"effect", "choose", "play", "roll", "reveal", "discard_to", "pending",
                     "none"}
    assert seen.get("pending refused", 0) > 0  # Pickpocket, Charity: not oneself


@pytest.mark.parametrize("which", ["harbour", "bazaar"])
def test_the_games_are_the_same_through_the_general_step_alone(which, request):
    game = request.getfixturevalue(which)
    games = runs(game, 23, 3)
    fast = [declared.play_game(game, *run) for run in games]
    with pytest.MonkeyPatch.context() as mp:
        watching(mp, no_run)
        slow = [declared.play_game(game, *run) for run in games]
    assert fast == slow


@pytest.mark.parametrize("which", ["harbour", "bazaar"])
def test_the_random_policys_takes_play_the_games_its_steps_play(which, request):
    """A table of the random policy alone steps by one take a step kind (declared.py
    `random_takes`: the policy, the run and what the lab follows, fused): the same games
    as stepped by `random_answer` and the loop's own bookkeeping (`_policy_step`)."""
    game = request.getfixturevalue(which)
    games = [(players, "random", declared.game_seed(28, i))
             for players in range(game.min_players, min(game.max_players, 4) + 1)
             for i in range(6)]
    taken = []
    real = declared.random_takes

    def counting(game_, made):  # type: ignore[no-untyped-def]
        takes, resolving = real(game_, made)
        taken.append(len(takes))
        return takes, resolving

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(declared, "random_takes", counting)
        fused = [declared.play_game(game, *run) for run in games]
    assert min(taken) >= len(game.step_at)  # a take for every declared step
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(declared, "random_takes", lambda game_, made: ({}, None))
        stepped = [declared.play_game(game, *run) for run in games]
    assert fused == stepped


def test_answers_the_lab_path_leaves_to_the_general_step(harbour):
    source = declared.LabFaces(random.Random(4))
    state = kit.new_state(["P1", "P2"], harbour, source)
    rules.settle(state, harbour)
    at = {(p, i): s for (p, i), s in harbour.step_at.items()}
    kept = copy.deepcopy(state)
    state["turn"].update({"phase": "Sail", "step": 1})  # the weather roll, faces typed
    assert lab_steps.step(state, harbour, at[("Sail", 1)], ["wind", "wind", "calm"],
                          source) is None
    state["turn"].update({"phase": "Storm", "step": 0})  # the referee draws the card
    assert lab_steps.step(state, harbour, at[("Storm", 0)], [], source) is None
    state["turn"].update({"phase": "Draw", "step": 1})  # an option not as written
    assert lab_steps.step(state, harbour, at[("Draw", 1)], ["TRADE"], source) is None
    state["turn"].update(kept["turn"])
    assert state == kept
    state["over"] = True
    assert lab_steps.step(state, harbour, turn.current_step(state, harbour), [], source) is None


@pytest.fixture(scope="module")
def played_states():  # type: ignore[no-untyped-def]
    """`played_states(game)`: `states_of(game, 24)`, played once a module (a game's three
    comparisons of functions read the same states, each a stride of its own)."""
    played: dict[int, tuple[kit.TableGame, list[dict]]] = {}

    def get(game: kit.TableGame) -> list[dict]:
        if id(game) not in played:
            played[id(game)] = (game, states_of(game, 24))
        return played[id(game)][1]

    return get


def states_of(game: kit.TableGame, seed: int) -> list[dict]:
    """Every state after a step of the lab's path in 2 games a player count and policy."""
    seen: list[dict] = []

    def keeping(kind, run):  # type: ignore[no-untyped-def]
        def keep(state, words, source):  # type: ignore[no-untyped-def]
            done = run(state, words, source)
            seen.append(copy_state(state))
            return done
        return keep

    with pytest.MonkeyPatch.context() as mp:
        watching(mp, keeping)
        for players, policy, game_seed in runs(game, seed, 2):
            declared.play_game(game, players, policy, game_seed)
    return seen


def expressions(game: kit.TableGame) -> set[str]:
    """Every expression of `game` read outside a roll: score, tie-breaks, end tests,
    effects' amounts, costs."""
    texts = {game.rules.score, *game.rules.tie_break}
    texts |= {end.test for end in game.rules.end if end.test}
    effects = [e for p in game.rules.phases for s in p.steps
               for e in ([s.effect] if s.effect else []) + [x for o in s.options
                                                            for x in o.effects]]
    effects += [e for card in game.cards for when in ("played", "revealed")
                for e in game.rules.effects_of(card, game.card_types.get(card, ""), when)]
    texts |= {amount for e in effects for _, amount in e.tokens}
    texts |= {a for p in game.rules.phases for s in p.steps for _, a in s.cost
              if a not in {f for fields in game.card_fields.values() for f in fields}}
    texts |= {"count(hand) + sum(hand.price) - 2 * count(stalls)", "-card.power if gold < 3"}
    return {t for t in texts if t}


@pytest.mark.parametrize("which", ["harbour", "bazaar"])
def test_an_expression_written_as_one_function_means_what_its_tree_means(which, request,
                                                                         played_states):
    game = request.getfixturevalue(which)
    texts = sorted(expressions(game))
    assert len(texts) >= 5
    pairs = [(generated(expr.parse(t), game), rules._compile(expr.parse(t), game),  # noqa: SLF001
              rules.amount_for(t, game)) for t in texts]
    compared = 0
    for state in played_states(game)[::7]:
        for who in (*state["players"], None):
            for card in (None, *list(game.cards)[:3]):
                env = rules.Env(state, game, who, card)
                for mine, closures, amount in pairs:
                    assert mine(env) == closures(env) == amount(state, who, card)
                    compared += 1
    assert compared > 1000


@pytest.mark.parametrize(("which", "score", "player_tests", "pool_tests"), [
    ("harbour", "cargo + sum(harbour.cargo) - sum(harbour.speed) if count(harbour) > 1",
     ["sum(harbour.speed) >= 4", "cargo + sum(harbour.cargo) > 12"], ["lantern <= 3"]),
    ("bazaar", "fame + sum(stalls.income) * 2 + sum(market.income)",
     ["sum(stalls.price) > 3 if fame > 1", "sum(market.income) + gold >= 9"], [])])
def test_the_settle_scan_means_what_its_expressions_mean(which, score, player_tests,
                                                          pool_tests, request, played_states):
    """The settle scan (expr_source.scan: each seat's score and whether an end test
    holds, its sums over a seat's zone worked out once a seat by a loop) gives what each
    expression's own function gives, on every state of many games."""
    from referee.table import expr_source

    game = request.getfixturevalue(which)
    scan = expr_source.scan(game, expr.parse(score), [expr.parse(t) for t in player_tests],
                            [expr.parse(t) for t in pool_tests])
    scored = generated(expr.parse(score), game)
    seat_tests = [generated(expr.parse(t), game) for t in player_tests]
    table_tests = [generated(expr.parse(t), game) for t in pool_tests]
    held_seen = set()
    for state in played_states(game)[::3]:
        envs = {p: rules.Env(state, game, p) for p in state["players"]}
        held = any(t(rules.Env(state, game, None)) for t in table_tests) or any(
            t(env) for env in envs.values() for t in seat_tests)
        assert scan(state) == ({p: scored(env) for p, env in envs.items()}, held)
        held_seen.add(held)
    assert held_seen == {True, False}


def test_an_expression_holds_no_declared_text_as_code(harbour):
    """A zone, a token or a field named like code is a string in the source."""
    odd = copy.copy(harbour)
    object.__setattr__(odd, "card_fields", {"A": {"x')+__import__('os'": 5}})
    fn = generated(("op", "+", ("name", "__import__('os')"),
                    ("sum", "harbour')+1#", "x')+__import__('os'")), odd)
    state = {"turn": {"rolls": {"__import__('os')": 2}}, "zones": {"P1": {"harbour')+1#": ["A"]}}}
    assert fn(rules.Env(state, odd, "P1")) == 7
    with pytest.raises(ValueError, match="not an operator"):
        generated(("op", "**", ("num", "2"), ("num", "3")), harbour)


@pytest.mark.parametrize("left", [{"play", "pending"}, {"reveal", "choose", "discard_to"}])
def test_steps_left_to_the_general_step_among_the_others_play_the_same_games(left, bazaar):
    """Some kinds of step left to the general step (as an answer the lab's path does not
    take is), the rest taken by the lab's path: the same games, whichever policy."""
    def some(kind, run):  # type: ignore[no-untyped-def]
        return no_run(kind, run) if kind in left else run

    games = runs(bazaar, 25, 3)
    fast = [declared.play_game(bazaar, *run) for run in games]
    with pytest.MonkeyPatch.context() as mp:
        watching(mp, some)
        mixed = [declared.play_game(bazaar, *run) for run in games]
    assert fast == mixed


@pytest.mark.parametrize("which", ["harbour", "bazaar"])
def test_a_rolls_outcome_written_as_one_function_means_what_its_tree_means(which, request,
                                                                           played_states):
    """`rules.outcome_for` (a roll's outcome as one function of the counts and the sum)
    gives what `rules.compiled` gives for an Env with the roll's counts: every name a
    count (a token's name too), `sum` the faces' sum, zones and the hand read as ever."""
    game = request.getfixturevalue(which)
    texts = sorted({r.outcome for r in game.rules.rolls.values()} | {
        "sum >= 7", "2 * wind - wave if calm > 0", "cargo + sword - gold",
        "count(harbour) + sum(harbour.speed) + sum", "count(hand) - calm + count(stalls)"})
    pairs = [(rules.outcome_for(t, game), rules.compiled(t)) for t in texts]
    rng = random.Random(26)
    compared = 0
    for state in played_states(game)[::9]:
        for who in state["players"]:
            counts = {k: rng.randrange(4) for k in ("wind", "wave", "sword", "cargo", "gold")
                      if rng.random() < 0.7}
            total = rng.randrange(-3, 13)
            for mine, closures in pairs:
                env = rules.Env(state, game, who, counts=counts, total=total)
                assert mine(state, who, counts, total) == closures(env)
                compared += 1
    assert compared > 200


class _Other(random.Random):
    """An RNG class of its own: the lab draws its faces through `choice`."""


@pytest.mark.parametrize("make", [random.Random, _Other])
def test_the_labs_faces_are_the_faces_take_draws(make, harbour, bazaar):
    """`LabFaces.drawn` (each face's key and value, the RNG asked without `choice`) gives
    what `take` gives from the same RNG state, and leaves the RNG as `take` does: every
    die of both games, one to seven at a time, and a die of each size from 1 to 13 faces."""
    from carddb.dice import Face

    dice = [*harbour.dice.values(), *bazaar.dice.values(), *(
        kit._d(sides) for sides in range(1, 14))]  # noqa: SLF001
    dice.append(type(dice[0])("odd", tuple(Face(s, None, None) for s in "abcde"), 1, ()))
    compared = 0
    for seed in range(30):
        for die in dice:
            for n in range(1, 8):
                mine, theirs = declared.LabFaces(make(seed)), declared.LabFaces(make(seed))
                faces = theirs.take(n, die, "")
                assert mine.drawn(n, die, "") == [(f.key, f.value or 0) for f in faces]
                assert mine.rng.getstate() == theirs.rng.getstate()
                compared += 1
    assert compared > 2000


@pytest.mark.parametrize("make", [random.Random, _Other])
def test_the_labs_shuffle_is_the_rngs(make):
    """`declared.shuffle` leaves a list and the RNG as `Random.shuffle` does, for lists
    of 0 to 40 items and many seeds."""
    for seed in range(40):
        for n in range(41):
            mine, theirs = make(seed), make(seed)
            a, b = list(range(n)), list(range(n))
            declared.shuffle(mine, a)
            theirs.shuffle(b)
            assert a == b
            assert mine.getstate() == theirs.getstate()
