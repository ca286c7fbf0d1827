"""What `referee play` asks in a game of Toy: a pure function of the state."""

from __future__ import annotations

from typing import Any

from referee.play.walk import Question


def question(state: dict, ctx: Any, answered: set) -> Question | None:
    """Enter scores 1 for the player to score; a typed number scores that many."""
    if state["over"]:
        return None  # the game is over: play takes commands only
    who = state["next"]
    return Question(f"{who} scores how many (1-3)? [1]", ["toy", "score", who, "1"],
                    lambda text: ["toy", "score", who, text.strip()])


def names(state: dict, ctx: Any) -> list[str]:
    return list(state["players"])


def turn(state: dict) -> tuple[str, bool]:
    return state["next"], state["over"]
