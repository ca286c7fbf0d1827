"""The canvas factory: every PDF the pipeline writes is made here."""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

CREATOR = "pnp build (pnp-referee)"


def open_canvas(target: str | Path | BinaryIO, page_size: tuple[float, float], *,
                title: str, font: str, subject: str = "", author: str = "pnp build"):
    """A ReportLab canvas in invariant mode (no timestamps, fixed document id: the same
    input gives a byte-identical file) with title, author and subject set. `font` (a
    registered, embedded font) replaces ReportLab's initial Helvetica, which would be a
    font reference left unembedded."""
    from reportlab import rl_config
    from reportlab.pdfgen.canvas import Canvas

    # Binary Flate streams: ASCII85 on top makes files 25 % bigger and, without the C
    # accelerator, costs a third of the build time.
    rl_config.useA85 = 0
    if isinstance(target, Path):
        target = str(target)
    c = Canvas(target, pagesize=page_size, invariant=1, pageCompression=1,
               initialFontName=font, initialFontSize=10)
    c.setTitle(title)
    c.setAuthor(author)
    c.setSubject(subject)
    c.setCreator(CREATOR)
    c.setProducer(CREATOR)
    return c


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
