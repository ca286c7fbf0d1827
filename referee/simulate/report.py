"""PDF reports of the balance lab, drawn with ReportLab's own graphics
(`reportlab.graphics`): bar charts with 95% error bars, heat maps of the XO! matchups, a
line chart of MT over time, the tables, and a short plain-language summary of the most
unbalanced findings. Chart titles are real text in the PDF (searchable, testable)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.charts.lineplots import LinePlot
from reportlab.graphics.shapes import Drawing, Line, Rect, String
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import (
    KeepTogether,
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

from referee.simulate import xo_tables

WIDTH = A4[0] - 30 * mm  # frame width
SERIES = [colors.HexColor(c) for c in ("#d7262e", "#1f4fa8", "#2e8b57", "#e0a000")]
BAR = colors.HexColor("#1f4fa8")
STYLES = getSampleStyleSheet()


# ── charts ────────────────────────────────────────────────────────────────────
def bar_chart(title: str, labels: list[str], values: list[float], lows: list[float] | None = None,
              highs: list[float] | None = None, reference: float | None = None,
              reference_label: str = "", percent: bool = True, height: float = 190,
              lines: Sequence[tuple[float, str]] = ()) -> Drawing:
    """Vertical bars, one per label, with 95% error bars (`lows`..`highs`) and an optional
    dashed reference line (the fair share)."""
    d = Drawing(WIDTH, height)
    d.add(String(WIDTH / 2, height - 12, title, fontName="Helvetica-Bold", fontSize=11,
                 textAnchor="middle"))
    left, bottom = 40, 62 if max((len(s) for s in labels), default=0) > 6 else 24
    plot_w, plot_h = WIDTH - left - 34, height - bottom - 24
    top_value = max([*values, *(highs or []), reference or 0, *(v for v, _ in lines), 1e-9])
    if percent and top_value <= 1:  # zoom to the data: a multiple of 20% (round quarters)
        scale_max = min(1.0, math.ceil(top_value * 1.1 * 5 - 1e-9) / 5)
    else:
        scale_max = _nice(top_value)
    d.add(Line(left, bottom, left, bottom + plot_h, strokeColor=colors.black))
    d.add(Line(left, bottom, left + plot_w, bottom, strokeColor=colors.black))
    for i in range(5):
        v = scale_max * i / 4
        y = bottom + plot_h * i / 4
        d.add(Line(left - 3, y, left + plot_w, y, strokeColor=colors.lightgrey, strokeWidth=0.3))
        d.add(String(left - 5, y - 3, f"{v:.0%}" if percent else f"{v:g}", fontSize=7,
                     textAnchor="end"))
    n = max(1, len(values))
    slot = plot_w / n
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        x = left + slot * i + slot * 0.15
        w = slot * 0.7
        h = plot_h * value / scale_max
        d.add(Rect(x, bottom, w, h, fillColor=BAR, strokeColor=None))
        cx = x + w / 2
        if lows is not None and highs is not None:
            y0 = bottom + plot_h * lows[i] / scale_max
            y1 = bottom + plot_h * highs[i] / scale_max
            for shape in (Line(cx, y0, cx, y1), Line(cx - w / 4, y0, cx + w / 4, y0),
                          Line(cx - w / 4, y1, cx + w / 4, y1)):
                shape.strokeColor = colors.black
                shape.strokeWidth = 0.8
                d.add(shape)
        text = String(cx, bottom - 9, label, fontSize=6.5, textAnchor="middle")
        if bottom > 30:
            text = String(0, 0, label, fontSize=6.5, textAnchor="end")
            from reportlab.graphics.shapes import Group

            group = Group(text)
            group.transform = (0.7071, 0.7071, -0.7071, 0.7071, cx + 2, bottom - 6)
            d.add(group)
        else:
            d.add(text)
    marks = list(lines)
    if reference is not None:
        marks.append((reference, reference_label))
    for value, label in marks:
        y = bottom + plot_h * value / scale_max
        d.add(Line(left, y, left + plot_w, y, strokeColor=colors.HexColor("#d7262e"),
                   strokeDashArray=[3, 2], strokeWidth=0.8))
        if label:  # outside the plot, right of the line's end
            d.add(String(left + plot_w + 2, y - 2, label, fontSize=6.5, textAnchor="start",
                         fillColor=colors.HexColor("#d7262e")))
    return d


def _nice(value: float) -> float:
    """The smallest 1, 2, 2.5 or 5 times a power of ten that is >= value (axis top)."""
    return min(s * 10 ** p for s in (1, 2, 2.5, 5) for p in range(-2, 7) if s * 10 ** p >= value)


def line_chart(title: str, curves: dict[str, list[tuple[int, float]]], x_label: str,
               y_label: str, height: float = 220) -> Drawing:
    """One line per series (ReportLab's LinePlot) with a legend."""
    d = Drawing(WIDTH, height)
    d.add(String(WIDTH / 2, height - 12, title, fontName="Helvetica-Bold", fontSize=11,
                 textAnchor="middle"))
    plot = LinePlot()
    plot.x, plot.y = 45, 35
    plot.width, plot.height = WIDTH - 160, height - 60
    names = list(curves)
    plot.data = [curves[n] or [(0, 0)] for n in names]
    for i in range(len(names)):
        plot.lines[i].strokeColor = SERIES[i % len(SERIES)]
        plot.lines[i].strokeWidth = 1.5
    plot.xValueAxis.labels.fontSize = 7
    plot.yValueAxis.labels.fontSize = 7
    plot.yValueAxis.valueMin = 0
    d.add(plot)
    legend = Legend()
    legend.x, legend.y = WIDTH - 105, height - 40
    legend.fontSize = 8
    legend.colorNamePairs = [(SERIES[i % len(SERIES)], n) for i, n in enumerate(names)]
    d.add(legend)
    d.add(String(45 + plot.width / 2, 8, x_label, fontSize=8, textAnchor="middle"))
    d.add(String(10, 35 + plot.height / 2, y_label, fontSize=8, textAnchor="middle"))
    return d


def heat_map(title: str, rows: list[str], cols: list[str], value: dict[tuple[str, str], float],
             fmt: str = "{:.0%}", high_is_red: bool = True) -> Drawing:
    """A grid: rows = attackers, columns = defenders, cell colour = the value (0..1)."""
    label_w, head_h = 95, 70
    cell_w = min(48.0, (WIDTH - label_w - 10) / max(1, len(cols)))
    cell_h = 16
    height = head_h + cell_h * len(rows) + 24
    d = Drawing(WIDTH, height)
    d.add(String(WIDTH / 2, height - 12, title, fontName="Helvetica-Bold", fontSize=11,
                 textAnchor="middle"))
    top = height - 24 - head_h
    from reportlab.graphics.shapes import Group

    for j, col in enumerate(cols):
        text = String(0, 0, col, fontSize=7)
        group = Group(text)
        group.transform = (0.7071, 0.7071, -0.7071, 0.7071,
                           label_w + cell_w * j + cell_w / 2, top + 4)
        d.add(group)
    for i, row in enumerate(rows):
        y = top - cell_h * (i + 1)
        d.add(String(label_w - 4, y + 5, row, fontSize=7, textAnchor="end"))
        for j, col in enumerate(cols):
            v = value.get((row, col), 0.0)
            shade = v if high_is_red else 1 - v
            fill = colors.Color(1, 1 - 0.75 * shade, 1 - 0.85 * shade)
            d.add(Rect(label_w + cell_w * j, y, cell_w, cell_h, fillColor=fill,
                       strokeColor=colors.white, strokeWidth=0.5))
            d.add(String(label_w + cell_w * j + cell_w / 2, y + 5, fmt.format(v), fontSize=6.5,
                         textAnchor="middle"))
    return d


# ── tables ────────────────────────────────────────────────────────────────────
def table(header: list[str], rows: list[list[Any]], widths: list[float] | None = None,
          text_cols: int = 1) -> Table:
    """A plain table; the first `text_cols` columns are left-aligned, numbers right."""
    t = Table([header, *rows], colWidths=widths, repeatRows=1)
    t.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 7.5),
        ("FONT", (0, 1), (-1, -1), "Helvetica", 7.5),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8e8e8")),
        ("ALIGN", (text_cols, 0), (-1, -1), "RIGHT"),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("LINEBELOW", (0, 0), (-1, 0), 0.5, colors.black),
        ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#f6f6f6")]),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
    ]))
    return t


