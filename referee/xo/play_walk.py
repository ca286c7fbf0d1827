"""XO!'s entry in the game contract for `referee play` (referee/games.py): the walk's
questions (referee/play/walk.py: `xo_question`), the card context they read (each league's
characters, for the picks of set-up step 3) and what Tab completes."""

from __future__ import annotations

from typing import Any


class XoRoster:
    """Each league's Character cards by name, in the database's order: what a league may
    pick at set-up (rules: setup 3), for Tab and for abbreviated picks."""

    def __init__(self, db: Any) -> None:
        self.characters: dict[str, tuple[str, ...]] = {
            league: tuple(c.name for c in db.games["xo"].cards(type="Character")
                          if c["league"] == league)
            for league in ("heroes", "villains")}


def context(db: Any, state: dict) -> XoRoster | None:
    return XoRoster(db) if "xo" in db.games else None


def question(state: dict, ctx: Any, answered: set) -> Any:
    from referee.play.walk import xo_question

    return xo_question(state, answered, ctx)


def names(state: dict, ctx: Any) -> list[str]:
    """The players and the characters of both rosters; at set-up, the characters the
    picking league may still pick (not the other league's)."""
    found: list[str] = list(state.get("players", []))
    for league in state.get("roster", {}).values():
        found += [c["name"] for c in league]
    if ctx is not None and state.get("turn", {}).get("phase") == "setup":
        found += question(state, ctx, set()).names
    return found
