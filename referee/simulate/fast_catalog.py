"""A `Catalog` with its answers computed once. The X-Statix engine asks the catalog for a
card's abilities thousands of times a game; the answers never change during a simulation,
so they are read from cards.yaml once and handed out as tuples (read-only: the engine only
reads them). Same data, same rules, fewer lookups."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from referee.xs.catalog import CardLike, Catalog


class FastCatalog(Catalog):
    def __init__(self, cards: Iterable[CardLike]) -> None:
        super().__init__(cards)
        base = Catalog(self._cards.values())
        self._type = {n: base.type(n) for n in self._cards}
        self.types = self._type  # read-only: card name -> type, for quick filtering
        self._ability = {n: tuple(base.ability(n)) for n in self._cards}
        self._event = {n: tuple(base.event(n)) for n in self._cards}
        self._counts = {(n, w): base.counts(n, w) for n in self._cards
                        for w in ("carnage", "success", "marketing")}
        self._mission = {n: base.mission(n) for n in self._cards}
        # The hottest lookups answer straight from the dicts (no Python frame per call).
        self.type = self._type.__getitem__  # type: ignore[method-assign]
        self.ability = self._ability.__getitem__  # type: ignore[method-assign]
        self.event = self._event.__getitem__  # type: ignore[method-assign]

    @classmethod
    def from_db(cls, db: Any) -> FastCatalog:
        return cls(db.xs.cards())

    def type(self, name: str) -> str:
        return self._type[name]

    def ability(self, name: str) -> tuple[dict, ...]:
        return self._ability[name]

    def event(self, name: str) -> tuple[dict, ...]:
        return self._event[name]

    def counts(self, name: str, what: str) -> int:
        return self._counts[(name, what)]

    def mission(self, name: str) -> dict[str, int]:
        return dict(self._mission[name])
