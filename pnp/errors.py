"""One-line errors for the `pnp` command: what went wrong and where, no traceback."""

from __future__ import annotations

import sys

import click


class PnpError(click.ClickException):
    """A failure the user can fix (bad database, missing file, unwritable folder)."""

    exit_code = 1

    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(message)
        # click's stubs declare exit_code a ClassVar, but click reads it off the instance
        # (BaseCommand.main): the exit code of this one error
        self.exit_code = exit_code  # type: ignore[misc]

    def show(self, file=None) -> None:
        click.echo(f"pnp: {_one_line(self.format_message())}", err=True)


def one_line(text: str) -> str:
    """Every character `str.isprintable` refuses escaped (`\\n`, `\\x07`, `\\u200f`): a
    value in a message cannot start a line of its own nor reorder or hide what follows it
    (carddb.names.escaped, the rule of names; this copy keeps carddb unimported, so a
    no-op build stays fast)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


_one_line = one_line


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


class OneLineGroup(click.Group):
    """A click group whose every error, usage errors included, is one line on stderr."""

    def main(self, args=None, prog_name=None, **extra):
        try:
            rv = super().main(args=args, prog_name=prog_name or "pnp", standalone_mode=False, **extra)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            if isinstance(exc, PnpError):
                exc.show()
            else:
                click.echo(f"pnp: {_one_line(exc.format_message())}", err=True)
            if "--json" in (sys.argv[1:] if args is None else list(args)):
                # a --json caller reads stdout: it gets a JSON object, usage errors too
                import json

                click.echo(json.dumps({"ok": False, "error": _one_line(exc.format_message()),
                                       "exit_code": exc.exit_code}))
            sys.exit(exc.exit_code)
        except click.exceptions.Abort:
            click.echo("pnp: aborted", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)
