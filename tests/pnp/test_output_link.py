"""A project that ships `output/` as a symbolic link out of itself (issue 31, item 6): a
plain `pnp build` wrote through it, overwriting a user's file outside the project. The
default output folder must resolve inside the project; `--out` names any other."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness import run_cli
from tests.pnp.hostile_support import one_line_error, pnp, stayed_inside  # noqa: E402


@pytest.fixture
def linked(tmp_path) -> tuple[Path, Path]:
    """(a project whose output/ links to the user's folder, that folder)."""
    from pnp.cli.init import write_project

    folder = tmp_path / "harbour"
    write_project(folder, None)
    home = tmp_path / "home"
    (home / "harbour").mkdir(parents=True)
    (home / "harbour" / "storms.pdf").write_text("my own notes", encoding="utf-8")
    (folder / "output").symlink_to(home, target_is_directory=True)
    return folder, home


@pytest.mark.parametrize("command", [
    ["build", "--only", "storms"],
    ["proof", "--deck", "storms"],
    ["export", "png", "--deck", "storms"],
    ["export", "--profile", "mpc", "--deck", "storms"],
], ids=lambda c: " ".join(c[:2]))
def test_a_default_output_linked_out_of_the_project_is_refused(tmp_path, linked, command):
    folder, home = linked
    run = pnp(*command, cwd=folder, watch=tmp_path)
    line = one_line_error(run, 1, "outside the project folder", "--out")
    assert str(home) in line
    assert [p.name for p in home.rglob("*")] == ["harbour", "storms.pdf"]
    assert (home / "harbour" / "storms.pdf").read_text(encoding="utf-8") == "my own notes"
    stayed_inside(run, folder, tmp_path / "cache")


# A build that may write where it does is checked in this process (issue 34): the audited
# process above is for the refusals, whose point is what was not touched.


def test_the_user_may_name_that_folder_with_out(linked):
    folder, home = linked
    run = run_cli("pnp", "build", "--only", "storms", "--out", "output", cwd=folder)
    assert run.returncode == 0, run.stderr[-2000:]
    assert (home / "harbour" / "storms.pdf").read_bytes().startswith(b"%PDF")


def test_an_output_link_inside_the_project_is_used(tmp_path):
    from pnp.cli.init import write_project

    folder = tmp_path / "harbour"
    write_project(folder, None)
    (folder / "prints").mkdir()
    (folder / "output").symlink_to("prints", target_is_directory=True)
    run = run_cli("pnp", "build", "--only", "storms", cwd=folder)
    assert run.returncode == 0, run.stderr[-2000:]
    assert (folder / "prints" / "harbour" / "storms.pdf").read_bytes().startswith(b"%PDF")
