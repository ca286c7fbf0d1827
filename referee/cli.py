"""`referee`: the table referee's command line. Thin: parse, call a pure function, print.

Fast start matters (`referee roll 3` at the table): only click and the small dice modules
load at import; sqlite3, carddb and the game packages load inside the commands that use
them, and the `xo`, `xs` and `simulate` groups are imported only when invoked."""

from __future__ import annotations

import sys
from typing import Any

import click

from referee.command import (
    DEFAULT_SESSION,
    SEED,
    WHOLE,
    GlobalOptions,
    Reply,
    Tx,
    WholeNumber,
    global_options,
    json_option,
    percent,
    run,
    seed_option,
    session_command,
)
from referee.errors import RefereeError, UsageError
from referee.inputs import MAX_DIGITS, one_line, shown, small_int

# name -> (module, attribute): command groups mounted when their module exists, imported
# only when invoked (`referee --help` shows LAZY_HELP instead of importing them).
LAZY_GROUPS = {
    "xo": ("referee.xo.cli", "xo"),
    "xs": ("referee.xs.cli", "xs"),
    "simulate": ("referee.simulate.cli", "simulate"),
}
LAZY_HELP = {
    "xo": "XO! game commands (see `referee xo --help`).",
    "xs": "X-Statix game commands (see `referee xs --help`).",
    "simulate": "Simulated games and strategy statistics.",
}
LEAGUE_DICE = {"heroes": "White Mask", "villains": "Black Mask"}  # XO-1


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

    def list_commands(self, ctx: click.Context) -> list[str]:
        lazy = [name for name, (mod, _) in LAZY_GROUPS.items() if _module_exists(mod)]
        return sorted(set(super().list_commands(ctx)) | set(lazy))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY_GROUPS:
            mod, attr = LAZY_GROUPS[cmd_name]
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
            if name in LAZY_GROUPS:
                rows.append((name, LAZY_HELP.get(name, f"{name} commands.")))
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
    """Table referee for XO! and X-Statix: dice, exact odds, game sessions.

    Exit codes: 0 success, 1 a rule or game-state refusal, 2 bad usage or input."""
    ctx.obj = GlobalOptions(session=session, seed=seed, cards=cards)


