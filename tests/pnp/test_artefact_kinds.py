"""The artefact kinds of `pnp build` (issue 24 item 1): each kind is one module of
pnp/artefacts/kinds defining KIND; a kind registered from elsewhere (here BOOKLET, a
test-only rules booklet of one page with the game's title, defined once below) is
listed, built by `pnp build` and by build_project, reserves its file stem against deck
ids, and is gone again once unregistered."""

from __future__ import annotations

import importlib
import json
import pkgutil
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

import carddb
from pnp.artefacts import build as b
from pnp.artefacts import kinds
from pnp.artefacts.artefact import Artefact
from pnp.artefacts.kinds import Kind
from pnp.artefacts.project_build import BuildOptions, Progress, build_project
from tests.harness import run_cli
from tests.pdftext import page_texts

ROOT = Path(__file__).resolve().parents[2]
BUILT_IN = ["deck", "mats", "mats-tiled", "dice-labels", "tokens", "reference", "calibration"]


def _booklet(game_id, game):
    return [Artefact(game_id, "rules", "booklet", f"{game.title}: rules booklet")]


def _draw_booklet(db, art, opts, renderer, fonts, target, result, step):
    from pnp.artefacts.sheet import PAGE_MARGIN, Pages, text
    from pnp.draw.pdf import open_canvas
    from pnp.layout.geometry import paper_size

    w, h = paper_size(opts.paper)
    c = open_canvas(target, font=fonts["regular"], page_size=(w, h), title=art.title,
                    subject="rules booklet")
    pages = Pages(c, result)
    text(c, fonts, opts, "bold", 24, PAGE_MARGIN, h - PAGE_MARGIN - 24,
         db.games[art.game].title, result=result, element="title")
    pages.show()
    c.save()
    result.pages = pages.count
    step(1)


BOOKLET = Kind("booklet", order=65, artefacts=_booklet, draw=_draw_booklet,
               reserves=("rules",))


@pytest.fixture(scope="module")
def starter(tmp_path_factory):
    root = tmp_path_factory.mktemp("kinds") / "proj"
    done = run_cli("pnp", "init", str(root))
    assert done.returncode == 0, done.stderr
    return root


@pytest.fixture
def booklet():
    kinds.register(BOOKLET)
    yield BOOKLET
    kinds.unregister("booklet")


def _text(pdf: Path) -> str:
    return "".join(page_texts(pdf))


def test_every_module_of_the_package_is_a_kind_named_after_it():
    package = Path(kinds.__file__).parent
    names = [info.name for info in pkgutil.iter_modules([str(package)])
             if info.name != "base" and not info.name.startswith("_")]
    assert {n.replace("-", "_") for n in BUILT_IN} <= set(names)
    for name in names:
        module = importlib.import_module(f"pnp.artefacts.kinds.{name}")
        assert isinstance(module.KIND, Kind), name
        assert module.KIND.name == name.replace("_", "-")
    found = list(kinds.registry())
    assert {n.replace("_", "-") for n in names} <= set(found)
    assert [k for k in found if k in BUILT_IN] == BUILT_IN      # the build order, by `order`
    reserved = kinds.reserved_deck_ids()
    assert [r for r in reserved if r in BUILT_IN] == BUILT_IN[1:]   # all but the decks'


def test_the_bundled_games_list_their_artefacts_in_the_build_order():
    db = carddb.load(ROOT / "cards.yaml", reserved=kinds.reserved_deck_ids())
    for gid, extras in (("xo", ["mats", "mats-tiled", "dice-labels", "reference"]),
                        ("x-statix", ["tokens", "reference"])):
        arts = b.artefacts(db, game=gid)
        decks = list(db.games[gid].decks)
        assert [a.name for a in arts] == decks + extras + ["calibration"]
        assert [a.kind for a in arts] == ["deck"] * len(decks) + extras + ["calibration"]


