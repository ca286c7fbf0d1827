"""Every file a `pnp` command writes lies inside its output folder (issue 16).

Ids from the database (a deck id, a card's slug) become path segments; the database's
validation already refuses unsafe ids, and this is the last check before writing: each
segment is one plain name, and the resolved path (symlinks followed) stays inside the
resolved output folder.
"""

from __future__ import annotations

from pathlib import Path

# the one scheme of temporary names, carddb's (pnp.exports.staging and the builds use it)
from carddb.files import PART_NAME as PART_NAME
from carddb.files import part_of as part_of
from carddb.files import part_token as part_token


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


LOCK_NAME = ".pnp-build.lock"
LOCK_WAIT_S = 300.0             # how long a build waits for another one on its --out
_held: dict[str, int] = {}      # resolved --out -> the open lock file


def lock_output(out: Path, notify=None, wait: float | None = None):
    """Take the build lock of `out` (a second `pnp build` on the same --out waits for
    the first, `notify(line)` told so once, then refuses with one line after `wait`
    seconds, $PNP_BUILD_LOCK_WAIT or LOCK_WAIT_S). Returns the function that releases
    it (the process ending does too). Nothing is locked where the platform has no
    flock; a lock this process holds already is not taken twice."""
    import os
    import time

    def nothing() -> None:
        return None

    try:
        import fcntl
    except ImportError:             # pragma: no cover - not POSIX
        return nothing
    from pnp.errors import PnpError

    out = Path(out)
    key = str(out.resolve())
    if key in _held:
        return nothing
    if wait is None:
        try:
            wait = float(os.environ.get("PNP_BUILD_LOCK_WAIT", LOCK_WAIT_S))
        except ValueError:
            wait = LOCK_WAIT_S
    try:
        out.mkdir(parents=True, exist_ok=True)
        path = inside(out, LOCK_NAME)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        raise PnpError(f"cannot write to output folder {out}: {exc.strerror or exc}",
                       exit_code=2) from None
    deadline = time.monotonic() + wait
    told = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise PnpError(f"another pnp build is writing to {out} (still after "
                               f"{wait:g} s): try again when it has finished") from None
            if not told and notify is not None:
                notify(f"another pnp build is writing to {out}: waiting for it to finish")
            told = True
            time.sleep(0.1)
    _held[key] = fd

    def release() -> None:
        held = _held.pop(key, None)
        if held is not None:
            os.close(held)              # closing the file releases the flock

    return release
