"""Read-only media and full disks (issue 16, item 11): reading commands (status, log) work
on a session that cannot be written; a write command says the session is read-only, or
that the disk is full, in one line (exit 2), and the file is left as it was.

The real cases need root (a tmpfs mounted read-only or 64 KB small; root without
CAP_DAC_OVERRIDE for a chmod-ed file or folder) and are skipped without it; the full disk
is also simulated at the SQLite layer, which runs everywhere."""

from __future__ import annotations

import ctypes
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from referee import session as store
from tests.referee._core_support import bundled_db, cli, make_session, read_log
from tests.referee._hostile_support import bounded_referee, refused, refused_json

READING = (["status", "--json"], ["log", "--json"])
WRITING = (["mt", "Ann", "+1"], ["undo"], ["new", "xo", "--players", "A,B", "--force"])


def _mount(target: Path, options: str) -> bool:
    if os.geteuid() != 0:
        return False
    target.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(target)],
                          capture_output=True)
    return proc.returncode == 0


def _remount(target: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(target)], check=True)


@pytest.fixture
def tmpfs(tmp_path):
    """A function mounting a small tmpfs (size in KB) under tmp_path; unmounted after."""
    mounted: list[Path] = []

    def mount(size_kb: int) -> Path:
        target = tmp_path / f"tmpfs{len(mounted)}"
        if not _mount(target, f"size={size_kb}k"):
            pytest.skip("needs root and tmpfs mounts")
        mounted.append(target)
        return target

    yield mount
    for target in mounted:
        subprocess.run(["umount", "-l", str(target)], capture_output=True)


def _drop_root_overrides() -> None:
    """In the child: root without the capabilities that ignore file modes."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2, 3):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _as_user_bound_by_modes(*args: str) -> subprocess.CompletedProcess:
    """A process: root's capabilities are dropped in the child, not in the test run."""
    if os.geteuid() != 0:
        return bounded_referee(*args)
    return bounded_referee(*args, preexec=_drop_root_overrides)


def _file_modes_bind_us() -> bool:
    if os.geteuid() != 0:
        return True
    try:
        subprocess.run([sys.executable, "-c", ""], preexec_fn=_drop_root_overrides, check=True)
    except (subprocess.SubprocessError, OSError):
        return False
    return True


def _check_read_only(db: Path, run) -> None:
    before = db.read_bytes()
    for args in READING:
        proc = run("--session", str(db), *args)
        assert proc.returncode == 0, (args, proc.stderr)
        assert json.loads(proc.stdout)["ok"] is True
    for args in WRITING:
        proc = run("--session", str(db), *args, "--json")
        line = refused_json(proc)["error"]
        assert "read-only" in line and "nothing was changed" in line, line
    assert db.read_bytes() == before


def test_read_only_medium_reads_and_refuses_writes(tmpfs):
    folder = tmpfs(1024)
    db = folder / "game.db"
    make_session(db)
    cli("--session", str(db), "mt", "Ann", "+1", check=0)
    _remount(folder, "ro")
    try:
        _check_read_only(db, cli)
        assert sorted(p.name for p in folder.iterdir()) == ["game.db"]
        proc = cli("--session", str(folder / "new.db"), "new", "xo", "--players", "A,B")
        assert "folder is read-only" in refused(proc)
    finally:
        _remount(folder, "rw")


@pytest.mark.parametrize("what", ["file", "folder"])
def test_read_only_file_or_folder_reads_and_refuses_writes(tmp_path, what):
    if not _file_modes_bind_us():
        pytest.skip("root that cannot drop CAP_DAC_OVERRIDE ignores file modes")
    folder = tmp_path / "table"
    folder.mkdir()
    db = folder / "game.db"
    make_session(db)
    target = db if what == "file" else folder
    target.chmod(0o444 if what == "file" else 0o555)
    try:
        _check_read_only(db, _as_user_bound_by_modes)
        assert sorted(p.name for p in folder.iterdir()) == ["game.db"]  # nothing created
    finally:
        target.chmod(0o755 if what == "folder" else 0o644)
    cli("--session", str(db), "mt", "Ann", "+1", check=0)  # writable again: works


def test_full_disk_reads_and_says_disk_full(tmpfs):
    folder = tmpfs(64)
    db = folder / "game.db"
    make_session(db)
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as handle:  # fill every block left
        try:
            while True:
                handle.write(b"\0" * 1024)
        except OSError:
            pass
    before = db.read_bytes()
    for args in READING:
        proc = cli("--session", str(db), *args)
        assert proc.returncode == 0, (args, proc.stderr)
    for args in (["mt", "Ann", "+1"], ["new", "xo", "--players", "A,B", "--force"]):
        line = refused_json(cli("--session", str(db), *args, "--json"))["error"]
        assert "disk full" in line, line
    assert db.read_bytes() == before
    proc = cli("--session", str(folder / "other.db"), "new", "xo", "--players", "A,B")
    assert "disk full" in refused(proc)
    filler.unlink()
    cli("--session", str(db), "mt", "Ann", "+1", check=0)  # space again: works
    assert len(read_log(db)) == 2


class _FullDisk:
    """A connection whose writes fail the way SQLite fails on a full disk."""

    def __init__(self, conn: sqlite3.Connection, fail_at: str) -> None:
        self._conn = conn
        self._fail_at = fail_at
        self._wrote = False

    def execute(self, sql: str, *args):
        self._wrote = self._wrote or sql.startswith("INSERT")
        if sql.startswith(self._fail_at) and self._wrote:  # a read's COMMIT writes nothing
            error = sqlite3.OperationalError("database or disk is full")
            error.sqlite_errorcode = 13  # type: ignore[attr-defined]
            error.sqlite_errorname = "SQLITE_FULL"  # type: ignore[attr-defined]
            raise error
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str):
        return getattr(self._conn, name)


@pytest.mark.parametrize("fail_at", ["INSERT", "COMMIT"])
def test_full_disk_at_the_sqlite_layer_says_disk_full(tmp_path, monkeypatch, fail_at):
    db = tmp_path / "game.db"
    cards = bundled_db()  # ft reads the cards: the session is made with the same ones
    hero = cards.games["x-statix"].cards(type="Hero")[0].name
    make_session(db, heroes={"Ann": [(hero, 1)]}, db=cards)
    before = db.read_bytes()
    real = store._connect
    monkeypatch.setattr(store, "_connect", lambda *a, **k: _FullDisk(real(*a, **k), fail_at))
    for args in (["mt", "Ann", "+1"], ["ft", hero, "+1"], ["mt", "Bob", "=3"]):
        proc = cli("--session", str(db), *args, "--json")
        assert proc.returncode == 2, proc.stderr
        assert "disk full" in proc.stderr and len(proc.stderr.splitlines()) == 1
        assert json.loads(proc.stdout)["exit_code"] == 2
    assert cli("--session", str(db), "status", check=0).stdout
    monkeypatch.undo()
    assert db.read_bytes() == before and len(read_log(db)) == 1
