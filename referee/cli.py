"""`referee`: the table referee's command line. Thin: parse, call a pure function, print.

Fast start matters (`referee roll 3` at the table): only click and the small dice modules
load at import; sqlite3, carddb and the game packages load inside the commands that use
them, and the `xo`, `xs` and `simulate` groups are imported only when invoked."""

from __future__ import annotations

import sys
from typing import Any

import click

from referee import games
from referee.click_types import SEED, WHOLE, WholeNumber
from referee.command import (
    DEFAULT_SESSION,
    GlobalOptions,
    Reply,
    Tx,
    fraction_json,
    global_options,
    json_option,
    percent,
    run,
    seed_option,
    session_command,
)
from referee.errors import RefereeError, UsageError
from referee.inputs import one_line, shown

# name -> (module, attribute): command groups (and the table kit's commands) mounted when
# their module exists, imported only when invoked (`referee --help` shows LAZY_HELP
# instead of importing them). The games' groups come from the one game registry, asked
# when a command is not a core one (`RefereeGroup.lazy`: plug-in games are looked up then).
LAZY_GROUPS: dict[str, tuple[str, str]] = {}
LAZY_HELP: dict[str, str] = {}
LAZY_GROUPS["simulate"] = ("referee.simulate.cli", "simulate")
LAZY_HELP["simulate"] = "Simulated games and strategy statistics."
LAZY_GROUPS["play"] = ("referee.play.cli", "play")  # the resident session (referee/play/)
LAZY_HELP["play"] = "The table's session in one process: the turn walks itself."
LAZY_GROUPS["board"] = ("referee.board.cli", "board")  # the public board (referee/board/)
LAZY_HELP["board"] = "A read-only web page of the table for a TV or a phone."
LAZY_GROUPS["clock"] = ("referee.board.cli", "clock")
LAZY_HELP["clock"] = "The turn clock: clock pause / clock resume (shown by status)."
LAZY_GROUPS["report"] = ("referee.report.cli", "report")  # sessions read back (referee/report/)
LAZY_HELP["report"] = "What real games say: winners by seat, length, tokens, rolls vs odds."
TABLE_COMMANDS = {
    "token": "Tokens of your own game: token PLAYER NAME +N|-N|=N (bank and pools).",
    "draw": "Your own game: PLAYER draws N cards (counted; --deck D).",
    "discard": "Your own game: PLAYER discards CARD... (shown) or -n N face down.",
    "show": "Your own game: PLAYER shows CARD, kept in hand (the referee learns it).",
    "shuffle": "Your own game: a discard pile shuffled back into its deck.",
    "next": "Your own game: the next phase or the next player's turn.",
    "hand": "Your own game: a hand as the referee knows it (private).",
    "step": "Your own game: the step of the phase, run or answered (rules as data).",
    "put": "Your own game: PLAYER puts CARD into play (--to ZONE); its effects apply.",
    "reveal": "Your own game: PLAYER reveals a deck's top card; its effects apply.",
    "give": "Your own game: GIVER gives TAKER N tokens (give Ann Bob cargo 2).",
}
for _name, _help in TABLE_COMMANDS.items():
    LAZY_GROUPS[_name] = ("referee.table.cli", "next_" if _name == "next" else _name)
    LAZY_HELP[_name] = _help


def _module_exists(name: str) -> bool:
    import importlib.util  # here, not at start-up: only `referee --help` and the groups need it

    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def _refuse(message: str, code: int, argv: list[str]) -> None:
    """One line on stderr (and the JSON object when --json) for click's own errors."""
    message = one_line(message)
    click.echo(f"referee: {message}", err=True)
    if "--json" in argv:
        import json

        click.echo(json.dumps({"ok": False, "error": message, "ruling": None, "exit_code": code}))
    sys.exit(code)


