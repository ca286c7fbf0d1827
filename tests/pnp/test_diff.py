"""What changed since the last print (issue 17 item 4): per-card hashes of what was drawn,
`pnp diff`, `pnp build --changed-only`, the version stamp, byte-identical builds. Runs the
real CLI on the project `pnp init` writes (two decks, six ship designs from a CSV)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.harness import run_cli
from tests.pdftext import page_texts
from tests.pnp.starter_copies import fresh_copy, make_starter


@pytest.fixture(scope="module")
def starter(tmp_path_factory) -> Path:
    """A `pnp init` project (made once; each test edits a copy)."""
    return make_starter(tmp_path_factory.mktemp("starter") / "proj")


@pytest.fixture(scope="module")
def playground(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("diff")


@pytest.fixture
def project(starter, playground) -> Path:
    """A fresh copy of the starter, at one path for every test (tests/pnp/starter_copies);
    builds go to each test's tmp_path."""
    return fresh_copy(starter, playground, "proj")


@pytest.fixture(scope="module")
def _first_build(starter, playground, tmp_path_factory) -> Path:
    """The out folder of the starter's first build (`build(cli, project, out)`, the
    project at the playground's path, out beside it), kept to be copied: most tests
    begin with it, and it is the same build every time."""
    project = fresh_copy(starter, playground, "proj")
    build(run_cli, project, playground / "out")
    kept = tmp_path_factory.mktemp("first-build") / "out"
    shutil.copytree(playground / "out", kept)
    return kept


@pytest.fixture
def built(project, _first_build) -> Path:
    """`project` built once: the out folder its first build wrote, beside it (a copy,
    modification times kept)."""
    out = project.parent / "out"
    shutil.copytree(_first_build, out)
    return out


def build(cli, project, out, *more):
    done = cli("pnp", "build", "--out", str(out), *more, cwd=project)
    assert done.returncode == 0, done.stderr
    return done


def diff(cli, project, out, *more):
    done = cli("pnp", "diff", "--out", str(out), "--json", *more, cwd=project)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def digests(out: Path) -> dict[str, str]:
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*.pdf"))}


def test_one_changed_card_is_listed_alone_and_reprinted_alone(cli, project, built):
    out = built
    first = diff(cli, project, out)
    assert first["since"] == "build 1" and first["builds"] == 1
    assert first["added"] == first["removed"] == first["changed"] == []
    sheet = project / "ships.csv"
    sheet.write_text(sheet.read_text().replace("Ignores the first Squall.",
                                               "Ignores every Squall."))
    # issue 22 item 7: before any rebuild, pnp diff lists exactly the edited card
    edited = diff(cli, project, out)
    assert edited["since"] == "build 1"
    assert edited["added"] == [] and edited["removed"] == []
    assert edited["changed"] == [{"card": "harbour/ships/Iron Maiden", "what": ["front"]}]
    assert not (out / ".pnp-builds" / "0002.json").exists()      # diff builds nothing
    done = build(cli, project, out, "--changed-only")
    assert "changed-only:" in done.stdout and "(1 card, 2 pages; since build 1)" in done.stdout
    found = diff(cli, project, out)
    assert found["since"] == "build 2" and found["changed"] == []
    assert diff(cli, project, out, "--since", "1")["changed"] == edited["changed"]
    texts = page_texts(out / "changed.pdf")
    # Iron Maiden has 2 copies, side by side on one sheet, then their backs; no other card.
    assert len(texts) == 2
    assert texts[0].count("Ignores every Squall.") == 2
    assert "Iron Maiden" not in texts[1]                         # the backs
    assert not any(name in " ".join(texts) for name in ("The Gull", "Kestrel", "Salt Runner"))


def test_added_removed_and_copies(cli, project, built):
    out = built
    sheet = project / "ships.csv"
    rows = sheet.read_text().splitlines()
    kept = [r for r in rows if not r.startswith("Kestrel,")]
    kept = [r.replace("The Gull,blue,4,2,Ada Moor,2,", "The Gull,blue,4,2,Ada Moor,3,")
            for r in kept]
    kept.append("Sea Wolf,red,3,2,,1,Hunts the nearest ship.")
    sheet.write_text("\n".join(kept) + "\n")
    found = diff(cli, project, out)              # the edit against build 1, unbuilt
    assert found["added"] == ["harbour/ships/Sea Wolf"]
    assert found["removed"] == ["harbour/ships/Kestrel"]
    assert found["changed"] == [{"card": "harbour/ships/The Gull", "what": ["copies"]}]
    build(cli, project, out)
    assert diff(cli, project, out)["changed"] == []
    # An older build can be named; a build that is not there is bad usage (exit 2).
    assert {k: v for k, v in diff(cli, project, out, "--since", "1").items()
            if k in ("added", "removed", "changed")} == {
        k: found[k] for k in ("added", "removed", "changed")}
    bad = cli("pnp", "diff", "--out", str(out), "--since", "7", cwd=project)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "7" in bad.stderr


