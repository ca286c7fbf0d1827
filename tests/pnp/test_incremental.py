"""Incremental builds: input hashes per artefact, skip what is up to date, --force."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from functools import partial

import pytest

import carddb
from pnp.artefacts import build as b
from pnp.artefacts.incremental import Hasher, Manifest, Plan, run_key, unchanged_build
from tests.harness import run_cli
from tests.pnp.exports_support import ROOT, make_project

pnp = partial(run_cli, "pnp")


def built(run: subprocess.CompletedProcess) -> set[str]:
    return {line.split("/")[-1] for line in run.stdout.splitlines()
            if line.startswith("building ")}


def skipped(run: subprocess.CompletedProcess) -> set[str]:
    return {line.split("/")[-1] for line in run.stdout.splitlines()
            if line.startswith("up to date: ")}


# ── hashes (no drawing) ────────────────────────────────────────────────────────────


@pytest.fixture(scope="module")
def db():
    return carddb.load(ROOT / "cards.yaml")


def hashes(db, opts=None):
    opts = opts or b.options_from_profile(db.print)
    h = Hasher(db, opts)
    return {f"{a.game}/{a.name}": h.artefact(a) for a in b.artefacts(db)}


def edit_card(db, game: str, deck: str, index: int, **changes):
    """A copy of the database with one card changed (objects are frozen)."""
    gm = db.games[game]
    dk = gm.decks[deck]
    cards = list(dk.cards)
    cards[index] = replace(cards[index], **changes)
    decks = {**gm.decks, deck: replace(dk, cards=tuple(cards))}
    return replace(db, games={**db.games, game: replace(gm, decks=decks)})


def test_one_card_changes_only_its_decks_hash(db):
    before = hashes(db)
    after = hashes(edit_card(db, "xo", "objectives", 0, text="Changed text"))
    changed = {k for k in before if before[k] != after[k]}
    assert changed == {"xo/objectives"}
    again = hashes(edit_card(db, "xo", "heroes-core", 0, copies=19))
    assert {k for k in before if before[k] != again[k]} == {"xo/heroes-core"}


def _hashed_whole(h: Hasher, art) -> str:
    """An artefact's digest as the SHA-256 of the canonical JSON of all its inputs at once
    (what Hasher.artefact writes piece by piece)."""
    import hashlib

    from pnp.artefacts import incremental as inc

    deck = h.db.games[art.game].decks[art.deck]
    inputs = {"v": inc.VERSION, "game": art.game, "name": art.name, "kind": art.kind,
              "title": art.title, "item": getattr(art, "item", None), "options": h.opts,
              "shared": h.shared(), "game_inputs": h.game(art.game),
              "deck": {"id": deck.id, "title": deck.title, "size": deck.size_mm,
                       "back": deck.back, "cards": [inc.card_data(c) for c in deck.cards]},
              "images": inc._digest_files(inc._image_paths(h.db, deck), seen=h.seen)}
    return hashlib.sha256(inc._canonical(inputs).encode()).hexdigest()


@pytest.mark.parametrize("held", [False, True])
def test_a_decks_hash_is_that_of_its_inputs_whole_with_card_json_kept_or_not(
        db, monkeypatch, held):
    """The deck's digest, its cards' JSON made each or kept by card (a resident watch:
    `hold`), is the digest of all its inputs' JSON at once, for cards whose values
    compare equal but write other JSON (a bool for an int, a float, a container, text
    of any script, a field order), edit after edit."""
    from pnp.artefacts import incremental as inc

    monkeypatch.setattr(inc, "_card_json", {} if held else None)
    edits = [{}, {"copies": True}, {"copies": 1}, {"text": "Ærø — «quoted» \"x\""},
             {"fields": {"power": 1.0}}, {"fields": {"power": 1}},
             {"fields": {"a": 1, "b": "x"}}, {"fields": {"b": "x", "a": 1}},
             {"fields": {"powers": ["a", 2]}}, {"name": "Renamed"}]
    seen = set()
    for changes in edits:
        edited = edit_card(db, "xo", "objectives", 0, **changes)
        h = Hasher(edited, b.options_from_profile(edited.print))
        for art in b.artefacts(edited):
            if art.deck:
                assert h.artefact(art) == _hashed_whole(h, art), (changes, art.name)
        seen.add(h.artefact(next(a for a in b.artefacts(edited) if a.deck == "objectives")))
    # {} and copies=1 are the same card; the JSON's keys are sorted: the field orders too
    assert len(seen) == len(edits) - 2


def test_print_options_and_game_settings_change_their_artefacts(db):
    before = hashes(db)
    a4 = hashes(db, b.options_from_profile(db.print, paper="a4"))
    assert all(before[k] != a4[k] for k in before)
    gm = db.games["x-statix"]
    recoloured = replace(db, games={**db.games, "x-statix": replace(
        gm, colors={**gm.colors, "primary": "#000000"})})
    after = hashes(recoloured)
    changed = {k for k in before if before[k] != after[k]}
    assert changed == {k for k in before if k.startswith("x-statix/")}


def test_the_run_record_lists_the_template_files_the_hasher_found(db, tmp_path):
    """The record reuses each game's template files as hashed; it lists what a
    record made without them lists."""
    todo = b.artefacts(db)
    plan = Plan(db, b.options_from_profile(db.print), tmp_path)
    for art in todo:
        plan.digest(art)
    plan.finished({"run": 1}, db, ROOT / "cards.yaml", todo)
    alone = Manifest(tmp_path)
    alone.record_run({"run": 1}, db, ROOT / "cards.yaml", todo, listing=plan.listing)
    listed = plan.manifest.runs[run_key({"run": 1})]["files"]
    assert set(listed) == set(alone.runs[run_key({"run": 1})]["files"])
    assert {gid for gid in db.games} <= set(plan.hasher.templates)
    assert any(name.endswith(".j2") for name in listed)


def test_an_images_bytes_feed_its_deck(tmp_path):
    text = (ROOT / "cards.yaml").read_text()
    marker = "- {name: Anarchist, type: Hero,"
    assert marker in text
    text = text.replace(marker, marker + " image: art/anarchist.png,")
    project = make_project(tmp_path, text)
    (project / "art").mkdir()
    (project / "art" / "anarchist.png").write_bytes(b"one")
    db = carddb.load(project / "cards.yaml")
    before = hashes(db)
    (project / "art" / "anarchist.png").write_bytes(b"two")
    after = hashes(db)
    assert {k for k in before if before[k] != after[k]} == {"x-statix/common"}


# ── the build command ──────────────────────────────────────────────────────────────


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A project built once (x-statix only, to keep the test short)."""
    folder = make_project(tmp_path_factory.mktemp("incremental"))
    first = pnp("build", "--game", "x-statix", "--jobs", "1", cwd=folder)
    assert first.returncode == 0, first.stderr
    assert built(first) == {"common.pdf", "owners.pdf", "team-names.pdf", "tokens.pdf",
                            "reference.pdf", "calibration.pdf"}
    return folder


