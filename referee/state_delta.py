"""Session format 2: most events store their state as a delta against an anchor.

In format 1 every event row held the whole game state (~1 KB of JSON), so a 50,000-event
session was ~65 MB, and the first open of a file (SQLite's `quick_check` and the bulk CRC
of session._verify_bulk, both over every byte) cost ~300 ms (issue 36, item 5). In format 2
a row's `state_json` is either the whole state (a JSON object: an *anchor*) or a JSON array
`[anchor_seq, changes]`: the changes that turn the anchor's state into this event's. An
anchor is written every `ANCHOR_EVERY` events, for a `new` game, and whenever a delta would
not be much smaller than the state. A delta always names an anchor (never another delta), so
rebuilding a state reads at most one more row.

A change is `[path, value]` (set the key at `path`, a list of object keys, to `value`) or
`[path]` (remove it). A state rebuilt is `json.dumps` of the anchor's state with its changes
applied: the very text the referee wrote (`encode` verifies that before it stores a delta,
and stores the whole state otherwise), so what a command reads is the same in both formats.

Pure functions on texts and values (no sqlite3): session.py reads the rows and checks them."""

from __future__ import annotations

import json
from typing import Any

from referee.inputs import shown
from referee.state_schema import SchemaError, parse

ANCHOR_EVERY = 64  # a delta is at most this many events from its anchor
Change = list[Any]


def is_delta(stored: str) -> bool:
    """A stored state that is a delta (a whole state is a JSON object)."""
    return stored.startswith("[")


def anchor_of(seq: int, stored: str) -> int:
    """The anchor of the row `seq` whose stored state is `stored`: itself if it is whole.
    Only for a row written by this command or rebuilt already (`split` checked it)."""
    return int(stored[1:stored.index(",")]) if is_delta(stored) else seq


def encode(seq: int, text: str, state: dict, anchor: int, anchor_text: str) -> str:
    """How event `seq` stores its state (`text`, the JSON of `state`): a delta against the
    whole state `anchor_text` of event `anchor`, or `text` itself (an anchor) when that
    is `ANCHOR_EVERY` events back or more, or the delta would not save half."""
    if not 0 < seq - anchor < ANCHOR_EVERY:
        return text
    old = json.loads(anchor_text)
    return encode_against(seq, text, state, anchor, old) if isinstance(old, dict) else text


def encode_against(seq: int, text: str, state: dict, anchor: int, old: dict) -> str:
    """`encode` with the anchor's state as values already (a session parses each anchor
    once a command: `Session._anchor_state`)."""
    if not 0 < seq - anchor < ANCHOR_EVERY:
        return text
    changes: list[Change] = []
    if not _diff(old, state, [], changes):
        return text
    stored = json.dumps([anchor, changes])
    if len(stored) * 2 > len(text) or applied(old, changes, "state") != text:
        return text
    return stored


def split(seq: int, stored: str, where: str) -> tuple[int, list[Change]]:
    """A delta's (anchor seq, changes), checked: an earlier event, well-formed changes."""
    value = parse(stored, where)
    if not isinstance(value, list) or len(value) != 2 or type(value[0]) is not int:
        raise SchemaError(f"{where}: expected an object, or [event, changes]")
    anchor, changes = value
    if not 1 <= anchor < seq:
        raise SchemaError(f"{where}: a change of event #{anchor}, not an earlier event")
    if not isinstance(changes, list) or not all(_is_change(c) for c in changes):
        raise SchemaError(f"{where}: expected a list of changes, [keys, value] or [keys]")
    return anchor, changes


def rebuild(anchor_text: str, changes: list[Change], where: str) -> str:
    """The state text: the anchor's state (whole: a JSON object) with `changes` applied."""
    return applied(anchor_state(anchor_text, where), changes, where)


def anchor_state(anchor_text: str, where: str) -> dict:
    """An anchor's state as values (a whole state: a JSON object), for `applied`."""
    if is_delta(anchor_text):
        raise SchemaError(f"{where}: a change of a change (its event is no whole state)")
    state = parse(anchor_text, where)
    if not isinstance(state, dict):
        raise SchemaError(f"{where}: a change of no object")
    return state


def applied(state: dict, changes: list[Change], where: str) -> str:
    """The JSON text of `state` with `changes` applied; `state` is left as it was (the
    objects on a change's path are copied: an anchor's state serves all its deltas)."""
    result = dict(state)
    fresh = {id(result)}  # the objects copied: changed in place from then on
    for change in changes:
        *keys, last = change[0]
        node: Any = result
        for key in keys:
            child = node.get(key) if isinstance(node, dict) else None
            if isinstance(child, dict) and id(child) not in fresh:
                child = node[key] = dict(child)
                fresh.add(id(child))
            node = child
        if not isinstance(node, dict) or (len(change) == 1 and last not in node):
            raise SchemaError(f"{where}: a change of {shown('.'.join(change[0]))}, not in the state")
        if len(change) == 1:
            del node[last]
        else:
            node[last] = change[1]
    return json.dumps(result)


def _is_change(change: Any) -> bool:
    return (isinstance(change, list) and len(change) in (1, 2) and isinstance(change[0], list)
            and len(change[0]) > 0 and all(isinstance(key, str) for key in change[0]))


def _diff(old: dict, new: dict, path: list[str], out: list[Change]) -> bool:
    """Append to `out` the changes that turn `old` into `new`; False if the keys of `new`
    are not in the order applying them gives (kept ones first, in order; then added)."""
    if [k for k in old if k in new] + [k for k in new if k not in old] != list(new):
        return False
    out.extend([[*path, key]] for key in old if key not in new)
    for key, value in new.items():
        before = old.get(key, _MISSING)
        if before is _MISSING or before != value or type(before) is not type(value):
            if not (isinstance(before, dict) and isinstance(value, dict)
                    and _diff(before, value, [*path, key], out)):
                out.append([[*path, key], value])
    return True


_MISSING = object()
