"""Issue 12, items 3 and 4, through `python -m pnp build` on copies of the bundled
cards.yaml: the text floor (print.min_text_pt) after all scaling, text cut at the floor
and reported (an error with --strict), characters drawn from the fallback font or named
in a warning, and font roles filled from the family with a notice."""

from __future__ import annotations

import html
import shutil
from functools import partial
from pathlib import Path

import pytest

from tests.harness import run_cli

ROOT = Path(__file__).resolve().parents[3]
COACH = "{name: Coach, type: Owner,"


pnp = partial(run_cli, "pnp")


def project(tmp_path: Path, *replacements: tuple[str, str]) -> Path:
    text = (ROOT / "cards.yaml").read_text(encoding="utf-8")
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new, 1)
    (tmp_path / "cards.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def coach_text(text: str) -> tuple[str, str]:
    """Replace the Coach owner card's text (the owners deck is a small build)."""
    return (f'{COACH} text: "Kill one of your own Team Members in End Phase to gain 1D6 MT"',
            f'{COACH} text: "{text}"')


@pytest.fixture(scope="module")
def symbols(tmp_path_factory):
    """The owners deck with `→ ★ 日本` in Coach's text."""
    folder = project(tmp_path_factory.mktemp("symbols"),
                     coach_text("Draw 1 \u2192 keep the \u2605 card. \u65e5\u672c"))
    result = pnp("build", "--only", "owners", "--out", "out", cwd=folder)
    assert result.returncode == 0, result.stderr
    return folder, result


def test_arrow_and_star_come_from_the_fallback_font(symbols, kit):
    folder, _ = symbols
    glyphs = kit.glyphs(folder / "out" / "x-statix" / "owners.pdf")
    drawn = {g.char: g for g in glyphs if g.page == 1}
    for char in "\u2192\u2605":                      # Vera has neither
        assert char in drawn
        assert "DejaVuSans" in drawn[char].font and drawn[char].embedded
    assert "BitstreamVera" in drawn["D"].font          # the rest stays in the card font
    assert all(g.embedded for g in glyphs)


def test_a_character_no_font_has_is_a_warning_naming_card_element_and_character(symbols):
    _, result = symbols
    lines = [line for line in result.stderr.splitlines() if "no font has" in line]
    assert len(lines) == 1, result.stderr
    assert "x-statix/owners: Coach: rules:" in lines[0]
    assert "'\u65e5' (U+65E5)" in lines[0] and "'\u672c' (U+672C)" in lines[0]
    assert "\u2192" not in lines[0] and "\u2605" not in lines[0]


def test_strict_makes_a_missing_glyph_an_error(symbols):
    folder, _ = symbols
    result = pnp("build", "--only", "owners", "--out", "strict", "--strict", cwd=folder)
    assert result.returncode == 1
    assert "Coach: rules: no font has" in result.stderr and "[--strict]" in result.stderr
    assert not (folder / "strict" / "x-statix" / "owners.pdf").exists()


def test_a_higher_floor_raises_every_glyph_and_reports_what_no_longer_fits(tmp_path, kit):
    folder = project(tmp_path, ("  min_text_pt: 6 ", "  min_text_pt: 12 "))
    result = pnp("build", "--only", "owners", "--out", "out", cwd=folder)
    assert result.returncode == 0, result.stderr
    glyphs = kit.glyphs(folder / "out" / "x-statix" / "owners.pdf")
    assert min(g.size for g in glyphs) >= 12 - 0.01
    # the footer is 6 pt in a 4.2 mm box: at 12 pt (4.9 mm high) it no longer fits
    cut = [line for line in result.stderr.splitlines()
           if "even at 12 pt (print.min_text_pt)" in line]
    assert any(": footer: text does not fit its" in line for line in cut), result.stderr
    assert all(line.startswith("warning: x-statix/owners: ") for line in cut)
    assert "\u2026" in "".join(g.char for g in glyphs)     # cut with an ellipsis
    strict = pnp("build", "--only", "owners", "--out", "strict", "--strict", cwd=folder)
    assert strict.returncode == 1 and "print.min_text_pt" in strict.stderr


def test_font_roles_left_out_come_from_the_family_with_a_notice(tmp_path, kit):
    from pnp.draw.fonts import FALLBACK_DIR

    fonts = tmp_path / "fonts"
    fonts.mkdir()
    for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"):   # no oblique faces
        shutil.copy(FALLBACK_DIR / name, fonts / name)
    folder = project(tmp_path, ("  fonts: {}", "  fonts: {regular: fonts/DejaVuSans.ttf}"))
    result = pnp("build", "--only", "owners", "--out", "out", cwd=folder)
    assert result.returncode == 0, result.stderr
    notices = [line for line in result.stderr.splitlines() if line.startswith("notice: ")]
    assert notices == [
        "notice: print.fonts.bold not set: using fonts/DejaVuSans-Bold.ttf, the bold face "
        "of the family of print.fonts.regular",
        "notice: print.fonts.italic not set and its family has no italic face next to it: "
        "italic text is drawn with the regular font (fonts/DejaVuSans.ttf)",
        "notice: print.fonts.bolditalic not set and its family has no bolditalic face next "
        "to it: bolditalic text is drawn with the bold font (fonts/DejaVuSans-Bold.ttf)",
    ]
    used = {g.font.split("+")[-1] for g in kit.glyphs(folder / "out" / "x-statix" / "owners.pdf")}
    assert used == {"DejaVuSans", "DejaVuSans-Bold"}          # no Vera face mixed in


def test_the_default_fonts_need_no_notice():
    from pnp.draw.fonts import font_choice

    files, notices = font_choice({}, ROOT)
    assert notices == [] and {p.name for p in files.values()} == {
        "Vera.ttf", "VeraBd.ttf", "VeraIt.ttf", "VeraBI.ttf"}


def test_the_proof_gallery_shows_floor_and_glyph_warnings(tmp_path):
    folder = project(tmp_path, ("  min_text_pt: 6 ", "  min_text_pt: 12 "),
                     coach_text("Pay 1 MT. \u65e5\u672c"))
    result = pnp("proof", "--deck", "owners", "--out", "proofs", cwd=folder)
    assert result.returncode == 0, result.stderr
    index = html.unescape((folder / "proofs" / "index.html").read_text(encoding="utf-8"))
    coach = index[index.index("<b>Coach</b>"):]
    coach = coach[:coach.index("</figure>")]
    assert "rules: no font has the characters '\u65e5' (U+65E5), '\u672c' (U+672C)" in coach
    assert "footer: text does not fit" in coach and "12 pt (print.min_text_pt)" in coach
    strict = pnp("proof", "--deck", "owners", "--out", "proofs", "--strict", cwd=folder)
    assert strict.returncode == 1


def test_sheet_headings_draw_from_the_fallback_and_name_what_no_font_has(tmp_path, kit):
    """The token sheet's heading is made of the token's name in cards.yaml."""
    folder = project(tmp_path, ("name: Money Token,", "name: Money \u2192 Token \u65e5,"))
    result = pnp("build", "--only", "tokens", "--out", "out", cwd=folder)
    assert result.returncode == 0, result.stderr
    assert ("warning: x-statix/(tokens): page: heading: no font has '\u65e5' (U+65E5)"
            in result.stderr), result.stderr
    assert "x-statix/(tokens): money: name: no font has" in result.stderr   # on the token
    arrows = [g for g in kit.glyphs(folder / "out" / "x-statix" / "tokens.pdf")
              if g.char == "\u2192"]
    assert arrows and all("DejaVuSans" in g.font for g in arrows)
