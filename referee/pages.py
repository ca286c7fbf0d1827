"""The pages every PDF report of the referee is made of, in one place: `referee simulate`
(X-Statix, XO!, and the games with rules declared as data, sweeps included) and `referee
report` (sessions of real games) build their reports from these charts and page builders,
drawn with ReportLab's own graphics (`reportlab.graphics`). Chart titles are real text in
the PDF (searchable, testable); no text is smaller than 6.5 pt.

A page builder takes plain data (the figures of --json) and returns flowables: wins by seat
with Wilson 95% intervals, game length and score spread as histograms, the end conditions,
a named roll's observed outcomes against its exact odds (with the goodness-of-fit test),
the cards in the winners' play areas against the losers', and one row per variant of a
sweep."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.charts.lineplots import LinePlot
from reportlab.graphics.shapes import Drawing, Group, Line, Rect, String
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import (
    KeepTogether,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

from referee.report.text import p_text

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
    scale_max = _scale(top_value, percent)
    _axes(d, left, bottom, plot_w, plot_h, scale_max, percent)
    n = max(1, len(values))
    slot = plot_w / n
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        w = min(slot * 0.7, 60.0)  # a lone bar stays a bar, not a wall
        x = left + slot * i + (slot - w) / 2
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
        _label(d, label, cx, bottom, bottom > 30)
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


def _scale(top_value: float, percent: bool) -> float:
    """The axis top: for shares, zoomed to the data in steps of 20% (round quarters)."""
    if percent and top_value <= 1:
        return min(1.0, math.ceil(top_value * 1.1 * 5 - 1e-9) / 5)
    return _nice(top_value)


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


def pct(p: float) -> str:
    return f"{p * 100:.1f}%"


def ci(row: dict) -> str:
    return f"{row['low'] * 100:.1f}-{row['high'] * 100:.1f}%"


def doc(path: str, title: str, author: str = "referee simulate",
        subject: str = "balance report") -> SimpleDocTemplate:
    return SimpleDocTemplate(path, pagesize=A4, leftMargin=15 * mm, rightMargin=15 * mm,
                             topMargin=15 * mm, bottomMargin=15 * mm, title=title,
                             author=author, subject=subject, creator=f"{author} (reportlab)")


def esc(text: str) -> str:
    from xml.sax.saxutils import escape

    return escape(text)


def para(text: str, style: str = "BodyText") -> Paragraph:
    return Paragraph(esc(text), STYLES[style])




def grouped_chart(title: str, labels: list[str], series: Sequence[tuple[str, list[float]]],
                  percent: bool = True, height: float = 190) -> Drawing:
    """Side-by-side bars, one colour a series (observed against exact, winners against
    losers), a legend above the plot's right corner."""
    d = Drawing(WIDTH, height)
    d.add(String(WIDTH / 2, height - 12, title, fontName="Helvetica-Bold", fontSize=11,
                 textAnchor="middle"))
    rotate = max((len(s) for s in labels), default=0) > 6
    left, bottom = 40, 62 if rotate else 24
    plot_w, plot_h = WIDTH - left - 34, height - bottom - 40
    top_value = max([v for _, values in series for v in values] + [1e-9])
    scale_max = _scale(top_value, percent)
    _axes(d, left, bottom, plot_w, plot_h, scale_max, percent)
    slot = plot_w / max(1, len(labels))
    w = min(slot * 0.8, 80.0) / max(1, len(series))
    for i, label in enumerate(labels):
        for k, (_, values) in enumerate(series):
            x = left + slot * i + (slot - w * len(series)) / 2 + w * k
            d.add(Rect(x, bottom, w, plot_h * values[i] / scale_max,
                       fillColor=SERIES[(k + 1) % len(SERIES)], strokeColor=None))
        _label(d, label, left + slot * i + slot / 2, bottom, rotate)
    legend = Legend()
    legend.x, legend.y = left + plot_w - 150, height - 22
    legend.fontSize = 7
    legend.alignment = "right"
    legend.columnMaximum = 1
    legend.colorNamePairs = [(SERIES[(k + 1) % len(SERIES)], name)
                             for k, (name, _) in enumerate(series)]
    d.add(legend)
    return d


def _axes(d: Drawing, left: float, bottom: float, plot_w: float, plot_h: float,
          scale_max: float, percent: bool) -> None:
    d.add(Line(left, bottom, left, bottom + plot_h, strokeColor=colors.black))
    d.add(Line(left, bottom, left + plot_w, bottom, strokeColor=colors.black))
    for i in range(5):
        v = scale_max * i / 4
        y = bottom + plot_h * i / 4
        d.add(Line(left - 3, y, left + plot_w, y, strokeColor=colors.lightgrey, strokeWidth=0.3))
        d.add(String(left - 5, y - 3, f"{v:.0%}" if percent else f"{v:g}", fontSize=7,
                     textAnchor="end"))


