"""`referee xo --help` lists every XO! ruling (issue 23: it stopped at XO-15), written
from referee/xo/rulings.py, which must hold exactly the rulings of RULINGS.md (when the
shared folder is beside the repository) and every ruling the XO! code cites."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.xo.rulings import RULINGS

ROOT = Path(__file__).resolve().parents[3]
SHARED = ROOT.parent.parent / "shared" / "RULINGS.md"  # ../shared beside the worktrees


def ids(text: str) -> set[str]:
    return set(re.findall(r"\bXO-\d+\b", text))


def test_xo_help_lists_every_ruling_with_its_title():
    out = CliRunner().invoke(main, ["xo", "--help"]).output
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


@pytest.mark.skipif(not SHARED.exists() and not (ROOT.parent / "shared" / "RULINGS.md").exists(),
                    reason="the shared RULINGS.md is not beside this checkout")
def test_the_list_is_rulings_md():
    path = SHARED if SHARED.exists() else ROOT.parent / "shared" / "RULINGS.md"
    found = re.findall(r"^- \*\*(XO-\d+) ([^*]*)\.\*\*", path.read_text(encoding="utf-8"), re.M)
    assert tuple(found) == RULINGS
