"""Many games of one game totalled: winners by seat, game length, the tokens over each
game, each named roll's observed outcomes against its exact odds (with a p-value), and the
cards the winners played. Pure: records in, one JSON-able dict out."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

from referee.errors import UsageError
from referee.report.read import GameRecord
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
    return {name: fit(odds, Counter(v for r in records for v in r.rolls.get(name, [])))
            for name, odds in records[0].odds.items()}


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
