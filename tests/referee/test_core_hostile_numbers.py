"""Numbers typed at the table (issue 16, item 9): only ASCII digits, bounded length.
`str.isdigit()` accepts `²` (then `int()` fails) and `٣` (then `int()` reads 3); `int()` of
more than 4,300 digits raises. Every such number is refused: exit 2, one line, and with
--json one JSON object; a session is left byte for byte as it was."""

from __future__ import annotations

import pytest

from referee import inputs
from tests.referee._core_support import cli, make_session
from tests.referee._hostile_support import bounded_referee, refused_json

HUGE = "9" * 5000  # over Python's 4,300-digit limit for int()


def run(*args: str, cwd=None):
    """A value that could make a careless parser eat memory or CPU runs in a bounded
    process (the bound is the point); the others in this process."""
    if any(HUGE in arg for arg in args):
        return bounded_referee(*args, cwd=cwd)
    return cli(*args, cwd=cwd)
SUPERSCRIPT_TWO = "\u00b2"  # "²": isdigit() is True, int() raises
ARABIC_THREE = "\u0663"  # "٣": isdigit() is True, int() reads 3


@pytest.fixture
def session(tmp_path):
    db = tmp_path / "game.db"
    make_session(db, heroes={"Ann": [("Hero 1", 1)]})
    return db


SESSION_CASES = {
    "mt huge": ["mt", "Ann", "+" + HUGE],
    "mt superscript": ["mt", "Ann", "+" + SUPERSCRIPT_TWO],
    "mt arabic adds nothing": ["mt", "Ann", "+" + ARABIC_THREE],
    "mt set arabic": ["mt", "Ann", "=" + ARABIC_THREE],
    "ft huge": ["ft", "Hero 1", "+" + HUGE],
    "ft arabic": ["ft", "Hero 1", "-" + ARABIC_THREE],
    "undo count arabic": ["undo", ARABIC_THREE],
    "log limit superscript": ["log", "--limit", SUPERSCRIPT_TWO],
    "command seed huge": ["mt", "Ann", "+1", "--seed", HUGE],
}


@pytest.mark.parametrize("args", SESSION_CASES.values(), ids=SESSION_CASES.keys())
def test_session_commands_refuse_non_ascii_and_huge_numbers(session, args):
    before = session.read_bytes()
    proc = run("--session", str(session), *args, "--json")
    refused_json(proc)
    assert session.read_bytes() == before


STATELESS_CASES = {
    "roll huge count": ["roll", HUGE],
    "roll huge modifier": ["roll", "1d6+" + HUGE],
    "roll huge sides": ["roll", "1d" + HUGE],
    "roll superscript": ["roll", "1d6+" + SUPERSCRIPT_TWO],
    "roll arabic": ["roll", ARABIC_THREE],
    "roll face huge": ["roll", "3", "--roll", HUGE + ",1,1"],
    "roll face superscript": ["roll", "3", "--roll", SUPERSCRIPT_TWO + ",1,1"],
    "roll face arabic": ["roll", "1", "--roll", ARABIC_THREE],
    "roll seed arabic": ["--seed", ARABIC_THREE, "roll", "2"],
    "odds huge": ["odds", HUGE],
    "odds vs huge": ["odds", "3m", "vs", HUGE + "m"],
    "odds at-least huge": ["odds", "3m", "--at-least", HUGE],
    "odds at-least arabic": ["odds", "3m", "--at-least", ARABIC_THREE],
    "xo attack dice arabic": ["xo", "combat", "--attack-dice", ARABIC_THREE],
    "xs adjust by huge": ["xs", "adjust", "Venus Dee Milo", "--by", HUGE],
}


@pytest.mark.parametrize("args", STATELESS_CASES.values(), ids=STATELESS_CASES.keys())
def test_stateless_commands_refuse_non_ascii_and_huge_numbers(tmp_path, args):
    proc = run(*args, "--json", cwd=tmp_path)
    data = refused_json(proc)
    assert len(data["error"]) < 400  # a 5,000-digit value is shown cut, with its length


def test_arabic_digit_was_never_added(session):
    """`+٣` used to add 3 MT silently: now refused, the balance untouched."""
    cli("--session", str(session), "mt", "Ann", "+" + ARABIC_THREE, check=2)
    cli("--session", str(session), "mt", "Ann", "+0", check=0)
    log = cli("--session", str(session), "log", check=0).stdout
    assert "+0" in log and ARABIC_THREE not in log


def test_ascii_numbers_up_to_the_limit_still_work(session):
    most = "9" * inputs.MAX_DIGITS
    cli("--session", str(session), "mt", "Ann", "=" + most, check=0)
    assert cli("roll", "1d6+" + most, "--seed", "1", check=0).stdout
    proc = cli("--session", str(session), "mt", "Ann", "+1" + most)
    assert proc.returncode == 2 and f"at most {inputs.MAX_DIGITS}" in proc.stderr


@pytest.mark.parametrize(
    ("text", "value"),
    [("7", 7), ("+7", 7), ("-7", -7), ("007", 7), ("", None), ("+", None), ("7 ", None),
     ("1_000", None), (SUPERSCRIPT_TWO, None), (ARABIC_THREE, None), ("\uff17", None),
     (HUGE, None), ("9" * 18, 10**18 - 1), ("9" * 19, None)],
)
def test_small_int_reads_only_ascii_digits(text, value):
    assert inputs.small_int(text) == value
