"""What the sheets of every artefact kind share (pnp.artefacts.kinds): the page
counter behind the layout report (`Pages`), sheet text never below print.min_text_pt
(`text`), page headings with their scale bar (`heading`, `heading_scale`), the 100 %
scale bar (`draw_scale`), clipping to a slot (`clipped`), grey cut rectangles
(`cut_rect`) and the cut guides' PDF code (`guide_code`). Imported by the kinds'
drawing functions only, never at their import (the registry is read on every load)."""

from __future__ import annotations

from typing import Any

from pnp.artefacts.artefact import Options, Written
from pnp.artefacts.guides import GuideStyle
from pnp.artefacts.guides import code as _code
from pnp.draw.glyphs import describe, draw_string
from pnp.draw.layout_warning import LayoutWarning
from pnp.draw.pdf import end_form
from pnp.layout import geometry as g

PAGE_MARGIN = g.mm(12.7)
HEADING_H = g.mm(12)
HAIRLINE = 0.25  # points: cut and crop lines


def warning_list(value: Any) -> list[Any]:
    """The warnings a renderer method returned, as a list (None: none)."""
    return list(value) if value else []


def _mm3(points: float) -> float:
    return round(g.to_mm(points), 3)


class Pages:
    """Counts pages as they are shown and records each one for the layout report:
    its size, side and the trim box of every card on it, in mm from the top-left."""

    def __init__(self, canvas, result: Written | None = None):
        self.canvas = canvas
        self.count = 0
        self.layout = result.layout if result is not None else []
        # a slot's trim box recurs on every sheet: one list for all (read, never changed)
        self._boxes: dict[tuple[float, ...], list[float]] = {}

    def _box(self, t: g.Rect, h: float) -> list[float]:
        key = (t.x, t.top, t.w, t.h, h)
        box = self._boxes.get(key)
        if box is None:
            box = self._boxes[key] = [_mm3(t.x), _mm3(h - t.top), _mm3(t.w), _mm3(t.h)]
        return box

    def show(self, side: str = "other", cards=()) -> None:
        w, h = self.canvas._pagesize
        self.count += 1
        self.layout.append({
            "page": self.count, "size_mm": [_mm3(w), _mm3(h)], "side": side,
            "cards": [{"name": name, "trim_mm": self._box(t, h)} for name, t in cards]})
        self.canvas.showPage()

    def shown_again(self, entry: dict, show) -> None:
        """A page kept from an earlier build (pnp.artefacts.kept_sheets): its layout
        report `entry` numbered as this page, and `show()` to add it to the PDF."""
        self.count += 1
        shown = ShownAgain(entry)
        shown["page"] = self.count
        shown.kept = entry
        self.layout.append(shown)
        show()


class ShownAgain(dict):
    """The layout report entry of a page shown again (`Pages.shown_again`): the kept
    entry (`kept`, the same object build after build in a resident process) numbered as
    this page; its JSON is written from the kept entry's (pnp.artefacts.build.layout_json)."""

    __slots__ = ("kept",)
    kept: dict


def clipped(c, area: g.Rect):
    """Start a clip to `area` (caller restores state). Written as a literal operator:
    this runs twice per card and ReportLab's path objects cost more than the card's
    own plumbing."""
    c.saveState()
    c.addLiteral(f"{area.x:.4f} {area.y:.4f} {area.w:.4f} {area.h:.4f} re W n")


def guide_code(guides: list[g.Guide], style: GuideStyle, dash: bool = False) -> str:
    """PDF operators for cut guides in `style` (print.cut_guides; pnp.artefacts.guides).
    A guide in the bleed or a gutter: a black core on a white halo by default, so it
    shows on any colour."""
    return _code(guides, style, dash)


CUT_ORDER_NOTES = {"rows": "cut the rows apart first",
                   "columns": "cut the columns apart first"}


def scale_label(paper: str, order: str | None = None) -> str:
    """The scale bar's label, with the sheet's cutting order when it has one
    (pnp.layout.geometry.cut_order)."""
    label = g.scale_length(paper)[1]
    return f"{label} \u00b7 {CUT_ORDER_NOTES[order]}" if order else label


