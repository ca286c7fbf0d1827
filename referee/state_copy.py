"""A copy of a referee state for a command to change (issue 34: `copy.deepcopy` was a fifth
of a command's CPU).

A state is JSON-like data (it is written to the session as JSON): dicts, lists and plain
values. `copy_state` copies every dict and list and shares the plain values, which no rule
can change in place; anything else (a tuple, a set, an object a game module keeps) is
deep-copied as before. Unlike deepcopy it does not keep two references to one list as one
list in the copy: a state read from JSON never has them."""

from __future__ import annotations

import copy
from typing import Any

ATOMS = frozenset({str, int, float, bool, type(None)})  # shared, never copied


def copy_state(value: Any) -> Any:
    """`value` with each of its dicts and lists copied, equal to it and sharing no
    container with it."""
    kind = type(value)
    if kind is dict:
        atoms = ATOMS
        return {key: item if type(item) in atoms else copy_state(item)
                for key, item in value.items()}
    if kind is list:
        atoms = ATOMS
        return [item if type(item) in atoms else copy_state(item)
                for item in value]
    if kind in ATOMS:
        return value
    return copy.deepcopy(value)
