"""`referee xo --help` lists every XO! ruling (issue 23: it stopped at XO-15), written
from referee/xo/rulings.py, which must hold exactly the rulings of the shared RULINGS.md
(found beside the checkout or named by $RULINGS_MD; the test says where it looked when it
skips) and every ruling the XO! code cites."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from referee.xo.rulings import RULINGS
from tests.harness import ROOT, run_cli

RULINGS_VARIABLE = "RULINGS_MD"  # where a checkout placed elsewhere finds the shared file


def rulings_md() -> tuple[Path | None, list[Path]]:
    """The shared RULINGS.md and every place looked: $RULINGS_MD if set, else
    `shared/RULINGS.md` in each folder above the checkout (../shared beside a clone,
    ../../shared beside the worktrees)."""
    named = os.environ.get(RULINGS_VARIABLE)
    looked = [Path(named)] if named else [up / "shared" / "RULINGS.md" for up in ROOT.parents]
    return next((path for path in looked if path.is_file()), None), looked


def ids(text: str) -> set[str]:
    return set(re.findall(r"\bXO-\d+\b", text))


def test_xo_help_lists_every_ruling_with_its_title():
    out = run_cli("referee", "xo", "--help").stdout
    flat = " ".join(out.split())
    assert f"(rulings XO-1..{RULINGS[-1][0]})" in flat
    for rid, title in RULINGS:
        assert f"{rid} {title}" in flat


def test_the_list_holds_every_ruling_the_xo_code_cites():
    cited = set()
    for path in (ROOT / "referee" / "xo").glob("*.py"):
        cited |= ids(path.read_text(encoding="utf-8"))
    assert cited <= {rid for rid, _ in RULINGS}
    assert [int(rid.split("-")[1]) for rid, _ in RULINGS] == list(range(1, len(RULINGS) + 1))


def test_the_list_is_rulings_md():
    path, looked = rulings_md()
    if path is None:
        pytest.skip(f"RULINGS.md not found; looked at {', '.join(map(str, looked))} "
                    f"(set {RULINGS_VARIABLE}=PATH to name it)")
    found = re.findall(r"^- \*\*(XO-\d+) ([^*]*)\.\*\*", path.read_text(encoding="utf-8"), re.M)
    assert tuple(found) == RULINGS
