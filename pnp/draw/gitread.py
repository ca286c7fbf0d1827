"""The version stamp's facts read from a git repository in pure Python: what
`git describe --tags --always` and `git log -1 --format=%cs` print, without starting git.

Building a stranger's project starts no program (docs/ARCHITECTURE.md, "Trust model"),
and a repository's own config can make git run programs or read other files; so the
stamp reads `.git` itself: HEAD, loose and packed refs, loose objects and packs (with
their deltas). Every read is bounded; anything unreadable gives "" (no stamp), never an
error: the stamp is a courtesy, not a reason to refuse a build."""

from __future__ import annotations

import datetime as _dt
import zlib
from pathlib import Path

MAX_OBJECT = 1 << 20        # a commit or tag object larger than this is not read
MAX_WALK = 10_000           # commits looked at for the nearest tag
MAX_DEPTH = 64              # delta chains and symbolic refs followed at most
_TYPES = {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}


class _Unreadable(Exception):
    pass


def find_git_dir(start: Path) -> tuple[Path, Path] | None:
    """(git dir, common dir) of the repository holding `start`, or None."""
    here = Path(start).resolve()
    for folder in (here, *here.parents):
        dot = folder / ".git"
        try:
            if dot.is_dir():
                git_dir = dot
            elif dot.is_file():         # a worktree or submodule: "gitdir: PATH"
                text = _read(dot, 4096).decode("utf-8", "replace").strip()
                if not text.startswith("gitdir:"):
                    return None
                git_dir = (folder / text[len("gitdir:"):].strip()).resolve()
            else:
                continue
            common = git_dir
            if (git_dir / "commondir").is_file():
                common = (git_dir / _read(git_dir / "commondir", 4096).decode().strip()).resolve()
            return git_dir, common
        except (OSError, UnicodeDecodeError, ValueError):
            return None
    return None


def _read(path: Path, limit: int) -> bytes:
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise _Unreadable(f"{path}: too large")
    return data


