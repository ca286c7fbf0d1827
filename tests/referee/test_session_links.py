"""A session file reached through a symbolic link (issue 31, item 6): SQLite follows the
link and keeps its `-wal` beside the link's target, so the referee syncs that one. Before,
every write committed and then died with a traceback looking for `link.db-wal`: a table
that typed the command again counted it twice, and `referee play` died at its first
command."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.referee._core_support import cli, make_session, read_log


def _linked(tmp_path: Path, how: str) -> tuple[Path, Path]:
    """(the session's real file, the name the table uses for it)."""
    real = tmp_path / "games" / "game.db"
    real.parent.mkdir()
    make_session(real)
    table = tmp_path / "table"
    if how == "file":  # a relative link from another folder
        table.mkdir()
        (table / "game.db").symlink_to(Path("..") / "games" / "game.db")
    else:  # the folder is a link
        table.symlink_to(real.parent, target_is_directory=True)
    return real, table / "game.db"


@pytest.mark.parametrize("how", ["file", "folder"])
def test_a_write_through_a_link_commits_once_and_answers(tmp_path, how):
    real, link = _linked(tmp_path, how)
    before = read_log(real)[-1][1]["table"]["Ann"]["mt"]
    done = cli("--session", str(link), "mt", "Ann", "+2")  # a traceback raises here
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert [event["kind"] for event, _ in read_log(real)] == ["new", "mt"]
    assert read_log(real)[-1][1]["table"]["Ann"]["mt"] == before + 2
    if how == "file":
        assert sorted(p.name for p in link.parent.iterdir()) == ["game.db"]  # no -wal by the link
    cli("--session", str(link), "undo", check=0)  # the mark it left is used, and right
    cli("--session", str(link), "status", check=0)
    assert [event["kind"] for event, _ in read_log(real)] == ["new", "mt", "undo"]
    assert read_log(real)[-1][1]["table"]["Ann"]["mt"] == before


def test_play_on_a_linked_session_takes_its_commands(tmp_path):
    real, link = _linked(tmp_path, "file")
    fed = cli("--session", str(link), "play", input="mt Bob +2\nmt Bob +1\nquit\n")
    assert fed.returncode == 0 and "Traceback" not in fed.stderr, fed.stderr[-2000:]
    assert [event["kind"] for event, _ in read_log(real)][-2:] == ["mt", "mt"]
