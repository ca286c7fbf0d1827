"""Issue 36 item 3: one large deck on every core. A deck of at least
`deck_planning.LARGE` designs built with `--force` and more than one job has its fronts
planned by workers while the build draws it; the PDF, its layout report and the build
record are byte-identical whatever `--jobs`, the plans the workers made are stored for
the next build, and a card the workers cannot plan fails as a one-process build fails."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

import carddb
from pnp.artefacts import deck_planning, workers
from pnp.artefacts.project_build import BuildOptions, build_project, checked_renderer, plan_store
from pnp.cli.init import write_project
from pnp.draw.fonts import register_fonts
from pnp.draw.render import CardRenderer, RenderError
from pnp.layout import geometry as g
from tests.pnp.ships import ship_row, write_ships
from tests.pnp.starter_copies import fresh_copy

CARDS = 40


@pytest.fixture(scope="module")
def _big(tmp_path_factory) -> Path:
    """The starter with its Ships deck grown to CARDS designs (written once)."""
    folder = tmp_path_factory.mktemp("big") / "game"
    write_project(folder, None)
    write_ships(folder, [ship_row(i, copies=1 + i % 3) for i in range(CARDS)])
    return folder


@pytest.fixture
def big(_big, playground, monkeypatch) -> Path:
    """A fresh copy of the grown starter, at one path for every test
    (tests/pnp/starter_copies: the templates are compiled once, here and so in the
    workers forked from here), planned in runs of 7 (the last one short) by workers once
    a deck has 30 designs. Each test keeps its plans in its own cache (or none)."""
    folder = fresh_copy(_big, playground)
    monkeypatch.setattr(deck_planning, "LARGE", 30)
    monkeypatch.setattr(deck_planning, "RUN", 7)
    return folder


def _files(out: Path) -> dict[str, str]:
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file() and p.suffix in (".pdf", ".json")
            and p.name != ".pnp-manifest.json"}


def _planned_in_workers(monkeypatch) -> list:
    """The runs the workers are asked to plan, as `DeckPlanners` submits them."""
    runs: list = []
    submit = workers.Workers.submit

    def counting(self, key, fn, arg):
        if fn is deck_planning._plan_run:
            runs.append(arg)
        return submit(self, key, fn, arg)

    monkeypatch.setattr(workers.Workers, "submit", counting)
    return runs


def _planned_here(monkeypatch) -> list:
    """The faces this process plans (not its workers), by their targets' card names."""
    here, pid = [], os.getpid()
    plan = CardRenderer._plan

    def counting(self, template, context, target, missing):
        if os.getpid() == pid:
            here.append(target.card)
        return plan(self, template, context, target, missing)

    monkeypatch.setattr(CardRenderer, "_plan", counting)
    return here


def test_a_large_deck_is_planned_in_workers_and_the_output_is_the_same(big, tmp_path,
                                                                        monkeypatch):
    monkeypatch.setenv("PNP_CACHE_DIR", "off")
    assert workers.usable()
    runs = _planned_in_workers(monkeypatch)
    here = _planned_here(monkeypatch)
    one = build_project(big, BuildOptions(out=tmp_path / "one", jobs=1, force=True))
    assert runs == [] and len([c for c in here if c.startswith("Ship ")]) == CARDS
    here.clear()
    two = build_project(big, BuildOptions(out=tmp_path / "two", jobs=2, force=True))
    assert runs == [(i, min(i + 7, CARDS)) for i in range(0, CARDS, 7)]
    assert [c for c in here if c.startswith("Ship ")] == []     # every front from a worker
    files = _files(tmp_path / "one")
    assert "harbour/ships.pdf" in files and ".pnp-builds/0001.json" in files
    assert _files(tmp_path / "two") == files
    assert [(Path(r.path).name, r.pages, r.cards) for r in two.results] == [
        (Path(r.path).name, r.pages, r.cards) for r in one.results]
    assert two.warnings == one.warnings


