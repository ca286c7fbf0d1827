"""Which modules setup.py compiles with mypyc, and the guard against stale compiled modules.

A compiled module (`play.cpython-311-x86_64-linux-gnu.so`) sits next to its source and
Python imports it first. After an edit of the source (an editable install, or a tree
built with `python setup.py build_ext --inplace`), that would silently run the old code.
So the build records the hash of every compiled source in _mypyc_manifest.json, and
`check()` (run by `import referee`, before any compiled module loads) compares: if a
compiled module exists and any source changed or there is no manifest, all the compiled
modules are imported from their sources instead (all, because compiled modules call each
other directly in C), with a one-line notice. Not compiled itself (it guards the others)."""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import sys
from pathlib import Path

COMPILED = (
    "referee.errors",
    "referee.dice",
    "referee.xs.catalog",
    "referee.xs.rolls",
    "referee.xs.play",
    "referee.xs.turn",
    "referee.xs.mission",
    "referee.xs.events",
    "referee.xs.game",
    "referee.simulate.xs_options",
    "referee.simulate.policies",
    "referee.simulate.xs_sim",
)
MANIFEST = "_mypyc_manifest.json"
ROOT = Path(__file__).resolve().parent.parent  # the directory holding the referee package


def source(module: str) -> Path:
    return ROOT / (module.replace(".", "/") + ".py")


def digest(module: str) -> str:
    return hashlib.sha256(source(module).read_bytes()).hexdigest()


def stale() -> list[str]:
    """The compiled modules whose source changed since the build (all of them when no
    manifest says what was built); [] when nothing is compiled or all is up to date."""
    try:
        built = json.loads((ROOT / "referee" / MANIFEST).read_text())["modules"]
    except (OSError, ValueError, KeyError):
        built = {}
    if built.keys() == set(COMPILED) and all(digest(m) == built[m] for m in COMPILED):
        return []
    compiled = [m for m in COMPILED for suffix in importlib.machinery.EXTENSION_SUFFIXES
                if source(m).with_name(m.rsplit(".", 1)[1] + suffix).exists()]
    if not compiled:
        return []
    return [m for m in COMPILED if m not in built or digest(m) != built[m]]


class Sources:
    """Imports the compiled modules from their .py files (a meta path finder)."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None):
        if name in COMPILED:
            return importlib.util.spec_from_file_location(name, source(name))
        return None


def check() -> None:
    changed = stale()
    if changed and not any(isinstance(f, Sources) for f in sys.meta_path):
        sys.meta_path.insert(0, Sources())
        where = ", ".join(str(source(m).relative_to(ROOT)) for m in changed[:3])
        more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
        print(f"referee: compiled modules out of date ({where}{more} changed): running pure "
              "Python; rebuild with `python setup.py build_ext --inplace` or reinstall",
              file=sys.stderr)
