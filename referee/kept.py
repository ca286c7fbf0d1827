"""The game a session keeps: its definition as it stood at `referee new`, played to the end.

A designer edits cards.yaml between two games of a playtest, and sometimes during one. The
game in progress must not change under the table (a die's odds, a card's name, a token
kind), nor become unreadable: `referee new` stores the game's definition once, as plain
data, in the payload of its `new` event, and every command of that game plays on it.

    payload["definition"] = {
        "format": 1,
        "kind": "table" | "cards",
        "game": <the game's id>,
        "cards": <the name of the card database it came from, e.g. "cards.yaml">,
        "data": <the definition>,
    }

- `"table"` (a game of one's own cards.yaml, played by the table kit): `data` is
  `TableGame.to_data()` (referee/table/kit.py): dice with their faces, token kinds, decks,
  card names with their decks, phases, and whatever fields TableGame holds (rules as data).
- `"cards"` (a bundled game with a rules module: X-Statix, XO!): `data` is the carddb game
  (`KeptCards`): its decks with every card's name, type, text, copies and fields (the
  machine-readable effects the engines read), its extras (dice, tokens...), rules id and
  card types; `KeptGame.database()` gives the engines a card database of that one game
  (`Catalog.from_db`, `XoCards.from_db` work on it unchanged).

Reading it back checks every value against its type (referee/plain.py): a session whose
definition is damaged is refused like any invalid row. A session made before games were
kept has no definition: its commands load cards.yaml as they always did.

When the card database a command finds differs from the kept definition, the command goes
on and says so once, in one line (`notice`): what changed since the game began (renamed,
removed or added cards, changed dice, tokens, rules) and that `referee new` starts a game
with the new cards. Once per change: the line is remembered, per session and game, keyed
by the digest of the database's definition as found (beside the session's verified marks,
referee/session_verified.py, and in the process for `referee play`; with
PNP_CACHE_DIR=off only in the process); an edit that changes the definition again is said
again, with everything that differs from the game's start. A command that finds the
database unchanged remembers so (`same_as_kept`: the fingerprints of the files it loaded,
carddb.fingerprint, for this `new` event's payload): the next command whose files have
the same fingerprints neither loads nor compares them (`unchanged`). Commands that read no cards
(`status`, `log`, `undo`, `redo`, `mt`, `hand`) load no database (as before) and say
nothing; the next one that does says it."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from referee.inputs import one_line, shown
from referee.state_schema import MAX_DEPTH, MAX_TEXT_CHARS, SchemaError

FORMAT = 1
KINDS = ("table", "cards")
# The `new` row's payload is parsed with the limits of every row (state_schema.parse): a
# definition that would not fit is not kept (the game then reads cards.yaml, as before).
MAX_CHARS = MAX_TEXT_CHARS // 2
MAX_NESTING = MAX_DEPTH - 4
SHOWN_CHANGES = 5  # the notice names this many changes, then "and N more"


# ── the shape of a bundled game's cards ────────────────────────────────────────
@dataclass(frozen=True)
class KeptCard:
    name: str
    type: str
    text: str
    copies: int
    fields: dict[str, Any]
    image: str | None = None


@dataclass(frozen=True)
class KeptDeck:
    title: str
    size_mm: tuple[float, float]
    back: dict[str, Any]
    cards: tuple[KeptCard, ...]


@dataclass(frozen=True)
class KeptCards:
    """A carddb `Game` as plain data (no source positions: moving a line is no change)."""

    id: str
    title: str
    min_players: int
    max_players: int
    colors: dict[str, str]
    decks: dict[str, KeptDeck]
    extras: dict[str, Any] = field(default_factory=dict)
    rules: str | None = None
    card_types: dict[str, dict[str, str]] = field(default_factory=dict)

    @classmethod
    def of(cls, game: Any) -> KeptCards:
        decks = {
            deck_id: KeptDeck(deck.title, tuple(deck.size_mm), dict(deck.back), tuple(
                KeptCard(c.name, c.type, c.text, c.copies, dict(c.fields), c.image)
                for c in deck.cards))
            for deck_id, deck in game.decks.items()
        }
        return cls(game.id, game.title, game.min_players, game.max_players, dict(game.colors),
                   decks, dict(game.extras), game.rules, dict(game.card_types))

    def game(self, source_name: str) -> Any:
        """The carddb `Game` again (every card's source: the database it came from)."""
        from carddb.model import Card, Deck, Game, Source

        at = Source(source_name, 0, 0)
        decks = {
            deck_id: Deck(deck_id, self.id, deck.title, deck.size_mm, deck.back, tuple(
                Card(c.name, c.type, c.text, c.copies, self.id, deck_id, c.fields, at, c.image)
                for c in deck.cards), at)
            for deck_id, deck in self.decks.items()
        }
        return Game(self.id, self.title, self.min_players, self.max_players, self.colors,
                    decks, self.extras, self.rules, self.card_types)


class KeptDatabase:
    """A card database holding the one game a session keeps (what the engines read of a
    `carddb.Database`: `games` and `path`)."""

    __slots__ = ("games", "path")

    def __init__(self, game: Any, source_name: str) -> None:
        from pathlib import Path

        self.games = {game.id: game}
        self.path = Path(source_name)


class KeptGame:
    """A session's kept definition, read and checked (`read`)."""

    __slots__ = ("kind", "game_id", "cards", "definition", "began", "stored", "_database")

    def __init__(self, kind: str, game_id: str, cards: str, definition: Any,
                 began: tuple[int, str] = (0, ""), stored: str = "") -> None:
        self.kind = kind  # "table" or "cards"
        self.game_id = game_id
        self.cards = cards  # the card database's name when the game began
        self.definition = definition  # a TableGame, or KeptCards
        self.began = began  # (seq, ts) of the `new` event
        self.stored = stored  # the digest of that event's payload as stored (`read_row`)
        self._database: KeptDatabase | None = None

    def table_game(self) -> Any:
        """The TableGame the table kit plays (a "table" definition)."""
        if self.kind != "table":
            raise ValueError(f"a {self.kind!r} definition holds no TableGame")
        return self.definition

    def database(self) -> KeptDatabase:
        """The card database of the game as it began (a "cards" definition)."""
        if self.kind != "cards":
            raise ValueError(f"a {self.kind!r} definition holds no card database")
        if self._database is None:
            self._database = KeptDatabase(self.definition.game(self.cards), self.cards)
        return self._database

    def card_types(self) -> dict[str, str]:
        """Every card name of the game -> its card type (the table kit: its deck)."""
        if self.kind == "table":
            return dict(self.definition.cards)
        return {c.name: c.type for d in self.definition.decks.values() for c in d.cards}

    def data(self) -> dict:
        """The definition as plain data (normalised: the fields added since, defaulted)."""
        from referee.plain import to_data

        return to_data(self.definition)


# ── writing ────────────────────────────────────────────────────────────────────
def _source_name(db: Any) -> str:
    return os.path.basename(str(db.path)) or str(db.path)


def build(state: dict, db: Any) -> KeptGame:
    """The definition of `state`'s game in `db` (the database `new` set it up with)."""
    game_id = state["game"]
    if state.get("kit") == "table":
        from referee.table.kit import TableGame

        return KeptGame("table", game_id, _source_name(db), TableGame.from_db(db, game_id))
    return KeptGame("cards", game_id, _source_name(db), KeptCards.of(db.games[game_id]))


def payload(state: dict, db: Any) -> dict:
    """What `referee new` adds to its event's payload: {"definition": ...}; nothing for a
    definition too large or too deep to keep (the game then reads cards.yaml, as before)."""
    if state.get("game") not in db.games:  # a plug-in game without cards: none to keep
        return {}
    kept = build(state, db)
    stored = {"format": FORMAT, "kind": kept.kind, "game": kept.game_id, "cards": kept.cards,
              "data": kept.data()}
    text = json.dumps(stored)
    if len(text) > MAX_CHARS or _depth(stored) > MAX_NESTING:
        return {}
    return {"definition": stored}


def public_event(event: dict) -> dict:
    """An event as `log --json` shows it: a `new` event's definition without its data
    (every card of the game, a hidden deck's names among them), as {format, kind, game,
    cards, digest}."""
    stored = event.get("payload", {}).get("definition")
    if event.get("kind") != "new" or not isinstance(stored, dict):
        return event
    shown = {k: v for k, v in stored.items() if k != "data"}
    shown["digest"] = digest(stored.get("data"))
    return {**event, "payload": {**event["payload"], "definition": shown}}


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


# ── reading ────────────────────────────────────────────────────────────────────
def read(payload: dict, state: dict, where: str, began: tuple[int, str] = (0, "")
         ) -> KeptGame | None:
    """The definition a `new` event's payload keeps, every value checked (SchemaError
    saying where otherwise); None when it keeps none (a session from before)."""
    from referee import state_schema as s
    from referee.plain import from_data

    stored = payload.get("definition")
    if stored is None:
        return None
    at = f"{where}.definition"
    s.record({"format": s.equals(FORMAT), "kind": s.one_of(*KINDS), "game": s.name,
              "cards": s.name, "data": s.obj})(stored, at)
    if stored["game"] != state.get("game") or (stored["kind"] == "table") != (
            state.get("kit") == "table"):
        raise SchemaError(f"{at}: a definition of {shown(stored['game'])} ({stored['kind']}), "
                          f"not of this game")
    if stored["kind"] == "table":
        from referee.table.kit import TableGame

        definition = TableGame.from_data(stored["data"], f"{at}.data")
    else:
        definition = from_data(KeptCards, stored["data"], f"{at}.data")
    if definition.id != stored["game"]:
        raise SchemaError(f"{at}.data.id: {shown(definition.id)}, not {shown(stored['game'])}")
    return KeptGame(stored["kind"], stored["game"], stored["cards"], definition, began)


_read: dict[tuple, KeptGame] = {}  # in this process: (payload digest, began...) -> read


def read_row(text: str, state: dict, where: str, began: tuple[int, str]) -> KeptGame | None:
    """`read` of a `new` event's payload as stored (its JSON text), once per process: the
    definition of a payload read before is reused (what was checked is the same text),
    only its game checked against `state` again."""
    import hashlib

    from referee import state_schema

    stored = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
    key = (stored, began, state.get("game"), state.get("kit") == "table", where)
    game = _read.get(key)
    if game is None:
        payload = state_schema.parse(text, where)
        state_schema.obj(payload, where)
        game = read(payload, state, where, began)
        if game is None:
            return None
        game.stored = stored
        if len(_read) >= 8:
            _read.clear()
        _read[key] = game
    return game


# ── what changed ───────────────────────────────────────────────────────────────
def changes(kept: KeptGame, db: Any) -> tuple[list[str], dict]:
    """What differs in `db` (which has the game) from the game as it began, one phrase
    each (empty: nothing), and the game's definition in `db` as plain data."""
    now = build({"game": kept.game_id, "kit": "table" if kept.kind == "table" else None}, db)
    before, after = kept.data(), now.data()
    if before == after:
        return [], after
    if kept.kind == "table":
        return _table_changes(before, after) or ["its definition changed"], after
    return _cards_changes(before, after) or ["its definition changed"], after


NOUNS = {"dice": "die", "tokens": "token", "decks": "deck", "cards": "card",
         "deck_titles": "deck title"}


# what a TableGame derives from its cards (rules as data read them): said as the cards
DERIVED = ("card_types", "card_fields", "deck_cards")


def _table_changes(before: dict, after: dict) -> list[str]:
    said: list[str] = []
    changed = [c for c, f in before.get("card_fields", {}).items()
               if c in after.get("card_fields", {}) and after["card_fields"][c] != f]
    said += _renamed_cards(_by_deck(before["cards"]), _by_deck(after["cards"]), changed)
    for key in dict.fromkeys([*before, *after]):
        if key in ("cards", "id", *DERIVED) or before.get(key) == after.get(key):
            continue
        if key == "rules":
            said += _rules_changes(before, after)
            continue
        if key == "aliases":            # a card's other names (carddb.languages): a name
            said += _aliases_changed(before.get(key) or {}, after.get(key) or {})  # or gone
            continue
        said += _keyed(NOUNS.get(key, key.replace("_", " ")), before.get(key), after.get(key))
    return said


def _rules_changes(before: dict, after: dict) -> list[str]:
    """Rules as data (carddb.gamerules) that differ, part by part; phases renamed are said
    once (`phases changed`), their steps changed as `phase steps changed`."""
    was, now = before.get("rules") or {}, after.get("rules") or {}
    said = []
    for key in dict.fromkeys([*was, *now]):
        if was.get(key) == now.get(key):
            continue
        if key == "phases":
            if before.get("phases") == after.get("phases"):
                said.append("phase steps changed")
            continue
        said.append(f"rules: {key.replace('_', ' ')} changed")
    return said


def _aliases_changed(before: dict, after: dict) -> list[str]:
    """The translated names gone or new (one naming a renamed card: the rename said)."""
    return ([f"translated name {shown(k)} removed" for k in before if k not in after] +
            [f"translated name {shown(k)} added" for k in after if k not in before])


def _by_deck(cards: dict[str, str]) -> dict[str, list[str]]:
    decks: dict[str, list[str]] = {}
    for name, deck in cards.items():
        decks.setdefault(deck, []).append(name)
    return decks


RENAMES = 3  # at most this many cards gone and as many new in a deck read as renamed


def _renamed_cards(before: dict[str, list[str]], after: dict[str, list[str]],
                   changed: list[str] | None = None) -> list[str]:
    """Cards gone and cards new, deck by deck; a few gone and as many new in a deck:
    renamed, paired in the deck's order (more: a deck rewritten, each gone one removed)."""
    said: list[str] = []
    added = 0
    for deck in dict.fromkeys([*before, *after]):
        was, now = before.get(deck, []), after.get(deck, [])
        gone = [c for c in was if c not in set(now)]
        new = [c for c in now if c not in set(was)]
        if gone and len(gone) == len(new) <= RENAMES:
            said += [f"card {shown(a)} renamed {shown(b)}" for a, b in zip(gone, new, strict=True)]
        else:
            said += [f"card {shown(c)} removed" for c in gone]
            added += len(new)
    said += [f"card {shown(c)} changed" for c in changed or ()]
    if added:
        said.append(f"{added} card{'s' if added != 1 else ''} added")
    return said


def _keyed(noun: str, before: Any, after: Any) -> list[str]:
    """A field that differs: by key when both are objects (`die storm changed`)."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        return [f"{noun} changed"]
    said = []
    for key in dict.fromkeys([*before, *after]):
        if key not in after:
            said.append(f"{noun} {key} removed")
        elif key not in before:
            said.append(f"{noun} {key} added")
        elif before[key] != after[key]:
            said.append(f"{noun} {key} changed")
    return said


def _cards_changes(before: dict, after: dict) -> list[str]:
    def cards_of(game: dict) -> dict[str, dict]:
        return {c["name"]: c for d in game["decks"].values() for c in d["cards"]}

    def names(game: dict) -> dict[str, list[str]]:
        return {d: [c["name"] for c in deck["cards"]] for d, deck in game["decks"].items()}

    was, now = cards_of(before), cards_of(after)
    changed = [n for n in was if n in now and was[n] != now[n]]
    said = _renamed_cards(names(before), names(after), changed)
    for deck in dict.fromkeys([*before["decks"], *after["decks"]]):
        if deck not in after["decks"]:
            said.append(f"deck {deck} removed")
        elif deck not in before["decks"]:
            said.append(f"deck {deck} added")
    for key in before:
        if key in ("decks", "id") or before.get(key) == after.get(key):
            continue
        if key == "extras":  # dice, tokens, mats...: by name when both declare them
            was, now = before["extras"], after["extras"]
            for extra in dict.fromkeys([*was, *now]):
                if extra not in now:
                    said.append(f"{extra} removed")
                elif extra not in was:
                    said.append(f"{extra} added")
                elif was[extra] != now[extra]:
                    said += _keyed(NOUNS.get(extra, extra), was[extra], now[extra])
        else:
            said.append(f"{key.replace('_', ' ')} changed")
    return said


def notice_line(kept: KeptGame, found: str, what: list[str] | str) -> str:
    """The one line: what changed since the game began, and what to do about it.
    `found`: the name of the database the command loaded; `what`: the changes, or why it
    could not be compared (it does not load, it has no such game)."""
    if isinstance(what, str):
        head = what
    else:
        more = len(what) - SHOWN_CHANGES
        listed = "; ".join(what[:SHOWN_CHANGES]) + (f"; and {more} more" if more > 0 else "")
        head = (f"{found} changed since this game began ({listed})" if found == kept.cards
                else f"this game began with {kept.cards}; {found} differs ({listed})")
    return (f"note: {head}; the game goes on with the cards it began with; `referee new` "
            "starts a game with the new cards")


def digest(value: Any) -> str:
    import hashlib

    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# ── said once ──────────────────────────────────────────────────────────────────
# In this process (referee play): session path -> {"said": ..., "same": ...}, as the
# memory file beside the session's verified marks holds them.
_memory: dict[str, dict[str, list]] = {}


def _memory_file(real: str) -> str | None:
    """The memory file of the session whose real path (every link followed) is `real`."""
    from referee import session_verified

    base = session_verified.folder()
    if base is None:
        return None
    import zlib

    raw = real.encode("utf-8", "surrogateescape")
    return os.path.join(base, f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}.kept.json")


def _recall(session: str, what: str) -> list[list]:
    """What this session's memory holds under `what` ("said", "same"): in this process,
    then in the memory file (another process may have written it since)."""
    real = os.path.realpath(session)  # once: it stats every folder of the path
    known = [entry for entry in [_memory.get(real, {}).get(what)] if entry is not None]
    where = _memory_file(real)
    if where is None:
        return known
    try:
        with open(where, encoding="utf-8") as file:
            data = json.load(file)
        if data.get("path") == real and data.get(what) is not None:
            known.append(data[what])
    except (OSError, ValueError, AttributeError):
        pass
    return known


def _remember(session: str, what: str, entry: list) -> None:
    """Keep `entry` under `what` in this process and in the memory file (a cache: the
    other entries kept as they were; no fsync, a lost one only means a notice said again
    or a comparison made again)."""
    from referee import session_verified

    real = os.path.realpath(session)
    _memory.setdefault(real, {})[what] = entry
    path = _memory_file(real)
    if path is None:
        return
    data: dict[str, Any] = {"path": real}
    for other in ("said", "same"):
        if other != what and (known := _recall(session, other)):
            data[other] = known[0]
    data[what] = entry
    session_verified.write_cache_file(path, data)


def first_time(session: str, kept: KeptGame, key: str) -> bool:
    """Whether the notice keyed `key` (the digest of what the command found) is new for
    this session's game; it is remembered as said."""
    entry = [list(kept.began), key]
    if entry in _recall(session, "said"):
        return False
    _remember(session, "said", entry)
    return True


def unchanged(session: str, kept: KeptGame, found: Callable[[int], str | None]) -> bool:
    """Whether the card database a command would load is the one found the same as the
    kept game before (`same_as_kept`), told by fingerprints without loading it:
    `found(i)`, the fingerprint of the i-th file the loading looks at (carddb.fingerprint:
    0, --cards or ./cards.yaml; 1, the bundled games when the first has not the game)."""
    mine = [list(kept.began), kept.stored]
    return bool(kept.stored) and any(
        isinstance(same, list) and len(same) == 3 and same[:2] == mine
        and isinstance(same[2], list) and all(found(i) == looked for i, looked in enumerate(same[2]))
        for same in _recall(session, "same"))


def same_as_kept(session: str, kept: KeptGame, looked: list[str | None]) -> None:
    """Remember that the database the files `looked` (their fingerprints) gave has the
    kept game unchanged: later commands skip loading and comparing it (`unchanged`)."""
    if looked and None not in looked and kept.stored:
        _remember(session, "same", [list(kept.began), kept.stored, looked])


def notice(session: str, kept: KeptGame, db: Any | None, problem: str | None = None,
           looked: list[str | None] | None = None) -> str | None:
    """The notice for a command that found `db` (or could not load it: `problem`), once
    per change; None when nothing changed or it was said already. `looked`: the
    fingerprints of the files `db` was loaded from: when nothing changed, remembered
    (`same_as_kept`), so that the next command need not load and compare."""
    if db is None:
        what: list[str] | str = one_line(problem or "the card database does not load")
        found, key = kept.cards, digest(["problem", what])
    elif kept.game_id not in db.games:
        from referee.games import title

        found = _source_name(db)
        what = f"{found} has no {title(kept.game_id)} game now"
        key = digest(["missing", found])
    else:
        found = _source_name(db)
        what, now = changes(kept, db)
        if not what:
            same_as_kept(session, kept, looked or [])
            return None
        key = digest([found, now])
    if not first_time(session, kept, key):
        return None
    return notice_line(kept, found, what)