def _seeded(ctx: click.Context, seed: int | None) -> Any:
    import random

    seed = seed if seed is not None else global_options(ctx).seed
    return random.Random(seed) if seed is not None else random.SystemRandom()


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
    """Roll dice: 3 or 3m (mask dice), 2d6, 1d6+2, 4d6."""

    def answer() -> Reply:
        from referee import notation

        expr = notation.parse(" ".join(expression))
        rolled = notation.roll(expr, None if entered else _seeded(ctx, seed), entered)
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
            lines.append(click.style("MOFFED: every mask die shows 0 (XO-5)", fg="red", bold=True))
        data = {
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

    run(as_json, answer)


# ── odds ───────────────────────────────────────────────────────────────────────
def _fraction_json(p: Any) -> dict:
    return {"fraction": str(p), "value": float(p)}


@main.command(context_settings=_EXPRESSION_CONTEXT)
@click.argument("expression", nargs=-1, required=True)
@click.option("--at-least", "at_least", type=WHOLE, help="P(total >= N), e.g. for a feat (XO-13).")
@json_option
def odds(expression: tuple[str, ...], at_least: int | None, as_json: bool) -> None:
    """Exact odds: `3m vs 2m` (hit = left strictly greater, XO-3), `4m --at-least 6`,
    `1d6`, `2d6+2`."""

    def answer() -> Reply:
        from referee import notation
        from referee import odds as exact

        words = " ".join(expression).split()
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
            result = exact.compare(left, right)
            moff = {
                side: exact.moffed_probability(e) for side, e in (("left", left), ("right", right))
            }
            lines = [
                f"{left} vs {right}: a hit needs left > right (XO-3)",
                f"  win   {result.win}  = {percent(result.win)}",
                f"  tie   {result.tie}  = {percent(result.tie)}",
                f"  loss  {result.loss}  = {percent(result.loss)}",
                f"  moffed (XO-5): left {moff['left']} = {percent(moff['left'])}, "
                f"right {moff['right']} = {percent(moff['right'])}",
                "  margin (left - right):",
            ]
            lines += [f"    {m:>+4d}  {percent(p):>8}  {p}" for m, p in result.margin.items()]
            data = {
                "left": str(left),
                "right": str(right),
                "win": _fraction_json(result.win),
                "tie": _fraction_json(result.tie),
                "loss": _fraction_json(result.loss),
                "moffed": {k: _fraction_json(v) for k, v in moff.items()},
                "margin": {str(m): _fraction_json(p) for m, p in result.margin.items()},
            }
            return Reply(lines, data)
        expr = notation.parse(" ".join(words))
        dist = exact.distribution(expr)
        moffed = exact.moffed_probability(expr)
        lines = [f"{expr}: mean {float(dist.mean()):.3f}"]
        data: dict[str, Any] = {
            "expression": str(expr),
            "mean": _fraction_json(dist.mean()),
            "distribution": {str(v): _fraction_json(p) for v, p in dist.fractions().items()},
            "moffed": _fraction_json(moffed),
        }
        if at_least is not None:
            p = dist.at_least(at_least)
            lines.append(f"  P(total >= {at_least}) = {p} = {percent(p)}")
            data["at_least"] = {"n": at_least, **_fraction_json(p)}
        if expr.mask_dice:
            lines.append(f"  P(moffed) (XO-5) = {moffed} = {percent(moffed)}")
        lines.append("  total  P(=)      P(>=)")
        for value, p in dist.fractions().items():
            lines.append(f"  {value:>5}  {percent(p):>8}  {percent(dist.at_least(value)):>8}  {p}")
        return Reply(lines, data)

    run(as_json, answer)


# ── sessions ───────────────────────────────────────────────────────────────────
def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    result = {}
    for value in values:
        player, sep, card = value.partition("=")
        if not sep or not player.strip() or not card.strip():
            raise UsageError(f"{option} {value!r}: write {option} PLAYER=CARD")
        result[player.strip()] = card.strip()
    return result


@main.command()
@click.argument("game")
@click.option("--players", required=True, help="Names in seat order, comma-separated.")
@click.option(
    "--owner", "owners", multiple=True, metavar="PLAYER=CARD", help="X-Statix: choose an Owner."
)
@click.option(
    "--team", "teams", multiple=True, metavar="PLAYER=CARD", help="X-Statix: choose a Team Name."
)
@click.option(
    "--deal",
    type=click.Choice(["table", "referee"]),
    default=None,
    help="X-Statix: table = the players' own printed deck (default; the referee counts "
    "cards and learns each one when shown, XS-16); referee = a virtual deck the referee "
    "shuffles and deals (solo tests, remote play).",
)
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
    owners: tuple[str, ...],
    teams: tuple[str, ...],
    deal: str | None,
    force: bool,
    entered: str | None,
    seed: int | None,
    as_json: bool,
) -> None:
    """Start a game: `new xo --players HEROES,VILLAINS` or `new x-statix --players A,B[,C]`."""

    def answer() -> Reply:
        import random
        from pathlib import Path

        from referee import games
        from referee.command import load_cards
        from referee.session import Session, already_holds_a_game
        from referee.words import counted

        game_id = games.canonical(game)
        names = [p.strip() for p in players.split(",")]
        for name in names:  # a name is printed in status lines and the log: one line each
            if not name.isprintable():
                raise UsageError(f"--players: {shown(name)} holds control characters")
        options: dict[str, Any] = {}
        if owners or teams:
            if game_id != "x-statix":
                raise UsageError("--owner and --team are X-Statix options")
            options = {"owners": _pairs(owners, "--owner"), "teams": _pairs(teams, "--team")}
        if game_id == "x-statix":
            options["deal"] = deal or "table"
        elif deal is not None:
            raise UsageError("--deal is an X-Statix option (XO!'s players hold their own cards)")
        opts = global_options(ctx)
        existing = Path(opts.session)
        if existing.exists() or existing.is_symlink():  # refuse before any setup work
            Session.check(existing)
            if not force:
                raise RefereeError(already_holds_a_game(existing))
        game_seed = seed if seed is not None else opts.seed
        if game_seed is None:  # every game has a seed: its referee dice follow it (Tx.rng)
            game_seed = random.SystemRandom().randrange(2**63)
        rng = random.Random(game_seed)
        module = games.module(game_id)
        if entered is not None:
            from referee.dice import TableDice

            rng = TableDice(entered, rng)
        state = module.new_state(names, load_cards(opts.cards, game_id), rng, seed=game_seed,
                                 **options)
        if entered is not None and rng.unused:
            raise UsageError(
                f"--roll {entered!r}: setup rolled {counted(rng.used, 'die', 'dice')}, "
                f"{counted(rng.unused, 'face')} left over"
            )
        summary = module.setup_summary(state)
        Session.create(opts.session, state, summary, {"setup": state.get("setup")}, replace=force)
        lines = [summary, *module.status_lines(state), f"session: {opts.session}"]
        from referee.command import public_state

        return Reply(
            lines, {"session": opts.session, "summary": summary, "state": public_state(state)}
        )

    run(as_json, answer)


