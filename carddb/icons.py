"""A game's own icons (cards.yaml `icons:`), beside the built-in ones (carddb.vocab
MARKUP_ICONS): picture files of the project that `{icon:NAME}` in text, die faces, tokens
and templates name like a built-in icon.

    icons:
      sword: icons/sword.svg                         # drawn as vectors
      skull: {file: icons/skull.png, size_mm: 11}    # size_mm: its largest printed size

Each file is checked here, without decoding it: it lies inside the project and exists,
it is a PNG, JPEG or SVG by its first bytes (not by its name), a picture is sharp enough
for `size_mm` (at least MIN_DPI), an SVG is one `<svg>` document with a size and
without a DOCTYPE (no entities: pnp.draw.icons draws it with svglib). A light leaf:
nothing but the standard library and carddb's own schema.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from carddb.dice import BLANK, unknown_icon  # noqa: F401  (re-exported)
from carddb.files import check_path
from carddb.schema import Range, Report, Struct, Type, join, kind_of, shown
from carddb.yamlsource import Pos, key_pos, value_pos

ICON_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}\Z")
MIN_DPI = 150            # below it a picture prints visibly soft (art below 300 is noted)
DEFAULT_SIZE_MM = 12.0   # a die label's icon (11/16 of a 16 mm label) with some room
MAX_ICON_BYTES = 8 * 1024 * 1024
MAX_ICONS = 200
ICON_FILE = Struct({"file": Type((str,), "a file name")},
                   {"size_mm": Range(1, 300, "a size in mm")})


@dataclass(frozen=True)
class IconFile:
    """One own icon: its name, its file (relative to the project), what kind of picture
    it is (`png`, `jpeg`, `svg`) and the largest size it is printed at."""

    name: str
    file: str
    kind: str
    size_mm: float


def declared(extras: dict[str, Any]) -> dict[str, IconFile]:
    """The game's own icons by name, from its validated `icons:` (kinds sniffed again:
    a file that changed since validation is refused where it is drawn)."""
    found = extras.get("icons")
    if not isinstance(found, dict):
        return {}
    result = {}
    for name, entry in found.items():
        file = entry if isinstance(entry, str) else entry["file"]
        size = DEFAULT_SIZE_MM if isinstance(entry, str) else float(entry.get("size_mm",
                                                                          DEFAULT_SIZE_MM))
        kind = Path(file).suffix.lower().lstrip(".").replace("jpg", "jpeg")
        result[name] = IconFile(name, file, kind, size)
    return result


def icon_names(extras: dict[str, Any]) -> tuple[str, ...]:
    """The own icons' names (for did-you-mean and checks of `{icon:NAME}`)."""
    found = extras.get("icons")
    return tuple(found) if isinstance(found, dict) else ()


def check_icons(value: Any, path: str, pos: Pos, report: Report, root: Path,
                builtin: tuple[str, ...]) -> None:
    """`icons:` of one game: names, files, kinds, resolutions (located problems)."""
    if not isinstance(value, dict) or not value:
        report.add(pos, path, f"expected a mapping of icon names to files, got {kind_of(value)}")
        return
    if len(value) > MAX_ICONS:
        report.add(pos, path, f"{len(value)} icons, more than the limit of {MAX_ICONS}")
        return
    for name, entry in value.items():
        npath, kpos, vpos = join(path, str(name)), key_pos(value, name, pos), value_pos(value,
                                                                                    name, pos)
        if not isinstance(name, str) or not ICON_NAME.match(name):
            report.add(kpos, npath, f"icon name '{shown(name)}' is not a lower-case word "
                                    "(letters, digits, - and _, starting with a letter)")
            continue
        if name in builtin:
            report.add(kpos, npath, f"icon '{name}' is a built-in icon: give yours another name")
            continue
        if isinstance(entry, dict):
            if not ICON_FILE.check(entry, npath, vpos, report):
                continue
            file, fpos = entry["file"], value_pos(entry, "file", vpos)
            size = float(entry.get("size_mm", DEFAULT_SIZE_MM))
            npath = join(npath, "file")
        elif isinstance(entry, str):
            file, fpos, size = entry, vpos, DEFAULT_SIZE_MM
        else:
            report.add(vpos, npath, f"expected a file name or {{file, size_mm}}, got "
                                    f"{kind_of(entry)}")
            continue
        _check_file(file, npath, fpos, report, root, size)


