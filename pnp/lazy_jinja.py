"""Jinja's compiler, lexer and parser loaded when a template is compiled, not when
jinja2 is imported (issue 36).

A build renders its templates from the bytecode cache (pnp.draw.templates): it never
compiles one, yet `jinja2.environment` imports jinja2.compiler, .lexer and .parser
(with .idtracking, .optimizer, .visitor and ._identifier) at its top, about a thirtieth
of a cold 80-card build. `install()` adds an import hook that runs jinja2.environment
with stand-ins for the seven names it takes from those modules: each, when first
called (`get_lexer`, `Parser`, `generate`, the code generator class), imports the real
modules and puts every real name back into jinja2.environment. Its callers then find
what they always found. Installed by the `pnp` command only (pnp.cli.process), never by
`import pnp`.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.abc import Loader as _LoaderBase
else:
    _LoaderBase = object

# what jinja2.environment takes from the modules it needs only to compile a template
LATER = {"jinja2.compiler": ("CodeGenerator", "generate"),
         "jinja2.lexer": ("get_lexer", "Lexer", "TokenStream"),
         "jinja2.parser": ("Parser",)}


class _Later:
    """Stands for `module.name` in jinja2.environment until first called."""

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        load()
        return getattr(sys.modules[self.module], self.name)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<{self.module}.{self.name}, loaded when first called>"


def load() -> None:
    """Import the real modules and put their names into jinja2.environment (and the
    Environment's default code generator class) where a stand-in still is."""
    environment = sys.modules["jinja2.environment"]
    for module, names in LATER.items():
        real = importlib.import_module(module)
        for name in names:
            if isinstance(vars(environment).get(name), _Later):
                setattr(environment, name, getattr(real, name))
    cls = environment.Environment
    if isinstance(vars(cls).get("code_generator_class"), _Later):
        cls.code_generator_class = sys.modules["jinja2.compiler"].CodeGenerator


class _Finder:
    """Finds jinja2.environment as Python would, and runs it with the stand-ins. A
    finder and a loader need only their methods: importlib.abc (whose import brings
    importlib.resources, about 1.4% of a cold 80-card build) is not needed to be one."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != "jinja2.environment":
            return None
        sys.meta_path.remove(self)                      # once: the real finders from here
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _Loader(spec.loader)
        return spec


class _Loader(_LoaderBase):
    def __init__(self, loader: Any):
        self.loader = loader

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        stand_ins = {}
        for name, names in LATER.items():
            if name not in sys.modules:
                stand_in = stand_ins[name] = types.ModuleType(name)
                for attribute in names:
                    setattr(stand_in, attribute, _Later(name, attribute))
        sys.modules.update(stand_ins)
        try:
            self.loader.exec_module(module)
        finally:
            for name, stand_in in stand_ins.items():
                if sys.modules.get(name) is stand_in:
                    del sys.modules[name]


def install() -> None:
    """Defer Jinja's compiler, unless jinja2 is loaded already."""
    if "jinja2.environment" in sys.modules or any(isinstance(f, _Finder)
                                                  for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _Finder())