class RefereeGroup(click.Group):
    """A click group that also lists/loads the lazy game groups."""

    @staticmethod
    def lazy(plugins: bool = True) -> dict[str, tuple[str, str]]:
        """LAZY_GROUPS and the group of every registered game (referee.games)."""
        found = {name: (mod, attr) for name, (mod, attr, _) in games.groups(plugins).items()}
        return {**LAZY_GROUPS, **found}

    @staticmethod
    def short_forms(plugins: bool = True) -> dict[str, tuple[str, str]]:
        """A game's `commands` that are commands of its group, kept at the top level:
        `referee mt ...` is `referee xs mt ...` (name -> (group, command))."""
        return {name: (g.group[0], name) for g in games.known(plugins) if g.group
                for name in g.commands}

    def list_commands(self, ctx: click.Context) -> list[str]:
        lazy = [name for name, (mod, _) in self.lazy().items() if _module_exists(mod)]
        short = [name for name, (group, _) in self.short_forms().items() if group in lazy]
        return sorted(set(super().list_commands(ctx)) | set(lazy) | set(short))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:  # a core command: no game registry asked
            return self.commands[cmd_name]
        # a bundled game's command is found without looking for installed plug-ins
        plugins = cmd_name not in {**self.lazy(False), **self.short_forms(False)}
        short = self.short_forms(plugins)
        if cmd_name in short and cmd_name not in LAZY_GROUPS:
            group_name, sub = short[cmd_name]
            group = self.get_command(ctx, group_name)
            return group.get_command(ctx, sub) if isinstance(group, click.Group) else None
        lazy = self.lazy(plugins)
        if cmd_name in lazy:
            mod, attr = lazy[cmd_name]
            if not _module_exists(mod):
                return None
            import importlib

            return getattr(importlib.import_module(mod), attr)
        return super().get_command(ctx, cmd_name)

    def main(
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Like click's, but click's own usage errors are one line too (exit 2)."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        argv = list(sys.argv[1:] if args is None else args)
        prog_name = prog_name or "referee"
        try:
            code = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.UsageError as error:
            # "referee: mt: Missing argument", not "referee: referee mt: ..."
            where = error.ctx.command_path.partition(" ")[2] if error.ctx else ""
            message = error.format_message()
            _refuse(f"{where}: {message}" if where else message, 2, argv)
        except click.exceptions.ClickException as error:
            _refuse(error.format_message(), error.exit_code, argv)
        except click.exceptions.Abort:
            _refuse("aborted", 1, argv)
        sys.exit(code if isinstance(code, int) else 0)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            if name in self.lazy():
                help_of = {n: text for n, (_, _, text) in games.groups().items()}
                rows.append((name, LAZY_HELP.get(name) or help_of.get(name, f"{name} commands.")))
                continue
            if name in self.short_forms():
                group_name, sub = self.short_forms()[name]
                title = next(g.title for g in games.REGISTRY.values()
                             if g.group and g.group[0] == group_name)
                rows.append((name, f"{title}: `{group_name} {sub}` (see its --help)."))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(formatter.width - 6 - len(name))))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=RefereeGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--session",
    type=click.Path(dir_okay=False),
    envvar="REFEREE_SESSION",
    default=DEFAULT_SESSION,
    show_default=True,
    help="Session file (env REFEREE_SESSION).",
)
@click.option("--seed", type=SEED, default=None, help="Seed all randomness (reproducible).")
@click.option(
    "--cards",
    type=click.Path(dir_okay=False),
    envvar="REFEREE_CARDS",
    default=None,
    help="Card database (env REFEREE_CARDS; default ./cards.yaml, else the bundled one).",
)
@click.pass_context
def main(ctx: click.Context, session: str, seed: int | None, cards: str | None) -> None:
    """Table referee for XO!, X-Statix and your own game of cards.yaml (the table kit):
    dice, exact odds, game sessions.

    Exit codes: 0 success, 1 a rule or game-state refusal, 2 bad usage or input."""
    ctx.obj = GlobalOptions(session=session, seed=seed, cards=cards)


def _seed(ctx: click.Context, seed: int | None) -> int | None:
    """The command's --seed, else the global one."""
    return seed if seed is not None else global_options(ctx).seed


# "roll 1d6 -1": a word like "-1" is part of the expression, not an unknown option
_EXPRESSION_CONTEXT = {"ignore_unknown_options": True}


