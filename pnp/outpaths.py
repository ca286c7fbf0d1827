"""Every file a `pnp` command writes lies inside its output folder (issue 16).

Ids from the database (a deck id, a card's slug) become path segments; the database's
validation already refuses unsafe ids, and this is the last check before writing: each
segment is one plain name, and the resolved path (symlinks followed) stays inside the
resolved output folder.
"""

from __future__ import annotations

from pathlib import Path


class OutsideOutput(ValueError):
    """A path built from data would leave the output folder (or is no usable name)."""


def _segment(part: str) -> str:
    if (not isinstance(part, str) or not part or part in (".", "..") or "/" in part
            or "\\" in part or "\0" in part or len(part.encode("utf-8", "replace")) > 255):
        shown = repr(part)[:80]
        raise OutsideOutput(f"{shown} is not a usable file name (refused: files are written "
                            "only inside the output folder)")
    return part


def inside(out: Path, *parts: str) -> Path:
    """`out/part/part...`, refused (OutsideOutput) unless it stays inside `out`."""
    path = Path(out)
    for part in parts:
        path = path / _segment(part)
    root = Path(out).resolve()
    try:
        real = path.resolve()
    except (OSError, RuntimeError) as exc:
        raise OutsideOutput(f"{str(path)[:200]!r} cannot be used: {exc}") from None
    if real != root and root not in real.parents:
        raise OutsideOutput(f"{str(path)[:200]!r} leaves the output folder {root} (refused)")
    return path
