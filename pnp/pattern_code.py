"""Regular expressions compiled once and kept between runs (issue 36 item 1).

`re` parses and compiles every pattern in pure Python, in every process: the 65 patterns
a warm 80-card `pnp build --force` compiles (ReportLab's, Jinja's, the standard
library's, pnp's and carddb's) were some 35M of its 1,000M instructions (callgrind). What `re` hands the regex engine
(`_sre.compile`: the flags, the engine's code for the pattern, its groups) depends only
on the pattern, its flags and the Python version, so it is kept (marshal, one file per
Python version and engine) in the cache folder, and each pattern object is then made
from it by the engine exactly as `re` makes it; `re`'s own cache of pattern objects is
unchanged. The engine checks the code it is given (it refuses code it cannot run); the
file is as trusted as pnp.dataclass_code's, beside it.

`install()` replaces `re._compiler.compile` (which `re.compile` and the module-level
functions call through its module) for this process; the file is written at exit when
a pattern was new. Installed by the `pnp` command only (pnp.cli.process), never by
`import pnp`. Folder: as carddb.cache (PNP_CACHE_DIR, off: nothing kept); an unreadable
or unwritable file just means compiling, as without it."""

from __future__ import annotations

import _sre
import contextlib
import os
import re._compiler as _compiler
import re._parser as _parser
import sys
from typing import Any

_MAX_ENTRIES = 4096            # a folder shared by many versions of the code: start afresh
# (pattern, flags) -> the arguments of _sre.compile after the pattern
_kept: dict[tuple[Any, int], tuple] = {}
_path: str | None = None
_new = False
_real: Any = None


def _compile(p: Any, flags: int = 0) -> Any:
    """re._compiler.compile, with what it hands the engine for a pattern kept from an
    earlier run; a pattern that does not compile raises as in `re` (nothing is kept)."""
    global _new
    if type(p) not in (str, bytes) or flags & _compiler.SRE_FLAG_DEBUG:
        return _real(p, flags)           # a parsed pattern (re.Scanner) or debugging
    key = (p, flags)
    found = _kept.get(key)
    if found is None:
        found = _kept[key] = _engine_arguments(p, flags)
        _new = True
    return _sre.compile(p, *found)


def _engine_arguments(pattern: Any, flags: int) -> tuple:
    """What re._compiler.compile passes _sre.compile after the pattern (as it does it)."""
    parsed = _parser.parse(pattern, flags)
    code = [int(word) for word in _compiler._code(parsed, flags)]   # (named constants: int)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[Any] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return (flags | parsed.state.flags, code, parsed.state.groups - 1, groupindex,
            tuple(indexgroup))


def install() -> None:
    """Use and keep the compiled patterns, unless the cache is off (or this Python's
    `re` is not the one this was written for: then `re` is left alone)."""
    global _path, _real
    from pnp.dataclass_code import folder

    base = folder()
    if base is None or _path is not None:
        return
    import atexit
    import marshal

    if sys.version_info[:2] != (3, 11) or not callable(getattr(_compiler, "_code", None)):
        return
    _path = os.path.join(base, f"re-code-{sys.implementation.cache_tag}-"
                               f"{sys.hexversion:x}-{_sre.MAGIC}.marshal")
    try:
        with open(_path, "rb") as f:
            kept = marshal.loads(f.read())      # (marshal.load reads a file piece by piece)
        if type(kept) is dict and len(kept) <= _MAX_ENTRIES:
            _kept.update(kept)
    except (OSError, EOFError, ValueError, TypeError):
        pass
    _real = _compiler.compile
    _compiler.compile = _compile
    atexit.register(_save)


def _save() -> None:
    """Write the patterns when one was new (atomically: runs may overlap)."""
    if not _new or _path is None:
        return
    import marshal

    partial = f"{_path}.{os.getpid()}"
    try:
        os.makedirs(os.path.dirname(_path), exist_ok=True)
        with open(partial, "wb") as f:
            marshal.dump(_kept, f)
        os.replace(partial, _path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(partial)
