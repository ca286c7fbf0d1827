"""Toy's commands (`referee toy score ...`) and the option its `referee new` takes."""

from __future__ import annotations

import click

from referee.command import Reply, Tx, WholeNumber, session_command
from referee.errors import UsageError

NEW_OPTIONS = [click.Option(["--target"], type=WholeNumber(min=1), default=3,
                            show_default=True, help="Toy: the points that win.")]


@click.group()
def toy() -> None:
    """Toy game commands."""


@toy.command()
@click.argument("player")
@click.argument("points", type=WholeNumber(min=1), default=1)
@session_command(rolls=False)
def score(tx: Tx, player: str, points: int) -> Reply:
    """PLAYER scores POINTS (1 to 3) on their turn."""
    from toy_game import rules

    state = tx.require_game("toy")
    found = {p.casefold(): p for p in state["players"]}.get(player.strip().casefold())
    if found is None:
        raise UsageError(f"no player {player!r}: players are {', '.join(state['players'])}")
    state = rules.score(state, found, points)
    tx.record("score", f"{found} scores {points}", {"player": found, "points": points}, state)
    return Reply([f"{found} scores {points}: {state['score'][found]}"],
                 {"state": tx.public(state)})
