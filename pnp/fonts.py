"""Fonts for the PDFs: TrueType/OpenType files embedded (subset) by ReportLab.

Default: the Bitstream Vera family that ships inside the reportlab package. A designer
may name other files in the cards.yaml print profile (`fonts: {regular: fonts/x.ttf}`);
paths are resolved inside the project folder.
"""

from __future__ import annotations

from pathlib import Path

ROLES = ("regular", "bold", "italic", "bolditalic")
_VERA = {"regular": "Vera.ttf", "bold": "VeraBd.ttf", "italic": "VeraIt.ttf",
         "bolditalic": "VeraBI.ttf"}


class FontError(Exception):
    """A font that cannot be used; the message is one line naming the path."""


def reportlab_font_dir() -> Path:
    import reportlab

    return Path(reportlab.__file__).parent / "fonts"


def inside(root: Path, relative: str) -> Path:
    """`relative` resolved inside `root`; ValueError if it escapes (`..`, absolute paths
    elsewhere, symlinks pointing out)."""
    root = root.resolve()
    path = (root / relative).resolve()
    if path != root and root not in path.parents:
        raise ValueError(f"path {relative!r} escapes the project folder {root}")
    return path


def font_files(profile_fonts: dict[str, str], root: Path) -> dict[str, Path]:
    """The file for each role: the profile's choice, else the Vera face of that role."""
    unknown = sorted(set(profile_fonts) - set(ROLES))
    if unknown:
        raise FontError(f"cards.yaml: print.fonts: unknown role {unknown[0]!r} "
                        f"(use {', '.join(ROLES)})")
    files: dict[str, Path] = {}
    for role in ROLES:
        given = profile_fonts.get(role)
        if given is None:
            files[role] = reportlab_font_dir() / _VERA[role]
            continue
        try:
            files[role] = inside(root, given)
        except ValueError as exc:
            raise FontError(f"cards.yaml: print.fonts.{role}: {exc}") from None
    return files


def register_fonts(profile_fonts: dict[str, str] | None, root: Path) -> dict[str, str]:
    """Register the four faces with ReportLab; returns {role: registered font name}.

    Raises FontError (one line, naming the path) for a missing or unusable file."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFError, TTFont

    names: dict[str, str] = {}
    for role, path in font_files(dict(profile_fonts or {}), root).items():
        try:
            found = path.is_file()
            size = path.stat().st_size if found else 0
        except (OSError, ValueError):
            found, size = False, 0
        if not found:
            raise FontError(f"font file not found: {path} (print.fonts.{role})")
        from carddb.limits import MAX_ASSET_BYTES

        if size > MAX_ASSET_BYTES:
            raise FontError(f"font file {path} is {size:,} bytes, more than the limit of "
                            f"{MAX_ASSET_BYTES:,}")
        name = f"PnP-{role}-{path.stem}"
        if name not in pdfmetrics.getRegisteredFontNames():
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
        names[role] = name
    pdfmetrics.registerFontFamily(names["regular"], normal=names["regular"], bold=names["bold"],
                                  italic=names["italic"], boldItalic=names["bolditalic"])
    return names
