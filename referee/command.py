"""What every referee command shares: the global options, one-line errors with the agreed
exit codes, text-or-JSON output, and `session_command` for commands that read or change the
session in one transaction. Light to import: no click, sqlite3, carddb or rich at module
level (click's types are in referee/click_types.py; the one-shot path, referee/oneshot.py,
runs `status` through `in_session` without click).

A game subcommand (in `referee/xo/cli.py`, `referee/xs/cli.py`) looks like:

    @xs.command("draw")
    @click.argument("player")
    @session_command()                      # adds --json and --roll
    def draw(tx: Tx, player: str) -> Reply:
        state = tx.require_game("x-statix")  # exit 1 if the session holds another game
        rng = tx.rng()                       # seeded per ARCHITECTURE "Randomness in a session"
        ...
        tx.record("draw", f"{player} draws", {"player": player}, state)
        return Reply([f"{player} draws a card"], {"player": player})
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from referee.errors import RefereeError, UsageError
from referee.inputs import one_line
from referee.words import counted

if TYPE_CHECKING:
    import random
    from types import ModuleType

    import click

    from carddb.model import Database
    from referee.kept import KeptGame
    from referee.session import Session

DEFAULT_SESSION = "referee-session.db"


class GlobalOptions:
    """`referee --session/--seed/--cards` (a plain class: dataclasses are slow to import)."""

    __slots__ = ("session", "seed", "cards")

    def __init__(
        self, session: str = DEFAULT_SESSION, seed: int | None = None, cards: str | None = None
    ) -> None:
        self.session = session
        self.seed = seed
        self.cards = cards


def __getattr__(name: str) -> Any:
    """`WholeNumber`, `WHOLE` and `SEED` (referee/click_types.py), as plug-ins import them
    from here (docs/PLUGINS.md): loaded, with click, when one is asked for."""
    if name in ("WholeNumber", "WHOLE", "SEED"):
        from referee import click_types

        return getattr(click_types, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def global_options(ctx: click.Context) -> GlobalOptions:
    """The `referee --session/--seed/--cards` values, from any nested command's context."""
    obj = ctx.find_root().obj
    return obj if isinstance(obj, GlobalOptions) else GlobalOptions()


class Reply:
    """A command's answer: `lines` for the terminal, `data` for `--json`. With `refusal`,
    what was recorded stands but the command itself is refused: the lines are printed, then
    the refusal's one line, exit 1 (X-Statix: an open roll the command settled, XS-2)."""

    __slots__ = ("lines", "data", "refusal")

    def __init__(self, lines: list[str], data: dict[str, Any] | None = None,
                 refusal: RefereeError | None = None) -> None:
        self.lines = lines
        self.data = data if data is not None else {}
        self.refusal = refusal


def reply_text(reply: Reply, as_json: bool) -> list[str]:
    """The lines a reply prints on stdout: its lines, or with --json one JSON object."""
    if as_json:
        import json

        return [json.dumps({"ok": True, **reply.data}, ensure_ascii=False)]
    return reply.lines


def refusal_text(message: str, code: int, ruling: str | None, as_json: bool,
                 data: dict[str, Any] | None = None) -> tuple[str, str | None]:
    """What a refusal prints: its one line for stderr and, with --json, the JSON object
    for stdout (with `data` if any)."""
    message = one_line(message)  # a value inside cannot fake a second line
    shown = f"{message} ({ruling})" if ruling and f"({ruling})" not in message else message
    if not as_json:
        return f"referee: {shown}", None
    import json

    return f"referee: {shown}", json.dumps({**(data or {}), "ok": False, "error": message,
                                            "ruling": ruling, "exit_code": code},
                                           ensure_ascii=False)


def emit(reply: Reply, as_json: bool) -> None:
    import click

    for line in reply_text(reply, as_json):
        click.echo(line)


def fail(message: str, code: int, ruling: str | None, as_json: bool,
         data: dict[str, Any] | None = None) -> None:
    """Print one error line (and a JSON object when --json, with `data` if any) and exit
    with `code`."""
    import click

    error, out = refusal_text(message, code, ruling, as_json, data)
    click.echo(error, err=True)
    if out is not None:
        click.echo(out)
    raise click.exceptions.Exit(code)


