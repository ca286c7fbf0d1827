"""`pnp watch`: rebuilds after a file change, survives a broken edit (real subprocess)."""

from __future__ import annotations

import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import carddb
from pnp.cli.watch import relevant, watch_loop, watch_roots
from tests.harness import process_env, run_cli
from tests.pnp.exports_support import ROOT, make_project


class Watcher:
    """`pnp watch` in a subprocess; lines of its output (stdout and stderr) on a queue.
    A real process is the point: it runs until terminated, and a changed font re-execs it."""

    def __init__(self, cwd: Path, *args: str):
        env = process_env({"PYTHONUNBUFFERED": "1"})
        self.proc = subprocess.Popen([sys.executable, "-m", "pnp", "watch", *args], cwd=cwd,
                                     env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, text: str, timeout: float = 60) -> list[str]:
        """Lines up to and including the first one containing `text`."""
        got = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                assert self.proc.poll() is None, f"watch exited: {self.seen + got}"
                continue
            got.append(line)
            if text in line:
                self.seen += got
                return got
        raise AssertionError(f"no {text!r} within {timeout} s; got {self.seen + got}")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def test_watch_rebuilds_after_a_change_and_survives_a_broken_edit(tmp_path):
    project = make_project(tmp_path)
    cards = project / "cards.yaml"
    good = cards.read_text()
    owner = carddb.load(cards).games["x-statix"].decks["owners"].cards[0]
    w = Watcher(project, "--interval", "0.1", "--game", "x-statix", "--only", "owners")
    try:
        first = w.wait_for("build done")
        assert any("watching" in line for line in first)
        pdf = project / "output" / "x-statix" / "owners.pdf"
        assert pdf.is_file()
        stamp = pdf.stat().st_mtime_ns

        cards.write_text(good.replace(owner.text, owner.text + " Edited.", 1))
        lines = w.wait_for("build done")
        assert any("changed: cards.yaml" in line for line in lines)
        assert any(line.startswith("building ") and "owners.pdf" in line for line in lines)
        assert "(1 artefacts rebuilt)" in lines[-1]
        assert " s " in lines[-1] or " s (" in lines[-1]   # how long it took
        assert pdf.stat().st_mtime_ns != stamp

        cards.write_text(good.replace("copies:", "copies: [", 1))   # broken YAML
        lines = w.wait_for("build failed")
        errors = [line for line in lines if "cards.yaml:" in line]
        assert len(errors) == 1 and "Traceback" not in "\n".join(lines)

        cards.write_text(good)
        lines = w.wait_for("build done")
        assert "(1 artefacts rebuilt)" in lines[-1]
        assert w.proc.poll() is None
    finally:
        w.stop()


def test_events_count_for_the_files_a_build_reads_only(tmp_path):
    """Which file events start a build: the watched files and what is inside the watched
    folders (also a folder made after the watch began), not the build's own output."""
    (tmp_path / "templates").mkdir()
    (tmp_path / "cards.yaml").write_text("x")
    paths = [(tmp_path / "cards.yaml").resolve(), (tmp_path / "templates").resolve(),
             (tmp_path / "assets").resolve()]                  # assets/: not made yet
    assert watch_roots(paths) == [tmp_path.resolve()]
    events = {(1, str(tmp_path / "cards.yaml")), (2, str(tmp_path / "templates" / "a.j2")),
              (1, str(tmp_path / "assets" / "new" / "art.png")),
              (2, str(tmp_path / "output" / "x-statix" / "owners.pdf")),
              (2, str(tmp_path / "templates" / ".a.j2.swp")),
              (2, str(tmp_path / "templates" / "a.j2~"))}
    assert relevant(events, paths) == sorted(
        p.resolve() for p in (tmp_path / "cards.yaml", tmp_path / "templates" / "a.j2",
                              tmp_path / "assets" / "new" / "art.png"))


