"""The PDF code of a card's text kept across builds, and when it may be reused (issue 24:
an edit to one card of a big deck costs that card, not the deck's text again).

Encoding text is most of the time of drawing a planned card: ReportLab gives each
TrueType font, per document, subsets of up to 256 glyphs and assigns every character a
code in the order characters are first drawn (`TTFont.splitString`). A card's text code
from an earlier build is therefore right in this document only if the font's assignments
are the ones they were then. This module is the one place that knows that much of
ReportLab (`TTFont.state`, the canvas's document and graphics state):

- `TextCode.before(canvas, op)` before a text operation is drawn the usual way and
  `TextCode.after(...)` once it is, give what to keep: the code, each font's assignments
  before (their order, as a digest, and the font's name in the document) and the
  characters the operation added;
- `TextCode.replay(canvas, kept)` gives the code back only when every font stands where it
  stood then (else None: draw it the usual way), after assigning the same characters
  the same codes, so the document (its font subsets, the codes of later text) ends
  exactly as drawing the text would have left it. The PDF is byte for byte the same.

Only plain text is kept: no inline icons (they draw paths and forms) and no colour that
names a separation or changes transparency (graphics states are named per document).
"""

from __future__ import annotations

import hashlib
from array import array
from typing import Any

from reportlab.lib.colors import CMYKColor, Color
from reportlab.pdfbase.pdfmetrics import getFont


class TextCode:
    """The text-code bookkeeping of one document (one canvas)."""

    __slots__ = ("_digests",)

    def __init__(self) -> None:
        self._digests: dict[tuple[str, int], bytes] = {}    # (font, assigned) -> digest

    def _where(self, canvas, name: str) -> tuple | None:
        """Where font `name` stands in the canvas's document: (its name there, a digest of
        its assignments in order, how many) or None before its first use there."""
        font = getFont(name)
        doc = canvas._doc
        if not getattr(font, "_dynamicFont", False):        # a standard font: no subsets
            known = doc.fontMapping.get(name)
            return None if known is None else (known, b"", 0)
        state = font.state.get(doc)
        if state is None or state.internalName is None:
            return None
        assigned = state.assignments                        # insertion-ordered, only grows
        n = len(assigned)
        digest = self._digests.get((name, n))
        if digest is None:
            digest = hashlib.blake2b(array("q", assigned).tobytes(), digest_size=16).digest()
            self._digests[(name, n)] = digest
        return (state.internalName, digest, n)

    def before(self, canvas, op) -> dict | None:
        """What `after` needs of a text operation about to be drawn, or None when it is
        not one to keep."""
        if not _plain(op) or _alpha(canvas) != 1:
            return None
        where: dict[str, tuple] = {}
        for name in {p.font for p in op.pieces}:
            at = self._where(canvas, name)
            if at is None:               # its first use here names it: not kept
                return None
            where[name] = at
        return where

    def after(self, canvas, op, where: dict, code: str) -> tuple | None:
        """What to keep of the operation just drawn (`code`: what it added to the page):
        (code, ((font, its name there, digest before), ...), ((font, characters it
        assigned), ...))."""
        if " gs" in code:                # it changed a graphics state: not kept
            return None
        doc = canvas._doc
        added = []
        for name, (_, _, n) in where.items():
            font = getFont(name)
            if getattr(font, "_dynamicFont", False):
                codes = list(font.state[doc].assignments)[n:]
                if codes:
                    added.append((name, "".join(map(chr, codes))))
        return (code, tuple((name, at[0], at[1]) for name, at in sorted(where.items())),
                tuple(added))

    def replay(self, canvas, kept: Any) -> str | None:
        """The kept code when it is this document's code for the operation (the fonts'
        characters assigned as drawing it would), else None."""
        if type(kept) is not tuple or len(kept) != 3 or _alpha(canvas) != 1:
            return None
        code, fonts, added = kept
        for name, internal, digest in fonts:
            at = self._where(canvas, name)
            if at is None or at[0] != internal or at[1] != digest:
                return None
        doc = canvas._doc
        for name, chars in added:
            getFont(name).splitString(chars, doc)
        return code


def _plain(op) -> bool:
    colour = op.color
    if isinstance(colour, CMYKColor):
        return False                     # may name a separation (a document colour space)
    if colour is not None and not isinstance(colour, Color | tuple | list):
        return False
    return not any(p.icon for p in op.pieces)


def _alpha(canvas) -> Any:
    """The current fill opacity: a text colour's alpha of 1 writes nothing only at 1."""
    return canvas._extgstate.getValue("ca")