class Repository:
    def __init__(self, git_dir: Path, common: Path):
        self.git_dir, self.common = git_dir, common
        self._packed: dict[str, str] | None = None
        self._peeled: dict[str, str] = {}
        self._packs: list[tuple[Path, bytes]] | None = None

    # ── refs ──────────────────────────────────────────────────────────────────────
    def packed_refs(self) -> dict[str, str]:
        if self._packed is None:
            self._packed = {}
            try:
                text = _read(self.common / "packed-refs", 64 << 20).decode("utf-8", "replace")
            except (OSError, _Unreadable):
                text = ""
            last = None
            for line in text.splitlines():
                if line.startswith("^") and last:       # the peeled commit of a tag
                    self._peeled[last] = line[1:].strip()
                elif line and not line.startswith("#") and " " in line:
                    sha, name = line.split(" ", 1)
                    self._packed[name.strip()] = sha.strip()
                    last = name.strip()
        return self._packed

    def ref(self, name: str) -> str | None:
        for _ in range(MAX_DEPTH):
            for base in (self.git_dir, self.common):
                path = base / name
                if path.is_file():
                    text = _read(path, 4096).decode("utf-8", "replace").strip()
                    break
            else:
                return self.packed_refs().get(name)
            if not text.startswith("ref:"):
                return text
            name = text[4:].strip()
        return None

    def tag_refs(self) -> dict[str, str]:
        """{"refs/tags/NAME": sha as the ref holds it} (packed ones peeled where known)."""
        names: dict[str, str] = {}
        for name, sha in self.packed_refs().items():
            if name.startswith("refs/tags/"):
                names[name] = self._peeled.get(name, sha)
        folder = self.common / "refs" / "tags"
        if folder.is_dir():
            for path in sorted(folder.rglob("*"))[:10_000]:
                if path.is_file():
                    names[path.relative_to(self.common).as_posix()] = (
                        _read(path, 4096).decode("utf-8", "replace").strip())
        return names

    def tags(self) -> dict[str, str]:
        """{commit sha: tag name} (annotated tags peeled to their commit)."""
        by_commit: dict[str, str] = {}
        for name, sha in sorted(self.tag_refs().items()):
            commit = self._peel(sha)
            if commit:
                by_commit.setdefault(commit, name[len("refs/tags/"):])
        return by_commit

    def _peel(self, sha: str) -> str | None:
        for _ in range(MAX_DEPTH):
            try:
                kind, body = self.object(sha)
            except (_Unreadable, OSError, zlib.error, ValueError):
                return None
            if kind == b"commit":
                return sha
            if kind != b"tag":
                return None
            sha = body.split(b"\n", 1)[0].split(b" ", 1)[1].decode()
        return None

    # ── objects ───────────────────────────────────────────────────────────────────
    def object(self, sha: str) -> tuple[bytes, bytes]:
        loose = self.common / "objects" / sha[:2] / sha[2:]
        if loose.is_file():
            raw = zlib.decompressobj().decompress(_read(loose, MAX_OBJECT * 4), MAX_OBJECT + 64)
            header, _, body = raw.partition(b"\0")
            return header.split(b" ")[0], body
        for pack, index in self.packs():
            offset = _find(index, bytes.fromhex(sha))
            if offset is not None:
                return self._unpack(pack, offset, 0)
        raise _Unreadable(f"object {sha} not found")

    def packs(self) -> list[tuple[Path, bytes]]:
        if self._packs is None:
            self._packs = []
            folder = self.common / "objects" / "pack"
            if folder.is_dir():
                for idx in sorted(folder.glob("*.idx"))[:64]:
                    try:
                        self._packs.append((idx.with_suffix(".pack"), _read(idx, 256 << 20)))
                    except (OSError, _Unreadable):
                        continue
        return self._packs

    def _unpack(self, pack: Path, offset: int, depth: int) -> tuple[bytes, bytes]:
        if depth > MAX_DEPTH:
            raise _Unreadable("delta chain too long")
        with open(pack, "rb") as handle:
            handle.seek(offset)
            head = handle.read(64)
            byte = head[0]
            kind, size, shift, i = (byte >> 4) & 7, byte & 15, 4, 1
            while byte & 0x80:
                byte = head[i]
                size |= (byte & 0x7F) << shift
                shift, i = shift + 7, i + 1
            if size > MAX_OBJECT * 4:
                raise _Unreadable("object too large")
            base_offset = base_sha = None
            if kind == 6:                               # OFS_DELTA
                byte = head[i]
                i += 1
                back = byte & 0x7F
                while byte & 0x80:
                    byte = head[i]
                    i += 1
                    back = ((back + 1) << 7) | (byte & 0x7F)
                base_offset = offset - back
            elif kind == 7:                             # REF_DELTA
                base_sha, i = head[i:i + 20].hex(), i + 20
            handle.seek(offset + i)
            inflate = zlib.decompressobj()
            data = b""
            while len(data) < size and not inflate.eof:
                chunk = handle.read(1 << 16)
                if not chunk:
                    break
                data += inflate.decompress(chunk, size - len(data) + 1)
        if kind in _TYPES:
            return _TYPES[kind], data
        if base_offset is not None:
            base_kind, base = self._unpack(pack, base_offset, depth + 1)
        elif base_sha is not None:
            base_kind, base = self.object(base_sha)
        else:
            raise _Unreadable("unknown object type")
        return base_kind, _apply_delta(base, data)


def _find(index: bytes, sha: bytes) -> int | None:
    """The pack offset of `sha` in a version-2 .idx, or None."""
    if index[:4] != b"\xfftOc" or int.from_bytes(index[4:8], "big") != 2:
        return None
    fan = 8
    first = sha[0]
    lo = int.from_bytes(index[fan + 4 * (first - 1):fan + 4 * first], "big") if first else 0
    hi = int.from_bytes(index[fan + 4 * first:fan + 4 * first + 4], "big")
    total = int.from_bytes(index[fan + 1020:fan + 1024], "big")
    names = fan + 1024
    while lo < hi:
        mid = (lo + hi) // 2
        here = index[names + 20 * mid:names + 20 * mid + 20]
        if here == sha:
            offsets = names + 20 * total + 4 * total
            value = int.from_bytes(index[offsets + 4 * mid:offsets + 4 * mid + 4], "big")
            if value & 0x80000000:                      # a large offset
                large = offsets + 4 * total + 8 * (value & 0x7FFFFFFF)
                value = int.from_bytes(index[large:large + 8], "big")
            return value
        if here < sha:
            lo = mid + 1
        else:
            hi = mid
    return None