@main.command()
@session_command(write=False)
def status(tx: Tx) -> Reply:
    """Show the table: turn, tokens, cards in play."""
    state = tx.state
    lines = tx.game.status_lines(state)
    return Reply(lines, {"seq": tx.session.last_seq, "lines": lines, "state": tx.public(state)})


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
    return Reply(lines, {"events": [e.as_json() for e in events], "earlier": earlier})


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


# ── X-Statix tokens ────────────────────────────────────────────────────────────
def _delta(text: str) -> tuple[str, int]:
    """ "+5" / "-3" change a balance, "=7" sets it."""
    text = text.strip()
    value = small_int(text[1:]) if text[1:2] not in ("+", "-") else None
    if len(text) > 1 and text[0] in "+-=" and value is not None:
        return text[0], value
    raise UsageError(
        f"amount {shown(text)}: write +N to add, -N to take away, =N to set "
        f"(N: digits 0-9, at most {MAX_DIGITS})"
    )


def _apply(before: int, op: str, amount: int) -> int:
    return before + amount if op == "+" else before - amount if op == "-" else amount


_TOKEN_CONTEXT = {"ignore_unknown_options": True}  # so "-3" is an amount, not an option


@main.command(context_settings=_TOKEN_CONTEXT)
@click.argument("player")
@click.argument("amount")
@session_command(rolls=False)
def mt(tx: Tx, player: str, amount: str) -> Reply:
    """X-Statix money tokens: `mt PLAYER +5`, `mt PLAYER -3`, `mt PLAYER =10`."""
    op, value = _delta(amount)
    state = tx.require_game("x-statix")
    seat = {p.casefold(): p for p in state["players"]}.get(player.strip().casefold())
    if seat is None:
        raise UsageError(f"no player {player!r}: players are {', '.join(state['players'])}")
    before = state["table"][seat]["mt"]
    after = _apply(before, op, value)
    if after < 0:
        raise RefereeError(
            f"{seat} has {before} MT; taking {value} would go below zero, nothing changed", "XS-2"
        )
    state["table"][seat]["mt"] = after
    summary = f"{seat} MT {amount}: {before} -> {after}"
    tx.record(
        "mt",
        summary,
        {"player": seat, "op": op, "amount": value, "before": before, "after": after},
        state,
    )
    balances = {p: state["table"][p]["mt"] for p in state["players"]}
    lines = [summary, "  " + ", ".join(f"{p} {m} MT" for p, m in balances.items())]
    return Reply(lines, {"player": seat, "before": before, "after": after, "balances": balances})


@main.command(context_settings=_TOKEN_CONTEXT)
@click.argument("hero")
@click.argument("amount")
@session_command(rolls=False)
def ft(tx: Tx, hero: str, amount: str) -> Reply:
    """X-Statix fame tokens on a hero in play: `ft HERO +1`, `ft HERO -1`."""
    op, value = _delta(amount)
    state = tx.require_game("x-statix")
    found = [
        (player, h)
        for player in state["players"]
        for h in state["table"][player]["heroes"]
        if h["name"].casefold() == hero.strip().casefold()
    ]
    if not found:
        in_play = [h["name"] for p in state["players"] for h in state["table"][p]["heroes"]]
        raise RefereeError(
            f"{shown(hero)} is not in play; heroes in play: {', '.join(in_play) or 'none'}"
        )
    player, card = found[0]
    before = card["ft"]
    after = _apply(before, op, value)
    if after < 0:
        raise RefereeError(
            f"{card['name']} has {before} FT; taking {value} would go below zero, nothing changed"
        )
    card["ft"] = after
    summary = f"{card['name']} ({player}) FT {amount}: {before} -> {after}"
    tx.record(
        "ft",
        summary,
        {
            "hero": card["name"],
            "player": player,
            "op": op,
            "amount": value,
            "before": before,
            "after": after,
        },
        state,
    )
    lines = [summary]
    from referee.xs.game import marketing_load

    if marketing_load(card, tx.db) > after:
        lines.append(
            f"  note: {card['name']} now holds more Marketing cards than FT; no more may be "
            "attached until the FT catch up (XS-5)"
        )
    heroes = {h["name"]: h["ft"] for h in state["table"][player]["heroes"]}
    lines.append("  " + ", ".join(f"{n} {f} FT" for n, f in heroes.items()))
    return Reply(
        lines,
        {
            "hero": card["name"],
            "player": player,
            "before": before,
            "after": after,
            "heroes": heroes,
        },
    )
