"""Dice expressions and their errors, with the column where they go wrong."""

from __future__ import annotations

import pytest

from referee.errors import DiceError
from referee.notation import Group, parse
from tests.referee._core_support import cli, one_line_error


@pytest.mark.parametrize(
    "text, groups, modifier, shown",
    [
        ("3", [Group(3, "mask")], 0, "3m"),
        ("3m", [Group(3, "mask")], 0, "3m"),
        ("3M", [Group(3, "mask")], 0, "3m"),
        ("2d6", [Group(2, 6)], 0, "2d6"),
        ("d6", [Group(1, 6)], 0, "1d6"),
        ("4d6", [Group(4, 6)], 0, "4d6"),
        ("1d6+2", [Group(1, 6)], 2, "1d6+2"),
        ("2d6 - 1", [Group(2, 6)], -1, "2d6-1"),
        ("3m+2", [Group(3, "mask")], 2, "3m+2"),
        ("2d6+1d6", [Group(2, 6), Group(1, 6)], 0, "2d6+1d6"),
        ("1d6-1d4+3-1", [Group(1, 6), Group(1, 4, -1)], 2, "1d6-1d4+2"),
        ("0m", [Group(0, "mask")], 0, "0m"),
        ("-1d4+2", [Group(1, 4, -1)], 2, "-1d4+2"),
    ],
)
def test_parse(text, groups, modifier, shown):
    expr = parse(text)
    assert list(expr.groups) == groups
    assert expr.modifier == modifier
    assert str(expr) == shown


@pytest.mark.parametrize(
    "text, column, words",
    [
        ("", 1, "empty"),
        ("2d", 3, "sides"),
        ("2dx", 3, "sides"),
        ("x", 1, "expected a number"),
        ("3m+", 4, "after '+'"),
        ("2d6++1", 5, "expected a number"),
        ("3 4", 3, "expected '+'"),
        ("2d1", 3, "2 to 1000 sides"),
        ("1d6*2", 4, "'*'"),
        ("101m", 1, "at most 100"),
        ("60m+60m", None, "at most 100 dice in all"),
    ],
)
def test_errors_name_the_column(text, column, words):
    with pytest.raises(DiceError) as error:
        parse(text)
    message = str(error.value)
    assert words in message
    if column is not None:
        assert f"at column {column}:" in message


def test_cli_notation_error_is_one_line_exit_2():
    proc = cli("roll", "2d6+x")
    assert proc.returncode == 2
    line = one_line_error(proc)
    assert "column 5" in line and "'2d6+x'" in line


def test_cli_odds_notation_error_exit_2():
    proc = cli("odds", "3m", "vs", "2q")
    assert proc.returncode == 2 and "column 2" in one_line_error(proc)