def _pct(p: float) -> str:
    return f"{p * 100:.1f}%"


def _ci(row: dict) -> str:
    return f"{row['low'] * 100:.1f}-{row['high'] * 100:.1f}%"


def _doc(path: str, title: str) -> SimpleDocTemplate:
    return SimpleDocTemplate(path, pagesize=A4, leftMargin=15 * mm, rightMargin=15 * mm,
                             topMargin=15 * mm, bottomMargin=15 * mm, title=title,
                             author="referee simulate", subject="balance report",
                             creator="referee simulate (reportlab)")


def _esc(text: str) -> str:
    from xml.sax.saxutils import escape

    return escape(text)


def _para(text: str, style: str = "BodyText") -> Paragraph:
    return Paragraph(_esc(text), STYLES[style])


# ── X-Statix ──────────────────────────────────────────────────────────────────
def write_xs_report(path: str, summary: dict[str, Any], meta: dict[str, Any]) -> None:
    players = summary["players"]
    fair = 1 / players
    story: list[Any] = [
        _para("X-Statix balance report", "Title"),
        _para(f"{summary['games']} simulated games, {players} players, policies "
              f"{', '.join(meta['policies'])} (seat order), seed {meta['seed']}. Games are "
              "played by the referee's own X-Statix rule functions; intervals are Wilson 95% "
              "confidence intervals; a shared first place counts as a win."),
        _para(f"Average game length: {summary['mean_turns']:.1f} turns "
              f"(sd {summary['sd_turns']:.1f}), {summary['mean_rounds']:.1f} rounds."),
        _para("Summary: the most unbalanced findings", "Heading2"),
    ]
    story += [_para(f"• {note}") for note in summary["findings"]]
    rows = []
    for group, items in (("seat", summary["seats"]), ("Owner", summary["owners"]),
                         ("Team Name", summary["teams"]), ("policy", summary["by_policy"])):
        rows += [[f"{group}: {r['label']}", str(r["n"]), str(r["wins"]), _pct(r["rate"]),
                  _ci(r)] for r in items]
    story += [Spacer(1, 6), _para("Win rates", "Heading2"),
              table(["", "games", "wins", "win rate", "95% CI"], rows,
                    [190, 50, 50, 60, 80])]
    story.append(PageBreak())
    charts = [("Win rate by seat (turn order)", summary["seats"]),
              ("Win rate by Owner card", summary["owners"]),
              ("Win rate by Team Name card", summary["teams"])]
    if len(summary["by_policy"]) > 1:
        charts.append(("Win rate by policy", summary["by_policy"]))
    for title, items in charts:
        story.append(bar_chart(title, [r["label"] for r in items], [r["rate"] for r in items],
                               [r["low"] for r in items], [r["high"] for r in items],
                               reference=fair, reference_label=f"fair {fair:.0%}",
                               height=200 if len(charts) == 3 else 165))
        story.append(Spacer(1, 8))
    curves = {f"{_ordinal(int(p))} player": [(r["turn"], r["mean_mt"]) for r in rows_
                                             if r["games"] >= max(1, summary["games"] // 20)]
              for p, rows_ in summary["mt_curves"].items()}
    story.append(PageBreak())
    story.append(line_chart("MT over time (mean MT after each of the player's own turns)",
                            curves, "the player's own turn", "mean MT"))
    story.append(_para("Each point averages the games still running at that turn (turns reached "
                       "by fewer than 5% of the games are left out).", "Italic"))
    missions = sorted(summary["missions"], key=lambda r: r["label"])
    story.append(Spacer(1, 8))
    story.append(bar_chart("Mission success rate by mission card",
                           [r["label"] for r in missions], [r["rate"] for r in missions],
                           [r["low"] for r in missions], [r["high"] for r in missions],
                           height=240))
    story.append(PageBreak())
    story.append(bar_chart("Average payoff per mission card played (MT)",
                           [r["label"] for r in missions], [r["mt_per_play"] for r in missions],
                           percent=False, height=220))
    story.append(KeepTogether([_para("Missions", "Heading2"), table(
        ["mission", "played", "attempted", "success", "95% CI", "payoff if won", "MT per play"],
        [[r["label"], str(r["played"]), str(r["attempted"]), _pct(r["rate"]), _ci(r),
          f"{r['mean_payoff']:.1f}", f"{r['mt_per_play']:.1f}"] for r in missions],
        [120, 45, 55, 50, 75, 70, 65])]))
    heroes = sorted(summary["heroes"], key=lambda r: r["label"])
    story.append(PageBreak())
    story.append(bar_chart("Hero survival rate on missions", [r["label"] for r in heroes],
                           [r["rate"] for r in heroes], [r["low"] for r in heroes],
                           [r["high"] for r in heroes], height=240))
    story.append(KeepTogether([_para("Heroes", "Heading2"), table(
        ["hero", "missions", "survived", "survival", "95% CI", "recruited", "in play at end"],
        [[r["label"], str(r["missions"]), str(r["survived"]), _pct(r["rate"]), _ci(r),
          str(r["recruited"]), str(r["alive_at_end"])] for r in heroes],
        [110, 50, 50, 50, 75, 55, 70])]))
    _doc(path, "X-Statix balance report").build(story)


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


# ── XO! ───────────────────────────────────────────────────────────────────────
def write_xo_report(path: str, matchups: list, objectives: list) -> None:
    story: list[Any] = [
        _para("XO! balance report", "Title"),
        _para("Exact odds (not sampled) from the referee's own dice distributions and combat "
              "rules: one attack of each roster character against each character of the other "
              "league, untagged and with no cards played (XO-2..XO-6); each objective's best "
              "feat (XO-13) and best thwart (XO-14)."),
        _para("Summary: the most unbalanced findings", "Heading2"),
    ]
    story += [_para(f"• {note}") for note in xo_tables.findings(matchups, objectives)]
    for league, other in (("heroes", "villains"), ("villains", "heroes")):
        subset = [m for m in matchups if m.league == league]
        if not subset:
            continue
        rows = list(dict.fromkeys(m.attacker for m in subset))
        cols = list(dict.fromkeys(m.defender for m in subset))
        if league == "villains" or len(rows) > 6:
            story.append(PageBreak())
        for metric, label in (("hit", "P(hit)"), ("ko", "P(KO)")):
            values = {(m.attacker, m.defender): float(getattr(m, metric)) for m in subset}
            story.append(heat_map(f"{label}: {league} attacking {other}", rows, cols, values))
            story.append(Spacer(1, 10))
    if matchups:
        story.append(PageBreak())
        story.append(_para("Matchups", "Heading2"))
        story.append(table(
            ["attacker", "defender", "dice", "health", "P(hit)", "P(Stunned)", "P(KO)",
             "E[damage]", "P(counter)"],
            [[m.attacker, m.defender, f"{m.attack_dice}v{m.defense_dice}", str(m.health),
              _pct(float(m.hit)), _pct(float(m.stunned)), _pct(float(m.ko)),
              f"{float(m.expected_damage):.2f}", _pct(float(m.counterattack))] for m in matchups],
            [90, 90, 35, 35, 45, 55, 45, 50, 50], text_cols=2))
    if objectives:
        story.append(PageBreak())
        labels = [f"{o.chapter}{o.league[0].upper()}" for o in objectives]
        story.append(bar_chart("Objectives: best character's feat probability", labels,
                               [float(o.feat) for o in objectives],
                               lines=[(0.9, "90%"), (0.1, "10%")], height=200))
        story.append(bar_chart("Objectives: best opponent's thwart probability", labels,
                               [float(o.thwart) for o in objectives],
                               lines=[(0.9, "90%"), (0.1, "10%")], height=200))
        story.append(_para("Objectives", "Heading2"))
        small = STYLES["BodyText"].clone("cell", fontSize=7, leading=8)
        story.append(table(
            ["ch", "objective (needs)", "FCV", "best feat", "P(feat)", "TCV", "best thwart",
             "P(thwart)", "P(won)", "flags"],
            [[f"{o.chapter}{o.league[0].upper()}",
              Paragraph(f"{_esc(o.name)}<br/><i>{_esc(o.requires)}</i>", small), str(o.fcv),
              Paragraph(_esc(o.feat_by or "-"), small), _pct(float(o.feat)), str(o.tcv),
              Paragraph(_esc(o.thwart_by or "-"), small), _pct(float(o.thwart)),
              _pct(float(o.completed)), Paragraph(_esc("; ".join(o.flags)), small)]
             for o in objectives],
            [20, 118, 24, 74, 38, 24, 74, 42, 36, 62], text_cols=2))
        story.append(_para("P(won): the feat succeeds and the best thwart fails, for one "
                           "attempt (XO-13, XO-14), without cards or the thwart bonus.", "Italic"))
    _doc(path, "XO! balance report").build(story)