# ── dice ───────────────────────────────────────────────────────────────────────
@main.command(context_settings=_EXPRESSION_CONTEXT)
@click.argument("expression", nargs=-1, required=True)
@click.option(
    "--league",
    type=click.Choice(["heroes", "villains"]),
    default="heroes",
    show_default=True,
    help="Mask dice set: heroes = White Mask, villains = Black Mask (XO-1).",
)
@click.option("--roll", "entered", metavar="FACES", help="Faces rolled at the table, e.g. 3,0,2.")
@seed_option
@json_option
@click.pass_context
def roll(
    ctx: click.Context,
    expression: tuple[str, ...],
    league: str,
    entered: str | None,
    seed: int | None,
    as_json: bool,
) -> None:
    """Roll dice: 3 or 3m (mask dice), 2d6, 1d6+2, 4d6; in a session of your own game
    (the table kit) `roll N [DIE]` rolls its die, logged; `roll N DIE` names a die of
    ./cards.yaml."""
    from referee import rolling  # here: what status or mt run never needs

    words = " ".join(expression).split()
    if rolling.kit_roll(global_options(ctx).session, words):
        from referee.table.cli import session_roll

        if seed is not None:
            from referee.command import SEED_REFUSED, fail

            fail(SEED_REFUSED, 2, None, as_json)
        ctx.invoke(session_roll, words=tuple(words), entered=entered, as_json=as_json)
        return

    def answer() -> Reply:
        from referee import notation

        try:
            expr = notation.parse(" ".join(expression))
        except UsageError:
            own = _own_die(ctx, words)
            if own is None:
                raise
            return _roll_own_die(ctx, seed, entered, *own)
        return rolling.dice_reply(expr, league, entered, _seed(ctx, seed))

    run(as_json, answer)


def _own_die(ctx: click.Context, words: list[str]) -> tuple[Any, Any, int] | None:
    """(game, die, n) when `words` are `N DIE` naming a die of a game of the card database
    (--cards, else ./cards.yaml) played with the table kit; None otherwise."""
    from referee import rolling

    if not rolling.could_be_own_die(words):
        return None
    from referee.command import load_cards
    from referee.table import dice as own
    from referee.table.kit import TableGame

    db = load_cards(global_options(ctx).cards)
    for gid, found in db.games.items():
        if found.rules is None:
            game = TableGame.from_db(db, gid)
            die = {n.casefold(): d for n, d in game.dice.items()}.get(words[1].casefold())
            if die is not None:
                return game, die, own.count_of(words[0])
    return None


def _roll_own_die(ctx: click.Context, seed: int | None, entered: str | None, game: Any,
                  die: Any, n: int) -> Reply:
    from referee import rolling
    from referee.table.dice import FaceSource, roll_line, summary

    source = FaceSource(rolling.seeded(_seed(ctx, seed)), entered)
    faces = source.take(n, die, f"{n} {die.name}")
    source.check_all_used()
    line = roll_line(die, faces) + ("  (faces from the table)" if entered else "")
    return Reply([line], {"game": game.id, "die": die.name, **summary(faces, die),
                          "entered": entered is not None})


# ── odds ───────────────────────────────────────────────────────────────────────
@main.command(context_settings=_EXPRESSION_CONTEXT)
@click.argument("expression", nargs=-1, required=True)
@click.option("--at-least", "at_least", type=WHOLE,
              help="P(total >= N), e.g. for a feat (XO-13); of your game: P(outcome >= N).")
