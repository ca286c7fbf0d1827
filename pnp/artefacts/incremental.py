"""Incremental builds: skip an artefact whose inputs have not changed since it was built.

Each artefact's inputs are hashed (SHA-256 of a canonical JSON of its cards' data, the
deck and game settings its templates can see, the print options, and the bytes of the
template files of its game, the fonts, its images and the pipeline's own source). The
hashes, with what the build reported (pages, cards, warnings) and the size and mtime of
the file written, are kept in OUT/.pnp-manifest.json. An artefact is up to date when its
hash matches and its file is still the one written then.

A card's data only feeds the artefact of its deck, so changing one card rebuilds only
that deck; game-level settings (colours, tokens, dice, mats, reference) feed every
artefact of that game, because templates may read them.

A no-op build does not even load the database: each successful run also records the
digest of every file it read (cards.yaml, templates, fonts, images, the pipeline's
code) under its command-line options; when none of them changed and every artefact file
is still the one written, `unchanged_build` returns the recorded results straight away.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pnp.draw.layout_warning import LayoutWarning
from pnp.draw.template_folders import bundled_templates, template_files

MANIFEST = ".pnp-manifest.json"
VERSION = 2
MAX_RUNS = 8
_MAX_HASHED = 64 * 1024 * 1024      # carddb.limits.MAX_ASSET_BYTES
PACKAGE = Path(__file__).resolve().parents[1]
PROJECT = PACKAGE.parent
# The stages whose source decides what `pnp build` writes, relative to the package
# (exports, proofs and the other commands cannot change it).
BUILD_CODE = ("layout", "draw", "artefacts", "errors.py", "outpaths.py", "cli/build.py",
              "cli/building.py", "cli/build_options.py")
NOT_BUILD_CODE = frozenset({"artefacts/incremental.py", "artefacts/single.py"})


def _digest_files(paths: Iterable[Path], root: Path | None = None,
                  seen: dict[Path, str] | None = None) -> str:
    """One digest of the files' names and bytes; `seen` memoises each file's digest, so
    a run hashes every file once, before it is drawn from. In the order of their names
    as text (sorting Paths compares them part by part in Python: a build sorted some 600
    times for its code files alone)."""
    h = hashlib.sha256()
    for path in sorted(paths, key=os.fspath):
        name = path.relative_to(root).as_posix() if root else str(path)
        h.update(name.encode() + b"\0")
        digest = seen.get(path) if seen is not None else None
        if digest is None:
            digest = file_digest(path)
            if seen is not None:
                seen[path] = digest
        h.update(digest.encode() + b"\0")
    return h.hexdigest()


def font_paths(db: Any) -> list[Path]:
    """The card fonts of every role and their bundled fallbacks (pnp.draw.glyphs)."""
    from pnp.draw.fonts import fallback_files, font_files

    try:
        chosen = list(font_files(dict(db.print.fonts or {}), Path(db.root)).values())
    except Exception:  # an unusable font setting: the build itself reports it
        chosen = []
    return chosen + list(fallback_files().values())


def card_data(card: Any) -> dict[str, Any]:
    return {"name": card.name, "type": card.type, "text": card.text, "copies": card.copies,
            "image": card.image, "fields": card.fields}


def icon_paths(db: Any, gid: str) -> list[Path]:
    """The files of a game's own icons (cards.yaml `icons:`): inputs of all its artefacts."""
    icons = db.games[gid].extras.get("icons")
    if not isinstance(icons, dict):
        return []
    root = Path(db.root)
    return [root / (entry if isinstance(entry, str) else entry["file"])
            for entry in icons.values()]


def _image_paths(db: Any, deck: Any) -> list[Path]:
    root = Path(db.root).resolve()
    rels = [c.image for c in deck.cards if c.image]
    if (deck.back or {}).get("image"):
        rels.append(deck.back["image"])
    # Paths that escape the project are refused by the build; not read here.
    out = []
    for rel in rels:
        path = (root / rel).resolve()
        if path == root or root in path.parents:
            out.append(path)
    return out


