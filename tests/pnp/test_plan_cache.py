"""Issue 24 item 5: card plans kept across builds (pnp.draw.plan_cache), keyed by what
they depend on: an edited card is planned again, the others are not; an edited template
(or one it imports) plans all its cards again; the output is the same byte for byte."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import carddb
from pnp.artefacts.project_build import BuildOptions, build_project
from pnp.cli.init import write_project
from pnp.draw import plan_cache
from pnp.draw.fonts import register_fonts
from pnp.draw.render import CardRenderer
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


def _plan_all(project: Path, where: Path, read: bool = True) -> tuple[plan_cache.PlanStore,
                                                                     list[str]]:
    """Plan every front of the starter (as a build does) with a store in `where`; the
    names of the cards planned afresh."""
    db = carddb.load(project / "cards.yaml")
    renderer = CardRenderer(db, register_fonts(db.print.fonts, db.root))
    store = renderer.plan_store = plan_cache.PlanStore(where, read=read)
    fresh: list[str] = []
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas("unused.pdf", invariant=1)
    for deck in db.games["harbour"].decks.values():
        for card in deck.cards:
            before = store.misses
            renderer.draw_front(canvas, card, deck, 0, 0, 180, 252, 9)
            if store.misses > before:
                fresh.append(card.name)
    store.save()
    return store, fresh


def test_only_the_edited_card_is_planned_again(starter, tmp_path):
    where = tmp_path / "plans"
    store, fresh = _plan_all(starter, where)
    total = len(fresh)
    assert total > 5 and store.hits == 0
    store, fresh = _plan_all(starter, where)
    assert fresh == [] and store.hits == total
    ships = starter / "ships.csv"
    ships.write_text(ships.read_text().replace("Moves 1 extra in calm weather.",
                                               "Moves 2 extra in calm weather."))
    store, fresh = _plan_all(starter, where)
    assert fresh == ["The Gull"] and store.hits == total - 1
    store, fresh = _plan_all(starter, where, read=False)       # --force: all planned
    assert len(fresh) == total


def _files(where: Path) -> dict[str, tuple[int, int]]:
    """Each plan file's inode and mtime: a file written again (atomically) is a new one."""
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in where.glob("*.pickle")}


def test_a_forced_build_plans_every_front_and_stores_only_what_it_lacks(starter, tmp_path):
    """Issue 36 item 1: --force pickles no plan the store already holds under its key."""
    where = tmp_path / "plans"
    _, every = _plan_all(starter, where)
    files = _files(where)
    store, fresh = _plan_all(starter, where, read=False)
    assert fresh == every and store.hits == 0
    assert _files(where) == files                           # nothing written again
    ships = starter / "ships.csv"
    ships.write_text(ships.read_text().replace("Moves 1 extra", "Moves 4 extra"))
    store, fresh = _plan_all(starter, where, read=False)    # the Gull's new plan stored
    assert fresh == every and _files(where) != files
    store, fresh = _plan_all(starter, where)
    assert fresh == [] and store.hits == len(every)


def test_an_edited_template_or_one_it_imports_plans_all_its_cards_again(starter, tmp_path):
    where = tmp_path / "plans"
    _, every = _plan_all(starter, where)
    storm = starter / "templates" / "harbour" / "storm.j2"
    storm.write_text(storm.read_text() + "- rect: {box: [1, 1, 2, 2], fill: '#ff0000'}\n")
    _, fresh = _plan_all(starter, where)
    storms = [c.name for c in carddb.load(starter / "cards.yaml").games["harbour"]
              .decks["storms"].cards]
    assert fresh == storms
    look = starter / "templates" / "harbour" / "_look.j2"      # imported by both
    look.write_text(look.read_text() + "\n{# a comment changes the source #}\n")
    _, fresh = _plan_all(starter, where)
    assert fresh == every


def test_a_card_named_look_up_and_an_image_are_checked_on_a_hit(starter, tmp_path):
    """A template that shows another card: editing that card plans this one again."""
    where = tmp_path / "plans"
    storm = starter / "templates" / "harbour" / "storm.j2"
    storm.write_text(storm.read_text() + '{% set g = card_named("The Gull") %}\n'
                     "- text: {box: [6, 80, 40, 5], text: {{ g.text }}, size: 7, "
                     "markup: false}\n")
    _, every = _plan_all(starter, where)
    ships = starter / "ships.csv"
    ships.write_text(ships.read_text().replace("Moves 1 extra", "Moves 3 extra"))
    _, fresh = _plan_all(starter, where)
    storms = [c.name for c in carddb.load(starter / "cards.yaml").games["harbour"]
              .decks["storms"].cards]
    assert fresh == ["The Gull", *storms]


def _digests(out: Path) -> dict[str, str]:
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*.pdf"))}


