"""One registry of the kind pnp's extension points share: drawing elements
(pnp.draw.elements), artefact kinds (pnp.artefacts.kinds) and export targets
(pnp.exports.targets). Each entry is one module of the package, defining an attribute
(`ELEMENT`, `KIND`, `TARGET`) named after the module (a `-` in the entry's name is a
`_` in the module's); `register()` adds one defined elsewhere (a test, a script), and
an installed package adds one through its entry-point group (`pnp_referee.elements`,
`pnp_referee.artefact_kinds`, `pnp_referee.exports`: `name = module:ATTRIBUTE`, see
docs/PLUGINS.md). Modules are imported when the registry is first asked, not before;
a plug-in that cannot load is left out with one line (carddb.entry_points)."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable
from typing import Any, Protocol


class Named(Protocol):
    """What every registry entry has: the name it is registered and chosen by."""

    @property
    def name(self) -> str: ...


class ModuleRegistry:
    """The entries of one package, by name, in `order` (default: by name)."""

    def __init__(self, package: str, path: Iterable[str], attribute: str, entry_type: type[Named],
                 shared: Iterable[str] = ("base",), dashes: bool = True,
                 order: Callable[[str, Any], Any] | None = None,
                 check: Callable[[Iterable[Any]], None] | None = None,
                 group: str | None = None):
        self.package = package
        self.path = list(path)
        self.attribute = attribute
        self.entry_type = entry_type
        self.shared = frozenset(shared)   # modules of the package that are not entries
        self.dashes = dashes              # module some_name holds the entry some-name
        self.order = order or (lambda name, entry: name)
        self.check = check                # called with every entry: raises if they clash
        self.group = group                # the entry-point group of installed plug-ins
        self._found: dict[str, Any] = {}
        self._extra: dict[str, Any] = {}
        self._plugins: dict[str, Any] | None = None

    def entries(self) -> dict[str, Any]:
        """Every entry by name: the package's modules, then the registered ones."""
        if not self._found:
            found: dict[str, Any] = {}
            for found_name in module_names(self.path):
                if found_name in self.shared or found_name.startswith("_"):
                    continue
                module = importlib.import_module(f"{self.package}.{found_name}")
                entry = getattr(module, self.attribute, None)
                name = found_name.replace("_", "-") if self.dashes else found_name
                if not isinstance(entry, self.entry_type) or entry.name != name:
                    raise ImportError(f"{module.__name__} must define {self.attribute} = "
                                      f"{self.entry_type.__name__}({name!r}, ...)")
                found[name] = entry
            for name, entry in self.plugins().items():
                why = "the name is pnp's own" if name in found else self._clash(found, entry)
                if why:
                    _notice(f"plug-in {name!r} ({self.group}) left out: {why}")
                    continue
                found[name] = entry
            found.update(self._extra)
            if self.check is not None:
                self.check(found.values())
            self._found.update(sorted(found.items(),
                                      key=lambda item: self.order(item[0], item[1])))
        return self._found

    def _clash(self, found: dict[str, Any], entry: Any) -> str | None:
        """Why `entry` cannot join `found` (`check` refuses them together), or None."""
        if self.check is None:
            return None
        try:
            self.check([*found.values(), entry])
        except ValueError as error:
            return str(error)
        return None

    def plugins(self) -> dict[str, Any]:
        """The entries installed packages add under `group`, by name (looked up once, the
        package's own modules not imported): an entry point's name is its entry's name;
        `entries` leaves out one that takes a name of the package's own."""
        if self._plugins is None:
            self._plugins = {}
            if self.group is not None:
                from carddb.entry_points import load

                def check(name: str, entry: Any) -> None:
                    if not isinstance(entry, self.entry_type):
                        raise TypeError(f"not a {self.entry_type.__name__}: {entry!r}"[:200])
                    defined = getattr(entry, "name", None)
                    if defined != name:
                        raise ValueError(f"it defines {defined!r}, not {name!r}")

                self._plugins = dict(load(self.group, check, _notice))
        return self._plugins

    def register(self, entry: Any) -> None:
        """Add an entry defined outside the package (replacing one of the same name)."""
        if not isinstance(entry, self.entry_type):
            raise TypeError(f"not a {self.entry_type.__name__}: {entry!r}")
        self._extra[entry.name] = entry
        self._found.clear()

    def unregister(self, name: str) -> None:
        """Drop an entry `register` added."""
        self._extra.pop(name, None)
        self._found.clear()

    def registered(self) -> tuple[str, ...]:
        """The names `register` or an installed plug-in added, sorted (without importing
        the package's own modules)."""
        return tuple(sorted({*self._extra, *self.plugins()}))

    def forget(self) -> None:
        """Look for installed plug-ins again at the next question (a test)."""
        self._plugins = None
        self._found.clear()


def module_names(folders: Iterable[str]) -> list[str]:
    """The modules and packages in `folders`, as pkgutil.iter_modules names them: each
    folder's files by sorted name, a module's name its file's without a suffix Python
    imports (the longest), a package a folder of a plain name holding an `__init__`,
    `__init__` itself and a name found before left out. pkgutil finds each name through
    inspect.getmodulename, and `inspect` (with dis, tokenize, linecache) is a module a
    build otherwise never runs (pnp.lazy_modules: about 3 % of an edit build)."""
    from importlib.machinery import all_suffixes

    suffixes = sorted(all_suffixes(), key=len, reverse=True)

    def stem(file: str) -> str | None:
        return next((file[:-len(s)] for s in suffixes if file.endswith(s)), None)

    names: list[str] = []
    for folder in folders:
        try:
            files = sorted(os.listdir(folder))
        except OSError:
            continue
        for file in files:
            name = stem(file)
            if name is None and "." not in file and os.path.isdir(os.path.join(folder, file)):
                name = file if _is_package(os.path.join(folder, file), stem) else None
            if name and name != "__init__" and "." not in name and name not in names:
                names.append(name)
    return names


def _is_package(folder: str, stem: Callable[[str], str | None]) -> bool:
    try:
        return any(stem(file) == "__init__" for file in os.listdir(folder))
    except OSError:
        return False


def _notice(line: str) -> None:
    from carddb.entry_points import notice

    notice(f"notice: {line}")
