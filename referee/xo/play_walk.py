"""XO!'s entry in the game contract for `referee play` (referee/games.py): the walk's
questions (referee/play/walk.py: `xo_question`) and what Tab completes."""

from __future__ import annotations

from typing import Any


def question(state: dict, ctx: Any, answered: set) -> Any:
    from referee.play.walk import xo_question

    return xo_question(state, answered)


def names(state: dict, ctx: Any) -> list[str]:
    """The players and the characters of both rosters."""
    found: list[str] = list(state.get("players", []))
    for league in state.get("roster", {}).values():
        found += [c["name"] for c in league]
    return found
