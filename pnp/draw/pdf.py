"""The canvas factory: every PDF the pipeline writes is made here."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, BinaryIO

CREATOR = "pnp build (pnp-referee)"


def open_canvas(target: str | Path | BinaryIO, page_size: tuple[float, float], *,
                title: str, font: str, subject: str = "", author: str = "pnp build"):
    """A ReportLab canvas in invariant mode (no timestamps, fixed document id: the same
    input gives a byte-identical file) with title, author and subject set. `font` (a
    registered, embedded font) replaces ReportLab's initial Helvetica, which would be a
    font reference left unembedded."""
    from reportlab import rl_config

    # Binary Flate streams: ASCII85 on top makes files 25 % bigger and, without the C
    # accelerator, costs a third of the build time.
    rl_config.useA85 = 0
    if isinstance(target, Path):
        target = str(target)
    c = _canvas_class()(target, pagesize=page_size, invariant=1, pageCompression=1,
                        initialFontName=font, initialFontSize=10)
    c.setTitle(title)
    c.setAuthor(author)
    c.setSubject(subject)
    c.setCreator(CREATOR)
    c.setProducer(CREATOR)
    return c


class _Deflated:
    """A stream filter for content deflated already: named FlateDecode in the PDF, its
    `encode` leaves the bytes as they are (ReportLab's own filter deflates at save)."""

    pdfname = "FlateDecode"

    @staticmethod
    def encode(data: bytes) -> bytes:
        return data


@functools.cache
def _canvas_class() -> Any:
    """A ReportLab canvas that deflates each page's content when the page is shown.

    ReportLab keeps every page's content as text until `save` and deflates it there: a
    deck of 20,000 cards held some 200 MiB of page text. Deflated at `showPage` with the
    same call (`zlib.compress` of the UTF-8 text, as ReportLab's FlateDecode filter does)
    and handed to the page as its finished content stream, the file is byte for byte the
    same and a page holds a tenth of the memory until `save`."""
    import zlib

    from reportlab import rl_config
    from reportlab.pdfbase.pdfdoc import PDFStream
    from reportlab.pdfgen.canvas import Canvas

    class DeflatingCanvas(Canvas):
        def showPage(self) -> None:
            super().showPage()
            page = self._doc.Pages.pages[-1]
            stream = page.stream
            if (not page.compression or rl_config.useA85 or not isinstance(stream, str)
                    or not stream or page.Contents or page.Override_default_compilation):
                return      # as ReportLab would write it (a test stream, A85, no compression)
            contents = PDFStream(content=zlib.compress(stream.encode("utf8")),
                                 filters=[_Deflated])
            contents.__Comment__ = "page stream"
            page.Contents = contents
            page.stream = None

    return DeflatingCanvas


def end_form(canvas) -> None:
    """`canvas.endForm()`, then give the form the resources ReportLab leaves out of form
    XObjects (it writes them for pages only): graphics states, shadings and colour spaces.
    Without the graphics states a translucent fill inside a form prints opaque."""
    from reportlab.pdfbase import pdfdoc

    name = canvas._formData[0]
    shading = dict(canvas._shadingUsed)  # endForm restores the page's accumulators
    canvas.endForm()
    form = canvas._doc.idToObject[pdfdoc.xObjectName(name)]
    resources = pdfdoc.PDFResourceDictionary()
    resources.basicFonts()
    resources.allProcs()
    if form.XObjects:
        resources.XObject = form.XObjects
    if getattr(form, "ExtGState", None):
        resources.ExtGState = form.ExtGState
    resources.setShading(shading)
    resources.setColorSpace(getattr(form, "_colorsUsed", {}) or {})
    form.Resources = resources
