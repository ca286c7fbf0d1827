"""The layout warning: light enough for the incremental build to replay stored warnings
without importing the renderer."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LayoutWarning:
    """A drawn card whose layout is not as designed (text cut, empty template...)."""

    game: str
    deck: str
    card: str
    element: str
    message: str

    def __str__(self) -> str:
        return f"{self.game}/{self.deck}: {self.card}: {self.element}: {self.message}"
