"""The X-Statix cards as the rules see them: type and machine-readable effects, read from
the card database (docs/CARDS.md). Nothing here knows a card by its name."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol


class CardLike(Protocol):
    name: str
    type: str

    def get(self, key: str, default: Any = None) -> Any: ...


class Catalog:
    """Lookups by card name over the X-Statix cards (every deck). The answers are read from
    the cards once: the rules ask for a card's effects thousands of times a game (the
    balance lab plays thousands of games), and the cards never change meanwhile. The
    effects are handed out as tuples of the database's own dicts: read, never changed."""

    def __init__(self, cards: Iterable[CardLike],
                 deck: Iterable[tuple[str, int]] = ()) -> None:
        self._cards: dict[str, CardLike] = {card.name: card for card in cards}
        # the common deck: printed copies of each card (XS-16: the table's own deck)
        self._copies: dict[str, int] = {name: copies for name, copies in deck}
        self._type: dict[str, str] = {}
        self._ability: dict[str, tuple[dict, ...]] = {}
        self._event: dict[str, tuple[dict, ...]] = {}
        self._counts: dict[str, dict[str, int]] = {}
        self._mission: dict[str, dict[str, int]] = {}
        for name, card in self._cards.items():
            self._type[name] = card.type
            self._ability[name] = tuple(card.get("ability") or ())
            self._event[name] = tuple(card.get("event") or ())
            self._counts[name] = {k: int(v) for k, v in (card.get("counts") or {}).items()}
            self._mission[name] = dict(card.get("mission") or {})

    @classmethod
    def from_db(cls, db: Any) -> Catalog:
        """The catalog of `db`'s X-Statix cards, made once per database object: every
        command of a session asks for it, on the kept game's database, which the process
        keeps (referee/kept.py), and a database's cards are read-only."""
        made = _MADE.get(id(db))
        if made is not None and made[0] is db and type(made[1]) is cls:
            return made[1]
        common = db.games["x-statix"].decks.get("common")
        deck = [(c.name, int(c.copies)) for c in common.cards] if common is not None else []
        catalog = cls(db.games["x-statix"].cards(), deck)
        if len(_MADE) >= 4:
            _MADE.clear()
        _MADE[id(db)] = (db, catalog)  # the database held: its id is not reused meanwhile
        return catalog

    def copies(self, name: str) -> int:
        """Printed copies of `name` in the common deck (0: not a card of that deck)."""
        return self._copies.get(name, 0)

    def __contains__(self, name: str) -> bool:
        return name in self._cards

    def type(self, name: str) -> str:
        return self._type[name]

    def ability(self, name: str) -> Sequence[dict]:
        return self._ability[name]

    def event(self, name: str) -> Sequence[dict]:
        return self._event[name]

    def counts(self, name: str, what: str) -> int:
        """What a Power/Marketing card counts as for `what` (carnage/success/marketing);
        1 unless its `counts` says otherwise (Healing Powers, Superhuman Strength, Cult of
        Personality)."""
        return self._counts[name].get(what, 1)

    def mission(self, name: str) -> dict[str, int]:
        return dict(self._mission[name])

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


# Catalog.from_db: id(database) -> (the database, its catalog), the few latest
_MADE: dict[int, tuple[Any, Catalog]] = {}
