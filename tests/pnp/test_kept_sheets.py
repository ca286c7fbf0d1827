"""Kept sheets (issue 36 item 2, pnp.artefacts.kept_sheets): an edit build shows the sheets
it kept instead of drawing them, and writes byte for byte the PDF a forced build writes."""

from __future__ import annotations

import json
import pickle
import shutil
import zlib
from pathlib import Path

import pytest

from pnp.artefacts.project_build import BuildOptions, build_project
from pnp.cli.init import write_project
from tests.harness import run_cli
from tests.pnp.ships import ship_row, write_ships

SHIPS = 40          # 5 sheets of 9 poker cards on Letter


def _row(i: int, text: str | None = None) -> str:
    return ship_row(i, text=text or None)


@pytest.fixture(scope="module")
def _pristine(tmp_path_factory) -> tuple[Path, Path]:
    """The module's playground (every test's project at the same path, `play/game`) and
    a snapshot of the starter grown to SHIPS ships, as written (`new/`) and after a first
    build (`built/`: the project, its `out` and its cache). Most tests edit a built
    project: each starts from a copy of the one first build instead of making its own
    (issue 34 item 3: the suite's CPU). The path is the same for every test because kept
    sheets, plans and compiled templates are per project folder; copies keep the
    snapshot's modification times, so whatever this process holds of a file a test
    edited is stale by its time, as after a user's edit."""
    root = tmp_path_factory.mktemp("kept-sheets")
    play, snapshot = root / "play", root / "snapshot"
    write_project(snapshot / "new" / "game", None)
    write_ships(snapshot / "new" / "game", [_row(i) for i in range(SHIPS)])
    shutil.copytree(snapshot / "new", play)
    with pytest.MonkeyPatch.context() as m:
        m.setenv("PNP_CACHE_DIR", str(play / "cache"))
        _build(play / "game", play / "out")
    shutil.copytree(play, snapshot / "built")
    return play, snapshot


def _restored(pristine: tuple[Path, Path], which: str, monkeypatch) -> Path:
    """The playground emptied and `which` snapshot copied in; the project's folder."""
    play, snapshot = pristine
    shutil.rmtree(play, ignore_errors=True)
    shutil.copytree(snapshot / which, play)
    monkeypatch.setenv("PNP_CACHE_DIR", str(play / "cache"))
    return play / "game"


@pytest.fixture
def play(_pristine) -> Path:
    """The folder of this test's project (`game`), outputs (`out`, `forced`) and cache."""
    return _pristine[0]


@pytest.fixture
def project(_pristine, monkeypatch) -> Path:
    """The project never built, its cache empty."""
    return _restored(_pristine, "new", monkeypatch)


@pytest.fixture
def built_project(_pristine, monkeypatch) -> Path:
    """The project after one `_build(project, play / "out")`: its PDF, build record,
    plans and kept sheets as that build left them."""
    return _restored(_pristine, "built", monkeypatch)


def _build(project: Path, out: Path, **options) -> dict[str, bytes]:
    build_project(project, BuildOptions(out=out, only="ships", **options))
    found = {p.name: p.read_bytes() for p in (out / "harbour").glob("ships.*")}
    record = sorted((out / ".pnp-builds").glob("[0-9]*.json"))[-1]
    found["record"] = json.dumps(json.loads(record.read_text())["cards"]).encode()
    return found


def _forced(project: Path, out: Path, monkeypatch, **options) -> dict[str, bytes]:
    """The same cards built with --force and no cache at all (nothing kept, nothing read)."""
    with monkeypatch.context() as m:
        m.setenv("PNP_CACHE_DIR", "off")
        return _build(project, out, force=True, **options)


def _kept_file(play: Path) -> Path:
    found = list((play / "cache" / "sheets").glob("*.pickle"))
    assert len(found) == 1, found
    return found[0]


MARK = b"% kept by the test"


