"""`pnp build` through click: options, table, warnings, one-line errors and exit codes.

The renderer here is the stand-in from conftest.py (the look is tested on its own);
test_build_bundled.py runs the real command end to end."""

from __future__ import annotations

import json
import shutil
import types
from pathlib import Path

import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from pnp.cli.main import main

ROOT = Path(__file__).resolve().parents[3]
PT = 72 / 25.4


@pytest.fixture
def project(tmp_path, monkeypatch, standin):
    """A project folder holding a copy of the bundled cards.yaml, as the cwd, with the
    stand-in renderer in place of pnp.draw.render."""
    shutil.copy(ROOT / "cards.yaml", tmp_path / "cards.yaml")
    monkeypatch.chdir(tmp_path)
    from pnp.draw.render import RenderError

    fake = types.ModuleType("pnp.draw.render")
    fake.CardRenderer, fake.RenderError = standin, RenderError
    monkeypatch.setitem(__import__("sys").modules, "pnp.draw.render", fake)
    return tmp_path


def run(*args):
    return CliRunner().invoke(main, ["build", *args])


def edit_cards(folder: Path, old: str, new: str) -> None:
    path = folder / "cards.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_build_one_game_writes_table(project):
    result = run("--game", "x-statix", "--out", "out")
    assert result.exit_code == 0, result.stderr
    for name in ("common", "owners", "team-names", "tokens", "reference", "calibration"):
        assert (project / "out" / "x-statix" / f"{name}.pdf").is_file()
    assert not (project / "out" / "xo").exists()
    lines = result.stdout.splitlines()
    assert lines[0] == f"reading {(project / 'cards.yaml').resolve()}"  # the database read
    assert lines[1].startswith("building ")  # plain lines, not a terminal
    header = next(i for i, line in enumerate(lines) if line.startswith("file"))
    rows = {line.split()[0]: line.split()[1:] for line in lines[header + 1:]}
    assert rows["out/x-statix/owners.pdf"] == ["2", "3"]
    common = PdfReader(project / "out" / "x-statix" / "common.pdf")
    assert rows["out/x-statix/common.pdf"][0] == str(len(common.pages))


def test_only_and_print_profile_defaults_with_cli_overrides(project):
    edit_cards(project, "paper: letter", "paper: a4")
    assert run("--only", "owners", "--out", "out").exit_code == 0
    box = PdfReader(project / "out" / "x-statix" / "owners.pdf").pages[0].mediabox
    assert round(float(box.width) / PT, 1) == 210.0  # a4 from the profile
    assert run("--only", "owners", "--out", "out", "--paper", "letter").exit_code == 0
    box = PdfReader(project / "out" / "x-statix" / "owners.pdf").pages[0].mediabox
    assert round(float(box.width) / PT, 1) == 215.9  # the option wins


def test_no_backs_and_fold(project):
    assert run("--only", "owners", "--out", "out", "--no-backs").exit_code == 0
    assert len(PdfReader(project / "out" / "x-statix" / "owners.pdf").pages) == 1
    assert run("--only", "owners", "--out", "out", "--fold").exit_code == 0
    page = PdfReader(project / "out" / "x-statix" / "owners.pdf").pages[0]
    assert float(page.mediabox.width) > float(page.mediabox.height)


@pytest.mark.parametrize("args, code, needle", [
    (["--only", "nope"], 2, "unknown artefact 'nope'"),
    (["--game", "chess"], 2, "unknown game 'chess'"),
    (["--back-offset", "1;2"], 2, "X,Y"),
    (["--paper", "legal"], 2, "legal"),
    (["--fold", "--no-backs"], 2, "--fold"),
    (["--printer-margin", "-1"], 2, "printer margin -1 mm must be from 0 to 25 mm"),
    (["--printer-margin", "wide"], 2, "wide"),
    (["--layout", "tight"], 2, "tight"),
])
def test_bad_usage_is_one_line_exit_2(project, args, code, needle):
    result = run(*args, "--out", "out")
    assert result.exit_code == code
    assert needle in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_json_error_is_a_json_object_too(project):
    result = run("--only", "nope", "--out", "out", "--json")
    assert result.exit_code == 2
    error = json.loads(result.stdout)
    assert set(error) == {"ok", "error", "exit_code"} and error["exit_code"] == 2
    assert error["ok"] is False
    assert error["error"].startswith("unknown artefact 'nope'")
    assert result.stderr.splitlines()[-1].startswith("pnp: unknown artefact 'nope'")
    # a usage error that click itself reports
    result = run("--layout", "tight", "--out", "out", "--json")
    assert result.exit_code == 2 and "tight" in json.loads(result.stdout)["error"]


