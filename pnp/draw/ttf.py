"""One TrueType file registered with ReportLab, or refused in one line: missing, over the
asset limit, damaged or not a TrueType font (what pnp.draw.fonts and the lazily
registered fallbacks of pnp.draw.glyphs share).

Fonts are embedded as subsets of at most 256 glyphs, each named `TAG+FontName` (PDF 1.7,
9.6.4). ReportLab tags a font's first subset `AAAAAA`, its second `AAAAAB`, ... so two fonts
in one file share tags and preflight tools flag it (issue 22). Ours derive the tag from
the subset itself (the font, the subset number and its characters), unique within the
file, and the same for the same drawing, so builds stay byte-reproducible.

ReportLab keeps one font object per face: a face another caller (an application that
imports pnp, a test) registered first with stock ReportLab, under any name, is what our
name then draws with. That font is given our tags too (`_tag_subsets`): its PDF objects
are the same but for the six letters (tests/pnp/test_font_subsets.py)."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any


class FontError(Exception):
    """A font that cannot be used; the message is one line naming the path."""


def register_file(name: str, path: Path, setting: str) -> None:
    """Register one font file with ReportLab under `name`; FontError if unusable, naming
    the path and the `setting` that chose it."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFError

    if name in pdfmetrics.getRegisteredFontNames():
        _tag_subsets(pdfmetrics.getFont(name), name)
        return
    try:
        found = path.is_file()
        size = path.stat().st_size if found else 0
    except (OSError, ValueError):
        found, size = False, 0
    if not found:
        raise FontError(f"font file not found: {path} ({setting})")
    from carddb.limits import MAX_ASSET_BYTES

    if size > MAX_ASSET_BYTES:
        raise FontError(f"font file {path} is {size:,} bytes, more than the limit of "
                        f"{MAX_ASSET_BYTES:,}")
    try:
        pdfmetrics.registerFont(_tagged_font_class()(name, str(path)))
    except TTFError as exc:
        reason = str(exc).splitlines()[0]
        raise FontError(f"font file {path} cannot be used: {reason}") from None
    except OSError as exc:
        raise FontError(f"font file {path} cannot be read: {exc.strerror}") from None
    except Exception as exc:  # a damaged file: struct.error, IndexError, ...
        reason = " ".join(str(exc).split())[:120] or type(exc).__name__
        raise FontError(f"font file {path} cannot be used: damaged or not a "
                        f"TrueType font ({reason})") from None
    _tag_subsets(pdfmetrics.getFont(name), name)


def _tag_subsets(font: Any, name: str) -> None:
    """`font` (what ReportLab draws `name` with) writes our subset tags: a stock TTFont,
    registered first for the same face by another caller, becomes our class (the same
    object and state: what it drew before is still written, every subset tagged by
    subset_tag). FontError for a TrueType class of another caller's own."""
    from reportlab.pdfbase.ttfonts import TTFont

    tagged = _tagged_font_class()
    if isinstance(font, tagged) or not isinstance(font, TTFont):
        return
    if type(font) is not TTFont:
        raise FontError(f"font {name}: its face is registered with ReportLab as "
                        f"{type(font).__name__} (another caller's class), whose subsets "
                        f"pnp cannot tag apart")
    font.__class__ = tagged


def subset_tag(font_name: str, face_name: bytes, number: int, chars: list[int],
               taken: Collection[str] = ()) -> str:
    """Six capital letters naming one embedded subset: a hash of the font, the subset
    number and its characters, the next hash of those when that tag is `taken`."""
    import hashlib

    seed = f"{font_name}\0{face_name!r}\0{number}\0{','.join(map(str, chars))}".encode()
    for attempt in range(1000):
        digest = hashlib.sha256(seed + attempt.to_bytes(2, "big")).digest()
        tag = "".join(chr(65 + b % 26) for b in digest[:6])
        if tag not in taken:
            return tag
    raise RuntimeError("no free subset tag")  # 26**6 tags: never in a real file


_TAGGED = None


def _tagged_font_class():
    """ReportLab's TTFont with our subset tags (one class, made when a font is first
    registered: ReportLab stays a lazy import)."""
    global _TAGGED
    if _TAGGED is not None:
        return _TAGGED
    from reportlab.pdfbase import pdfdoc
    from reportlab.pdfbase.ttfonts import TTFont, makeToUnicodeCMap

    class TaggedTTFont(TTFont):
        def addObjects(self, doc):
            """TTFont.addObjects (ReportLab 4/5), with subset_tag in place of its
            SUBSETN(n): the PDF Font, ToUnicode CMap and FontDescriptor of each subset."""
            try:
                state = self.state[doc]
            except KeyError:
                state = self.state[doc] = TTFont.State(self._asciiReadable)
            state.frozen = 1
            taken = doc.__dict__.setdefault("_pnp_subset_tags", set())
            for n, subset in enumerate(state.subsets):
                internal = self.getSubsetInternalName(n, doc)[1:]
                tag = subset_tag(self.fontName, self.face.name, n, list(subset), taken)
                taken.add(tag)
                base = (tag.encode() + b"+" + self.face.name
                        + self.face.subfontNameX).decode("pdfdoc")
                font = pdfdoc.PDFTrueTypeFont()
                font.__Comment__ = f"Font {self.fontName} subset {n}"
                font.Name = internal
                font.BaseFont = base
                font.FirstChar = 0
                font.LastChar = len(subset) - 1
                font.Widths = pdfdoc.PDFArray(list(map(self.face.getCharWidth, subset)))
                cmap = pdfdoc.PDFStream()
                cmap.content = makeToUnicodeCMap(base, subset)
                if doc.compression:
                    cmap.filters = [pdfdoc.PDFZCompress]
                font.ToUnicode = doc.Reference(cmap, "toUnicodeCMap:" + base)
                font.FontDescriptor = self.face.addSubsetObjects(doc, base, subset)
                doc.Reference(font, internal)
                doc.idToObject["BasicFonts"].dict[internal] = font
            del self.state[doc]

    _TAGGED = TaggedTTFont
    return _TAGGED