def test_noop_build_skips_everything_and_says_so(project):
    pdfs = sorted((project / "output" / "x-statix").glob("*.pdf"))
    stamps = [p.stat().st_mtime_ns for p in pdfs]
    run = pnp("build", "--game", "x-statix", cwd=project)
    assert run.returncode == 0, run.stderr
    assert built(run) == set()
    assert skipped(run) == {p.name for p in pdfs}
    assert "nothing to do: 6 artefacts up to date" in run.stdout
    # The table still lists every file with its pages and cards.
    assert "output/x-statix/common.pdf" in run.stdout.split("nothing to do")[1]
    assert [p.stat().st_mtime_ns for p in pdfs] == stamps


def test_unchanged_build_needs_the_same_options(project):
    out = project / "output"
    assert pnp("build", "--game", "x-statix", cwd=project).returncode == 0
    args = {"game": "x-statix", "only": None, "paper": None, "duplex": None,
            "back_offset": None, "fold": False, "no_backs": False}
    assert unchanged_build(out, project / "cards.yaml", args) is not None
    assert unchanged_build(out, project / "cards.yaml", {**args, "paper": "a4"}) is None


def test_changing_one_card_rebuilds_only_its_deck(project):
    cards = project / "cards.yaml"
    text = cards.read_text()
    owner = carddb.load(cards).games["x-statix"].decks["owners"].cards[0]
    assert owner.text and text.count(owner.text) == 1
    cards.write_text(text.replace(owner.text, owner.text + " Changed."))
    run = pnp("build", "--game", "x-statix", cwd=project)
    assert run.returncode == 0, run.stderr
    assert built(run) == {"owners.pdf"}
    assert "common.pdf" in skipped(run)
    from pypdf import PdfReader

    pdf = PdfReader(project / "output" / "x-statix" / "owners.pdf")
    assert "Changed." in pdf.pages[0].extract_text()


