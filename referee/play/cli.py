"""`referee play`: the click command (registered lazily in referee/cli.py)."""

from __future__ import annotations

import sys

import click

from referee.click_types import WholeNumber


@click.command("play")
@click.option("--board", "with_board", is_flag=True,
              help="Also serve the table's board (`referee board`) while playing.")
@click.option("--board-host", default="127.0.0.1", show_default=True, help="The board's address.")
@click.option("--board-port", default=8040, show_default=True, type=WholeNumber(0, 65535),
              help="The board's port (busy: any free one).")
@click.pass_context
def play(ctx: click.Context, with_board: bool, board_host: str, board_port: int) -> None:
    """The table's session in one process: shows the table, then asks for what the rules
    need next (Enter takes the default in brackets) and takes any command without
    `referee` (`xs recruit "Dead Girl"`, `status`, `undo`). From a pipe: one line a
    command or an answer."""
    from referee.command import global_options
    from referee.play.loop import Table

    options = global_options(ctx)
    board = None
    if with_board:  # beside the table's session, in a process of its own (referee/board/)
        from referee.board.cli import PlayBoard

        board = PlayBoard(options.session, options.cards, board_host, board_port)
    terminal = sys.stdin.isatty() and sys.stdout.isatty()
    try:
        table = Table(options.session, options.cards, terminal=terminal)
        if terminal:
            from referee.play.complete import install

            install(table.names)
        code = table.play()
    finally:
        if board is not None:
            board.close()
    sys.exit(code)