@json_option
@click.pass_context
def odds(ctx: click.Context, expression: tuple[str, ...], at_least: int | None,
         as_json: bool) -> None:
    """Exact odds: `3m vs 2m` (hit = left strictly greater, XO-3), `4m --at-least 6`,
    `1d6`, `2d6+2`. Your game's dice (cards.yaml): `"3 storm"` (each face's count and the
    numeric sum), `"3 battle + 1 fate" "sword - shield"` (an outcome: a face's count, a
    net count, sum), `"2 fate" --at-least 9 sum`, `"3 battle" vs "2 battle" sword`,
    `"3 battle sword" vs "2 battle shield"`. Its decks: `draw 5 storms --at-least 1
    Squall` (a card, a type, `"speed >= 4"`)."""

    def answer() -> Reply:
        from referee import notation
        from referee import odds as exact

        words = " ".join(expression).split()
        if words and words[0].casefold() == "draw" or _looks_like_pool(words):
            from referee.command import load_cards
            from referee.table import odds_cli

            db = load_cards(global_options(ctx).cards)
            if words[0].casefold() == "draw":
                return odds_cli.deck_answer(db, words, at_least)
            return odds_cli.dice_answer(db, " ".join(words), at_least, _named_rolls(db))
        named = _named_roll_question(ctx, words, at_least)
        if named is not None:
            return named
        splits = [i for i, w in enumerate(words) if w.lower() == "vs"]
        if len(splits) > 1:
            raise UsageError("odds compares two sides: LEFT vs RIGHT")
        if splits:
            i = splits[0]
            if at_least is not None:
                raise UsageError("--at-least takes one expression, not LEFT vs RIGHT")
            if i == 0 or i == len(words) - 1:
                raise UsageError("odds LEFT vs RIGHT needs an expression on each side")
            left = notation.parse(" ".join(words[:i]))
            right = notation.parse(" ".join(words[i + 1 :]))
            combat = bool(left.mask_dice and right.mask_dice)  # ACV vs DCV: never below 0
            result = exact.compare(left, right, 0 if combat else None)
            moff = {
                side: exact.moffed_probability(e) for side, e in (("left", left), ("right", right))
            }
            lines = [
                f"{left} vs {right}: a hit needs left > right (XO-3)"
                + (", each total at least 0 (XO-17)" if combat else ""),
                f"  win   {result.win}  = {percent(result.win)}",
                f"  tie   {result.tie}  = {percent(result.tie)}",
                f"  loss  {result.loss}  = {percent(result.loss)}",
                f"  moffed (XO-5): left {moff['left']} = {percent(moff['left'])}, "
                f"right {moff['right']} = {percent(moff['right'])}",
                "  margin (left - right):",
            ]
            lines += [f"    {m:>+4d}  {percent(p):>8}  {p}" for m, p in result.margin.items()]
            data: dict[str, Any] = {
                "left": str(left),
                "right": str(right),
                "win": fraction_json(result.win),
                "tie": fraction_json(result.tie),
                "loss": fraction_json(result.loss),
                "moffed": {k: fraction_json(v) for k, v in moff.items()},
                "margin": {str(m): fraction_json(p) for m, p in result.margin.items()},
            }
            return Reply(lines, data)
        expr = notation.parse(" ".join(words))
        dist = exact.distribution(expr)
        moffed = exact.moffed_probability(expr)
        lines = [f"{expr}: mean {float(dist.mean()):.3f}"]
        data = {
            "expression": str(expr),
            "mean": fraction_json(dist.mean()),
            "distribution": {str(v): fraction_json(p) for v, p in dist.fractions().items()},
            "moffed": fraction_json(moffed),
        }
        if at_least is not None:
            p = dist.at_least(at_least)
            lines.append(f"  P(total >= {at_least}) = {p} = {percent(p)}")
            data["at_least"] = {"n": at_least, **fraction_json(p)}
        if expr.mask_dice:
            lines.append(f"  P(moffed) (XO-5) = {moffed} = {percent(moffed)}")
        lines.append("  total  P(=)      P(>=)")
        for value, p in dist.fractions().items():
            lines.append(f"  {value:>5}  {percent(p):>8}  {percent(dist.at_least(value)):>8}  {p}")
        return Reply(lines, data)

    run(as_json, answer)


def _named_rolls(db: Any) -> Any:
    """`rolls_of(game id)` for referee/table/odds_cli.py: a game's named rolls (cards.yaml
    `rolls:`, carddb.gamerules) as (its dice, its outcome)."""
    from carddb.gamerules import rules_of

    def rolls_of(game_id: str) -> dict[str, tuple[str, str]]:
        game = db.games[game_id]
        rolls = rules_of(game.extras, game.card_types).rolls
        return {n: (" + ".join(f"{k} {d}" for d, k in r.pool), r.outcome)
                for n, r in rolls.items()}

    return rolls_of


def _named_roll_question(ctx: click.Context, words: list[str], at_least: int | None) -> Any:
    """`odds weather` (a named roll of ./cards.yaml, first word a roll's name): its answer;
    None when no game of the database names such a roll (then: dice notation)."""
    if not words or not words[0][:1].isalpha():
        return None
    from referee.command import load_cards

    try:
        db = load_cards(global_options(ctx).cards)
    except (RefereeError, UsageError):
        return None
    rolls_of = _named_rolls(db)
    wanted = words[0].casefold()
    if not any(wanted in {n.casefold() for n in rolls_of(g)} for g, game in db.games.items()
               if game.rules is None):
        return None
    from referee.table import odds_cli

    return odds_cli.dice_answer(db, " ".join(words), at_least, rolls_of)


