"""Where templates are found: the project's templates/ folder, then the bundled one
(kept light to import: a no-op build asks for these files without loading Jinja)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def bundled_templates() -> Path:
    from carddb import bundled_root

    return bundled_root() / "templates"


def template_folders(db: Any) -> list[Path]:
    """Where CardRenderer looks for templates: the project's, then the package's."""
    folders = []
    for folder in (Path(db.root) / "templates", bundled_templates()):
        folder = folder.resolve()
        if folder not in folders:
            folders.append(folder)
    return folders


def template_files(db: Any, game: str) -> list[Path]:
    """The template files one game's artefacts can use: its own folder and every shared
    file or folder (anything not named after a game)."""
    games = set(db.games)
    files: list[Path] = []
    for folder in template_folders(db):
        if not folder.is_dir():
            continue
        real_dirs: dict[Path, Path] = {}
        for path in folder.rglob("*"):
            if not path.is_file():
                continue
            top = path.relative_to(folder).parts[0]
            if (top == game or top not in games) and _stays_in(path, folder, real_dirs):
                files.append(path)
    return files


def _stays_in(path: Path, folder: Path, real_dirs: dict[Path, Path]) -> bool:
    """A symlink out of the templates folder is refused by the loader: not read here.
    `real_dirs` keeps each folder's resolved path: a file that is no symlink is then
    resolved with one lstat, not one per part of its path (issue 24)."""
    try:
        if path.is_symlink():
            real = path.resolve()
        else:
            parent = real_dirs.get(path.parent)
            if parent is None:
                parent = real_dirs[path.parent] = path.parent.resolve()
            real = parent / path.name
    except (OSError, RuntimeError):
        return False
    return real == folder or folder in real.parents