def _mark_kept_pages(path: Path) -> int:
    """Give every kept page a content stream the build cannot have drawn; how many."""
    data = pickle.loads(path.read_bytes())
    count = 0
    for sheet in data["sheets"].values():
        for page in sheet.pages:
            page.content = zlib.compress(zlib.decompress(page.content) + b"\n" + MARK)
            count += 1
    path.write_bytes(pickle.dumps(data))
    return count


def _marked_pages(pdf: bytes) -> int:
    """How many page streams of `pdf` carry MARK (streams deflated, one per page)."""
    import re

    count = 0
    for stream in re.findall(rb"stream\r?\n(.*?)endstream", pdf, re.S):
        try:
            count += MARK in zlib.decompress(stream)
        except zlib.error:
            continue
    return count


def _edit(project: Path, index: int, text: str) -> None:
    ships = project / "ships.csv"
    lines = ships.read_text().splitlines()
    lines[index + 1] = _row(index, text)
    ships.write_text("\n".join(lines) + "\n")


def test_an_edit_shows_every_sheet_but_the_edited_cards(built_project, play):
    """Kept sheets are shown as kept (their marked streams are in the PDF) and only the
    sheet of the edited card (its front and back pages) is drawn again."""
    pages = _mark_kept_pages(_kept_file(play))
    # 5 sheets, fronts and backs: every one kept, the first (which names the fonts its
    # cards use first and makes the scale plate's form) and the last (4 cards: a scale
    # plate of its own) with what they made
    assert pages == 10
    _edit(built_project, 20, "Moves far in any weather.")                 # on the third sheet
    built = _build(built_project, play / "out")
    assert _marked_pages(built["ships.pdf"]) == pages - 2


@pytest.mark.parametrize("subtitle", ["Ships", "Ships of the Line"])
def test_the_back_is_kept_and_drawn_again_when_it_changes(built_project, play, monkeypatch,
                                                          subtitle):
    """The deck's back (a form drawn before any sheet, naming the fonts of its text first)
    is kept with the sheets: an edit build makes it again as kept, or draws it when the
    back changed (its subtitle here: other characters, so every sheet after it too),
    and the PDF and the build record are a forced build's."""
    from pnp.artefacts.kinds import deck

    cards = built_project / "cards.yaml"
    cards.write_text(cards.read_text().replace("subtitle: Ships}", f"subtitle: {subtitle}}}"))
    _edit(built_project, 20, "Moves far in any weather.")
    drawn = []
    draw = deck._back_form
    monkeypatch.setattr(deck, "_back_form", lambda *a: drawn.append(a) or draw(*a))
    built = _build(built_project, play / "out")
    assert len(drawn) == (subtitle != "Ships")
    assert built == _forced(built_project, play / "forced", monkeypatch)


def _shift_made(path: Path) -> tuple[int, int]:
    """Move the object counter of every kept sheet (or back) that made forms; how many
    sheets of pages and backs there are."""
    data = pickle.loads(path.read_bytes())
    made = [sheet for sheet in data["sheets"].values() if sheet.made is not None]
    assert all(sheet.made.forms() for sheet in made)
    for sheet in made:
        sheet.made.counter += 1
    path.write_bytes(pickle.dumps(data))
    return sum(1 for s in made if s.pages), sum(1 for s in made if not s.pages)


def test_a_sheet_that_made_forms_is_drawn_where_the_objects_are_numbered_otherwise(
        built_project, play, monkeypatch):
    """A kept sheet that made forms and named fonts is shown only where the document's
    objects stand as they stood when it was drawn: its forms would be numbered otherwise.
    Such a sheet is drawn again, and the PDF is still a forced build's."""
    # the back, the first sheet and the last
    assert _shift_made(_kept_file(play)) == (2, 1)
    _edit(built_project, 20, "Moves far in any weather.")        # on the third sheet
    assert _build(built_project, play / "out") == _forced(built_project, play / "forced",
                                                        monkeypatch)
    made, _ = _shift_made(_kept_file(play))
    _mark_kept_pages(_kept_file(play))
    _edit(built_project, 20, "Moves far in calm weather.")
    built = _build(built_project, play / "out")
    # of the 5 sheets (fronts and backs) the edited one and those that made forms drawn
    assert _marked_pages(built["ships.pdf"]) == 2 * (5 - 1 - made)


