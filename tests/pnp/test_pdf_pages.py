"""Issue 36 item 4: the canvas every PDF is made with (pnp.draw.pdf.open_canvas) deflates
each page's content when the page is shown, not all at save, and still writes the bytes
ReportLab itself writes for the same drawing."""

from __future__ import annotations

import io
from pathlib import Path

from reportlab.pdfgen.canvas import Canvas

from pnp.draw.fonts import register_fonts
from pnp.draw.pdf import CREATOR, open_canvas


def _draw(c) -> None:
    for page in range(3):
        c.setFillColorRGB(0.2, 0.4 * page, 0.6)
        c.rect(10, 10, 100 + page, 50, stroke=0, fill=1)
        c.drawString(20, 200, f"page {page} \u00e9t\u00e9")
        c.showPage()
    c.save()


def test_pages_are_deflated_when_shown_and_the_file_is_reportlabs_own():
    fonts = register_fonts({}, Path.cwd())
    ours, theirs = io.BytesIO(), io.BytesIO()
    c = open_canvas(ours, (300, 300), title="t", font=fonts["regular"])
    c.drawString(5, 5, "first")
    c.showPage()
    page = c._doc.Pages.pages[-1]
    assert page.stream is None and page.Contents.content[:1] == b"\x78"   # zlib, kept
    plain = Canvas(theirs, pagesize=(300, 300), invariant=1, pageCompression=1,
                   initialFontName=fonts["regular"], initialFontSize=10)
    plain.setTitle("t")
    plain.setAuthor("pnp build")
    plain.setSubject("")
    plain.setCreator(CREATOR)
    plain.setProducer(CREATOR)
    plain.drawString(5, 5, "first")
    plain.showPage()
    _draw(c)
    _draw(plain)
    assert ours.getvalue() == theirs.getvalue()


def _sheets(c, shown: list | None = None) -> None:
    """A form, then four pages drawing it with translucent fills of two alphas (pages
    alike two by two); with `shown` (kept pages), the last three shown as kept."""
    from pnp.draw.pdf import end_form

    c.beginForm("plate", 0, 0, 20, 20)
    c.rect(0, 0, 20, 20, stroke=0, fill=1)
    end_form(c)
    for page in range(4):
        if shown is not None and page:
            c.show_kept(shown[page])
            continue
        c.setFillAlpha(0.5 if page % 2 else 0.25)
        c.rect(10, 10 + page, 100, 50, stroke=0, fill=1)
        c.doForm("plate")
        c.doForm("plate")
        c.showPage()
    c.save()


def test_kept_pages_with_forms_and_graphics_states_are_the_drawn_pages_bytes():
    """Pages shown again (show_kept) whose forms and translucent fills are named in
    resources shared by the pages alike: the file is the one drawing them writes."""
    fonts = register_fonts({}, Path.cwd())
    drawn, again = io.BytesIO(), io.BytesIO()
    c = open_canvas(drawn, (300, 300), title="t", font=fonts["regular"])
    c.kept_pages = []
    _sheets(c)
    kept = c.kept_pages
    assert len(kept) == 4 and all(k.forms and k.states for k in kept)
    shown = open_canvas(again, (300, 300), title="t", font=fonts["regular"])
    _sheets(shown, kept)
    assert again.getvalue() == drawn.getvalue()
    assert b"/ExtGState" in drawn.getvalue() and b"/XObject" in drawn.getvalue()
