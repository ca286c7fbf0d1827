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

from typing import Any

from pnp.artefacts.artefact import Artefact
from pnp.artefacts.kinds.base import Kind
from pnp.plugins import ModuleRegistry

__all__ = ["Kind", "artefacts_of", "kind", "register", "registered", "registry",
           "reserved_deck_ids", "unregister"]


def _check_reserves(kinds) -> None:
    """Two kinds reserving one stem would write one file: refused."""
    owner: dict[str, str] = {}
    for k in kinds:
        for stem in k.reserves:
            if owner.setdefault(stem, k.name) != k.name:
                raise ValueError(f"artefact kinds {owner[stem]} and {k.name} both reserve "
                                 f"{stem!r}")


_KINDS = ModuleRegistry(__name__, __path__, "KIND", Kind,
                        order=lambda name, k: (k.order, name), check=_check_reserves,
                        group="pnp_referee.artefact_kinds")


def registry() -> dict[str, Kind]:
    """Every kind by name, in build order (`order`, then name): this package's modules,
    then registered ones."""
    return _KINDS.entries()


def register(new: Kind) -> None:
    """Add a kind defined outside this package (replacing one of the same name)."""
    _KINDS.register(new)


def unregister(name: str) -> None:
    """Drop a kind `register` added."""
    _KINDS.unregister(name)


def registered() -> tuple[str, ...]:
    """The names of the kinds `register` added (sorted): what a build's run key holds
    beside its options, so that a build with another set of kinds is not taken for an
    unchanged one (pnp.artefacts.incremental)."""
    return _KINDS.registered()


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