@contextlib.contextmanager
def guard(as_json: bool = False) -> Iterator[None]:
    """Turn referee errors into one line and the exit codes: RefereeError -> 1 (with its
    ruling), UsageError / DiceError / SessionError -> 2."""
    try:
        yield
    except RefereeError as error:
        fail(error.message, 1, error.ruling, as_json)
    except UsageError as error:
        fail(error.message, 2, None, as_json)


def load_cards(path: str | None = None, game: str | None = None) -> Database:
    """The card database (an invalid one is a refusal, exit 1): --cards, else the
    project's ./cards.yaml when it has `game`, else the bundled games (from the installed
    package), so a designer's own project in the current folder never hides them. With
    `game`, a database without that game is refused (UsageError, exit 2) in a line naming
    the games of the database in use (and, without --cards, the bundled ones too)."""
    import carddb

    bundled = None
    try:
        db = carddb.load(carddb.default_path() if path is None and game is not None else path)
        if path is None and game is not None and game not in db.games:
            bundled = carddb.load(carddb.bundled_path())
            db, bundled = (bundled, None) if game in bundled.games else (db, bundled)
    except carddb.DatabaseError as error:
        problems = getattr(error, "problems", None) or [error]
        more = f" (and {len(problems) - 1} more; run `pnp validate`)" if len(problems) > 1 else ""
        raise RefereeError(f"invalid card database: {problems[0]}{more}") from None
    except OSError as error:
        raise UsageError(f"cannot read the card database: {error}") from None
    if game is not None and game not in db.games:
        raise UsageError(_no_such_game(db, game, bundled))
    return db


def _no_such_game(db: Database, game: str, bundled: Database | None) -> str:
    """`cards.yaml has no bramble game (it has: harbour; bundled: x-statix, xo); ...`:
    the games of the database in use, then the bundled ones when they were looked in too."""
    from pathlib import Path

    import carddb
    from referee.games import title

    has = ", ".join(db.games) or "none"
    if bundled is not None and Path(bundled.path).resolve() != Path(db.path).resolve():
        has += f"; bundled: {', '.join(bundled.games) or 'none'}"
    return (f"{carddb.display_name(db.path)} has no {title(game)} game (it has: {has}); "
            "name a card database with one: --cards PATH")


def kept_of(session: str, game: str) -> Any:
    """The definition the session keeps of its current game `game` (referee/kept.py), or
    None (a session made before games were kept, or another game)."""
    from referee.session import Session

    with Session.open(session, write=False) as opened:
        return opened.kept_game() if opened.state.get("game") == game else None


def game_cards(session: str, cards: str | None, game: str) -> Any:
    """The card database the session's game plays on, read-only: the one it began with
    when the session keeps it (referee/kept.py), else `load_cards(cards, game)`."""
    kept = kept_of(session, game)
    if kept is not None and kept.kind == "cards":
        return kept.database()
    return load_cards(cards, game)


def game_context(session: str, cards: str | None, state: dict, entry: Any) -> Any:
    """What the game's `play` questions read (its entry's `context`), from the game the
    session keeps: a declared game's kept TableGame itself, else the context of the kept
    (or, for an old session, the current) card database."""
    game = str(state.get("game"))
    kept = kept_of(session, game)
    if kept is not None and kept.kind == "table":
        return kept.table_game()
    db = kept.database() if kept is not None else load_cards(cards, game)
    return entry.load_context(db, state)


