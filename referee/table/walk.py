"""The walk of a declared game (the table kit) in `referee play`: `question(state, ctx,
answered)` is what play asks next (the game contract's `walk`, referee/games.py
`TABLE_KIT`); `ctx` is the kit's `context` (referee/table/entry.py)."""

from __future__ import annotations

from typing import Any

from referee.play.walk import Question


def question(state: dict, ctx: Any, answered: set) -> Question | None:
    """The turn of the declared phases: any of the kit's commands, Enter passes on."""
    if state.get("over"):
        return None
    turn = state["turn"]
    phase = f", {turn['phase']}" if turn.get("phase") else ""
    return Question(f"{turn['player']}'s turn{phase} (roll, token, draw, ...; Enter: next) >",
                    ["next"], None)
