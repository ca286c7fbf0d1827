"""`pnp build | head -1` (issue 31, item 6): once the reader of stdout has gone, the
build abandoned everything with "cannot write out: Broken pipe", blaming the output
folder. A closed stdout is not a build failure: the build finishes, says nothing more,
and exits as the build went."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def with_reader_gone(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`pnp ARGS` whose stdout is a pipe nobody reads any more (its read end closed
    before the first line: every write fails with EPIPE, as after `head -1`)."""
    read, write = os.pipe()         # a real process: its own stdout file descriptor is the point
    os.close(read)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PNP_CACHE_DIR": str(cwd.parent / "cache")}
    try:
        proc = subprocess.run([sys.executable, "-m", "pnp", *args], cwd=cwd, env=env,
                              stdout=write, stderr=subprocess.PIPE, text=True, timeout=300)
    finally:
        os.close(write)
    return proc


@pytest.fixture
def project(tmp_path) -> Path:
    from pnp.cli.init import write_project

    folder = tmp_path / "harbour"
    write_project(folder, None)
    return folder


def test_a_build_whose_reader_has_gone_still_builds(project):
    done = with_reader_gone("build", "--only", "storms", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "Broken pipe" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stderr == ""
    assert (project / "output" / "harbour" / "storms.pdf").read_bytes().startswith(b"%PDF")


def test_a_failing_build_still_says_why_on_stderr(project):
    (project / "cards.yaml").write_text("version: 1\ngames: 3\n", encoding="utf-8")
    done = with_reader_gone("build", cwd=project)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pnp: ") and "games" in lines[0], done.stderr
