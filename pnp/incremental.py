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
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MANIFEST = ".pnp-manifest.json"
VERSION = 1
PACKAGE = Path(__file__).resolve().parent
PROJECT = PACKAGE.parent
# Modules of the package that cannot change what `pnp build` writes.
NOT_BUILD_CODE = frozenset({"__main__.py", "cli.py", "cli_support.py", "listing.py",
                            "proof.py", "export.py", "tts.py", "watch.py", "single.py",
                            "incremental.py"})


@dataclass(frozen=True)
class StoredWarning:
    """A layout warning replayed from the manifest (same fields as pnp.render's)."""

    game: str
    deck: str
    card: str
    element: str
    message: str

    def __str__(self) -> str:
        return f"{self.game}/{self.deck}: {self.card}: {self.element}: {self.message}"


def _digest_files(paths: list[Path], root: Path | None = None) -> str:
    h = hashlib.sha256()
    for path in sorted(paths):
        name = path.relative_to(root).as_posix() if root else str(path)
        h.update(name.encode() + b"\0")
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"<missing>")
        h.update(b"\0")
    return h.hexdigest()


def template_folders(db: Any) -> list[Path]:
    """Where CardRenderer looks for templates: the project's, then the package's."""
    folders = []
    for folder in (Path(db.root) / "templates", PROJECT / "templates"):
        folder = folder.resolve()
        if folder not in folders:
            folders.append(folder)
    return folders


def template_files(db: Any, game: str) -> list[Path]:
    """The template files one game's artefacts can use: its own folder and every shared
    file or folder (anything not named after a game)."""
    games = set(db.games)
    files: list[Path] = []
    for folder in template_folders(db):
        if not folder.is_dir():
            continue
        for path in folder.rglob("*"):
            if not path.is_file():
                continue
            top = path.relative_to(folder).parts[0]
            if top == game or top not in games:
                files.append(path)
    return files


def font_paths(db: Any) -> list[Path]:
    from pnp.fonts import font_files

    try:
        return list(font_files(dict(db.print.fonts or {}), Path(db.root)).values())
    except Exception:  # an unusable font setting: the build itself reports it
        return []


def card_data(card: Any) -> dict[str, Any]:
    return {"name": card.name, "type": card.type, "text": card.text, "copies": card.copies,
            "image": card.image, "fields": card.fields}


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


def _options(opts: Any) -> Any:
    if dataclasses.is_dataclass(opts):
        return dataclasses.asdict(opts)
    return repr(opts)


class Hasher:
    """Input hashes of artefacts; file digests shared by the artefacts of one run."""

    def __init__(self, db: Any, opts: Any):
        self.db = db
        self.opts = _options(opts)
        self._games: dict[str, str] = {}
        self._shared: str | None = None

    def shared(self) -> str:
        """Fonts and the pipeline's source: inputs of every artefact."""
        if self._shared is None:
            code = [p for p in PACKAGE.rglob("*.py") if p.name not in NOT_BUILD_CODE]
            self._shared = hashlib.sha256(
                (_digest_files(font_paths(self.db)) + _digest_files(code, PACKAGE)).encode()
            ).hexdigest()
        return self._shared

    def game(self, gid: str) -> str:
        """The game's settings and template files."""
        if gid not in self._games:
            game = self.db.games[gid]
            settings = {"title": game.title, "colors": game.colors, "extras": game.extras,
                        "players": [game.min_players, game.max_players]}
            files = template_files(self.db, gid)
            self._games[gid] = hashlib.sha256(
                (_canonical(settings) + _digest_files(files)).encode()).hexdigest()
        return self._games[gid]

    def artefact(self, art: Any) -> str:
        inputs: dict[str, Any] = {
            "v": VERSION, "game": art.game, "name": art.name, "kind": art.kind,
            "title": art.title, "item": getattr(art, "item", None), "options": self.opts,
            "shared": self.shared(), "game_inputs": self.game(art.game),
        }
        if getattr(art, "deck", None):
            deck = self.db.games[art.game].decks[art.deck]
            inputs["deck"] = {"id": deck.id, "title": deck.title, "size": deck.size_mm,
                              "back": deck.back, "cards": [card_data(c) for c in deck.cards]}
            inputs["images"] = _digest_files(_image_paths(self.db, deck))
        return hashlib.sha256(_canonical(inputs).encode()).hexdigest()


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr,
                      ensure_ascii=False)


class Manifest:
    """OUT/.pnp-manifest.json: {artefact key: {hash, file, size, mtime_ns, pages, cards,
    warnings}}."""

    def __init__(self, out: Path):
        self.out = Path(out)
        self.path = self.out / MANIFEST
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.entries: dict[str, dict] = dict(data["artefacts"]) \
                if data.get("version") == VERSION else {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self.entries = {}

    @staticmethod
    def key(art: Any) -> str:
        return f"{art.game}/{art.name}"

    def fresh(self, art: Any, digest: str, path: Path) -> dict | None:
        """The stored entry when `art` was built from these inputs and its file is still
        the one written then; None otherwise."""
        entry = self.entries.get(self.key(art))
        if not entry or entry.get("hash") != digest:
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
        self.entries[self.key(art)] = {
            "hash": digest, "file": str(path), "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "pages": pages, "cards": cards,
            "warnings": [{k: str(getattr(w, k, "")) for k in
                          ("game", "deck", "card", "element", "message")} for w in warnings],
        }

    def forget(self, art: Any) -> None:
        self.entries.pop(self.key(art), None)

    def save(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        part = self.path.with_name(self.path.name + f".{os.getpid()}.part")
        part.write_text(json.dumps({"version": VERSION, "artefacts": self.entries}, indent=1,
                                   sort_keys=True), encoding="utf-8")
        os.replace(part, self.path)


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

    def digest(self, art: Any) -> str:
        key = Manifest.key(art)
        if key not in self._digests:
            self._digests[key] = self.hasher.artefact(art)
        return self._digests[key]

    def up_to_date(self, art: Any) -> Any | None:
        """A `pnp.build.Written` for an artefact that needs no rebuilding, else None."""
        if self.force:
            return None
        path = art.path(self.out)
        entry = self.manifest.fresh(art, self.digest(art), path)
        if entry is None:
            return None
        from pnp.build import Written

        return Written(art, path, pages=entry["pages"], cards=entry["cards"],
                       warnings=[StoredWarning(**w) for w in entry["warnings"]])

    def stale(self, todo: list) -> list:
        return [a for a in todo if self.up_to_date(a) is None]

    def built(self, art: Any, written: Any) -> None:
        self.manifest.record(art, self.digest(art), written.path, written.pages,
                             written.cards, written.warnings)

    def failed(self, art: Any) -> None:
        self.manifest.forget(art)

    def save(self) -> None:
        self.manifest.save()