def test_a_template_change_marks_only_the_cards_it_draws(cli, project, built):
    out = built
    storm = project / "templates" / "harbour" / "storm.j2"
    storm.write_text(storm.read_text() + "\n- rect: {box: [2, 2, 4, 4], fill: \"#ff0000\"}\n")
    found = diff(cli, project, out)
    assert found["changed"] and all(c["card"].startswith("harbour/storms/")
                                    for c in found["changed"])
    assert len(found["changed"]) == 5 and found["added"] == found["removed"] == []


def test_version_stamp_from_cards_yaml_and_byte_identical_builds(cli, project, tmp_path):
    yaml = project / "cards.yaml"
    yaml.write_text(yaml.read_text().replace(
        "version: 1\n", 'version: 1\nrelease: {version: "0.3", date: "2026-11-30"}\n', 1))
    ship = project / "templates" / "harbour" / "ship.j2"
    ship.write_text(ship.read_text() + '\n- text: {box: [4, 84, 40, 3], size: 5, '
                    "text: {{ 'v' ~ version ~ ' ' ~ build_date }}, markup: false}\n")
    a, b = tmp_path / "a", tmp_path / "b"
    build(cli, project, a)
    build(cli, project, b)
    assert digests(a) == digests(b) and digests(a)
    assert "v0.3 2026-11-30" in page_texts(a / "harbour" / "ships.pdf")[0]
    # A new version changes the stamp on every ship card but not what `pnp diff` lists.
    yaml.write_text(yaml.read_text().replace('"0.3"', '"0.4"'))
    build(cli, project, a)
    assert "v0.4 2026-11-30" in page_texts(a / "harbour" / "ships.pdf")[0]
    found = diff(cli, project, a)
    assert found["changed"] == [] and found["added"] == []


@pytest.mark.skipif(shutil.which("git") is None,
                    reason="git is not installed: `pnp diff --since GIT-REF` reads a git history")
def test_since_a_git_commit(cli, project, tmp_path):
    def git(*args):
        subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True)

    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first print")
    sheet = project / "ships.csv"
    sheet.write_text(sheet.read_text().replace("Moves 1 extra", "Moves 2 extra"))
    out = tmp_path / "out"
    build(cli, project, out)
    found = diff(cli, project, out, "--since", "HEAD")
    assert found["since"] == "git HEAD"
    assert [c["card"] for c in found["changed"]] == ["harbour/ships/The Gull"]
    bad = cli("pnp", "diff", "--out", str(out), "--since", "no-such-ref", cwd=project)
    assert bad.returncode == 2 and "neither a build number nor a git commit" in bad.stderr


def test_diff_wording_for_no_build_one_build_and_many(cli, project, tmp_path):
    out = tmp_path / "out"

    def lines(*more):
        done = cli("pnp", "diff", "--out", str(out), *more, cwd=project)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    none = lines()
    assert none[0] == (f"the cards now, against no build recorded in {out} yet (every card "
                       "is new): 11 added, 0 removed, 0 changed")
    assert len(none) == 12 and all(line.startswith("+ harbour/") for line in none[1:])
    build(cli, project, out)
    assert lines() == [f"the cards now, against build 1, the only build in {out}: "
                       "nothing changed"]
    sheet = project / "ships.csv"
    sheet.write_text(sheet.read_text().replace("Moves 1 extra", "Moves 2 extra"))
    assert lines() == [f"the cards now, against build 1, the only build in {out}: "
                       "0 added, 0 removed, 1 changed", "~ harbour/ships/The Gull (front)"]
    build(cli, project, out)
    assert lines() == [f"the cards now, against build 2, the latest of 2 builds in {out}: "
                       "nothing changed"]
    assert lines("--since", "1")[0] == (f"the cards now, against build 1 of 2 in {out} "
                                        "(the latest is build 2): 0 added, 0 removed, "
                                        "1 changed")
    bad = cli("pnp", "diff", "--out", str(tmp_path / "none"), "--since", "1", "--json",
              cwd=project)
    assert bad.returncode == 2 and json.loads(bad.stdout)["ok"] is False
    assert bad.stderr.strip() == f"pnp: --since 1: no build recorded in {tmp_path / 'none'}"


