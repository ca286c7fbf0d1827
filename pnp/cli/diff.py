"""`pnp diff`: the cards added, removed and changed since an earlier build
(pnp.exports.diff)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from pnp.cli.options import lang_option, project_option
from pnp.cli.support import font_notice
from pnp.exports.diff import pending, pending_text
from pnp.project import output


@click.command("diff")
@click.option("--since", metavar="BUILD|GIT-REF",
              help="Compare with this build number (OUT/.pnp-builds) or git commit "
                   "(default: the latest build).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="The build's output folder (default: output in the project).")
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object.")
@lang_option
def diff(since, out, project, as_json, lang) -> int:
    """List what the cards as they are now would change against the latest build (or
    --since): added (+), removed (-) and changed (~, with front, back or copies), as
    `git diff` shows the work tree against HEAD. Nothing is built or written."""
    from pnp.artefacts.project_build import language_folder

    out = language_folder(output(out, project, "output"), lang)
    # a refusal under --json: pnp.errors prints its object
    found = pending(out, project, since, notify=font_notice)
    if as_json:
        click.echo(json.dumps(found.as_json(), ensure_ascii=False))
    else:
        for line in pending_text(found, out):
            click.echo(line)
    return 0