def _looks_like_pool(words: list[str]) -> bool:
    """`N DIE ...`: a count then a word that is no dice notation (not `3m`, `2d6`, `3 vs 2`)."""
    return (len(words) >= 2 and words[0].isascii() and words[0].isdigit()
            and words[1][:1].isalpha() and words[1].casefold() != "vs")


# ── sessions ───────────────────────────────────────────────────────────────────
def game_to_start(game: str, cards: str | None) -> tuple[games.Game, str | None, Any]:
    """The registered game `game` names, else a game of the card database (--cards, else
    ./cards.yaml) without a rules plug-in, played with the table kit: (entry, that game's
    id or None, the database when it was loaded)."""
    try:
        return games.entry(game), None, None
    except UsageError:
        pass
    from referee.command import load_cards

    db = load_cards(cards)
    wanted = game.strip().casefold()
    for gid, found in db.games.items():
        if gid.casefold() == wanted or found.title.casefold() == wanted:
            if found.rules is not None:  # a game with rules but no referee module
                raise UsageError(f"{found.title} names rules {found.rules!r}, which the referee "
                                 "does not play; remove `rules:` to play it with the table kit")
            return games.TABLE_KIT, gid, db
    import carddb

    own = [gid for gid, found in db.games.items() if found.rules is None]
    choices = ", ".join(dict.fromkeys([*games.REGISTRY, *own]))
    raise UsageError(f"unknown game {game!r}: choose {choices} "
                     f"(the games of {carddb.display_name(db.path)} and the bundled ones)")



class NewCommand(click.Command):
    """`referee new`: its own options, then the options the game it names declares
    (`Game.options`, referee/games.py): `new x-statix --owner Ann=Coach`. An option of
    another game is refused in one line naming the games it belongs to."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["referee.new"] = self._game_options(args)
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as error:
            owners = [g.title for g in games.REGISTRY.values()
                      if any(error.option_name in o.opts for o in g.new_options())]
            if not owners:
                raise
            raise click.UsageError(f"{error.option_name} is an option of "
                                   f"{' and '.join(owners)}, not of this game", ctx) from None

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        params = super().get_params(ctx)
        extra = ctx.meta.get("referee.new", [])
        return [*params[:-1], *extra, params[-1]] if extra else params

    @staticmethod
    def _game_options(args: list[str]) -> list[click.Option]:
        """The options of the first registered game `args` names (none for a game of
        cards.yaml played with the table kit, or before the game is typed)."""
        for word in args:
            if word.startswith("-"):
                continue
            try:
                return games.entry(word).new_options()
            except UsageError:
                continue
        return []


@main.command(cls=NewCommand)
@click.argument("game")
@click.option("--players", required=True, help="Names in seat order, comma-separated.")
@click.option("--force", is_flag=True, help="Start over in an existing session (its log is kept).")
@click.option(
    "--roll",
    "entered",
    metavar="FACES",
    help="Setup dice rolled at the table, in order (X-Statix: each player's 4D6 MT in seat "
    "order, then the first-player 1D6s; XO!: heroes' then villains' mask die per round).",
)
@seed_option
@json_option
@click.pass_context
def new(
    ctx: click.Context,
    game: str,
    players: str,
    force: bool,
    entered: str | None,
    seed: int | None,
    as_json: bool,
    **options: Any,
) -> None:
    """Start a game: `new xo --players HEROES,VILLAINS`, `new x-statix --players A,B[,C]`,
    or any game of your cards.yaml: `new harbour --players Ann,Bob` (the table kit). A
    game's own options: `referee new GAME --help`."""

    def answer() -> Reply:
        import random
        from pathlib import Path

        from referee.command import load_cards, public_state
        from referee.session import Session, already_holds_a_game
        from referee.words import counted

        opts = global_options(ctx)
        entry, kit_game, db = game_to_start(game, opts.cards)
        names = [p.strip() for p in players.split(",")]
        for name in names:  # a name is printed in status lines and the log: one line each
            if not name.isprintable():
                raise UsageError(f"--players: {shown(name)} holds control characters")
        existing = Path(opts.session)
        if existing.exists() or existing.is_symlink():  # refuse before any setup work
            Session.check(existing)
            if not force:
                raise RefereeError(already_holds_a_game(str(existing)))
        game_seed = seed if seed is not None else opts.seed
        if game_seed is None:  # every game has a seed: its referee dice follow it (Tx.rng)
            game_seed = random.SystemRandom().randrange(2**63)
        rng: Any = random.Random(game_seed)
        module = entry.rules_module()
        if kit_game is not None:  # the table kit: its own dice, asked for on a terminal
            from referee.command import at_terminal
            from referee.table.cli import ask_face
            from referee.table.dice import FaceSource

            rng = FaceSource(rng, entered, ask_face if at_terminal() and entered is None
                             else None)
            state = module.new_state(names, db, rng, game=kit_game, seed=game_seed)
            rng.check_all_used()
        else:
            # the setup dice as every command asks for them (issue 23): --roll, else on a
            # terminal each die by name (Enter: the referee rolls it and says so); no
            # terminal and no --roll: the referee rolls them, as before
            from referee.command import table_dice

            rng = table_dice(entered, rng, ask=True)
            db = db if db is not None else load_cards(opts.cards, entry.id)
            state = module.new_state(names, db, rng, seed=game_seed, **options)
            if entered is not None and rng.unused:
                raise UsageError(
                    f"--roll {entered!r}: setup rolled {counted(rng.used, 'die', 'dice')}, "
                    f"{counted(rng.unused, 'face')} left over"
                )
        summary = module.setup_summary(state)
        from referee import kept  # the session keeps the game as it begins (its cards)

        Session.create(opts.session, state, summary,
                       {"setup": state.get("setup"), **kept.payload(state, db)}, replace=force)
        lines = [summary, *module.status_lines(state), f"session: {opts.session}"]
        return Reply(
            lines, {"session": opts.session, "summary": summary, "state": public_state(state)}
        )

    run(as_json, answer)


