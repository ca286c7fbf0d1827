"""Source files' digests kept between runs by their stat (carddb.cache.file_digests, issue
36 item 2): a file is read again only once its stat changed, a file changed in the last
second is not kept, and the digests are those of the bytes."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from carddb import cache


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """A cache folder of its own, and a new run: nothing held in this process."""
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_sources", None)

    def next_run():
        cache._save_sources()
        monkeypatch.setattr(cache, "_sources", None)

    return next_run


def settled(path: Path, text: str) -> Path:
    """`path` written with `text`, its times set back a minute (not a racy file)."""
    path.write_text(text)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns - 60 * 10**9, st.st_mtime_ns - 60 * 10**9))
    return path


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def reads(monkeypatch) -> list[Path]:
    """The files read for their bytes from now on."""
    read: list[Path] = []
    real = Path.read_bytes

    def counted(self):
        if self.suffix == ".py":                # not the cache's own file
            read.append(self)
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", counted)
    return read


def test_an_unchanged_file_is_not_read_again_in_the_next_run(tmp_path, monkeypatch, fresh):
    a, b = settled(tmp_path / "a.py", "x = 1\n"), settled(tmp_path / "b.py", "y = 2\n")
    assert cache.file_digests([a, b]) == [sha("x = 1\n"), sha("y = 2\n")]
    fresh()
    read = reads(monkeypatch)
    settled(b, "y = 3\n")                       # changed: another stat (ctime at least)
    assert cache.file_digests([a, b]) == [sha("x = 1\n"), sha("y = 3\n")]
    assert read == [b]


def test_a_file_changed_in_the_last_second_is_not_kept(tmp_path, monkeypatch, fresh):
    a = tmp_path / "a.py"
    a.write_text("x = 1\n")
    assert cache.file_digests([a]) == [sha("x = 1\n")]
    fresh()
    read = reads(monkeypatch)
    assert cache.file_digests([a]) == [sha("x = 1\n")]
    assert read == [a]


def test_sources_digest_names_each_file(tmp_path, fresh):
    settled(tmp_path / "a.py", "x\n"), settled(tmp_path / "b.py", "x\n")
    one = cache.sources_digest(b"salt", tmp_path, ["a.py", "b.py"])
    assert one == cache.sources_digest(b"salt", tmp_path, ["a.py", "b.py"])
    assert one != cache.sources_digest(b"salt", tmp_path, ["b.py", "a.py"])
    assert one != cache.sources_digest(b"other", tmp_path, ["a.py", "b.py"])
    fresh()
    settled(tmp_path / "b.py", "y\n")
    assert one != cache.sources_digest(b"salt", tmp_path, ["a.py", "b.py"])


def test_package_sources_are_the_sorted_paths_of_a_walk(tmp_path, monkeypatch):
    """The one walk the code digests share lists what sorted(Path.rglob("*.py")) did, in
    its order (by parts: "a/b.py" before "a.py"), relative and '/'-separated."""
    monkeypatch.setattr(cache, "_walked", {})
    for name in ("a.py", "a/b.py", "a/c/d.py", "a-b.py", "z.py", "notes.txt", "a/c/e.pyc"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "linked").symlink_to(tmp_path / "a", target_is_directory=True)
    expected = [p.relative_to(tmp_path).as_posix() for p in sorted(tmp_path.rglob("*.py"))]
    assert cache.package_sources(tmp_path) == expected
    assert expected == ["a/b.py", "a/c/d.py", "a-b.py", "a.py", "z.py"]
    assert cache.package_sources(tmp_path, ("a/c", "z.py")) == ["a/c/d.py", "z.py"]


def test_package_sources_walks_a_package_once(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "_walked", {})
    (tmp_path / "a.py").write_text("")
    walks = []
    real = cache._walk_sources
    monkeypatch.setattr(cache, "_walk_sources", lambda root: walks.append(root) or real(root))
    assert cache.package_sources(tmp_path) == ["a.py"]
    assert cache.package_sources(tmp_path, ("a.py",)) == ["a.py"]
    assert walks == [str(tmp_path)]