def _label(d: Drawing, label: str, cx: float, bottom: float, rotate: bool) -> None:
    if not rotate:
        d.add(String(cx, bottom - 9, label, fontSize=6.5, textAnchor="middle"))
        return
    group = Group(String(0, 0, label, fontSize=6.5, textAnchor="end"))
    group.transform = (0.7071, 0.7071, -0.7071, 0.7071, cx + 2, bottom - 6)
    d.add(group)


def bins(counts: Mapping[int, int], most: int = 25) -> list[tuple[str, int]]:
    """Counts of whole numbers as histogram bins: one a value from the least to the most
    (empty ones included), or ranges `a-b` of equal width when there would be more than
    `most` bins."""
    if not counts:
        return []
    low, high = min(counts), max(counts)
    width = max(1, math.ceil((high - low + 1) / most))
    out = []
    for start in range(low, high + 1, width):
        end = min(high, start + width - 1)
        total = sum(n for v, n in counts.items() if start <= v <= end)
        out.append((str(start) if end == start else f"{start}-{end}", total))
    return out


def histogram(title: str, counts: Mapping[int, int], height: float = 170) -> Drawing:
    """The share of games at each value (or range of values)."""
    shown = bins(counts)
    total = sum(n for _, n in shown) or 1
    return bar_chart(title, [label for label, _ in shown], [n / total for _, n in shown],
                     height=height)


# ── pages ─────────────────────────────────────────────────────────────────────
def seat_wins(rows: list[dict[str, Any]], title: str = "Win rate by seat (seat 1 plays first)",
              height: float = 190) -> list[Any]:
    """Win rate of each seat with its Wilson 95% interval and the fair share: rows of
    `label`, `games`, `wins`, `rate`, `low`, `high`; a chart and its table."""
    fair = 1 / len(rows) if rows else 0.0
    chart = bar_chart(title, [r["label"] for r in rows], [r["rate"] for r in rows],
                      [r["low"] for r in rows], [r["high"] for r in rows],
                      reference=fair, reference_label=f"fair {fair:.0%}", height=height)
    grid = table(["seat", "games", "wins", "win rate", "95% CI"],
                 [[r["label"], str(r["games"]), str(r["wins"]),
                   pct(r["rate"]) if r["games"] else "-", ci(r) if r["games"] else "-"]
                  for r in rows], [120, 60, 60, 70, 90])
    return [KeepTogether([chart, grid]), Spacer(1, 8)]


def policies(rows: list[dict[str, Any]], players: int, seating: str) -> list[Any]:
    """Wins by policy over every seat it played, Wilson 95% and the fair share, and each
    policy's wins at each seat: rows of `referee simulate GAME --json` `by_policy`."""
    fair = 1 / players if players else 0.0
    chart = bar_chart("Win rate by policy, over every seat it played", [r["policy"] for r in rows],
                      [r["rate"] for r in rows], [r["low"] for r in rows],
                      [r["high"] for r in rows], reference=fair,
                      reference_label=f"fair {fair:.0%}", height=170)
    seats = max((len(r["by_seat"]) for r in rows), default=0)
    grid = table(["policy", "seats", "wins", "win rate", "95% CI",
                  *(f"seat {i + 1}" for i in range(seats))],
                 [[r["policy"], str(r["seats_played"]), str(r["wins"]), pct(r["rate"]), ci(r),
                   *(f"{c['wins']}/{c['games']}" if c["games"] else "-" for c in r["by_seat"])]
                  for r in rows])
    note = ("The seats rotate each game: each policy plays every seat as often, so the "
            "seats' advantage is shared evenly." if seating == "rotate" else
            "Each policy keeps its seat: its win rate carries that seat's advantage "
            "(--seating rotate compares the policies fairly).")
    return [KeepTogether([para("Wins by policy", "Heading2"), chart, grid, para(note, "Italic")]),
            Spacer(1, 8)]


def length(turns: Mapping[int, int], rounds: Mapping[int, int]) -> list[Any]:
    """Game length: the share of games lasting each number of turns, and of rounds."""
    flow: list[Any] = [KeepTogether([para("Game length", "Heading2"),
                                     histogram("Game length in turns (share of games)", turns)]),
                       Spacer(1, 6)]
    if rounds:
        flow += [histogram("Game length in rounds (share of games)", rounds), Spacer(1, 6)]
    return flow


def spread(counts: Mapping[int, int], winner_mean: float) -> list[Any]:
    """Score spread: the best score less the lowest, a game."""
    return [KeepTogether([
        histogram("Score spread: the best score less the lowest (share of games)", counts),
        para(f"The winner scores {winner_mean:.1f} on average.", "Italic")]), Spacer(1, 8)]


