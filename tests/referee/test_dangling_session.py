"""A session path that is a dangling symbolic link (issue 25 item 6): the refusal says
so, instead of "no session here; start one with `referee new`" (which `new` then
refused too), and nothing is created at the link's target."""

from __future__ import annotations

import pytest

from tests.referee._core_support import cli, one_line_error


@pytest.mark.parametrize("args", [["new", "x-statix", "--players", "Ann,Bob"], ["status"],
                                  ["log"]], ids=lambda a: a[0])
def test_a_dangling_session_link_is_named_as_such(tmp_path, args):
    link = tmp_path / "game.db"
    link.symlink_to(tmp_path / "gone" / "game.db")
    proc = cli("--session", str(link), *args)
    assert proc.returncode == 2
    line = one_line_error(proc)
    assert "a symbolic link to" in line and "gone/game.db" in line, line
    assert "dangling link" in line and "no session here" not in line, line
    assert not (tmp_path / "gone").exists()