# Options added after builds were recorded: left out of the hash at their default, so
# an upgrade alone redraws nothing.
_LATER = {"back_scale_pct": (100.0, 100.0), "back_rotate_deg": 0.0}


def _options(opts: Any) -> Any:
    if dataclasses.is_dataclass(opts) and not isinstance(opts, type):
        found = dataclasses.asdict(opts)
        for key, default in _LATER.items():
            if key in found and found[key] == default:
                del found[key]
        return found
    return repr(opts)


class Hasher:
    """Input hashes of artefacts; file digests shared by the artefacts of one run."""

    def __init__(self, db: Any, opts: Any):
        self.db = db
        self.opts = _options(opts)
        self._games: dict[str, str] = {}
        self._shared: str | None = None
        # Each game's template files as found once this run (its record lists the same).
        self.templates: dict[str, list[Path]] = {}
        # Each file's digest as first hashed in this run, before anything drew from it.
        self.seen: dict[Path, str] = {}

    def shared(self) -> str:
        """Fonts and the pipeline's source: inputs of every artefact."""
        if self._shared is None:      # each file's digest as kept by its stat (file_digest)
            self._shared = hashlib.sha256(
                (_digest_files(font_paths(self.db), seen=self.seen)
                 + _digest_files(_code_files(), seen=self.seen)).encode()
            ).hexdigest()
        return self._shared

    def game(self, gid: str) -> str:
        """The game's settings and template files."""
        if gid not in self._games:
            game = self.db.games[gid]
            settings = {"title": game.title, "colors": game.colors, "extras": game.extras,
                        "players": [game.min_players, game.max_players]}
            files = [*self.template_files(gid), *icon_paths(self.db, gid)]
            from pnp.draw.stamp import stamp, uses_stamp

            if uses_stamp(files):       # {{ version }} / {{ build_date }} are drawn
                settings["stamp"] = stamp(self.db)
            self._games[gid] = hashlib.sha256(
                (_canonical(settings) + _digest_files(files, seen=self.seen)).encode()).hexdigest()
        return self._games[gid]

    def template_files(self, gid: str) -> list[Path]:
        """The game's template files, found once a run (a folder scan per file)."""
        if gid not in self.templates:
            self.templates[gid] = template_files(self.db, gid)
        return self.templates[gid]

    def artefact(self, art: Any) -> str:
        inputs: dict[str, Any] = {
            "v": VERSION, "game": art.game, "name": art.name, "kind": art.kind,
            "title": art.title, "item": getattr(art, "item", None), "options": self.opts,
            "shared": self.shared(), "game_inputs": self.game(art.game),
        }
        if not getattr(art, "deck", None):
            return hashlib.sha256(_canonical(inputs).encode()).hexdigest()
        deck = self.db.games[art.game].decks[art.deck]
        inputs["images"] = _digest_files(_image_paths(self.db, deck), seen=self.seen)
        # _canonical(inputs) with inputs["deck"] (its keys sorted, and "deck" sorts before
        # every other key of inputs), its cards' JSON each kept in a resident process
        deck_text = (f'{{"back":{_canonical(deck.back)},"cards":{_cards_json(deck)},'
                     f'"id":{_canonical(deck.id)},"size":{_canonical(deck.size_mm)},'
                     f'"title":{_canonical(deck.title)}}}')
        text = f'{{"deck":{deck_text},{_canonical(inputs)[1:]}'
        return hashlib.sha256(text.encode()).hexdigest()


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr,
                      ensure_ascii=False)


# In a resident process (`pnp watch`: `hold()`), each card's JSON (`card_data`) by deck
# and card name, with the card it was made of and its shape (pnp.draw.card_shape): a
# watch hashes an 8,000-card deck's inputs after every edit, before drawing it, and
# encoding every card again was ~5 % of its way from save to PDF (issue 36 item 2).
_card_json: dict[tuple[str, str], dict[str, tuple]] | None = None


def hold() -> None:
    """Keep each card's JSON for this process's next builds (a resident `pnp watch`)."""
    global _card_json
    if _card_json is None:
        _card_json = {}


