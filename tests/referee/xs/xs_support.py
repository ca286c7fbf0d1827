"""Helpers of the X-Statix rules tests: the real card catalog from cards.yaml and a small
builder of game states with exactly the cards a test needs."""

from __future__ import annotations

import random
from functools import partial

from referee.xs.catalog import Catalog
from referee.xs.play import Play, fresh_turn
from referee.xs.rolls import Dice
from tests.harness import ROOT, run_cli


def load_catalog() -> Catalog:
    import carddb

    return Catalog.from_db(carddb.load(ROOT / "cards.yaml"))


def make_state(
    players=("A", "B"),
    hands=None,
    heroes=None,
    mt=None,
    owners=None,
    teams=None,
    deck=("Ocelot", "Movies", "Zombies", "Shape Shifting", "PR People", "Media Craze"),
    discard=(),
    phase="opportunity",
    player="A",
    hidden=None,
) -> dict:
    """A game in `player`'s turn. Owner and Team Name default to "-" (no card: no effect),
    heroes are names or (name, ft, [marketing]). `hidden` = {player: n}: a game with the
    table's own deck (XS-16), each such hand holding n hidden cards after the named ones,
    and a deck of as many hidden cards as `deck` names."""
    hands, heroes, mt = hands or {}, heroes or {}, mt or {}
    owners, teams = owners or {}, teams or {}
    table = {}
    for p in players:
        team = []
        for h in heroes.get(p, []):
            name, ft, marketing = (h, 1, []) if isinstance(h, str) else (list(h) + [[]])[:3]
            team.append({"name": name, "ft": ft, "marketing": list(marketing)})
        table[p] = {"mt": mt.get(p, 20), "owner": owners.get(p, "-"), "team": teams.get(p, "-"),
                    "hand": list(hands.get(p, [])), "heroes": team}
    turn = fresh_turn(1, player)
    turn["phase"] = phase
    turn["free_drawn"] = True
    state = {"game": "x-statix", "seed": None, "players": list(players), "table": table,
             "deck": list(deck), "discard": list(discard), "turn": turn, "over": False,
             "winner": None}
    if hidden is not None:
        from referee.xs.play import HIDDEN

        state["deal"] = "table"
        state["deck"] = [HIDDEN] * len(deck)
        for p, n in hidden.items():
            table[p]["hand"] += [HIDDEN] * n
    return state


def act(cat, fn, state, *args, faces=None, seed=0, **kwargs):
    """Run one rules action on a copy of `state` with fixed faces (from the table)."""
    play = Play(state, cat, Dice(random.Random(seed), faces))
    return fn(play, *args, **kwargs)


def texts(result) -> str:
    return "\n".join(f"{s.text} [{s.ruling}]" for s in result.steps)


# ── the CLI ───────────────────────────────────────────────────────────────────
referee = partial(run_cli, "referee")  # the one harness, in this process


def without_clock(status_json: str) -> dict:
    """`status --json` less the turn clock, which runs on between two reads (issue 32): what
    a refused command must leave unchanged."""
    import json

    found = json.loads(status_json)
    found.pop("clock", None)
    found["lines"] = [line for line in found.get("lines", []) if not line.startswith("clock: ")]
    return found
