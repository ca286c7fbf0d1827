"""text: text fitted to its box: set at `size`, shrunk in 0.25 pt steps down to
`min_size` when it does not fit, then cut with an ellipsis and reported. It stays inside
the safe zone (a box reaching outside is moved in and reported), never prints below
`print.min_text_pt`, and takes card text markup (`**bold**`, `*italic*`, `{icon:NAME}`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pnp.draw import glyphs, icons, markup, textbox
from pnp.draw.elements.base import (
    EPS,
    MM,
    REQUIRED,
    SAFE_MM,
    Element,
    ElementError,
    Key,
    Op,
    color,
    number,
    numbers,
)


@dataclass(frozen=True, slots=True, repr=False)
class Text(Op):
    """The drawing operation of a `text` element: fitted runs of text at a place and size."""
    pieces: list            # textbox.Piece runs, relative to (x, top)
    x: float                # points: the box's left edge and top
    top: float
    size: float
    color: Any

    kind = "text"

    def paint(self, c) -> None:
        bx, btop, size = self.x, self.top, self.size
        text = c.beginText()
        text.setFillColor(self.color)
        current = None
        for p in self.pieces:
            if p.icon:
                continue
            if p.font != current:
                text.setFont(p.font, size)
                current = p.font
            text.setTextOrigin(bx + p.x, btop - p.baseline)
            text.textOut(p.text)
        c.drawText(text)
        for p in self.pieces:
            if p.icon:
                icon_size = size * textbox.ICON_EM
                try:
                    icons.draw_icon(c, p.icon, bx + p.x + icon_size / 2,
                                    btop - p.baseline + size * 0.32, icon_size * 0.98)
                except icons.IconFileError as exc:
                    raise ElementError(str(exc)) from None

    def as_tuple(self) -> tuple:
        return ("text", self.pieces, self.x, self.top, self.size, self.color)


def text_ops(r, text: Any, box_mm, role, size, min_size, align, valign, leading,
             colour, use_markup, warn, what="text",
             icons_of: dict[str, str] | None = None) -> list[Op]:
    """Fit `text` into `box_mm` (x, y, w, h in mm from the trim's top-left) with the
    renderer's fonts; warn about overflow and characters no font has. `icons_of`: the
    game's own icons `{icon:NAME}` may name (CardRenderer.own_icons)."""
    bx, by, bw, bh = box_mm
    if text is None or text == "":
        return []
    text = str(text)
    from carddb.limits import TEMPLATE_TEXT

    if len(text) > TEMPLATE_TEXT:      # fitting it would take minutes
        raise ElementError(f"{what} of {len(text):,} characters, more than "
                           f"{TEMPLATE_TEXT:,} in one element (limit)")
    try:
        paragraphs: list[markup.Paragraph] = markup.parse(text, icons_of) if use_markup else [
            [[markup.Span(line)] for line in text.split("\n")]]
    except markup.MarkupError as exc:
        raise ElementError(f"{what}: {exc}") from None
    floor = r.min_text_pt
    size, min_size = max(size, floor), max(min(min_size, size), floor)
    large = getattr(r, "large_print", None)
    if large:                           # --large-print: as large as the box allows
        size = max(size, large)
    fitted = textbox.fit(paragraphs, r.fonts, role, size, min_size, bw * MM, bh * MM,
                         align, valign, leading)
    if large and not fitted.overflow and fitted.size < large - 1e-6:
        warn(f"large print: set at {fitted.size:.3g} pt, its {bw:.4g} x {bh:.4g} mm box "
             f"cannot hold it at {large:g} pt")
    if fitted.overflow:
        at = f"{min_size:.3g} pt" + (" (print.min_text_pt)" if min_size <= floor else "")
        warn(f"text does not fit its {bw:.4g} x {bh:.4g} mm box even at {at}; "
             f"cut after {fitted.cut_after!r}")
    if fitted.missing:
        warn(f"no font has the character{'s' if len(fitted.missing) > 1 else ''} "
             f"{glyphs.describe(fitted.missing)}: printed as an empty box "
             f"(print.fonts, or the DejaVu Sans fallback)")
    return [Text(fitted.pieces, bx * MM, -by * MM, fitted.size, colour)]


def inside_safe_zone(box, t, warn):
    """The box moved inside the target's safe zone (`t.safe_mm` inside the trim: 1/8 in
    on a card, less on a die face), with a warning when it had to move."""
    x, y, w, h = box
    safe = t.safe_mm
    left, top = max(x, safe), max(y, safe)
    right, bottom = min(x + w, t.W - safe), min(y + h, t.H - safe)
    if (left, top, right, bottom) != (x, y, x + w, y + h):
        if left - x > EPS or top - y > EPS or x + w - right > EPS or y + h - bottom > EPS:
            warn(f"text box reaches outside the safe zone ({safe_zone(t)}); moved inside")
    return left, top, max(right - left, 0.1), max(bottom - top, 0.1)


def safe_zone(t) -> str:
    """How a warning names the target's safe zone."""
    if abs(t.safe_mm - SAFE_MM) < EPS:
        return "1/8 in inside the trim"
    return f"{t.safe_mm:g} mm inside the edge"


def compile(el: dict[str, Any], t, r, warn) -> list[Op]:
    box = t.box(numbers(el["box"], 4, "box"))
    if t.safe:
        box = inside_safe_zone(box, t, warn)
    size = number(el["size"], "size") * t.scale
    min_size = number(el["min_size"], "min_size") * t.scale if el["min_size"] is not None \
        else round(size * 0.7 * 4) / 4
    return text_ops(r, el["text"], box, r.font_role(el["font"]), size, min_size,
                    el["align"], el["valign"], number(el["leading"], "leading"),
                    color(el["color"], "color"), bool(el["markup"]), warn,
                    icons_of=r.own_icons(t) if el["markup"] else None)


ELEMENT = Element(
    "text", __doc__,
    keys=(
        Key("box", "[x, y, w, h] mm", REQUIRED, "the box the text is fitted into"),
        Key("text", "text", REQUIRED, "what to print (empty: nothing)"),
        Key("font", "font role", "regular", "regular, bold, italic or bolditalic "
                                            "(print.fonts)"),
        Key("size", "pt", 9.0, "the size it is set at"),
        Key("min_size", "pt", None, "the smallest it may shrink to (default: 70 % of size; "
                                    "never below print.min_text_pt)"),
        Key("leading", "times size", 1.2, "line spacing"),
        Key("align", "choice", "left", "horizontal alignment",
            choices=("left", "center", "right")),
        Key("valign", "choice", "top", "vertical alignment",
            choices=("top", "middle", "bottom")),
        Key("color", "colour", "#000000", "text colour"),
        Key("markup", "bool", True, "read card text markup (false: print as written)"),
    ),
    compile=compile,
    example=("- text: {id: rules, box: [6, 54, {{ W - 12 }}, 24], text: {{ card.text }},\n"
             "         align: center, size: 9, min_size: 7}"),
)