def _cards_json(deck: Any) -> str:
    """`_canonical` of the deck's cards' `card_data`, each card's JSON kept for a card
    of the same values when held."""
    if _card_json is None:
        return _canonical([card_data(c) for c in deck.cards])
    from pnp.draw import card_shape

    known = _card_json.get((deck.game, deck.id))
    if known is None or len(known) > 2 * len(deck.cards) + 64:    # renamed cards age out
        known = _card_json[(deck.game, deck.id)] = {}
    texts = []
    for card in deck.cards:
        found = known.get(card.name)
        if found is None or not card_shape.same(found, card):
            text = _canonical(card_data(card))
            shape = card_shape.shape(card)
            if shape is not None:
                known[card.name] = (card, shape, text)
        else:
            text = found[2]
        texts.append(text)
    return "[" + ",".join(texts) + "]"


@functools.cache
def _code_files() -> tuple[Path, ...]:
    """The source that decides what a build writes: carddb and the build's stages (found
    once a process: the code it runs is the code it imported; from the walk of each
    package the other code digests take theirs from, carddb.cache.package_sources)."""
    from carddb.cache import package_sources

    carddb = PROJECT / "carddb"
    return (*(PACKAGE / name for name in package_sources(PACKAGE, BUILD_CODE)
              if name not in NOT_BUILD_CODE),
            *(carddb / name for name in package_sources(carddb)))


# Each regular file's digest by path, with the stat it was read at: a resident process
# (`pnp watch`) hashes a font, a template or its own source again only once it changed.
# A file changed in the last second is not kept (as git's "racy" files: a second write
# within the clock's tick would leave the same stat). Kept between runs too, in the cache
# folder (`save_digests`): every build hashes its fonts (megabytes) and the pipeline's
# source, most of a no-op build and a few percent of a cold one, though they rarely change.
_digests: dict[str, tuple[tuple, str]] = {}
_SETTLED_NS = 1_000_000_000
_DIGESTS_FILE = "file-digests-1.marshal"
_MAX_KEPT = 8192            # a cache shared by many projects: the most recent kept
_kept = {"loaded": False, "new": False}


def file_digest(path: Path) -> str:
    """SHA-256 of a regular file's bytes; a FIFO or a device is not read (it would block
    or never end), nor a file over the asset limit."""
    import stat

    if not _kept["loaded"]:
        _load_digests()
    try:      # not carddb.read_limited: a no-op build does not import carddb
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_HASHED:
            return "<not a readable file>"
        key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        name = str(path)
        known = _digests.get(name)
        if known is not None and known[0] == key:
            return known[1]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except (OSError, ValueError):
        return "<missing>"
    if time.time_ns() - st.st_mtime_ns > _SETTLED_NS:
        _digests[name] = (key, digest)
        _kept["new"] = True
    return digest


def _digests_path() -> str | None:
    """The kept digests' file in the cache folder (as carddb.cache's, without importing
    carddb: a no-op build does not); None when the cache is off."""
    from pnp.dataclass_code import folder

    base = folder()
    return None if base is None else os.path.join(base, _DIGESTS_FILE)


def _load_digests() -> None:
    """The digests an earlier run kept; an unreadable or odd file is none."""
    import marshal

    _kept["loaded"] = True
    path = _digests_path()
    if path is None:
        return
    try:
        with open(path, "rb") as f:
            kept = marshal.loads(f.read())
    except (OSError, EOFError, ValueError, TypeError):
        return
    if type(kept) is not dict or len(kept) > _MAX_KEPT:
        return
    for name, entry in kept.items():
        if type(name) is str and type(entry) is tuple and len(entry) == 2 \
                and type(entry[0]) is tuple and type(entry[1]) is str:
            _digests.setdefault(name, entry)


