"""Toy's rules: pure functions on a state dict (the `GameRules` contract)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from referee.errors import RefereeError, UsageError
from referee.state_schema import equals, flag, list_of, mapping, name, players, record, seed, whole


def new_state(players: list[str], db: Any, rng: Any, *, seed: Any = None, target: int = 3,
              **options: Any) -> dict:
    if len(players) < 2 or len({p.casefold() for p in players}) != len(players):
        raise UsageError("--players: Toy needs two players or more, each with a name")
    if target < 1:
        raise UsageError(f"--target {target}: a target of 1 point or more")
    return {"game": "toy", "seed": seed, "players": list(players), "target": target,
            "score": {p: 0 for p in players}, "next": players[0], "over": False,
            "winner": []}


def score(state: dict, player: str, points: int) -> dict:
    """`player` scores `points` (1 to 3) on their turn; at the target they win."""
    if state["over"]:
        raise RefereeError(f"the game is over: {', '.join(state['winner'])} won")
    if player != state["next"]:
        raise RefereeError(f"it is {state['next']}'s turn, not {player}'s")
    if not 1 <= points <= 3:
        raise UsageError(f"score {points}: 1, 2 or 3 points a turn")
    state = copy.deepcopy(state)
    state["score"][player] += points
    seats = state["players"]
    state["next"] = seats[(seats.index(player) + 1) % len(seats)]
    if state["score"][player] >= state["target"]:
        state["over"], state["winner"] = True, [player]
    return state


def setup_summary(state: dict) -> str:
    return f"Toy: {', '.join(state['players'])}, first to {state['target']}"


def status_lines(state: dict) -> list[str]:
    head = (f"Toy: {', '.join(state['winner'])} won" if state["over"]
            else f"Toy: {state['next']} to score")
    return [head, *(f"  {p}: {state['score'][p]}" for p in state["players"])]


def public_state(state: dict) -> dict:
    return {k: v for k, v in state.items() if k != "seed"}


_STATE = record({"game": equals("toy"), "seed": seed, "players": players,
                 "target": whole(1), "score": mapping(whole()), "next": name,
                 "over": flag, "winner": list_of(name)})


def check_state(state: Any, where: str = "state") -> None:
    _STATE(state, where)


def card_names(state: dict) -> Iterator[tuple[str, Any, str]]:
    return iter(())  # Toy holds no card names in its state
