"""Typed objects of the card database. Built once by `carddb.load`; read-only afterwards."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Source:
    """Where a value was written: 1-based line and column in the YAML file."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Card:
    """One card design. `fields` holds the type-specific fields exactly as validated
    (for example `attack`, `powers`, `fcv`, `ability`, `event`, `mission`)."""

    name: str
    type: str
    text: str
    copies: int
    game: str
    deck: str
    fields: dict[str, Any]
    source: Source
    image: str | None = None

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.fields.get(key, default)


@dataclass(frozen=True)
class Deck:
    """A deck of a game: its cards, card size and back."""
    id: str
    game: str
    title: str
    size_mm: tuple[float, float]
    back: dict[str, Any]
    cards: tuple[Card, ...]
    source: Source
    id_source: Source | None = None     # where its id (the key under `decks:`) is written
    # In a database printed in another language (carddb.languages.localised) whose card
    # names are translated: each card's identity, its default-language name, in order.
    identities: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        """Physical cards, copies included."""
        return sum(card.copies for card in self.cards)

    def card_ids(self) -> tuple[str, ...]:
        """Each card's identity in card order: its name in the default language (the
        key of build records and `pnp diff`, whatever language the deck is printed in)."""
        return self.identities or tuple(card.name for card in self.cards)

    def __reduce__(self):
        # Its cards pickled as tuples, not as objects with a state each: a deck of 8,000
        # cards pickles in a third of the time (the load cache: carddb.cache, issue 24).
        state = {k: v for k, v in self.__dict__.items() if k != "cards"}
        return _deck, (state, tuple((c.name, c.type, c.text, c.copies, c.game, c.deck, c.fields,
                                     c.source.file, c.source.line, c.source.col, c.image)
                                    for c in self.cards))


def _deck(state: dict, cards: tuple) -> Deck:
    """A pickled Deck again (Deck.__reduce__)."""
    return Deck(**state, cards=tuple(Card(n, t, x, c, g, d, f, Source(file, line, col), i)
                                     for n, t, x, c, g, d, f, file, line, col, i in cards))


@dataclass(frozen=True)
class Game:
    """A game of the database: its decks, players, colours and the extras its templates read."""
    id: str
    title: str
    min_players: int
    max_players: int
    colors: dict[str, str]
    decks: dict[str, Deck]
    # Non-card components, as validated: dice, mats, tokens, reference.
    extras: dict[str, Any] = field(default_factory=dict)
    rules: str | None = None       # the rules plug-in attached (`rules: xo`), if any
    # The declared card types: {type: {field: field type}}.
    card_types: dict[str, dict[str, str]] = field(default_factory=dict)

    def cards(self, type: str | None = None) -> list[Card]:
        return [c for d in self.decks.values() for c in d.cards if type is None or c.type == type]

    def card(self, name: str) -> Card:
        """The card called `name` (in a database printed in another language, its name
        there or its identity: carddb.languages); KeyError if there is none."""
        for deck in self.decks.values():
            for card in deck.cards:
                if card.name == name:
                    return card
        for deck in self.decks.values():
            for card, ident in zip(deck.cards, deck.identities, strict=False):
                if ident == name:
                    return card
        raise KeyError(name)


@dataclass(frozen=True)
class PrintProfile:
    """How the database asks to be printed (cards.yaml `print:`): paper, bleed, duplex, fonts."""
    paper: str
    bleed_mm: float
    duplex: str
    back_offset_mm: tuple[float, float]
    crop_marks: bool
    die_label_mm: float
    fonts: dict[str, str]
    min_text_pt: float = 6.0    # no printed glyph smaller (pnp.draw.render enforces it)
    printer_margin_mm: float = 5.0
    layout: str = "auto"
    corner_radius_mm: float = 3.175  # rounding of the cut corners (pnp export cut)
    ink_saver: bool = False  # templates draw light frames and backs (INK_SAVER)
    # print.cut_guides as validated: the style of the sheets' cut guides (pnp reads it)
    cut_guides: dict[str, Any] = field(default_factory=dict)
    # the backs' scale (percent, x and y) and turn (degrees, anticlockwise as seen from
    # the back) about the page centre: duplex corrections beside back_offset_mm
    back_scale_pct: tuple[float, float] = (100.0, 100.0)
    back_rotate_deg: float = 0.0


@dataclass(frozen=True)
class Database:
    """A validated card database: its print profile and games, and the files it was read from."""
    path: Path
    print: PrintProfile
    games: dict[str, Game]
    # Every file the database was read from: its cards.yaml, then the spreadsheets.
    sources: tuple[Path, ...] = ()
    # `release: {version, date}` of cards.yaml (the version stamp; empty when not given).
    release: dict[str, str] = field(default_factory=dict)
    # `profiles:` of cards.yaml: named output profiles for print shops (pnp/exports/profiles.py).
    profiles: dict[str, dict] = field(default_factory=dict)
    # `languages:` and the translations (carddb.languages.Languages), None when none is
    # declared; `language`: the one this database is printed in (carddb.languages.localised).
    languages: Any = None
    language: str | None = None

    @property
    def root(self) -> Path:
        """The project folder: paths in the database are resolved inside it."""
        return self.path.parent


_COMMON = frozenset(("name", "type", "text", "copies", "image"))
_CONTAINERS = (dict, list)


def plain(value):
    """Located containers -> plain dicts and lists (JSON-friendly, no positions)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def card_of(card: dict, gid: str, did: str, pos: Any, name: str, defaults: dict) -> Card:
    """The Card of a validated card mapping written at `pos` (a carddb.yamlsource.Pos: a
    spreadsheet cell names its file) in the cards.yaml called `name`; `defaults`: each
    card type's (field, default value) pairs."""
    fields = {k: plain(v) if isinstance(v, _CONTAINERS) else v
              for k, v in card.items() if k not in _COMMON}
    for key, default in defaults.get(card["type"], ()):
        if key not in fields:
            fields[key] = plain(default)
    file = pos.where.split(":")[0].split("[")[0] if pos.where else name
    return Card(card["name"], card["type"], card.get("text", ""), card.get("copies", 1), gid, did,
                fields, Source(file, pos.line, pos.col), card.get("image"))
