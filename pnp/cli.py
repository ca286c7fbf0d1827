"""The `pnp` command: thin layer over carddb and the build pipeline."""

from __future__ import annotations

import click


@click.group()
@click.version_option(package_name="pnp-referee")
def main() -> None:
    """Print-and-play pipeline for XO! and X-Statix."""


# Commands are registered below, one module each.
from pnp.build_command import build  # noqa: E402

main.add_command(build)