def ends(rows: Mapping[str, Mapping[str, Any]]) -> list[Any]:
    """How often each end condition ended the game."""
    names = list(rows)
    chart = bar_chart("End conditions: share of games each one ended", names,
                      [rows[n]["rate"] for n in names], height=200)
    grid = table(["end condition", "games", "share"],
                 [[n, str(rows[n]["count"]), pct(rows[n]["rate"])] for n in names],
                 [220, 60, 60])
    return [KeepTogether([chart, grid]), Spacer(1, 8)]


def roll(name: str, fit: Mapping[str, Any], lead: Sequence[Any] = ()) -> list[Any]:
    """One named roll: the share of each outcome seen against its exact probability, and
    the test of the counts against the odds. `fit` is a roll of `referee report --json`
    (dice, outcome, rolls, test, p_value, outcomes of value, observed, expected,
    probability "a/b" or None); `lead`: flowables kept on the same page (a heading)."""
    n = fit["rolls"]
    outcomes = fit["outcomes"]
    exact = fit["dice"] is not None
    head = (f"Roll {name}: {fit['dice']}, outcome {fit['outcome']}; {n} rolled, "
            f"{fit['test']} p = {p_text(fit['p_value'])}" if exact else
            f"Roll {name}: {n} rolled; no exact odds (its outcome reads more than the dice)")
    labels = [str(o["value"]) for o in outcomes]
    seen = [o["observed"] / n if n else 0.0 for o in outcomes]
    series: list[tuple[str, list[float]]] = [("observed", seen)]
    each = fit.get("kind") == "outcome"  # each roll's own chance: their mean is shown
    if exact:
        series.append(("expected" if each else "exact odds",
                       [float(Fraction(o["probability"] or 0)) for o in outcomes]))
    chart = grouped_chart(f"Roll {name}: share of each outcome, observed against "
                          f"{'expected' if each else 'exact'}", labels, series, height=170)
    grid = table(["outcome", "seen", "share", "expected", "mean P" if each else "P (exact)"],
                 [[str(o["value"]), str(o["observed"]), pct(s),
                   "-" if o["expected"] is None else f"{o['expected']:.1f}",
                   o["probability"] or "-"] for o, s in zip(outcomes, seen, strict=True)],
                 [70, 50, 60, 60, 80])
    return [KeepTogether([*lead, para(head, "Heading3"), chart, grid]), Spacer(1, 8)]


def cards(rows: list[dict[str, Any]], lead: Sequence[Any] = ()) -> list[Any]:
    """The cards most often in a winner's play area against a loser's (per player);
    `lead`: flowables kept on the same page (a heading)."""
    if not rows:
        return [*lead, para("Cards in play: none was in a play area at the end.")]
    labels = [r["card"] for r in rows]
    chart = grouped_chart("Cards in play at the end: per winner against per loser", labels,
                          [("per winner", [r["winner"] for r in rows]),
                           ("per loser", [r["loser"] for r in rows])], percent=False)
    grid = table(["card", "per winner", "per loser", "difference"],
                 [[r["card"], f"{r['winner']:.2f}", f"{r['loser']:.2f}",
                   f"{r['difference']:+.2f}"] for r in rows], [160, 70, 70, 70])
    return [KeepTogether([*lead, chart, grid]), Spacer(1, 8)]


def variants(labels: list[str], summaries: list[dict[str, Any]]) -> list[Any]:
    """A sweep on one page: a row per variant (V1, V2, ... in the chart) with the first
    seat's win rate and interval, game length, score spread and the most common end."""
    keys = [f"V{i + 1}" for i in range(len(labels))]
    firsts = [s["first_player"] for s in summaries]
    fair = firsts[0]["fair"] if firsts else 0.0
    chart = bar_chart("First seat's win rate by variant (Wilson 95%)", keys,
                      [f["rate"] for f in firsts], [f["low"] for f in firsts],
                      [f["high"] for f in firsts], reference=fair,
                      reference_label=f"fair {fair:.0%}", height=180)
    small = STYLES["BodyText"].clone("variant", fontSize=7, leading=8)
    rows = []
    for key, label, s, f in zip(keys, labels, summaries, firsts, strict=True):
        end, data = max(s["ends"].items(), key=lambda kv: kv[1]["count"])
        rows.append([key, Paragraph(esc(label), small), pct(f["rate"]), ci(f),
                     f"{s['turns']['mean']:.1f}", f"{s['rounds']['mean']:.1f}",
                     f"{s['score_spread']['mean']:.1f}",
                     Paragraph(esc(f"{end} {pct(data['rate'])}"), small)])
    grid = table(["", "variant", "1st seat", "95% CI", "turns", "rounds", "spread",
                  "most common end"], rows, [22, 150, 42, 62, 34, 38, 38, 124], text_cols=2)
    return [para("Variants compared: one row each", "Heading2"), chart, Spacer(1, 6), grid]
