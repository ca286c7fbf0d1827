"""Two `pnp build` at once on one --out (issue 25 item 6): each writes through its own
temporary names and the second waits for the first (a build lock in --out), or says in
one line that another build is running; no `.part` file is left behind."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys

from tests.harness import run_cli
from tests.pnp.hostile_support import ROOT, one_line_error, pnp, project  # noqa: E402

BUILD = ("build", "--game", "x-statix", "--only", "owners", "--out", "out", "--force")


def test_concurrent_builds_on_one_out_all_finish_whole(tmp_path):
    from pypdf import PdfReader

    folder = project(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PNP_CACHE_DIR": str(tmp_path / "cache")}
    # real processes: concurrent builds on one folder are the point
    runs = [subprocess.Popen([sys.executable, "-m", "pnp", *BUILD], cwd=folder, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    results = [(p.wait(timeout=180), p.stdout.read(), p.stderr.read()) for p in runs]
    for p in runs:
        p.stdout.close()
        p.stderr.close()
    for code, _out, err in results:
        assert code == 0, err
        assert "Traceback" not in err and "cannot write" not in err, err
    pdf = folder / "out" / "x-statix" / "owners.pdf"
    assert len(PdfReader(pdf).pages) > 0
    assert not list((folder / "out").rglob("*.part")), list((folder / "out").rglob("*"))


def test_a_build_waiting_too_long_for_another_says_so_in_one_line(tmp_path):
    folder = project(tmp_path)
    (folder / "out").mkdir()
    lock = os.open(folder / "out" / ".pnp-build.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)            # another build holds --out
        run = pnp(*BUILD, cwd=folder, watch=tmp_path, env={"PNP_BUILD_LOCK_WAIT": "1"})
        one_line_error(run, 1, "another pnp build is writing to out", "try again")
        assert "notice: another pnp build is writing to out: waiting" in run.stderr
        assert run.cpu < 20             # it gave up after its wait (a hang is the 60 s timeout)
        assert not (folder / "out" / "x-statix" / "owners.pdf").exists()
    finally:
        os.close(lock)
    # released: it builds (in this process: a process is the point of the refusal above)
    again = run_cli("pnp", *BUILD, cwd=folder, env={"PNP_CACHE_DIR": str(tmp_path / "cache")})
    assert again.returncode == 0, again.stderr
    assert (folder / "out" / "x-statix" / "owners.pdf").exists()


def test_temporary_names_are_unique(tmp_path):
    from pnp.outpaths import part_of

    names = {part_of(tmp_path / "owners.pdf") for _ in range(50)}
    assert len(names) == 50
    assert all(n.parent == tmp_path and n.name.startswith("owners.pdf.") for n in names)
