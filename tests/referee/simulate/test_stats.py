"""Wilson 95% confidence intervals (stats.wilson), and the X-Statix policies by turn position."""

from __future__ import annotations

import json

import pytest

from referee.simulate.stats import wilson


def test_wilson_matches_known_values():
    low, high = wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    low, high = wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson(10, 10)
    assert low == pytest.approx(0.7225, abs=1e-4) and high == 1.0


def test_wilson_narrows_with_more_games():
    small = wilson(30, 100)
    large = wilson(3000, 10000)
    assert small[1] - small[0] > large[1] - large[0]
    assert large[0] < 0.3 < large[1]


def test_wilson_without_games_says_nothing():
    assert wilson(0, 0) == (0.0, 1.0)


def test_each_policy_by_turn_position_by_hand():
    """X-Statix seats the policies as dealt and rolls the first player (XS-1): the summary
    says how often each policy played each turn position and won there; the tallies merge
    exactly (two halves merged equal the whole)."""
    from referee.simulate.stats import XsTally, summarize
    from referee.simulate.xs_sim import GameRecord

    def game(first: str, second: str, won: int) -> GameRecord:
        seats = [{"owner": "O", "team": "T", "policy": p, "mt": 10, "won": i == won,
                  "shared": False} for i, p in enumerate((first, second))]
        return GameRecord(turns=4, seats=seats, mt_curves=[[1], [2]])

    games = [game("cautious", "greedy", 0), game("greedy", "cautious", 0),
             game("greedy", "cautious", 1), game("cautious", "greedy", 1)]
    whole, half, other = XsTally(), XsTally(), XsTally()
    for i, g in enumerate(games):
        whole.add(g)
        (half if i < 2 else other).add(g)
    half.merge(XsTally.from_plain(other.plain()))
    for tally in (whole, half):
        rows = {r["label"]: r for r in summarize(tally, 2)["by_policy"]}
        assert rows["cautious"]["by_seat"] == [{"seat": 1, "wins": 1, "games": 2},
                                               {"seat": 2, "wins": 1, "games": 2}]
        assert rows["greedy"]["by_seat"] == [{"seat": 1, "wins": 1, "games": 2},
                                             {"seat": 2, "wins": 1, "games": 2}]
        assert (rows["cautious"]["wins"], rows["cautious"]["n"]) == (2, 4)


def test_the_terminal_shows_policies_by_turn_position():
    from tests.harness import run_cli

    done = run_cli("referee", "simulate", "x-statix", "--games", "20", "--players", "2",
                   "--seed", "3", "--policy", "cautious,greedy", "--workers", "1",
                   "--no-progress", "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["by_policy"]
    for r in rows:
        assert sum(c["games"] for c in r["by_seat"]) == r["n"] == 20
        assert sum(c["wins"] for c in r["by_seat"]) == r["wins"]
    text = run_cli("referee", "simulate", "x-statix", "--games", "20", "--players", "2",
                   "--seed", "3", "--policy", "cautious,greedy", "--workers", "1",
                   "--no-progress").stdout
    cautious = next(r for r in rows if r["label"] == "cautious")["by_seat"]
    assert (f"  cautious: 1. {cautious[0]['wins']}/{cautious[0]['games']}, "
            f"2. {cautious[1]['wins']}/{cautious[1]['games']}") in text
