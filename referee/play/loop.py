"""The resident session: one process, one line at a time. Each line is a one-shot command
without the `referee` prefix (`xs recruit "Dead Girl"`, `status`, `undo`), run in-process
through the very click command (`referee.cli:main`), so its behaviour, refusals and exit
codes are those of the command; or a short answer to what `walk.py` asks next. Each
command is its own transaction of the session file and the state is read again before
each question, so another terminal's one-shot commands work beside a waiting `play`.

Library use (tests, benchmarks/referee_play.py): `Table(session, cards, lines, out)`,
`table.start()` shows the table, `table.feed(line)` answers one line, `table.play()` runs
to the end of `lines`."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Iterator
from typing import Any, TextIO

from referee.play.walk import Question, question

QUIT = {"quit", "exit", "q"}
SHOWS_TABLE = {"undo", "redo", "status"}  # commands whose reply is the table itself
NOTE = "  · "  # the referee runs a compulsory step: said on one line


class Typed(Exception):
    """A command (or `quit`) typed at a prompt a running command put (a die asked for):
    that command stops, nothing written, and the line is taken as typed at play's own
    prompt."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


def offered(text: str, prompt: str) -> bool:
    """Whether the prompt names `text` as one of its answers (a die's face `draw`, a
    choice `next`): then it is that answer, not the command of the same name."""
    import re

    return re.search(rf"(?<![\w-]){re.escape(text)}(?![\w-])", prompt, re.IGNORECASE) \
        is not None


