"""Issue 24 item 3: the renderer's public face hook (the reprint record listens on it),
no state on ReportLab's objects, the cut-guide style as data in `print:`, and the
build record's format version (`pnp diff` across an upgrade)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import carddb
from pnp.artefacts import drawn
from pnp.artefacts.project_build import BuildOptions, build_project
from pnp.cli.init import write_project
from pnp.errors import PnpError


@pytest.fixture
def starter(tmp_path) -> Path:
    folder = tmp_path / "game"
    write_project(folder, None)
    return folder


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


def _guides(pdf: Path) -> list[str]:
    """The stroke blocks of the cut guides in a PDF's first page."""
    from pypdf import PdfReader

    content = PdfReader(pdf).pages[0].get_contents().get_data().decode("latin-1")
    return re.findall(r"q [\d.]+ w [^q]*? 0 J (?:\[[\d. ]*\] 0 d )?[\d.\- ]+ m .*? S Q", content)


def test_cut_guides_take_their_style_from_print(starter):
    out = starter / "output"
    build_project(starter, BuildOptions(only="ships"))
    plain = _guides(out / "harbour" / "ships.pdf")
    assert plain and any(b.startswith("q 0.5 w 0 G 0 J ") for b in plain)
    assert any(b.startswith("q 1.5 w 1 G 0 J ") for b in plain)     # the white halo
    cards = starter / "cards.yaml"
    cards.write_text(cards.read_text().replace(
        "  crop_marks: true\n", '  crop_marks: true\n  cut_guides: {color: "#ff0000", '
        "width: 0.3, halo: 0, dash: [3, 1]}\n"))
    build_project(starter, BuildOptions(only="ships"))
    styled = _guides(out / "harbour" / "ships.pdf")
    assert styled and not any(" 1 G " in b for b in styled)            # no halo
    assert any(b.startswith("q 0.3 w 1 0 0 RG 0 J [3 1] 0 d ") for b in styled)
    assert any(b.startswith("q 0.25 w 1 0 0 RG 0 J [3 1] 0 d ") for b in styled)  # marks


@pytest.mark.parametrize("value, message", [
    ("{width: 9}", "print.cut_guides.width"),
    ('{color: "red"}', "print.cut_guides.color"),
    ("{dash: [1, 2, 3, 4, 5]}", "print.cut_guides.dash"),
    ("{glow: 1}", "print.cut_guides"),
])
def test_a_bad_cut_guide_style_is_located_in_cards_yaml(starter, value, message):
    cards = starter / "cards.yaml"
    cards.write_text(cards.read_text().replace(
        "  crop_marks: true\n", f"  crop_marks: true\n  cut_guides: {value}\n"))
    line = cards.read_text().splitlines().index(f"  cut_guides: {value}") + 1
    with pytest.raises(carddb.DatabaseError) as caught:
        carddb.load(cards)
    first = str(caught.value.problems[0])
    assert re.search(rf"cards\.yaml:{line}:\d+: ", first) and message in first


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
    run = subprocess.run([sys.executable, "-m", "pnp", "diff", "--project", str(starter)],
                         capture_output=True, text=True)
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "record format changed" in run.stderr
    assert "format 1" in run.stderr and "changed" not in run.stderr.replace(
        "format changed", "")
    build_project(starter, BuildOptions(force=True))        # records format 2 anew
    from pnp.exports.diff import changes

    with pytest.raises(PnpError, match="record format changed: build 1"):
        changes(out, starter, None)
    assert changes(out, starter, "2").reprint == []
