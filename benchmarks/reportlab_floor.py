"""The floor of a cold build: a fresh process that does only what any ReportLab program
drawing the same cards must do -- import ReportLab, register the fonts, draw the frames
with plain canvas calls (no templates, no markup, no cache), save the PDF.

`benchmarks/vs_decksmith.py` runs it beside `pnp build` (issue 36 item 1: the 80-card
deck at most 2.0x this floor, in CPU); `benchmarks/build_speed.py` draws the same frames
in its own process (`draw_frames`) for its in-process ratio.

    python benchmarks/reportlab_floor.py CARDS OUT.pdf [--backs]

CARDS cards are drawn, 9 to a Letter page, each with the elements of an X-Statix Hero
front; with --backs each sheet of fronts is followed by its sheet of backs, the back
drawn once as a form and placed behind every card (as pnp prints a deck). The four faces
of Bitstream Vera (the fonts a project without `print.fonts` prints with, as the bundled
X-Statix game does) are registered as pnp registers them.
"""

from __future__ import annotations

import sys


def register_vera() -> dict[str, str]:
    """The four Vera faces shipped inside ReportLab, registered as TrueType fonts (embedded
    as subsets, as pnp embeds them); {role: font name}."""
    from pathlib import Path

    import reportlab
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    folder = Path(reportlab.__file__).parent / "fonts"
    files = {"regular": "Vera.ttf", "bold": "VeraBd.ttf", "italic": "VeraIt.ttf",
             "bolditalic": "VeraBI.ttf"}
    for role, file in files.items():
        pdfmetrics.registerFont(TTFont(f"Floor-{role}", str(folder / file)))
    return {role: f"Floor-{role}" for role in files}


MM = 72 / 25.4
W, H, B = 63.5 * MM, 88.9 * MM, 3.175 * MM      # a poker card and its bleed
TEXT = "Give +1 or -1 to one target roll on your turn"


def draw_frames(frames: int, out: str, fonts: dict[str, str], backs: bool = False) -> None:
    """Draw `frames` poker cards into the PDF `out`, 9 to a Letter page, with plain
    ReportLab calls and no templates: each the elements of an X-Statix Hero front (bleed,
    panel, name banner, type tag, tinted art window with a mask icon, wrapped rules text,
    footer). `backs`: each page of fronts followed by a page of their backs, the back
    drawn once (a form) and placed behind each card, as a print-and-play deck is."""
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen.canvas import Canvas

    c = Canvas(out, pagesize=letter, invariant=1, pageCompression=1,
               initialFontName=fonts["regular"])
    if backs:
        c.beginForm("back", -B, -B, W + B, H + B)
        _card(c, 0, 0, "Back", fonts, tinted=False)   # (a form keeps no alpha states)
        c.endForm()
    for start in range(0, frames, 9):
        count = min(9, frames - start)
        for slot in range(count):
            x, y = _slot(slot)
            _card(c, x, y, f"Hero frame {start + slot}", fonts)
        c.showPage()
        if backs:
            for slot in range(count):
                x, y = _slot(slot - 2 * (slot % 3) + 2)    # long-edge duplex: columns mirrored
                c.saveState()
                c.translate(x, y)
                c.doForm("back")
                c.restoreState()
            c.showPage()
    c.save()


