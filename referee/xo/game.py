"""XO! setup (XO-1, the Resource stacks of setup step 4) and the table summary. Pure:
the card database and the RNG come in.

Characters are picked after setup (the roster starts empty); the turn's phase stays
"setup" until then."""

from __future__ import annotations

import random
from collections.abc import Iterable
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
    game = db.games["xo"]
    names = [p.strip() for p in players]
    if any(not n for n in names):
        raise UsageError("a player name is empty")
    if len(names) != 2 or not game.min_players <= 2 <= game.max_players:
        raise UsageError(f"XO! is for exactly 2 players (heroes, villains), not {len(names)}")
    if names[0].casefold() == names[1].casefold():
        raise UsageError(f"player names must differ: {', '.join(names)}")
    first, rounds = first_player(rng)
    stacks = deal_resource_stacks(((c.name, c["stack"], c.copies) for c in game.cards(type="Resource")), rng)
    state: dict[str, Any] = {
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
        "hands": {"heroes": 0, "villains": 0},  # cards in hand (XO-10)
        "energy": {"heroes": 0, "villains": 0},  # Energy played this turn, not yet spent
        "resources": stacks,  # setup step 4: each stack top first, the top card face up
    }
    from referee.xo.play import XoCards, refresh

    return refresh(state, XoCards.from_db(db))


def first_player(rng: random.Random) -> tuple[str, list[dict[str, int]]]:
    """XO-1: one mask die each (heroes white, villains black); ties are rerolled."""
    rounds: list[dict[str, int]] = []
    while True:
        again = " again (a tie)" if rounds else ""
        heroes = roll_mask(1, rng, f"the heroes' first-player roll{again} (White Mask)")[0]
        villains = roll_mask(1, rng, f"the villains' first-player roll{again} (Black Mask)")[0]
        rounds.append({"heroes": heroes, "villains": villains})
        if heroes != villains:
            return ("heroes" if heroes > villains else "villains"), rounds


def deal_resource_stacks(
    resources: Iterable[tuple[str, str, int]], rng: random.Random
) -> dict[str, list[str]]:
    """Setup step 4: the Resource cards ((name, stack, copies)) separated into the four
    stacks NPCs, Powers, Tech and Upgrades, each shuffled; index 0 is the top card, the
    one flipped face up. Dealt after the first-player roll so that roll keeps its dice."""
    from referee.xo.rules import RESOURCE_STACKS
    stacks: dict[str, list[str]] = {stack: [] for stack in RESOURCE_STACKS}
    for name, stack, copies in resources:
        stacks[stack].extend([name] * copies)
    for stack in RESOURCE_STACKS:
        rng.shuffle(stacks[stack])
    return stacks


def setup_summary(state: dict) -> str:
    """One line telling the setup rolls (for the log)."""
    rounds = state.get("setup", {}).get("first_player_rolls", [])
    rolls = " | reroll ".join(f"heroes {r['heroes']}, villains {r['villains']}" for r in rounds)
    active = state["turn"]["active"]
    return (
        f"XO! heroes {state['leagues']['heroes']} vs villains {state['leagues']['villains']}; "
        f"first player mask die: {rolls} -> {active} ({state['leagues'][active]}) "
        f"is active on turn 1 (XO-1); {resources_line(state)}"
    )


def resources_line(state: dict) -> str:
    """The four face-up Resources (setup step 4)."""
    from referee.xo import rules  # imported when needed, like referee.xo.play in new_state

    shown = rules.face_up_resources(state.get("resources") or {})
    cards = ", ".join(f"{label} {shown[stack] or '(empty)'}" for stack, label in rules.RESOURCE_STACKS.items())
    return f"Resources face up ({rules.RESOURCE_RULE}): {cards}"


def status_lines(state: dict) -> list[str]:
    """The table: turn and phase, score, the current chapter's objectives, both leagues'
    characters with statuses and readiness (XO-9), hands and Energy pools, the face-up
    Resources, this turn's feat, the thwart bonus."""
    won = state["won"]
    points = {lg: sum(1 for who in won.values() if who == lg) for lg in LEAGUES}
    lines = _turn_lines(state, points)
    if not state.get("over"):
        lines.extend(_objective_lines(state))
    for league in LEAGUES:
        lines.extend(_league_lines(state, league))
    lines.extend(_attack_phase_lines(state))
    if "resources" in state:
        lines.append(resources_line(state))
    lines.extend(_feat_lines(state))
    lines.extend(_game_over_lines(state, points))
    return lines


def _turn_lines(state: dict, points: dict[str, int]) -> list[str]:
    """The chapter, turn, active player and phase; the score (XO-15)."""
    turn = state["turn"]
    leagues = state["leagues"]
    active = turn["active"]
    chapter = state["chapter"]
    lines = [
        f"{TITLE}: chapter {chapter} of {CHAPTERS}; turn {turn['number']}, "
        f"{active} ({leagues[active]}) active, {turn['phase']} phase"
        + (" (picking characters)" if turn["phase"] == "setup" else "")
    ]
    lines.append(f"Score (XO-15): heroes {points['heroes']}, villains {points['villains']}")
    return lines


