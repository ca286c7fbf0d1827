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

    `module`: the rules module (`GameRules`); `group`: (command name, "module:attr", help
    line) of its click group, or None; `schema`: "module:attr" of `check(state, where)`
    (raises SchemaError); `card_names`: "module:attr" of `names(state) -> iterator of
    (where, name, card type)`; `rules`: the carddb rules plug-in id of its cards.yaml game
    (None: any game). What `referee new` and `referee play` need of it (issue 29):

    - `options`: "module:attr" of a list of `click.Option`, the options `referee new GAME`
      takes beyond players, seed, force and roll; their values go to `new_state(**values)`.
    - `commands`: top-level commands that are this game's: commands of its group also
      kept at the top (`referee mt` is `referee xs mt`), or the table kit's own (`token`,
      `draw`, ...); `help` in play lists them, with its group's and the core commands.
    - `walk`: "module:attr" of `question(state, ctx, answered) -> Question | None`
      (`referee.play.walk.Question`): what `referee play` asks next; None: play only takes
      commands at its free prompt.
    - `context`: "module:attr" of `context(db, state) -> Any`, the card context the walk's
      questions read (loaded once per process; `db` the card database in use), or None.
    - `names`: "module:attr" of `names(state, ctx) -> list[str]`: what Tab completes
      (default: the players).
    - `turn`: "module:attr" of `turn(state) -> hashable`: play shows the table again when
      it changes (default: `turn_of`, the turn's number and player, and `over`)."""

    __slots__ = ("id", "title", "aliases", "module", "group", "schema", "card_names",
                 "rules", "players", "options", "commands", "walk", "context", "names", "turn")

    def __init__(self, id: str, title: str, module: str, *, aliases: tuple[str, ...] = (),
                 group: tuple[str, str, str] | None = None, schema: str, card_names: str,
                 rules: str | None = None, players: str = "A,B", options: str | None = None,
                 commands: tuple[str, ...] = (), walk: str | None = None,
                 context: str | None = None, names: str | None = None,
                 turn: str | None = None) -> None:
        self.id = id
        self.title = title
        self.aliases = aliases
        self.module = module
        self.group = group
        self.schema = schema
        self.card_names = card_names
        self.rules = rules
        self.players = players
        self.options = options
        self.commands = commands
        self.walk = walk
        self.context = context
        self.names = names
        self.turn = turn

    def rules_module(self) -> ModuleType:
        return importlib.import_module(self.module)

    def schema_check(self) -> Callable[[Any, str], None]:
        return resolve(self.schema)

    def names_of(self) -> Callable[[dict], Iterator[tuple[str, Any, str]]]:
        return resolve(self.card_names)

    def new_options(self) -> list[Any]:
        """The `click.Option`s `referee new` takes for this game (its `options`)."""
        return list(resolve(self.options)) if self.options else []

    def question(self, state: dict, ctx: Any, answered: set) -> Any:
        """What `referee play` asks next (a `Question`), or None."""
        return resolve(self.walk)(state, ctx, answered) if self.walk else None

    def load_context(self, db: Any, state: dict) -> Any:
        return resolve(self.context)(db, state) if self.context else None

    def completions(self, state: dict, ctx: Any) -> list[str]:
        if self.names:
            return list(resolve(self.names)(state, ctx))
        return [str(p) for p in state.get("players", [])]

    def turn_key(self, state: dict) -> Any:
        return resolve(self.turn)(state) if self.turn else turn_of(state)


def turn_of(state: dict) -> tuple[Any, ...]:
    """Whose turn it is, for any state: `turn.number`, `turn.player` (or `turn.active`)
    when the state has such a `turn`, and `over`."""
    turn = state.get("turn")
    turn = turn if isinstance(turn, dict) else {}
    return (turn.get("number"), turn.get("player") or turn.get("active"), state.get("over"))


def resolve(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


class _Registry(dict):
    """Game id -> `Game`: the bundled games, then (looked up once, the first time a name
    is not found among them or every game is listed) the plug-ins installed under the
    entry-point group `pnp_referee.games`. A session of a bundled game never looks."""

    def _plugins(self) -> None:
        global _plugins_loaded
        if not _plugins_loaded:
            _plugins_loaded = True
            load_plugins()

    def __getitem__(self, key: str) -> Game:
        if not dict.__contains__(self, key):
            self._plugins()
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        if not dict.__contains__(self, key):
            self._plugins()
        return dict.__contains__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def __iter__(self) -> Iterator[str]:
        self._plugins()
        return iter(list(dict.keys(self)))

    def __len__(self) -> int:
        self._plugins()
        return dict.__len__(self)

    def keys(self) -> Any:
        self._plugins()
        return dict.keys(self)

    def values(self) -> Any:
        self._plugins()
        return dict.values(self)

    def items(self) -> Any:
        self._plugins()
        return dict.items(self)


REGISTRY: dict[str, Game] = _Registry()
ALIASES: dict[str, str] = {}
GROUP = "pnp_referee.games"  # the entry-point group of game plug-ins
_plugins_loaded = False
_plugin_ids: list[str] = []  # the games installed packages registered


def register(game: Game) -> Game:
    """Add a game to the referee (one call: every registry above follows)."""
    if dict.__contains__(REGISTRY, game.id) or game.id in ALIASES:
        raise ValueError(f"game {game.id!r} is registered twice")
    for alias in game.aliases:
        if dict.__contains__(REGISTRY, alias) or alias in ALIASES:
            raise ValueError(f"game alias {alias!r} is taken")
    dict.__setitem__(REGISTRY, game.id, game)
    for alias in game.aliases:
        ALIASES[alias] = game.id
    return game


def unregister(game_id: str) -> None:
    """Remove a game (tests that register a toy game)."""
    game = dict.pop(REGISTRY, game_id)
    for alias in game.aliases:
        ALIASES.pop(alias, None)


def load_plugins() -> None:
    """Register every game an installed distribution names under `pnp_referee.games`
    (`toy = toy_game.entry:GAME`, a `Game`); a broken one is left out with one line."""
    from carddb.entry_points import load

    def check(name: str, game: Any) -> None:
        if not isinstance(game, Game):
            raise TypeError(f"not a referee.games.Game: {game!r}"[:200])
        if game.id != name:
            raise ValueError(f"it defines the game {game.id!r}, not {name!r}")
        register(game)
        _plugin_ids.append(game.id)

    load(GROUP, check, lambda line: notice(f"referee: notice: {line}"))


def forget_plugins() -> None:
    """Unregister the installed games and look for them again when next asked (a test
    that puts a distribution on sys.path)."""
    global _plugins_loaded
    from carddb.entry_points import rescan

    for game_id in _plugin_ids:
        if dict.__contains__(REGISTRY, game_id):
            unregister(game_id)
    _plugin_ids.clear()
    _plugins_loaded = False
    rescan()


def notice(line: str) -> None:
    from carddb.entry_points import notice as say

    say(line)


register(Game(
    "xo", "XO!", "referee.xo.game", aliases=("xo!",),
    group=("xo", "referee.xo.cli:xo", "XO! game commands (see `referee xo --help`)."),
    schema="referee.state_schema:xo_state", card_names="referee.state_cards:xo_names",
    rules="xo", players="HEROES,VILLAINS",
    walk="referee.xo.play_walk:question", context="referee.xo.play_walk:context",
    names="referee.xo.play_walk:names",
))
register(Game(
    "x-statix", "X-Statix", "referee.xs.game", aliases=("xs", "xstatix", "x_statix"),
    group=("xs", "referee.xs.cli:xs", "X-Statix game commands (see `referee xs --help`)."),
    schema="referee.state_schema:xs_state", card_names="referee.state_cards:xs_names",
    rules="x-statix", players="A,B[,C]", options="referee.xs.play_walk:NEW_OPTIONS",
    commands=("mt", "ft"),  # `referee mt` is `referee xs mt`
    walk="referee.xs.play_walk:question", context="referee.xs.play_walk:context",
    names="referee.xs.play_walk:names",
))

# The generic table kit: any cards.yaml game without a rules plug-in (not in REGISTRY:
# its id is the game's own). Its commands are top-level ones (no group).
TABLE_KIT = Game(
    "table", "table kit", "referee.table.game",
    group=None, schema="referee.table.game:check_state",
    card_names="referee.table.game:card_names", rules=None, players="A,B[,C...]",
    commands=("token", "draw", "discard", "show", "shuffle", "next", "hand"),
    walk="referee.table.walk:question", context="referee.table.entry:context",
    names="referee.table.entry:names",
)
KIT = "table"


def canonical(game_id: str) -> str:
    """The registered id for any accepted spelling; UsageError otherwise."""
    key = game_id.strip().lower()
    key = ALIASES.get(key, key)
    if key not in REGISTRY:  # a bundled game is found without looking for plug-ins
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


def known(plugins: bool = True) -> list[Game]:
    """Every registered game; `plugins=False`: without looking for installed ones (a
    bundled game's command is found without importing anything more)."""
    return list(REGISTRY.values() if plugins else dict.values(REGISTRY))


def groups(plugins: bool = True) -> dict[str, tuple[str, str, str]]:
    """Command name -> (module, attribute, help) of every registered game's group."""
    return {g.group[0]: (*g.group[1].partition(":")[::2], g.group[2])
            for g in known(plugins) if g.group is not None}
