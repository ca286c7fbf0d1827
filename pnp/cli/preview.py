"""`pnp preview`: a quick look at the templates (pnp.exports.preview)."""

from __future__ import annotations

from pathlib import Path

import click

from pnp.cli.options import project_option
from pnp.cli.support import echo_warnings_once, font_notice, load, one_line_errors
from pnp.errors import PnpError
from pnp.project import output


@click.command("preview")
@click.option("--game", "games", multiple=True, metavar="GAME",
              help="Only this game (repeat for more; default: every game).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder (default: output/preview in the project).")
@project_option
@click.option("--png", is_flag=True, help="Also rasterise each page to PNG.")
@click.option("--all", "every_card", is_flag=True, help="Every card, not one per card type.")
def preview(games, out, project, png, every_card) -> int:
    """One card of each type, front and back with the bleed shown, and the game's mats,
    reference card, die labels and tokens on one PDF per game (OUT/GAME-preview.pdf): edit
    a template, run this, look at the page."""
    from pnp.draw.fonts import register_fonts
    from pnp.exports.preview import preview as draw_preview
    from pnp.exports.preview import to_png
    from pnp.outpaths import inside

    db = load(project)
    for game in games:
        if game not in db.games:
            raise PnpError(f"unknown game '{game}' (choose from {', '.join(db.games)})", 2)
    out = output(out, project, Path("output") / "preview")
    with one_line_errors():
        fonts = register_fonts(db.print.fonts, db.root, notify=font_notice)
        for game in games or list(db.games):
            pdf = inside(out, f"{game}-preview.pdf")
            echo_warnings_once(draw_preview(db, fonts, game, pdf, every_card=every_card))
            click.echo(str(pdf))
            for page in to_png(pdf) if png else []:
                click.echo(str(page))
    return 0
