"""Issue 24 item 3: the renderer's public face hook (the reprint record listens on it),
no state on ReportLab's objects, the cut-guide style as data in `print:`, and the
build record's format version (`pnp diff` across an upgrade)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pnp.artefacts import drawn
from pnp.artefacts.project_build import BuildOptions, build_project
from pnp.cli.init import write_project
from pnp.errors import PnpError
from tests.harness import run_cli
from tests.pnp.starter_copies import fresh_copy


@pytest.fixture(scope="module")
def _starter(tmp_path_factory) -> Path:
    """A `pnp init` project (written once; each test edits a copy)."""
    folder = tmp_path_factory.mktemp("starter") / "game"
    write_project(folder, None)
    return folder


@pytest.fixture
def starter(_starter, playground) -> Path:
    """A fresh copy of the starter, at one path for every test (tests/pnp/starter_copies)."""
    return fresh_copy(_starter, playground)


def test_the_renderer_tells_each_planned_face_once_to_its_observers(db, fonts):
    from reportlab.pdfgen.canvas import Canvas

    from pnp.draw.render import CardRenderer, PlannedFace

    renderer = CardRenderer(db, fonts)
    seen: list[PlannedFace] = []
    renderer.observe_faces(seen.append)
    deck = db.games["x-statix"].decks["owners"]
    card = deck.cards[0]
    canvas = Canvas("unused.pdf", invariant=1)
    for _ in range(2):                       # the second draw reuses the plan: not told
        renderer.draw_front(canvas, card, deck, 0, 0, 180, 252, 9)
    assert [(f.target.deck, f.target.card) for f in seen] == [("owners", card.name)]
    face = seen[0]
    assert face.template == "x-statix/owner.j2" and face.ops
    # replan: the same face with the stamp emptied, its own plan untouched
    edges = face.target.edges
    again = face.replan({k: "" for k in face.stamp})
    assert [op.as_tuple() for _, op in again] and face.target.edges == edges
    assert not any(k.startswith("_pnp") for k in vars(canvas))   # nothing kept on it


def test_the_record_uses_the_hook_through_wrappers_and_not_the_renderer_internals(db, fonts):
    """The Recorder subscribes through CheckedRenderer (which passes attributes on); a
    renderer that replaced `_plan` by hand would be invisible to it."""
    from reportlab.pdfgen.canvas import Canvas

    from pnp.draw.checks import CheckedRenderer
    from pnp.draw.render import CardRenderer

    inner = CardRenderer(db, fonts)
    recorder = drawn.Recorder(db, CheckedRenderer(inner))
    assert recorder.observing and inner.face_observers == [recorder.seen]
    deck = db.games["x-statix"].decks["owners"]
    canvas = Canvas("unused.pdf", invariant=1)
    for card in deck.cards:
        inner.draw_front(canvas, card, deck, 0, 0, 180, 252, 9)
    inner.draw_back(canvas, deck, 0, 0, 180, 252, 9)
    entries = drawn.deck_entries(db, recorder, "x-statix", "owners")
    assert entries and all(re.fullmatch("[0-9a-f]{64}", e["front"]) for e in entries.values())
    assert len({e["front"] for e in entries.values()}) == len(deck.cards)
    # a stand-in renderer without the hook records nothing (and does not break)
    assert not drawn.Recorder(db, object()).observing


def test_a_faces_hash_leaves_the_version_stamp_out(starter):
    """A template showing {{ version }}: the hash is the same whatever the release says."""
    look = starter / "templates" / "harbour" / "storm.j2"
    look.write_text(look.read_text() + '\n- text: {box: [6, 80, 40, 5], text: {{ version }}, '
                    'size: 7, markup: false}\n')
    cards = starter / "cards.yaml"
    hashes = []
    for version in ("1.0", "2.0"):
        text = re.sub(r"(?m)^release:.*\n(  .*\n)*", "", cards.read_text())
        cards.write_text(text + f'release: {{version: "{version}"}}\n')
        build_project(starter, BuildOptions(only="storms", force=True))
        hashes.append(drawn.latest(starter / "output")["cards"])
    assert hashes[0] == hashes[1]


def test_pnp_diff_across_a_record_format_change_says_so(starter):
    """A record of format 1 (written before records had a format) against today's: the
    hashes are made differently, so the cards are not compared."""
    out = starter / "output"
    build_project(starter, BuildOptions())
    first = drawn.records(out)[-1]
    old = json.loads(first.read_text())
    assert old["format"] == drawn.FORMAT
    del old["format"]
    old["cards"] = {k: {**v, "front": "0" * 64} for k, v in old["cards"].items()}
    first.write_text(json.dumps(old))
    run = run_cli("pnp", "diff", "--project", str(starter))
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "record format changed" in run.stderr
    assert "format 1" in run.stderr and "changed" not in run.stderr.replace(
        "format changed", "")
    build_project(starter, BuildOptions(force=True))        # records format 2 anew
    from pnp.exports.diff import changes

    with pytest.raises(PnpError, match="record format changed: build 1"):
        changes(out, starter, None)
    assert changes(out, starter, "2").reprint == []


def test_the_latest_record_is_read_again_only_when_its_file_changed(starter, tmp_path,
                                                                    monkeypatch):
    """A build reads the latest build record (to know it may skip, then to add to it)
    once, and the record it writes is the next build's without reading it; a record
    file changed since (another process, a hand edit) is read again."""
    out = tmp_path / "out"
    build_project(starter, BuildOptions(out=out))
    reads: list = []
    read = drawn.read_record
    monkeypatch.setattr(drawn, "read_record", lambda path: reads.append(path) or read(path))
    ships = starter / "ships.csv"
    ships.write_text(ships.read_text().replace("Ignores the first Squall.",
                                               "Ignores every Squall.", 1))
    report = build_project(starter, BuildOptions(out=out))
    assert [a.name for a in report.built] == ["ships"]
    assert reads == []                      # the one the build before wrote, held
    assert len(drawn.records(out)) == 2
    newest = drawn.records(out)[-1]
    record = json.loads(newest.read_text())
    assert drawn.latest(out) == record and reads == []
    record["cards"] = {}
    newest.write_text(json.dumps(record) + "\n")
    assert drawn.latest(out) == record and reads == [newest]