@pytest.mark.parametrize("edit", ["middle", "first", "last", "add", "remove", "new glyph",
                                  "new glyph first", "copies"])
def test_an_edit_build_is_byte_identical_to_a_forced_build(built_project, play, monkeypatch,
                                                           edit):
    """Whatever changed (a card in the middle, the first or last, a card added or removed,
    a character no card had drawn before (its font's codes shift for every later sheet),
    a card given copies), the PDF, the layout report and the build record are those of a
    forced build of the same cards."""
    _build(built_project, play / "out")       # every sheet kept and shown
    rows = [_row(i) for i in range(SHIPS)]
    if edit == "middle":
        rows[22] = _row(22, "Moves far in any weather.")
    elif edit == "first":
        rows[0] = _row(0, "Leads the fleet.")
    elif edit == "last":
        rows[-1] = _row(SHIPS - 1, "Trails the fleet.")
    elif edit == "add":
        rows.insert(13, _row(100))
    elif edit == "remove":
        del rows[13]
    elif edit == "new glyph":
        rows[22] = _row(22, "Sails to Ærø and Łódź.")
    elif edit == "new glyph first":
        rows[1] = _row(1, "Sails to Ærø and Łódź.")
    elif edit == "copies":
        rows[22] = rows[22].replace(",1,Moves", ",3,Moves")
    write_ships(built_project, rows)
    incremental = _build(built_project, play / "out")
    assert incremental == _forced(built_project, play / "forced", monkeypatch)
    assert _build(built_project, play / "out") == incremental    # and once more, all kept


def test_an_edit_build_is_byte_identical_whatever_jobs(project, play, monkeypatch):
    _build(project, play / "out", jobs=2)
    _edit(project, 5, "Moves far in any weather.")
    two = _build(project, play / "out", jobs=2)
    _edit(project, 6, "Moves far in fog.")
    one = _build(project, play / "out", jobs=1)
    forced = _forced(project, play / "forced", monkeypatch, jobs=2)
    assert one == forced
    assert two["ships.pdf"] != one["ships.pdf"]


def test_fold_sheets_are_kept_too(project, play, monkeypatch):
    _build(project, play / "out", fold=True)
    pages = _mark_kept_pages(_kept_file(play))
    assert pages > 2
    _edit(project, 20, "Moves far in any weather.")
    built = _build(project, play / "out", fold=True)
    assert _marked_pages(built["ships.pdf"]) == pages - 1
    assert _build(project, play / "again", fold=True, force=True) == _forced(
        project, play / "forced", monkeypatch, fold=True)


def test_kept_fronts_are_told_as_kept_faces_or_as_plans_reused(built_project, play,
                                                                monkeypatch, resident):
    """An observer that takes kept faces (observe_faces' `kept`) is told each front of a
    kept sheet as a KeptFace, and nothing is planned for it; one that does not is told
    it as a plan reused (a PlannedFace, its ops the card's). Every front is told once,
    and the build record is still the forced build's."""
    from pnp.artefacts import project_build
    from pnp.draw import render

    _edit(built_project, 20, "Moves far in any weather.")                 # on the third sheet
    plain: list = []
    taking: list = []
    made = project_build.checked_renderer

    def observed(*args, **kwargs):
        renderer = made(*args, **kwargs)
        renderer.observe_faces(plain.append)
        renderer.observe_faces(lambda face: taking.append(("planned", face)),
                               kept=lambda face: taking.append(("kept", face)))
        return renderer

    monkeypatch.setattr(project_build, "checked_renderer", observed)
    built = _build(built_project, play / "out")
    monkeypatch.setattr(project_build, "checked_renderer", made)
    assert built == _forced(built_project, play / "forced", monkeypatch)
    kept = [face for how, face in taking if how == "kept"]
    assert len(kept) == SHIPS - 9 and all(type(f) is render.KeptFace for f in kept)
    assert "Ship 20" not in {f.card for f in kept}
    cards = [f.target.card for f in plain if f.target.card != "(back)"]
    assert sorted(cards) == sorted({f.card for f in kept} | {
        f.target.card for how, f in taking if how == "planned" and f.target.card != "(back)"})
    assert len(cards) == SHIPS == len(set(cards))
    reused = next(f for f in plain if f.target.card == kept[0].card)
    assert reused.memo == kept[0].memo and reused.ops
    # with only observers that take kept faces, a kept front's target is never made (in
    # a resident process, whose plan keys are kept: else each key needs one)
    fronts: list = []
    front = render.CardRenderer._front
    monkeypatch.setattr(render.CardRenderer, "_front",
                        lambda self, card, *a: fronts.append(card.name) or front(self, card, *a))
    _edit(built_project, 21, "Moves far in no weather.")                  # the third sheet again
    _build(built_project, play / "out")
    assert fronts and set(fronts) <= {f"Ship {i}" for i in range(18, 27)}


