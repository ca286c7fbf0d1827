"""`referee`'s entry point (the console script and `python -m referee`): the one-shot
commands a table types most, `status [--json]` and `roll WORDS [--json]`, run without
importing click, whose import alone costs more than the command (issue 36 item 5:
`benchmarks/referee_startup.py`). The line is read here only when click would read it
the same way; any other line (help, an unknown option, an option written otherwise, a
value click refuses, a roll of the table kit or of a die of cards.yaml, no command) goes
unchanged to `referee.cli:main`, so help and click's errors cannot drift. What the
commands do is shared with the click path: referee/status.py, referee/rolling.py and
`referee.command` (`in_session`, the wording of replies and refusals)."""

from __future__ import annotations

import io
import os
import sys
from typing import Any, NoReturn

from referee.command import DEFAULT_SESSION, GlobalOptions, Reply, refusal_text, reply_text
from referee.errors import RefereeError, UsageError
from referee.inputs import SEED_DIGITS, integer_problem

# the referee's options before the command (referee/cli.py `main`): name -> environment
GLOBAL_OPTIONS = {"--session": "REFEREE_SESSION", "--seed": None, "--cards": "REFEREE_CARDS"}
ROLL_OPTIONS = ("--seed", "--league", "--roll")  # roll's options that take a value
LEAGUES = ("heroes", "villains")


class ByClick(Exception):
    """This line is for click to read (referee.cli:main)."""


def main() -> None:
    """Run the command line: status and roll here, any other through click."""
    try:
        _answer_line(sys.argv[1:])
    except ByClick:  # raised before anything is printed
        by_click()


def by_click() -> None:
    """The command line through click (every command, help and usage error)."""
    from referee.cli import main as click_main

    click_main()


def _answer(argv: list[str]) -> Reply:
    """The reply to the line (RefereeError, UsageError: its refusal); ByClick when click
    is to read it (or to write: see `_plain_streams`)."""
    if os.environ.get("_REFEREE_COMPLETE") or not _plain_streams():
        raise ByClick  # shell completion; streams click would wrap
    given, rest = _global_words(argv)
    options = _global_options(given)
    if rest[0] == "status" and all(word == "--json" for word in rest[1:]):
        from referee.command import in_session
        from referee.status import status_reply

        return in_session(options, "status", status_reply, {}, write=False)
    if rest[0] == "roll":
        return _roll(options, rest[1:])
    raise ByClick


