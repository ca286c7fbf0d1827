"""The X-Statix cards as the rules see them: type and machine-readable effects, read from
the card database (docs/CARDS.md). Nothing here knows a card by its name."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from mypy_extensions import mypyc_attr


class CardLike(Protocol):
    name: str
    type: str

    def get(self, key: str, default: Any = None) -> Any: ...


@mypyc_attr(allow_interpreted_subclasses=True)  # FastCatalog, when compiled with mypyc
class Catalog:
    """Lookups by card name over the X-Statix cards (every deck)."""

    def __init__(self, cards: Iterable[CardLike]) -> None:
        self._cards: dict[str, CardLike] = {card.name: card for card in cards}

    @classmethod
    def from_db(cls, db: Any) -> Catalog:
        return cls(db.xs.cards())

    def __contains__(self, name: str) -> bool:
        return name in self._cards

    def type(self, name: str) -> str:
        return self._cards[name].type

    def ability(self, name: str) -> Sequence[dict]:
        return list(self._cards[name].get("ability") or [])

    def event(self, name: str) -> Sequence[dict]:
        return list(self._cards[name].get("event") or [])

    def counts(self, name: str, what: str) -> int:
        """What a Power/Marketing card counts as for `what` (carnage/success/marketing);
        1 unless its `counts` says otherwise (Healing Powers, Superhuman Strength, Cult of
        Personality)."""
        return int((self._cards[name].get("counts") or {}).get(what, 1))

    def mission(self, name: str) -> dict[str, int]:
        return dict(self._cards[name].get("mission") or {})

    def names(self, type: str | None = None) -> list[str]:
        return [name for name, card in self._cards.items() if type is None or card.type == type]

    def resolve(self, text: str) -> str | None:
        """The card name matching `text` case-insensitively, or None."""
        if text in self._cards:
            return text
        folded = fold(text)
        for name in self._cards:
            if fold(name) == folded:
                return name
        return None


def fold(text: str) -> str:
    """Case and apostrophe style do not matter when a card is named at the table."""
    return " ".join(text.replace("\u2019", "'").casefold().split())
