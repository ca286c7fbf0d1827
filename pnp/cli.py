"""The `pnp` command: a thin layer over carddb and the build pipeline."""

from __future__ import annotations

from pathlib import Path

import click

from pnp.errors import OneLineGroup, PnpError

DATABASE_ARG = click.argument(
    "path", required=False, type=click.Path(dir_okay=False, path_type=Path))


@click.group(cls=OneLineGroup)
@click.version_option(package_name="pnp-referee")
def main() -> None:
    """Print-and-play pipeline for XO! and X-Statix."""


def load_database(path: Path | None):
    """The validated database, or a one-line error naming the first problem."""
    import carddb

    try:
        return carddb.load(path)
    except carddb.DatabaseError as exc:
        raise PnpError(str(exc)) from None


@main.command()
@DATABASE_ARG
def validate(path: Path | None) -> int:
    """Check PATH (default ./cards.yaml) against the schema and the games' rules.

    Prints every problem as FILE:LINE:COL: field.path: message; exits 1 when invalid."""
    import carddb

    try:
        db = carddb.load(path)
    except carddb.DatabaseError as exc:
        for problem in exc.problems:
            click.echo(str(problem), err=True)
        n = len(exc.problems)
        click.echo(f"{n} problem{'s' if n != 1 else ''} found", err=True)
        return 1
    cards = sum(len(g.cards()) for g in db.games.values())
    decks = sum(len(g.decks) for g in db.games.values())
    click.echo(f"{carddb.display_name(db.path)}: valid ({len(db.games)} games, {decks} decks, {cards} card designs)")
    return 0


@main.command(name="list")
@DATABASE_ARG
@click.option("--game", "game_id", help="Only this game (x-statix or xo).")
def list_cards(path: Path | None, game_id: str | None) -> int:
    """A table of games, decks, card types and counts."""
    from pnp.listing import deck_rows, render_table

    db = load_database(path)
    if game_id is not None and game_id not in db.games:
        raise PnpError(f"unknown game '{game_id}' (choose from {', '.join(db.games)})", exit_code=2)
    click.echo(render_table(deck_rows(db, game_id)))
    return 0


# Commands of their own modules are registered below, one line each.
from pnp.build_command import build  # noqa: E402

main.add_command(build)
main.add_command(__import__("pnp.proof", fromlist=["proof"]).proof)
main.add_command(__import__("pnp.export", fromlist=["export"]).export)
main.add_command(__import__("pnp.watch", fromlist=["watch"]).watch)
