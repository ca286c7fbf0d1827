"""`--report FILE.pdf` is checked before any work: a report that could never be written is
refused in one line (exit 2) before the simulation or the tables it reports are worked out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from referee.errors import UsageError
from referee.report_file import report_path
from tests.harness import run_cli


def test_a_file_given_as_the_folder_is_refused(tmp_path: Path) -> None:
    afile = tmp_path / "notes.txt"
    afile.write_text("x")
    with pytest.raises(UsageError, match=r"cannot write it: .*notes.txt is not a folder"):
        report_path(str(afile / "x.pdf"))


def test_a_writable_place_is_taken_as_given(tmp_path: Path) -> None:
    assert report_path(str(tmp_path / "r.pdf")) == str(tmp_path / "r.pdf")
    assert report_path("r.pdf") == "r.pdf"  # the current folder
    assert report_path(None) is None


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write in any folder")
def test_a_read_only_folder_or_file_is_refused(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    (tmp_path / "old.pdf").write_text("x")
    (tmp_path / "old.pdf").chmod(0o444)
    locked.chmod(0o555)
    try:
        for path in (locked / "x.pdf", tmp_path / "old.pdf"):
            with pytest.raises(UsageError, match="permission denied"):
                report_path(str(path))
    finally:
        locked.chmod(0o755)


def test_the_xo_tables_are_not_worked_out_for_a_report_that_cannot_be_written(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from referee.simulate import xo_tables

    def never(*_: object) -> None:
        raise AssertionError("worked out before the report path was checked")

    monkeypatch.setattr(xo_tables, "matchups", never)
    monkeypatch.setattr(xo_tables, "objectives", never)
    afile = tmp_path / "afile"
    afile.write_text("x")
    done = run_cli("referee", "simulate", "xo", "--report", str(afile / "x.pdf"))
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (f"referee: --report {afile / 'x.pdf'}: cannot write it: "
                                   f"{afile} is not a folder")
