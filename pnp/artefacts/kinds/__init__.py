"""The kinds of artefact `pnp build` writes, one module each (`pnp/artefacts/kinds/
<name>.py`, a `-` in the kind's name a `_` in the module's, defining `KIND`, a
`base.Kind`): decks, mats at full size and tiled, dice labels, tokens, the reference
card and the duplex calibration sheet. A new kind is one new module here;
`register(kind)` adds one from elsewhere (a plug-in, a test). pnp.artefacts.build asks
this registry which artefacts a game has and how each is checked and drawn; the stems
the kinds reserve are the deck ids carddb.load refuses (`reserved_deck_ids()`).
docs/ARCHITECTURE.md, "Adding an artefact kind", walks through one.

    kinds = registry()                    # {name: Kind}, in build order
    arts = artefacts_of("xo", db.games["xo"])
    kind(art.kind).draw(db, art, opts, renderer, fonts, target, result, step)

Light at import, as are the kinds' modules: their drawing imports happen when they draw.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from pnp.artefacts.artefact import Artefact
from pnp.artefacts.kinds.base import Kind

__all__ = ["Kind", "artefacts_of", "kind", "register", "registered", "registry",
           "reserved_deck_ids", "unregister"]

_SHARED = {"base"}      # modules of this package that are not kinds
_REGISTRY: dict[str, Kind] = {}
_EXTRA: dict[str, Kind] = {}


def registry() -> dict[str, Kind]:
    """Every kind by name, in build order (`order`, then name): this package's modules,
    then registered ones."""
    if not _REGISTRY:
        found: dict[str, Kind] = {}
        for info in pkgutil.iter_modules(__path__):
            if info.name in _SHARED or info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{__name__}.{info.name}")
            found_kind = getattr(module, "KIND", None)
            name = info.name.replace("_", "-")
            if not isinstance(found_kind, Kind) or found_kind.name != name:
                raise ImportError(f"{module.__name__} must define KIND = Kind({name!r}, ...)")
            found[name] = found_kind
        found.update(_EXTRA)
        _check_reserves(found.values())
        _REGISTRY.update(sorted(found.items(), key=lambda item: (item[1].order, item[0])))
    return _REGISTRY


def _check_reserves(kinds) -> None:
    """Two kinds reserving one stem would write one file: refused."""
    owner: dict[str, str] = {}
    for k in kinds:
        for stem in k.reserves:
            if owner.setdefault(stem, k.name) != k.name:
                raise ValueError(f"artefact kinds {owner[stem]} and {k.name} both reserve "
                                 f"{stem!r}")


def register(new: Kind) -> None:
    """Add a kind defined outside this package (replacing one of the same name)."""
    if not isinstance(new, Kind):
        raise TypeError(f"not a Kind: {new!r}")
    _EXTRA[new.name] = new
    _REGISTRY.clear()


def unregister(name: str) -> None:
    """Drop a kind `register` added."""
    _EXTRA.pop(name, None)
    _REGISTRY.clear()


def registered() -> tuple[str, ...]:
    """The names of the kinds `register` added (sorted): what a build's run key holds
    beside its options, so that a build with another set of kinds is not taken for an
    unchanged one (pnp.artefacts.incremental)."""
    return tuple(sorted(_EXTRA))


def kind(name: str) -> Kind:
    """The kind of that name (an `Artefact.kind`); LookupError for none."""
    found = registry().get(name)
    if found is None:
        raise LookupError(f"no artefact kind {name!r} (known: {', '.join(registry())})")
    return found


def artefacts_of(game_id: str, game: Any) -> list[Artefact]:
    """What every kind contributes for one game, in build order."""
    return [art for k in registry().values() for art in k.artefacts(game_id, game)]


def reserved_deck_ids() -> tuple[str, ...]:
    """The file stems the kinds write beside a game's decks: what pnp passes to
    `carddb.load(path, reserved=...)`, so that no deck's PDF takes an artefact's file
    (carddb knows no pnp names)."""
    return tuple(stem for k in registry().values() for stem in k.reserves)