def command_name(ctx: click.Context | None = None) -> str:
    """The subcommand's words without the program's name ("xs casualties")."""
    import click

    ctx = ctx or click.get_current_context(silent=True)
    words = []
    while ctx is not None and ctx.parent is not None:
        words.append(ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(reversed(words))


# `referee play` (referee/play/) answers the questions of the commands it runs from its own
# lines (a terminal with history, or a pipe: one answer a line): `prompter(text) -> line`,
# None at the end of its input. None here: a one-shot command asks on its terminal.
prompter: Callable[[str], str | None] | None = None


def at_terminal() -> bool:
    """Whether a person types the commands: dice not given are then asked for."""
    import sys

    return prompter is not None or sys.stdin.isatty()


def walked_by_play() -> bool:
    """Whether `referee play` runs this command: it walks the turn itself
    (referee/play/walk.py) and asks the table's questions between commands (XS-14's
    "anyone changing this roll?", whether to skip a Mission), so the command does not ask
    them again: it behaves there as in a script, and play asks. Dice are still asked."""
    return prompter is not None


def ask_line(prompt: str) -> str:
    """One answer typed for `prompt` (Enter: ""), on stderr at a terminal, or from
    `referee play`'s lines; the end of play's input aborts the command (nothing written)."""
    import click

    if prompter is None:
        return click.prompt(prompt, default="", show_default=False, err=True)
    text = prompter(f"{prompt}: ")
    if text is None:
        raise click.exceptions.Abort()
    return text


def ask_at_terminal(prompt: str, choices: tuple, most: int = 1) -> list[int] | str | None:
    """Ask for a die by name ("Smoke's survival roll, 1D6: "), or one pick made at the
    table when `choices` are names ("Carnage casualty, one of Smoke, Ocelot: ", XS-16), on
    stderr (stdout may be --json). Up to `most` faces may be typed at once (the rest of a
    roll: "3 1 0"). Enter with nothing: None, the referee rolls or picks it. A face the
    die cannot show, too many faces, or a name not among the choices is asked again."""
    import click

    names = [c for c in choices if isinstance(c, str)]
    referee = "picks" if names else "rolls"
    allowed = ", ".join(names) if names else ", ".join(str(f) for f in sorted(set(choices)))
    while True:
        text = ask_line(f"{prompt} (Enter: the referee {referee})").strip()
        if not text:
            return None
        if names:
            found = {n.casefold(): n for n in names}.get(text.casefold())
            if found is not None:
                return found
            click.echo(f"  {text!r}: one of {allowed}", err=True)
            continue
        parts = text.replace(",", " ").split()
        if not all(p.isascii() and p.isdigit() and int(p) in choices for p in parts):
            click.echo(f"  {text!r}: this die shows {allowed}", err=True)
        elif len(parts) > most:
            click.echo(f"  {text!r}: {counted(len(parts), 'face')}, but this roll needs "
                       f"{counted(most, 'more die', 'more dice')}", err=True)
        else:
            return [int(p) for p in parts]


def tell_at_terminal(text: str) -> None:
    """Say at once, under the prompt, what the referee rolled when asked to (stderr)."""
    import click

    click.echo(f"  {text}", err=True)


def table_dice(entered: str | None, fallback: random.Random, ask: bool = False,
               given: dict[str, list[int]] | None = None,
               option_of: Callable[[str], str] | None = None,
               note_rolls: bool = False,
               before_asking: Callable[[], None] | None = None) -> random.Random:
    """A command's die source (`dice.TableDice`, one for every game): the `--roll` faces
    (`entered`), faces `given` by role (XO!'s per-roll options, named by `option_of`),
    and with `ask`, on a terminal, each die still needed asked for by name (Enter: the
    referee rolls it and says so at once). Without a terminal a missing die is refused
    naming it once any face was given; with none given the referee rolls (noted in
    `referee_dice` when `note_rolls`; else plain `fallback` is returned). `before_asking`
    runs before each question (a session command lets go of the write lock)."""
    def asking(prompt: str, choices: tuple, most: int = 1) -> list[int] | str | None:
        if before_asking is not None:
            before_asking()  # nobody waits for the lock while a person is asked
        return ask_at_terminal(prompt, choices, most)

    ask_die = asking if ask and at_terminal() else None
    if entered is None and ask_die is None and not given and not note_rolls:
        return fallback
    from referee.dice import TableDice

    return TableDice(entered or "", fallback, ask_die, given=given, option_of=option_of,
                     roll_missing=entered is None and not given,
                     tell=tell_at_terminal if ask_die is not None else None)


def check_faces_used(entered: str | None, rng: random.Random) -> None:
    """With --roll, every face given must have been rolled by the command."""
    if entered is None:
        return
    from referee.dice import table_of

    table = table_of(rng)
    if table is None or not table.handed:
        raise UsageError(f"--roll {entered!r}: this command rolls no dice")
    if table.unused:
        raise UsageError(
            f"--roll {entered!r}: the command rolled {counted(table.handed, 'die', 'dice')}, "
            f"{counted(table.unused, 'face')} left over"
        )


SEED_REFUSED = (
    "--seed is for `new` (and `roll`/`odds`): a game's referee dice follow its own seed, "
    "its state and the command, so that they cannot be rolled again at will"
)


class _Fingerprints:
    """The fingerprints of the files `load_cards(cards, game)` looks at, each computed
    once (carddb.fingerprint): 0, --cards or ./cards.yaml; 1, the bundled games (looked
    at when the first has not the game)."""

    def __init__(self, cards: str | None) -> None:
        self.cards = cards
        self._known: dict[int, str | None] = {}

    def _path(self, index: int) -> Any:
        import carddb

        if index == 0:
            return self.cards if self.cards is not None else carddb.default_path()
        return carddb.bundled_path()

    def __call__(self, index: int) -> str | None:
        if index not in self._known:
            import carddb

            self._known[index] = carddb.fingerprint(self._path(index)) if index < 2 else None
        return self._known[index]

    def of(self, db: Any) -> list[str | None]:
        """Those of the files `db` (loaded by load_cards) came from."""
        from pathlib import Path

        first = Path(self._path(0)).resolve()
        return [self(0)] if Path(db.path).resolve() == first else [self(0), self(1)]


class Tx:
    """One command's transaction on the session (see `session_command`)."""

    def __init__(
        self,
        session: Session,
        options: GlobalOptions,
        seed: int | None = None,
        entered: str | None = None,
        command: str | None = None,
    ) -> None:
        if seed is not None or options.seed is not None:
            raise UsageError(SEED_REFUSED)
        self.session = session
        self.entered = entered  # --roll: faces rolled at the table
        self.options = options
        self.command = command_name() if command is None else command  # its dice follow it
        self._digest: str | None = None  # the state before the command's first event
        self._rng: random.Random | None = None
        self._db: Database | None = None
        self._kept: KeptGame | None = None
        self._kept_read = False
        self._found: Database | None = None  # cards.yaml as it is now, loaded by `kept`
        self.notice: str | None = None  # cards.yaml changed since the game began (`kept`)
        # a command whose later dice depend on its first (the X-Statix mission chain):
        # faces left when it stopped are ignored, and said in its reply
        self.faces_may_be_left = False

    @property
    def state(self) -> dict:
        """The current state: a fresh deep copy to change and pass to `record`."""
        return self.session.state

    def require_game(self, game: str) -> dict:
        """The state, or a refusal if the session holds another game."""
        from referee.games import title

        state = self.session.state
        if state.get("game") != game:
            raise RefereeError(
                f"this session holds a {title(state.get('game', '?'))} game, not {title(game)}"
            )
        return state

    def rng(self, ask: bool = False, given: dict[str, list[int]] | None = None,
            option_of: Callable[[str], str] | None = None,
            note_rolls: bool = False) -> random.Random:
        """The command's one random stream (the same object on every call), seeded from
        the game's seed, the state before the command and the command's name. With --roll
        (or faces `given` by role) a `dice.TableDice` (see `table_dice`); `ask`: the rules
        name their rolls, so on a terminal each die not given is asked for by name
        (without a terminal the command is then refused naming the next die, unless no
        face at all was given: the referee rolls). Before the first question the command
        lets go of the write lock (`Session.let_go`): its events are written at the end
        only if nobody changed the session meanwhile."""
        if self._rng is None:
            self._rng = table_dice(self.entered, self.session.rng(self.command, self._start_digest()),
                                   ask, given, option_of, note_rolls, self.session.let_go)
        return self._rng

    def referee_rolled(self) -> tuple[list[str], list[dict[str, Any]]]:
        """The dice the referee rolled: the lines the reply begins with (those not told
        under their prompt already) and, for --json, every one as {"roll", "faces"}."""
        if self._rng is None:  # nothing rolled (and referee.dice not imported: `status`)
            return [], []
        from referee.dice import table_of

        table = table_of(self._rng)
        if table is None:
            return [], []
        return list(table.rolled), table.referee_rolls()

    def check_entered_faces_used(self) -> None:
        """With --roll, every face given must have been rolled by the command (unless
        `faces_may_be_left`: a chain of steps that stopped early, which says so)."""
        if self.entered is not None and not self.faces_may_be_left:
            check_faces_used(self.entered, self.rng())

    def _start_digest(self) -> str:
        if self._digest is None:
            self._digest = self.session.state_digest()
        return self._digest

    def record(self, kind: str, summary: str, payload: dict, new_state: dict) -> int:
        self._start_digest()  # the dice follow the state the command started from
        return self.session.record(kind, summary, payload, new_state)

    def public(self, state: dict) -> dict:
        """`state` as the whole table may see it: the game module's `public_state` (hands
        and decks as counts, no seed), for every state a command prints."""
        return public_state(state)

    @property
    def db(self) -> Database:
        """The card database of the session's game (once per command): the one the game
        began with when the session keeps it (`kept`: X-Statix, XO!), else `load_cards`
        (a session made before games were kept: the state must name only its cards,
        `Session.check_card_names`, exit 2 otherwise). A table-kit game plays on
        `kept.table_game()` (referee/table/cli.py `table_game`); its `db` is cards.yaml
        as it is now."""
        if self._db is None:
            kept = self.kept
            if kept is not None and kept.kind == "cards":
                self._db = kept.database()  # type: ignore[assignment]
            else:  # the table kit's, loaded already when `kept` compared it
                db = self._found
                if db is None:
                    db = load_cards(self.options.cards, self.session.state.get("game"))
                if kept is None:
                    self.session.check_card_names(db)
                self._db = db
        return self._db  # type: ignore[return-value]

    @property
    def kept(self) -> KeptGame | None:
        """The game as the session keeps it since `referee new` (referee/kept.py), the
        state's card names checked against it; None for a session made before games were
        kept. When the card database the command finds (`load_cards`) differs from it,
        the command says so once, in one line (`notice`, on stderr and in --json)."""
        if not self._kept_read:
            self._kept_read = True
            self._kept = self.session.kept_game()
            if self._kept is not None:
                self._notice_changes(self._kept)
        return self._kept

    def _notice_changes(self, kept: KeptGame) -> None:
        """Load cards.yaml and compare it with the kept game (the notice), unless the
        files it would load from are those found the same before (their fingerprints,
        carddb.fingerprint: no load, no comparison)."""
        from referee import kept as keeping

        looked = _Fingerprints(self.options.cards)
        if keeping.unchanged(self.session.path, kept, looked):
            return
        db, problem = None, None
        try:
            db = load_cards(self.options.cards, kept.game_id)
        except (RefereeError, UsageError) as error:  # the game goes on without it
            problem = error.message
        self._found = db
        line = keeping.notice(self.session.path, kept, db, problem,
                              looked.of(db) if db is not None else None)
        if line is not None:
            import click

            self.notice = line
            click.echo(f"referee: {line}", err=True)

    @property
    def game(self) -> ModuleType:
        """The rules module of the session's game (`referee.games`: `referee.xs.game`,
        `referee.xo.game`, or the table kit's `referee.table.game`)."""
        from referee.games import module_of_state

        return module_of_state(self.session.state)


def public_state(state: dict) -> dict:
    """A game state as the whole table may see it (see `Tx.public`)."""
    from referee.games import module_of_state

    shown = getattr(module_of_state(state), "public_state", None)
    if shown is not None:
        return shown(state)
    return {k: v for k, v in state.items() if k != "seed"}


def json_option(fn: Callable) -> Callable:
    import click

    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")(fn)


def seed_option(fn: Callable) -> Callable:
    import click

    from referee.click_types import SEED

    return click.option(
        "--seed", type=SEED, default=None, help="Seed this command's randomness (reproducible)."
    )(fn)


def roll_option(fn: Callable) -> Callable:
    import click

    return click.option(
        "--roll",
        "entered",
        metavar="FACES",
        default=None,
        help="Faces rolled at the table (e.g. 3,0,2), used in order instead of the referee's dice.",
    )(fn)


def session_command(
    write: bool = True, rolls: bool | None = None
) -> Callable[[Callable[..., Reply]], Callable[..., None]]:
    """Decorate `fn(tx, **params) -> Reply` into a click callback that opens the session
    named by the global options, runs `fn` inside one transaction (BEGIN IMMEDIATE when
    `write`; a die asked for at the table lets go of it first, see `Tx.rng`), commits,
    then prints the reply as text or --json. Adds --json and
    (when `rolls`, default: when `write`) --roll FACES for dice rolled at the table.
    No --seed: a session command's dice follow the game (`Tx.rng`).
    Errors become one line and exit 1/2; on any error nothing is written."""
    rolls = write if rolls is None else rolls

    def decorate(fn: Callable[..., Reply]) -> Callable[..., None]:
        import click

        def callback(
            ctx: click.Context,
            as_json: bool,
            entered: str | None = None,
            **params: Any,
        ) -> None:
            with guard(as_json):
                reply = in_session(global_options(ctx), command_name(ctx), fn, params,
                                   write=write, entered=entered)
            if reply.refusal is not None:
                if not as_json:
                    emit(reply, as_json)
                fail(reply.refusal.message, 1, reply.refusal.ruling, as_json, reply.data)
            emit(reply, as_json)

        functools.update_wrapper(callback, fn)
        wrapped = click.pass_context(callback)
        if rolls:
            wrapped = roll_option(wrapped)
        return json_option(wrapped)

    return decorate


def in_session(options: GlobalOptions, command: str, fn: Callable[..., Reply],
               params: dict[str, Any], write: bool = True, entered: str | None = None) -> Reply:
    """`fn(tx, **params)` run in one transaction on the session `options` names (see
    `session_command`), its reply with the dice the referee rolled and the notice said.
    Refusals are raised (RefereeError, UsageError; nothing written) for the caller to
    say: `session_command` through click, referee/oneshot.py without it."""
    from referee.session import Session

    tx = None
    try:
        with Session.open(options.session, write=write) as session:
            tx = Tx(session, options, None, entered, command)
            reply = fn(tx, **params)
            if reply.refusal is None:  # a refused command needs none of its faces
                tx.check_entered_faces_used()
            lines, rolled = tx.referee_rolled()
            reply.lines[:0] = lines
            if rolled:
                reply.data["referee_rolled"] = rolled
            if tx.notice is not None:
                reply.data["notice"] = tx.notice
    except RefereeError as error:
        raise with_faces_typed(error, tx) from None
    return reply


def with_faces_typed(error: RefereeError, tx: Tx | None) -> RefereeError:
    """A command refused because the session changed while it waited for the table: the
    dice already typed are said, so the command can be typed again with them (--roll)."""
    from referee.dice import table_of

    rng = tx._rng if tx is not None else None
    table = table_of(rng) if rng is not None else None
    if table is None or not table.faces or "changed while this command waited" not in error.message:
        return error
    faces = ",".join(str(f) for f in table.faces)
    return RefereeError(f"{error.message}, with the dice rolled: --roll {faces}", error.ruling)


def run(as_json: bool, fn: Callable[[], Reply]) -> None:
    """For commands without a session: run `fn`, print its reply, map errors to exit codes."""
    with guard(as_json):
        reply = fn()
    emit(reply, as_json)


def percent(p: Any) -> str:
    """A probability as a short percentage (exact values stay in the fractions)."""
    value = float(p) * 100
    if value == 0:
        return "0%"
    if value < 0.01:
        return f"{value:.2g}%"
    return f"{value:.2f}%"


def fraction_json(p: Any) -> dict:
    """A probability as --json gives it: exact and as a float."""
    return {"fraction": str(p), "value": float(p)}
