"""Rules plug-ins: the checks of one game's rules, attached to a game in cards.yaml by
`rules: ID`. The generic validation (carddb.validate) knows only what a game declares
(its card types and fields); a plug-in adds what the rules say on top:

- `field_types`: field types the game's declarations may use (an effects vocabulary);
- `game_fields`: game-level keys it requires or constrains (`(required, optional)` specs
  that replace the generic ones);
- `check_game(game, path, pos, report)`: game-level checks (a mask die's faces);
- `check_cards(game, cards, path, report)`: checks across the cards (references between
  cards, deck sizes); `cards` is a list of (card, path, pos, deck id) of cards whose
  fields were checked.

Only plug-ins name the card types of their game.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

# rules id -> module holding RULES
REGISTRY = {"xo": "carddb.rules.xo", "x-statix": "carddb.rules.xstatix"}


def _nothing(*args: Any) -> None:
    return None


@dataclass(frozen=True)
class Rules:
    """A rules plug-in: the field types it adds and its checks of a game and its cards."""

    id: str
    field_types: dict[str, Any] = field(default_factory=dict)
    game_fields: tuple[dict, dict] = ({}, {})
    check_game: Any = _nothing
    check_cards: Any = _nothing


def load(rules_id: str) -> Rules:
    return importlib.import_module(REGISTRY[rules_id]).RULES


