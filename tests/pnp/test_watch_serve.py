"""`pnp watch --serve` (issue 32): the proof gallery served with an event after each
build naming the changed images; only the changed cards are proofed; the page in
headless Chromium swaps the image after a template edit by itself, shows a broken save's
one-line error and clears it on the next good build."""

from __future__ import annotations

import json
import queue
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests._browser import CHROMIUM, SKIP_REASON, Browser  # noqa: E402
from tests.pnp.test_watch import Watcher  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def starter(tmp_path: Path) -> Path:
    from pnp.cli.init import write_project

    project = tmp_path / "game"
    write_project(project, None)
    return project


def serve(project: Path, tmp_path: Path) -> tuple[Watcher, str]:
    watch = Watcher(project, "--serve", "--port", "0", "--only", "ships")
    url = watch.wait_for("serving the proof gallery: ")[-1].split("gallery: ")[1].split()[0]
    assert url.startswith("http://127.0.0.1:")  # loopback only
    watch.wait_for("build done")
    return watch, url


class Stream:
    """The gallery's events, read by a thread (bounded waits)."""

    def __init__(self, url: str) -> None:
        self.events: queue.Queue = queue.Queue()
        self.opened = threading.Event()
        threading.Thread(target=self._read, args=(url,), daemon=True).start()
        assert self.opened.wait(10)

    def _read(self, url: str) -> None:
        with urllib.request.urlopen(url, timeout=120) as stream:
            self.opened.set()
            for raw in stream:
                line = raw.decode()
                if line.startswith("data: "):
                    self.events.put(json.loads(line[6:]))

    def next(self, timeout: float = 60) -> dict:
        return self.events.get(timeout=timeout)


def test_one_card_edit_proofs_and_names_only_that_card_and_errors_are_one_line(tmp_path):
    project = starter(tmp_path)
    watch, url = serve(project, tmp_path)
    try:
        assert "harbour/ships/the-gull.png" in urllib.request.urlopen(url, timeout=10).read(
            ).decode()
        stream = Stream(url + "events")
        ships = project / "ships.csv"
        gull = (project / "output/proof/harbour/ships/the-gull.png").read_bytes()
        maiden = project / "output/proof/harbour/ships/iron-maiden.png"
        maiden_time = maiden.stat().st_mtime_ns
        ships.write_text(ships.read_text().replace("in calm weather", "in any weather"))
        event = stream.next()
        assert event["changed"] == ["harbour/ships/the-gull.png"] and event["error"] is None
        assert (project / "output/proof/harbour/ships/the-gull.png").read_bytes() != gull
        assert maiden.stat().st_mtime_ns == maiden_time  # not proofed again
        served = urllib.request.urlopen(url + "harbour/ships/the-gull.png", timeout=10).read()
        assert served == (project / "output/proof/harbour/ships/the-gull.png").read_bytes()
        watch.wait_for("build done")
        cards = project / "cards.yaml"
        good = cards.read_text()
        cards.write_text(good + "\n  broken: [\n")
        broken = stream.next()
        assert broken["changed"] == [] and "cards.yaml:" in broken["error"]
        assert "\n" not in broken["error"]
        cards.write_text(good)
        assert stream.next()["error"] is None
        with pytest.raises(urllib.error.HTTPError):  # nothing outside the proof folder
            urllib.request.urlopen(url + "..%2Fcards.yaml", timeout=10)
    finally:
        watch.stop()


@pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON)
def test_the_open_page_swaps_the_image_after_a_template_edit(tmp_path):
    project = starter(tmp_path)
    watch, url = serve(project, tmp_path)
    browser = Browser(tmp_path / "profile", 1280, 900)
    image = "img[src^='harbour/ships/the-gull.png']"
    try:
        browser.open(url)
        browser.wait_for(f"document.querySelector(\"{image}\") && "
                         f"document.querySelector(\"{image}\").complete")
        browser.js("window.sameDocument = true")
        template = project / "templates/harbour/ship.j2"
        template.write_text(template.read_text().replace('"blue": "#1d5c8c"',
                                                         '"blue": "#00ff00"'))
        src = browser.wait_for(f"window.sameDocument && document.querySelector(\"{image}\")"
                               ".getAttribute('src').includes('?v=') && "
                               f"document.querySelector(\"{image}\").getAttribute('src')", 30)
        assert src.startswith("harbour/ships/the-gull.png?v=")
        # a broken save: the page says it in one line; the next good one clears it
        good = template.read_text()
        template.write_text(good.replace("{% set color", "{% set color = (", 1))
        error = browser.wait_for("!document.getElementById('pnp-live-error').hidden && "
                                 "document.getElementById('pnp-live-error').textContent", 30)
        assert "ship.j2" in error and "\n" not in error
        template.write_text(good)
        browser.wait_for("document.getElementById('pnp-live-error').hidden", 30)
        assert browser.js("window.sameDocument") is True  # never reloaded
    finally:
        browser.close()
        watch.stop()


def test_live_proof_redraws_only_what_changed_and_a_restart_nothing(tmp_path):
    import carddb
    from pnp.cli.support import make_renderer
    from pnp.exports.live_proof import LiveProof

    project = starter(tmp_path)
    out = tmp_path / "proof"

    def update(live: LiveProof) -> list[str]:
        db = carddb.load(project / "cards.yaml")
        return live.update(db, make_renderer(db))

    live = LiveProof(out)
    first = update(live)
    assert len(first) == 13 and (out / "index.html").exists()  # every face: 11 cards, 2 backs
    assert update(live) == [] and not live.index_changed
    assert update(LiveProof(out)) == []  # a restarted watch: nothing to proof again
    storm = project / "templates/harbour/storm.j2"
    storm.write_text(storm.read_text() + "\n")  # every Storm front, nothing else
    assert sorted(update(live)) == sorted(p for p in first if "/storms/" in p and
                                          not p.endswith("back.png"))
    ships = project / "ships.csv"
    ships.write_text(ships.read_text().replace("The Gull,", "The Seagull,"))
    renamed = update(live)
    assert renamed == ["harbour/ships/the-seagull.png"] and live.index_changed
    index = (out / "index.html").read_text()
    assert "the-seagull.png" in index and "the-gull.png" not in index