def save_digests() -> None:
    """Keep the settled digests for the next run when one was new (atomically: runs may
    overlap); an unwritable cache folder just means hashing again."""
    import marshal

    path = _digests_path()
    if not _kept["new"] or path is None:
        return
    _kept["new"] = False
    partial = f"{path}.{os.getpid()}"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(partial, "wb") as f:
            marshal.dump(dict(list(_digests.items())[-_MAX_KEPT:]), f)
        os.replace(partial, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(partial)


def _listing(db_root: Path) -> list[str]:
    """Every file in the template folders (a new file may change which template wins)."""
    out = []
    for folder in (db_root / "templates", bundled_templates()):
        if folder.is_dir():
            out += [str(p) for p in folder.rglob("*") if p.is_file()]
    return sorted(set(out))


def layout_file(pdf: Path) -> Path:
    """The layout report written beside an artefact's PDF (pnp.artefacts.build)."""
    return pdf.with_name(pdf.stem + ".layout.json")


def run_key(args: Any) -> str:
    """The command-line options of a build, canonically."""
    return _canonical(args)


@dataclass
class Cached:
    """A recorded artefact result (same fields as pnp.artefacts.build.Written)."""

    path: Path
    pages: int
    cards: int
    warnings: list[Any]
    artefact: Any = None


def unchanged_build(out: Path, db_path: Path, args: Any) -> list[Cached] | None:
    """The results of the last build with these options, when nothing it read has
    changed and every file it wrote is untouched; None when anything must be checked
    properly (then load the database and use a Plan)."""
    manifest = Manifest(out)
    run = manifest.runs.get(run_key(args))
    if not run or run.get("db") != str(Path(db_path).resolve()):
        return None
    if run.get("listing") != _listing(Path(db_path).resolve().parent):
        return None
    for name, digest in run["files"].items():
        if file_digest(Path(name)) != digest:
            return None
    results = []
    for key in run["artefacts"]:
        entry = manifest.entries.get(key)
        if entry is None:
            return None
        path = out / entry["file"]  # relative to the output folder
        if not layout_file(path).is_file():
            return None
        try:
            st = path.stat()
        except OSError:
            return None
        if st.st_size != entry["size"] or st.st_mtime_ns != entry["mtime_ns"]:
            return None
        results.append(Cached(path, entry["pages"], entry["cards"],
                              [LayoutWarning(**w) for w in entry["warnings"]]))
    save_digests()
    return results


class Manifest:
    """OUT/.pnp-manifest.json: {artefact key: {hash, file (relative to OUT), size,
    mtime_ns, pages, cards, warnings}} and the recorded runs (see `unchanged_build`)."""

    def __init__(self, out: Path):
        self.out = Path(out)
        self.path = self.out / MANIFEST
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("version") != VERSION:
                raise ValueError("old manifest")
            self.entries: dict[str, dict] = dict(data["artefacts"])
            self.runs: dict[str, dict] = dict(data.get("runs") or {})
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self.entries, self.runs = {}, {}

    @staticmethod
    def key(art: Any) -> str:
        return f"{art.game}/{art.name}"

    def fresh(self, art: Any, digest: str, path: Path) -> dict | None:
        """The stored entry when `art` was built from these inputs and its file is still
        the one written then; None otherwise."""
        entry = self.entries.get(self.key(art))
        if not entry or entry.get("hash") != digest or not layout_file(path).is_file():
            return None
        try:
            st = path.stat()
        except OSError:
            return None
        if st.st_size != entry.get("size") or st.st_mtime_ns != entry.get("mtime_ns"):
            return None
        return entry

    def record(self, art: Any, digest: str, path: Path, pages: int, cards: int,
               warnings: list[Any]) -> None:
        st = path.stat()
        try:
            name = Path(path).relative_to(self.out).as_posix()
        except ValueError:
            name = str(Path(path).resolve())
        self.entries[self.key(art)] = {
            "hash": digest, "file": name, "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "pages": pages, "cards": cards,
            "warnings": [{k: str(getattr(w, k, "")) for k in
                          ("game", "deck", "card", "element", "message")} for w in warnings],
        }

    def forget(self, art: Any) -> None:
        self.entries.pop(self.key(art), None)

    def record_run(self, args: Any, db: Any, db_path: Path, todo: list,
                   seen: dict[Path, str] | None = None, listing: list[str] | None = None,
                   templates: dict[str, list[Path]] | None = None) -> None:
        """Remember what a successful build read and wrote, for `unchanged_build`: the
        digests of the bytes it read (`seen`, hashed before drawing; the database's
        from the bytes carddb parsed), not of the files as they are when it ends.
        `templates`: each game's template files as the build found them."""
        import carddb

        seen = dict(seen or {})
        db_file = Path(db_path).resolve()
        parsed = carddb.read_digest(db_file)
        if parsed is not None:
            seen[db_file] = parsed
        # The spreadsheets the decks were read from are inputs too (db.sources).
        files: set[Path] = {db_file, *getattr(db, "sources", ()), *font_paths(db),
                            *_code_files()}
        for gid in {a.game for a in todo}:
            found = (templates or {}).get(gid)
            files.update(found if found is not None else template_files(db, gid))
            files.update(icon_paths(db, gid))
            for deck in db.games[gid].decks.values():
                files.update(_image_paths(db, deck))
        key = run_key(args)
        self.runs.pop(key, None)
        self.runs[key] = {
            "db": str(db_file),
            "listing": listing if listing is not None else _listing(Path(db.root).resolve()),
            "files": {str(p): seen.get(p) or file_digest(p) for p in sorted(files)},
            "artefacts": [self.key(a) for a in todo],
        }
        while len(self.runs) > MAX_RUNS:  # keep the most recent option sets
            self.runs.pop(next(iter(self.runs)))

    def save(self) -> None:
        """Write the manifest; an output folder that cannot be written keeps none (the
        build itself has already reported that folder), so the next build redoes all."""
        from carddb.files import part_of

        part = part_of(self.path)
        data = {"version": VERSION, "artefacts": self.entries, "runs": self.runs}
        try:
            self.out.mkdir(parents=True, exist_ok=True)
            part.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
            os.replace(part, self.path)
        except OSError:
            with contextlib.suppress(OSError):
                part.unlink(missing_ok=True)


class Plan:
    """What a build must redo. Usage in the build loop:

        plan = Plan(db, opts, out, force)
        for art in todo:
            done = plan.up_to_date(art)          # a Written rebuilt from the manifest
            if done is None:
                done = build_artefact(...)
                plan.built(art, done)
        plan.save()
    """

    def __init__(self, db: Any, opts: Any, out: Path, force: bool = False):
        self.hasher = Hasher(db, opts)
        self.manifest = Manifest(out)
        self.out = Path(out)
        self.force = force
        self._digests: dict[str, str] = {}
        self.listing = _listing(Path(db.root).resolve())    # as the build starts

    def digest(self, art: Any) -> str:
        key = Manifest.key(art)
        if key not in self._digests:
            self._digests[key] = self.hasher.artefact(art)
        return self._digests[key]

    def up_to_date(self, art: Any) -> Any | None:
        """A `pnp.artefacts.build.Written` for an artefact that needs no rebuilding, else None."""
        digest = self.digest(art)          # hashed before the artefact is drawn, even with force
        if self.force:
            return None
        path = art.path(self.out)
        entry = self.manifest.fresh(art, digest, path)
        if entry is None:
            return None
        from pnp.artefacts.build import Written

        return Written(art, path, pages=entry["pages"], cards=entry["cards"],
                       warnings=[LayoutWarning(**w) for w in entry["warnings"]])

    def stale(self, todo: list) -> list:
        return [a for a in todo if self.up_to_date(a) is None]

    def built(self, art: Any, written: Any) -> None:
        self.manifest.record(art, self.digest(art), written.path, written.pages,
                             written.cards, written.warnings)

    def failed(self, art: Any) -> None:
        self.manifest.forget(art)

    def finished(self, args: Any, db: Any, db_path: Path, todo: list) -> None:
        """Every artefact of `todo` is built or up to date: remember the run."""
        self.manifest.record_run(args, db, db_path, todo, self.hasher.seen, self.listing,
                                 self.hasher.templates)

    def save(self) -> None:
        self.manifest.save()
        save_digests()
