"""XO! setup (XO-1) and the table summary. Pure: the card database and the RNG come in.

Characters are picked after setup (the roster starts empty); the turn's phase stays
"setup" until then."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from referee.dice import roll_mask
from referee.errors import UsageError

if TYPE_CHECKING:
    from carddb.model import Database

GAME_ID = "xo"
TITLE = "XO!"
LEAGUES = ("heroes", "villains")
CHAPTERS = 7  # XO-12


def new_state(
    players: list[str],
    db: Database,
    rng: random.Random,
    *,
    seed: int | str | None = None,
    **unknown: Any,
) -> dict:
    """A new game: players[0] plays the Heroes League, players[1] the Villains League."""
    if unknown:
        raise UsageError(f"XO! has no setup option {', '.join(sorted(unknown))}")
    game = db.xo
    names = [p.strip() for p in players]
    if any(not n for n in names):
        raise UsageError("a player name is empty")
    if len(names) != 2 or not game.min_players <= 2 <= game.max_players:
        raise UsageError(f"XO! is for exactly 2 players (heroes, villains), not {len(names)}")
    if names[0].casefold() == names[1].casefold():
        raise UsageError(f"player names must differ: {', '.join(names)}")
    first, rounds = first_player(rng)
    return {
        "game": GAME_ID,
        "seed": seed,
        "players": names,
        "leagues": {"heroes": names[0], "villains": names[1]},
        "roster": {"heroes": [], "villains": []},
        "chapter": 1,
        "won": {},
        "thwart_bonus": None,
        "turn": {"number": 1, "active": first, "phase": "setup"},
        "over": False,
        "winner": None,
        "setup": {"first_player_rolls": rounds},
    }


def first_player(rng: random.Random) -> tuple[str, list[dict[str, int]]]:
    """XO-1: one mask die each (heroes white, villains black); ties are rerolled."""
    rounds: list[dict[str, int]] = []
    while True:
        heroes, villains = roll_mask(2, rng)
        rounds.append({"heroes": heroes, "villains": villains})
        if heroes != villains:
            return ("heroes" if heroes > villains else "villains"), rounds


def setup_summary(state: dict) -> str:
    """One line telling the setup rolls (for the log)."""
    rounds = state.get("setup", {}).get("first_player_rolls", [])
    rolls = " | reroll ".join(f"heroes {r['heroes']}, villains {r['villains']}" for r in rounds)
    active = state["turn"]["active"]
    return (
        f"XO! heroes {state['leagues']['heroes']} vs villains {state['leagues']['villains']}; "
        f"first player mask die: {rolls} -> {active} ({state['leagues'][active]}) "
        f"is active on turn 1 (XO-1)"
    )


def status_lines(state: dict) -> list[str]:
    turn = state["turn"]
    leagues = state["leagues"]
    active = turn["active"]
    lines = [
        f"{TITLE}: chapter {state['chapter']} of {CHAPTERS}; turn {turn['number']}, "
        f"{active} ({leagues[active]}) active, {turn['phase']} phase"
    ]
    for league in LEAGUES:
        chapters = sorted((int(c) for c, who in state["won"].items() if who == league))
        won = ", ".join(map(str, chapters)) if chapters else "none"
        lines.append(f"{league.capitalize()} ({leagues[league]}): chapters won {won}")
        roster = state["roster"][league]
        if not roster:
            lines.append("  no characters picked yet")
        for character in roster:
            tags = f" [{', '.join(character['statuses'])}]" if character["statuses"] else ""
            ko = " KOd" if character["ko"] else ""
            lines.append(f"  {character['name']}{ko}{tags}")
    bonus = state.get("thwart_bonus")
    if bonus:
        lines.append(
            f"Thwart bonus: +2 for {bonus['league']} on its feat attempt on turn {bonus['turn']} (XO-14)"
        )
    if state.get("over"):
        lines.append(f"Game over: {state.get('winner') or 'no winner'} wins (XO-15)")
    return lines
