"""The targets of `pnp export`, one module each (`pnp/exports/targets/<name>.py`, a `-`
in the target's name a `_` in the module's, defining `TARGET`, a `base.Target`): its
name, a one-line summary, its options (data, `base.Option`) and its `write(job,
**options)`. A new export is one new module here; `register(target)` adds one from
elsewhere (a plug-in, a test). `pnp export` mounts every target of this registry with
its options (pnp.cli.export); docs/PROOFS-AND-EXPORTS.md, "Writing an export", walks
through one.

    targets = registry()                  # {name: Target}, sorted by name
    result = targets["png"].write(Job(db, out), dpi=300)
"""

from __future__ import annotations

import importlib
import pkgutil

from pnp.exports.targets.base import Job, Option, Target

__all__ = ["Job", "Option", "Target", "register", "registry", "unregister"]

_SHARED = {"base"}      # modules of this package that are not targets
_REGISTRY: dict[str, Target] = {}
_EXTRA: dict[str, Target] = {}


def registry() -> dict[str, Target]:
    """Every target by name (sorted): this package's modules, then registered ones."""
    if not _REGISTRY:
        found: dict[str, Target] = {}
        for info in pkgutil.iter_modules(__path__):
            if info.name in _SHARED or info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{__name__}.{info.name}")
            target = getattr(module, "TARGET", None)
            name = info.name.replace("_", "-")
            if not isinstance(target, Target) or target.name != name:
                raise ImportError(f"{module.__name__} must define TARGET = Target({name!r}, ...)")
            found[name] = target
        found.update(_EXTRA)
        _REGISTRY.update(sorted(found.items()))
    return _REGISTRY


def register(target: Target) -> None:
    """Add a target defined outside this package (replacing one of the same name)."""
    if not isinstance(target, Target):
        raise TypeError(f"not a Target: {target!r}")
    _EXTRA[target.name] = target
    _REGISTRY.clear()


def unregister(name: str) -> None:
    """Drop a target `register` added."""
    _EXTRA.pop(name, None)
    _REGISTRY.clear()