def scale_plate_length(fonts, paper: str, label_pt: float = 6,
                       order: str | None = None) -> float:
    """The length the plate's bar needs room for: the bar, or its label if longer."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    text = stringWidth(scale_label(paper, order), fonts["regular"], max(6.0, label_pt))
    return max(g.scale_length(paper)[0], text)


def scale_form(c, fonts, paper: str, label_pt: float = 6,
               order: str | None = None) -> tuple[str, float, float]:
    """The scale bar (2 in on Letter, 50 mm on A4) with its label on a white plate, so
    it shows on any bleed colour: drawn once per document as a form, (name, w, h). A
    label above 6 pt (a higher print.min_text_pt) makes the plate that much taller; the
    sheet's cutting order (`order`) is printed in the label, the plate as long as it."""
    length, _ = g.scale_length(paper)
    label = scale_label(paper, order)
    w = scale_plate_length(fonts, paper, label_pt, order) + g.mm(2)
    h = g.scale_plate_height(label_pt)
    name = f"scale-{paper}-{label_pt:g}" + (f"-{order}" if order else "")
    if not c.hasForm(name):      # drawn once per document (ReportLab knows its forms)
        c.beginForm(name, 0, 0, w, h)
        c.setFillColorRGB(1, 1, 1)
        c.rect(0, 0, w, h, stroke=0, fill=1)
        c.setFillColorRGB(0, 0, 0)
        x0 = (w - length) / 2
        bar_y = h - g.mm(1.6)
        c.rect(x0, bar_y, length, g.mm(0.6), stroke=0, fill=1)
        for x in (x0, x0 + length - g.mm(0.25)):  # end ticks: measure their outsides
            c.rect(x, bar_y - g.mm(0.6), g.mm(0.25), g.mm(1.8), stroke=0, fill=1)
        draw_string(c, w / 2, g.mm(0.9), label, fonts["regular"], label_pt, "centre")
        end_form(c)
    return name, w, h


def draw_scale(c, fonts, plate: g.ScalePlate | None, paper: str,
               label_pt: float = 6, order: str | None = None) -> None:
    """The 100 % check in `plate` (turned a quarter anticlockwise when it stands), with
    the sheet's cutting order in its label when it has one."""
    if plate is None:
        return
    name, _, _ = scale_form(c, fonts, paper, max(6.0, label_pt), order)
    r = plate.rect
    c.saveState()
    if plate.vertical:
        c.translate(r.x + r.w, r.y)
        c.rotate(90)
    else:
        c.translate(r.x, r.y)
    c.doForm(name)
    c.restoreState()


def text(c, fonts, opts: Options, role: str, size: float, x: float, y: float, string: str,
         anchor: str = "left", result: Written | None = None, element: str = "") -> None:
    """Sheet text (headings, captions, scales): never below print.min_text_pt, and
    characters the font lacks drawn with its fallback (pnp.draw.glyphs); with `result`,
    characters no font has are a warning on the artefact's `element`."""
    missing = draw_string(c, x, y, string, fonts[role], max(size, opts.min_text_pt), anchor)
    if missing and result is not None:
        art = result.artefact
        result.warnings.append(LayoutWarning(
            art.game, f"({art.name})", "page", element,
            f"no font has {describe(missing)}: printed as an empty box"))


def heading(c, fonts, opts: Options, page_w: float, page_h: float, title: str,
            note: str, result: Written) -> g.Rect:
    """Draw a page heading; returns the content area left below it."""
    c.setFillColorRGB(0, 0, 0)
    text(c, fonts, opts, "bold", 12, PAGE_MARGIN, page_h - PAGE_MARGIN - 10, title,
         result=result, element="heading")
    text(c, fonts, opts, "regular", 8, PAGE_MARGIN, page_h - PAGE_MARGIN - 21, note,
         result=result, element="heading")
    return g.Rect(PAGE_MARGIN, PAGE_MARGIN, page_w - 2 * PAGE_MARGIN,
                  page_h - 2 * PAGE_MARGIN - HEADING_H)


def heading_scale(c, fonts, page: tuple[float, float], paper: str,
                  label_pt: float = 6) -> None:
    """The scale bar at the right end of a page heading."""
    length = g.scale_length(paper)[0]
    plate_w = length + g.mm(2)
    plate_h = g.scale_plate_height(label_pt)
    rect = g.Rect(page[0] - PAGE_MARGIN - plate_w, page[1] - PAGE_MARGIN - plate_h,
                  plate_w, plate_h)
    draw_scale(c, fonts, g.ScalePlate(rect, False), paper, label_pt)


def cut_rect(c, r: g.Rect) -> None:
    """A grey hairline rectangle to cut along (dice labels)."""
    c.saveState()
    c.setLineWidth(HAIRLINE)
    c.setStrokeColorRGB(0.55, 0.55, 0.55)
    c.rect(r.x, r.y, r.w, r.h, stroke=1, fill=0)
    c.restoreState()
