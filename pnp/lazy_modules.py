"""Modules loaded when first used rather than when imported: the `pnp` command's own
speed-up (pnp.cli.process), never `import pnp`'s (issue 36 item 6).

`lazy(name)` puts a module in sys.modules whose code runs at the first read of an
attribute it does not have yet (`_LazyModule.__getattr__`), in that same module object,
which is then an ordinary module: an `import name` at a library's top costs nothing until
the module is used, and every holder of it then has the real module. It carries its spec
from the start, because Python's import statement reads `__spec__` of a module it finds
in sys.modules (importlib.util.LazyLoader runs the module on that read, so
`import tempfile` would load it at once). `install()` makes lazy the standard
library modules a build imports but seldom uses:

- `tempfile`: ReportLab's reportlab.lib.rltempfile and jinja2.bccache import it at their
  top, and it imports shutil, random, bz2 and lzma (about a thirtieth of an edit build's
  imports); a build uses it only when its plan store spills (pnp.draw.plan_cache) or art
  is written (pnp.draw.art), where it then loads as before.
"""

from __future__ import annotations

import sys
from types import ModuleType

STDLIB = ("tempfile",)


def lazy(name: str) -> ModuleType | None:
    """`name` made a lazy module in sys.modules (returned), unless it is loaded already,
    missing, or its loader cannot run lazily (None)."""
    if name in sys.modules:
        return None
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except ImportError:
        return None
    if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
        return None
    module = importlib.util.module_from_spec(spec)
    module.__class__ = _LazyModule
    sys.modules[name] = module
    return module


class _LazyModule(ModuleType):
    """A module whose code has not run yet: it runs at the first attribute missing."""

    def __getattr__(self, attr: str) -> object:
        spec = self.__spec__
        if spec is None or spec.loader is None:
            raise AttributeError(attr)
        # ordinary from now on, and while it runs (a module may change its class so)
        self.__class__ = ModuleType  # type: ignore[assignment]
        spec.loader.exec_module(self)
        return getattr(self, attr)


def install() -> None:
    """Make the modules of STDLIB lazy (those not loaded yet)."""
    for name in STDLIB:
        lazy(name)
