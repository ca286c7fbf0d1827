"""The version stamp reads git's facts from `.git` in pure Python (pnp.draw.gitread): the
same text `git describe --tags --always` and `git log -1 --format=%cs` print, with no
program started (issue 25). Checked against the real git where the machine has it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pnp.draw.gitread import describe
from tests.harness import run_cli
from tests.pdftext import page_texts

pytestmark = pytest.mark.skipif(shutil.which("git") is None,
                                reason="git is not installed: nothing to compare with")

ENV = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.org",
       "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@example.org",
       "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"}


def git(repo: Path, *args: str, when: str = "1700000000 +0130") -> str:
    env = {**ENV, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    done = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


def truth(repo: Path) -> tuple[str, str]:
    return git(repo, "describe", "--tags", "--always"), git(repo, "log", "-1", "--format=%cs")


def commit(repo: Path, n: int, when: str = "1700000000 +0130") -> None:
    (repo / "f.txt").write_text(f"{n}\n" * (50 + n))
    git(repo, "add", "f.txt")
    git(repo, "commit", "-q", "-m", f"c{n}", when=when)


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "game"
    root.mkdir()
    git(root, "init", "-q")
    return root


def test_no_repository_gives_no_stamp(tmp_path):
    assert describe(tmp_path) == ("", "")


def test_untagged_loose_then_packed(repo):
    for n in range(3):
        commit(repo, n)
    assert describe(repo) == truth(repo)
    git(repo, "gc", "-q", "--aggressive")           # packed objects, deltas, packed refs
    assert describe(repo) == truth(repo)


def test_tags_exact_annotated_and_at_a_distance(repo):
    commit(repo, 0)
    git(repo, "tag", "v0.1")
    assert describe(repo) == truth(repo) == ("v0.1", truth(repo)[1])
    commit(repo, 1)
    git(repo, "tag", "-a", "v0.2", "-m", "release")
    commit(repo, 2)
    commit(repo, 3, when="1700090000 -0800")           # the date in the committer's zone
    assert describe(repo) == truth(repo)
    assert describe(repo)[0].startswith("v0.2-2-g")
    git(repo, "gc", "-q")
    assert describe(repo) == truth(repo)


def test_a_project_folder_inside_the_repository(repo):
    commit(repo, 0)
    (repo / "sub").mkdir()
    assert describe(repo / "sub") == truth(repo)


def test_a_stamp_drawn_from_git_starts_no_program(repo, tmp_path):
    """pnp build of a project in a repository whose template prints the stamp: the
    audit hook of the build records every program started: none."""
    assert run_cli("pnp", "init", str(repo / "proj")).returncode == 0
    ship = repo / "proj" / "templates" / "harbour" / "ship.j2"
    ship.write_text(ship.read_text() + "- text: {box: [5, 80, 50, 5], "
                                       "text: {{ version ~ ' ' ~ build_date }}, size: 6}\n")
    commit(repo, 0)
    git(repo, "tag", "v1.0")
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import sys, runpy\n"
        "started = []\n"
        "sys.addaudithook(lambda e, a: started.append(e) if e in ('subprocess.Popen', "
        "'os.system', 'os.exec', 'os.posix_spawn', 'os.spawn') else None)\n"
        "sys.argv = ['pnp', 'build', '--only', 'ships', '--jobs', '1']\n"
        "try:\n    runpy.run_module('pnp', run_name='__main__')\n"
        "except SystemExit as e:\n    code = e.code\n"
        "print('STARTED', started, file=sys.stderr)\n")
    # a process of its own: an audit hook, once added, cannot be removed from a process
    done = subprocess.run([sys.executable, str(probe)], cwd=repo / "proj", capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert "STARTED []" in done.stderr, done.stderr
    text = "".join(page_texts(repo / "proj" / "output" / "harbour" / "ships.pdf"))
    assert "v1.0" in text and truth(repo)[1] in text


ROOT = Path(__file__).resolve().parents[2]
