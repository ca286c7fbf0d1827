"""`referee roll`'s dice rolled outside a game: the answer to dice notation, and the peek
that tells when `roll N [DIE]` is a roll of a table-kit session instead. Click-free, so
that the one-shot path (referee/oneshot.py) rolls without loading click; referee/cli.py
mounts `roll` on these."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.command import Reply
from referee.errors import RefereeError

if TYPE_CHECKING:
    import random

    from referee.notation import DiceExpr

LEAGUE_DICE = {"heroes": "White Mask", "villains": "Black Mask"}  # XO-1
MASK_DICE_OWNED = 7  # XO-1: each player owns 7 mask dice of the league's set
# click.style(..., fg="red", bold=True): click's echo strips it when stdout is no terminal
MOFFED = "\x1b[31m\x1b[1mMOFFED: every mask die shows 0 (XO-5)\x1b[0m"


def seeded(seed: int | None) -> random.Random:
    """The dice of a roll: seeded (reproducible), else the system's."""
    import random

    return random.Random(seed) if seed is not None else random.SystemRandom()


def kit_roll(session: str, words: list[str]) -> bool:
    """`roll N [DIE]` (or `roll NAME`, a roll cards.yaml names) in a session of the table
    kit: the session file exists (a cheap
    test first: `referee roll 3` with no session opens nothing) and holds such a game."""
    from pathlib import Path

    named = len(words) == 1 and words[0].isascii() and words[0].isalpha()  # a named roll
    if not named and (not words or not words[0].isascii() or not words[0].isdigit()
                      or len(words) > 2):
        return False
    path = Path(session)
    if not path.is_file():
        return False
    import sqlite3

    # a peek at the latest whole state (read-only, no row checks): the session command
    # that follows opens the file with every check; a file this cannot read is not a
    # session of the kit, and a plain roll touches no session
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=1)
        try:
            row = conn.execute("SELECT state_json FROM events WHERE substr(state_json, 1, 1) = '{' "
                               "ORDER BY seq DESC LIMIT 1").fetchone()  # the latest whole one
        finally:
            conn.close()
    except (sqlite3.Error, OSError, ValueError):
        return False
    if not row or not isinstance(row[0], str) or '"kit"' not in row[0]:
        return False
    import json

    try:
        state = json.loads(row[0])
    except (ValueError, RecursionError):
        return False
    return isinstance(state, dict) and state.get("kit") == "table"


def could_be_own_die(words: list[str]) -> bool:
    """`N DIE`: words that may name a die of the card database when not dice notation
    (referee/cli.py `_own_die` looks it up)."""
    return len(words) == 2 and words[0].isascii() and words[0].isdigit()


def dice_reply(expr: DiceExpr, league: str, entered: str | None, seed: int | None) -> Reply:
    """The roll of `expr`: the faces `entered` at the table, else rolled (seeded by `seed`
    when given); mask dice are the `league`'s set, at most the 7 a player owns (XO-1)."""
    from referee import notation

    if expr.mask_dice > MASK_DICE_OWNED:
        set_name = LEAGUE_DICE[league]
        raise RefereeError(
            f"{expr}: {expr.mask_dice} mask dice, but a player owns {MASK_DICE_OWNED} {set_name} "
            f"dice and rolls as many as they can: roll at most {MASK_DICE_OWNED}", "XO-1")
    rolled = notation.roll(expr, None if entered else seeded(seed), entered)
    parts = []
    for group, faces in zip(expr.groups, rolled.faces, strict=True):
        name = LEAGUE_DICE[league] if group.die == "mask" else f"d{group.die}"
        sign = "- " if group.sign < 0 else ""
        parts.append(f"{sign}{name} {' '.join(map(str, faces)) or '(none)'}")
    if expr.modifier:
        parts.append(f"{expr.modifier:+d}")
    line = f"{expr}: {'  '.join(parts)}  = {rolled.total}"
    if rolled.entered:
        line += "  (faces from the table)"
    lines = [line]
    if rolled.moffed:
        lines.append(MOFFED)
    data: dict[str, Any] = {
        "expression": str(expr),
        "dice": rolled.dice,
        "groups": [
            {
                "die": "mask" if g.die == "mask" else f"d{g.die}",
                "sign": g.sign,
                "faces": list(f),
            }
            for g, f in zip(expr.groups, rolled.faces, strict=True)
        ],
        "modifier": expr.modifier,
        "total": rolled.total,
        "moffed": rolled.moffed,
        "league": league if expr.mask_dice else None,
        "entered": rolled.entered,
    }
    return Reply(lines, data)
