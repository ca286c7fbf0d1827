"""The click options several `pnp` commands share."""

from __future__ import annotations

from pathlib import Path

import click

project_option = click.option(
    "--project", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Project folder: its cards.yaml is the database, its output/ the default output "
         "(default: the current folder).")

lang_option = click.option(
    "--lang", metavar="LANG",
    help="In this language of cards.yaml's `languages` (default: the first), into its own "
         "folder OUT/LANG.")

DATABASE_ARG = click.argument(
    "path", required=False, type=click.Path(dir_okay=False, path_type=Path))


def selection_options(f):
    """--game, --deck (repeatable) and --card (repeatable)."""
    f = click.option("--card", "cards", multiple=True, metavar="NAME",
                     help="Only this card (repeat for more).")(f)
    f = click.option("--deck", "decks", multiple=True, metavar="DECK",
                     help="Only this deck (repeat for more).")(f)
    f = click.option("--game", help="Only this game (x-statix or xo).")(f)
    return f
