"""The report as a PDF, built from the pages every report shares (referee/pages.py):
the sessions' table, wins by seat with Wilson 95% intervals, game length, each game's
tokens over the game as a line chart, each named roll's observed outcomes against the
exact odds, and the cards the winners played."""

from __future__ import annotations

from typing import Any


def _token_curves(session: dict[str, Any]) -> dict[str, list[tuple[int, float]]]:
    curves = {}
    for player, tokens in session["tokens"].items():
        for name, series in tokens.items():
            label = f"{player} {name}" if len(tokens) > 1 else player
            curves[label] = [(i, float(v)) for i, v in enumerate(series)]
    return curves


def _seat_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"label": f"seat {r['seat']}", "games": r["games"], "wins": r["wins"],
             "rate": r["share"] or 0.0, "low": r["low"], "high": r["high"]}
            for r in summary["seats"]]


def _length_counts(summary: dict[str, Any], what: str) -> dict[int, int]:
    counts: dict[int, int] = {}
    for s in summary["sessions"]:
        if s[what] is not None:
            counts[s[what]] = counts.get(s[what], 0) + 1
    return counts


def story(summary: dict[str, Any]) -> list[Any]:
    from reportlab.platypus import Spacer

    from referee import pages

    flow: list[Any] = [pages.para(f"{summary['title']}: report of {summary['games']} played "
                                  f"{'game' if summary['games'] == 1 else 'games'}", "Title")]
    flow.append(pages.table(
        ["Session", "Seats (first first)", "Winners", "Turns", "Rounds"],
        [[s["path"][-40:], ", ".join(s["seats"]), ", ".join(s["winners"]) or "-",
          s["turns"] if s["turns"] is not None else "-",
          s["rounds"] if s["rounds"] is not None else "-"] for s in summary["sessions"]],
        text_cols=3))
    flow += [Spacer(1, 8), *pages.seat_wins(_seat_rows(summary))]
    turns = _length_counts(summary, "turns")
    if turns:
        flow += pages.length(turns, _length_counts(summary, "rounds"))
    for s in summary["sessions"]:
        curves = _token_curves(s)
        if curves:
            flow += [Spacer(1, 8), pages.line_chart(f"Tokens over the game: {s['path'][-50:]}",
                                                    curves, "event", "tokens")]
    for name, roll in summary["rolls"].items():
        flow += pages.roll(name, roll)
    cards = summary["winners_cards"]
    flow += [Spacer(1, 8), pages.para("Cards the winners played", "Heading2")]
    flow.append(pages.table(["Card", "Games"], [[c["card"], c["games"]] for c in cards])
                if cards else pages.para("none"))
    return flow


def write_report(path: str, summary: dict[str, Any]) -> None:
    from referee import pages

    doc = pages.doc(path, f"{summary['title']}: played games", author="referee report",
                    subject="playtest report")
    doc.build(story(summary))
