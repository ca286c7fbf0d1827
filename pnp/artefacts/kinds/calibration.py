"""The duplex calibration sheet: one artefact per game, always. Its front has crosses,
a "this edge up" arrow and, at the middle of each paper edge, a margin ladder (lines 1 to
12 mm from the edge: the first that printed gives the printer's margin there); its back
has millimetre scales where the crosses land with the current back offset, scale and
turn, and the arrow's partner. So a home printer's margin, duplex offset, scale, turn
and flip edge can be read off one printed sheet (--printer-margin, --back-offset,
--back-scale and --back-rotate, which `pnp calibrate` works out from the five
readings: `correction`, --duplex)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pnp.artefacts.artefact import Artefact, Options, Written
from pnp.artefacts.kinds.base import Kind

if TYPE_CHECKING:
    from pnp.layout import geometry as g

NAME = "calibration"
CAL_RANGE_MM = 10  # the back's scales read -10 .. +10 mm
LADDER_MM = 12     # the margin ladders' lines: 1 .. 12 mm from the paper edge
CROSS_INSET_MM = 40  # the corner crosses: this far from both edges
CROSSES = ("centre", "top-left", "top-right", "bottom-left", "bottom-right")


def _artefacts(game_id: str, game: Any) -> list[Artefact]:
    return [Artefact(game_id, NAME, NAME, f"{game.title}: duplex calibration")]


def calibration_points(page_w: float, page_h: float) -> list[tuple[float, float]]:
    """The crosses on the front of the calibration sheet: centre and four corners."""
    from pnp.layout.geometry import mm

    inset = mm(CROSS_INSET_MM)
    return [(page_w / 2, page_h / 2), (inset, page_h - inset), (page_w - inset, page_h - inset),
            (inset, inset), (page_w - inset, inset)]     # in the order of CROSSES


def ladder_lines(page_w: float, page_h: float) -> list[tuple[str, int, float, float, float,
                                                             float]]:
    """The margin ladders' lines: (edge, mm from that edge, x0, y0, x1, y1) in points, a
    3 mm line parallel to each edge at its middle, every mm from 1 to LADDER_MM."""
    from pnp.layout.geometry import mm

    half = mm(1.5)
    cx, cy = page_w / 2, page_h / 2
    out = []
    for d in range(1, LADDER_MM + 1):
        at = mm(d)
        out += [("left", d, at, cy - half, at, cy + half),
                ("right", d, page_w - at, cy - half, page_w - at, cy + half),
                ("bottom", d, cx - half, at, cx + half, at),
                ("top", d, cx - half, page_h - at, cx + half, page_h - at)]
    return out


def correction(readings: dict[str, tuple[float, float]], page_mm: tuple[float, float],
               offset: tuple[float, float] = (0.0, 0.0),
               scale_pct: tuple[float, float] = (100.0, 100.0), rotate_deg: float = 0.0
               ) -> tuple[tuple[float, float], tuple[float, float], float]:
    """The back offset (mm), scale (percent) and turn (degrees) that cancel what the
    calibration sheet printed with `offset`, `scale_pct` and `rotate_deg` shows: each
    of CROSSES read as (X, Y) mm on its scale (as seen from the back). The centre gives
    the offset; the spread of the corners the scale (a back printed k times too large
    reads +(k-1)D/2 on the left crosses and -(k-1)D/2 on the right, D the distance
    between them); their turn the angle (averaged over both axes). Without the four
    corners only the offset is corrected."""
    import math

    cx, cy = readings["centre"]
    new_offset = (round(offset[0] + cx, 2), round(offset[1] + cy, 2))
    corners = [readings.get(k) for k in CROSSES[1:]]
    if any(c is None for c in corners):
        return new_offset, scale_pct, rotate_deg
    tl, tr, bl, br = (c for c in corners if c is not None)
    dx, dy = page_mm[0] - 2 * CROSS_INSET_MM, page_mm[1] - 2 * CROSS_INSET_MM
    left_x, right_x = (tl[0] + bl[0]) / 2, (tr[0] + br[0]) / 2
    top_y, bottom_y = (tl[1] + tr[1]) / 2, (bl[1] + br[1]) / 2
    kx = 1 + (left_x - right_x) / dx
    ky = 1 + (bottom_y - top_y) / dy
    left_y, right_y = (tl[1] + bl[1]) / 2, (tr[1] + br[1]) / 2
    top_x, bottom_x = (tl[0] + tr[0]) / 2, (bl[0] + br[0]) / 2
    turn = ((left_y - right_y) / dx + (top_x - bottom_x) / dy) / 2
    return (new_offset, (round(scale_pct[0] / kx, 2), round(scale_pct[1] / ky, 2)),
            round(rotate_deg - math.degrees(turn), 3))


def calibration_arrow(page_w: float, page_h: float) -> g.Rect:
    """The box of the front's "this edge up" arrow: off the centre lines both ways, so
    that its partner on the back lands behind it only when the sheet was turned over
    the edge the build assumes."""
    from pnp.layout import geometry as g

    return g.Rect(g.mm(70), page_h - g.mm(115), g.mm(10), g.mm(55))


def _arrow(c, box: g.Rect, up: bool = True) -> None:
    """A filled arrow filling `box`, pointing to the box's top (or bottom)."""
    from pnp.layout import geometry as g

    c.saveState()
    if not up:
        c.translate(box.x + box.w, box.y + box.h)
        c.rotate(180)
        box = g.Rect(0, 0, box.w, box.h)
    head = box.w * 1.2
    shaft = box.w * 0.35
    cx = box.x + box.w / 2
    p = c.beginPath()
    p.moveTo(cx - shaft / 2, box.y)
    p.lineTo(cx - shaft / 2, box.top - head)
    p.lineTo(box.x, box.top - head)
    p.lineTo(cx, box.top)
    p.lineTo(box.right, box.top - head)
    p.lineTo(cx + shaft / 2, box.top - head)
    p.lineTo(cx + shaft / 2, box.y)
    p.close()
    c.drawPath(p, stroke=0, fill=1)
    c.restoreState()


