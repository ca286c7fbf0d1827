"""The `pnp` command: a thin layer over carddb and the build pipeline (`list` here;
the other commands in modules of their own)."""

from __future__ import annotations

from pathlib import Path

import click

from pnp.cli.options import DATABASE_ARG, project_option
from pnp.errors import OneLineGroup, PnpError, keep_going_when_stdout_closes


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
        import gc

        # The command is the process (issue 24). It allocates far more than it frees, so
        # collecting every 700 new objects is wasted work: rarer collections, as mypy's
        # main does. At exit everything is frozen, so the interpreter's last full
        # collection (a twentieth of a small build) does not scan what the process is
        # about to drop (atexit handlers still run first).
        gc.set_threshold(100_000, 50, 100)
        keep_going_when_stdout_closes()     # `pnp build | head -1` still builds
        try:
            return super().main(args, *rest, **kwargs)
        finally:
            gc.freeze()

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
