"""The `--report FILE.pdf` argument shared by `referee simulate` (the bundled games and the
declared ones) and `referee report`: checked before any work is done, written with the
same one-line refusals (bad input, exit 2): not *.pdf, a folder that does not exist, a
folder given as the file, a file that cannot be written. Light: no ReportLab here."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from referee.errors import UsageError


def report_path(path: str | None) -> str | None:
    """`path` checked (None when no report was asked for)."""
    if path is None:
        return None
    target = Path(path)
    if target.suffix.lower() != ".pdf":
        raise UsageError(f"--report {path}: the report is a PDF, name it *.pdf")
    if not target.parent.exists() and str(target.parent):
        raise UsageError(f"--report {path}: folder {target.parent} does not exist")
    if target.is_dir():
        raise UsageError(f"--report {path} is a folder")
    _writable(path, target)
    return str(target)


def _writable(path: str, target: Path) -> None:
    """A report that could never be written is refused before the simulation or the tables
    it reports are worked out (they may take seconds): its folder is a file, or a folder
    this user cannot write in, or the file itself is read-only."""
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"--report {path}: cannot write it: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK) or (target.exists()
                                                    and not os.access(target, os.W_OK)):
        raise UsageError(f"--report {path}: cannot write it: permission denied")


def write_report(path: str, write: Callable[[], None]) -> None:
    """Run `write`; a file that cannot be written is bad input (exit 2), one line."""
    try:
        write()
    except OSError as error:
        raise UsageError(f"--report {path}: cannot write it: {error.strerror or error}") from None
