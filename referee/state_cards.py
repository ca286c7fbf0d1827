"""Whether the card names in a session's state are cards of the card database in use.

The state schema (state_schema.py) checks a state's shape when the session is opened; a
command that uses the cards also has its state's names checked against the very database
it loaded (`Tx.db`: `carddb.load` once, no second reading), before the rules look any
name up. So a session edited by hand, or made with another cards.yaml, is refused in one
line (exit 2, nothing written) instead of failing somewhere inside the rules.

The names checked, by game (the base shapes of docs/ARCHITECTURE.md, and the engines' keys
that hold names):
- X-Statix: each seat's `owner` (an Owner card), `team` (a Team Name card), `hand`, each
  hero's `name` (a Hero card) and `marketing`; `deck`, `discard`; the turn's mission
  (`card`: a Mission card; `team`, `killed_off`: Hero cards) and `fame` (Hero cards).
  `"?"` (a card the referee has not seen, XS-16) is allowed in a hand and the deck.
- XO!: each roster entry's `name` (a Character card) and `statuses` (Status cards); the
  Resource stacks (`resources`: Resource cards).
Names elsewhere (a roll's modifier sources, the setup record, `used`) are not checked.

A session that keeps its game (referee/kept.py) has its names checked against that
definition (`check_kept`): an edited cards.yaml does not make it invalid; a name the kept
definition does not hold does.

Cheap: one pass over the game's cards, one set lookup per name (a state holds ~100)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from referee.inputs import shown
from referee.state_schema import SchemaError

HIDDEN = "?"  # referee.xs.play.HIDDEN: a card in a hand or the deck not yet shown (XS-16)
ANY = ""  # a card of any type of the game

# (where under the state, the name, what it must be: a card type, ANY card, or HIDDEN:
# any card or "?")
Named = tuple[str, Any, str]


def _texts(value: Any) -> list:
    return value if isinstance(value, list) else []


def xs_names(state: dict) -> Iterator[Named]:
    for player, seat in state["table"].items():
        at = f"table.{player}"
        yield f"{at}.owner", seat["owner"], "Owner"
        yield f"{at}.team", seat["team"], "Team Name"
        for i, card in enumerate(_texts(seat["hand"])):  # a count: the players hold them
            yield f"{at}.hand[{i}]", card, HIDDEN
        for i, hero in enumerate(seat["heroes"]):
            yield f"{at}.heroes[{i}].name", hero["name"], "Hero"
            for j, card in enumerate(hero["marketing"]):
                yield f"{at}.heroes[{i}].marketing[{j}]", card, ANY
    for i, card in enumerate(_texts(state["deck"])):
        yield f"deck[{i}]", card, HIDDEN
    for i, card in enumerate(state["discard"]):
        yield f"discard[{i}]", card, ANY
    turn = state["turn"]
    mission = turn.get("mission")
    if isinstance(mission, dict):  # its inner shape is the engine's (not in the schema)
        if "card" in mission:
            yield "turn.mission.card", mission["card"], "Mission"
        for key in ("team", "killed_off"):
            for i, hero in enumerate(_texts(mission.get(key))):
                yield f"turn.mission.{key}[{i}]", hero, "Hero"
    for i, hero in enumerate(_texts(turn.get("fame"))):
        yield f"turn.fame[{i}]", hero, "Hero"


def xo_names(state: dict) -> Iterator[Named]:
    for league in ("heroes", "villains"):
        for i, entry in enumerate(state["roster"][league]):
            at = f"roster.{league}[{i}]"
            yield f"{at}.name", entry["name"], "Character"
            for j, status in enumerate(entry["statuses"]):
                yield f"{at}.statuses[{j}]", status, "Status"
    for stack, cards in (state.get("resources") or {}).items():
        for i, card in enumerate(cards):
            yield f"resources.{stack}[{i}]", card, "Resource"




def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'AEIOU' else 'a'} {word}"


def check(state: dict, db: Any, where: str = "state") -> None:
    """SchemaError naming the first name of `state` (already matching its schema) that is
    not a card of its game in `db`, of the type its place needs."""
    from referee.games import title

    game = db.games.get(state["game"])
    if game is None:  # load_cards refuses a database without the session's game first
        raise SchemaError(f"{where}.game: the card database has no {title(state['game'])} game")
    types = {card.name: card.type for card in game.cards()}
    _check_names(state, types, f"in {_database_name(db)}",
                 "a session made with another card database needs that one: --cards PATH",
                 where)


def check_kept(state: dict, kept: Any, where: str = "state") -> None:
    """As `check`, against the game the session keeps (referee/kept.py: the cards as the
    game began, whatever cards.yaml holds now)."""
    _check_names(state, kept.card_types(), "as this game began",
                 "the session's own definition of its game does not hold it", where)


def _check_names(state: dict, types: dict[str, str], among: str, unknown: str,
                 where: str) -> None:
    from referee.games import of_state, title

    game_id = state["game"]
    names = of_state(state).names_of()  # the game registry names each game's places
    for at, name, kind in names(state):
        if not isinstance(name, str):
            continue  # the schema's business where it checks the shape; the engine's elsewhere
        found = types.get(name)
        if found is not None and kind in (ANY, HIDDEN, found) or name == kind == HIDDEN:
            continue
        needed = _a(f"{kind} card" if kind not in (ANY, HIDDEN) else "card")
        if found is not None:
            why = f"it is {_a(found + ' card')}"
        elif name == HIDDEN:
            why = "a card not yet shown is '?' only in a hand or the deck, XS-16"
        else:
            why = unknown
        raise SchemaError(f"{where}.{at}: {shown(name)} is not {needed} of {title(game_id)} "
                          f"{among} ({why})")


def _database_name(db: Any) -> str:
    import carddb

    return carddb.display_name(db.path)