def _slot(slot: int) -> tuple[float, float]:
    return 18 + (slot % 3) * (W + 2 * B), 18 + (slot // 3) * H


def _card(c, x: float, y: float, name: str, fonts: dict[str, str], tinted: bool = True) -> None:
    """One card's elements, its trim's lower-left corner at (x, y); `tinted`: the art
    window's tints drawn with alpha."""
    from reportlab.lib.colors import HexColor
    from reportlab.lib.utils import simpleSplit
    from reportlab.pdfbase.pdfmetrics import stringWidth

    mm, w, h, b = MM, W, H, B
    red, ink, paper = HexColor("#d7262e"), HexColor("#111111"), HexColor("#fdf6e3")
    c.saveState()
    p = c.beginPath()
    p.rect(x - b, y, w + 2 * b, h)
    c.clipPath(p, stroke=0, fill=0)
    c.setFillColor(ink)
    c.rect(x - b, y - b, w + 2 * b, h + 2 * b, stroke=0, fill=1)
    c.setFillColor(paper)
    c.roundRect(x + 2.4 * mm, y + 2.4 * mm, w - 4.8 * mm, h - 4.8 * mm, 2.2 * mm, stroke=0, fill=1)
    c.setFillColor(red)
    c.roundRect(x + 2.4 * mm, y + h - 15 * mm, w - 4.8 * mm, 12.6 * mm, 2.2 * mm, stroke=0, fill=1)
    c.rect(x + 2.4 * mm, y + h - 15 * mm, w - 4.8 * mm, 6 * mm, stroke=0, fill=1)
    c.setFillColorRGB(1, 1, 1)
    c.setFont(fonts["bold"], 13)
    c.drawString(x + 5 * mm, y + h - 10 * mm, name)
    if tinted:
        c.saveState()
        c.setFillColor(red)
        c.setFillAlpha(0.16)
        c.rect(x + 5 * mm, y + h - 53.5 * mm, w - 10 * mm, 36 * mm, stroke=0, fill=1)
        c.setFillAlpha(0.12)
        p = c.beginPath()
        p.moveTo(x + 5 * mm, y + h - 53.5 * mm)
        p.lineTo(x + w - 5 * mm, y + h - 30 * mm)
        p.lineTo(x + w - 5 * mm, y + h - 53.5 * mm)
        p.close()
        c.drawPath(p, stroke=0, fill=1)
        c.restoreState()
    cx, cy = x + w / 2, y + h - 35.5 * mm  # the mask icon: outline and two eye holes
    c.setFillColor(red)
    p = c.beginPath()
    p.moveTo(cx - 11 * mm, cy)
    p.curveTo(cx - 10 * mm, cy + 8 * mm, cx - 2 * mm, cy + 5 * mm, cx, cy + 3 * mm)
    p.curveTo(cx + 2 * mm, cy + 5 * mm, cx + 10 * mm, cy + 8 * mm, cx + 11 * mm, cy)
    p.curveTo(cx + 10 * mm, cy - 7 * mm, cx + 2 * mm, cy - 5 * mm, cx, cy - 2 * mm)
    p.curveTo(cx - 2 * mm, cy - 5 * mm, cx - 10 * mm, cy - 7 * mm, cx - 11 * mm, cy)
    p.ellipse(cx - 8 * mm, cy - 2 * mm, 5 * mm, 3.5 * mm)
    p.ellipse(cx + 3 * mm, cy - 2 * mm, 5 * mm, 3.5 * mm)
    c.drawPath(p, stroke=0, fill=1, fillMode=0)
    c.setStrokeColor(ink)
    c.setLineWidth(0.8)
    c.rect(x + 5 * mm, y + h - 53.5 * mm, w - 10 * mm, 36 * mm, stroke=1, fill=0)
    c.setFillColor(ink)
    c.roundRect(x + w - 27 * mm, y + h - 18.8 * mm, 22 * mm, 5.2 * mm, 0.8 * mm, stroke=0, fill=1)
    c.setFillColorRGB(1, 1, 1)
    c.setFont(fonts["bold"], 7)
    c.drawCentredString(x + w - 16 * mm, y + h - 17.2 * mm, "HERO")
    size = 10.0  # shrink the rules text until it fits its box, as the templates do
    while True:
        lines = simpleSplit(TEXT, fonts["regular"], size, w - 11.2 * mm)
        if len(lines) * size * 1.2 <= 22 * mm or size <= 6:
            break
        size -= 0.5
    c.setFillColor(ink)
    c.setFont(fonts["regular"], size)
    for n, line in enumerate(lines):
        width = stringWidth(line, fonts["regular"], size)
        c.drawString(x + (w - width) / 2, y + 25 * mm - n * size * 1.2, line)
    c.setLineWidth(0.4)
    c.line(x + 5 * mm, y + 8.6 * mm, x + w - 5 * mm, y + 8.6 * mm)
    c.setFillColor(HexColor("#777777"))
    c.setFont(fonts["bold"], 5.5)
    c.drawCentredString(x + w / 2, y + 5.2 * mm, "X-STATIX  ·  COMMON DECK")
    c.restoreState()


def main() -> int:
    frames, out = int(sys.argv[1]), sys.argv[2]
    draw_frames(frames, out, register_vera(), backs="--backs" in sys.argv[3:])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
