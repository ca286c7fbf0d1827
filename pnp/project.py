"""Which project a `pnp` command works on: `--project DIR` (default: the current folder),
whose cards.yaml is the database. There is no fallback: a folder without a cards.yaml is
an error that suggests `pnp init`, never a silent build of the bundled games."""

from __future__ import annotations

from pathlib import Path

from pnp.errors import PnpError


def folder(project: Path | None) -> Path:
    return Path(project) if project is not None else Path(".")


def database_path(project: Path | None) -> Path:
    return folder(project) / "cards.yaml"


def output(out: Path | None, project: Path | None, default: str | Path) -> Path:
    """--out when given, else `default` inside the project folder."""
    if out is not None:
        return out
    return Path(default) if project is None else folder(project) / default


def require_database(project: Path | None, path: Path | None = None) -> Path:
    """The cards.yaml to read; a one-line error (exit 1) when there is no such file. A
    folder or a FIFO of that name is refused without being opened."""
    path = path if path is not None else database_path(project)
    if path.is_file():
        return path
    where = folder(project) if path.name == "cards.yaml" else path.parent
    if path.exists():
        raise PnpError(f"{path} is not a regular file (a cards.yaml is a YAML text file)", 1)
    shown = "the current folder" if str(where) == "." else str(where)
    init = "pnp init" if str(where) == "." else f"pnp init {where}"
    raise PnpError(f"no {path.name} in {shown}: start a project with `{init}`, or point at "
                   f"one with --project DIR", 1)
