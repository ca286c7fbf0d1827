"""The card database: `load()` reads and validates a cards.yaml (and the spreadsheets its
decks name) once and returns typed, read-only objects. Both `pnp` and `referee` read cards
only through it. A validated database is also kept in an on-disk cache (carddb.cache),
keyed by the content of every file it read and the version of this code."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from carddb import limits
from carddb.files import read_limited  # noqa: F401  (pnp reads templates with it)
from carddb.model import Card, Database, Deck, Game, PrintProfile, Source, card_of, plain

if TYPE_CHECKING:
    from carddb.schema import Problem, Report
    from carddb.yamlsource import LocatedDict, Pos

# A load answered by the cache imports neither YAML nor the validation code.


def __getattr__(name: str):
    if name == "Problem":
        from carddb.schema import Problem

        return Problem
    raise AttributeError(name)

__all__ = ["Card", "Database", "DatabaseError", "Deck", "Game", "Problem", "bundled_path",
           "bundled_root", "default_path", "load", "parse", "plain", "project_path"]

PACKAGE = Path(__file__).resolve().parent
PROJECT_ROOT = PACKAGE.parent
# An installed package carries the bundled games here (setup.py copies the repository's
# cards.yaml and templates/ into it); a checkout uses the repository's own files.
PACKAGED = PACKAGE / "_bundled"


class DatabaseError(Exception):
    """cards.yaml is unreadable or invalid. `problems` lists every problem found."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__(str(problems[0]) if len(problems) == 1 else
                         f"{problems[0]} (and {len(problems) - 1} more problems)")


def bundled_root() -> Path:
    """The folder of the bundled games' cards.yaml and templates/."""
    return PACKAGED if (PACKAGED / "cards.yaml").is_file() else PROJECT_ROOT


def bundled_path() -> Path:
    return bundled_root() / "cards.yaml"


def project_path(project: str | os.PathLike | None = None) -> Path:
    """The cards.yaml of a project folder (default: the current folder); never a fallback."""
    return Path(project or ".") / "cards.yaml"


def default_path() -> Path:
    """For the referee: ./cards.yaml when there is one, else the bundled games."""
    here = Path("cards.yaml")
    return here if here.is_file() else bundled_path()


