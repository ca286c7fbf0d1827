"""Messages that keep their shape (issue 16, item 12, the referee's half): every error is
one line starting `referee: `, values inside are escaped (a line break or a terminal
escape in a typed value cannot fake a second line or recolour the terminal), SQLite's
multi-line integrity report is joined into that line, and click's errors are not
prefixed twice (`referee: referee: No such option`)."""

from __future__ import annotations

import json

import pytest

from referee.inputs import one_line, shown
from tests.referee._core_support import cli, make_session, one_line_error
from tests.referee._hostile_support import refused, refused_json

FAKE = "\nreferee: cards.yaml:1:1: injected"
ESCAPE = "\x1b[31m"


def test_click_errors_are_prefixed_once(tmp_path):
    line = refused(cli("--nope", cwd=tmp_path))
    assert line == "referee: No such option '--nope'."
    line = refused(cli("mt", cwd=tmp_path))
    assert line == "referee: mt: Missing argument 'PLAYER'."
    line = refused(cli("xs", "adjust", "x", "--nope", cwd=tmp_path))
    assert line.startswith("referee: xs adjust: No such option") and "referee: referee" not in line


def test_click_errors_with_json_print_one_object(tmp_path):
    data = refused_json(cli("log", "--limit", "0", "--json", cwd=tmp_path))
    assert data["error"].startswith("log: Invalid value for '--limit'")


@pytest.fixture
def session(tmp_path):
    db = tmp_path / "game.db"
    make_session(db, heroes={"Ann": [("Hero 1", 1)]})
    return db


CASES = {
    "unknown player": ["mt", "Ann" + FAKE, "+1"],
    "unknown hero": ["ft", ESCAPE + "Hero 1", "+1"],
    "amount": ["mt", "Ann", "+1" + FAKE],
    "dice expression": ["roll", "3" + FAKE],
    "table faces": ["roll", "2", "--roll", "1" + ESCAPE + ",2"],
    "game": ["new", "chess" + FAKE, "--players", "A,B"],
    "player names": ["new", "xo", "--players", "A" + FAKE + ",B", "--force"],
    "option value": ["log", "--limit", "1" + FAKE],
    "command name": ["mt" + FAKE],
}


@pytest.mark.parametrize("args", CASES.values(), ids=CASES.keys())
def test_typed_values_are_escaped_in_the_one_error_line(session, args):
    before = session.read_bytes()
    proc = cli("--session", str(session), *args, "--json")
    code = 1 if args[0] == "ft" else 2  # a hero not in play is a game-state refusal
    line = refused(proc, code)
    assert ESCAPE not in proc.stderr and "\x1b" not in proc.stdout
    assert "\\n" in line or "\\x1b" in line, line
    assert json.loads(proc.stdout)["exit_code"] == code
    assert session.read_bytes() == before


def test_a_session_path_with_a_line_break_stays_one_line(tmp_path):
    line = refused(cli("--session", str(tmp_path / ("x" + FAKE)), "status"))
    assert "x\\nreferee: cards.yaml:1:1: injected" in line


def test_sqlite_multi_line_integrity_report_is_one_line(tmp_path):
    db = tmp_path / "game.db"
    make_session(db)
    data = bytearray(db.read_bytes())
    data[4096 + 3 : 4096 + 5] = b"\x00\x50"  # page 2's cell count: SQLite reports 3+ lines
    db.write_bytes(bytes(data))
    before = db.read_bytes()
    for args in (["status"], ["mt", "Ann", "+1"]):
        line = refused(cli("--session", str(db), *args))
        assert "damaged session file" in line and "On tree page 2" in line, line
        assert "***" not in line and "; " in line
    assert db.read_bytes() == before


def test_in_process_errors_are_one_line_too(session):
    """`fail()` escapes whatever a command raises, not only what the CLI formats."""
    proc = cli("--session", str(session), "mt", "Bob" + FAKE, "-1")
    assert proc.returncode == 2 and "\\n" in one_line_error(proc)


def test_helpers():
    assert one_line("a\nb\tc\x1b[0m") == "a\\nb\\tc\\x1b[0m"
    assert one_line("Solomon O’Sullivan") == "Solomon O’Sullivan"
    assert shown("x" * 100).endswith("... (100 characters)") and len(shown("x" * 100)) < 90
