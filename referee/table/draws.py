"""Exact odds of a draw from a deck as cards.yaml declares it (every copy a card): how many
of the first N cards of the shuffled deck meet a condition, a card's name (`Squall`), a
type (`Storm`) or a field condition (`speed >= 4`, `flag = red`, `sinks_ships`).
Hypergeometric, as integer weights over C(deck, N) (`referee.odds.Distribution`). Pure:
the cards are given, no files read."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from math import comb
from typing import Any

from carddb.model import Card
from referee.errors import UsageError
from referee.inputs import shown, small_int
from referee.odds import Distribution
from referee.table.pools import closest

OPERATORS = (">=", "<=", "!=", "==", "=", ">", "<")
_FIELD = re.compile(r"\s*([^<>=!]+?)\s*(>=|<=|!=|==|=|>|<)\s*(.*?)\s*\Z")
_TRUE, _FALSE = ("yes", "true"), ("no", "false")


@dataclass(frozen=True)
class Condition:
    """What a drawn card must be: `field` (`name`, `type` or a declared field) compared
    by `op` with `value` (a bool field alone: `= True`)."""

    field: str
    op: str
    value: Any
    text: str  # as the question shows it back

    def __str__(self) -> str:
        return self.text

    @property
    def plain(self) -> bool:
        """A card's name or type: counted as `2 Squall`, else `2 with speed >= 4`."""
        return self.field in ("name", "type") and self.op in ("=", "==")

    def matches(self, card: Card) -> bool:
        have = _field_value(card, self.field)
        if have is None:
            return False  # a card without the field (another type) never meets it
        if isinstance(have, (list, tuple)):
            found = any(_equal(item, self.value) for item in have)
            return found if self.op in ("=", "==") else not found
        if self.op in ("=", "=="):
            return _equal(have, self.value)
        if self.op == "!=":
            return not _equal(have, self.value)
        if isinstance(have, bool) or not isinstance(have, (int, float)):
            return False
        return {">=": have >= self.value, "<=": have <= self.value, ">": have > self.value,
                "<": have < self.value}[self.op]


def _field_value(card: Card, field: str) -> Any:
    if field == "name":
        return card.name
    if field == "type":
        return card.type
    return card.fields.get(field)


def _equal(have: Any, want: Any) -> bool:
    if isinstance(have, str) and isinstance(want, str):
        return have.casefold() == want.casefold()
    return bool(have == want and isinstance(have, bool) == isinstance(want, bool))


def parse_condition(text: str, cards: Sequence[Card], deck: str = "the deck") -> Condition:
    """A card name, else a type, else a bool field (each case-insensitive), or `FIELD OP
    VALUE` with OP one of >= <= > < = != (`name = X` and `type = X` say which is meant)."""
    words = " ".join(text.split())
    if not words:
        raise UsageError(f"name what to count in {deck}: a card, a type or a field "
                         "condition (speed >= 4)")
    match = _FIELD.match(words)
    if match:
        return _comparison(match[1], match[2], match[3], cards, deck)
    names = {c.name.casefold(): c.name for c in cards}
    types = {c.type.casefold(): c.type for c in cards}
    flags = {f.casefold(): f for c in cards for f, v in c.fields.items() if isinstance(v, bool)}
    folded = words.casefold()
    if folded in names:
        return Condition("name", "=", names[folded], names[folded])
    if folded in types:
        return Condition("type", "=", types[folded], types[folded])
    if folded in flags:
        return Condition(flags[folded], "=", True, flags[folded])
    raise UsageError(f"{deck} has no card, type or yes/no field {shown(words)}"
                     f"{closest(words, [*names.values(), *types.values(), *flags.values()])}"
                     f" (types: {', '.join(dict.fromkeys(types.values()))})")


def _comparison(field: str, op: str, raw: str, cards: Sequence[Card], deck: str) -> Condition:
    fields = {"name": "name", "type": "type"}
    fields.update({f.casefold(): f for c in cards for f in c.fields})
    key = fields.get(field.casefold())
    if key is None:
        raise UsageError(f"{deck}: no card has a field {shown(field)}"
                         f"{closest(field, list(fields.values()))} (fields: "
                         f"{', '.join(fields.values())})")
    if not raw:
        raise UsageError(f"{shown(field + ' ' + op)}: a value after {op}")
    values = [v for c in cards if (v := _field_value(c, key)) is not None]
    want = _typed(raw, values, f"{key} {op} {raw}")
    if op in (">=", "<=", ">", "<") and not isinstance(want, int):
        raise UsageError(f"{shown(f'{key} {op} {raw}')}: {op} compares numbers; {key} is "
                         "compared with = or !=")
    if key in ("name", "type"):
        known = {str(v).casefold(): str(v) for v in values}
        if str(want).casefold() not in known:
            listed = f" (types: {', '.join(sorted(known.values()))})" if key == "type" else ""
            raise UsageError(f"{deck} has no card of {key} {shown(raw)}"
                             f"{closest(raw, list(known.values()))}{listed}")
        want = known[str(want).casefold()]
    if key in ("name", "type") and op in ("=", "=="):
        return Condition(key, op, want, str(want))
    return Condition(key, op, want, f"{key} {op} {want}")


def _typed(raw: str, values: Sequence[Any], what: str) -> Any:
    """`raw` read as the field's cards hold it: a whole number, yes/no, else text."""
    flat = [item for v in values for item in (v if isinstance(v, (list, tuple)) else [v])]
    if flat and all(isinstance(v, bool) for v in flat):
        if raw.casefold() in _TRUE + _FALSE:
            return raw.casefold() in _TRUE
        raise UsageError(f"{shown(what)}: the field is yes or no")
    if flat and all(isinstance(v, int) and not isinstance(v, bool) for v in flat):
        number = small_int(raw)
        if number is None:
            raise UsageError(f"{shown(what)}: the field is a whole number")
        return number
    number = small_int(raw)
    return number if number is not None and not flat else raw


def hypergeometric(population: int, successes: int, drawn: int) -> Distribution:
    """How many of `drawn` cards, taken without replacement from `population` cards of
    which `successes` count, count: P(k) = C(K, k) C(N-K, n-k) / C(N, n)."""
    if not 0 <= successes <= population or not 0 <= drawn <= population:
        raise ValueError("0 <= successes, drawn <= population")
    low, high = max(0, drawn - (population - successes)), min(drawn, successes)
    weights = {k: comb(successes, k) * comb(population - successes, drawn - k)
               for k in range(low, high + 1)}
    return Distribution(weights, comb(population, drawn))


def copies(cards: Sequence[Card], condition: Condition) -> tuple[int, int]:
    """(copies meeting `condition`, copies in all) of the cards of a deck."""
    return (sum(c.copies for c in cards if condition.matches(c)), sum(c.copies for c in cards))


def draw(cards: Sequence[Card], n: int, condition: Condition) -> Distribution:
    """The exact distribution of how many of the first `n` cards of the shuffled deck
    `cards` (every copy a card) meet `condition`."""
    hits, total = copies(cards, condition)
    if not 1 <= n <= total:
        raise UsageError(f"draw {n}: the deck has {total} cards; draw 1 to {total}")
    return hypergeometric(total, hits, n)