def _global_words(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    """The global options before the command (the last of a name wins, as in click) and
    the command's words."""
    given: dict[str, str] = {}
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        name, equals, value = argv[i].partition("=")
        if name not in GLOBAL_OPTIONS:
            raise ByClick  # help, an unknown option
        if not equals:
            i += 1
            if i == len(argv) or argv[i].startswith("-"):
                raise ByClick  # no value, or one click might read otherwise
            value = argv[i]
        given[name] = value
        i += 1
    if i == len(argv):
        raise ByClick  # no command: click's help
    return given, argv[i:]


def _global_options(given: dict[str, str]) -> GlobalOptions:
    """`--session/--seed/--cards` as click converts them (their environment variables when
    not given, an empty one as unset); ByClick for a value click refuses."""
    values: dict[str, str | None] = {}
    for name, variable in GLOBAL_OPTIONS.items():
        values[name] = given[name] if name in given else (
            os.environ.get(variable) or None if variable else None)
    session = values["--session"] if values["--session"] is not None else DEFAULT_SESSION
    for path in (session, values["--cards"]):
        if path is not None and not _path_ok(path):
            raise ByClick
    return GlobalOptions(session=session, seed=_seed(values["--seed"]), cards=values["--cards"])


def _path_ok(path: str) -> bool:
    """Whether click.Path(dir_okay=False) takes `path`: not a directory, readable if it
    exists (`os.stat` failing is fine: a file to be made)."""
    import stat

    try:
        found = os.stat(path)
    except OSError:
        return True
    except ValueError:  # a NUL in it: click's to say
        return False
    return not stat.S_ISDIR(found.st_mode) and os.access(path, os.R_OK)


def _seed(value: str | None) -> int | None:
    """A --seed as click_types.SEED reads it; ByClick for one it refuses."""
    if value is None:
        return None
    if integer_problem(value.strip(), SEED_DIGITS):
        raise ByClick
    return int(value.strip())


def _roll(options: GlobalOptions, words: list[str]) -> Reply:
    """`roll WORDS` with --json, --seed N, --league L, --roll FACES (each written as its
    own word: `--seed=N` is click's to read) and words like `-1` (a modifier)."""
    expression: list[str] = []
    values: dict[str, str] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if word in ROLL_OPTIONS and i + 1 < len(words) and not words[i + 1].startswith("-"):
            i += 1
            values[word] = words[i]
        elif word[:1] == "-" and len(word) > 1 and not word[1:].isdigit() and word != "--json":
            raise ByClick  # help, an option click reads (or refuses)
        elif word != "--json":
            expression.append(word)
        i += 1
    league = values.get("--league", "heroes")
    if not expression or league not in LEAGUES:
        raise ByClick  # click's "Missing argument", or its "Invalid value"
    seed = _seed(values.get("--seed"))
    return _rolled(options, expression, league, values.get("--roll"),
                   seed if seed is not None else options.seed)


def _rolled(options: GlobalOptions, expression: list[str], league: str, entered: str | None,
            seed: int | None) -> Reply:
    """The roll, checked first for what only click's `roll` does (referee/cli.py): a
    session of the table kit rolling its die, or `N DIE` naming a die of cards.yaml."""
    from referee import notation, rolling

    words = " ".join(expression).split()
    if rolling.kit_roll(options.session, words):
        raise ByClick
    try:
        expr = notation.parse(" ".join(expression))
    except UsageError:
        if rolling.could_be_own_die(words):
            raise ByClick from None
        raise
    return rolling.dice_reply(expr, league, entered, seed)


def _answer_line(argv: list[str]) -> None:
    """Print the line's reply or refusal as click's commands do (`--json`: as JSON), exit
    with their codes; Ctrl-C and a closed pipe as click's main and RefereeGroup.main."""
    as_json = "--json" in argv  # the command's flag: no value of an option read here is one
    try:
        _say_answer(argv, as_json)
    except (EOFError, KeyboardInterrupt):
        _echo("", err=True)
        _refuse("aborted", 1, None, as_json)
    except OSError as error:
        import errno

        if error.errno != errno.EPIPE:
            raise
        sys.stdout = _PacifyFlush(sys.stdout)  # type: ignore[assignment]  # as click does
        sys.stderr = _PacifyFlush(sys.stderr)  # type: ignore[assignment]
        sys.exit(1)


def _say_answer(argv: list[str], as_json: bool) -> None:
    try:
        reply = _answer(argv)
    except RefereeError as error:
        _refuse(error.message, 1, error.ruling, as_json)
    except UsageError as error:
        _refuse(error.message, 2, None, as_json)
    if reply.refusal is not None:
        if not as_json:
            _say(reply_text(reply, as_json))
        _refuse(reply.refusal.message, 1, reply.refusal.ruling, as_json, reply.data)
    _say(reply_text(reply, as_json))


def _refuse(message: str, code: int, ruling: str | None, as_json: bool,
            data: dict[str, Any] | None = None) -> NoReturn:
    line, out = refusal_text(message, code, ruling, as_json, data)
    _echo(line, err=True)
    if out is not None:
        _echo(out)
    sys.exit(code)


def _say(lines: list[str]) -> None:
    for line in lines:
        _echo(line)


def _plain_streams() -> bool:
    """Whether click's echo would write to sys.stdout and sys.stderr as they are: text
    streams in an encoding other than ASCII (else it wraps them: click's to do)."""
    import codecs

    for stream in (sys.stdout, sys.stderr):
        if not isinstance(stream, io.TextIOWrapper):
            return False
        try:
            if codecs.lookup(stream.encoding).name == "ascii":
                return False
        except LookupError:
            pass
    return True


def _echo(text: str, err: bool = False) -> None:
    """click.echo(text, err=err): a line, flushed; colours (ANSI codes) stripped when the
    stream is no terminal."""
    stream = sys.stderr if err else sys.stdout
    out = f"{text}\n"
    if "\x1b" in out and not _isatty(stream):
        import re

        out = re.sub(r"\033\[[0-?]*[ -/]*[@-~]", "", out)  # click._compat._ansi_re
    stream.write(out)
    stream.flush()


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except Exception:
        return False


class _PacifyFlush:
    """A stream whose flush ignores a closed pipe (`referee status | head -1`), as
    click's main leaves sys.stdout and sys.stderr then."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        import errno

        try:
            self.wrapped.flush()
        except OSError as error:
            if error.errno != errno.EPIPE:
                raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)