def first_front(stdout: str, path: str) -> list:
    report = json.loads(stdout)
    art = next(a for a in report["artefacts"] if a["path"] == path)
    return art["pages"][0]["cards"]


def test_printer_margin_from_the_profile_and_the_command_line(project):
    # 5 mm (default): 3 x 3 poker on Letter; 6.35 mm leaves no room for the guides of
    # the vertical trim lines above and below three rows, so two rows.
    result = run("--only", "common", "--out", "out", "--json")
    assert result.exit_code == 0 and len(first_front(result.stdout, "x-statix/common.pdf")) == 9
    result = run("--only", "common", "--out", "out", "--json", "--printer-margin", "6.35")
    assert result.exit_code == 0 and len(first_front(result.stdout, "x-statix/common.pdf")) == 6
    edit_cards(project, "printer_margin_mm: 5", "printer_margin_mm: 6.35")
    result = run("--only", "common", "--out", "out2", "--json")
    assert len(first_front(result.stdout, "x-statix/common.pdf")) == 6
    trims = [c["trim_mm"] for c in first_front(result.stdout, "x-statix/common.pdf")]
    assert min(t[1] for t in trims) >= 6.35 and min(t[0] for t in trims) >= 6.35


def test_broken_database_exit_1(project):
    edit_cards(project, "bleed_mm: 3.175", "bleed_mm: lots")
    result = run("--out", "out")
    assert result.exit_code == 1
    assert result.stderr.startswith("pnp: cards.yaml:") and len(result.stderr.splitlines()) == 1


def test_missing_image_and_escaping_path(project):
    edit_cards(project, "{name: Coach, type: Owner,", "{name: Coach, type: Owner, image: art/coach.png,")
    result = run("--out", "out")
    assert result.exit_code == 1 and "art/coach.png" in result.stderr
    assert "'Coach'" in result.stderr and len(result.stderr.splitlines()) == 1
    edit_cards(project, "art/coach.png", "../outside.png")
    result = run("--out", "out")
    assert result.exit_code == 1 and "escapes the project folder" in result.stderr


def test_missing_font(project):
    edit_cards(project, "fonts: {}", "fonts: {bold: fonts/Heavy.ttf}")
    result = run("--out", "out")
    assert result.exit_code == 1 and "fonts/Heavy.ttf" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_unwritable_output_folder(project):
    (project / "file").write_text("a file, not a folder")
    result = run("--only", "owners", "--out", "file")
    assert result.exit_code == 2 and "is a file" in result.stderr
    # The game's folder cannot be made (a file has its name): running as root, chmod
    # would not stop us, so this is the portable way to make it unwritable.
    (project / "blocked").mkdir()
    (project / "blocked" / "x-statix").write_text("in the way")
    result = run("--only", "owners", "--out", "blocked")
    assert result.exit_code == 2
    assert "cannot write to output folder" in result.stderr and len(result.stderr.splitlines()) == 1
    # An output folder whose parent is a file: neither the build nor its manifest of
    # up-to-date artefacts may end in a traceback.
    result = run("--only", "owners", "--out", "file/inside")
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert "cannot write to output folder" in result.stderr and len(result.stderr.splitlines()) == 1


def test_overflow_warned_once_per_card_and_strict_fails(project):
    # The stand-in reports an overflow for names starting "Overflow"; 3 copies, one warning.
    edit_cards(project, "{name: Coach, type: Owner,", "{name: Overflow Coach, copies: 3, type: Owner,")
    result = run("--only", "owners", "--out", "out")
    assert result.exit_code == 0
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == ["warning: x-statix/owners: Overflow Coach: text: text does not fit"]
    result = run("--only", "owners", "--out", "out", "--strict")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == warnings[0]
    assert "a warning above with --strict: nothing written" in result.stderr.splitlines()[1]
    assert len(result.stderr.splitlines()) == 2


def _outputs(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes()
            for p in sorted(out.rglob("*")) if p.is_file()}


