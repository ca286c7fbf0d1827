"""The methods `dataclasses` writes, compiled once and kept between runs (issue 24).

Making a dataclass compiles the source of its __init__, __repr__, __eq__, __hash__ ...
afresh in every process: carddb's and pnp's 42 classes were a tenth of a small build,
most of it that compiling. The source depends only on the class's fields, so its code
object is kept (marshal, one file per Python bytecode version) in the cache folder and
used again: the functions are then made from it exactly as before.

`install()` hooks `dataclasses`' own calls to exec (a module global there shadows the
builtin); the file is written at exit when a class was new. Folder: as carddb.cache
(PNP_CACHE_DIR, off: nothing kept); an unreadable or unwritable file just means
compiling, as without it."""

from __future__ import annotations

import builtins
import os
import sys

_MAX_ENTRIES = 4096            # a folder shared by many versions of the code: start afresh
_codes: dict[str, object] = {}
_path: str | None = None
_new = False


def folder() -> str | None:
    """carddb.cache.folder(), which cannot be imported before carddb's classes are made."""
    chosen = os.environ.get("PNP_CACHE_DIR")
    if chosen == "off":
        return None
    if chosen:
        return chosen
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "pnp-referee")


def _exec(source, globals=None, locals=None):
    """exec, with the code of a source text compiled in an earlier run when there is one."""
    global _new
    if type(source) is str:
        code = _codes.get(source)
        if code is None:
            # dont_inherit: compiled as dataclasses' own exec compiles it, without this
            # module's `from __future__ import annotations`
            code = _codes[source] = compile(source, "<string>", "exec", dont_inherit=True)
            _new = True
        source = code
    return builtins.exec(source, globals, locals)


def install() -> None:
    """Use and keep compiled dataclass methods, unless the cache is off."""
    global _path
    base = folder()
    if base is None or _path is not None:
        return
    import atexit
    import dataclasses
    import importlib.util
    import marshal

    _path = os.path.join(base, f"dataclass-code-{sys.implementation.cache_tag}-"
                               f"{importlib.util.MAGIC_NUMBER.hex()}.marshal")
    try:
        with open(_path, "rb") as f:
            kept = marshal.loads(f.read())      # (marshal.load reads a file piece by piece)
        if type(kept) is dict and len(kept) <= _MAX_ENTRIES:
            _codes.update(kept)
    except (OSError, EOFError, ValueError, TypeError):
        pass
    # dataclasses calls the builtin `exec` by its module global name (not in its stubs)
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    atexit.register(_save)


def _save() -> None:
    """Write the codes when a class was new (atomically: runs may overlap)."""
    if not _new or _path is None:
        return
    import marshal

    try:
        os.makedirs(os.path.dirname(_path), exist_ok=True)
        partial = f"{_path}.{os.getpid()}"
        with open(partial, "wb") as f:
            marshal.dump(_codes, f)
        os.replace(partial, _path)
    except (OSError, ValueError):
        pass
