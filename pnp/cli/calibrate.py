"""`pnp calibrate`: the duplex corrections from the readings of a printed calibration.pdf
(pnp.artefacts.kinds.calibration.correction). Nothing is built or written."""

from __future__ import annotations

from pathlib import Path

import click

from pnp.cli.options import project_option


def _reading(ctx, param, value):
    if value is None:
        return None
    parts = value.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        x, y = (float(p) for p in parts)
    except ValueError:
        raise click.BadParameter(f"{value!r} must be X,Y in mm as read on the scale, "
                                 "e.g. 0.5,-1") from None
    if abs(x) > 10 or abs(y) > 10:
        raise click.BadParameter(f"{value!r}: the scales read -10 to +10 mm")
    return x, y


@click.command("calibrate")
@click.option("--centre", callback=_reading, required=True, metavar="X,Y",
              help="Where the centre cross falls on its scale (mm, as seen from the back).")
@click.option("--top-left", callback=_reading, metavar="X,Y",
              help="The top-left scale, as seen on the back (so for the corners).")
@click.option("--top-right", callback=_reading, metavar="X,Y", help="The top-right scale.")
@click.option("--bottom-left", callback=_reading, metavar="X,Y", help="The bottom-left scale.")
@click.option("--bottom-right", callback=_reading, metavar="X,Y",
              help="The bottom-right scale.")
@click.option("--paper", type=click.Choice(("letter", "a4"), case_sensitive=False),
              help="The paper calibration.pdf was printed on (default: print.paper).")
@project_option
def calibrate(centre, top_left, top_right, bottom_left, bottom_right, paper,
              project: Path | None) -> int:
    """From the readings of a calibration.pdf printed with the project's current print
    settings, print the back offset, scale and turn that make the backs land on their
    fronts, as cards.yaml lines and as build options. The centre alone corrects the
    offset; with the four corners, scale and turn too."""
    from carddb import limits
    from pnp.artefacts.kinds.calibration import correction
    from pnp.cli.support import load
    from pnp.errors import PnpError
    from pnp.layout.geometry import PAPERS_MM

    corners = (top_left, top_right, bottom_left, bottom_right)
    if any(c is None for c in corners) and any(c is not None for c in corners):
        raise click.UsageError("give all four corners (--top-left --top-right --bottom-left "
                               "--bottom-right) or none")
    profile = load(project).print
    page = PAPERS_MM[(paper or profile.paper).lower()]
    readings = dict(zip(("centre", "top-left", "top-right", "bottom-left", "bottom-right"),
                        (centre, *corners), strict=True))
    offset, scale, turn = correction(
        {k: v for k, v in readings.items() if v is not None}, page,
        profile.back_offset_mm, profile.back_scale_pct, profile.back_rotate_deg)
    low, high = limits.BACK_SCALE_PCT
    if not (all(low <= s <= high for s in scale) and abs(turn) <= limits.BACK_ROTATE_DEG
            and all(abs(v) <= limits.BACK_OFFSET_MM for v in offset)):
        raise PnpError(f"these readings ask for offset {offset[0]:g},{offset[1]:g} mm, scale "
                       f"{scale[0]:g},{scale[1]:g} % and turn {turn:g} degrees, beyond what "
                       "pnp corrects: check the readings and that the sheet printed at 100 %")
    click.echo("print:")
    click.echo(f"  back_offset_mm: [{offset[0]:g}, {offset[1]:g}]")
    click.echo(f"  back_scale_pct: [{scale[0]:g}, {scale[1]:g}]")
    click.echo(f"  back_rotate_deg: {turn:g}")
    click.echo(f"or for one build: pnp build --back-offset {offset[0]:g},{offset[1]:g} "
               f"--back-scale {scale[0]:g},{scale[1]:g} --back-rotate {turn:g}")
    return 0
