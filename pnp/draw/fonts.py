"""Fonts for the PDFs: TrueType/OpenType files embedded (subset) by ReportLab.

Default: the Bitstream Vera family that ships inside the reportlab package. A designer
may name other files in the cards.yaml print profile (`fonts: {regular: fonts/x.ttf}`);
paths are resolved inside the project folder. A role the profile leaves out is filled
from the family of the roles it names: the family's own face of that style when one lies
next to them (same family name in the font file), else the nearest named role (bold
italic -> bold -> regular), with a one-line notice (`font_choice`).

Every role also gets a fallback for the characters its font lacks: the same role of
DejaVu Sans, bundled in pnp/draw/fallback-fonts/ with its licence (see pnp.draw.glyphs).
"""

from __future__ import annotations

from pathlib import Path

from pnp.draw.ttf import FontError, register_file

ROLES = ("regular", "bold", "italic", "bolditalic")
_VERA = {"regular": "Vera.ttf", "bold": "VeraBd.ttf", "italic": "VeraIt.ttf",
         "bolditalic": "VeraBI.ttf"}
FALLBACK_DIR = Path(__file__).resolve().parent / "fallback-fonts"
FALLBACK = {"regular": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf",
            "italic": "DejaVuSans-Oblique.ttf", "bolditalic": "DejaVuSans-BoldOblique.ttf"}
# (bold, italic) of each role; the roles a missing one borrows from, nearest first
_STYLE = {"regular": (False, False), "bold": (True, False), "italic": (False, True),
          "bolditalic": (True, True)}
_NEAREST = {"regular": ("bold", "italic", "bolditalic"),
            "bold": ("regular", "bolditalic", "italic"),
            "italic": ("regular", "bolditalic", "bold"),
            "bolditalic": ("bold", "italic", "regular")}
_FONT_SUFFIXES = (".ttf", ".otf")


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


def fallback_files() -> dict[str, Path]:
    """The bundled fallback face of each role (DejaVu Sans)."""
    return {role: FALLBACK_DIR / name for role, name in FALLBACK.items()}


# (path, size, mtime) -> what _style_of read there: one build asks font_choice several
# times (its record, its plans' key, the registering), and each asked every face in the
# folders of the roles it fills; parsing a face is tens of ms (DejaVu Sans: ~60)
_STYLES: dict[tuple[str, int, int], tuple[bytes, bool, bool] | None] = {}


def _style_of(path: Path) -> tuple[bytes, bool, bool] | None:
    """(family name, bold, italic) of a font file as it stands (read once a process);
    None if it cannot be read."""
    try:
        stat = path.stat()
    except OSError:
        return None
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _STYLES:
        _STYLES[key] = _read_style(path)
    return _STYLES[key]


def _read_style(path: Path) -> tuple[bytes, bool, bool] | None:
    from reportlab.pdfbase.ttfonts import TTFontFile

    try:
        face = TTFontFile(str(path), validate=0)
    except Exception:       # not a font, or one ReportLab cannot read: not a sibling
        return None
    bold = bool(face.flags & (1 << 18)) or b"bold" in face.styleName.lower()
    italic = bool(face.italicAngle) or bool(face.flags & (1 << 6))
    return face.familyName, bold, italic


def _sibling(given: Path, role: str) -> Path | None:
    """The face of `role`'s style in the family of `given`, from the same folder."""
    family = _style_of(given)
    if family is None or not given.parent.is_dir():
        return None
    want = (family[0], *_STYLE[role])
    for path in sorted(given.parent.iterdir()):
        if path.suffix.lower() in _FONT_SUFFIXES and path != given and _style_of(path) == want:
            return path
    return None


def font_choice(profile_fonts: dict[str, str], root: Path) -> tuple[dict[str, Path], list[str]]:
    """The file of each role and the notices for roles the profile left out."""
    unknown = sorted(set(profile_fonts) - set(ROLES))
    if unknown:
        raise FontError(f"cards.yaml: print.fonts: unknown role {unknown[0]!r} "
                        f"(use {', '.join(ROLES)})")
    if not profile_fonts:
        return {role: reportlab_font_dir() / _VERA[role] for role in ROLES}, []
    given: dict[str, Path] = {}
    for role in ROLES:
        if role in profile_fonts:
            try:
                given[role] = inside(root, profile_fonts[role])
            except ValueError as exc:
                raise FontError(f"cards.yaml: print.fonts.{role}: {exc}") from None
    files, notices = dict(given), []
    # first the family's own faces, then the nearest role filled so far
    for role in ROLES:
        if role in files:
            continue
        donor = next(r for r in _NEAREST[role] if r in given)
        sibling = _sibling(given[donor], role) if given[donor].is_file() else None
        if sibling is not None:
            files[role] = sibling
            notices.append(f"print.fonts.{role} not set: using {_shown(sibling, root)}, "
                           f"the {role} face of the family of print.fonts.{donor}")
    for role in ROLES:
        if role in files:
            continue
        donor = next(r for r in _NEAREST[role] if r in files)
        files[role] = files[donor]
        notices.append(f"print.fonts.{role} not set and its family has no {role} face "
                       f"next to it: {role} text is drawn with the {donor} font "
                       f"({_shown(files[donor], root)})")
    return files, notices


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root.resolve()))
    except ValueError:
        return str(path)


def font_files(profile_fonts: dict[str, str], root: Path) -> dict[str, Path]:
    """The file for each role: the profile's choice, else its family's (see font_choice)."""
    return font_choice(profile_fonts, root)[0]


def register_fonts(profile_fonts: dict[str, str] | None, root: Path,
                   notify=None) -> dict[str, str]:
    """Register the four faces with ReportLab, each with its fallback (pnp.draw.glyphs);
    returns {role: registered font name}. `notify(line)` gets the notices of roles the
    profile left out.

    Raises FontError (one line, naming the path) for a missing or unusable file."""
    from reportlab.pdfbase import pdfmetrics

    from pnp.draw import glyphs

    files, notices = font_choice(dict(profile_fonts or {}), root)
    names: dict[str, str] = {}
    first: dict[Path, str] = {}      # a file two roles share is registered (embedded) once
    fallbacks = fallback_files()
    for role, path in files.items():
        if path in first:
            names[role] = first[path]
            continue
        name = first[path] = names[role] = f"PnP-{role}-{path.stem}"
        register_file(name, path, f"print.fonts.{role}")
        # its own role's fallback face, registered when a character first needs it
        glyphs.set_fallback(name, f"PnP-fallback-{fallbacks[role].stem}", fallbacks[role])
    pdfmetrics.registerFontFamily(names["regular"], normal=names["regular"], bold=names["bold"],
                                  italic=names["italic"], boldItalic=names["bolditalic"])
    if notify is not None:
        for line in notices:
            notify(line)
    return names