def test_a_forced_build_shows_no_kept_sheet(built_project, play, monkeypatch):
    _mark_kept_pages(_kept_file(play))
    forced = _build(built_project, play / "out", force=True)
    assert _marked_pages(forced["ships.pdf"]) == 0
    assert forced == _forced(built_project, play / "forced", monkeypatch)


def test_other_options_keep_nothing_of_these(built_project, play, monkeypatch):
    """A sheet kept on Letter is not shown on A4 (the file's header differs)."""
    _mark_kept_pages(_kept_file(play))
    a4 = _build(built_project, play / "out", paper="a4")
    assert _marked_pages(a4["ships.pdf"]) == 0
    assert a4 == _forced(built_project, play / "forced", monkeypatch, paper="a4")


def test_a_damaged_kept_file_is_a_note_and_every_sheet_drawn(built_project, play,
                                                             monkeypatch):
    kept = _kept_file(play)
    kept.write_bytes(b"not a pickle at all")
    _edit(built_project, 20, "Moves far in any weather.")
    env = {"PNP_CACHE_DIR": str(play / "cache")}
    args = ("build", "--only", "ships", "--out", str(play / "out"))
    result = run_cli("pnp", *args, cwd=built_project, env=env)
    assert result.returncode == 0, result.stderr
    said = result.stdout + result.stderr
    assert "kept sheets of deck 'ships' unreadable" in said and "Traceback" not in said
    forced = _forced(built_project, play / "forced", monkeypatch)
    assert (play / "out" / "harbour" / "ships.pdf").read_bytes() == forced["ships.pdf"]
    assert pickle.loads(kept.read_bytes())["sheets"]       # written anew


def test_a_kept_sheet_whose_card_looks_up_another_is_drawn_when_that_one_changes(
        project, play, monkeypatch):
    """A template that reads another card (card_named): the plan key of the reading card
    does not change, its kept sheet is still drawn again (as the plan store checks it)."""
    template = project / "templates" / "harbour" / "ship.j2"
    text = template.read_text()
    template.write_text(text + "\n{% if card.name == 'Ship 30' %}"
                               "{% set other = card_named('Ship 0') %}\n"
                               "- text: {id: other, box: [6, 60, 40, 5], markup: false, "
                               "size: 8, text: {{ other.text[:12] }}}\n{% endif %}\n")
    _build(project, play / "out")
    pages = _mark_kept_pages(_kept_file(play))
    _edit(project, 0, "Leads the fleet.")
    built = _build(project, play / "out")
    # the first sheet (Ship 0, edited) and the fourth (Ship 30, which reads it) are
    # drawn again
    assert _marked_pages(built["ships.pdf"]) == pages - 4
    _kept_file(play).unlink()           # kept again unmarked, then edited again
    _build(project, play / "out", force=True)
    _edit(project, 0, "Leads the whole fleet.")
    assert _build(project, play / "out") == _forced(project, play / "forced",
                                                          monkeypatch)


