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
