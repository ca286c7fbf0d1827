"""One TrueType file registered with ReportLab, or refused in one line: missing, over the
asset limit, damaged or not a TrueType font (what pnp.draw.fonts and the lazily
registered fallbacks of pnp.draw.glyphs share)."""

from __future__ import annotations

from pathlib import Path


class FontError(Exception):
    """A font that cannot be used; the message is one line naming the path."""


def register_file(name: str, path: Path, setting: str) -> None:
    """Register one font file with ReportLab under `name`; FontError if unusable, naming
    the path and the `setting` that chose it."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFError, TTFont

    if name in pdfmetrics.getRegisteredFontNames():
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
        pdfmetrics.registerFont(TTFont(name, str(path)))
    except TTFError as exc:
        reason = str(exc).splitlines()[0]
        raise FontError(f"font file {path} cannot be used: {reason}") from None
    except OSError as exc:
        raise FontError(f"font file {path} cannot be read: {exc.strerror}") from None
    except Exception as exc:  # a damaged file: struct.error, IndexError, ...
        reason = " ".join(str(exc).split())[:120] or type(exc).__name__
        raise FontError(f"font file {path} cannot be used: damaged or not a "
                        f"TrueType font ({reason})") from None
