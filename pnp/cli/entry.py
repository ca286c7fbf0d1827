"""The `pnp` command's entry point (the console script, `python -m pnp`).

It sets up the process the command is (`command_process`), then runs a plain `pnp build`
itself, without importing click (issue 36: click and what it loads are about a twentieth of a cold
80-card build): the options are read from the same table the click command is made from
(pnp.cli.build_options), and an error is the same one line. Everything else, help and
usage errors included, goes to the click commands (pnp.cli.main), which answer as before.
"""

from __future__ import annotations

import sys


def main() -> None:
    """`pnp ARGS` (sys.argv): a plain build run here, anything else by click."""
    from pnp import lazy_modules

    lazy_modules.install()      # before pathlib (pnp.cli.build_options) imports ipaddress
    from pnp.cli.build_options import fast_params

    params = fast_params(sys.argv[1:])
    if params is None:
        from pnp.cli.main import main as commands

        commands()
        return
    from pnp.cli.process import command_process

    with command_process():
        code = build(params, sys.argv[1:])
    sys.exit(code)


def build(params: dict, argv: list[str]) -> int:
    """Run `pnp build` with parsed `params` (pnp.cli.building.run); its exit status, a
    failure said in one line as the click commands say it (pnp.errors.fail; `argv`: the
    command line, for --json). Interrupted: "pnp: aborted", as click says it."""
    from pnp.cli.building import run
    from pnp.errors import PnpError, echo, fail

    try:
        run(params)
    except PnpError as exc:
        fail(exc.format_message(), exc.exit_code, argv)
        return exc.exit_code
    except (EOFError, KeyboardInterrupt):
        echo("", err=True)              # (click: closes the terminal's ^C echo)
        echo("pnp: aborted", err=True)
        return 1
    return 0
