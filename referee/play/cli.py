"""`referee play`: the click command (registered lazily in referee/cli.py)."""

from __future__ import annotations

import sys

import click


@click.command("play")
@click.pass_context
def play(ctx: click.Context) -> None:
    """The table's session in one process: shows the table, then asks for what the rules
    need next (Enter takes the default in brackets) and takes any command without
    `referee` (`xs recruit "Dead Girl"`, `status`, `undo`). From a pipe: one line a
    command or an answer."""
    from referee.command import global_options
    from referee.play.loop import Table

    options = global_options(ctx)
    terminal = sys.stdin.isatty() and sys.stdout.isatty()
    table = Table(options.session, options.cards, terminal=terminal)
    if terminal:
        from referee.play.complete import install

        install(table.names)
    sys.exit(table.play())
