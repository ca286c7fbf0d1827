"""The XO! rulings the referee applies (../shared/RULINGS.md, by id and title): the one
list `referee xo --help` is written from, checked against RULINGS.md and against the
rulings the XO! code cites (tests/referee/xo/test_xo_rulings_list.py). Light: no imports."""

from __future__ import annotations

RULINGS = (
    ("XO-1", "Mask dice"),
    ("XO-2", "Combat values"),
    ("XO-3", "Miss"),
    ("XO-4", "Damage"),
    ("XO-5", "Moffed"),
    ("XO-6", "Counterattack"),
    ("XO-7", "AOE"),
    ("XO-8", "Status duration"),
    ("XO-9", "Ready"),
    ("XO-10", "Hand"),
    ("XO-11", "Phases"),
    ("XO-12", "Story line"),
    ("XO-13", "Feat"),
    ("XO-14", "Thwart"),
    ("XO-15", "Victory"),
    ("XO-16", "Stalemate"),
    ("XO-17", "Totals never below 0"),
    ("XO-18", "One attack each"),
    ("XO-19", "Energy"),
    ("XO-20", "Resources"),
    ("XO-21", "A decided episode ends"),
)


def help_text() -> str:
    """The `xo` group's help: what it referees and every ruling by id and title."""
    first, last = RULINGS[0][0], RULINGS[-1][0]
    listed = "; ".join(f"{rid} {title}" for rid, title in RULINGS)
    return ("XO! (Extraordinary): combat, feats, thwarts, statuses and the story line "
            f"(rulings {first}..{last}).\n\n{listed}.")
