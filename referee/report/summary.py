"""Many games of one game totalled: winners by seat, game length, the tokens over each
game, each named roll's observed outcomes against its exact odds (with a p-value), and the
cards the winners played. Pure: records in, one JSON-able dict out."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

from referee.errors import UsageError
from referee.report.read import GameRecord, Trials
from referee.report.stats import goodness_of_fit


def same_game(records: list[GameRecord]) -> None:
    """Refuse sessions of different games (exit 2), naming the first that differs."""
    first = records[0]
    for other in records[1:]:
        if (other.kind, other.game) != (first.kind, first.game):
            raise UsageError(f"{other.path} holds {other.title}, {first.path} holds "
                             f"{first.title}: report the sessions of one game at a time")


def summarise(records: list[GameRecord]) -> dict[str, Any]:
    same_game(records)
    return {
        "game": records[0].game,
        "title": records[0].title,
        "games": len(records),
        "finished": sum(r.over for r in records),
        "sessions": [_session(r) for r in records],
        "seats": _seats(records),
        "length": {"turns": _spread([r.turns for r in records]),
                   "rounds": _spread([r.rounds for r in records])},
        "rolls": _rolls(records),
        "winners_cards": _winners_cards(records),
    }


def _session(r: GameRecord) -> dict[str, Any]:
    return {"path": r.path, "players": r.players, "seats": r.seats, "winners": r.winners,
            "over": r.over, "ended": r.ended, "turns": r.turns, "rounds": r.rounds,
            "tokens": r.tokens, "played": r.played}


def _seats(records: list[GameRecord]) -> list[dict[str, Any]]:
    """Seat 1 is the first player. A shared win counts for each winner's seat; a seat's
    games are the finished games with a player in it; its win rate's Wilson 95% interval
    (0-1 without a game)."""
    from referee.simulate.stats import wilson

    most = max((len(r.seats) for r in records), default=0)
    rows = []
    for seat in range(most):
        played = [r for r in records if r.over and len(r.seats) > seat]
        won = sum(r.seats[seat] in r.winners for r in played)
        low, high = wilson(won, len(played))
        rows.append({"seat": seat + 1, "games": len(played), "wins": won,
                     "share": won / len(played) if played else None, "low": low, "high": high})
    return rows


def _spread(values: list[int | None]) -> dict[str, Any] | None:
    known = [v for v in values if v is not None]
    if not known:
        return None
    return {"min": min(known), "mean": sum(known) / len(known), "max": max(known)}


def _rolls(records: list[GameRecord]) -> dict[str, Any]:
    """Each named roll's outcomes against its exact odds, then each roll whose outcome is
    judged against its own modifiers and target (`trials`), over every session."""
    from dataclasses import replace

    rolls = {name: fit(odds, Counter(v for r in records for v in r.rolls.get(name, [])))
             for name, odds in records[0].odds.items()}
    for name, first in records[0].trials.items():
        made = [m for r in records if name in r.trials for m in r.trials[name].made]
        rolls[name] = outcome_fit(replace(first, made=made))
    return rolls


def fit(odds: dict[str, Any] | None, seen: Counter) -> dict[str, Any]:
    """A named roll's outcomes seen (`seen`: outcome -> times) against its exact odds
    (read.exact_odds; None: an outcome reading more than the dice, observed only), with
    the goodness-of-fit test and its p-value."""
    if odds is None:
        return {"dice": None, "outcome": None, "rolls": sum(seen.values()),
                "test": "none", "statistic": None, "p_value": None,
                "outcomes": [{"value": v, "observed": n, "expected": None,
                              "probability": None} for v, n in sorted(seen.items())]}
    exact = odds["exact"]
    values = sorted(set(exact.weights) | set(seen))
    probs = [Fraction(exact.weights.get(v, 0), exact.denominator) for v in values]
    observed = [seen.get(v, 0) for v in values]
    test, statistic, p = goodness_of_fit(observed, probs)
    n = sum(observed)
    return {
        "dice": odds["dice"], "outcome": odds["outcome"], "rolls": n, "test": test,
        "statistic": statistic, "p_value": p,
        "outcomes": [{"value": v, "observed": o, "expected": n * float(q),
                      "probability": f"{q.numerator}/{q.denominator}"}
                     for v, o, q in zip(values, observed, probs, strict=True)],
    }


def _winners_cards(records: list[GameRecord]) -> list[dict[str, Any]]:
    """Each card a winner had on the table, and in how many games a winner had it."""
    games: Counter[str] = Counter()
    for r in records:
        games.update({card for w in r.winners for card in r.played.get(w, [])})
    return [{"card": card, "games": n} for card, n in
            sorted(games.items(), key=lambda item: (-item[1], item[0]))]


def outcome_fit(trials: Trials) -> dict[str, Any]:
    """A named roll's outcome (success or fail) seen against each roll's own chance, given
    its own dice, modifiers and target as the log records them (read.Trials): the expected
    successes are the sum of the chances (a Poisson-binomial), tested exactly
    (stats.poisson_binomial_p). The outcomes' `probability` is the mean chance of a roll;
    `each` lists every roll's chance and whether it succeeded."""
    from referee.report.stats import poisson_binomial_p

    made = trials.made
    n = len(made)
    wins = sum(ok for _, ok in made)
    mean = sum((q for q, _ in made), Fraction(0)) / n if n else Fraction(0)
    p = poisson_binomial_p([float(q) for q, _ in made], wins)
    rows = [(trials.labels[0], wins, mean), (trials.labels[1], n - wins, 1 - mean)]
    return {
        "kind": "outcome", "dice": trials.dice, "outcome": trials.outcome, "rolls": n,
        "test": "Poisson-binomial" if p is not None else "none", "statistic": None,
        "p_value": p,
        "outcomes": [{"value": label, "observed": seen, "expected": n * float(q),
                      "probability": f"{q.numerator}/{q.denominator}" if n else None}
                     for label, seen, q in rows],
        "each": [{"chance": f"{q.numerator}/{q.denominator}", "success": ok} for q, ok in made],
    }
