"""`referee simulate GAME` for a game with rules declared as data: the starter's Harbour
Lights (`pnp init` into tmp_path) played whole through the referee's own moves by each
policy, the same figures for a seed whatever --jobs, a sweep over two keys, and every
refusal one line with exit 2. In-process (tests.harness.run_cli)."""

from __future__ import annotations

import json

import pytest

from tests.harness import run_cli

GAME = "harbour"


def simulate(cards: str, *args: str) -> tuple[int, str]:
    result = run_cli("referee", "--cards", cards, "simulate", GAME, *args)
    return result.returncode, result.stdout + result.stderr


def figures(cards: str, *args: str) -> dict:
    code, out = simulate(cards, "--json", *args)
    assert code == 0, out
    data = json.loads(out)
    data.pop("seconds")
    data.pop("jobs")
    return data


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_each_policy_plays_whole_games_reproducibly_whatever_the_jobs(cards, policy, small_chunks):
    assert len(small_chunks) == 3  # 24 games: chunks of 10, 10 and 4
    one = figures(cards, "--games", "24", "--seed", "7", "--policy", policy, "--jobs", "1")
    again = figures(cards, "--games", "24", "--seed", "7", "--policy", policy, "--jobs", "1")
    two = figures(cards, "--games", "24", "--seed", "7", "--policy", policy, "--jobs", "2")
    assert one == again == two
    assert one["games"] == 24 and one["players"] == 2 and one["policy"] == policy
    # every game ends by one of the declared end conditions, and has a winner
    assert sum(e["count"] for e in one["ends"].values()) == 24
    assert set(one["ends"]) <= {"token: cargo >= 20", "pool: lantern <= 0",
                                "deck_empty: storms", "rounds: 8"}
    assert sum(s["wins"] for s in one["seats"]) == 24 + one["shared_wins"]
    first = one["first_player"]
    assert first["low"] <= first["rate"] <= first["high"] and first["fair"] == 0.5
    # the 12 Storms are revealed one a turn: the deck runs out by the 13th turn's start, and
    # every end plays its round out (finish: round): each player has as many turns
    assert 2 <= one["turns"]["min"] <= one["turns"]["max"] <= 12
    assert all(int(turns) % 2 == 0 for turns in one["turns"]["counts"])
    weather = one["rolls"]["weather"]
    assert set(weather["outcomes"]) <= {str(n) for n in range(-3, 4)}  # wind - wave, 3 dice
    assert sum(o["count"] for o in weather["outcomes"].values()) == weather["rolls"] > 0
    assert one["cards"] and all(c["card"] for c in one["cards"])
    other = figures(cards, "--games", "24", "--seed", "8", "--policy", policy, "--jobs", "1")
    assert other != one


def test_the_text_report(cards):
    code, out = simulate(cards, "--games", "20", "--seed", "1", "--jobs", "1", "--players", "3")
    assert code == 0, out
    assert "Harbour Lights: 20 games of 3 players, policy random, seed 1" in out
    for part in ("seat 3:", "first player's advantage", "game length:", "ended by:",
                 "weather roll", "cards in play, per winner against per loser"):
        assert part in out, part


def test_a_sweep_over_two_keys(cards):
    data = figures(cards, "--games", "20", "--seed", "3", "--jobs", "2", "--policy", "greedy",
                   "--set", "end.token.cargo=>= 5,>= 150", "--set", "tokens.cargo.start=0,8")
    rows = data["variants"]
    assert [r["set"] for r in rows] == [
        {"end.token.cargo": ">= 5", "tokens.cargo.start": "0"},
        {"end.token.cargo": ">= 5", "tokens.cargo.start": "8"},
        {"end.token.cargo": ">= 150", "tokens.cargo.start": "0"},
        {"end.token.cargo": ">= 150", "tokens.cargo.start": "8"}]
    # starting with 8 cargo, a player passes 5 at the first change: the first round is the
    # last (finish: round), and every game ends as the second would begin
    assert rows[1]["ends"] == {"token: cargo >= 5": {"count": 20, "rate": 1.0}}
    assert rows[1]["turns"]["min"] == rows[1]["turns"]["max"] == 2
    assert rows[1]["rounds"]["max"] == 1
    # 150 cargo is out of reach before the Storms run out (a ship a turn, speeds up to 6)
    assert "token: cargo >= 150" not in rows[2]["ends"]
    code, out = simulate(cards, "--games", "10", "--seed", "3", "--jobs", "1",
                         "--set", "hand_limit=1,5", "--set",
                         "dice.storm.faces=wind wind wind wave calm 2,wave wave wave wind calm 2")
    assert code == 0, out
    assert "hand_limit=1, dice.storm.faces=wind wind wind wave calm 2" in out
    assert out.count("hand_limit=") == 4


