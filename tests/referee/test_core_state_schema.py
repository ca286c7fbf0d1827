"""The limits `state_schema.parse` puts on a column's JSON, read from the text's brackets
(issue 34: a kept game's payload is read by every command, and walking its values was a
tenth of a command's CPU): a value nests at most MAX_DEPTH + 1 lists and objects deep,
whatever brackets its strings hold."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.state_schema import MAX_DEPTH, SchemaError, parse

LIMIT = MAX_DEPTH + 1  # what the session format has always accepted (33)


def height(value) -> int:
    """Lists and objects nested in `value`, counted by walking it (the reference)."""
    if isinstance(value, dict):
        return 1 + max(map(height, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(height, value), default=0)
    return 0


def nested(levels: int, inner: object = 1) -> object:
    value = inner
    for level in range(levels):
        value = [value] if level % 2 else {"k": value}
    return value


def accepted(text: str) -> bool:
    try:
        parse(text, "x")
    except SchemaError as error:
        assert str(error) == f"x: nested more than {MAX_DEPTH} deep"
        return False
    return True


@pytest.mark.parametrize("levels", [1, LIMIT - 1, LIMIT, LIMIT + 1, LIMIT + 20])
def test_nesting_up_to_the_limit_is_accepted_and_beyond_refused(levels):
    for inner in (1, [], {}, "[[[{{{", 'a "quoted" \\ ]]}}'):
        value = nested(levels, inner)
        assert accepted(json.dumps(value)) == (height(value) <= LIMIT), (levels, inner)
        assert accepted(json.dumps(value, indent=1)) == (height(value) <= LIMIT)


def test_brackets_in_strings_are_text():
    value = nested(LIMIT, "[" * 100 + '\\"' + "{" * 100)
    assert accepted(json.dumps(value))
    assert accepted(json.dumps(["]" * 50, {"[[": "}}" * 40}, '"[' * 40]))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ a,:'),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.text(alphabet='[]{}"\\ a', max_size=4), inner, max_size=3),
    max_leaves=25,
)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(json_values, st.integers(0, LIMIT + 2))
def test_parse_refuses_exactly_what_nests_too_deep(value, wrap):
    value = nested(wrap, value)
    assert accepted(json.dumps(value)) == (height(value) <= LIMIT)


def test_a_payload_read_again_is_still_checked_whole_and_with_its_row():
    """check_row remembers a long payload that passed (a kept game's `new` payload is read
    on every command), never a verdict on anything else: another text is parsed anew, and
    the row's other columns are checked each time."""
    from referee import state_schema

    payload = json.dumps({"definition": {"cards": ["x" * 40] * 60}})
    row = (1, "2026-01-01T00:00:00+00:00", "new", "a game", payload, "{}")
    state_schema.check_row(row)
    state_schema.check_row(row)  # remembered
    with pytest.raises(SchemaError, match="event #1: payload"):
        state_schema.check_row((*row[:4], payload[:-1], "{}"))  # one byte less: not JSON
    with pytest.raises(SchemaError, match="event #1: payload"):
        state_schema.check_row((*row[:4], "[" + payload + "]", "{}"))  # not an object
    with pytest.raises(SchemaError, match="event #1: summary"):
        state_schema.check_row((*row[:3], "two\nlines", payload, "{}"))
    with pytest.raises(SchemaError, match="event #1: state"):
        state_schema.check_row((*row[:5], None))
