"""The `pnp init` starter's Ships deck grown for tests: one row of ships.csv per ship, the
same shape wherever a test needs many designs (benchmarks/_starter.py grows it likewise)."""

from __future__ import annotations

from pathlib import Path

HEADER = "name,flag,speed,cargo,captain,copies,text"
FLAGS = ["red", "blue", "green", "gold"]


def ship_row(i: int, copies: int = 1, captain: str | None = None, text: str | None = None) -> str:
    """Ship `i`'s row: its captain `Captain i` and its usual text unless given."""
    captain = f"Captain {i}" if captain is None else captain
    text = f"Moves {i % 3} extra in calm weather; ship number {i}." if text is None else text
    return f"Ship {i},{FLAGS[i % 4]},{1 + i % 6},{i % 7},{captain},{copies},{text}"


def write_ships(project: Path, rows: list[str]) -> None:
    """The project's ships.csv holding `rows` (under the header)."""
    (project / "ships.csv").write_text("\n".join([HEADER, *rows]) + "\n")