def _apply_delta(base: bytes, delta: bytes) -> bytes:
    def varint(pos: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            byte = delta[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value, pos

    _, pos = varint(0)
    size, pos = varint(pos)
    if size > MAX_OBJECT * 4:
        raise _Unreadable("object too large")
    out = bytearray()
    while pos < len(delta):
        op = delta[pos]
        pos += 1
        if op & 0x80:                                   # copy from the base
            start = length = 0
            for bit in range(4):
                if op & (1 << bit):
                    start |= delta[pos] << (8 * bit)
                    pos += 1
            for bit in range(3):
                if op & (1 << (4 + bit)):
                    length |= delta[pos] << (8 * bit)
                    pos += 1
            out += base[start:start + (length or 0x10000)]
        elif op:                                        # insert new bytes
            out += delta[pos:pos + op]
            pos += op
        else:
            raise _Unreadable("bad delta")
    return bytes(out)


def _commit(repo: Repository, sha: str) -> tuple[list[str], str]:
    """(parents, committer line) of a commit."""
    kind, body = repo.object(sha)
    if kind != b"commit":
        raise _Unreadable("not a commit")
    parents, committer = [], ""
    for line in body.split(b"\n\n", 1)[0].split(b"\n"):
        if line.startswith(b"parent "):
            parents.append(line[7:].decode())
        elif line.startswith(b"committer "):
            committer = line.decode("utf-8", "replace")
    return parents, committer


def _date(committer: str) -> str:
    """YYYY-MM-DD of a committer line in its own time zone (git's %cs)."""
    parts = committer.rsplit(" ", 2)
    seconds, zone = int(parts[-2]), parts[-1]
    sign = -1 if zone.startswith("-") else 1
    offset = sign * (int(zone[1:3]) * 60 + int(zone[3:5]))
    moment = _dt.datetime.fromtimestamp(seconds, _dt.timezone(_dt.timedelta(minutes=offset)))
    return moment.strftime("%Y-%m-%d")


def state(root: Path) -> tuple:
    """What `describe` depends on that can change, cheaply: the repository, the commit HEAD
    names and the tags (objects never change). Equal states describe alike; () outside a
    repository or where it cannot be read."""
    found = find_git_dir(root)
    if found is None:
        return ()
    repo = Repository(*found)
    try:
        return (str(found[0]), repo.ref("HEAD"), tuple(sorted(repo.tag_refs().items())))
    except (_Unreadable, OSError, ValueError, UnicodeDecodeError):
        return ()


def describe(root: Path) -> tuple[str, str]:
    """(`git describe --tags --always`, `git log -1 --format=%cs`) of the repository
    holding `root`; ("", "") outside one or where it cannot be read."""
    found = find_git_dir(root)
    if found is None:
        return "", ""
    repo = Repository(*found)
    try:
        head = repo.ref("HEAD")
        if not head or len(head) != 40:
            return "", ""
        parents, committer = _commit(repo, head)
        date = _date(committer) if committer else ""
        tags = repo.tags()
        if head in tags:
            return tags[head], date
        # the nearest tag: its commits not reachable from it, counted (git's distance)
        seen, queue, best = {head}, [head], None
        while queue and len(seen) < MAX_WALK:
            sha = queue.pop(0)
            if sha in tags and best is None:
                best = sha
                break
            for parent in (parents if sha == head else _commit(repo, sha)[0]):
                if parent not in seen:
                    seen.add(parent)
                    queue.append(parent)
        if best is None:
            return head[:7], date
        behind = _reachable(repo, best)
        ahead = _reachable(repo, head, stop=behind)
        return f"{tags[best]}-{len(ahead)}-g{head[:7]}", date
    except (_Unreadable, OSError, zlib.error, ValueError, IndexError, UnicodeDecodeError):
        return "", ""


def _reachable(repo: Repository, start: str, stop: set[str] | None = None) -> set[str]:
    stop = stop or set()
    seen: set[str] = set()
    queue = [start]
    while queue and len(seen) < MAX_WALK:
        sha = queue.pop()
        if sha in seen or sha in stop:
            continue
        seen.add(sha)
        queue.extend(_commit(repo, sha)[0])
    return seen

