"""The table's turn clock: chess-clock time per player, kept in the session's events.

Each event row carries the clock as it stood when it was written, in its payload
(`payload["clock"] = {"at": unix seconds, "used": {player: seconds}}`, written by
`Session`): the time since the event before it is charged to the player whose turn it was
then, unless the clock was paused or the game over. So the time spent is never undone
(an `undo` event carries the clock forward like any other: the minutes Bob thought before
the move he took back were still his), a `referee play` that quits and resumes finds the
clock where the log left it, and `status` reads it from the current row alone.

Pausing is the table's decision and part of the game state (`state["clock"] =
{"paused": true}`, `referee clock pause|resume`): the commands made while it is paused
keep it paused, and `undo` of a pause resumes it like any command taken back.

Pure and light (no datetime: a number of seconds is all it needs); the time comes in."""

from __future__ import annotations

from typing import Any

KEY = "clock"  # payload key written by Session, and the state key of the pause


def paused(state: dict) -> bool:
    mark = state.get(KEY)
    return isinstance(mark, dict) and mark.get("paused") is True


def on_clock(state: dict) -> str | None:
    """The player whose time runs in `state`: the turn's player (XO!: the active league's
    player), None when the clock is paused, the game over or nobody's turn yet."""
    if paused(state) or state.get("over") is True:
        return None
    turn = state.get("turn")
    players = state.get("players")
    # a tuple as a state handed to Session.record may hold them (its JSON holds a list)
    if not isinstance(turn, dict) or not isinstance(players, (list, tuple)):
        return None
    player = turn.get("player")
    if player is None and turn.get("active") in ("heroes", "villains") and len(players) == 2:
        player = players[0 if turn["active"] == "heroes" else 1]  # XO!: [heroes, villains]
    return player if isinstance(player, str) and player in players else None


def read(payload: Any) -> dict | None:
    """A row's clock, or None for a row without one (written before the clock, or not a
    number where one belongs: a clock is shown, never trusted for a rule)."""
    clock = payload.get(KEY) if isinstance(payload, dict) else None
    if not isinstance(clock, dict):
        return None
    at, used = clock.get("at"), clock.get("used")
    if not isinstance(at, (int, float)) or not _seconds(at) or not isinstance(used, dict):
        return None
    if not all(isinstance(p, str) and _seconds(s) for p, s in used.items()):
        return None
    return {"at": float(at), "used": {p: float(s) for p, s in used.items()}}


def _seconds(value: Any) -> bool:
    return (type(value) is int or type(value) is float) and 0 <= value < 1e12


def start(now: float) -> dict:
    """The clock of a `new` event: nobody has used any time."""
    return {"at": round(now, 3), "used": {}}


def advance(before: dict | None, state_before: dict, now: float) -> dict:
    """The clock of the next event: `before` (the current row's clock, None if it has
    none: then it starts now) with the time since charged to whoever was on the clock
    in `state_before`."""
    return charged(before, on_clock(state_before), now)


def charged(before: dict | None, player: str | None, now: float) -> dict:
    """`advance` with whoever was on the clock known already (`on_clock` of the state
    before, None: nobody): a session that has just appended an event knows it without
    reading that event's state back."""
    if before is None:
        return start(now)
    used = dict(before["used"])
    if player is not None:
        spent = max(0.0, now - before["at"])  # a clock set back never takes time away
        used[player] = round(used.get(player, 0.0) + spent, 3)
    return {"at": round(now, 3), "used": used}


def standing(clock: dict | None, state: dict, now: float) -> dict:
    """The clock now, as the board and `status` show it: every player's seconds (whole),
    who is running (None: paused or over), whether it is paused."""
    players = [p for p in state.get("players", []) if isinstance(p, str)]
    running = on_clock(state)
    used = {p: 0.0 for p in players}
    if clock is not None:
        for player, spent in clock["used"].items():
            if player in used:
                used[player] = spent
        if running is not None:
            used[running] += max(0.0, now - clock["at"])
    return {"used": {p: int(s) for p, s in used.items()}, "running": running,
            "paused": paused(state), "known": clock is not None}


def mmss(seconds: int) -> str:
    """12:05, or 1:02:05 past an hour."""
    hours, rest = divmod(max(0, int(seconds)), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def line(stand: dict) -> str:
    """`status`'s line: "clock: Ann 12:05 (running) · Bob 9:41" (or "paused")."""
    parts = [f"{p} {mmss(s)}" + (" (running)" if p == stand["running"] else "")
             for p, s in stand["used"].items()]
    tail = "; paused (referee clock resume)" if stand["paused"] else ""
    return "clock: " + " · ".join(parts) + tail


def lines(stand: dict) -> list[str]:
    """`status`'s clock line, for a game whose turns the clock follows (none for a game
    without a player on turn that never ran it)."""
    ran = stand["running"] is not None or stand["paused"] or any(stand["used"].values())
    return [line(stand)] if ran else []
