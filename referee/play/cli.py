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

        install(lambda: _names(table))
    sys.exit(table.play())


def _names(table: object) -> tuple[list[str], list[str]]:
    """(commands, names) for Tab: the current question's names first."""
    from referee.play.loop import Table

    assert isinstance(table, Table)
    state = table.state or {}
    commands = sorted(table.commands())
    group = {"x-statix": "xs", "xo": "xo"}.get(str(state.get("game")))
    if group and not state.get("kit"):
        commands += [f"{group} {c}" for c in sorted(table.group_commands(group))]
    names: list[str] = list(state.get("players", []))
    for seat in state.get("table", {}).values():
        names += [h["name"] for h in seat.get("heroes", [])]
    for league in state.get("roster", {}).values():
        names += [c["name"] for c in league]
    rules = table.rules(state) if state else None
    if rules is not None:
        names += list(rules.card_names)
    return commands, names
