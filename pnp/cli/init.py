"""`pnp init [DIR]`: a small working project to start from (a game of its own with two
card types, one deck read from a CSV, templates and a custom back), or with
`--example xo|x-statix` one of the bundled games to customise."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import click

from pnp.errors import PnpError

STARTER = Path(__file__).resolve().parents[1] / "starter"
EXAMPLES = ("xo", "x-statix")


def example_yaml(text: str, game: str) -> str:
    """The bundled cards.yaml with only `game` under `games:` (the blocks of the others
    cut out; each game is a block indented by two spaces under `games:`)."""
    head, sep, body = text.partition("\ngames:\n")
    blocks: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in body.splitlines(keepends=True):
        found = re.match(r"  ([a-z0-9][a-z0-9-]*):\s*(#.*)?$", line)
        if found:
            blocks.append((found.group(1), [line]))
        else:
            blocks[-1][1].append(line)
    kept = [lines for gid, lines in blocks if gid == game]
    if not kept:
        raise PnpError(f"the bundled cards.yaml has no game {game!r}", 1)
    # Comment lines between blocks belong to the next game: keep only the chosen block.
    block = "".join(kept[0]).rstrip() + "\n"
    return head + sep + block


def write_project(target: Path, example: str | None) -> list[Path]:
    import carddb

    written: list[Path] = []
    if example is None:
        for path in sorted(STARTER.rglob("*")):
            if path.is_file():
                dest = target / path.relative_to(STARTER)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, dest)
                written.append(dest)
        return written
    bundled = carddb.bundled_root()
    (target / "cards.yaml").write_text(
        example_yaml((bundled / "cards.yaml").read_text(encoding="utf-8"), example),
        encoding="utf-8")
    written.append(target / "cards.yaml")
    shutil.copytree(bundled / "templates" / example, target / "templates" / example)
    written.append(target / "templates" / example)
    return written


@click.command("init")
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--example", type=click.Choice(EXAMPLES),
              help="Start from a bundled game (its cards.yaml part and templates) instead.")
def init(folder: Path | None, example: str | None) -> int:
    """Write a small working project into FOLDER (default: the current folder): a
    cards.yaml with a game of its own, a CSV of cards, templates and a README. Then
    `pnp build` there prints it."""
    target = folder if folder is not None else Path(".")
    if (target / "cards.yaml").exists():
        raise PnpError(f"{target / 'cards.yaml'} already exists: pnp init never overwrites a "
                       "project", 1)
    try:
        target.mkdir(parents=True, exist_ok=True)
        written = write_project(target, example)
    except FileExistsError as exc:
        raise PnpError(f"{exc.filename} already exists: pnp init never overwrites a project",
                       1) from None
    except OSError as exc:
        raise PnpError(f"cannot write {exc.filename or target}: {exc.strerror or exc}", 2) from None
    for path in written:
        click.echo(f"wrote {path}")
    where = "" if folder is None else f"cd {folder} && "
    click.echo(f"next: {where}pnp validate && pnp build")
    return 0
