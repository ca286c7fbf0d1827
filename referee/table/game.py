"""The table kit as a game of the referee (the `GameRules` contract of referee/games.py):
new state, setup summary, status lines, public state, state schema, card names."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from referee.state_schema import (
    SchemaError,
    equals,
    flag,
    list_of,
    mapping,
    maybe,
    name,
    obj,
    players,
    record,
    seed,
    whole,
)
from referee.table import kit
from referee.table.dice import FaceSource

setup_summary = kit.setup_summary
status_lines = kit.status_lines
public_state = kit.public_state


def new_state(players: list[str], db: Any, rng: Any, *, game: str, seed: Any = None,
              **options: Any) -> dict:
    """A new game of `game` (a cards.yaml game without `rules:`); `rng` is a `FaceSource`
    (the table's dice) or a seeded `random.Random`."""
    source = rng if isinstance(rng, FaceSource) else FaceSource(rng or random.Random(seed))
    return kit.new_state(players, kit.TableGame.from_db(db, game), source, seed)


_NUMBER = whole(-10**9)  # a score or a roll's outcome may be below zero
_TURN = record({"number": whole(1), "round": whole(1), "player": name, "phase": maybe(name)},
               {"step": whole(), "done": whole(), "rolls": mapping(_NUMBER)})
_PILE = record({"deck": whole(), "discard": whole(), "seen": list_of(name)})
_STATE = record(
    {
        "game": name, "kit": equals(kit.KIT), "seed": seed, "players": players, "title": name,
        "tokens": mapping(mapping(whole())), "pool": mapping(whole()),
        "decks": mapping(_PILE), "hands": mapping(mapping(whole())),
        "shown": mapping(list_of(name)), "turn": _TURN, "over": flag,
        "winner": maybe(list_of(name)), "last_roll": maybe(obj),
    },
    # rules as data (carddb.gamerules): zones in play, a choice waiting, scores, the end
    {"setup": obj, "zones": mapping(mapping(list_of(name))), "table": mapping(list_of(name)),
     "pending": maybe(obj), "scores": mapping(_NUMBER), "ended": name, "last_round": name},
)


def check_state(state: Any, where: str = "state") -> None:
    _STATE(state, where)
    seats = sorted(state["players"])
    for key in ("tokens", "hands", "shown"):
        if sorted(state[key]) != seats:
            raise SchemaError(f"{where}.{key}: its seats are not the players")
    if state["turn"]["player"] not in state["players"]:
        raise SchemaError(f"{where}.turn.player: not one of the players")


def card_names(state: dict) -> Iterator[tuple[str, Any, str]]:
    """The names the kit holds: cards shown onto a discard pile, kept in a hand, in play."""
    for deck, pile in state.get("decks", {}).items():
        for i, card in enumerate(pile.get("seen", [])):
            yield f"decks.{deck}.seen[{i}]", card, ""
    for player, cards in state.get("shown", {}).items():
        for i, card in enumerate(cards):
            yield f"shown.{player}[{i}]", card, ""
    for player, zones in state.get("zones", {}).items():
        for zone, cards in zones.items():
            for i, card in enumerate(cards):
                yield f"zones.{player}.{zone}[{i}]", card, ""
    for zone, cards in state.get("table", {}).items():
        for i, card in enumerate(cards):
            yield f"table.{zone}[{i}]", card, ""
