"""pnp against hostile input (issue 16): no file written outside --out, no file read
outside the project, no hang, no traceback, no stale print. Each class is built for real
and run through the CLI under memory and CPU limits (resource), or through the public
functions where the CLI's validation would stop the input first."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from functools import partial
from pathlib import Path

import pytest

from tests.carddb.bounded import Command, run_bounded
from tests.harness import run_cli
from tests.pdftext import page_texts
from tests.pnp.hostile_support import Run

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "minimal-cards.yaml"


pnp = partial(run_cli, "pnp")


def one_line_error(run: subprocess.CompletedProcess | Run, code: int, *needles: str) -> str:
    assert run.returncode == code, (run.returncode, run.stdout[-500:], run.stderr[-2000:])
    assert "Traceback" not in run.stderr
    lines = [ln for ln in run.stderr.splitlines() if ln.startswith("pnp:")]
    assert len(lines) == 1, run.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def listing(root: Path) -> set[str]:
    """Every path under `root` (the filesystem around a run)."""
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def project(tmp_path: Path, text: str | None = None) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "cards.yaml").write_text(text if text is not None else FIXTURE.read_text(encoding="utf-8"),
                                       encoding="utf-8")
    shutil.copytree(ROOT / "templates", folder / "templates")
    return folder


# ── 1. files written outside --out ────────────────────────────────────────────────


@pytest.mark.parametrize("command", [
    ["build", "--game", "x-statix", "--only", "calibration"],
    ["export", "png", "--deck", "owners"],
    ["export", "tts", "--deck", "owners"],
    ["export", "pdf-single", "--deck", "owners"],
    ["proof", "--deck", "owners"],
], ids=lambda c: " ".join(c[:2]))
def test_escaping_deck_id_writes_nothing_outside_out(tmp_path, command):
    text = FIXTURE.read_text(encoding="utf-8").replace("      owners:", "      ../../../escaped-deck:", 1)
    folder = project(tmp_path, text)
    before = listing(tmp_path)
    run = pnp(*command, "--out", "out", cwd=folder)
    one_line_error(run, 1, "a deck id becomes a file name")
    assert listing(tmp_path) == before


def test_build_refuses_an_output_subfolder_that_links_elsewhere(tmp_path):
    folder = project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (folder / "out").mkdir()
    (folder / "out" / "x-statix").symlink_to(elsewhere)
    run = pnp("build", "--game", "x-statix", "--only", "calibration", "--out", "out", cwd=folder)
    one_line_error(run, 1, "leaves the output folder")
    assert list(elsewhere.iterdir()) == []


def test_every_writer_checks_its_paths(tmp_path):
    """Past validation (a database made in memory), the writers still refuse."""
    from dataclasses import replace

    import carddb
    from pnp.artefacts import build as b
    from pnp.artefacts.single import Face
    from pnp.exports.cards import export_pdf_single, export_png
    from pnp.exports.proof import proof_faces
    from pnp.exports.tts import export_tts
    from pnp.outpaths import OutsideOutput

    db = carddb.load(FIXTURE)
    out = tmp_path / "out"
    with pytest.raises(b.BuildError, match="not a usable file name"):
        b.Artefact("x-statix", "../../escaped", "deck", "t", deck="owners").path(out)
    deck = replace(db.games["x-statix"].decks["owners"], id="../../escaped")
    faces = [Face(deck, deck.cards[0]), Face(deck)]

    class Refusing:                     # never reached: the path is checked first
        fonts = {"regular": "Helvetica"}

        def draw_front(self, *a):
            raise AssertionError("drew before checking the path")

        draw_back = draw_front

    before = listing(tmp_path)
    for write in (lambda: export_png(db, faces, Refusing(), out),
                  lambda: export_pdf_single(db, faces, Refusing(), out),
                  lambda: export_tts(db, faces, Refusing(), out),
                  lambda: proof_faces(db, faces, Refusing(), out)):
        with pytest.raises((OutsideOutput, b.BuildError)):
            write()
    assert listing(tmp_path) - before <= {"out", "out/x-statix"}


# ── 2. files read outside the project ─────────────────────────────────────────────


def test_template_symlink_out_of_the_templates_folder_is_refused(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT")
    folder = project(tmp_path)
    (folder / "templates" / "x-statix" / "leak.j2").symlink_to(secret)
    (folder / "templates" / "x-statix" / "owner.j2").write_text('{% include "x-statix/leak.j2" %}\n')
    run = pnp("build", "--game", "x-statix", "--only", "owners", "--out", "out", cwd=folder)
    line = one_line_error(run, 1, "templates/x-statix/leak.j2", "leaves the templates folders")
    assert "TOP-SECRET" not in run.stderr + run.stdout, line


def _hostile_template(folder: Path) -> None:
    (folder / "templates" / "x-statix" / "owner.j2").write_text(
        "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}\n")


def _bomb_png(folder: Path) -> None:
    from tests.pnp.hostile_support import flat_png

    (folder / "art").mkdir()
    flat_png(folder / "art" / "bomb.png", 20000, 20000)
    cards = folder / "cards.yaml"
    cards.write_text(cards.read_text().replace("{name: Coach, type: Owner,",
                                               "{name: Coach, type: Owner, image: art/bomb.png,", 1))


def _fifo_template(folder: Path) -> None:
    owner = folder / "templates" / "x-statix" / "owner.j2"
    owner.unlink()
    os.mkfifo(owner)


# Last, the fifo: were it to hang, the timeout ends the process after the others are done.
BOUNDED = {"hostile-template": _hostile_template, "bomb-png": _bomb_png,
           "fifo-template": _fifo_template}


@pytest.fixture(scope="module")
def bounded(tmp_path_factory) -> dict[str, Run]:
    """`pnp build` of the Owners of each of BOUNDED's projects, all in one process bounded
    to 800 MB and 60 s of CPU, a hang killed by the timeout (a blow-up fails the test,
    not the machine): each command's exit status and output its own (tests/carddb/
    bounded.py). A process each cost more than the builds (issue 34)."""
    commands = []
    for name, make in BOUNDED.items():
        root = tmp_path_factory.mktemp(name)
        folder = project(root)
        make(folder)
        commands.append(Command(("build", "--game", "x-statix", "--only", "owners", "--out",
                                 "out"), folder, root))
    runs = run_bounded(commands, tmp_path_factory.mktemp("bounded"), max_mb=800, timeout=60)
    return dict(zip(BOUNDED, runs, strict=True))


def test_template_fifo_is_refused_without_hanging(bounded):
    one_line_error(bounded["fifo-template"], 1, "templates/x-statix/owner.j2",
                   "not a regular file")


# ── 3. a stale print reported "up to date" ────────────────────────────────────────


def test_a_save_during_the_build_is_rebuilt_next_time(tmp_path, monkeypatch):
    """The manifest records the bytes the build read: a card saved while the build runs
    makes the next build redo that deck (and print the new text)."""
    import pnp.artefacts.build as b
    from pnp.cli.watch import run_command

    folder = project(tmp_path)
    monkeypatch.chdir(folder)
    cards = folder / "cards.yaml"
    original = b.build_artefact
    saved = []

    def saving_midway(db, art, *args, **kwargs):
        result = original(db, art, *args, **kwargs)
        if not saved:                            # the designer saves during the build
            cards.write_text(cards.read_text().replace("Max Hand Size = 7", "Max Hand Size = 9"))
            saved.append(art.name)
        return result

    monkeypatch.setattr(b, "build_artefact", saving_midway)
    assert run_command(["build", "--game", "x-statix", "--only", "owners", "--out", "out"]) == 0
    assert saved == ["owners"]
    monkeypatch.setattr(b, "build_artefact", original)
    again = pnp("build", "--game", "x-statix", "--only", "owners", "--out", "out", cwd=folder)
    assert again.returncode == 0, again.stderr
    assert "nothing to do" not in again.stdout and "building" in again.stdout
    text = "".join(page_texts(folder / "out" / "x-statix" / "owners.pdf"))
    assert "Max Hand Size = 9" in text


# ── 7. unbounded work from templates ──────────────────────────────────────────────

PROBES = {
    "nested-range": ("{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
                     "loop steps and calls"),
    "folded-power": ("- text: {box: [0, 0, 1, 1], text: {{ 9**(9**9) }}}", "larger than 2**256"),
    "power-of-a-field": ("- text: {box: [0, 0, 1, 1], text: {{ (W|int)**(10**9) }}}", "larger than 2**256"),
    "pairs-width": ('- text: {box: [0, 0, 1, 1], text: {{ {"a": 1}|pairs("%999999999s %s") }}}',
                    "printf field width"),
    "printf-width": ('- text: {box: [0, 0, 1, 1], text: {{ "%999999999d" % 1 }}}', "printf field width"),
    "format-width": ('- text: {box: [0, 0, 1, 1], text: {{ "{:999999999}".format(1) }}}', "format width"),
    "string-repeat": ('- text: {box: [0, 0, 1, 1], text: {{ "word " * 200000 }}}', "repeats a str"),
    "concat-doubling": ('{% set ns = namespace(s="xxxxxxxxxx") %}{% for i in range(40) %}'
                        "{% set ns.s = ns.s ~ ns.s %}{% endfor %}", "builds a str"),
    "center-filter": ('{{ "x"|center(1000000000) }}', "more than 100,000"),
    "str-method": ('{{ "x".ljust(1000000000) }}', "str.ljust"),
    "replace-growth": ('{% set s = "x" * 50000 %}{{ s.replace("", s) }}', "more than 100,000"),
    "batch-fill": ("{{ [1]|batch(1000000000, 0)|list|length }}", "batch"),
    "constant-text-loop": ("{% for i in range(100000) %}{% for j in range(100) %}" + "y" * 1000
                           + "{% endfor %}{% endfor %}", "loop steps and calls"),
    "alias-bomb-output": ("".join(f"- &a{i} [" + ", ".join([f"*a{i - 1}" if i else "1"] * 10) + "]\n"
                                  for i in range(8)), "alias"),
    "recursive-macro": ("{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", "recursion"),
    "exponential-macro": ("{% macro f(n) %}{% if n %}{{ f(n-1) }}{{ f(n-1) }}{% endif %}{% endmacro %}"
                          "{{ f(40) }}", "took more than 0.5 s"),
}


@pytest.mark.parametrize("name", PROBES)
def test_template_work_is_bounded(tmp_path, monkeypatch, name):
    from carddb import limits
    from pnp.draw.templates import TemplateError, Templates

    # The time limit is tested alone (the other probes stop on a count, whatever the speed).
    monkeypatch.setattr(limits, "TEMPLATE_SECONDS", 0.5 if name == "exponential-macro" else 60)
    source, message = PROBES[name]
    (tmp_path / "x-statix").mkdir()
    (tmp_path / "x-statix" / "probe.j2").write_text(source)
    templates = Templates([tmp_path])
    started = time.perf_counter()
    with pytest.raises(TemplateError) as caught:
        templates.render("x-statix/probe.j2", {"W": 63}, "card 'Probe'")
    assert time.perf_counter() - started < 10
    text = str(caught.value)
    assert "\n" not in text and message in text, text
    assert "x-statix/probe.j2" in text.split(": ")[0] and text.endswith("(card 'Probe')"), text


def test_bounded_sandbox_still_draws_ordinary_templates(tmp_path):
    from pnp.draw.templates import Templates

    (tmp_path / "x-statix").mkdir()
    (tmp_path / "x-statix" / "ok.j2").write_text(
        '{% for i in range(3) %}- text: {box: [0, {{ i * 5 }}, 10, 5], text: {{ "%s x %3d"|format(card, i ** 2) }}}\n'
        '{% endfor %}')
    out = Templates([tmp_path]).render("x-statix/ok.j2", {"card": "Zeitgeist"}, "card 'Zeitgeist'")
    assert [e["text"]["text"] for e in out] == ["Zeitgeist x   0", "Zeitgeist x   1", "Zeitgeist x   4"]


def test_hostile_template_stops_the_build_with_one_line(bounded):
    one_line_error(bounded["hostile-template"], 1, "templates/x-statix/owner.j2:1:",
                   "loop steps", "(card 'Coach')")


# ── 8. odd input: images, fonts, options ──────────────────────────────────────────


def test_decompression_bomb_png_is_one_line(bounded):
    one_line_error(bounded["bomb-png"], 1, "bomb.png", "more than 100,000,000 pixels (limit)")


def test_truncated_font_is_one_line(tmp_path):
    from pnp.draw.fonts import reportlab_font_dir

    folder = project(tmp_path)
    (folder / "fonts").mkdir()
    (folder / "fonts" / "cut.ttf").write_bytes((reportlab_font_dir() / "Vera.ttf").read_bytes()[:3000])
    cards = folder / "cards.yaml"
    cards.write_text(cards.read_text().replace("  fonts: {}", "  fonts: {regular: fonts/cut.ttf}", 1))
    run = pnp("build", "--game", "x-statix", "--only", "owners", "--out", "out", cwd=folder)
    one_line_error(run, 1, "cut.ttf", "cannot be used")


@pytest.mark.parametrize("offset,message", [
    ("1e308,0", "within -50 and 50 mm"),
    ("nan,0", "finite"),
    ("0,-inf", "finite"),
])
def test_back_offset_out_of_range_is_a_usage_error(tmp_path, offset, message):
    run = pnp("build", "--only", "calibration", "--back-offset", offset, "--out",
              str(tmp_path / "out"), cwd=ROOT)
    one_line_error(run, 2, message)
    assert not (tmp_path / "out").exists()


def test_5000_character_output_name_is_one_line(tmp_path):
    run = pnp("build", "--only", "calibration", "--out", "x" * 5000, cwd=tmp_path)
    assert run.returncode in (1, 2) and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_huge_text_element_is_refused_before_fitting(tmp_path):
    # "word " * 200000 took 28 s to fit; the sandbox stops that one, and a text element
    # is limited too (75,000 characters here: under the sandbox's string limit).
    folder = project(tmp_path)
    (folder / "templates" / "x-statix" / "owner.j2").write_text(
        '- text: {box: [5, 5, 50, 50], text: {{ "word " * 15000 }}}\n')
    started = time.perf_counter()
    run = pnp("build", "--game", "x-statix", "--only", "owners", "--out", "out", cwd=folder)
    assert time.perf_counter() - started < 30
    one_line_error(run, 1, "owner.j2", "more than 50,000 in one element (limit)", "'Coach'")


def test_watch_refuses_a_nan_interval(tmp_path):
    run = pnp("watch", "--interval", "nan", cwd=tmp_path, timeout=20)
    one_line_error(run, 2, "--interval")
