"""Statistics of simulated X-Statix games: integer tallies that merge exactly (so the
result does not depend on how games were split between processes), Wilson 95% confidence
intervals, and the tables the terminal, the JSON output and the PDF report show."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, TypeVar

from referee.simulate.xs_sim import GameRecord

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (good near 0 and 1, and for small
    n). (0, 1) when n is 0."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)  # exact at the edges
    return low, high


def _pair() -> list[int]:
    return [0, 0]


Key = TypeVar("Key")


def _tally(table: dict[Key, list[int]], key: Key, won: int) -> None:
    """One more seat at `key` of `table`: [wins, seats]."""
    table[key][0] += won
    table[key][1] += 1


@dataclass
class XsTally:
    """Sums over games; `merge` adds another tally (integer sums only: exact in any
    order)."""

    games: int = 0
    turns: int = 0
    turns_sq: int = 0
    shared_wins: int = 0
    seat: dict[int, list[int]] = field(default_factory=lambda: defaultdict(_pair))
    owner: dict[str, list[int]] = field(default_factory=lambda: defaultdict(_pair))
    team: dict[str, list[int]] = field(default_factory=lambda: defaultdict(_pair))
    policy: dict[str, list[int]] = field(default_factory=lambda: defaultdict(_pair))
    # card -> [played, attempted, successes, payoff sum]
    missions: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0] * 4))
    # hero -> [missions gone on, survived, recruited, in play at the end]
    heroes: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0] * 4))
    # (position, own turn k) -> [MT sum, players counted]
    mt: dict[tuple[int, int], list[int]] = field(default_factory=lambda: defaultdict(_pair))
    final_mt: dict[int, list[int]] = field(default_factory=lambda: defaultdict(_pair))
    # (policy, position in turn order) -> [wins, seats]
    policy_seat: dict[tuple[str, int], list[int]] = field(default_factory=lambda: defaultdict(_pair))

    def add(self, game: GameRecord) -> None:
        self.games += 1
        self.turns += game.turns
        self.turns_sq += game.turns * game.turns
        if any(s["shared"] and s["won"] for s in game.seats):
            self.shared_wins += 1
        for position, seat in enumerate(game.seats, start=1):
            won = int(seat["won"])
            _tally(self.seat, position, won)
            for table, key in ((self.owner, seat["owner"]), (self.team, seat["team"]),
                               (self.policy, seat["policy"])):
                _tally(table, key, won)
            _tally(self.policy_seat, (seat["policy"], position), won)
            self.final_mt[position][0] += seat["mt"]
            self.final_mt[position][1] += 1
        for card, attempted, success, payoff in game.missions:
            row = self.missions[card]
            row[0] += 1
            row[1] += int(attempted)
            row[2] += int(success)
            row[3] += payoff
        for hero, survived in game.hero_missions:
            self.heroes[hero][0] += 1
            self.heroes[hero][1] += int(survived)
        for hero in game.recruited:
            self.heroes[hero][2] += 1
        for hero in game.alive_at_end:
            self.heroes[hero][3] += 1
        for position, curve in enumerate(game.mt_curves, start=1):
            for k, mt in enumerate(curve, start=1):
                cell = self.mt[(position, k)]
                cell[0] += mt
                cell[1] += 1

    def merge(self, other: XsTally) -> None:
        self.games += other.games
        self.turns += other.turns
        self.turns_sq += other.turns_sq
        self.shared_wins += other.shared_wins
        for name in ("seat", "owner", "team", "policy", "missions", "heroes", "mt", "final_mt",
                     "policy_seat"):
            mine, theirs = getattr(self, name), getattr(other, name)
            for key, values in theirs.items():
                row = mine[key]
                for i, v in enumerate(values):
                    row[i] += v

    def plain(self) -> dict[str, Any]:
        """Picklable/JSON-able form (no lambdas)."""
        return {k: (dict(v) if isinstance(v, defaultdict) else v) for k, v in vars(self).items()}

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> XsTally:
        tally = cls()
        for key, value in data.items():
            if isinstance(value, dict):
                getattr(tally, key).update(value)
            else:
                setattr(tally, key, value)
        return tally


def rate_row(label: str, wins: int, n: int) -> dict[str, Any]:
    low, high = wilson(wins, n)
    return {"label": label, "n": n, "wins": wins, "rate": wins / n if n else 0.0,
            "low": low, "high": high}


def summarize(tally: XsTally, players: int) -> dict[str, Any]:
    """Every table of the X-Statix report, as plain data (JSON output, terminal, PDF)."""
    games = tally.games
    mean_turns = tally.turns / games if games else 0.0
    var = tally.turns_sq / games - mean_turns ** 2 if games else 0.0
    sd = math.sqrt(max(0.0, var))
    seats = [rate_row(f"{_ordinal(p)} player", *tally.seat[p]) for p in sorted(tally.seat)]
    for row, p in zip(seats, sorted(tally.seat), strict=True):
        total, n = tally.final_mt[p]
        row["final_mt"] = total / n if n else 0.0
    owners = [rate_row(k, *v) for k, v in sorted(tally.owner.items())]
    teams = [rate_row(k, *v) for k, v in sorted(tally.team.items())]
    policies = [rate_row(k, *v) for k, v in sorted(tally.policy.items())]
    for row in policies:  # where the XS-1 roll seated each policy, and how it fared there
        row["by_seat"] = [{"seat": p, "wins": tally.policy_seat[(row["label"], p)][0],
                           "games": tally.policy_seat[(row["label"], p)][1]}
                          for p in range(1, players + 1)]
    missions = []
    for card, (played, attempted, wins, payoff) in sorted(tally.missions.items()):
        low, high = wilson(wins, attempted)
        missions.append({"label": card, "played": played, "attempted": attempted,
                         "successes": wins, "rate": wins / attempted if attempted else 0.0,
                         "low": low, "high": high,
                         "mean_payoff": payoff / wins if wins else 0.0,
                         "mt_per_play": payoff / played if played else 0.0})
    heroes = []
    for hero, (went, survived, recruited, alive) in sorted(tally.heroes.items()):
        low, high = wilson(survived, went)
        heroes.append({"label": hero, "missions": went, "survived": survived,
                       "rate": survived / went if went else 0.0, "low": low, "high": high,
                       "recruited": recruited, "alive_at_end": alive})
    curves: dict[int, list[dict[str, float]]] = defaultdict(list)
    for (position, k), (total, n) in sorted(tally.mt.items()):
        curves[position].append({"turn": k, "mean_mt": total / n, "games": n})
    return {
        "games": games,
        "players": players,
        "mean_turns": mean_turns,
        "sd_turns": sd,
        "mean_rounds": mean_turns / players if players else 0.0,
        "shared_wins": tally.shared_wins,
        "seats": seats,
        "owners": owners,
        "teams": teams,
        "by_policy": policies,
        "missions": missions,
        "heroes": heroes,
        "mt_curves": {str(p): rows for p, rows in sorted(curves.items())},
        "findings": findings(seats, owners, teams, missions, heroes, players, policies),
    }


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def findings(seats, owners, teams, missions, heroes, players: int,
             policies=()) -> list[str]:
    """Plain-language notes on the most unbalanced results: a win rate whose 95% interval
    excludes the fair share 1/players, the best and worst mission, the most and least
    survivable hero, and which policy wins when several play."""
    fair = 1 / players if players else 0.0
    notes = []
    if len(policies) > 1:
        best = max(policies, key=lambda r: r["rate"])
        notes.append("Policies: " + ", ".join(
            f"{r['label']} wins {r['rate']:.0%} (95% CI {r['low']:.0%}-{r['high']:.0%})"
            for r in policies) + f"; {best['label']} plays better here, so read the card "
            "results with the policies in mind.")
    for what, rows in (("turn order", seats), ("Owner card", owners), ("Team Name card", teams)):
        for row in sorted(rows, key=lambda r: -abs(r["rate"] - fair)):
            if row["n"] and (row["low"] > fair or row["high"] < fair):
                side = "more" if row["rate"] > fair else "less"
                notes.append(
                    f"{row['label']} ({what}) wins {row['rate']:.0%} of its games "
                    f"(95% CI {row['low']:.0%}-{row['high']:.0%}), {side} than the fair "
                    f"{fair:.0%}.")
    if not notes:
        notes.append(f"No seat, Owner or Team Name card wins significantly more or less than "
                     f"the fair {fair:.0%} (every 95% interval contains it).")
    tried = [m for m in missions if m["attempted"] >= 10]
    if tried:
        best = max(tried, key=lambda m: m["rate"])
        worst = min(tried, key=lambda m: m["rate"])
        notes.append(f"Missions: {best['label']} succeeds most often ({best['rate']:.0%}), "
                     f"{worst['label']} least ({worst['rate']:.0%}).")
        rich = max(tried, key=lambda m: m["mt_per_play"])
        poor = min(tried, key=lambda m: m["mt_per_play"])
        notes.append(f"Payoff per mission card played: {rich['label']} "
                     f"{rich['mt_per_play']:.1f} MT, {poor['label']} {poor['mt_per_play']:.1f} MT.")
    went = [h for h in heroes if h["missions"] >= 10]
    if went:
        tough = max(went, key=lambda h: h["rate"])
        frail = min(went, key=lambda h: h["rate"])
        notes.append(f"Heroes: {tough['label']} survives {tough['rate']:.0%} of its missions, "
                     f"{frail['label']} only {frail['rate']:.0%}.")
    return notes
