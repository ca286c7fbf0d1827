"""The project the pnp benchmarks measure: the `pnp init` starter with its Ships deck grown
to N distinct cards (one copy each), written once here for every benchmark that needs it."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def grown_starter(folder: Path, cards: int) -> Path:
    """`folder` made a starter project whose ships.csv holds `cards` ships; returned."""
    sys.path.insert(0, str(ROOT))
    from pnp.cli.init import write_project

    write_project(folder, None)
    flags = ["red", "blue", "green", "gold"]
    rows = ["name,flag,speed,cargo,captain,copies,text"]
    rows += [f"Ship {i},{flags[i % 4]},{1 + i % 6},{i % 7},Captain {i},1,"
             f"Moves {i % 3} extra in calm weather; ship number {i}." for i in range(cards)]
    (folder / "ships.csv").write_text("\n".join(rows) + "\n")
    return folder