def _objective_lines(state: dict) -> list[str]:
    """The current chapter's objectives, one per league (XO-12)."""
    chapter = state["chapter"]
    objectives = state.get("objectives") or {}
    lines = [f"Objectives of chapter {chapter} (XO-12):"]
    for league in LEAGUES:
        objective = objectives.get(league)
        if objective:
            need = ", ".join(f"{k} {v}" for k, v in objective["requires"].items())
            lines.append(
                f"  {league}: {objective['name']} - {objective['feat']} ({need}), "
                f"FCV {objective['fcv']}, TCV {objective['tcv']}"
            )
    return lines


def _league_lines(state: dict, league: str) -> list[str]:
    """One league: chapters won, hand and Energy pool, then its characters."""
    leagues = state["leagues"]
    won = state["won"]
    hands = state.get("hands") or {}
    energy = state.get("energy") or {}
    chapters = sorted(int(c) for c, who in won.items() if who == league)
    hand = f"; {hands[league]} cards in hand" if league in hands else ""
    hand += f"; Energy pool {energy[league]}" if league in energy else ""
    lines = [
        f"{league.capitalize()} ({leagues[league]}): chapters won "
        f"{', '.join(map(str, chapters)) or 'none'}{hand}"
    ]
    roster = state["roster"][league]
    if not roster:
        lines.append("  no characters picked yet")
    attacked = state["turn"].get("attacked") or []
    lines.extend(_character_line(character, attacked) for character in roster)
    return lines


def _character_line(character: dict, attacked: list[str]) -> str:
    """A character: KOd and out of play, or its statuses and readiness (XO-9)."""
    if character["ko"]:
        return f"  {character['name']}: KOd, out of play"
    ready = character.get("ready")
    tags = f" [{', '.join(character['statuses'])}]" if character["statuses"] else ""
    shown = "" if ready is None else (": ready" if ready else ": not ready")
    if character["name"] in attacked:
        shown += ", has attacked this turn"
    return f"  {character['name']}{tags}{shown}"


def _attack_phase_lines(state: dict) -> list[str]:
    """In the Attack phase: who attacked and who is still ready to attack (XO-9)."""
    turn = state["turn"]
    if turn["phase"] != "Attack" or state.get("over"):
        return []
    active = turn["active"]
    attacked = turn.get("attacked") or []
    can = [c["name"] for c in state["roster"][active] if c.get("ready") and c["name"] not in attacked]
    return [f"Attack phase: {active} attacked with {', '.join(attacked) or 'nobody yet'}; "
            f"ready to attack: {', '.join(can) or 'nobody'} (XO-9)"]


def _feat_lines(state: dict) -> list[str]:
    """This turn's feat (XO-13) and whether it may be or was thwarted (XO-14); the thwart
    bonus (XO-14)."""
    active = state["turn"]["active"]
    feat = state["turn"].get("feat")
    lines: list[str] = []
    if feat:
        if feat.get("pending"):
            lines.append(f"Feat: {feat['character']} succeeded ({feat['total']}); the {_other(active)} may thwart (XO-14)")
        elif feat.get("thwarted"):
            lines.append(f"Feat: {feat['character']} succeeded ({feat['total']}) but was thwarted (XO-14)")
        elif not feat.get("success"):
            lines.append(f"Feat: {feat['character']} failed ({feat['total']}) (XO-13)")
    bonus = state.get("thwart_bonus")
    if bonus:
        lines.append(
            f"Thwart bonus: +2 for {bonus['league']} on their feat attempt on turn {bonus['turn']} (XO-14)"
        )
    return lines


def _game_over_lines(state: dict, points: dict[str, int]) -> list[str]:
    """The end: a draw (XO-16 stalemate) or the winner, by every chapter played (XO-15),
    by 4 chapters (XO-21) or by stalemate (XO-16)."""
    if not state.get("over"):
        return []
    won = state["won"]
    if state.get("winner") is None:
        return [f"Game over: a draw {points['heroes']}-{points['villains']} (XO-16 stalemate)"]
    winner = state["winner"]
    why = ("XO-15" if len(won) == CHAPTERS else "XO-21" if points[winner] >= 4
           else "XO-16 stalemate")
    return [f"Game over: the {winner} win {points[winner]}-{points[_other(winner)]} "
            f"({why})"]


def _other(league: str) -> str:
    return "villains" if league == "heroes" else "heroes"


def public_state(state: dict) -> dict:
    """The state as the whole table may see it: everything but the seed (the players hold
    their cards: the state keeps only counts of the hands) and the order of the Resource
    stacks below their face-up top cards, which the referee shuffled (each face-down card
    is "?", so a stack still shows how many it holds). `over` and `winner` as every
    game's: `winner` the list of the winning players' names (none for a draw, XO-16; null
    while the game goes on), the winning league as `winning_league` (issue 29)."""
    shown = {k: v for k, v in state.items() if k != "seed"}
    league = state.get("winner")
    shown["over"] = bool(state.get("over"))
    shown["winner"] = ([state["leagues"][league]] if league else []) if state.get("over") else None
    shown["winning_league"] = league
    stacks = state.get("resources")
    if isinstance(stacks, dict):
        shown["resources"] = {name: stack[:1] + ["?"] * (len(stack) - 1)
                              if isinstance(stack, list) else stack
                              for name, stack in stacks.items()}
    return shown
