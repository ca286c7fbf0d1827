"""Issue 24 item 5: `pnp build --jobs N` draws independent artefacts in N worker
processes; the output is byte-identical whatever N, and a failure is the one a
one-process build reports, with nothing written."""

from __future__ import annotations

import hashlib
from functools import partial
from pathlib import Path

import pytest

from pnp.artefacts.project_build import BuildOptions, build_project, job_count
from pnp.cli.init import write_project
from pnp.draw.render import RenderError
from tests.harness import run_cli
from tests.pnp.starter_copies import fresh_copy, make_starter


@pytest.fixture(scope="module")
def _starter(tmp_path_factory) -> Path:
    """A `pnp init` project (made once; each test edits a copy)."""
    return make_starter(tmp_path_factory.mktemp("starter") / "game")


@pytest.fixture
def starter(_starter, playground) -> Path:
    """A fresh copy of the starter, at one path for every test (tests/pnp/starter_copies):
    each test's builds, and the workers forked from this process, compile only the
    templates it edited."""
    return fresh_copy(_starter, playground)


# In this process: pnp forks its workers only from a process with no other thread running
# (pnp.artefacts.workers), as a pytest process (xdist's workers too) is; `forking` checks it,
# so a thread left running would fail these tests rather than quietly compare one-process
# runs. Forked workers start with this process's imports, so no interpreter starts afresh.
_cli = partial(run_cli, "pnp")


@pytest.fixture
def forking():
    from pnp.artefacts import workers

    assert workers.start_method() == "fork", "workers would not be forked here"


def _files(out: Path) -> dict[str, str]:
    """PDFs, layout reports and build records (the manifest holds files' mtimes)."""
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file() and p.suffix in (".pdf", ".json")
            and p.name != ".pnp-manifest.json"}


@pytest.fixture(scope="module")
def one_job(tmp_path_factory):
    """The starter built by one process, no cache: what every number of workers must
    write (built once for the tests that compare with it; they only read it)."""
    folder = tmp_path_factory.mktemp("one-job")
    write_project(folder / "game", None)
    with pytest.MonkeyPatch.context() as m:
        m.setenv("PNP_CACHE_DIR", "off")
        report = build_project(folder / "game", BuildOptions(out=folder / "one", jobs=1))
    return report, _files(folder / "one")


def test_one_and_two_jobs_write_the_same_bytes(starter, tmp_path, monkeypatch, one_job,
                                               forking):
    monkeypatch.setenv("PNP_CACHE_DIR", "off")
    one, files = one_job
    two = build_project(starter, BuildOptions(out=tmp_path / "two", jobs=2))
    assert len([f for f in files if f.endswith(".pdf")]) >= 4
    assert _files(tmp_path / "two") == files
    assert [Path(r.path).name for r in two.results] == [Path(r.path).name
                                                       for r in one.results]
    assert [(r.pages, r.cards) for r in two.results] == [(r.pages, r.cards)
                                                         for r in one.results]
    assert two.layout() == one.layout()


def test_a_failure_in_a_worker_is_the_one_process_error_and_writes_nothing(starter, forking,
                                                                           tmp_path):
    storm = starter / "templates" / "harbour" / "storm.j2"
    storm.write_text(storm.read_text() + "- rect: {box: [1, 1, 2]}\n")
    errors = []
    for jobs in (1, 2):
        with pytest.raises(RenderError) as caught:
            build_project(starter, BuildOptions(out=tmp_path / f"j{jobs}", jobs=jobs))
        errors.append(str(caught.value))
        assert not list((tmp_path / f"j{jobs}").rglob("*.pdf"))
        assert not list((tmp_path / f"j{jobs}").rglob("*.part"))
    assert errors[0] == errors[1] and "storm.j2" in errors[0]


def test_jobs_default_to_the_cores_and_the_option_is_checked(starter):
    import os

    assert job_count(None) == max(1, os.cpu_count() or 1) and job_count(1) == 1
    run = run_cli("pnp", "build", "--project", str(starter), "--jobs", "0")
    assert run.returncode == 2 and "--jobs" in run.stderr and "Traceback" not in run.stderr


def test_a_small_build_with_the_default_jobs_starts_no_worker(starter, tmp_path, monkeypatch,
                                                             forking):
    """Workers cost more than they save on a few decks (project_build.SMALL): the starter
    with the default jobs is drawn here; the same build, were it larger, in workers, and
    the files are the same."""
    from pnp.artefacts import project_build, workers

    monkeypatch.setenv("PNP_CACHE_DIR", "off")
    started: list[int] = []
    start = workers.Workers.__init__
    monkeypatch.setattr(workers.Workers, "__init__",
                        lambda self, jobs, *a: started.append(jobs) or start(self, jobs, *a))
    build_project(starter, BuildOptions(out=tmp_path / "small"))
    assert started == []
    monkeypatch.setattr(project_build, "SMALL", 10)     # the starter's decks cost 24
    build_project(starter, BuildOptions(out=tmp_path / "large"))
    assert len(started) == (job_count(None) > 1)
    assert _files(tmp_path / "large") == _files(tmp_path / "small")