def test_watch_reacts_to_an_edit_through_file_events(tmp_path, monkeypatch):
    """In process: the rebuild after an edit comes from a batch of watchfiles events
    naming cards.yaml (no polling), and it goes through build_project."""
    import threading

    import watchfiles

    import pnp.artefacts.project_build as pb

    project = make_project(tmp_path / "p")
    cards = project / "cards.yaml"
    owner = carddb.load(cards).games["x-statix"].decks["owners"].cards[0]
    batches, reports, lines = [], [], []
    real_watch, real_build = watchfiles.watch, pb.build_project
    listened, first_built = threading.Event(), threading.Event()
    probe = project / "probe.txt"          # in the watched folder, read by no build

    def recording_watch(*args, **kwargs):
        for batch in real_watch(*args, **kwargs):
            batches.append(batch)
            if any(Path(name).name == probe.name for _, name in batch):
                listened.set()
            yield batch

    def recording_build(*args, **kwargs):
        reports.append(real_build(*args, **kwargs))
        first_built.set()
        return reports[-1]

    monkeypatch.setattr(watchfiles, "watch", recording_watch)
    monkeypatch.setattr(pb, "build_project", recording_build)
    done = threading.Event()

    def echo(line):
        lines.append(line)
        if "build done" in line and len(reports) == 2:
            done.set()

    thread = threading.Thread(target=watch_loop, args=(
        cards, ["--game", "x-statix", "--only", "owners"], False, project / "output", 0.1,
        echo), kwargs={"stop": done.is_set}, daemon=True)
    thread.start()
    assert first_built.wait(60), lines
    deadline = time.monotonic() + 60       # the watcher is listening once it saw the probe
    while not listened.is_set() and time.monotonic() < deadline:
        probe.write_text(str(time.monotonic()))
        listened.wait(0.5)
    assert listened.is_set(), batches
    cards.write_text(cards.read_text().replace(owner.text, owner.text + " Edited.", 1))
    assert done.wait(60), lines
    thread.join(10)
    assert not thread.is_alive()
    assert [a.name for a in reports[1].built] == ["owners"]
    assert any(Path(name).resolve() == cards.resolve()
               for batch in batches for _, name in batch)
    assert any(line.startswith("changed: cards.yaml") for line in lines)


def test_a_mistyped_build_option_ends_the_watch_with_a_usage_error(tmp_path):
    """No edit can fix a bad command line: the watch exits 2 with the build's one-line
    error instead of watching and failing on every change."""
    make_project(tmp_path)
    result = run_cli("pnp", "watch", "--paepr", "a4", cwd=tmp_path)
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    # (click's wording changed in 8.2.x: "No such option: --paepr (Possible options: ...)",
    # then "No such option '--paepr'. Did you mean '--paper'?")
    assert line.startswith("pnp: No such option") and "--paepr" in line and "--paper" in line
    assert not (tmp_path / "output").exists()


def base_fonts(pdf: Path) -> set[str]:
    from pypdf import PdfReader

    names = set()
    for page in PdfReader(pdf).pages:
        for font in (page["/Resources"].get("/Font") or {}).values():
            names.add(str(font.get_object()["/BaseFont"]).split("+")[-1])
    return names


def test_a_changed_font_file_restarts_the_watch_and_is_drawn(tmp_path):
    # ReportLab keeps a font once loaded: the watch must not go on drawing the old one.
    import reportlab

    vera = Path(reportlab.__file__).parent / "fonts" / "Vera.ttf"
    dejavu = ROOT / "pnp" / "draw" / "fallback-fonts" / "DejaVuSans.ttf"
    project = make_project(tmp_path)
    (project / "fonts").mkdir()
    font = project / "fonts" / "card.ttf"
    shutil.copyfile(vera, font)
    cards = project / "cards.yaml"
    cards.write_text(cards.read_text().replace(
        "  fonts: {}", "  fonts: {regular: fonts/card.ttf}", 1))
    w = Watcher(project, "--interval", "0.1", "--game", "x-statix", "--only", "owners")
    try:
        w.wait_for("build done")
        pdf = project / "output" / "x-statix" / "owners.pdf"
        assert base_fonts(pdf) == {"BitstreamVeraSans-Roman"}
        pid = w.proc.pid

        shutil.copyfile(dejavu, font)
        lines = w.wait_for("build done")
        assert any("fonts/card.ttf" in line and "restarting the watch" in line
                   for line in lines)
        assert any("first build" in line for line in lines)     # a fresh process
        assert "(1 artefacts rebuilt)" in lines[-1]
        assert base_fonts(pdf) == {"DejaVuSans"}
        assert w.proc.pid == pid and w.proc.poll() is None      # the same watch, execed
    finally:
        w.stop()
