"""`pnp build`: write the print-ready PDFs. The click command, made from the option
table pnp.cli.build_options; what it does is pnp.cli.building.run (click-free: `pnp
build` itself runs it without click where it can, pnp.cli.entry)."""

from __future__ import annotations

import click

from pnp.cli.build_options import OPTIONS
from pnp.cli.building import run
from pnp.cli.options import click_option

__all__ = ["build", "run"]


def _build_command(f):
    for spec in reversed(OPTIONS):      # listed in help in the table's order
        f = click_option(spec)(f)
    return click.command("build")(f)


@_build_command
def build(**params) -> None:
    """Build print-ready PDFs of every deck, mat, label sheet, token sheet and reference
    card into OUT/<game>/<artefact>.pdf, each with its layout report
    OUT/<game>/<artefact>.layout.json. The first line names the cards.yaml read."""
    run(params)



