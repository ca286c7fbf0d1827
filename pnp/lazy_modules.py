"""Modules loaded when first used rather than when imported: the `pnp` command's own
speed-up (pnp.cli.process), never `import pnp`'s (issue 36 item 6).

`lazy(name)` puts a module in sys.modules whose code runs at the first read of an
attribute it does not have yet (`_LazyModule.__getattr__`), in that same module object,
which is then an ordinary module: an `import name` at a library's top costs nothing until
the module is used, and every holder of it then has the real module. It carries its spec
from the start, because Python's import statement reads `__spec__` of a module it finds
in sys.modules (importlib.util.LazyLoader runs the module on that read, so
`import tempfile` would load it at once). A name a library takes with `from name import
f` at its top is `deferred`: the lazy module holds a stand-in for it (`_Deferred`) that
runs the module when first called and then calls the real `f`.

`install()` makes lazy the standard library modules a build imports but seldom uses
(STDLIB):

- `tempfile`: ReportLab's reportlab.lib.rltempfile and jinja2.bccache import it at their
  top, and it imports shutil, random, bz2 and lzma (about a thirtieth of an edit build's
  imports); a build uses it only when its plan store spills (pnp.draw.plan_cache) or art
  is written (pnp.draw.art), where it then loads as before.
- `inspect`: `dataclasses` imports it (to word the docstring of a class that has none),
  jinja2.nodes too, and jinja2.filters takes `getattr_static` (for the `attr` filter);
  it imports dis, tokenize and linecache and runs them (ast, which it imports as well,
  ReportLab's rl_safe_eval loads anyway): about 3 % of an edit build's instructions.
- `ipaddress`: urllib.parse imports it at its top (pathlib imports that), to check the
  host of a URL in brackets; a build parses no URL. The entry point installs these before
  it imports pathlib (pnp.cli.entry).
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

# module -> the names libraries take from it at import (`from inspect import ...`)
STDLIB: dict[str, tuple[str, ...]] = {"tempfile": (), "inspect": ("getattr_static",),
                                      "ipaddress": ()}


def lazy(name: str, deferred: tuple[str, ...] = ()) -> ModuleType | None:
    """`name` made a lazy module in sys.modules (returned), holding a stand-in for each
    of `deferred`; None, doing nothing, when it is loaded already, missing, or its
    loader cannot run it in a module made beforehand."""
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
    for attr in deferred:
        setattr(module, attr, _Deferred(module, attr))
    sys.modules[name] = module
    return module


def _load(module: ModuleType) -> None:
    """Run a lazy module's code in it (once); it is an ordinary module from then on
    (and while it runs: a module may read its own attributes)."""
    if type(module) is not _LazyModule:
        return
    spec = module.__spec__
    assert spec is not None and spec.loader is not None       # (lazy() made it so)
    module.__class__ = ModuleType  # type: ignore[assignment]
    spec.loader.exec_module(module)


class _LazyModule(ModuleType):
    """A module whose code has not run yet: it runs at the first attribute missing. A
    module that is no package has no `__path__`, which `from name import f` asks first."""

    def __getattr__(self, attr: str) -> object:
        spec = self.__spec__
        if attr == "__path__" and spec is not None and spec.submodule_search_locations is None:
            raise AttributeError(attr)
        _load(self)
        return getattr(self, attr)


class _Deferred:
    """Stands for `module.name`, taken before the module ran: the first call runs it
    (the module's own definition then replaces this one in it); every call is the real
    function's."""

    def __init__(self, module: ModuleType, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        _load(self.module)
        real = vars(self.module)[self.name]
        if real is self:
            raise AttributeError(f"module {self.module.__name__!r} has no {self.name!r}")
        return real(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<{self.module.__name__}.{self.name}, loaded when first called>"


def install() -> None:
    """Make the modules of STDLIB lazy (those not loaded yet)."""
    for name, deferred in STDLIB.items():
        lazy(name, deferred)