def test_proof_with_one_and_two_jobs_writes_the_same_files(starter, tmp_path, forking):
    runs = {}
    for jobs in (1, 2):
        out = tmp_path / f"proof{jobs}"
        run = _cli("proof", "--project", str(starter), "--out", str(out), "--dpi", "40",
                   "--jobs", str(jobs))
        assert run.returncode == 0, run.stderr
        runs[jobs] = {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                      for p in sorted(out.rglob("*")) if p.is_file()}
    assert len([f for f in runs[1] if f.endswith(".png")]) > 10
    assert runs[1] == runs[2]


def test_with_another_thread_running_the_build_stays_in_this_process(starter, tmp_path,
                                                                      monkeypatch):
    """Forking a threaded process (pnp watch listens in a thread) may copy a held lock
    into a worker: then nothing is forked and the build is the one-process build."""
    import threading

    from pnp.artefacts import workers

    started = []
    monkeypatch.setattr(workers.Workers, "__init__",
                        lambda *a, **k: started.append(a) or pytest.fail("forked"))
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, daemon=True)
    thread.start()
    try:
        assert not workers.usable()
        report = build_project(starter, BuildOptions(out=tmp_path / "out", jobs=2))
    finally:
        stop.set()
        thread.join()
    assert started == [] and len(report.built) >= 4


def _tree(out: Path) -> dict[str, str]:
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file()}


def test_a_build_error_in_the_workers_is_the_same_one_line_and_writes_nothing(starter,
                                                                              tmp_path, forking):
    runs = []
    for jobs in (1, 2):
        out = tmp_path / f"j{jobs}"
        out.mkdir()
        (out / "harbour").write_text("a file where the game's folder goes")
        run = _cli("build", "--project", str(starter), "--out", str(out), "--jobs", str(jobs))
        runs.append((run.returncode, run.stderr.strip().splitlines()[-1].replace(
            f"j{jobs}", "OUT")))
        assert "Traceback" not in run.stderr
        assert not list(out.rglob("*.pdf")) and not list(out.rglob("*.part"))
    assert runs[0] == runs[1]
    assert runs[0][0] == 2 and "cannot write to output folder" in runs[0][1]


def test_ctrl_c_in_a_two_job_build_leaves_out_as_it_was_and_no_workers(starter, tmp_path):
    import multiprocessing

    from pnp.artefacts.project_build import Progress

    class Interrupted(Progress):
        started = 0

        def start(self, art, path):
            self.started += 1
            if self.started == 3:
                raise KeyboardInterrupt

    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        build_project(starter, BuildOptions(out=out, jobs=2), Interrupted())
    assert not [p for p in out.rglob("*") if p.is_file() and not p.name.startswith(".pnp")]
    assert multiprocessing.active_children() == []


def test_spawned_workers_write_the_same_bytes(starter, tmp_path, monkeypatch, one_job):
    """Where there is no fork (Windows) the workers are spawned and sent the database."""
    from pnp.artefacts import workers

    monkeypatch.setenv("PNP_CACHE_DIR", "off")
    monkeypatch.setattr(workers, "start_method", lambda: "spawn")
    build_project(starter, BuildOptions(out=tmp_path / "two", jobs=2))
    assert _files(tmp_path / "two") == one_job[1]


def test_proof_error_in_the_workers_is_the_one_process_line(starter, tmp_path, forking):
    storm = starter / "templates" / "harbour" / "storm.j2"
    storm.write_text(storm.read_text() + "- rect: {box: [1, 1, 2]}\n")
    runs = []
    for jobs in (1, 2):
        run = _cli("proof", "--project", str(starter), "--out", str(tmp_path / f"p{jobs}"),
                   "--dpi", "40", "--jobs", str(jobs))
        assert "Traceback" not in run.stderr
        runs.append((run.returncode, run.stderr.strip().splitlines()[-1].replace(
            f"p{jobs}", "OUT")))
    assert runs[0] == runs[1] and runs[0][0] != 0 and "storm.j2" in runs[0][1]


@pytest.mark.parametrize("target", ["png", "tabletopia", "tts"])
def test_exports_with_one_and_two_jobs_write_the_same_files(starter, tmp_path, forking, target):
    trees = {}
    for jobs in (1, 2):
        out = tmp_path / f"{target}{jobs}"
        dpi = ["--dpi", "72"] if target != "tts" else []
        run = _cli("export", target, "--project", str(starter), "--out", str(out), *dpi,
                   "--jobs", str(jobs))
        assert run.returncode == 0, run.stderr
        for saved in out.rglob("*.json"):      # tts: the sheets' absolute file URIs
            saved.write_text(saved.read_text().replace(out.resolve().as_uri(), "OUT"))
        trees[jobs] = _tree(out)
    assert len(trees[1]) > 3 and trees[1] == trees[2]


def test_export_jobs_must_be_positive(starter, tmp_path):
    for bad in ("0", "-2"):
        run = _cli("export", "png", "--project", str(starter), "--out", str(tmp_path / "x"),
                   "--jobs", bad)
        assert run.returncode == 2 and "Traceback" not in run.stderr
        assert run.stderr.strip().count("\n") == 0 and "--jobs" in run.stderr
