"""The game registry: game id -> rules module (imported only when needed)."""

from __future__ import annotations

import importlib
from types import ModuleType

from referee.errors import UsageError

MODULES = {"xo": "referee.xo.game", "x-statix": "referee.xs.game"}
TITLES = {"xo": "XO!", "x-statix": "X-Statix"}
ALIASES = {"xs": "x-statix", "xstatix": "x-statix", "x_statix": "x-statix", "xo!": "xo"}


def canonical(game_id: str) -> str:
    """ "xo" or "x-statix" for any accepted spelling; UsageError otherwise."""
    key = game_id.strip().lower()
    key = ALIASES.get(key, key)
    if key not in MODULES:
        raise UsageError(f"unknown game {game_id!r}: choose xo or x-statix")
    return key


def module(game_id: str) -> ModuleType:
    return importlib.import_module(MODULES[canonical(game_id)])


def title(game_id: str) -> str:
    return TITLES.get(game_id, game_id)