class Table:
    """`referee play` on the session `session` (cards: `--cards` or None)."""

    def __init__(self, session: str, cards: str | None, lines: Iterator[str] | None = None,
                 out: TextIO | None = None, terminal: bool = False) -> None:
        self.session = session
        self.cards = cards
        self.lines = lines if lines is not None else iter(sys.stdin.readline, "")
        self.out = out or sys.stdout
        self.terminal = terminal
        self.answered: set = set()
        self.seq = 0
        self.state: dict | None = None
        self.turn_seen: Any = None
        self.stuck: int | None = None  # a compulsory step refused at this seq: ask instead
        self._rules: dict[Any, Any] = {}
        self._commands: set[str] | None = None
        self._groups: dict[str, set[str]] = {}
        self.asked = 0  # questions put to the table (Enter or typed), for the tests' counts
        self.fresh = False  # the state read since the last command or line (no re-read)
        self.input: Callable[[str], str | None] = self._read
        self.pending: str | None = None  # a command typed at a command's own prompt

    # ── lines in and out ───────────────────────────────────────────────────────
    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def _read(self, prompt: str) -> str | None:
        """One line: at a terminal with readline (history, Tab); from a pipe, echoed after
        its prompt so the transcript reads as the table's."""
        if self.terminal:
            try:
                return input(prompt)
            except EOFError:
                self.say()
                return None
        try:
            line = next(self.lines)
        except StopIteration:
            return None
        line = line.rstrip("\r\n")
        self.say(f"{prompt}{line}")
        return line

    # ── the session ────────────────────────────────────────────────────────────
    def refresh(self) -> dict | None:
        """The current state, read again (another terminal may have changed it): one
        read-only transaction, cheap with the session's verified mark."""
        import os

        if not os.path.exists(self.session):
            self.state = None
            return None
        from referee.errors import UsageError
        from referee.session import Session

        try:
            with Session.open(self.session, write=False) as s:
                self.seq, self.state = s.last_seq, s.state
        except UsageError as error:
            self.say(f"referee: {error.message}")
            self.state = None
        self.fresh = self.state is not None
        return self.state

    def run(self, argv: list[str]) -> int:
        """One command, exactly as `referee ARGV` would run it (its own transaction); its
        exit code (0, 1 a refusal, 2 bad input)."""
        from referee.cli import main

        args = ["--session", self.session, *(["--cards", self.cards] if self.cards else []),
                *argv]
        import referee.command as command

        self.fresh = False
        command.prompter, before = self._asked, command.prompter
        try:
            main.main(args=args, prog_name="referee", standalone_mode=True)
        except SystemExit as done:
            code = done.code
            return code if isinstance(code, int) else (0 if code is None else 1)
        except Typed as typed:  # the table typed a command at a die's prompt: it wins
            self.say(f"play: {shlex.join(argv)} stopped, nothing written")
            self.pending = typed.line
            return 1
        finally:
            command.prompter = before
            sys.stdout.flush()
            sys.stderr.flush()
        return 0

    def entry(self, state: dict | None = None) -> Any:
        """The game contract's entry of the state's game (referee/games.py), or None."""
        from referee.errors import UsageError
        from referee.games import of_state

        state = self.state if state is None else state
        if not state:
            return None
        try:
            return of_state(state)
        except UsageError:
            return None

    def _asked(self, prompt: str) -> str | None:
        """A line for a prompt of the command running (a die, a pick): a command or
        `quit` typed there stops that command (`Typed`) and is taken as typed at play's
        own prompt; anything else is the command's answer."""
        while True:
            line = self.input(prompt)
            text = (line or "").strip()
            if text.casefold() == "help":  # said, and the same prompt asked again
                self.help(None)
                continue
            if text and not offered(text, prompt) and (
                    text.casefold() in QUIT or self._is_command(text)):
                raise Typed(text)
            return line

    def _is_command(self, text: str) -> bool:
        if not text.strip():
            return False
        try:
            return self.as_command(text) is not None
        except ValueError:  # a command's first word, badly quoted: said when run
            return True

    def rules(self, state: dict) -> Any:
        """The card context the game's questions read (its entry's `context`), loaded
        once per process; None when the game has none or its cards cannot be read."""
        entry = self.entry(state)
        if entry is None or not entry.context:
            return None
        game = str(state.get("game"))
        key = (entry.id, game, state.get("seed"))  # per game: the cards it began with
        if key not in self._rules:
            from referee.command import game_context
            from referee.errors import RefereeError, UsageError

            try:
                self._rules[key] = game_context(self.session, self.cards, state, entry)
            except (RefereeError, UsageError):
                self._rules[key] = None
        return self._rules[key]

    def names(self) -> tuple[list[str], list[str]]:
        """(commands, names) for Tab: this game's commands, then what its entry completes
        (the current question's names first)."""
        state = self.state or {}
        commands = sorted(self.game_commands())
        entry = self.entry()
        group = entry.group[0] if entry is not None and entry.group else None
        if group:
            commands += [f"{group} {c}" for c in sorted(self.group_commands(group))]
        names: list[str] = []
        if entry is not None:
            names += entry.completions(state, self.rules(state))
        return commands, names

    def game_commands(self) -> set[str]:
        """The commands `help` lists in this session: the core ones (every game's), this
        game's group's (typed bare: `recruit X`) and its own top-level ones; not another
        game's nor the balance lab."""
        import click

        from referee.cli import main
        from referee.games import REGISTRY, TABLE_KIT

        others: set[str] = {"play", "simulate"}
        for game in [*REGISTRY.values(), TABLE_KIT]:
            others |= set(game.commands) | ({game.group[0]} if game.group else set())
        core = set(main.list_commands(click.Context(main))) - others
        entry = self.entry()
        if entry is None:
            return core
        own = set(entry.commands)
        if entry.group:
            own |= self.group_commands(entry.group[0]) - core
        return core | own

    def commands(self) -> set[str]:
        if self._commands is None:
            import click

            from referee.cli import main

            self._commands = set(main.list_commands(click.Context(main)))
        return self._commands

    def group_commands(self, group: str) -> set[str]:
        if group not in self._groups:
            import click

            from referee.cli import main

            ctx = click.Context(main)
            found = main.get_command(ctx, group)
            self._groups[group] = set(found.list_commands(ctx)) if isinstance(
                found, click.Group) else set()
        return self._groups[group]

    def as_command(self, text: str) -> list[str] | None:
        """The command a typed line names (quoted like a shell's), or None: an answer."""
        from referee.cli import main

        first = text.split(None, 1)[0]
        entry = self.entry()
        group = entry.group[0] if entry is not None and entry.group else None
        known = first in self.commands() or first in ("help",)
        in_group = group is not None and first in self.group_commands(group)
        if not known and not in_group:
            return None
        try:
            argv = shlex.split(text)
        except ValueError as error:
            raise ValueError(f"{text!r}: {error}") from None
        # the game's group takes its bare words (`recruit X` is `xs recruit X`, `next` is
        # `xs next`), but for the core commands every game shares (`status`, `undo`)
        if group is not None and in_group and first not in main.commands and first != "help":
            argv.insert(0, group)
        if argv[0] == "play":
            raise ValueError("this is `play` already: type a command or an answer")
        return argv

    # ── the turn ───────────────────────────────────────────────────────────────
    def next_question(self) -> Question | None:
        state = self.state
        if state is None:
            return None
        return question(state, self.rules(state), self.answered)

    def show_table(self) -> None:
        from referee.games import module_of_state

        assert self.state is not None
        for line in module_of_state(self.state).status_lines(self.state):
            self.say(line)

    def _turn_changed(self) -> None:
        now = self.turn_now()
        if now != self.turn_seen:
            if self.turn_seen is not None:
                self.say()
                self.show_table()
            self.turn_seen = now

    def turn_now(self) -> Any:
        """Whose turn it is (the entry's `turn_key`): the table is shown when it changes."""
        entry = self.entry()
        return entry.turn_key(self.state or {}) if entry is not None else None

    def start(self) -> bool:
        """Open the session (or start one, asking the game and the players) and show the
        public table (once: `new` has shown it when it started the game here). False when
        no game could be started."""
        if self.refresh() is None:
            import os

            if os.path.exists(self.session):  # there, but not a session: said in one line
                return False
            if not self._new_game():
                return False
        else:
            self.show_table()
        self.turn_seen = self.turn_now()
        return True

    def _new_game(self) -> bool:
        import os

        self.say(f"no game in {self.session}: a new one")
        while not os.path.exists(self.session):
            game = self.input(f"Game ({self._games()}) > ")
            if game is None or game.strip().casefold() in QUIT:
                return False
            if not self._known_game(game, quiet=True) and self._is_command(game.strip()):
                self.feed(game)  # `help`, `log`...: taken, then the game asked again
                continue
            if not self._known_game(game):  # said at once, asked again
                continue
            players = self.input("Players, in seat order (comma-separated) > ")
            if players is None or players.strip().casefold() in QUIT:
                return False
            if self._is_command(players.strip()):
                self.feed(players)
                continue
            # `new` asks for each setup die by name itself (Enter: the referee rolls it)
            self.run(["new", game.strip(), "--players", players.strip()])
            if self.pending is not None:  # a command typed at a setup die's prompt
                typed, self.pending = self.pending, None
                if not self.feed(typed):
                    return False
        return self.refresh() is not None

    def _games(self) -> str:
        """The games `new` takes here: the project's own (cards.yaml without `rules:`)
        first, then the registered ones."""
        from referee.errors import RefereeError, UsageError
        from referee.games import REGISTRY

        own: list[str] = []
        try:
            from referee.command import load_cards

            db = load_cards(self.cards)
            own = [gid for gid, game in db.games.items() if game.rules is None]
        except (RefereeError, UsageError):
            pass  # no readable cards.yaml here: the registered games only
        return ", ".join(dict.fromkeys([*own, *REGISTRY]))

    def _known_game(self, game: str, quiet: bool = False) -> bool:
        """Whether `referee new` would take `game`; its one line said when not."""
        from referee.cli import game_to_start
        from referee.errors import RefereeError, UsageError

        try:
            game_to_start(game.strip(), self.cards)
        except (RefereeError, UsageError) as error:
            if not quiet:
                self.say(f"referee: {error.message}")
            return False
        return True

    def step(self) -> bool:
        """Ask (or run) the next thing; False at the end of the input or on `quit`."""
        if not self.fresh:  # a command ran, or a person was asked: read the session again
            self.refresh()
        if self.pending is not None:  # typed at a command's prompt: taken now
            typed, self.pending = self.pending, None
            return self.feed(typed)
        self._turn_changed()
        ask = self.next_question()
        if ask is not None and ask.auto and self.stuck != self.seq:
            self.say(f"{NOTE}{' '.join(ask.prompt.split())}")
            before = self.seq
            code = self.run(ask.enter or [])
            self.refresh()
            if code != 0 or self.seq == before:
                self.stuck = self.seq  # do not run it again: the table decides
            return True
        if ask is not None and ask.auto:
            ask = None
        prompt = f"{ask.prompt} " if ask is not None else self.free_prompt()
        self.asked += 1
        try:
            line = self.input(prompt)
        except KeyboardInterrupt:  # Ctrl-C at a question: the line is cancelled, asked again
            self.say("^C")
            self.fresh = False
            return True
        self.fresh = False  # another terminal may have written while the table typed
        if line is None:
            return False
        return self.feed(line, ask)

    def game_over(self) -> bool:
        return bool((self.state or {}).get("over"))

    def free_prompt(self) -> str:
        """The prompt when the rules ask nothing: once the game is decided, what is left to
        do (a mistaken last move can still be taken back)."""
        if self.game_over():
            return "The game is over (undo takes back the last move; Enter leaves) > "
        return "> "

    def feed(self, line: str, ask: Question | None = None) -> bool:
        """One line typed at `ask` (None: at the free prompt): a command, or the answer."""
        text = line.strip()
        if not text:
            return self._enter(ask)
        if text.casefold() in QUIT:
            return False
        try:
            verb = text.split(None, 1)[0].casefold()
            own = ask is not None and ask.answer is not None and verb in ask.verbs
            argv = None if own else self.as_command(text)
            if argv == ["help"]:
                self.help(ask)
                return True
            while argv is None:
                if ask is None or ask.answer is None:
                    self.say(f"play: {text!r} is not a command (help: the commands)")
                    return True
                found = ask.answer(text)
                if isinstance(found, Question):  # a follow-up question (Ratings Bonanza)
                    ask = found
                    more = self.input(f"{ask.prompt} ")
                    if more is None:
                        return False
                    text = more.strip()
                    if not text:
                        argv = ask.enter
                        if argv is None:
                            return True
                    continue
                argv = found
        except ValueError as error:
            self.say(f"play: {error}")
            return True
        self.run(argv)
        if argv and argv[0] in SHOWS_TABLE:  # its reply printed the table: not twice
            self.refresh()
            self.turn_seen = self.turn_now()
        return True

    def _enter(self, ask: Question | None) -> bool:
        """Enter alone: the question's default (or the question answered), or for a
        question without either (a discard, a pick), a line saying it needs an answer;
        at the free prompt, nothing, or once the game is decided (its winner said), leave."""
        if ask is None:
            return not self.game_over()
        if ask.enter is not None:
            self.run(ask.enter)
        elif ask.once is not None:
            self.answered.add(ask.once)
        else:  # no default: the table is told so, and asked again
            completes = "Tab completes the names; " if ask.names else ""
            self.say(f"play: this question has no default: type the answer ({completes}"
                     "help: the commands)")
        return True

    def help(self, ask: Question | None) -> None:
        self.say("Type a referee command without `referee` (status, undo, log, or one of "
                 "the game's below), or answer the question; Enter takes the default in "
                 "brackets; Tab completes; quit (or end of input) leaves.")
        self.say("commands: " + ", ".join(sorted(self.game_commands())))

    def play(self) -> int:
        if not self.start():
            return 1
        while self.step():
            pass
        return 0
