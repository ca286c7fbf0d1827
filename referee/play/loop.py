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
# in a session of a game with its own group, these words are the group's command
# (`next` is `xs next` in X-Statix, the table kit's `next` in a designer's game)
GROUP_OF = {"x-statix": "xs", "xo": "xo"}
NOTE = "  · "  # the referee runs a compulsory step: said on one line


class XsRules:
    """What X-Statix questions read from the cards: names (Tab, abbreviations), hand
    limits (XS-11) and an Owner's End-phase kill (Coach), loaded once per process."""

    def __init__(self, db: Any) -> None:
        from referee.xs.catalog import Catalog

        self.db = db
        self.cat = Catalog.from_db(db)
        self.card_names = tuple(c.name for c in db.games["x-statix"].cards())

    def _play(self, state: dict) -> Any:
        import random

        from referee.xs.play import Play
        from referee.xs.rolls import Dice

        return Play(state, self.cat, Dice(random.Random(0)))

    def hand_limit(self, state: dict, player: str) -> int:
        return self._play(state).hand_limit(player)[0]

    def can_kill(self, state: dict, player: str) -> bool:
        play = self._play(state)
        return bool(play.with_verb(player, "end_phase_kill")) and not any(
            play.turn["used"].get(name) for name, _, _ in play.with_verb(player, "end_phase_kill"))


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
        command.prompter, before = self.input, command.prompter
        try:
            main.main(args=args, prog_name="referee", standalone_mode=True)
        except SystemExit as done:
            code = done.code
            return code if isinstance(code, int) else (0 if code is None else 1)
        finally:
            command.prompter = before
            sys.stdout.flush()
            sys.stderr.flush()
        return 0

    def rules(self, state: dict) -> Any:
        """The X-Statix cards helper, loaded once; the table kit's `TableGame` (its
        declared rules: referee/table/walk.py); None for the other games."""
        if state.get("kit") == "table":
            return self._table_game(state)
        if state.get("game") != "x-statix" or state.get("kit"):
            return None
        if "xs" not in self._rules:
            from referee.command import load_cards
            from referee.errors import RefereeError, UsageError

            try:
                self._rules["xs"] = XsRules(load_cards(self.cards, "x-statix"))
            except (RefereeError, UsageError):
                self._rules["xs"] = None
        return self._rules["xs"]

    def _table_game(self, state: dict) -> Any:
        key = ("table", state.get("game"))
        if key not in self._rules:
            from referee.command import load_cards
            from referee.errors import RefereeError, UsageError
            from referee.table.kit import TableGame

            try:
                self._rules[key] = TableGame.from_db(load_cards(self.cards, state["game"]),
                                                     state["game"])
            except (RefereeError, UsageError, KeyError):
                self._rules[key] = None
        return self._rules[key]

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
        first = text.split(None, 1)[0]
        group = GROUP_OF.get(str((self.state or {}).get("game"))) if not (
            self.state or {}).get("kit") else None
        known = first in self.commands() or first in ("help",)
        in_group = group is not None and first in self.group_commands(group)
        if not known and not in_group:
            return None
        try:
            argv = shlex.split(text)
        except ValueError as error:
            raise ValueError(f"{text!r}: {error}") from None
        if in_group and (not known or first in ("next", "draw", "discard", "hand", "play")):
            argv.insert(0, group)  # `recruit X` is `xs recruit X`; `next` is `xs next`
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
        state = self.state or {}
        turn = state.get("turn", {})
        now = (turn.get("number"), turn.get("player") or turn.get("active"), state.get("over"))
        if now != self.turn_seen:
            if self.turn_seen is not None:
                self.say()
                self.show_table()
            self.turn_seen = now

    def start(self) -> bool:
        """Open the session (or start one, asking the game and the players) and show the
        public table. False when no game could be started."""
        if self.refresh() is None:
            if not self._new_game():
                return False
        self.show_table()
        state = self.state or {}
        turn = state.get("turn", {})
        self.turn_seen = (turn.get("number"), turn.get("player") or turn.get("active"),
                          state.get("over"))
        return True

    def _new_game(self) -> bool:
        import os

        self.say(f"no game in {self.session}: a new one")
        while not os.path.exists(self.session):
            game = self.input("Game (x-statix, xo, or one of your cards.yaml) > ")
            if game is None:
                return False
            if not self._known_game(game):  # said at once, asked again
                continue
            players = self.input("Players, in seat order (comma-separated) > ")
            if players is None:
                return False
            # `new` asks for each setup die by name itself (Enter: the referee rolls it)
            self.run(["new", game.strip(), "--players", players.strip()])
        return self.refresh() is not None

    def _known_game(self, game: str) -> bool:
        """Whether `referee new` would take `game`; its one line said when not."""
        from referee.cli import game_to_start
        from referee.errors import RefereeError, UsageError

        try:
            game_to_start(game.strip(), self.cards)
        except (RefereeError, UsageError) as error:
            self.say(f"referee: {error.message}")
            return False
        return True

    def step(self) -> bool:
        """Ask (or run) the next thing; False at the end of the input or on `quit`."""
        if not self.fresh:  # a command ran, or a person was asked: read the session again
            self.refresh()
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
        prompt = f"{ask.prompt} " if ask is not None else "> "
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

    def feed(self, line: str, ask: Question | None = None) -> bool:
        """One line typed at `ask` (None: at the free prompt): a command, or the answer."""
        text = line.strip()
        if not text:
            if ask is not None and ask.enter is not None:
                self.run(ask.enter)
            elif ask is not None and ask.once is not None:
                self.answered.add(ask.once)
            return True
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
        if ask is not None and ask.once is not None and argv is None:
            self.answered.add(ask.once)
        self.run(argv)
        return True

    def help(self, ask: Question | None) -> None:
        self.say("Type a referee command without `referee` (xs recruit \"Dead Girl\", "
                 "status, undo, log), or answer the question; Enter takes the default in "
                 "brackets; Tab completes; quit (or end of input) leaves.")
        self.say("commands: " + ", ".join(sorted(self.commands())))

    def play(self) -> int:
        if not self.start():
            return 1
        while self.step():
            pass
        return 0
