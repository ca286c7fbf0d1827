"""The report as lines for the terminal."""

from __future__ import annotations

from typing import Any

from referee.words import counted


def _pct(share: float | None) -> str:
    return "-" if share is None else f"{share * 100:.0f}%"


def p_text(p: float | None) -> str:
    return "-" if p is None else (f"{p:.4f}" if p >= 0.0001 else f"{p:.1e}")


def lines(summary: dict[str, Any]) -> list[str]:
    out = [f"{summary['title']}: {counted(summary['games'], 'game')}, "
           f"{summary['finished']} finished"]
    for s in summary["sessions"]:
        won = " and ".join(s["winners"]) or ("no winner" if s["over"] else "not finished")
        rounds = f", {counted(s['rounds'], 'round')}" if s["rounds"] is not None else ""
        turns = f"{counted(s['turns'], 'turn')}{rounds}" if s["turns"] is not None else "turns unknown"
        out.append(f"  {s['path']}: {', '.join(s['seats'])}; {won}; {turns}"
                   + (f" ({s['ended']})" if s["ended"] else ""))
        for player, tokens in s["tokens"].items():
            shown = ", ".join(f"{name} {series[0]}->{series[-1]} (low {min(series)}, high "
                              f"{max(series)})" for name, series in tokens.items() if series)
            if shown:
                out.append(f"    {player}: {shown}")
    out.append("Wins by seat (seat 1 plays first; Wilson 95% interval):")
    out += [f"  seat {row['seat']}: {row['wins']} of {row['games']} ({_pct(row['share'])}, "
            f"95% {_pct(row['low'])}-{_pct(row['high'])})" for row in summary["seats"]]
    for what, spread in summary["length"].items():
        if spread:
            out.append(f"Length: {what} {spread['min']}-{spread['max']}, mean "
                       f"{spread['mean']:.1f}")
    for name, roll in summary["rolls"].items():
        if roll["dice"] is None:
            out.append(f"Roll {name}: {roll['rolls']} rolled; no exact odds (its outcome reads "
                       "more than the dice)")
            out += [f"  {o['value']:>4}: {o['observed']:>4} seen" for o in roll["outcomes"]]
            continue
        out.append(f"Roll {name} ({roll['dice']}, outcome {roll['outcome']}): {roll['rolls']} "
                   f"rolled; {roll['test']} p = {p_text(roll['p_value'])}")
        chance = "mean P" if roll.get("kind") == "outcome" else "P"
        out += [f"  {o['value']:>4}: {o['observed']:>4} seen, {o['expected']:6.2f} expected "
                f"({chance} = {o['probability'] or '-'})" for o in roll["outcomes"]]
    cards = summary["winners_cards"]
    out.append("Cards the winners played: " + (", ".join(
        f"{c['card']} ({c['games']})" for c in cards) if cards else "none"))
    return out
