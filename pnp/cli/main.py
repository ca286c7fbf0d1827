"""The `pnp` command: a thin layer over carddb and the build pipeline (`list` here;
the other commands in modules of their own)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pnp.cli.options import DATABASE_ARG, project_option
from pnp.cli.process import command_process, speed_ups
from pnp.errors import PnpError, fail

__all__ = ["main", "speed_ups"]


class OneLineGroup(click.Group):
    """A click group whose every error, usage errors and PnpError included, is one line on
    stderr (pnp.errors.fail)."""

    def main(self, args=None, prog_name=None, **extra):
        argv = sys.argv[1:] if args is None else list(args)
        try:
            rv = super().main(args=args, prog_name=prog_name or "pnp", standalone_mode=False, **extra)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except (click.ClickException, PnpError) as exc:
            fail(exc.format_message(), exc.exit_code, argv)
            sys.exit(exc.exit_code)
        except click.exceptions.Abort:
            click.echo("pnp: aborted", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


class Commands(OneLineGroup):
    """The commands written in modules of their own are imported when one is run (or
    help lists them): `pnp build` does not pay for importing proof, export and watch."""

    LAZY = {"proof": "pnp.cli.proof", "export": "pnp.cli.export", "watch": "pnp.cli.watch",
            "init": "pnp.cli.init", "diff": "pnp.cli.diff", "preview": "pnp.cli.preview",
            "validate": "pnp.cli.validate", "calibrate": "pnp.cli.calibrate"}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.LAZY})

    def main(self, args=None, *rest, **kwargs):
        if args is not None:            # called in a program of its own (tests' CliRunner)
            return super().main(args, *rest, **kwargs)
        with command_process():
            return super().main(args, *rest, **kwargs)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.LAZY and name not in self.commands:
            import importlib

            self.add_command(getattr(importlib.import_module(self.LAZY[name]), name))
        return super().get_command(ctx, name)


@click.group(cls=Commands)
@click.version_option(package_name="pnp-referee")
def main() -> None:
    """Print-and-play pipeline for card games: XO!, X-Statix and any game a cards.yaml
    declares (`pnp init` starts one)."""


@main.command(name="list")
@DATABASE_ARG
@project_option
@click.option("--game", "game_id", help="Only this game (x-statix or xo).")
def list_cards(path: Path | None, project: Path | None, game_id: str | None) -> int:
    """A table of games, decks, card types and counts."""
    from pnp.cli.listing import deck_rows, render_table
    from pnp.cli.support import load

    db = load(project, path)
    if game_id is not None and game_id not in db.games:
        raise PnpError(f"unknown game '{game_id}' (choose from {', '.join(db.games)})", exit_code=2)
    click.echo(render_table(deck_rows(db, game_id)))
    return 0


# Commands of their own modules: build (light at import) here, the others in Commands.LAZY.
from pnp.cli.build import build  # noqa: E402

main.add_command(build)
