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
    import os

    games = set(db.games)
    files: list[Path] = []
    for folder in template_folders(db):
        real_dirs: dict[Path, Path] = {}
        # walked as text, Paths made only of the files kept: another game's folder is
        # not entered; symlinked folders are not either, as Path.rglob does not
        for where, dirs, names in os.walk(folder):
            if where == str(folder):
                dirs[:] = [d for d in dirs if d == game or d not in games]
                names = [n for n in names if n == game or n not in games]
            for name in names:
                path = Path(where, name)
                if path.is_file() and _stays_in(path, folder, real_dirs):
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
    return inside(real, folder)


def inside(real: Path, folder: Path) -> bool:
    """Whether the resolved path `real` is `folder` or in it: `folder in real.parents`,
    asked of the paths' parts (the parents are made as a Path each, for every file a
    build lists or reads)."""
    parts = folder.parts
    return real.parts[:len(parts)] == parts



def reads_variable(db: Any, game: str, name: str) -> bool:
    """Whether a template of `game` (templates/<game>/*.j2 of the project or the package,
    and every template these import or include) reads the variable `name` (say
    INK_SAVER): found in the parsed templates, not in their comments or text. A file
    that does not parse counts as reading it (its error is the build's to report)."""
    from jinja2 import Environment, TemplateSyntaxError, meta

    class _Any(dict):       # every filter and test name is known: only names are read
        def __contains__(self, key: object) -> bool:
            return True

        def get(self, key: Any, default: Any = None) -> Any:
            return super().get(key) or (lambda *args, **kwargs: None)

    env = Environment(trim_blocks=True, lstrip_blocks=True)
    env.filters, env.tests = _Any(env.filters), _Any(env.tests)
    folders = template_folders(db)
    todo = sorted({p.relative_to(f).as_posix() for f in folders if (f / game).is_dir()
                   for p in (f / game).glob("*.j2")})
    seen: set[str] = set()
    while todo:
        rel = todo.pop()
        if rel in seen:
            continue
        seen.add(rel)
        path = next((f / rel for f in folders if (f / rel).is_file()), None)
        if path is None:
            continue
        try:
            tree = env.parse(path.read_text(encoding="utf-8"))
            if name in meta.find_undeclared_variables(tree):
                return True
        except (OSError, UnicodeDecodeError, TemplateSyntaxError):
            return True
        todo += [r for r in meta.find_referenced_templates(tree) if r]
    return False
