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
    """--out when given, else `default` inside the project folder, which must resolve
    inside it: a project that ships `output` (or a folder below it) as a symbolic link
    out of itself is refused (one line, exit 1), never written through. The user names
    another folder with --out."""
    if out is not None:
        return out
    path = Path(default) if project is None else folder(project) / default
    root = folder(project).resolve()
    try:
        real = path.resolve()
    except (OSError, RuntimeError) as exc:  # a loop of links
        raise PnpError(f"{path}: the output folder cannot be used ({exc}); name one with "
                       "--out", 1) from None
    if real != root and root not in real.parents:
        raise PnpError(f"{path} leads to {real}, outside the project folder {root} (a symbolic "
                       "link?): nothing written; remove the link, or name that folder with --out",
                       1)
    return path


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
