"""The one registry of the referee's games, and the game contract.

A game is one rules module registered here with a `Game` entry: its id, title, aliases,
the options of `referee new` it takes, its command group, its state schema and the card
names it checks, and the carddb rules plug-in its cards.yaml game names (`rules:`). The
entry holds only names ("module:attribute"), so nothing is imported until a command needs
it (`referee roll 3` imports no game). Everything that used to keep its own table of games
(`referee new`, the lazy command groups, `state_schema.SCHEMAS`, `state_cards.NAMES`) is
built from `REGISTRY`; a test checks every registered game against `GameRules`.

A game of the project's cards.yaml without a `rules:` plug-in is played with the generic
table kit (`TABLE_KIT`, `referee/table/`): its states carry `"kit": "table"`."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any, Protocol, runtime_checkable

from referee.errors import UsageError


@runtime_checkable
class GameRules(Protocol):
    """What a registered game's rules module provides (pure functions; the database and
    the die source come in)."""

    def new_state(self, players: list[str], db: Any, rng: Any, **options: Any) -> dict: ...

    def setup_summary(self, state: dict) -> str: ...

    def status_lines(self, state: dict) -> list[str]: ...

    def public_state(self, state: dict) -> dict: ...


class Game:
    """A registered game (plain class: dataclasses are slow to import).

    `module`: the rules module (`GameRules`); `new_options`: the `referee new` options it
    takes (names of the `new` command's parameters beyond players, seed, force, roll);
    `group`: (command name, "module:attr", help line) of its click group, or None;
    `schema`: "module:attr" of `check(state, where)` (raises SchemaError);
    `card_names`: "module:attr" of `names(state) -> iterator of (where, name, card type)`;
    `rules`: the carddb rules plug-in id of its cards.yaml game (None: any game)."""

    __slots__ = ("id", "title", "aliases", "module", "new_options", "group", "schema",
                 "card_names", "rules", "players")

    def __init__(self, id: str, title: str, module: str, *, aliases: tuple[str, ...] = (),
                 new_options: tuple[str, ...] = (),
                 group: tuple[str, str, str] | None = None, schema: str, card_names: str,
                 rules: str | None = None, players: str = "A,B") -> None:
        self.id = id
        self.title = title
        self.aliases = aliases
        self.module = module
        self.new_options = new_options
        self.group = group
        self.schema = schema
        self.card_names = card_names
        self.rules = rules
        self.players = players

    def rules_module(self) -> ModuleType:
        return importlib.import_module(self.module)

    def schema_check(self) -> Callable[[Any, str], None]:
        return resolve(self.schema)

    def names_of(self) -> Callable[[dict], Iterator[tuple[str, Any, str]]]:
        return resolve(self.card_names)


def resolve(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


REGISTRY: dict[str, Game] = {}


def register(game: Game) -> Game:
    """Add a game to the referee (one call: every registry above follows)."""
    if game.id in REGISTRY or game.id in ALIASES:
        raise ValueError(f"game {game.id!r} is registered twice")
    REGISTRY[game.id] = game
    for alias in game.aliases:
        ALIASES[alias] = game.id
    return game


def unregister(game_id: str) -> None:
    """Remove a game (tests that register a toy game)."""
    game = REGISTRY.pop(game_id)
    for alias in game.aliases:
        ALIASES.pop(alias, None)


ALIASES: dict[str, str] = {}

register(Game(
    "xo", "XO!", "referee.xo.game", aliases=("xo!",),
    group=("xo", "referee.xo.cli:xo", "XO! game commands (see `referee xo --help`)."),
    schema="referee.state_schema:xo_state", card_names="referee.state_cards:xo_names",
    rules="xo", players="HEROES,VILLAINS",
))
register(Game(
    "x-statix", "X-Statix", "referee.xs.game", aliases=("xs", "xstatix", "x_statix"),
    new_options=("owners", "teams", "deal"),
    group=("xs", "referee.xs.cli:xs", "X-Statix game commands (see `referee xs --help`)."),
    schema="referee.state_schema:xs_state", card_names="referee.state_cards:xs_names",
    rules="x-statix", players="A,B[,C]",
))

# The generic table kit: any cards.yaml game without a rules plug-in (not in REGISTRY:
# its id is the game's own).
TABLE_KIT = Game(
    "table", "table kit", "referee.table.game", new_options=(),
    group=None, schema="referee.table.game:check_state",
    card_names="referee.table.game:card_names", rules=None, players="A,B[,C...]",
)
KIT = "table"


def canonical(game_id: str) -> str:
    """The registered id for any accepted spelling; UsageError otherwise."""
    key = game_id.strip().lower()
    key = ALIASES.get(key, key)
    if key not in REGISTRY:
        raise UsageError(f"unknown game {game_id!r}: choose {' or '.join(REGISTRY)}")
    return key


def entry(game_id: str) -> Game:
    return REGISTRY[canonical(game_id)]


def of_state(state: dict) -> Game:
    """The game a session state is played with: the table kit for `"kit": "table"`."""
    if state.get("kit") == KIT:
        return TABLE_KIT
    return entry(str(state.get("game", "")))


def module(game_id: str) -> ModuleType:
    return entry(game_id).rules_module()


def module_of_state(state: dict) -> ModuleType:
    return of_state(state).rules_module()


def title(game_id: str) -> str:
    game = REGISTRY.get(game_id)
    return game.title if game is not None else game_id


def groups() -> dict[str, tuple[str, str, str]]:
    """Command name -> (module, attribute, help) of every registered game's group."""
    return {g.group[0]: (*g.group[1].partition(":")[::2], g.group[2])
            for g in REGISTRY.values() if g.group is not None}