@pytest.fixture
def resident(monkeypatch):
    """A resident process (`pnp watch`): kept sheets held in memory between builds."""
    from pnp.artefacts import kept_sheets
    from pnp.draw import render
    from pnp.draw.recent import RecentCache

    monkeypatch.setattr(kept_sheets, "_held", {})
    monkeypatch.setattr(kept_sheets, "_holding", True)     # as kept_sheets.hold() does
    monkeypatch.setattr(render, "_front_keys", RecentCache(16))     # and hold_front_keys()


@pytest.mark.parametrize("edit", ["middle", "new glyph first", "add"])
def test_a_resident_process_builds_edits_as_a_forced_build_without_reading_the_file(
        project, play, monkeypatch, resident, edit):
    """Held sheets are shown (the file is not read again) and the PDF is the forced
    build's, edit after edit."""
    from pnp.artefacts import kept_sheets

    _build(project, play / "out")
    reads: list = []
    load = pickle.load

    def counted(file):
        reads.append(Path(file.name).parent.name)
        return load(file)

    monkeypatch.setattr(kept_sheets.pickle, "load", counted)
    rows = [_row(i) for i in range(SHIPS)]
    for step in range(2):
        if edit == "middle":
            rows[22 - step] = _row(22 - step, f"Moves far in weather {step}.")
        elif edit == "new glyph first":
            rows[1 + step] = _row(1 + step, "Sails to Ærø and Łódź." + " Again" * step)
        else:
            rows.insert(13, _row(100 + step))
        write_ships(project, rows)
        incremental = _build(project, play / "out")
        assert incremental == _forced(project, play / "forced", monkeypatch)
    assert "sheets" not in reads


def test_a_resident_process_reads_a_kept_file_changed_by_another(project, play,
                                                                  resident):
    """The file written by another process since (here: the test's marks) is read again,
    not the sheets held."""
    _build(project, play / "out")
    pages = _mark_kept_pages(_kept_file(play))
    _edit(project, 20, "Moves far in any weather.")
    built = _build(project, play / "out")
    assert _marked_pages(built["ships.pdf"]) == pages - 2


def test_a_resident_process_keeps_plan_keys_of_cards_as_they_were(project, play,
                                                                   monkeypatch, resident):
    """A card reloaded with the same values keeps its plan key (pnp.draw.render
    front_key: not digested again); cards moved, deleted, edited or restyled by a
    template edit are built, edit after edit, as a forced build builds them."""
    from pnp.draw import render

    _build(project, play / "out")
    digested: list = []         # the cards whose key front_key digested (not kept)
    asked: list = []
    digest, front_key = render.CardRenderer._front_key, render.CardRenderer.front_key

    def asking(self, card, *args):
        asked.append(card)
        try:
            return front_key(self, card, *args)
        finally:
            asked.pop()

    def counted(self, card, *args):
        if asked and asked[-1] is card:
            digested.append(card.name)
        return digest(self, card, *args)

    monkeypatch.setattr(render.CardRenderer, "front_key", asking)
    monkeypatch.setattr(render.CardRenderer, "_front_key", counted)
    rows = [_row(i) for i in range(SHIPS)]
    template = project / "templates" / "harbour" / "ship.j2"
    for edit in ("move", "delete", "restyle", "edit"):
        digested.clear()
        if edit == "move":
            rows[12], rows[30] = rows[30], rows[12]
        elif edit == "delete":
            del rows[14]
        elif edit == "restyle":
            template.write_text(template.read_text() + "\n- text: {id: mark, box: [6, 60, 40, 5], "
                                "markup: false, size: 8, text: restyled}\n")
        else:
            rows[rows.index(_row(22))] = _row(22, "Moves far in any weather.")
        write_ships(project, rows)
        incremental = _build(project, play / "out")
        assert incremental == _forced(project, play / "forced", monkeypatch), edit
        if edit in ("restyle", "delete"):    # every key is another (a card template
            # sees the deck's count)
            assert len(set(digested)) == len(rows), edit
        elif edit == "move":                 # a card moved keeps its key
            assert digested == [], edit
        else:                                # the edited card's key only
            assert set(digested) == {"Ship 22"}, edit