def test_changed_only_prints_on_the_decks_paper_with_guides_and_duplex_backs(cli, project,
                                                                             tmp_path):
    import pypdfium2 as pdfium

    out = tmp_path / "out"
    build(cli, project, out, "--paper", "a4")
    sheet = project / "ships.csv"
    # Iron Maiden, Kestrel, Salt Runner: 2 + 2 + 2 copies (their English text: the sheet's
    # German columns come after it)
    edited = ("Ignores the first Squall.", "draws 1 extra Storm each round.",
              "May swap places with one ship it passes.")
    text = sheet.read_text()
    for old in edited:
        assert old in text
        text = text.replace(old, old + " Again.")
    sheet.write_text(text)
    build(cli, project, out, "--paper", "a4", "--changed-only")
    deck = json.loads((out / "harbour" / "ships.layout.json").read_text())
    changed = json.loads((out / "changed.layout.json").read_text())
    pages = changed["artefacts"][0]["pages"]
    a4 = [210.0, 297.0]
    assert [p["size_mm"] for p in pages] == [a4, a4]
    assert deck["artefacts"][0]["pages"][0]["size_mm"] == a4
    assert [p["side"] for p in pages] == ["front", "back"]
    names = sorted(c["name"] for c in pages[0]["cards"])
    assert names == ["Iron Maiden", "Iron Maiden", "Kestrel", "Kestrel", "Salt Runner",
                     "Salt Runner"]
    # long-edge duplex: each back lands behind its front, mirrored across the sheet
    for front, back in zip(pages[0]["cards"], pages[1]["cards"], strict=True):
        x, y, w, h = front["trim_mm"]
        assert back["name"] == front["name"]
        assert back["trim_mm"] == pytest.approx([210.0 - x - w, y, w, h], abs=0.01)
    # bleed: the deck's 3.175 mm of paint around each trim (same as the deck's sheets)
    reader = PdfReader(out / "changed.pdf")
    assert [(float(p.mediabox.width), float(p.mediabox.height)) for p in reader.pages] == [
        (pytest.approx(595.28, abs=0.01), pytest.approx(841.89, abs=0.01))] * 2
    pdf = pdfium.PdfDocument(out / "changed.pdf")
    scale = 4                  # 288 px per inch: a 0.25 pt hairline is a dark pixel
    image = pdf[0].render(scale=scale).to_pil().convert("L")
    pdf.close()
    px = scale * 72 / 25.4
    x, y, w, h = pages[0]["cards"][0]["trim_mm"]
    pixels = image.load()
    inside_bleed = pixels[round((x - 1.5) * px), round((y + h / 2) * px)]
    assert inside_bleed < 200, "no bleed paint beyond the trim"
    # the cut guide of the first column's left edge, below the bottom row
    bottom = max(c["trim_mm"][1] + c["trim_mm"][3] for c in pages[0]["cards"])
    column = round(x * px)
    marks = [pixels[xx, yy] for yy in range(round((bottom + 3.5) * px), round((297 - 5) * px))
             for xx in range(column - 2, column + 3)]
    assert marks and min(marks) < 128, "no cut guide"
    assert min(pixels[column, yy] for yy in range(round((297 - 4.9) * px), image.size[1])
               ) > 250, "the printer margin is not blank"


def test_proof_marks_the_changed_cards(cli, project, built, tmp_path):
    import re

    out = built
    sheet = project / "ships.csv"
    sheet.write_text(sheet.read_text().replace("Ignores the first Squall.", "Ignores all."))
    build(cli, project, out)
    done = cli("pnp", "proof", "--deck", "ships", "--dpi", "40", "--out", str(tmp_path / "pr"),
               "--builds", str(out), cwd=project)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "pr" / "index.html").read_text()
    marked = re.findall(r'<figure class="card[^"]* changed"[^>]*>.*?<b>([^<]+)</b>', page)
    assert marked == ["Iron Maiden"]
    assert 'id="only-changed"' in page and "changed: front" in page


