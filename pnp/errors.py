"""One-line errors for the `pnp` command: what went wrong and where, no traceback.

Free of click (issue 36): the library raises PnpError and `pnp build`'s own path
(pnp.cli.entry) reports it without importing click; the click commands report it
through pnp.cli.main.Commands, as they report click's own usage errors."""

from __future__ import annotations

import re
import sys


class PnpError(Exception):
    """A failure the user can fix (bad database, missing file, unwritable folder); its
    message and exit code, said as one line by `fail`, as click says its own errors."""

    exit_code = 1

    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code

    def format_message(self) -> str:
        return self.message

    def __str__(self) -> str:
        return self.message


def fail(message: str, exit_code: int, argv: list[str]) -> None:
    """Report a failure of the `pnp` command as one line on stderr (and, for a --json
    caller, which reads stdout, as one JSON object there too); the process's exit follows."""
    echo(f"pnp: {_one_line(message)}", err=True)
    if "--json" in argv:
        import json

        echo(json.dumps({"ok": False, "error": _one_line(message), "exit_code": exit_code}))


# click.echo's own pattern (click._compat._ansi_re): what it strips from a line written to
# a stream that is no terminal
_ANSI = re.compile(r"\033\[[0-?]*[ -/]*[@-~]")


def echo(message: str, err: bool = False) -> None:
    """A line on stdout (stderr with `err`), written as click.echo writes text: through
    click.echo itself once click is loaded (the click commands, tests' CliRunner), else
    as it would: ANSI styles stripped where the stream is no terminal, then flushed. Keeps
    `pnp build`'s own path free of click."""
    if "click" in sys.modules:
        sys.modules["click"].echo(message, err=err)
        return
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    out = f"{message}\n"
    if not _isatty(stream):
        out = _ANSI.sub("", out)
    stream.write(out)
    stream.flush()


def one_line(text: str) -> str:
    """Every character `str.isprintable` refuses escaped (`\\n`, `\\x07`, `\\u200f`): a
    value in a message cannot start a line of its own nor reorder or hide what follows it
    (carddb.names.escaped, the rule of names; this copy keeps carddb unimported, so a
    no-op build stays fast)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


_one_line = one_line


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except Exception:
        return False


class _ClosedStdoutIsNoFailure:
    """sys.stdout for a `pnp` process: once its reader has gone (`pnp build | head -1`),
    what the command says is dropped and the command goes on. A closed stdout is not a
    failure of the build, which finishes (and answers with its own exit status); without
    this the first line printed after `head` exits raised EPIPE, which abandoned the build
    as "cannot write out: Broken pipe". The file descriptor is pointed at /dev/null, so
    the interpreter's last flush at exit says nothing either."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self.closed_by_reader = False

    def __getattr__(self, name: str):
        return getattr(self._stream, name)

    def write(self, text: str) -> int:
        if not self.closed_by_reader:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._reader_gone()
        return len(text)

    def flush(self) -> None:
        if not self.closed_by_reader:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._reader_gone()

    def _reader_gone(self) -> None:
        import os

        self.closed_by_reader = True
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._stream.fileno())
            os.close(null)
        except (OSError, ValueError, AttributeError):
            pass


def keep_going_when_stdout_closes() -> None:
    """Install `_ClosedStdoutIsNoFailure` as sys.stdout (a `pnp` process, once)."""
    if sys.stdout is not None and not isinstance(sys.stdout, _ClosedStdoutIsNoFailure):
        sys.stdout = _ClosedStdoutIsNoFailure(sys.stdout)  # type: ignore[assignment]