def _check_file(file: str, path: str, pos: Pos, report: Report, root: Path,
                size_mm: float) -> None:
    before = len(report.problems)
    check_path(file, path, pos, report, root, "icon")
    if len(report.problems) > before:
        return
    from carddb.files import read_limited

    try:
        data = read_limited(root / file, MAX_ICON_BYTES, "an icon is a .png, .jpg or .svg file")
    except (OSError, ValueError) as exc:
        report.add(pos, path, f"icon file '{shown(file)}' cannot be read: {shown(str(exc))}")
        return
    kind = sniff(data)
    suffix = Path(file).suffix.lower()
    if kind is None:
        report.add(pos, path, f"icon file '{shown(file)}' is not a PNG, JPEG or SVG picture")
        return
    if suffix not in SUFFIXES[kind]:
        report.add(pos, path, f"icon file '{shown(file)}' holds a {kind.upper()} picture: "
                              f"name it {SUFFIXES[kind][0]}")
        return
    problem = svg_problem(data) if kind == "svg" else _raster_problem(data, kind, size_mm)
    if problem:
        report.add(pos, path, f"icon file '{shown(file)}': {problem}")


SUFFIXES = {"png": (".png",), "jpeg": (".jpg", ".jpeg"), "svg": (".svg",)}


def sniff(data: bytes) -> str | None:
    """`png`, `jpeg` or `svg` by the file's first bytes; None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    head = data[:4096].lstrip(b"\xef\xbb\xbf").lstrip()
    if head.startswith((b"<?xml", b"<svg", b"<!--")) and b"<svg" in data[:65536]:
        return "svg"
    return None


def pixels(data: bytes, kind: str) -> tuple[int, int] | None:
    """(width, height) in pixels from a PNG's IHDR or a JPEG's frame header."""
    if kind == "png":
        if len(data) >= 24 and data[12:16] == b"IHDR":
            return struct.unpack(">II", data[16:24])
        return None
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        i += 2 + length
    return None


def _raster_problem(data: bytes, kind: str, size_mm: float) -> str | None:
    size = pixels(data, kind)
    if size is None or min(size) < 1:
        return f"a damaged {kind.upper()} file (no picture size found)"
    dpi = min(size) / (size_mm / 25.4)
    if dpi < MIN_DPI:
        return (f"{size[0]} x {size[1]} px is {dpi:.0f} dpi at its printed {size_mm:g} mm "
                f"(size_mm), below {MIN_DPI}: give it at least "
                f"{round(MIN_DPI * size_mm / 25.4)} px a side, or draw it as SVG")
    return None


def svg_problem(data: bytes) -> str | None:
    """What keeps an SVG from being drawn as an icon, or None."""
    import xml.etree.ElementTree as ET

    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        return "an SVG with a DOCTYPE or entities (refused: save it as plain SVG)"
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        return f"not a well-formed SVG ({exc})"
    if root.tag not in ("svg", "{http://www.w3.org/2000/svg}svg"):
        return f"its root element is <{shown(root.tag)}>, not <svg>"
    if root.get("viewBox") is None and not (root.get("width") and root.get("height")):
        return "an <svg> without a viewBox or width and height (its size is unknown)"
    for el in root.iter():
        tag = el.tag.rsplit("}", 1)[-1] if isinstance(el.tag, str) else ""
        if tag in ("text", "tspan", "textPath"):
            return "an SVG with text in it: convert the text to paths (its font would not " \
                   "be embedded in the print)"
        if tag in ("image", "foreignObject", "script"):
            return f"an SVG with <{tag}> in it (refused: an icon is drawn from its own " \
                   "paths; a picture is declared as a PNG or JPEG icon)"
        href = el.get("href") or el.get("{http://www.w3.org/1999/xlink}href")
        if tag == "use" and href is not None and not href.startswith("#"):
            return "an SVG whose <use> names another file (refused: keep the icon in one file)"
    return None