def test_a_sweep_of_how_the_end_finishes(cards):
    """`--set end.finish=now,round`: the starter's ends at once (the first player may have
    a turn more) against its rounds played out (the same turns for each)."""
    data = figures(cards, "--games", "30", "--seed", "5", "--jobs", "1",
                   "--set", "end.finish=now,round")
    now, played_out = data["variants"]
    assert [now["set"], played_out["set"]] == [{"end.finish": "now"}, {"end.finish": "round"}]
    assert any(int(t) % 2 for t in now["turns"]["counts"])  # the Storms out as Bob's turn begins
    assert all(int(t) % 2 == 0 for t in played_out["turns"]["counts"])
    assert played_out["turns"]["mean"] > now["turns"]["mean"]


@pytest.mark.parametrize(("args", "said"), [
    (["--set", "end.finish=later"], "--set end.finish=later: a finish is one of now, round"),
    (["--set", "nope=1"], "--set nope=1: no such setting"),
    (["--set", "hand_limit"], "write KEY=V1,V2,..."),
    (["--set", "hand_limit=x"], "--set hand_limit=x: a whole number"),
    (["--set", "dice.fire.faces=1 2"], "has no die 'fire' (it has: storm)"),
    (["--set", "tokens.cargo.start=2x"], "a whole number or dice such as 2d6"),
    (["--set", "end.token.cargo==> 5"], "an end test is a comparison and a number"),
    (["--set", "end.pool.gold=>= 2"], "declares no such end condition"),
    (["--players", "9"], "--players 9: Harbour Lights is for 2 to 4 players"),
])
def test_refusals_are_one_line(cards, args, said):
    code, out = simulate(cards, "--games", "2", *args)
    assert code == 2
    assert said in out and len(out.strip().splitlines()) == 1 and "Traceback" not in out


def test_a_game_that_is_not_there_or_declares_no_rules(cards):
    result = run_cli("referee", "--cards", cards, "simulate", "bramble")
    assert result.returncode == 2 and "has no bramble game" in result.stderr
    assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1
    result = run_cli("referee", "simulate", "xo", "--help")
    assert result.returncode == 0  # the lab's own commands still answer first


def test_help_names_declared_games():
    result = run_cli("referee", "simulate", "--help")
    assert result.returncode == 0
    assert "rules declared as data" in result.stdout and "--set KEY=V1,V2" in result.stdout


def test_the_hidden_hands_follow_a_card_named_out_and_one_drawn_in_the_same_step(cards):
    """`Hidden.sync` skips a step that leaves every hand's count as it was, unless a card
    left a hand by name (`gone`): then a card played and one drawn at once is still drawn."""
    import random

    import carddb
    from referee.simulate.declared import Hidden
    from referee.table.kit import TableGame

    game = TableGame.from_db(carddb.load(cards), "harbour")
    rng = random.Random(3)
    hidden = Hidden(game, ["P1", "P2"], rng)
    state = {"hands": {"P1": {"ships": 2, "storms": 0}, "P2": {"ships": 1, "storms": 0}}}
    hidden.sync(state, rng)
    first, top = list(hidden.held("P1")), hidden.piles["ships"][-1]
    hidden.sync(state, rng)  # nothing changed: nothing drawn
    assert hidden.held("P1") == first and hidden.piles["ships"][-1] == top
    hidden.gone("P1", "ships", first[0])  # played by name; the step also drew one: still 2
    hidden.sync(state, rng)
    assert hidden.held("P1") == [*first[1:], top]
    assert len(hidden.held("P2")) == 1