def _draw_calibration(db, art, opts: Options, renderer, fonts, target, result: Written,
                      step) -> None:
    from pnp.artefacts.sheet import PAGE_MARGIN, Pages, draw_scale
    from pnp.artefacts.sheet import text as _text
    from pnp.draw.pdf import open_canvas
    from pnp.layout import geometry as g

    pw, ph = g.paper_size(opts.paper)
    c = open_canvas(target, font=fonts["regular"], page_size=(pw, ph), title=art.title,
                    subject=f"measure --back-offset for {opts.duplex} duplex")
    pages = Pages(c, result)
    arm = g.mm(6)
    length = g.scale_length(opts.paper)[0]
    plate_w = length + g.mm(2)
    plate = g.ScalePlate(g.Rect((pw - plate_w) / 2, g.mm(18), plate_w,
                                g.scale_plate_height(opts.min_text_pt)), False)
    _text(c, fonts, opts, "bold", 12, PAGE_MARGIN, ph - PAGE_MARGIN - 10,
          "Duplex calibration \u2014 front")
    lines = [
        f"Print both pages on one sheet, duplex, {opts.duplex} flip, at 100 % (no fit-to-page).",
        "Hold the sheet against a light. On the back, read where each cross of this side falls",
        "on the scales, X and Y (mm, as seen from the back); pnp calibrate --centre X,Y --top-left",
        "X,Y ... --bottom-right X,Y prints the back offset, scale and turn to set.",
    ]
    margin = [
        "Printer margin: at the middle of each paper edge, a line every mm, 1 to 12 mm from",
        "the edge. The number of the first line that printed is your printer's margin on that",
        "edge: set print.printer_margin_mm (or --printer-margin) to the largest of the four.",
        "",
        "Read the centre cross only? Add its reading to the current offset "
        f"({opts.back_offset_mm[0]:g},{opts.back_offset_mm[1]:g}) and build",
        "with --back-offset X,Y (or set print.back_offset_mm).",
    ]
    for i, line in enumerate(margin):
        _text(c, fonts, opts, "regular", 9, PAGE_MARGIN, g.mm(75) - 11 * i, line)
    for i, line in enumerate(lines):
        _text(c, fonts, opts, "regular", 9, PAGE_MARGIN, ph - PAGE_MARGIN - 26 - 11 * i, line)
    _ladders(c, fonts, opts, pw, ph)
    c.setLineWidth(0.5)
    for x, y in calibration_points(pw, ph):
        c.line(x - arm, y, x + arm, y)
        c.line(x, y - arm, x, y + arm)
        c.circle(x, y, g.mm(1), stroke=1, fill=0)
    arrow = calibration_arrow(pw, ph)
    _arrow(c, arrow)
    _text(c, fonts, opts, "bold", 10, arrow.right + g.mm(3), arrow.top - g.mm(4), "THIS EDGE UP")
    for i, line in enumerate(("front: the top of every card. On the back, the grey arrow",
                              "must lie behind this one, pointing the same way; if it",
                              "does not, the printer turned the sheet over the other",
                              "edge: build with the other --duplex mode.")):
        _text(c, fonts, opts, "regular", 8, arrow.right + g.mm(3), arrow.top - g.mm(8) - 10 * i,
              line)
    draw_scale(c, fonts, plate, opts.paper, opts.min_text_pt)
    _text(c, fonts, opts, "regular", 8, pw / 2, plate.rect.top + g.mm(2),
          f"This bar must measure {g.scale_length(opts.paper)[1].split(' at')[0]}"
          " exactly; if not, the sheet was not printed at 100 %.", anchor="centre")
    pages.show("front")

    _text(c, fonts, opts, "bold", 12, PAGE_MARGIN, ph - PAGE_MARGIN - 10,
          "Duplex calibration \u2014 back")
    _text(c, fonts, opts, "regular", 9, PAGE_MARGIN, ph - PAGE_MARGIN - 26,
          "Read X and Y where the front's crosses show through; 0,0 = aligned.")
    _text(c, fonts, opts, "regular", 9, PAGE_MARGIN, ph - PAGE_MARGIN - 37,
          "This arrow must sit behind the front's arrow and point the same way "
          "(to the front's top edge).")
    ox, oy = opts.back_offset
    turn = g.back_matrix(pw, ph, opts.back_scale_pct, opts.back_rotate_deg)
    c.saveState()
    if turn is not None:     # the scales land where the backs of cards land
        c.transform(*turn)
    for x, y in calibration_points(pw, ph):
        # Where the front's cross lands on this side, with the current offset applied.
        spot = g.back_slot(g.Slot(0, 0, 0, g.Rect(x, y, 0, 0), g.Edges()), pw, ph,
                           opts.duplex, (ox, oy)).trim
        _scale(c, fonts, opts, spot.x, spot.y)
    partner = g.back_slot(g.Slot(0, 0, 0, arrow, g.Edges()), pw, ph, opts.duplex, (ox, oy))
    c.setFillColorRGB(0.45, 0.45, 0.45)
    _arrow(c, partner.trim, up=partner.rotate != 180)
    c.setFillColorRGB(0, 0, 0)
    label_x = partner.trim.x - g.mm(3)
    _text(c, fonts, opts, "bold", 8, label_x, partner.trim.y + partner.trim.h / 2,
          "behind the front's arrow", anchor="right")
    c.restoreState()
    draw_scale(c, fonts, g.ScalePlate(plate.rect.shifted(0, 0), False), opts.paper,
               opts.min_text_pt)
    pages.show("back")
    c.save()
    result.pages = 2
    result.cards = 0
    step(1)


