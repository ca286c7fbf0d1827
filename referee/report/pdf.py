"""The report as a PDF, in the balance lab's page style (referee/simulate/report.py):
tables, each game's tokens over the game as a line chart, each named roll's observed
outcomes against the exact odds as bars."""

from __future__ import annotations

from typing import Any

from referee.errors import UsageError


def _token_curves(session: dict[str, Any]) -> dict[str, list[tuple[int, float]]]:
    curves = {}
    for player, tokens in session["tokens"].items():
        for name, series in tokens.items():
            label = f"{player} {name}" if len(tokens) > 1 else player
            curves[label] = [(i, float(v)) for i, v in enumerate(series)]
    return curves


def _expected(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def story(summary: dict[str, Any]) -> list[Any]:
    from reportlab.platypus import KeepTogether, Spacer

    from referee.report.text import _p, _pct
    from referee.simulate.report import _para, bar_chart, line_chart, table

    flow: list[Any] = [_para(f"{summary['title']}: report of {summary['games']} played "
                             f"{'game' if summary['games'] == 1 else 'games'}", "Title")]
    flow.append(table(["Session", "Seats (first first)", "Winners", "Turns", "Rounds"],
                      [[s["path"][-40:], ", ".join(s["seats"]), ", ".join(s["winners"]) or "-",
                        s["turns"] if s["turns"] is not None else "-",
                        s["rounds"] if s["rounds"] is not None else "-"]
                       for s in summary["sessions"]], text_cols=3))
    flow += [Spacer(1, 8), _para("Wins by seat (seat 1 plays first)", "Heading2"),
             table(["Seat", "Games", "Wins", "Share"],
                   [[r["seat"], r["games"], r["wins"], _pct(r["share"])]
                    for r in summary["seats"]])]
    for s in summary["sessions"]:
        curves = _token_curves(s)
        if curves:
            flow += [Spacer(1, 8), line_chart(f"Tokens over the game: {s['path'][-50:]}",
                                              curves, "event", "tokens")]
    for name, roll in summary["rolls"].items():
        head = [_para(f"Roll {name}: {roll['dice']}, outcome {roll['outcome']}; "
                      f"{roll['rolls']} rolled, {roll['test']} p = {_p(roll['p_value'])}",
                      "Heading2")]
        if roll["rolls"]:
            head.append(bar_chart(f"Roll {name}: share of each outcome seen",
                                  [str(o["value"]) for o in roll["outcomes"]],
                                  [o["observed"] / roll["rolls"] for o in roll["outcomes"]]))
        flow += [Spacer(1, 8), KeepTogether(head)]
        flow.append(table(["Outcome", "Seen", "Expected", "P"],
                          [[o["value"], o["observed"], _expected(o["expected"]), o["probability"] or "-"]
                           for o in roll["outcomes"]]))
    cards = summary["winners_cards"]
    flow += [Spacer(1, 8), _para("Cards the winners played", "Heading2")]
    flow.append(table(["Card", "Games"], [[c["card"], c["games"]] for c in cards])
                if cards else _para("none"))
    return flow


def write_report(path: str, summary: dict[str, Any]) -> None:
    from referee.simulate.report import _doc

    doc = _doc(path, f"{summary['title']}: played games")
    doc.author, doc.subject, doc.creator = ("referee report", "playtest report",
                                            "referee report (reportlab)")
    try:
        doc.build(story(summary))
    except OSError as error:
        raise UsageError(f"{path}: cannot write the report: {error.strerror}") from None