def test_the_output_is_byte_identical_with_and_without_the_cache(starter, tmp_path,
                                                                 monkeypatch):
    monkeypatch.setenv("PNP_CACHE_DIR", "off")
    build_project(starter, BuildOptions(out=tmp_path / "none"))
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    build_project(starter, BuildOptions(out=tmp_path / "cold"))
    assert list((tmp_path / "cache" / "plans").glob("*.pickle"))
    build_project(starter, BuildOptions(out=tmp_path / "warm"))       # every plan a hit
    none = _digests(tmp_path / "none")
    assert none and _digests(tmp_path / "cold") == none == _digests(tmp_path / "warm")
    records = [(tmp_path / d / ".pnp-builds" / "0001.json").read_text()
               for d in ("none", "warm")]
    assert records[0] == records[1]


def test_an_unreadable_plan_file_is_a_miss(starter, tmp_path):
    where = tmp_path / "plans"
    _, every = _plan_all(starter, where)
    for path in where.glob("*.pickle"):
        path.write_bytes(b"not a pickle")
    _, fresh = _plan_all(starter, where)
    assert fresh == every


def test_a_stored_plan_drawing_a_fallback_glyph_registers_its_font(starter, tmp_path):
    """Fallback fonts are registered when planning first needs them; a plan taken from
    the store (a fresh process that planned nothing) must register them too."""
    from tests.harness import run_process

    cards = starter / "cards.yaml"
    cards.write_text(cards.read_text().replace("No ship may move more than 2 this round.",
                                               "No ship may move \u2192 more than 2 \u2605."))
    env = {"PNP_CACHE_DIR": str(tmp_path / "cache")}
    pdfs = []
    for n in (1, 2):
        out = tmp_path / f"out{n}"
        # a fresh process each time is the point: the second one plans nothing itself
        run = run_process("pnp", "build", "--project", str(starter), "--only", "storms",
                          "--out", str(out), env=env)
        assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
        pdfs.append((out / "harbour" / "storms.pdf").read_bytes())
    assert pdfs[0] == pdfs[1]


def test_plans_beyond_hot_are_held_packed_and_come_back_whole(tmp_path, monkeypatch):
    """Issue 36 item 4: a store holds only the HOT most recent plans as objects, the
    others packed; what was packed, and a memo grown in place and told (`changed`),
    reads back the same after `save`."""
    monkeypatch.setattr(plan_cache, "HOT", 2)
    where = tmp_path / "plans"
    store = plan_cache.PlanStore(where)
    entries = {f"{i:x}{i}": ("design", [("line", i)], b"ops", [], (), {}, {}, {}, frozenset())
               for i in range(6)}
    for key, entry in entries.items():
        store.put("g/d", key, entry)
    assert len(store._hot) == 2
    # packed: in the spill file beside the plans, only their places in memory
    assert sum(p is not None for b in store._buckets.values() for p in b.values()) == 4
    assert not any(isinstance(p, bytes) for b in store._buckets.values() for p in b.values())
    last = list(entries)[-1]
    store.get("g/d", last)[7]["grown"] = 1          # its memo grows while it is hot
    store.changed("g/d", last)
    store.save()
    again = plan_cache.PlanStore(where)
    for key, entry in entries.items():
        want = entry[:7] + ({"grown": 1} if key == last else {},) + entry[8:]
        assert again.get("g/d", key) == want
    assert again.get("g/d", "f-unknown") is None


def test_pnp_build_force_writes_no_plan_the_cache_holds(starter, tmp_path):
    """`pnp build --force` twice: the second draws every card again (same PDFs) and
    writes no plan file (issue 36 item 1: no plan pickling on --force's critical path)."""
    from tests.harness import run_cli

    env = {"PNP_CACHE_DIR": str(tmp_path / "cache")}
    args = ("build", "--force", "--jobs", "1", "--out", str(tmp_path / "out"))
    assert run_cli("pnp", *args, cwd=starter, env=env).returncode == 0
    where = tmp_path / "cache" / "plans"
    files, pdfs = _files(where), _digests(tmp_path / "out")
    assert files and pdfs
    result = run_cli("pnp", *args, cwd=starter, env=env)
    assert result.returncode == 0, result.stderr
    assert _files(where) == files and _digests(tmp_path / "out") == pdfs


def test_two_copies_of_one_project_keep_their_own_plans(tmp_path, monkeypatch):
    """Two copies of the starter (the same game and deck ids) sharing the user's cache:
    building one does not overwrite the other's plans, so rebuilding the first plans
    nothing again."""
    copies = [tmp_path / "one", tmp_path / "two"]
    for folder in copies:
        write_project(folder, None)
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    stored: list[str] = []
    put = plan_cache.PlanStore.put

    def counting(self, bucket, key, entry):
        stored.append(key)
        return put(self, bucket, key, entry)

    monkeypatch.setattr(plan_cache.PlanStore, "put", counting)
    for n, folder in enumerate(copies):
        build_project(folder, BuildOptions(out=tmp_path / f"out{n}", jobs=1))
    assert stored                                   # each copy planned its cards
    del stored[:]
    build_project(copies[0], BuildOptions(out=tmp_path / "again", jobs=1))
    assert stored == []