def _ladders(c, fonts, opts: Options, pw: float, ph: float) -> None:
    """The margin ladders: a hairline every mm from the paper edge, numbered (odd numbers
    on one side, even on the other, so that neighbours never touch)."""
    from pnp.artefacts.sheet import text as _text
    from pnp.layout import geometry as g

    size = max(6.0, opts.min_text_pt)
    c.setLineWidth(0.3)
    for edge, d, x0, y0, x1, y1 in ladder_lines(pw, ph):
        c.line(x0, y0, x1, y1)
        gap = g.mm(0.8)
        shift = size * 0.36          # half a digit's height: the number centred on its line
        odd = d % 2 == 1
        c.saveState()
        if edge in ("left", "right"):       # numbers turned to read along the edge
            c.translate(x0, y1 + gap if odd else y0 - gap)
            c.rotate(90)
            _text(c, fonts, opts, "regular", size, 0, -shift, str(d),
                  "left" if odd else "right")
        else:
            _text(c, fonts, opts, "regular", size, x1 + gap if odd else x0 - gap, y0 - shift,
                  str(d), "left" if odd else "right")
        c.restoreState()


def _scale(c, fonts, opts: Options, x: float, y: float) -> None:
    """Millimetre scales through (x, y): ticks every mm, longer and numbered every 5."""
    from pnp.artefacts.sheet import text as _text
    from pnp.layout import geometry as g

    span = g.mm(CAL_RANGE_MM)
    c.setLineWidth(0.3)
    c.line(x - span, y, x + span, y)
    c.line(x, y - span, x, y + span)
    size = max(6.0, opts.min_text_pt)        # numbers every 5 mm: room for 6 pt
    for i in range(-CAL_RANGE_MM, CAL_RANGE_MM + 1):
        t = g.mm(i)
        tick = g.mm(1.6 if i % 5 == 0 else 0.8)
        c.line(x + t, y - tick, x + t, y + tick)
        c.line(x - tick, y + t, x + tick, y + t)
        if i % 5 == 0 and i:
            # X numbers above their axis, Y numbers left of theirs: at 6 pt, numbers
            # below and right of the axes collide in the (+X, -Y) quarter
            _text(c, fonts, opts, "regular", size, x + t, y + tick + 1, f"{i:+d}", "centre")
            _text(c, fonts, opts, "regular", size, x - tick - 1, y + t - size * 0.35,
                  f"{i:+d}", "right")


KIND = Kind(NAME, order=70, artefacts=_artefacts, draw=_draw_calibration, reserves=(NAME,))