@main.command()
@session_command(write=False)
def status(tx: Tx) -> Reply:
    """Show the table: turn, tokens, cards in play."""
    from referee.status import status_reply

    return status_reply(tx)


def _screenful() -> int | None:
    """How many events `log` shows by default: a screenful at a terminal, else all."""
    if not sys.stdout.isatty():
        return None
    import shutil

    return max(1, shutil.get_terminal_size().lines - 2)  # the "earlier" line and a prompt


@main.command()
@click.option("--last", type=WholeNumber(min=1),
              help="Only the last N events (default: a screenful at a terminal, else all).")
@click.option("--limit", type=WholeNumber(min=1), hidden=True, help="The same as --last.")
@click.option("--all", "everything", is_flag=True, help="Every event (as in a pipe).")
@session_command(write=False)
def log(tx: Tx, last: int | None, limit: int | None, everything: bool) -> Reply:
    """The history of the game, oldest first, with timestamps (UTC). Reads only the
    events it shows."""
    last = last if last is not None else limit
    if everything and last is not None:
        raise UsageError("log: give --last N or --all, not both")
    if last is None and not everything:
        last = _screenful()
    events = tx.session.log(last=last)
    earlier = events[0].seq - 1 if events else 0
    lines = [
        f"{e.seq:>4}  {e.ts}  {e.kind:<8} {e.summary}{'  [undone]' if e.undone else ''}"
        for e in events
    ]
    if earlier:
        lines.insert(0, f"({earlier} earlier {'event' if earlier == 1 else 'events'}: "
                        "log --last N or --all)")
    from referee.kept import public_event

    return Reply(lines, {"events": [public_event(e.as_json()) for e in events],
                         "earlier": earlier})


@main.command()
@click.argument("n", type=WholeNumber(min=1), default=1)
@session_command(rolls=False)
def undo(tx: Tx, n: int) -> Reply:
    """Revert the last N events (default 1); the undo is itself logged."""
    seq, reverted = tx.session.undo(n)
    lines = [f"undone #{s}" for s in reverted] + tx.game.status_lines(tx.state)
    return Reply(lines, {"seq": seq, "undone": reverted, "state": tx.public(tx.state)})


@main.command()
@click.argument("n", type=WholeNumber(min=1), default=1)
@session_command(rolls=False)
def redo(tx: Tx, n: int) -> Reply:
    """Re-apply the last N undone events (default 1); the redo is itself logged."""
    seq, redone = tx.session.redo(n)
    lines = [f"redone #{s}" for s in redone] + tx.game.status_lines(tx.state)
    return Reply(lines, {"seq": seq, "redone": redone, "state": tx.public(tx.state)})
