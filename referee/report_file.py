"""The `--report FILE.pdf` argument shared by `referee simulate` (the bundled games and the
declared ones) and `referee report`: checked before any work is done, written with the
same one-line refusals (bad input, exit 2): not *.pdf, a folder that does not exist, a
folder given as the file, a file that cannot be written. Light: no ReportLab here."""

from __future__ import annotations

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
    return str(target)


def write_report(path: str, write: Callable[[], None]) -> None:
    """Run `write`; a file that cannot be written is bad input (exit 2), one line."""
    try:
        write()
    except OSError as error:
        raise UsageError(f"--report {path}: cannot write it: {error.strerror or error}") from None