def test_a_refused_strict_build_leaves_every_output_byte_identical(project):
    """Issue 22 item 4: --strict lists every warning and replaces nothing, neither the
    deck it refuses nor the decks built before it in the same run."""
    result = run("--game", "x-statix", "--out", "out")
    assert result.exit_code == 0, result.stderr
    before = _outputs(project / "out")
    assert "x-statix/owners.pdf" in before and "x-statix/common.pdf" in before
    # four overflowing cards in two decks, and an edit to the common deck (built first)
    names = [("Coach", "Owner", "owners"), ("Spike Freeman", "Owner", "owners"),
             ("X-Force", "Team Name", "team-names"), ("O-Force", "Team Name", "team-names")]
    for name, kind, _ in names:
        edit_cards(project, f"{{name: {name}, type: {kind},",
                   f"{{name: Overflow {name}, type: {kind},")
    edit_cards(project, "{name: Movies, type: Marketing,", "{name: Films, type: Marketing,")
    result = run("--game", "x-statix", "--out", "out", "--strict")
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    listed = sorted(line for line in lines if line.startswith("warning:"))
    assert listed == sorted(f"warning: x-statix/{deck}: Overflow {name}: text: text does not fit"
                            for name, _, deck in names)
    assert "(and" not in result.stderr
    assert lines[-1].endswith(f"4 warnings above with --strict: nothing written, "
                              f"{Path('out')} is as it was [--strict]")
    assert _outputs(project / "out") == before          # byte-identical, no .part left
    # the same build without --strict writes the decks it refused
    result = run("--game", "x-statix", "--out", "out")
    assert result.exit_code == 0, result.stderr
    assert (project / "out" / "x-statix" / "owners.pdf").read_bytes() != before[
        "x-statix/owners.pdf"]


def test_a_failed_build_replaces_nothing_it_drew_before_failing(project, monkeypatch,
                                                                standin):
    """Any error, not only --strict: the decks drawn before the failure stay as they
    were (no .part left), and the next build redoes them."""
    from pnp.draw.render import RenderError

    result = run("--game", "x-statix", "--out", "out")
    assert result.exit_code == 0, result.stderr
    before = _outputs(project / "out")
    edit_cards(project, "{name: Movies, type: Marketing,", "{name: Films, type: Marketing,")
    edit_cards(project, "{name: Coach, type: Owner,", "{name: Broken Coach, type: Owner,")
    drawn = standin.draw_front

    def draw_front(self, canvas, card, *args):
        if card.name.startswith("Broken"):
            raise RenderError(f"templates/x-statix/owner.j2:3: {card.name}: broken")
        return drawn(self, canvas, card, *args)

    monkeypatch.setattr(standin, "draw_front", draw_front)
    result = run("--game", "x-statix", "--out", "out")
    assert result.exit_code == 1 and "Broken Coach: broken" in result.stderr
    assert "building out/x-statix/common.pdf" in result.stdout.replace("\\", "/")
    assert _outputs(project / "out") == before
    monkeypatch.setattr(standin, "draw_front", drawn)
    result = run("--game", "x-statix", "--out", "out")
    assert result.exit_code == 0, result.stderr
    assert "building out/x-statix/common.pdf" in result.stdout.replace("\\", "/")


def test_template_error_is_one_line(project, monkeypatch, standin):
    import jinja2

    class Broken(standin):
        def draw_front(self, *args):
            jinja2.Environment().from_string("{% if %}")

    monkeypatch.setattr(__import__("sys").modules["pnp.draw.render"], "CardRenderer", Broken)
    result = run("--only", "owners", "--out", "out")
    assert result.exit_code == 1
    assert "template syntax error" in result.stderr and len(result.stderr.splitlines()) == 1


def test_fonts_named_in_the_profile_are_embedded(project):
    from pnp.draw.fonts import reportlab_font_dir

    (project / "fonts").mkdir()
    shutil.copy(reportlab_font_dir() / "VeraBI.ttf", project / "fonts" / "Display.ttf")
    edit_cards(project, "fonts: {}", "fonts: {bold: fonts/Display.ttf}")
    result = run("--only", "owners", "--out", "out")
    assert result.exit_code == 0, result.stderr
    data = (project / "out" / "x-statix" / "owners.pdf").read_bytes()
    # The stand-in draws names in bold: now Vera Bold Oblique (its PostScript name).
    assert b"BitstreamVeraSans-BoldOblique" in data and b"/FontFile2" in data
