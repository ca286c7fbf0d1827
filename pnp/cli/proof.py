"""`pnp proof`: the click command over pnp.exports.proof (PNG proofs, contact sheets and
the gallery)."""

from __future__ import annotations

from pathlib import Path

import click

from pnp.cli.options import lang_option, project_option, selection_options
from pnp.cli.support import faces as choose_faces
from pnp.cli.support import font_notice, load, make_renderer, one_line_errors, warning_line
from pnp.exports.proof import INDEX, PROOF_DPI, gallery_changes, proof_faces
from pnp.exports.staging import staged
from pnp.project import output


@click.command("proof")
@selection_options
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Proof folder (default: output/proof in the project).")
@project_option
@click.option("--dpi", type=click.IntRange(36, 600), default=PROOF_DPI, show_default=True)
@click.option("--guides", is_flag=True,
              help="Draw the trim line, tint the bleed and dash the safe zone on each PNG.")
@click.option("--strict", is_flag=True, help="Exit 1 when any layout check warns.")
@click.option("--builds", type=click.Path(file_okay=False, path_type=Path),
              help="The build output whose records mark changed cards (default: output in "
                   "the project; see pnp diff).")
@click.option("--since", metavar="BUILD|GIT-REF",
              help="Mark the cards changed since this build or commit (default: the build "
                   "before the latest).")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=None, metavar="N",
              help="Proof the decks in N worker processes (default: the machine's cores; "
                   "1: in this process). The files are the same whatever N.")
@lang_option
def proof(game, decks, cards, out, project, dpi, guides, strict, builds, since,
          jobs, lang) -> int:
    """Render card faces to PNG from the print's own PDF drawing, with the layout checks,
    a contact sheet per deck and a gallery (OUT/index.html)."""
    from pnp.artefacts.project_build import in_language, language_folder

    db = in_language(load(project), lang)
    out = language_folder(output(out, project, Path("output") / "proof"), lang)
    chosen = choose_faces(db, game, decks, cards)
    changes = gallery_changes(language_folder(output(builds, project, "output"), lang),
                              project, since, font_notice)
    with one_line_errors(), staged(out, notify=font_notice):  # as pnp build: whole or not
        result = proof_faces(db, chosen, make_renderer(db), out, dpi, guides, changes,
                             jobs=jobs)
    for w in result.warnings:
        click.echo(warning_line(w), err=True)
    click.echo(f"proofed {len(result.faces)} faces ({len(result.warnings)} warnings): "
               f"{out / INDEX}")
    return 1 if strict and result.warnings else 0
