"""The specs several modules of carddb share, in a leaf below them all: validate.py
(the database's shape), fields.py (declared card fields) and the rules plug-ins
(carddb/rules/) import them from here, so none of those imports another to get them
(tests/test_package_layers.py keeps carddb, pnp and referee free of import cycles)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from carddb import limits
from carddb.dice import TOKEN_START
from carddb.schema import COLOR, NAME, STR, Choice, Range, Report, Struct, Type, shown
from carddb.yamlsource import Pos

# a token kind (`tokens:`); `start`, `per`, `min` and `max` are read by the referee's table
# kit; `icon` (a built-in or own icon, checked with the game's `icons:`) is what token.j2
# may draw, `plural` the name's plural where the English rule fails (sheet headings);
# `diameter_mm` and `color` have defaults (carddb._with_defaults)
_HOLDING = Type((int,), "a whole number >= 0", minimum=0, maximum=limits.MAX_TOKENS)
TOKEN = Struct({"label": STR, "name": NAME,
                "count": Type((int,), "a whole number >= 1", minimum=1, maximum=limits.MAX_TOKENS)},
               {"diameter_mm": Range(*limits.TOKEN_MM, "a diameter in mm"), "color": COLOR,
                "start": TOKEN_START, "per": Choice(("player", "shared")), "min": _HOLDING,
                "max": _HOLDING, "icon": STR, "plural": NAME})


def check_path(value, path: str, pos: Pos, report: Report, root: Path, what: str) -> None:
    """A file named in the database must lie inside the project folder and exist."""
    if not isinstance(value, str):
        return
    pure = PurePosixPath(value.replace("\\", "/"))
    if not value or "\0" in value or len(value) > 1024 or any(len(p) > 255 for p in pure.parts):
        report.add(pos, path, f"{what} path '{shown(value)}' is not a usable file name")
        return
    try:
        inside = (root / value).resolve().is_relative_to(root.resolve())
        found = (root / value).is_file()
    except (OSError, ValueError, RuntimeError) as exc:
        report.add(pos, path, f"{what} path '{shown(value)}' cannot be used: {shown(str(exc))}")
        return
    if pure.is_absolute() or not inside:
        report.add(pos, path, f"{what} path '{shown(value)}' escapes the project folder (refused)")
    else:
        report.paths_checked.append(root / value)
        if not found:
            report.add(pos, path, f"{what} file '{shown(value)}' not found")
