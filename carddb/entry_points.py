"""Plug-ins installed as packages: the objects a distribution names under an entry-point
group (`pnp_referee.games`, `pnp_referee.elements`, `pnp_referee.artefact_kinds`,
`pnp_referee.exports`). Shared by both faces (referee/games.py, pnp/plugins.py).

Cheap when nothing is installed, as on every `pnp build` and session command: the folders
of `sys.path` are scanned once per process for an `entry_points.txt` naming one of the
groups (plain file reads); only when one does is `importlib.metadata` imported to load it.
A plug-in that fails to load (its module missing or raising, the wrong type, a name
taken) is left out with one line on stderr naming it, never a traceback."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

PREFIX = "pnp_referee."
_groups: set[str] | None = None  # the groups some installed distribution names
_said: set[str] = set()  # the broken plug-ins already reported (once a process)


def _scan() -> set[str]:
    """Every `[pnp_referee.*]` section header in an entry_points.txt on sys.path; a path
    entry that is not a folder (a zip) may hold any: then every group is looked up."""
    found: set[str] = set()
    for folder in sys.path:
        folder = folder or "."
        try:
            names = os.listdir(folder)
        except OSError:
            if os.path.isfile(folder):
                found.add("*")
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(folder, name, "entry_points.txt"),
                          encoding="utf-8", errors="replace") as f:
                    text = f.read()
            except OSError:
                continue
            if PREFIX in text:
                for line in text.splitlines():
                    line = line.strip()
                    if line.startswith(f"[{PREFIX}") and line.endswith("]"):
                        found.add(line[1:-1].strip())
    return found


def rescan() -> None:
    """Forget what was found (a test that puts a distribution on sys.path)."""
    global _groups
    _groups = None
    _said.clear()


def notice(line: str) -> None:
    """A broken plug-in, said once on stderr."""
    if line not in _said:
        _said.add(line)
        sys.stderr.write(f"{line}\n")
        sys.stderr.flush()


def load(group: str, check: Callable[[str, Any], None],
         say: Callable[[str], None] = notice) -> list[tuple[str, Any]]:
    """(entry-point name, loaded object) of every plug-in of `group`, in a stable order
    (by distribution, then name). `check(name, obj)` raises (any exception) to refuse one;
    a plug-in that fails is left out with one line: `plug-in DIST (GROUP: NAME = VALUE)
    left out: WHY`."""
    global _groups
    if _groups is None:
        _groups = _scan()
    if group not in _groups and "*" not in _groups:
        return []
    from importlib import metadata

    found: list[tuple[str, Any]] = []
    seen: set[str] = set()
    points = sorted(metadata.entry_points(group=group),
                    key=lambda ep: (_dist(ep), ep.name))
    for ep in points:
        if ep.name in seen:  # the same name twice: the first on the path wins
            continue
        seen.add(ep.name)
        try:
            obj = ep.load()
            check(ep.name, obj)
        except BaseException as error:  # a plug-in's own fault: never ours to raise
            if isinstance(error, (KeyboardInterrupt, SystemExit)):
                raise
            why = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
            say(" ".join(f"plug-in {_dist(ep)} ({group}: {ep.name} = {ep.value}) left out: "
                         f"{why}".split()))
            continue
        found.append((ep.name, obj))
    return found


def _dist(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    return str(getattr(dist, "name", None) or "?")
