"""A bounded cache that keeps what is used often: two generations of a dict.

Lookups promote an entry into the young generation; when the young one is full, the old
one is dropped and the young one becomes old. Entries used on every card (a frame, a
label) survive forever, entries of one card (its name) age out. Cheaper than an LRU."""

from __future__ import annotations

from typing import Any


class RecentCache:
    def __init__(self, size: int = 4096):
        self.size = size
        self.young: dict[Any, Any] = {}
        self.old: dict[Any, Any] = {}

    def get(self, key: Any) -> Any:
        value = self.young.get(key)
        if value is None:
            value = self.old.get(key)
            if value is not None:
                self.put(key, value)
        return value

    def put(self, key: Any, value: Any) -> None:
        if len(self.young) >= self.size:
            self.old = self.young
            self.young = {}
        self.young[key] = value

    def __len__(self) -> int:
        return len(self.young) + len(self.old)