def test_a_plan_key_is_kept_only_for_a_card_of_the_same_repr():
    """Equal values of other types (a bool for an int) or in another order are another
    card context, so another key: a kept key is never taken for them."""
    from dataclasses import replace

    from pnp.draw import card_shape

    card = card_shape.shape
    same = card_shape.same
    import carddb.model as m

    ship = m.Card("Ship 1", "ship", "Moves.", 1, "harbour", "ships",
                  {"speed": 1, "flag": "red"}, m.Source("ships.csv", 2, 1))
    kept = (ship, card(ship), "key")
    assert same(kept, replace(ship, source=m.Source("ships.csv", 9, 1)))
    assert not same(kept, replace(ship, fields={"speed": True, "flag": "red"}))
    assert not same(kept, replace(ship, fields={"flag": "red", "speed": 1}))
    assert not same(kept, replace(ship, copies=True))

    class Tagged(str):
        def __repr__(self) -> str:
            return f"Tagged({str(self)!r})"

    assert not same(kept, replace(ship, name=Tagged("Ship 1")))     # equal, another repr
    assert not same(kept, replace(ship, fields={"speed": 1, "flag": "red", "cargo": 2}))
    assert not same(kept, replace(ship, text="Moves far."))
    assert card(replace(ship, fields={"speed": 1.0})) is None        # floats: never kept
    assert card(replace(ship, fields={"powers": ["a"]})) is None     # containers: never kept


def test_kept_sheets_are_written_once_the_pdf_is_in_place(built_project, play, monkeypatch):
    """An edit build writes its kept sheets after it put its PDF in place (a watch's
    save-to-PDF time does not include pickling the deck's sheets), and they are read
    by the next build as before."""
    from pnp.artefacts import kept_sheets

    _edit(built_project, 20, "Moves far in any weather.")
    pdf = play / "out" / "harbour" / "ships.pdf"
    before = pdf.read_bytes()
    seen: list[bytes] = []
    write = kept_sheets.KeptSheets._write

    def watched(self):
        seen.append(pdf.read_bytes())
        write(self)

    monkeypatch.setattr(kept_sheets.KeptSheets, "_write", watched)
    built = _build(built_project, play / "out")
    assert seen == [built["ships.pdf"]] and seen[0] != before
    _mark_kept_pages(_kept_file(play))
    _edit(built_project, 21, "Moves far in fog.")
    # every sheet but the third (with the edited card, drawn) shown as kept, fronts and
    # backs: the first and the last are kept too (they name fonts first, make forms)
    assert _marked_pages(_build(built_project, play / "out")["ships.pdf"]) == 8


def test_a_layout_report_with_pages_shown_again_is_json_dumps_of_it():
    """Pages shown again are written from their kept entry's JSON: the report is
    byte for byte json.dumps' (non-ASCII names, floats), also when the kept entry is
    shown again under another number, and a report of another shape is json.dumps'."""
    from pnp.artefacts.build import layout_json
    from pnp.artefacts.sheet import ShownAgain

    kept = {"page": 3, "size_mm": [215.9, 279.4], "side": "front",
            "cards": [{"name": 'Ship "Ærø" 1', "trim_mm": [12.7, 18.288, 63.5, 88.9]}]}

    def shown(number: int) -> ShownAgain:
        page = ShownAgain(kept)
        page["page"] = number
        page.kept = kept
        return page

    drawn = {"page": 1, "size_mm": [215.9, 279.4], "side": "back", "cards": []}
    for pages in ([drawn, shown(2), shown(7)], [shown(4)], []):
        report = {"artefacts": [{"path": "harbour/ships.pdf", "pages": pages}]}
        assert layout_json(report) == json.dumps(report, separators=(",", ":"))
    other = {"artefacts": [{"pages": [shown(2)], "path": "x.pdf"}]}
    assert layout_json(other) == json.dumps(other, separators=(",", ":"))