def test_a_registered_kind_is_built_by_pnp_build_in_its_place(starter, tmp_path):
    out = tmp_path / "out"
    args = ["build", "--project", str(starter), "--out", str(out), "--jobs", "2", "--json"]
    first = run_cli("pnp", *args)
    assert first.returncode == 0, first.stderr
    kinds.register(BOOKLET)
    try:                # the build before had no booklet: this one is not "nothing to do"
        done = run_cli("pnp", *args)
    finally:
        kinds.unregister("booklet")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [a["path"] for a in report["artefacts"]] == [
        "harbour/ships.pdf", "harbour/storms.pdf", "harbour/dice-labels.pdf",
        "harbour/tokens.pdf", "harbour/reference.pdf", "harbour/rules.pdf",
        "harbour/calibration.pdf"]
    pdf = PdfReader(out / "harbour" / "rules.pdf")
    assert len(pdf.pages) == 1 and "Harbour Lights" in pdf.pages[0].extract_text()
    assert pdf.metadata.title == "Harbour Lights: rules booklet"
    assert "harbour/rules.pdf" not in run_cli("pnp", *args).stdout


def test_only_names_a_registered_kinds_artefact_and_unregister_restores(starter, tmp_path):
    out = tmp_path / "out"
    args = ["build", "--project", str(starter), "--out", str(out), "--only", "rules"]
    kinds.register(BOOKLET)
    try:
        done = run_cli("pnp", *args)
        assert done.returncode == 0, done.stderr
        assert sorted(p.name for p in (out / "harbour").glob("*.pdf")) == ["rules.pdf"]
        assert "Harbour Lights" in _text(out / "harbour" / "rules.pdf")
    finally:
        kinds.unregister("booklet")
    assert "booklet" not in kinds.registry() and "rules" not in kinds.reserved_deck_ids()
    again = run_cli("pnp", *args)
    assert again.returncode == 2
    assert "unknown artefact 'rules'" in again.stderr


def test_build_project_builds_a_registered_kind(booklet, starter, tmp_path):
    out = tmp_path / "lib"
    report = build_project(starter, BuildOptions(out=out, only="rules", jobs=1), Progress())
    assert [Path(r.path) for r in report.results] == [out / "harbour" / "rules.pdf"]
    assert report.results[0].pages == 1
    assert "Harbour Lights" in _text(out / "harbour" / "rules.pdf")
    assert b.units(carddb.load(starter / "cards.yaml"), report.results[0].artefact) == 1


def test_a_registered_kinds_stem_is_refused_as_a_deck_id(booklet, starter, tmp_path):
    text = (starter / "cards.yaml").read_text(encoding="utf-8")
    assert "\n      ships:" in text
    shutil.copy(starter / "ships.csv", tmp_path)
    path = tmp_path / "cards.yaml"
    text = text.replace("\n      ships:", "\n      rules:", 1).replace("deck: ships", "deck: rules")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(carddb.DatabaseError) as refused:
        carddb.load(path, reserved=kinds.reserved_deck_ids())
    assert str(refused.value.problems[0]).endswith(
        "games.harbour.decks.rules: 'rules' is the name of another artefact of the game; "
        "choose another deck id")
    kinds.unregister("booklet")
    assert "rules" in carddb.load(path, reserved=kinds.reserved_deck_ids()).games[
        "harbour"].decks


def test_register_refuses_what_is_not_a_kind_and_a_stem_reserved_twice():
    with pytest.raises(TypeError):
        kinds.register(object())
    kinds.register(Kind("more-tokens", order=55, artefacts=lambda gid, game: [],
                        draw=_draw_booklet, reserves=("tokens",)))
    try:
        with pytest.raises(ValueError, match="tokens and more-tokens both reserve 'tokens'"):
            kinds.registry()
    finally:
        kinds.unregister("more-tokens")
    assert list(kinds.registry()) == BUILT_IN
