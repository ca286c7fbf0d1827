"""`pnp export`: the click command over pnp.exports (png, pdf-single, tts, cut, and the
shop profiles)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from pnp.cli.options import project_option, selection_options
from pnp.cli.support import (
    echo_warnings_once,
    font_notice,
    load,
    make_renderer,
    one_line_errors,
)
from pnp.cli.support import faces as choose_faces
from pnp.exports.cards import PNG_DPI, TARGETS, Exported, export_pdf_single, export_png
from pnp.project import output


@click.command("export")
@click.argument("target", type=click.Choice(TARGETS), required=False)
@selection_options
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder (default: output/export/TARGET in the project).")
@project_option
@click.option("--dpi", type=click.IntRange(72, 1200), default=PNG_DPI, show_default=True,
              help="Resolution of png exports.")
@click.option("--no-backs", is_flag=True, help="pdf-single: fronts only.")
@click.option("--jpeg/--png-sheets", "jpeg", default=True, show_default=True,
              help="tts: deck sheets as JPEG (smaller) or PNG.")
@click.option("--profile", metavar="NAME",
              help="Write what a print shop asks for instead of a TARGET: a profile of "
                   "cards.yaml or a preset (tgc, mpc, dtc); see pnp/exports/profiles.py.")
@click.option("--machine", metavar="NAME",
              help="cut: the cutting machine whose registration marks to print "
                   "(silhouette, cricut).")
@click.option("--corner-radius", "corner_radius", type=float, metavar="MM",
              help="cut: the rounding of each card's cut corners, 0 for square "
                   "(default: print.corner_radius_mm, 3.175 = 1/8 in).")
@click.option("--bleed", "cut_bleed", type=float, metavar="MM",
              help="cut: the bleed each card keeps (default: print.bleed_mm, less where "
                   "that would cost a card a sheet).")
def export(target, game, decks, cards, out, project, dpi, no_backs, jpeg, profile, machine,
           corner_radius, cut_bleed) -> int:
    """Export card faces: png (one 300 dpi PNG per card face with bleed, copies expanded),
    tts (Tabletop Simulator deck sheets, backs and saved-object JSON), pdf-single (one
    card per page with TrimBox and BleedBox), cut --machine M (sheets with a cutting
    machine's registration marks, SVG and DXF cut paths), or --profile NAME (a print shop's
    files)."""
    if (target is None) == (profile is None):
        raise click.UsageError("give a TARGET (png, tts, pdf-single, cut) or --profile NAME")
    db = load(project)
    if profile is not None:
        return _with_profile(db, profile, game, decks, cards, out, project)
    if target != "cut" and machine is not None:
        raise click.UsageError("--machine goes with the cut target")
    if target != "cut" and cut_bleed is not None:
        raise click.UsageError("--bleed goes with the cut target")
    out = output(out, project, Path("output") / "export" / target)
    if target == "cut":
        from pnp.exports.cutting import run

        with one_line_errors():
            result = Exported(*run(db, machine, game, decks, cards, out, corner_radius,
                                   notify=font_notice, bleed=cut_bleed, report=click.echo))
        return _finish(target, result, out)
    chosen = choose_faces(db, game, decks, cards, backs=True)
    with one_line_errors():
        renderer = make_renderer(db)
        if target == "png":
            result = export_png(db, chosen, renderer, out, dpi)
        elif target == "pdf-single":
            result = export_pdf_single(db, chosen, renderer, out, backs=not no_backs)
        else:
            from pnp.exports.tts import export_tts

            result = export_tts(db, chosen, renderer, out, jpeg=jpeg)
    return _finish(target, result, out)


def _finish(target: str, result: Exported, out: Path) -> int:
    echo_warnings_once(result.warnings)
    click.echo(f"{target}: wrote {len(result.files)} files to {out}")
    return 0


def _with_profile(db: Any, name: str, game, decks, cards, out, project) -> int:
    """`pnp export --profile NAME`: OUT defaults to output/export/NAME in the project."""
    from pnp.exports.profiles import export_profile, profile

    prof = profile(db, name)
    chosen = choose_faces(db, game, decks, cards, backs=True)
    out = output(out, project, Path("output") / "export" / name)
    with one_line_errors():
        result = export_profile(db, chosen, make_renderer(db), out, prof)
    echo_warnings_once(result.warnings)
    if prof.note:
        click.echo(f"note: {prof.note}", err=True)
    kind = (f" (CMYK PDF/X-1a, total ink <= {prof.ink_limit:g} %)" if prof.colour == "cmyk"
            else "")
    click.echo(f"{prof.title} ({prof.name}): wrote {len(result.files)} files{kind} to {out}")
    return 0