def test_deleted_output_and_force(project):
    (project / "output" / "x-statix" / "reference.pdf").unlink()
    run = pnp("build", "--game", "x-statix", cwd=project)
    assert built(run) == {"reference.pdf"}
    forced = pnp("build", "--game", "x-statix", "--only", "owners", "--force", cwd=project)
    assert forced.returncode == 0 and built(forced) == {"owners.pdf"}


def test_template_edit_rebuilds_that_games_artefacts(project):
    template = project / "templates" / "x-statix" / "owner.j2"
    if not template.is_file():
        pytest.skip("no x-statix owner template in this checkout")
    template.write_text(template.read_text() + "\n{# touched by the incremental test #}\n")
    run = pnp("build", "--game", "x-statix", "--only", "owners", cwd=project)
    assert run.returncode == 0, run.stderr
    assert built(run) == {"owners.pdf"}


def test_warnings_are_replayed_and_strict_still_fails(tmp_path):
    text = (ROOT / "cards.yaml").read_text()
    db = carddb.load(ROOT / "cards.yaml")
    owner = db.games["x-statix"].decks["owners"].cards[0]
    long_text = " ".join(["Far too much text for one small card box."] * 40)
    project = make_project(tmp_path, text.replace(owner.text, long_text, 1))
    first = pnp("build", "--only", "owners", cwd=project)
    assert first.returncode == 0, first.stderr
    assert f"{owner.name}" in first.stderr and "warning:" in first.stderr
    again = pnp("build", "--only", "owners", cwd=project)
    assert built(again) == set() and skipped(again) == {"owners.pdf"}
    assert again.stderr.count("warning:") == first.stderr.count("warning:")
    strict = pnp("build", "--only", "owners", "--strict", cwd=project)
    assert strict.returncode == 1 and "[--strict]" in strict.stderr


def test_a_file_digest_is_taken_again_once_the_file_changed(tmp_path):
    """Digests are kept by stat in a process (a resident watch): a file rewritten, even at
    the same size, is hashed again; one left alone gives the digest it gave."""
    import os

    from pnp.artefacts.incremental import file_digest
    from pnp.draw.stamp import uses_stamp

    path = tmp_path / "card.j2"
    path.write_text("{{ card.name }}\n")
    os.utime(path, ns=(10**18, 10**18))                     # settled long ago
    first = file_digest(path)
    assert file_digest(path) == first and not uses_stamp([path])
    path.write_text("{{ version }}..\n")                    # the same size
    os.utime(path, ns=(10**18 + 10**9, 10**18 + 10**9))
    assert file_digest(path) != first and uses_stamp([path])


def test_file_digests_are_kept_between_runs_by_stat(tmp_path, monkeypatch):
    """A settled file's digest is kept in the cache folder: the next process takes it
    while the file's stat is the same, and hashes the file again once it changed."""
    import hashlib
    import os

    from pnp.artefacts import incremental

    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(incremental, "_digests", {})
    monkeypatch.setattr(incremental, "_kept", {"loaded": False, "new": False})
    path = tmp_path / "font.ttf"
    path.write_bytes(b"glyphs")
    os.utime(path, ns=(10**18, 10**18))                     # settled long ago
    incremental.file_digest(path)
    incremental.save_digests()
    kept = tmp_path / "cache" / incremental._DIGESTS_FILE
    assert kept.is_file()

    def next_process():
        incremental._digests.clear()
        incremental._kept.update(loaded=False, new=False)

    # what the kept file says is taken without reading the font: a forged entry shows it
    next_process()
    incremental._load_digests()
    stat_key, _ = incremental._digests[str(path)]
    incremental._digests[str(path)] = (stat_key, "kept")
    incremental._kept["new"] = True
    incremental.save_digests()
    next_process()
    assert incremental.file_digest(path) == "kept"
    path.write_bytes(b"GLYPHS")                             # the same size, a new stat
    os.utime(path, ns=(10**18 + 10**9, 10**18 + 10**9))
    next_process()
    assert incremental.file_digest(path) == hashlib.sha256(b"GLYPHS").hexdigest()


def test_no_file_digest_is_kept_when_the_cache_is_off(tmp_path, monkeypatch):
    import os

    from pnp.artefacts import incremental

    monkeypatch.setenv("PNP_CACHE_DIR", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(incremental, "_digests", {})
    monkeypatch.setattr(incremental, "_kept", {"loaded": False, "new": False})
    path = tmp_path / "card.j2"
    path.write_text("{{ card.name }}\n")
    os.utime(path, ns=(10**18, 10**18))
    incremental.file_digest(path)
    incremental.save_digests()
    assert not (tmp_path / "xdg").exists() and incremental._kept["new"]
