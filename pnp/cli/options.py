"""The click options several `pnp` commands share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from pnp.cli.build_options import PROJECT, Spec


def click_option(spec: Spec):
    """The click option of one pnp.cli.build_options.Spec (the one source of `pnp build`'s
    options, which pnp.cli.entry reads without click)."""
    low, high = spec.bounds or (0, 0)
    kinds: dict[str, dict[str, Any]] = {
        "text": {},
        "dir": {"type": click.Path(file_okay=False, path_type=Path), "default": None},
        "choice": {"type": click.Choice(spec.choices, case_sensitive=spec.case_sensitive)},
        "float": {"type": float},
        "range": {"type": click.FloatRange(low, high)},
        "jobs": {"type": click.IntRange(int(low), int(high)), "default": None},
        "offset": {"callback": _parsed("parse_offset")},
        "scale": {"callback": _parsed("parse_scale")},
        "flag": {"is_flag": True, **({"default": None} if spec.default is None else {})},
    }
    extra: dict[str, Any] = {"metavar": spec.metavar} if spec.metavar else {}
    return click.option(*spec.flags, spec.dest, help=spec.help, **kinds[spec.kind], **extra)


def _parsed(name: str):
    """A click callback reading X,Y (or SX,SY) with pnp.layout.geometry's `name`; a
    malformed value is click's BadParameter."""
    def callback(ctx, param, value):
        if value is None:
            return None
        from pnp.layout import geometry

        try:
            return getattr(geometry, name)(value)
        except ValueError as exc:
            raise click.BadParameter(str(exc)) from None

    return callback


project_option = click_option(PROJECT)

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
