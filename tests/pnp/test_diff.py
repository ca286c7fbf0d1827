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


@pytest.fixture
def project(tmp_path, cli):
    done = cli("pnp", "init", str(tmp_path / "proj"))
    assert done.returncode == 0, done.stderr
    return tmp_path / "proj"


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


def page_texts(path: Path) -> list[str]:
    return [page.extract_text() for page in PdfReader(path).pages]


def test_one_changed_card_is_listed_alone_and_reprinted_alone(cli, project, tmp_path):
    out = tmp_path / "out"
    build(cli, project, out)
    first = diff(cli, project, out)
    assert first["since"] == "no earlier build" and len(first["added"]) == 6 + 5
    sheet = project / "ships.csv"
    sheet.write_text(sheet.read_text().replace("Ignores the first Squall.",
                                               "Ignores every Squall."))
    done = build(cli, project, out, "--changed-only")
    found = diff(cli, project, out)
    assert found["since"] == "build 1"
    assert found["added"] == [] and found["removed"] == []
    assert found["changed"] == [{"card": "harbour/ships/Iron Maiden", "what": ["front"]}]
    assert "changed-only:" in done.stdout
    texts = page_texts(out / "changed.pdf")
    # Iron Maiden has 2 copies: front, back, front, back; no other card.
    assert len(texts) == 4
    assert all("Ignores every Squall." in t for t in texts[0::2])
    assert all("Iron Maiden" not in t for t in texts[1::2])       # the backs
    assert not any(name in " ".join(texts) for name in ("The Gull", "Kestrel", "Salt Runner"))
    boxes = PdfReader(out / "changed.pdf").pages[0]
    assert boxes.trimbox != boxes.mediabox


def test_added_removed_and_copies(cli, project, tmp_path):
    out = tmp_path / "out"
    build(cli, project, out)
    sheet = project / "ships.csv"
    rows = sheet.read_text().splitlines()
    kept = [r for r in rows if not r.startswith("Kestrel,")]
    kept = [r.replace("The Gull,blue,4,2,Ada Moor,1,", "The Gull,blue,4,2,Ada Moor,3,")
            for r in kept]
    kept.append("Sea Wolf,red,3,2,,1,Hunts the nearest ship.")
    sheet.write_text("\n".join(kept) + "\n")
    build(cli, project, out)
    found = diff(cli, project, out)
    assert found["added"] == ["harbour/ships/Sea Wolf"]
    assert found["removed"] == ["harbour/ships/Kestrel"]
    assert found["changed"] == [{"card": "harbour/ships/The Gull", "what": ["copies"]}]
    # An older build can be named; a build that is not there is bad usage (exit 2).
    assert diff(cli, project, out, "--since", "1") == found
    bad = cli("pnp", "diff", "--out", str(out), "--since", "7", cwd=project)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "7" in bad.stderr


def test_a_template_change_marks_only_the_cards_it_draws(cli, project, tmp_path):
    out = tmp_path / "out"
    build(cli, project, out)
    storm = project / "templates" / "harbour" / "storm.j2"
    storm.write_text(storm.read_text() + "\n- rect: {box: [2, 2, 4, 4], fill: \"#ff0000\"}\n")
    build(cli, project, out)
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


def test_diff_without_a_build(cli, project, tmp_path):
    done = cli("pnp", "diff", "--out", str(tmp_path / "none"), "--json", cwd=project)
    assert done.returncode == 1
    assert json.loads(done.stdout)["ok"] is False
    assert done.stderr.strip().startswith("pnp: no build recorded")


def test_proof_marks_the_changed_cards(cli, project, tmp_path):
    import re

    out = tmp_path / "out"
    build(cli, project, out)
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


def test_a_build_without_backs_keeps_the_backs_printed_before(cli, project, tmp_path):
    out = tmp_path / "out"
    build(cli, project, out)
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
