"""Which modules setup.py compiles with mypyc, and the guard against stale compiled modules.

A compiled module (`play.cpython-311-x86_64-linux-gnu.so`) sits next to its source and
Python imports it first. After an edit of the source (an editable install, or a tree
built with `python setup.py build_ext --inplace`), that would silently run the old code.
So the build records each compiled source's size, time and hash in _mypyc_manifest.txt,
and `check()` (run by `import referee`, before any compiled module loads) compares: if a
compiled module exists and any source changed or there is no manifest, all the compiled
modules are imported from their sources instead (all, because compiled modules call each
other directly in C), with a one-line notice. Not compiled itself (it guards the others).

`import referee` runs this on every command (`referee roll 3` must start fast): only `os`
and a listing of each compiled module's folder when nothing is compiled, a few `stat`
calls when nothing changed; a source is hashed only when its size or
time differs from the build's (a checkout may touch a file without changing it)."""

from __future__ import annotations

import _imp  # extension_suffixes(): importlib.machinery's list, without its import (~1 ms)
import os
import sys

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
MANIFEST = "_mypyc_manifest.txt"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # holds the package


def source(module: str) -> str:
    return os.path.join(ROOT, *module.split(".")) + ".py"


def digest(module: str) -> str:
    import hashlib

    with open(source(module), "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


def stamp(module: str) -> str:
    status = os.stat(source(module))
    return f"{status.st_size}:{status.st_mtime_ns}"


def manifest_text() -> str:
    """What the build writes: a line per compiled module (module, stamp, hash)."""
    return "".join(f"{m} {stamp(m)} {digest(m)}\n" for m in COMPILED)


def read_manifest() -> dict[str, tuple[str, str]]:
    try:
        with open(os.path.join(ROOT, "referee", MANIFEST), encoding="utf-8") as file:
            lines = [line.split() for line in file]
    except OSError:
        return {}
    return {parts[0]: (parts[1], parts[2]) for parts in lines if len(parts) == 3}


def is_compiled(module: str) -> bool:
    base = source(module)[:-3]
    return any(os.path.exists(base + suffix) for suffix in _imp.extension_suffixes())


def any_compiled() -> bool:
    """Whether any compiled module exists: one listing per folder (a few), not a `stat`
    per module and suffix (`referee roll 3` pays for this on every start)."""
    suffixes = tuple(_imp.extension_suffixes())
    folders: dict[str, set[str]] = {}
    for module in COMPILED:
        folder, _, name = source(module)[:-3].rpartition(os.sep)
        folders.setdefault(folder, set()).add(name)
    for folder, names in folders.items():
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        for entry in entries:
            if entry.endswith(suffixes) and entry.split(".", 1)[0] in names:
                return True
    return False


def stale() -> list[str]:
    """The compiled modules whose source changed since the build (all of them when no
    manifest says what was built); [] when nothing is compiled or all is up to date."""
    if not any_compiled():
        return []
    built = read_manifest()

    def same(module: str) -> bool:
        return module in built and (stamp(module) == built[module][0]
                                    or digest(module) == built[module][1])

    if all(same(m) for m in COMPILED):
        return []
    return [m for m in COMPILED if not same(m)]


class Sources:
    """Imports the compiled modules from their .py files (a meta path finder)."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None):
        if name in COMPILED:
            import importlib.util

            return importlib.util.spec_from_file_location(name, source(name))
        return None


def check() -> None:
    changed = stale()
    if changed and not any(isinstance(f, Sources) for f in sys.meta_path):
        sys.meta_path.insert(0, Sources())
        where = ", ".join(os.path.relpath(source(m), ROOT) for m in changed[:3])
        more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
        print(f"referee: compiled modules out of date ({where}{more} changed): running pure "
              "Python; rebuild with `python setup.py build_ext --inplace` or reinstall",
              file=sys.stderr)
