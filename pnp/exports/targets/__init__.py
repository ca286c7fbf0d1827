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

from pnp.exports.targets.base import Job, Option, Target
from pnp.plugins import ModuleRegistry

__all__ = ["Job", "Option", "Target", "register", "registry", "unregister"]

_TARGETS = ModuleRegistry(__name__, __path__, "TARGET", Target, group="pnp_referee.exports")


def registry() -> dict[str, Target]:
    """Every target by name (sorted): this package's modules, then registered ones."""
    return _TARGETS.entries()


def register(target: Target) -> None:
    """Add a target defined outside this package (replacing one of the same name)."""
    _TARGETS.register(target)


def unregister(name: str) -> None:
    """Drop a target `register` added."""
    _TARGETS.unregister(name)