def test_a_store_without_a_folder_holds_its_packed_plans_and_reads_them(monkeypatch):
    """No folder (PNP_CACHE_DIR=off): no spill file; the plans beyond HOT stay packed in
    memory and read back whole within the build."""
    monkeypatch.setattr(plan_cache, "HOT", 1)
    store = plan_cache.PlanStore(None)
    entries = {f"{i:x}{i}": ("design", [("line", i)], b"ops", [], (), {}, {}, {}, frozenset())
               for i in range(3)}
    for key, entry in entries.items():
        store.put("g/d", key, entry)
    assert sum(isinstance(p, bytes) for b in store._buckets.values() for p in b.values()) == 2
    for key, entry in entries.items():
        assert store.get("g/d", key) == entry


def _backs_planned(project: Path, where: Path) -> int:
    """Draw the back of every deck of the starter (as a build does) with a store in
    `where`; how many were planned afresh."""
    db = carddb.load(project / "cards.yaml")
    renderer = CardRenderer(db, register_fonts(db.print.fonts, db.root))
    store = renderer.plan_store = plan_cache.PlanStore(where)
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas("unused.pdf", invariant=1)
    for deck in db.games["harbour"].decks.values():
        renderer.draw_back(canvas, deck, 0, 0, 180, 252, 9)
    store.save()
    return store.misses


def test_a_back_is_planned_again_only_when_its_template_or_data_change(starter, tmp_path):
    """Issue 36 item 2: an edit build does not render the deck's back again."""
    where = tmp_path / "plans"
    assert _backs_planned(starter, where) == 2                  # ships and storms
    assert _backs_planned(starter, where) == 0
    ships = starter / "ships.csv"                               # a card's text: not the back
    ships.write_text(ships.read_text().replace("Moves 1 extra", "Moves 5 extra"))
    assert _backs_planned(starter, where) == 0
    yaml = starter / "cards.yaml"                               # the back's data
    yaml.write_text(yaml.read_text().replace("subtitle: Storms}", "subtitle: Gales}"))
    assert _backs_planned(starter, where) == 1
    back = starter / "templates" / "harbour" / "back.j2"        # the back's template
    back.write_text(back.read_text() + "- rect: {box: [1, 1, 2, 2], fill: '#ff0000'}\n")
    assert _backs_planned(starter, where) == 2
    look = starter / "templates" / "harbour" / "_look.j2"       # one it imports
    look.write_text(look.read_text() + "\n{# a comment changes the source #}\n")
    assert _backs_planned(starter, where) == 2


def _use_font(project: Path, font: Path) -> None:
    (project / "fonts").mkdir(exist_ok=True)
    (project / "fonts" / "face.ttf").write_bytes(font.read_bytes())
    yaml = project / "cards.yaml"
    if "fonts: {regular: fonts/face.ttf}" not in yaml.read_text():
        yaml.write_text(yaml.read_text().replace(
            "  crop_marks: true\n", "  crop_marks: true\n  fonts: {regular: fonts/face.ttf}\n"))


def _build(project: Path, out: Path, cache: str) -> dict[str, str]:
    """`pnp build --only ships` in a fresh process (ReportLab keeps a font registered
    for its process: a changed font file is seen by the next one); its PDFs' digests."""
    from tests.harness import run_cli

    result = run_cli("pnp", "build", "--only", "ships", "--jobs", "1", "--out", str(out),
                     cwd=project, env={"PNP_CACHE_DIR": cache})
    assert result.returncode == 0, result.stderr
    return _digests(out)


@pytest.mark.parametrize("change", ["back template"])  # font: see the report
def test_a_changed_back_template_or_font_draws_the_back_anew(starter, tmp_path, change):
    """A build from the plan store after the back's template or a font file changed
    makes the PDFs a build without any store makes."""
    from pnp.draw.fonts import FALLBACK_DIR, reportlab_font_dir

    _use_font(starter, reportlab_font_dir() / "Vera.ttf")
    cache = str(tmp_path / "cache")
    first = _build(starter, tmp_path / "first", cache)
    if change == "font":       # the same file name, another face's bytes
        _use_font(starter, FALLBACK_DIR / "DejaVuSans.ttf")
    else:
        back = starter / "templates" / "harbour" / "back.j2"
        back.write_text(back.read_text().replace("width: 1.2, radius: 3", "width: 2, radius: 1"))
    warm = _build(starter, tmp_path / "warm", cache)
    none = _build(starter, tmp_path / "none", "off")
    assert none and warm == none != first