def display_name(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


_cache: dict[tuple, Database] = {}
_read: dict[str, str] = {}


def read_digest(path: str | os.PathLike) -> str | None:
    """SHA-256 (hex) of the bytes the latest `load(path)` of this process parsed, or None:
    what a build really read, for its incremental manifest (a save during the build
    must not be taken as built)."""
    return _read.get(str(Path(path).resolve()))


def fingerprint(path: str | os.PathLike | None = None) -> str | None:
    """A digest of everything a `load(path)` validates against, told without loading it:
    the file's bytes, where it is, the name messages call it, carddb's code, and each
    spreadsheet read (its digest) and file checked (that it exists), as this process's or
    the on-disk cache's entry for those bytes records them. Equal fingerprints: `load`
    gives an equal database (the referee's kept game compares them, referee/kept.py).
    None when no entry knows the file (never loaded, invalid, unreadable, or a file it
    depends on changed): then only `load` can tell."""
    path = Path(path) if path is not None else default_path()
    try:
        raw = read_limited(path, limits.MAX_FILE_BYTES)
    except (OSError, ValueError):
        return None
    from carddb import cache

    resolved, name = path.resolve(), display_name(path)
    db = _cache.get((str(resolved), name, hash(raw)))
    facts = cache.facts_of(db) if db is not None else cache.stored_facts(raw, resolved, name)
    if facts is None or cache.changed(facts):
        return None
    return cache.fingerprint(raw, resolved, name, facts)


def load(path: str | os.PathLike | None = None, reserved: Iterable[str] = ()) -> Database:
    """Load and validate the card database (cached per file content in this process).
    `reserved`: ids no deck may take, the caller's own names for what it writes beside
    a game's decks (pnp passes the stems its artefact kinds reserve: pnp.artefacts.kinds).
    They are checked on the validated database, so the database is validated, and
    cached, the same way whoever loads it; a deck holding one is a located
    DatabaseError like any problem."""
    db = _load(path)
    names = frozenset(reserved)
    clash = [deck for game in db.games.values() for deck in game.decks.values()
             if deck.id in names]
    if clash:
        from carddb.schema import Problem

        raise DatabaseError([
            Problem(*_where_id(deck), f"games.{deck.game}.decks.{deck.id}",
                    f"'{deck.id}' is the name of another artefact of the game; choose "
                    f"another deck id")
            for deck in clash])
    return db


def _where_id(deck: Deck) -> tuple[str, int, int]:
    at = deck.id_source or deck.source
    return at.file, at.line, at.col


def _load(path: str | os.PathLike | None) -> Database:
    path = Path(path) if path is not None else default_path()
    name = display_name(path)
    try:
        raw = read_limited(path, limits.MAX_FILE_BYTES)
    except (OSError, ValueError) as exc:
        from carddb.schema import Problem

        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise DatabaseError([Problem(name, 1, 1, "(file)", f"cannot read: {reason}")]) from None
    import hashlib

    from carddb import cache

    key = (str(path.resolve()), name, hash(raw))
    _read[key[0]] = hashlib.sha256(raw).hexdigest()
    old = _cache.get(key)
    if old is not None and not cache.stale(old):
        return old
    import gc

    # Loading makes ~100,000 objects, none of them garbage: the cyclic collector would
    # only walk them, again and again (a third of a cached load, issue 24).
    collecting = gc.isenabled()
    gc.disable()
    try:
        db = _kept(old, raw, path.resolve(), name)
        if db is None:
            from carddb.schema import Report

            report = Report(name)
            db = parse(raw, path.resolve(), name, report)
            cache.save(raw, path.resolve(), name, db, report)
    finally:
        if collecting:
            gc.enable()
    _cache[key] = db
    return db


def _kept(old: Database | None, raw: bytes, path: Path, name: str) -> Database | None:
    """The last valid database of these bytes with the rows a spreadsheet edit changed
    since validated and put in place (carddb.edits: this process's `old` one first, a
    resident watch's, else the cache's), or the cache's as it is when nothing it was
    validated against changed; None: validate."""
    from carddb import cache, edits

    recorded = edits.unpickled(cache.edits_of(old)) if old is not None else None
    facts = cache.facts_of(old) if old is not None else None
    if old is not None and recorded is not None and facts is not None:
        db = _spliced(raw, path, name, (old, facts, recorded))
        if db is not None:
            return db
    found = cache.entry(raw, path, name)
    if found is None:
        return None
    db = cache.database(found)
    if db is None and recorded is None:         # (else the entry is `old`'s, tried)
        before = edits.previous(found)
        db = _spliced(raw, path, name, before) if before is not None else None
    return db


def _spliced(raw: bytes, path: Path, name: str, before: tuple[Database, Any, Any]
             ) -> Database | None:
    """carddb.edits.spliced on (database, facts, recorded edits), kept as a load's."""
    from carddb import cache, edits

    db, facts, recorded = before
    done = edits.spliced(db, facts, recorded, name)
    if done is None:
        return None
    db, facts, recorded = done
    cache.keep(raw, path, name, db, facts, edits.pickled(recorded))
    return db


def parse(raw: bytes, path: Path, name: str, report: Report | None = None) -> Database:
    """Validate `raw`, the bytes of the cards.yaml at `path` (called `name` in
    messages), and build the database. Paths inside it resolve from its folder."""
    from carddb.schema import Problem, Report
    from carddb.validate import validate
    from carddb.yamlsource import YamlProblem, load_yaml

    root = path.parent
    report = report if report is not None else Report(name)
    from carddb import cache

    found = cache.parsed(raw)
    if found is None:
        try:
            data, duplicates = load_yaml(raw)
        except YamlProblem as exc:
            raise DatabaseError([Problem(name, exc.pos.line, exc.pos.col, "(file)",
                                         exc.message)]) from None
        cache.keep_parsed(raw, data, duplicates)
    else:
        data, duplicates = found
    for key, pos, first in duplicates:
        report.add(pos, _path_of_key(data, key, pos) or str(key),
                   f"duplicate key '{key}' (first at line {first.line})")
    validate(data, report, root)
    if report.problems:
        raise DatabaseError(sorted(report.problems, key=lambda p: (p.where is not None, p.where or "",
                                                                   p.line, p.col)) + report.more())
    return _build(data, name, path, report)


def _offset(pair) -> tuple[float, float]:
    """A validated `back_offset_mm` (two numbers: validate.py) as floats."""
    dx, dy = pair
    return float(dx), float(dy)


def _path_of_key(data, key, pos: Pos, path: str = "") -> str | None:
    """The field path of the mapping key written at `pos` (for duplicate-key reports)."""
    from carddb.schema import join
    from carddb.yamlsource import LocatedDict, LocatedList

    items: Iterable[tuple[Any, Any]]
    if isinstance(data, LocatedDict):
        if data.key_pos.get(key) == pos:
            return join(path, key)
        items = data.items()
    elif isinstance(data, LocatedList):
        items = enumerate(data)
    else:
        return None
    for k, v in items:
        found = _path_of_key(v, key, pos, join(path, k))
        if found:
            return found
    return None


COMMON_KEYS = ("name", "type", "text", "copies", "image")


GAME_KEYS = ("title", "players", "colors", "decks", "types", "rules")


def _build(data: LocatedDict, name: str, path: Path, report: Report) -> Database:
    from carddb.yamlsource import Pos, key_pos

    profile = data.get("print") or {}
    sizes = {k: tuple(v) for k, v in (data.get("card_sizes") or {}).items()}
    games = {}
    for gid, game in data["games"].items():
        decks = {}
        types = report.types.get(gid, {})
        defaults = {t: tuple(ct.defaults().items()) for t, ct in types.items()}
        for did, deck in game["decks"].items():
            cards = tuple(card_of(card, gid, did, deck["cards"].at(i), name, defaults)
                          for i, card in enumerate(deck["cards"]))
            size = deck["size"]
            decks[did] = Deck(
                id=did, game=gid, title=deck["title"],
                size_mm=tuple(sizes[size]) if isinstance(size, str) else tuple(size),
                back=plain(deck["back"]), cards=cards,
                source=Source(name, *_pos(game["decks"].at(did))),
                id_source=Source(name, *_pos(key_pos(game["decks"], did, Pos(1, 1)))),
            )
        extras = _with_defaults({k: plain(v) for k, v in game.items() if k not in GAME_KEYS},
                                game.get("colors") or {})
        reference = extras.get("reference")
        if isinstance(reference, dict) and isinstance(reference.get("size"), str):
            reference["size"] = list(sizes[reference["size"]])    # in mm, like a deck's
        games[gid] = Game(
            id=gid, title=game["title"], min_players=game["players"]["min"],
            max_players=game["players"]["max"], colors=plain(game.get("colors") or {}),
            decks=decks, extras=extras, rules=game.get("rules"),
            card_types={t.name: {f.name: f.kind for f in t.fields.values()} for t in types.values()},
        )
    return Database(
        path=path,
        print=PrintProfile(
            paper=profile.get("paper", "letter"),
            bleed_mm=float(profile.get("bleed_mm", 3.175)),
            duplex=profile.get("duplex", "long-edge"),
            back_offset_mm=_offset(profile.get("back_offset_mm", (0, 0))),
            crop_marks=profile.get("crop_marks", True),
            die_label_mm=float(profile.get("die_label_mm", 16)),
            min_text_pt=float(profile.get("min_text_pt", 6)),
            fonts=plain(profile.get("fonts") or {}),
            printer_margin_mm=float(profile.get("printer_margin_mm", 5.0)),
            layout=profile.get("layout", "auto"),
            corner_radius_mm=float(profile.get("corner_radius_mm", 3.175)),
            ink_saver=bool(profile.get("ink_saver", False)),
            cut_guides=plain(profile.get("cut_guides") or {}),
            back_scale_pct=_pair(profile.get("back_scale_pct", (100, 100))),
            back_rotate_deg=float(profile.get("back_rotate_deg", 0)),
        ),
        games=games,
        sources=(path, *dict.fromkeys(p.resolve() for p, _ in report.files_read)),
        release={k: str(v) for k, v in (data.get("release") or {}).items()},
        profiles=plain(data.get("profiles") or {}),
        languages=report.languages.result() if report.languages is not None else None,
    )


# What a minimal token declaration {label, name, count, start, per} prints and plays with.
TOKEN_DEFAULTS = {"diameter_mm": 20, "start": 0, "per": "player"}
TOKEN_COLORS = ("#b5651d", "#c9a227", "#2e7d32", "#1d5c8c", "#8e3b46", "#5e4b8b")


def _with_defaults(extras: dict, colors: dict) -> dict:
    """Tokens with their size, start, owner and a colour each (the game's primary for the
    first, then a palette); dice with one each per player."""
    for i, token in enumerate((extras.get("tokens") or {}).values()):
        for key, value in TOKEN_DEFAULTS.items():
            token.setdefault(key, value)
        token.setdefault("color", colors.get("primary") if i == 0 and colors.get("primary")
                         else TOKEN_COLORS[i % len(TOKEN_COLORS)])
    return extras


def _pair(values: Any) -> tuple[float, float]:
    """A validated two-number list as a pair of floats."""
    first, second = values
    return float(first), float(second)


def _pos(pos: Pos) -> tuple[int, int]:
    return pos.line, pos.col

