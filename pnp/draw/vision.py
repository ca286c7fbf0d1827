"""Colour vision: the colours that tell a game's kinds apart, checked under simulated
deuteranopia, protanopia and tritanopia, and images as seen with each
(pnp.draw.colour: Machado et al. 2009 at severity 1.0; CIEDE2000).

The colours checked are a game's declared ones (cards.yaml):

- `kind_colors`: set name -> kind -> colour (card types, suits, leagues...: whatever
  the templates tell apart by colour; they read them as game.extras.kind_colors);
- `tokens`: each token kind's `color`;
- `dice.sets`: each dice set's `color`.

Two colours of a set that differ for typical vision (CIEDE2000 of at least
colour.DISTINCT_DE) but not under one of the simulations are a warning naming the pair.
"""

from __future__ import annotations

import functools
from typing import Any

from pnp.draw import colour

DECK = "(colours)"          # the warnings' deck: they are about the game, not one card


def kind_colour_sets(game: Any) -> dict[str, dict[str, str]]:
    """The game's sets of colours that tell kinds apart (see the module)."""
    extras = getattr(game, "extras", {}) or {}
    sets: dict[str, dict[str, str]] = {}
    for name, kinds in (extras.get("kind_colors") or {}).items():
        if isinstance(kinds, dict):
            sets[str(name)] = {str(k): v for k, v in kinds.items() if isinstance(v, str)}
    tokens = {str(k): t["color"] for k, t in (extras.get("tokens") or {}).items()
              if isinstance(t, dict) and isinstance(t.get("color"), str)}
    if tokens:
        sets.setdefault("tokens", tokens)
    dice = {str(k): s["color"] for k, s in
            ((extras.get("dice") or {}).get("sets") or {}).items()
            if isinstance(s, dict) and isinstance(s.get("color"), str)}
    if dice:
        sets.setdefault("dice sets", dice)
    return sets


def kind_colour_warnings(game: Any, threshold: float = colour.DISTINCT_DE) -> list[Any]:
    """LayoutWarnings for pairs of kind colours that collapse under a colour vision
    deficiency: deck "(colours)", card the set's name, element the pair."""
    from pnp.draw.layout_warning import LayoutWarning

    out = []
    for name, kinds in kind_colour_sets(game).items():
        for first, second, vision, diff in _collapsing(tuple(kinds.items()), threshold):
            out.append(LayoutWarning(
                game.id, DECK, name, f"{first} / {second}",
                f"{kinds[first]} and {kinds[second]} look alike with {vision} (CIEDE2000 "
                f"{diff:.1f}, below {threshold:g}): tell them apart by another colour, "
                "or by shape or text as well"))
    return out


@functools.lru_cache(maxsize=64)
def _collapsing(kinds: tuple[tuple[str, str], ...], threshold: float) -> list:
    """colour.collapsing, once per set of colours (each artefact of a game asks)."""
    return colour.collapsing(dict(kinds), threshold)


def simulate_image(image: Any, vision: str) -> Any:
    """A PIL RGB image as seen with `vision` (colour.VISION)."""
    import numpy as np
    from PIL import Image

    rgb = np.asarray(image.convert("RGB"), dtype=np.float64) / 255
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    sim = np.clip(lin @ np.array(colour.VISION[vision]).T, 0.0, 1.0)
    enc = np.where(sim <= 0.0031308, sim * 12.92, 1.055 * sim ** (1 / 2.4) - 0.055)
    return Image.fromarray(np.round(enc * 255).astype(np.uint8), "RGB")
