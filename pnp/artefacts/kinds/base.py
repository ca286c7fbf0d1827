"""What an artefact kind declares (`Kind`): its name, its place in the build order,
the file stems it reserves beside a game's decks, and four functions:

    artefacts(game_id, game) -> [Artefact]   what it contributes for one game, in order
    units(db, art) -> int                    progress steps of one artefact (default 1)
    check(db, art) -> None                   checks before drawing (default none)
    draw(db, art, opts, renderer, fonts, target, result, step) -> None

`draw` writes the artefact's PDF to `target` (a path or a file object) through
`pnp.draw.pdf.open_canvas`, records its pages in `result` (a `Written`: pages, cards,
warnings, and the layout report through `pnp.artefacts.sheet.Pages`) and calls
`step(n)` as it goes; it raises `BuildError` for a refusal. Every artefact a kind
contributes has `kind=` its name, and a file stem that is a deck id or one it reserves
(so a deck can never take its file: pnp.artefacts.kinds.reserved_deck_ids).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pnp.artefacts.artefact import Artefact


def one_unit(db: Any, art: Artefact) -> int:
    """The progress of an artefact drawn in one step."""
    return 1


def no_check(db: Any, art: Artefact) -> None:
    """Nothing to check before drawing."""


@dataclass(frozen=True)
class Kind:
    """A kind of artefact: which artefacts a game has of it, and how one is drawn."""
    name: str                 # Artefact.kind; the module's name, `-` for `_`
    order: int                # build order within a game: lower first
    artefacts: Callable[[str, Any], list[Artefact]]
    draw: Callable[..., None]
    reserves: tuple[str, ...] = ()      # file stems no deck id may take
    units: Callable[[Any, Artefact], int] = one_unit
    check: Callable[[Any, Artefact], None] = no_check