def test_the_plans_workers_made_are_stored_for_the_next_build(big, tmp_path, monkeypatch):
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    build_project(big, BuildOptions(out=tmp_path / "out", jobs=2, force=True))
    db = carddb.load(big / "cards.yaml")
    store = plan_store(db)
    renderer = checked_renderer(db, register_fonts(db.print.fonts, db.root), False, store)
    ships = db.games["harbour"].decks["ships"]
    w, h = g.mm(ships.size_mm[0]), g.mm(ships.size_mm[1])
    for card in ships.cards:
        renderer.bleed_colors(card, ships, w, h, g.mm(db.print.bleed_mm))
    assert store.misses == 0 and store.hits == CARDS


def test_an_unchanged_build_after_one_made_in_workers_redraws_nothing(big, tmp_path,
                                                                      monkeypatch):
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    build_project(big, BuildOptions(out=out, jobs=2, force=True))
    again = build_project(big, BuildOptions(out=out, jobs=2))
    assert again.nothing_to_do


def test_a_card_the_workers_cannot_plan_fails_as_with_one_job(big, tmp_path, monkeypatch):
    monkeypatch.setenv("PNP_CACHE_DIR", "off")
    ship = big / "templates" / "harbour" / "ship.j2"
    ship.write_text(ship.read_text() + "{% if card.name == 'Ship 33' %}"
                    "- rect: {box: [1, 1, 2]}\n{% endif %}")
    errors = []
    for jobs in (1, 2):
        with pytest.raises(RenderError) as caught:
            build_project(big, BuildOptions(out=tmp_path / f"j{jobs}", jobs=jobs, force=True))
        errors.append(str(caught.value))
        assert not list((tmp_path / f"j{jobs}").rglob("*.pdf"))
        assert not list((tmp_path / f"j{jobs}").rglob("*.part"))
    assert errors[0] == errors[1] and "Ship 33" in errors[0]


def test_a_first_build_plans_in_workers_an_edit_plans_here(big, tmp_path, monkeypatch):
    """Without --force: a deck with no stored plans (a first build) is planned in the
    workers; once its plans are stored, an edit plans its one card here."""
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    runs = _planned_in_workers(monkeypatch)
    build_project(big, BuildOptions(out=tmp_path / "out", jobs=2))
    assert len(runs) == 6
    ships = big / "ships.csv"
    ships.write_text(ships.read_text().replace("ship number 3.", "ship number 3 (edit)."))
    runs.clear()
    report = build_project(big, BuildOptions(out=tmp_path / "out", jobs=2))
    assert runs == [] and [a.name for a in report.built] == ["ships"]


def test_notices_raised_while_workers_plan_are_told_once_in_card_order(big, tmp_path,
                                                                       monkeypatch):
    """--contrast draws each face to measure it while planning, so art far finer than
    print needs is downsampled (a notice) in the workers: the build tells each notice
    once, in card order, as a one-job build does. In this process (its workers forked
    from it), on 12 designs planned in workers in runs of 4 (three runs, two workers, as
    many runs as workers and more: what the notices' order needs, at a third of the
    drawing)."""
    from PIL import Image

    from tests.harness import run_cli

    assert workers.usable()
    write_ships(big, [ship_row(i, copies=1 + i % 3) for i in range(12)])
    monkeypatch.setattr(deck_planning, "LARGE", 10)
    monkeypatch.setattr(deck_planning, "RUN", 4)
    (big / "art").mkdir()
    # 1000 px across a 20 mm box: over twice print resolution (472 px), so downsampled
    for i in range(3):
        Image.new("RGB", (1000 + 10 * i, 1000), "#204080").save(big / "art" / f"big{i}.png")
    ship = big / "templates" / "harbour" / "ship.j2"
    ship.write_text(ship.read_text() + '- image: {box: [6, 17, 20, 20], '
                    'path: "art/big{{ 2 - card.speed % 3 }}.png"}\n')
    told = {}
    for jobs in ("1", "2"):
        run = run_cli("pnp", "build", "--only", "ships", "--contrast", "--jobs", jobs,
                      "--out", str(tmp_path / jobs), cwd=big,
                      env={"PNP_CACHE_DIR": str(tmp_path / f"cache{jobs}")})
        assert run.returncode == 0, run.stderr
        told[jobs] = [ln for ln in run.stderr.splitlines() if ln.startswith("notice: ")]
    assert sorted(ln.split(":")[1] for ln in told["1"]) == [" big0.png", " big1.png",
                                                            " big2.png"]
    assert told["2"] == told["1"]