def test_the_stamp_from_git_follows_new_commits(cli, project, tmp_path):
    def git(*args):
        done = subprocess.run(["git", "-C", str(project), "-c", "user.name=t", "-c",
                               "user.email=t@t", *args], check=True, capture_output=True,
                              text=True)
        return done.stdout.strip()

    ship = project / "templates" / "harbour" / "ship.j2"
    ship.write_text(ship.read_text() + "\n- text: {box: [4, 84, 40, 3], size: 5, "
                    "text: {{ 'build ' ~ version }}, markup: false}\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "one")
    out = tmp_path / "out"
    build(cli, project, out)
    assert f"build {git('rev-parse', '--short', 'HEAD')}" in page_texts(
        out / "harbour" / "ships.pdf")[0]
    (project / "README.md").write_text("notes\n")
    git("commit", "-qam", "two")
    build(cli, project, out)                 # no file it reads changed; the commit did
    assert f"build {git('rev-parse', '--short', 'HEAD')}" in page_texts(
        out / "harbour" / "ships.pdf")[0]
    assert diff(cli, project, out)["changed"] == []


def test_a_build_without_backs_keeps_the_backs_printed_before(cli, project, built):
    out = built
    build(cli, project, out, "--no-backs")
    assert diff(cli, project, out, "--since", "1")["changed"] == []


def test_the_plan_text_is_the_repr_with_its_numbers_rounded_on_every_bundled_face():
    """`drawn.plan_text` builds its text while walking the plan (for speed); it must be
    exactly the rule the recorded hashes were made with: the plan's repr, every number
    with a decimal point outside quotes to floor(x * 1000 + 0.3183). Otherwise every card
    of an earlier build would show as changed."""
    import io
    import math
    import re

    from reportlab.pdfgen.canvas import Canvas

    import carddb
    from pnp.artefacts import drawn
    from pnp.draw.render import card_renderer
    from pnp.layout import geometry as g

    number = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|-?\d+\.\d+(?:e[-+]?\d+)?")

    def rule(ops):
        text = repr([op for _, op in ops])
        return number.sub(lambda m: m.group() if m.group()[0] in "'\""
                          else str(math.floor(float(m.group()) * 1000 + 0.3183)), text)

    db = carddb.load(Path(__file__).resolve().parents[2] / "cards.yaml")
    renderer = card_renderer(db)
    plans = []
    planned = renderer._plan
    renderer._plan = lambda *args: (lambda result: plans.append(result[0]) or result)(
        planned(*args))
    canvas = Canvas(io.BytesIO(), invariant=1)
    for game in db.games.values():
        for deck in game.decks.values():
            w, h = g.mm(deck.size_mm[0]), g.mm(deck.size_mm[1])
            renderer.draw_back(canvas, deck, 0, 0, w, h, g.mm(3.175))
            for card in deck.cards:
                renderer.draw_front(canvas, card, deck, 0, 0, w, h, g.mm(3.175))
    assert len(plans) > 200
    colours: dict = {}
    for ops in plans:
        assert not any(op.kind == "image" for _, op in ops)   # no path to digest
        assert drawn.plan_text(ops, {}, colours) == rule(ops)
    # and the values a plan may hold beyond the bundled faces
    odd = [(0, ("x", -0.0, 1e-05, 9.5e-05, 1e16, 123456.789, float("inf"), float("nan"),
                (2.5,), [], {"k": 1.25}, True, None, "1.5 'q'", 'say "2.5"'))]
    assert drawn.plan_text(odd, {}) == rule(odd)


def test_the_build_record_is_compact_json_that_diff_reads(cli, project, built):
    """The record is read by programs only: one line of compact JSON (its indented
    text cost a one-card edit of a large deck a noticeable share), still what diff reads."""
    out = built
    text = (out / ".pnp-builds" / "0001.json").read_text(encoding="utf-8")
    assert text.endswith("}\n") and text.count("\n") == 1 and '": ' not in text
    assert json.loads(text)["build"] == 1
    sheet = project / "ships.csv"
    sheet.write_text(sheet.read_text().replace("Ignores the first Squall.",
                                               "Ignores every Squall."))
    build(cli, project, out)
    assert diff(cli, project, out, "--since", "1")["changed"] == [
        {"card": "harbour/ships/Iron Maiden", "what": ["front"]}]
