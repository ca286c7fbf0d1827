"""`referee board` (the page) and `referee clock pause|resume` (the turn clock), mounted
lazily by referee/cli.py."""

from __future__ import annotations

import sys

import click

from referee.click_types import WholeNumber
from referee.command import global_options

DEFAULT_PORT = 8040


def host_option(fn):  # type: ignore[no-untyped-def]
    return click.option("--host", default="127.0.0.1", show_default=True,
                        help="Address to listen on; 0.0.0.0: every network of this machine "
                        "(prints the address and a QR code for a phone or a TV).")(fn)


def port_option(fn):  # type: ignore[no-untyped-def]
    return click.option("--port", type=WholeNumber(0, 65535), default=DEFAULT_PORT,
                        show_default=True, help="Port (0: any free one).")(fn)


@click.command("board")
@host_option
@port_option
@click.option("--for-play", is_flag=True, hidden=True,
              help="Started by `referee play --board`: a busy port gives way to a free one, "
                   "and a session not made yet is waited for.")
@click.pass_context
def board(ctx: click.Context, host: str, port: int, for_play: bool) -> None:
    """A read-only web page of the table (/: the page, /state: JSON, /events: a stream):
    players, turn and phase, tokens and scores, the last roll, the log, the clocks, the
    winner; never a hand, the deck order or the seed. It follows every command, whichever
    terminal typed it. Ctrl-C ends it."""
    from referee.command import guard

    options = global_options(ctx)
    with guard(False):
        server = open_board(options.session, host, port, fallback=for_play,
                            check=not for_play, cards=options.cards,
                            ends="it ends with play" if for_play else "Ctrl-C ends it")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    click.echo("board: stopped")


def open_board(path: str, host: str, port: int, fallback: bool = False,  # type: ignore[no-untyped-def]
               check: bool = True, cards: str | None = None, ends: str = "Ctrl-C ends it"):
    """A board server on `path` (with `check`, the session checked first: exit 2 if it is
    not one; without, the page says so until a game starts there), announced on stdout;
    `fallback`: a busy port gives way to a free one."""
    from referee.board.server import BoardServer
    from referee.errors import UsageError
    from referee.session import Session

    if check:
        Session.check(path)
    try:
        server = BoardServer(path, host, port, cards)
    except OSError as error:
        if not fallback:
            raise UsageError(f"board: cannot listen on {host}:{port} ({error.strerror})") from None
        server = BoardServer(path, host, 0, cards)
    announce(server, ends)
    return server


def announce(server, ends: str = "Ctrl-C ends it") -> None:  # type: ignore[no-untyped-def]
    """The address to open: on every network, this machine's and a QR code of it."""
    if server.host in ("0.0.0.0", "", "::"):
        from referee.board.server import lan_address

        url = f"http://{lan_address()}:{server.port}/"
        click.echo(f"board: {url} (open it on a phone or a TV on this network; {ends})")
        click.echo(qr_text(url))
        click.echo("")
    else:
        click.echo(f"board: {server.url} ({ends})")
    sys.stdout.flush()


def qr_text(url: str) -> str:
    """`url` as a QR code drawn with text blocks (segno), for a phone's camera."""
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out, compact=True, border=2)
    return out.getvalue().rstrip("\n")


from referee.command import Reply, Tx, session_command  # noqa: E402


@click.group("clock", invoke_without_command=True)
@click.pass_context
def clock(ctx: click.Context) -> None:
    """The turn clock (chess-clock time per player, kept in the session's events):
    `clock pause` stops it, `clock resume` starts it again, `clock show` (or `clock`)
    shows it, as `status` does."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(show)


def _reply(tx: Tx) -> Reply:
    from referee import clock as clocks

    stand = tx.session.clock()
    return Reply([clocks.line(stand)], {"seq": tx.session.last_seq, "clock": stand})


def _set(tx: Tx, pausing: bool) -> Reply:
    from referee import clock as clocks
    from referee.errors import RefereeError

    state = tx.state
    if state.get("over") is True:
        raise RefereeError("the game is over: its clock has stopped")
    if clocks.paused(state) == pausing:
        raise RefereeError(f"the clock is already {'paused' if pausing else 'running'}")
    if pausing:
        state[clocks.KEY] = {"paused": True}
    else:
        state.pop(clocks.KEY, None)
    word = "paused" if pausing else "resumed"
    tx.record("clock", f"clock {word}", {"action": word}, state)
    return _reply(tx)


@clock.command()
@session_command(rolls=False)
def pause(tx: Tx) -> Reply:
    """Stop the clock (a break; `undo` takes the pause back like any command)."""
    return _set(tx, True)


@clock.command()
@session_command(rolls=False)
def resume(tx: Tx) -> Reply:
    """Start the clock again: the player whose turn it is."""
    return _set(tx, False)


@clock.command()
@session_command(write=False)
def show(tx: Tx) -> Reply:
    """Every player's time, and whose is running."""
    return _reply(tx)


class PlayBoard:
    """`referee play --board`: the board in a process of its own beside play's. Not a
    thread of play's process: reading the session's header there (a plain open and
    close of the file, session.check_header) would drop the SQLite locks play holds on
    it (POSIX locks belong to the process), and another process could then take play's
    WAL away under its commit."""

    def __init__(self, session: str, cards: str | None, host: str, port: int) -> None:
        import subprocess

        args = [sys.executable, "-m", "referee", "--session", session]
        args += ["--cards", cards] if cards else []
        args += ["board", "--host", host, "--port", str(port), "--for-play"]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        first = self.proc.stdout.readline()  # its address (or nothing: it said why)
        if first:
            click.echo(first.rstrip("\n"))
            if host in ("0.0.0.0", "", "::"):  # and the QR code
                for _ in range(200):
                    line = self.proc.stdout.readline()
                    if not line.rstrip("\n"):  # the blank line after the code
                        break
                    click.echo(line.rstrip("\n"))
        sys.stdout.flush()

    def close(self) -> None:
        import signal
        import subprocess

        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # it ends as at Ctrl-C
            try:
                self.proc.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.communicate()
