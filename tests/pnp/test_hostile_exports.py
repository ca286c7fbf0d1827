"""Exports and proofs staged as `pnp build` stages (issue 31, item 6): a SIGKILL in the
middle of `pnp export png`, `pnp proof` or a print shop's export used to leave truncated
files under their final names; two `pnp export pdf-single` at once shared one fixed
`.part` name. Now every file goes to a name of its own beside its target and all are
renamed into place when the export succeeds (pnp.exports.staging), under the output
folder's lock: a killed export leaves the previous files whole and only `.part` files,
which the next export removes."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness import run_cli
from tests.pnp.hostile_support import ROOT, one_line_error, pnp  # noqa: E402

# Loaded first by the child (sitecustomize): SIGKILL itself when it opens for writing its
# PNP_TEST_KILL_AT-th file under PNP_TEST_KILL_UNDER: the earlier files are written whole,
# the export is cut in the middle, at the same point on every run.
KILLER = r'''
import os, sys
_under = os.environ.get("PNP_TEST_KILL_UNDER")
_at = int(os.environ.get("PNP_TEST_KILL_AT", "0"))
if _under and _at:
    _seen = [0]

    def _hook(event, args):
        if event != "open" or not args or not isinstance(args[0], (str, bytes)):
            return
        path = os.path.abspath(os.fsdecode(args[0]))
        mode = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
        flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
        writing = any(c in mode for c in "wax+") or flags & (os.O_WRONLY | os.O_RDWR)
        if writing and path.startswith(_under) and not path.endswith(".lock"):
            _seen[0] += 1
            if _seen[0] >= _at:
                os.kill(os.getpid(), 9)

    sys.addaudithook(_hook)
'''


def starter(tmp_path: Path) -> Path:
    from pnp.cli.init import write_project

    folder = tmp_path / "harbour"
    write_project(folder, None)
    return folder


def run(folder: Path, *args: str, kill_at: int = 0, out: Path | None = None,
        extra_env: dict | None = None) -> subprocess.CompletedProcess:
    # a real process: its start-up hook (KILLER) SIGKILLs it in the middle of a write
    hooks = folder.parent / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "sitecustomize.py").write_text(KILLER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hooks), str(ROOT)]),
           "PNP_CACHE_DIR": str(folder.parent / "cache"), **(extra_env or {})}
    if kill_at:
        env["PNP_TEST_KILL_UNDER"] = str((out or folder / "output").resolve())
        env["PNP_TEST_KILL_AT"] = str(kill_at)
    return subprocess.run([sys.executable, "-m", "pnp", *args], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)


def run_here(folder: Path, *args: str) -> subprocess.CompletedProcess:
    """The same command in this process (tests.harness.run_cli): for the runs around the
    killed one, where no process is the point."""
    return run_cli("pnp", *args, cwd=folder, env={"PNP_CACHE_DIR": str(folder.parent / "cache")})


def files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.name != ".pnp-build.lock"}


def retitle(folder: Path) -> None:
    """A change every face shows: the next export writes every file anew."""
    cards = folder / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace(
        "subtitle: Ships}", "subtitle: Ships of the line}").replace(
        "Every player loses 1 cargo", "Every single player loses 1 cargo"), encoding="utf-8")


# Low resolutions where an option sets it: what is staged and renamed is the point, not
# the pixels.
EXPORTS = {
    "png": (["export", "png", "--jobs", "1", "--dpi", "72"], Path("export/png")),
    "proof": (["proof", "--jobs", "1", "--dpi", "40"], Path("proof")),
    "profile": (["export", "--profile", "mpc"], Path("export/mpc")),
    "tts": (["export", "tts", "--jobs", "1"], Path("export/tts")),
}


@pytest.mark.parametrize("name", EXPORTS)
def test_a_sigkill_in_the_middle_leaves_every_file_whole_and_as_it_was(tmp_path, name):
    args, sub = EXPORTS[name]
    folder = starter(tmp_path)
    out = folder / "output" / sub
    first = run_here(folder, *args)
    assert first.returncode == 0, first.stderr[-2000:]
    before = files(out)
    assert before and not [n for n in before if n.endswith(".part")]

    retitle(folder)
    killed = run(folder, *args, kill_at=3, out=out)
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stderr[-2000:])
    after = files(out)
    left = [n for n in after if n.endswith(".part")]
    assert left, "the kill came before anything was written: the test proves nothing"
    assert {n: b for n, b in after.items() if n not in left} == before  # whole, and the old

    again = run_here(folder, *args)
    assert again.returncode == 0, again.stderr[-2000:]
    done = files(out)
    assert not [n for n in done if n.endswith(".part")], sorted(done)  # swept
    assert set(done) == set(before) and done != before  # the new export, in place


def test_two_pdf_single_exports_at_once_both_finish_whole(tmp_path):
    from pypdf import PdfReader

    folder = starter(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PNP_CACHE_DIR": str(tmp_path / "cache")}
    runs = [subprocess.Popen([sys.executable, "-m", "pnp", "export", "pdf-single"], cwd=folder,
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    results = [(p.wait(timeout=300), *p.communicate()) for p in runs]
    for code, _out, err in results:
        assert code == 0 and "Traceback" not in err, err[-2000:]
    out = folder / "output" / "export" / "pdf-single" / "harbour"
    for pdf in ("ships.pdf", "storms.pdf"):
        assert len(PdfReader(out / pdf).pages) > 0
    assert sorted(p.name for p in out.iterdir()) == ["ships.pdf", "storms.pdf"]


def test_an_export_waits_for_the_folders_lock_and_says_so_in_one_line(tmp_path):
    folder = starter(tmp_path)
    out = folder / "output" / "export" / "pdf-single"
    out.mkdir(parents=True)
    lock = os.open(out / ".pnp-build.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)            # a build or an export holds the folder
        refused = pnp("export", "pdf-single", cwd=folder, watch=tmp_path,
                      env={"PNP_BUILD_LOCK_WAIT": "1"})
        one_line_error(refused, 1, "is writing to", "try again")
        assert files(out) == {}
    finally:
        os.close(lock)


def test_staged_names_are_unique_to_each_export(tmp_path):
    from pnp.exports import staging

    target = tmp_path / "out" / "deck.pdf"
    (tmp_path / "out").mkdir()
    names = set()
    for _ in range(20):
        with staging.staged(tmp_path / "out"):
            names.add(staging.part(target))
    assert len(names) == 20 and all(n.parent == target.parent for n in names)
    assert staging.part(target) != target  # outside a stage: a unique temporary name too


def test_a_failing_export_removes_what_it_staged_and_changes_nothing(tmp_path):
    from pnp.exports import staging

    out = tmp_path / "out"
    out.mkdir()
    (out / "kept.png").write_bytes(b"old")
    with pytest.raises(RuntimeError), staging.staged(out):
        staging.target(out / "kept.png").write_bytes(b"new")
        staging.target(out / "added.png").write_bytes(b"new")
        raise RuntimeError("a card failed to draw")
    assert files(out) == {"kept.png": b"old"}
    with staging.staged(out):
        staging.target(out / "kept.png").write_bytes(b"new")
        assert staging.current(out / "kept.png").read_bytes() == b"new"
        assert (out / "kept.png").read_bytes() == b"old"  # nothing in place before the end
    assert files(out) == {"kept.png": b"new"}
