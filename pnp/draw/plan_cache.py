"""Card plans kept across builds: a card front planned once is not planned again until
something it depends on changes (issue 24 item 5).

A front's plan (its operations, warnings and edge paint, pnp.draw.render) is stored under
a key made of everything planning reads:
- the code: a hash of pnp's drawing sources (pnp/draw/**.py) and pnp's version;
- the template: the sources of the card type's template and of every template it
  imports or includes, transitively (one that names a template at run time: every
  template of the folders);
- the card's context (its fields, name, text, copies...), its deck's and game's contexts;
- the trim size, bleed and safe zone, min_text_pt, INK_SAVER, the version stamp, the
  font roles, the project's folder (a plan holds absolute paths), and what the caller adds (`PlanStore(context=...)`: the fonts' bytes,
  whether the plan checks are installed).
Each plan is stored packed (a compressed pickle: unpacked only when its card is looked
up; a build holds the plans it is not using packed, `HOT`); its operations are pickled
apart from the rest of its entry (`StoredOps`: unpickled only when one must be drawn),
and its memo keeps the PDF code of its text once drawn
(pnp.draw.textcode), reused while the fonts stand as they stood.
Two things are checked when a stored plan is found: each other card the template looked
up (`card_named`) still has the context it had, and each file the plan draws (images)
still has its size and modification time (an own icon's file is read when drawn). Anything else: planned afresh.

The plans of one deck's fronts are 16 files (by the key's first hex digit: an edit
rewrites one sixteenth of a big deck's plans), FOLDER/<digest of project/game/deck/digit>.pickle
(the project's folder too: two copies of one project, with the same game and deck ids,
sharing the user's cache would otherwise overwrite each other's plans at every build),
each written atomically when a build planned anything new in it; it keeps the plans
used by that build and, up to as many again, older ones (an edit undone is a hit). A file that
cannot be read is a miss, never an error; an unwritable folder means no cache.
Folder: `folder()` (the carddb cache's folder, `plans/`; PNP_CACHE_DIR=off: none).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# 2: a plan's operations pickled apart (StoredOps); 3: each plan packed apart (`_pack`);
# 4: a packed plan's check apart from the rest (`_pack`, `PlanStore.held_check`)
FORMAT = "pnp-plans-4"
_code: str | None = None


def folder() -> Path | None:
    """Where plans are kept: beside the carddb cache (None: caching is off)."""
    from carddb.cache import folder as cache_folder

    base = cache_folder()
    return None if base is None else base / "plans"


def code_version() -> str:
    """A hash of the drawing code (a change to an element's compile step changes plans),
    the elements from outside pnp included (a plug-in installed, removed or changed: its
    plans, pickled with its classes, are not those of the build without it)."""
    return digest([_own_code(), _outside_elements()])


def _outside_elements() -> list:
    """(name, a hash of its module's source) of each element from outside pnp."""
    import sys

    from pnp.draw.elements import registered, registry

    found = []
    for name in registered():
        module = sys.modules.get(getattr(registry()[name].compile, "__module__", ""))
        try:
            source = hashlib.sha256(Path(module.__file__).read_bytes()).hexdigest()  # type: ignore[union-attr, arg-type]
        except (AttributeError, TypeError, OSError):
            source = None
        found.append((name, source))
    return found


def _own_code() -> str:
    global _code
    if _code is None:
        import pnp
        from carddb.cache import package_sources, sources_digest

        package = Path(__file__).resolve().parents[1]       # pnp.draw's files, one walk
        here = [name[len("draw/"):] for name in package_sources(package, ("draw",))]
        _code = sources_digest(f"{FORMAT}\0{getattr(pnp, '__version__', '')}".encode(),
                               package / "draw", here)
    return _code


def digest(value: Any) -> str:
    """A stable hash of plain data (what a template context holds)."""
    text = json.dumps(value, sort_keys=True, default=repr, ensure_ascii=False,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def quick_digest(value: Any) -> str:
    """A hash of plain data by its repr (a card's context, per card: json.dumps would be
    most of a cached card's cost). The same data built the same way has the same repr;
    an object whose repr shows its address only ever misses."""
    return hashlib.sha256(repr(value).encode()).hexdigest()


# The tags that reach another template, and their first argument (Jinja comments and
# raw blocks aside, which at worst make a key change more often than it must).
_REACHES = re.compile(r"\{%-?\s*(?:import|include|extends|from)\s+(.+?)(?:\s+(?:as|import|"
                      r"with|without|ignore)\b|\s*-?%\})", re.S)
_LITERAL = re.compile(r"""^(?:"([^"\\]*)"|'([^'\\]*)')$""")


def template_digest(templates: Any, name: str) -> str:
    """The sources of template `name` and of every template it reaches (import, include,
    extends, from), read without parsing them; a template named by an expression (not a
    quoted name) may be any: then every template of the folders."""
    env = templates.env
    h = hashlib.sha256()
    todo, seen = [name], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            source = env.loader.get_source(env, current)[0]
        except Exception:  # missing or unreadable: planning reports it; key on all files
            return _all_templates(templates)
        for argument in _REACHES.findall(source):
            literal = _LITERAL.match(argument.strip())
            if literal is None:
                return _all_templates(templates)
            todo.append(literal.group(1) if literal.group(1) is not None else literal.group(2))
        h.update(current.encode() + b"\0" + source.encode() + b"\0")
    return h.hexdigest()


def _all_templates(templates: Any) -> str:
    """Every template file's bytes; one that is not a regular file (a FIFO would block
    the read) or is too large to be a template, by its name and stat alone (planning
    refuses it)."""
    import stat

    from carddb.limits import MAX_TEMPLATE_BYTES

    h = hashlib.sha256(b"all")
    for folder_ in templates.folders:
        for path in sorted(Path(folder_).rglob("*.j2")):
            try:
                st = path.stat()
                readable = stat.S_ISREG(st.st_mode) and st.st_size <= MAX_TEMPLATE_BYTES
                data = path.read_bytes() if readable else (      # refused when planned
                    f"not read {st.st_mode} {st.st_size} {st.st_mtime_ns}".encode())
            except OSError as exc:
                data = f"unreadable {exc.errno}".encode()
            h.update(str(path).encode() + b"\0" + data + b"\0")
    return h.hexdigest()


def file_stamp(path: str) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)


def pack_ops(ops: list) -> bytes:
    """A plan's operations as stored: pickled apart from the rest of its entry, so that
    loading a deck's plans costs little and a card's operations are unpickled only when
    one is drawn (`StoredOps`)."""
    return pickle.dumps(ops, protocol=pickle.HIGHEST_PROTOCOL)


class StoredOps(Sequence):
    """A stored plan's (replay key, operation) pairs: the keys at once, the operations
    unpickled when one is first needed. Most cards of a rebuild need none: their code
    is kept in the document or with the plan (pnp.draw.render._replay)."""

    __slots__ = ("keys", "_packed", "_ops")

    def __init__(self, keys: list, packed: bytes):
        self.keys = keys
        self._packed = packed
        self._ops: list | None = None

    def ops(self) -> list:
        if self._ops is None:
            self._ops = pickle.loads(self._packed)
        return self._ops

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return list(zip(self.keys[index], self.ops()[index], strict=True))
        return (self.keys[index], self.ops()[index])

    def __iter__(self):
        return zip(self.keys, self.ops(), strict=True)


# Plans kept as objects, the most recently stored or used; the others are held packed
# (`_pack`: a compressed pickle, a third of the memory). More than a CardRenderer keeps
# plans (its cache_size, 512): a plan the renderer may still draw, and so add to its
# memo (`changed`), is always one of these.
HOT = 1024


# Where a front's or back's entry (pnp.draw.render: design, keys, ops, warnings, edge
# paint, look-ups, drawn files, memo, fonts) keeps what checks it: its look-ups, drawn
# files and memo.
_CHECK = slice(5, 8)


def _pack(entry: Any) -> bytes:
    """An entry as held packed: its check (`_CHECK`) pickled apart from the rest, which is
    compressed. A forced build asks whether a plan it holds is still true (`held_check`)
    of every card: it then reads the check alone, not the whole plan (a tenth of it)."""
    rest, check = entry, None
    if type(entry) is tuple and len(entry) == 9:
        check, rest = entry[_CHECK], (*entry[:5], None, None, None, *entry[8:])
    return pickle.dumps((check, zlib.compress(pickle.dumps(rest, protocol=pickle.HIGHEST_PROTOCOL),
                                              1)), protocol=pickle.HIGHEST_PROTOCOL)


def _unpack(packed: bytes) -> Any:
    check, rest = pickle.loads(packed)
    entry = pickle.loads(zlib.decompress(rest))
    return entry if check is None else (*entry[:5], *check, *entry[8:])


def _unpack_check(packed: bytes) -> tuple | None:
    check = pickle.loads(packed)[0]
    return None if check is None else tuple(check)


class _Spill:
    """Where a store with a folder puts the plans it packs until `save` writes them: an
    unnamed temporary file in that folder (gone when closed or the process ends), each
    plan a (offset, length) in it. Held in memory, the packed plans of a forced build of
    20,000 cards were some 45 MiB, a fifth of its peak (issue 36 item 4)."""

    def __init__(self, where: Path) -> None:
        import tempfile

        where.mkdir(parents=True, exist_ok=True)
        self.file = tempfile.TemporaryFile(dir=where, prefix="spill-")
        self.end = 0

    def put(self, packed: bytes) -> tuple[int, int]:
        self.file.seek(self.end)
        self.file.write(packed)
        at, self.end = self.end, self.end + len(packed)
        return at, len(packed)

    def get(self, place: tuple[int, int]) -> bytes:
        self.file.seek(place[0])
        return self.file.read(place[1])


class PlanStore:
    """The plans of card fronts, by key (`get`, `put`), one file per deck (`save`).
    `read=False` (pnp build --force): nothing stored is used, every front is planned
    afresh; a plan already stored under its key (`held`) is kept as it is rather than
    pickled and written again (the key is everything planning reads), the others are
    stored anew. In memory a plan is an object while it is among the HOT most recent, else
    packed: a deck of 20,000 cards no longer holds 20,000 plans' objects until `save`;
    with a folder, a plan packed here waits in the spill file (`_Spill`), not in memory.
    `project` (the project's folder) names its files apart from another project's."""

    def __init__(self, where: Path | None, context: str = "", read: bool = True,
                 project: str = ""):
        self.where = None if where is None else Path(where)
        self.context = context
        self.read = read
        self.project = project
        # shard -> key -> packed plan: bytes, its (offset, length) in the spill, None: hot
        self._buckets: dict[str, dict] = {}
        self._spill: _Spill | None = None
        self._spill_failed = False
        self._hot: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._changed: set[tuple[str, str]] = set()  # hot plans to pack when they leave
        self._used: dict[str, set] = {}
        self._dirty: set[str] = set()
        self._touched: dict[str, set] = {}     # shard -> keys used without being read
        self.hits = self.misses = 0

    def _bucket(self, bucket: str) -> dict:
        found = self._buckets.get(bucket)
        if found is None:
            found = {}
            if self.where is not None:
                try:
                    with open(self._path(bucket), "rb") as f:
                        data = pickle.load(f)
                    if isinstance(data, dict) and data.get("format") == FORMAT:
                        found = data["plans"]
                except Exception:  # missing, unreadable, from another version: none
                    found = {}
            self._buckets[bucket] = found
            self._used[bucket] = set()
        return found

    def _path(self, bucket: str) -> Path:
        assert self.where is not None
        name = hashlib.sha256(f"{self.project}\0{bucket}".encode()).hexdigest()[:32]
        return self.where / f"{name}.pickle"

    def get(self, bucket: str, key: str) -> Any | None:
        """The plan stored under `key` to draw from (None with `read=False`)."""
        return self.held(bucket, key) if self.read else None

    def held(self, bucket: str, key: str) -> Any | None:
        """The entry stored under `key`, kept by `save` (whether or not it is read)."""
        shard = f"{bucket}\0{key[:1]}"
        plans = self._bucket(shard)
        entry = self._hot.get((shard, key))
        if entry is not None:
            self._hot.move_to_end((shard, key))
        else:
            packed = plans.get(key)
            if packed is None:
                return None
            try:
                entry = _unpack(self._packed(packed))
            except Exception:  # a damaged plan: a miss, never an error
                return None
            self._keep(shard, key, entry)
        self._used[shard].add(key)
        return entry

    def held_check(self, bucket: str, key: str) -> tuple | None:
        """(look-ups, drawn files, memo) of the entry `held` would return, unpacking only
        them; None for none (or an entry of another shape). Kept by `save` as `held`
        keeps it."""
        shard = f"{bucket}\0{key[:1]}"
        plans = self._bucket(shard)
        entry = self._hot.get((shard, key))
        if entry is not None:
            self._hot.move_to_end((shard, key))
            check = tuple(entry[_CHECK]) if type(entry) is tuple and len(entry) == 9 else None
        else:
            packed = plans.get(key)
            if packed is None:
                return None
            try:
                check = _unpack_check(self._packed(packed))
            except Exception:  # a damaged plan: a miss, never an error
                return None
        self._used[shard].add(key)
        return check

    def put(self, bucket: str, key: str, entry: Any) -> None:
        shard = f"{bucket}\0{key[:1]}"
        self._bucket(shard)[key] = None
        self._used[shard].add(key)
        self._dirty.add(shard)
        self._changed.add((shard, key))
        self._keep(shard, key, entry)

    def _keep(self, shard: str, key: str, entry: Any) -> None:
        """Hold `entry` as an object; pack the least recent beyond HOT (when changed)."""
        hot = self._hot
        hot[(shard, key)] = entry
        hot.move_to_end((shard, key))
        while len(hot) > HOT:
            (old_shard, old_key), old = hot.popitem(last=False)
            self._settle(old_shard, old_key, old)

    def _settle(self, shard: str, key: str, entry: Any, spill: bool = True) -> None:
        """A changed plan packed: into the spill while the build goes on, as bytes when
        `save` is about to write it (`spill=False`)."""
        if (shard, key) in self._changed:
            self._changed.discard((shard, key))
            packed = _pack(entry)
            self._buckets[shard][key] = self._spilled(packed) if spill else packed

    def _spilled(self, packed: bytes) -> bytes | tuple[int, int]:
        """`packed` put in the spill, its place returned; the bytes themselves when the
        store has no folder or the spill cannot be written."""
        if self.where is None or self._spill_failed:
            return packed
        try:
            if self._spill is None:
                self._spill = _Spill(self.where)
            return self._spill.put(packed)
        except OSError:
            self._spill_failed = True
            return packed

    def _packed(self, held: bytes | tuple[int, int]) -> bytes:
        if isinstance(held, tuple):
            assert self._spill is not None
            return self._spill.get(held)
        return held

    def touch(self, bucket: str, key: str) -> None:
        """The plan under `key` was used without being read (a kept sheet drew its card,
        pnp.artefacts.kept_sheets): `save` keeps it as it keeps the plans read."""
        self._touched.setdefault(f"{bucket}\0{key[:1]}", set()).add(key)

    def stored(self, bucket: str) -> bool:
        """Whether an earlier build stored plans of the deck `bucket` ("game/deck") that
        this store would read (a file of its plans exists)."""
        if self.where is None or not self.read:
            return False
        return any(self._path(f"{bucket}\0{digit}").is_file() for digit in "0123456789abcdef")

    def changed(self, bucket: str, key: str) -> None:
        """The entry under `key` was changed in place (what its memo keeps grew): write
        its file on `save`."""
        shard = f"{bucket}\0{key[:1]}"
        self._dirty.add(shard)
        if (shard, key) in self._hot:
            self._changed.add((shard, key))

    def save(self) -> None:
        """Write each deck's file that gained a plan (atomically; errors ignored). The
        plans still held as objects are packed straight into what is written, not through
        the spill, which they would only be read back from: a build that changed no more
        than HOT plans (an edit, a small deck) makes no spill file, so it never loads
        `tempfile` (kept lazy by the `pnp` command, pnp.lazy_modules; issue 36)."""
        from carddb.files import part_of

        if self.where is None:
            return
        for (shard, key), entry in self._hot.items():
            self._settle(shard, key, entry, spill=False)
        for bucket in sorted(self._dirty):
            plans = self._buckets[bucket]
            used = self._used[bucket] | self._touched.get(bucket, set())
            kept = {k: plans[k] for k in plans if k in used and plans[k] is not None}
            for k in plans:                 # older plans, up to as many as are used
                if len(kept) >= 2 * len(used):
                    break
                if plans[k] is not None:
                    kept.setdefault(k, plans[k])
            try:
                kept = {k: self._packed(v) for k, v in kept.items()}
            except OSError:
                continue
            path = self._path(bucket)
            part = part_of(path)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                with open(part, "wb") as f:
                    pickle.dump({"format": FORMAT, "plans": kept}, f,
                                protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(part, path)
            except (OSError, pickle.PicklingError, TypeError, AttributeError):
                try:
                    part.unlink()
                except OSError:
                    pass
        self._dirty.clear()
