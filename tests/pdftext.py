"""A PDF's text as the tests read it: pdfium's text objects (pypdfium2) in the order the page
draws them, a tenth of the CPU of pypdf's `extract_text` (issue 34: the suite's CPU). On
every page of the bundled build, `words` gives what pypdf's text gives once its whitespace
is squashed; `page_texts` keeps a line break between text objects (where pypdf may put a
space), so a test looks for a name or a phrase in `words`, not at the layout."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any


def page_texts(pdf: str | Path | bytes, pages: Iterable[int] | None = None) -> list[str]:
    """The text of each page of `pdf` (a path or the file's bytes), or of `pages` (indexes)."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(pdf if isinstance(pdf, bytes) else str(pdf))
    try:
        wanted = range(len(document)) if pages is None else pages
        return [_text(document[index]) for index in wanted]
    finally:
        document.close()


def words(pdf: str | Path | bytes, pages: Iterable[int] | None = None) -> str:
    """The pages' text with every run of whitespace one space (a wrapped line reads whole)."""
    return " ".join(" ".join(text.split()) for text in page_texts(pdf, pages))


def _text(page: Any) -> str:
    """The page's text objects, each on a line of its own unless it goes on where the one
    before ended (same baseline, starting at its right edge: a bold label and its colon)."""
    import pypdfium2.raw as raw

    textpage = page.get_textpage()
    parts: list[str] = []
    end: tuple[float, float] | None = None  # the last object's baseline and right edge
    for obj in page.get_objects(filter=[raw.FPDF_PAGEOBJ_TEXT]):
        origin = obj.get_matrix()
        if end is not None:
            goes_on = abs(origin.f - end[0]) < 0.01 and abs(origin.e - end[1]) < 1
            parts.append("" if goes_on else "\n")
        parts.append(_extract(raw, obj, textpage))
        end = (origin.f, _bounds(obj)[2])
    return "".join(parts)


def _extract(raw: Any, obj: Any, textpage: Any) -> str:
    """A text object's text through pdfium's C call, as PdfTextObj.extract does (that
    method is not in pypdfium2 4.30, the floor pyproject declares)."""
    import ctypes

    size = raw.FPDFTextObj_GetText(obj.raw, textpage.raw, None, 0)  # bytes, with the NUL
    if size <= 2:
        return ""
    buffer = ctypes.create_string_buffer(size)
    raw.FPDFTextObj_GetText(obj.raw, textpage.raw,
                            ctypes.cast(buffer, ctypes.POINTER(raw.FPDF_WCHAR)), size)
    return buffer.raw[:size - 2].decode("utf-16-le")


def _bounds(obj: Any) -> tuple[float, float, float, float]:
    """(left, bottom, right, top): `get_bounds` since pypdfium2 5, `get_pos` in 4."""
    return obj.get_bounds() if hasattr(obj, "get_bounds") else obj.get_pos()
