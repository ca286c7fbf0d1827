"""Which font draws each character: the card font if it has the glyph, else its fallback.

`pnp.draw.fonts.register_fonts` gives each card font (a role of print.fonts) a fallback: the
same role of DejaVu Sans, bundled in pnp/draw/fallback-fonts/. Text is cut into runs where the
drawing font changes (`runs`), so `→` or `★` in a Vera text are drawn with DejaVu; a
character neither font has (`missing`) still prints, as the card font's empty box, and
whoever draws it reports it (pnp.draw.render: a layout warning naming card, element and
character). Coverage is read from each font's own character map.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

# registered font name -> (its fallback's name, the fallback's file); the fallback is
# registered (its file parsed, a quarter second for the four DejaVu faces) only when a
# character first needs it
_FALLBACK: dict[str, tuple[str, str]] = {}
_READY: set[str] = set()


def set_fallback(font: str, fallback: str | None, path: str | os.PathLike[str] | None = None
                 ) -> None:
    """Characters `font` lacks are drawn with `fallback`, read from the TrueType file
    `path` when first needed (None: with nothing else)."""
    if fallback is None or fallback == font:
        _FALLBACK.pop(font, None)
    else:
        _FALLBACK[font] = (fallback, str(path))
    covered.cache_clear()
    runs.cache_clear()


def fallback_of(font: str) -> str | None:
    """The font that draws what `font` lacks (registered now if it was not yet)."""
    entry = _FALLBACK.get(font)
    if entry is None:
        return None
    name, path = entry
    if name not in _READY:
        from pnp.draw.ttf import register_file

        register_file(name, Path(path), "the bundled fallback font")
        _READY.add(name)
    return name


def make_ready(names) -> None:
    """Register each of `names` that is a fallback font not registered yet (a plan kept
    across builds draws with the fonts its planning registered: pnp.draw.plan_cache)."""
    for font, (name, _path) in list(_FALLBACK.items()):
        if name in names and name not in _READY:
            fallback_of(font)


@lru_cache(maxsize=64)
def _cmap(font: str) -> frozenset[int] | None:
    """The code points `font` has glyphs for; None for a font without a character map
    (ReportLab's standard Type 1 fonts, which pnp does not embed or use)."""
    from reportlab.pdfbase import pdfmetrics

    face = getattr(pdfmetrics.getFont(font), "face", None)
    mapping = getattr(face, "charToGlyph", None)
    return frozenset(mapping) if mapping is not None else None


def has(font: str, char: str) -> bool:
    cmap = _cmap(font)
    return cmap is None or ord(char) in cmap


@lru_cache(maxsize=4096)
def covered(text: str, font: str) -> bool:
    """Does `font` alone draw every character of `text`? (The common case: one check.)"""
    cmap = _cmap(font)
    return cmap is None or all(ord(ch) in cmap for ch in text)


def font_for(char: str, font: str) -> str:
    """The font that draws `char`: `font`, else its fallback if that has it, else `font`."""
    if has(font, char):
        return font
    fallback = fallback_of(font)
    if fallback is not None and has(fallback, char):
        return fallback
    return font


@lru_cache(maxsize=4096)
def runs(text: str, font: str) -> tuple[tuple[str, str], ...]:
    """`text` as (text, font) runs, cut where the drawing font changes."""
    if covered(text, font):
        return ((text, font),) if text else ()
    out: list[tuple[str, str]] = []
    for ch in text:
        f = font_for(ch, font)
        if out and out[-1][1] == f:
            out[-1] = (out[-1][0] + ch, f)
        else:
            out.append((ch, f))
    return tuple(out)


def missing(text: str, font: str) -> str:
    """The characters of `text` that neither `font` nor its fallback has, each once."""
    if covered(text, font):
        return ""
    fallback = fallback_of(font)
    out = ""
    for ch in text:
        if ch in out or has(font, ch) or (fallback is not None and has(fallback, ch)):
            continue
        if ch.isspace() or ord(ch) < 32:       # layout characters, not glyphs
            continue
        out += ch
    return out


def describe(chars: str) -> str:
    """`'日' (U+65E5), '本' (U+672C)`: characters named for a warning."""
    return ", ".join(f"{ch!r} (U+{ord(ch):04X})" for ch in chars)


def draw_string(canvas, x: float, y: float, text: str, font: str, size: float,
                anchor: str = "left") -> str:
    """`canvas.drawString` with the fallback: each run in the font that has its glyphs;
    `anchor` left, centre or right of `text` at x. Returns the characters no font has."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    parts = runs(text, font)
    widths = [stringWidth(t, f, size) for t, f in parts]
    x -= {"left": 0.0, "centre": sum(widths) / 2, "right": sum(widths)}[anchor]
    for (t, f), w in zip(parts, widths, strict=True):
        canvas.setFont(f, size)
        canvas.drawString(x, y, t)
        x += w
    return missing(text, font)
