"""Make tests/data/format1-session.db: a short X-Statix game in session format 1, as the
referee wrote every session before format 2 (issue 36 item 5): every event's state whole.

Run from the project root:  python tests/data/make_format1_session.py

The game is played by today's referee (its commands, in a folder of its own); its rows are
then written again in format 1's layout, which is spelled out here as the referee of
commit 994a36a wrote it (the table, its triggers, `PRAGMA user_version = 1`, the CRC of
each row), every state rebuilt whole (referee/state_delta.py). The file is committed:
tests/referee/test_core_session_format.py reads it and upgrades a copy."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "tests" / "data" / "format1-session.db"
APPLICATION_ID = 0x52654621
SCHEMA = """
CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    ts TEXT NOT NULL,
    kind TEXT NOT NULL,
    summary TEXT NOT NULL,
    payload_json TEXT NOT NULL,
    state_json TEXT NOT NULL,
    crc INTEGER NOT NULL
);
CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
"""
COMMANDS = [
    ["new", "x-statix", "--players", "Ann,Bob", "--seed", "1"],
    ["mt", "Ann", "+1"],
    ["mt", "Bob", "+2"],
    ["mt", "Ann", "+2"],
    ["undo"],
    ["mt", "Ann", "-1"],
    ["mt", "Bob", "+1"],
]


def row_crc(row: tuple) -> int:
    return zlib.crc32("\x1f".join(str(value) for value in row).encode("utf-8"))


def played(folder: Path) -> Path:
    session = folder / "game.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PNP_CACHE_DIR": "off"}
    for command in COMMANDS:
        subprocess.run([sys.executable, "-m", "referee", "--session", str(session), *command],
                       check=True, cwd=folder, env=env, capture_output=True)
    return session


def write_format1(rows: list[tuple], target: Path) -> None:
    target.unlink(missing_ok=True)
    conn = sqlite3.connect(target, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 1")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.executescript(SCHEMA)
    for row in rows:
        conn.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)", (*row, row_crc(row)))
    conn.close()  # the last close checkpoints the WAL into the file


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from tests.referee._core_support import whole_rows  # every state whole

    with tempfile.TemporaryDirectory() as folder:
        write_format1(whole_rows(played(Path(folder))), TARGET)
    print(f"wrote {TARGET.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
