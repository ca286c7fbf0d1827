"""A project that ships `output/` as a symbolic link out of itself (issue 31, item 6): a
plain `pnp build` wrote through it, overwriting a user's file outside the project. The
default output folder must resolve inside the project; `--out` names any other."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.carddb.bounded import Command, run_bounded
from tests.harness import run_cli
from tests.pnp.hostile_support import Run, one_line_error, stayed_inside  # noqa: E402


def _linked(root: Path) -> tuple[Path, Path]:
    """(a project whose output/ links to the user's folder, that folder), in `root`."""
    from pnp.cli.init import write_project

    folder = root / "harbour"
    write_project(folder, None)
    home = root / "home"
    (home / "harbour").mkdir(parents=True)
    (home / "harbour" / "storms.pdf").write_text("my own notes", encoding="utf-8")
    (folder / "output").symlink_to(home, target_is_directory=True)
    return folder, home


@pytest.fixture
def linked(tmp_path) -> tuple[Path, Path]:
    return _linked(tmp_path)


COMMANDS = {" ".join(c[:2]): c for c in (
    ["build", "--only", "storms"],
    ["proof", "--deck", "storms"],
    ["export", "png", "--deck", "storms"],
    ["export", "--profile", "mpc", "--deck", "storms"],
)}


@pytest.fixture(scope="module")
def refused(tmp_path_factory) -> dict[str, tuple[Path, Path, Path, Run]]:
    """(watched folder, project, the user's folder, the Run) of each of COMMANDS in a
    linked project of its own: all in one bounded, audited process (tests/carddb/
    bounded.py), each command measured and audited on its own; a process each cost
    more than the commands (issue 34). Nothing here is changed after."""
    projects = {}
    for name in COMMANDS:
        root = tmp_path_factory.mktemp(name.replace(" ", "-"))
        projects[name] = (root, *_linked(root))
    runs = run_bounded([Command(tuple(COMMANDS[name]), folder, root)
                        for name, (root, folder, _) in projects.items()],
                       tmp_path_factory.mktemp("bounded"), max_mb=1200, timeout=120)
    return {name: (*projects[name], run) for name, run in zip(projects, runs, strict=True)}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_default_output_linked_out_of_the_project_is_refused(refused, command):
    root, folder, home, run = refused[command]
    line = one_line_error(run, 1, "outside the project folder", "--out")
    assert str(home) in line
    assert [p.name for p in home.rglob("*")] == ["harbour", "storms.pdf"]
    assert (home / "harbour" / "storms.pdf").read_text(encoding="utf-8") == "my own notes"
    stayed_inside(run, folder, root / "cache")


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
