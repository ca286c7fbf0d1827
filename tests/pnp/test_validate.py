"""`pnp validate` sees what `pnp build` refuses or warns about (issue 22, item 3): each
broken project is refused with one located line (exit 1), warnings are listed, and
nothing is written. Real projects from `pnp init`, through the CLI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.pnp.starter_copies import fresh_copy, make_starter

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def starter(tmp_path_factory) -> Path:
    """A `pnp init` project (made once; each test edits a copy)."""
    return make_starter(tmp_path_factory.mktemp("starter") / "game")


@pytest.fixture(scope="module")
def playground(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("validate")


@pytest.fixture
def game(starter, playground) -> Path:
    """A fresh copy of the starter, at one path for every test (tests/pnp/starter_copies)."""
    return fresh_copy(starter, playground)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _files(folder: Path) -> set[Path]:
    return {p.relative_to(folder) for p in folder.rglob("*")}


def _refused(cli, game: Path, n: int = 1) -> str:
    """The first problem line of a refused validate (`n` lines: one per artefact the
    problem stops, each located); nothing was written."""
    before = _files(game)
    result = cli("pnp", "validate", cwd=game)
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if not line.startswith("notice:")]
    assert lines[-1] == f"{n} problem{'s' if n > 1 else ''} found", result.stderr
    assert len(lines) == n + 1, result.stderr
    assert _files(game) == before                       # no output/, no .part files
    return lines[0]


def test_the_starter_project_is_valid_and_validate_writes_nothing(cli, game):
    before = _files(game)
    result = cli("pnp", "validate", cwd=game)
    assert result.returncode == 0, result.stderr
    assert "cards.yaml: valid (1 games, 2 decks, 11 card designs)" in result.stdout
    assert "warning" not in result.stderr
    assert _files(game) == before


def test_a_syntax_error_in_an_imported_template_names_that_file_and_line(cli, game):
    look = game / "templates" / "harbour" / "_look.j2"
    _edit(look, "{% endmacro %}", "{% endmacro %}\n{% if %}")
    line = _refused(cli, game)
    assert line.startswith("templates/harbour/_look.j2:29: template syntax error:"), line


def test_a_value_error_inside_an_imported_macro_names_the_macro_file(cli, game):
    look = game / "templates" / "harbour" / "_look.j2"
    _edit(look, "text: {{ card.type | upper }}", "text: {{ card.typo | upper }}")
    line = _refused(cli, game, n=2)          # both decks' cards use the frame
    assert line.startswith("templates/harbour/_look.j2:26: card has no field 'typo' "
                           "(did you mean 'type'?)"), line


def test_a_misspelt_declared_field_gets_a_did_you_mean(cli, game):
    _edit(game / "templates" / "harbour" / "ship.j2", "value: {{ card.speed }}",
          "value: {{ card.sped }}")
    line = _refused(cli, game)
    assert line == ("templates/harbour/ship.j2:12: card has no field 'sped' (did you mean "
                    "'speed'?) (card 'The Gull')"), line


def test_an_optional_field_used_untested_says_how_to_test_it(cli, game):
    _edit(game / "templates" / "harbour" / "ship.j2", '{% if card.get("captain") %}',
          "{% if true %}")
    line = _refused(cli, game)
    assert line.startswith("templates/harbour/ship.j2:17: card has no value for its "
                           "optional field 'captain': test it first"), line
    assert "(card 'Iron Maiden')" in line


def test_a_misspelt_variable_gets_a_did_you_mean(cli, game):
    _edit(game / "templates" / "harbour" / "ship.j2", "{{ card.speed }}", "{{ crad.speed }}")
    line = _refused(cli, game)
    assert "ship.j2:12: 'crad' is undefined (did you mean 'card'?)" in line, line


def test_a_card_type_without_a_template(cli, game):
    (game / "templates" / "harbour" / "storm.j2").unlink()
    line = _refused(cli, game)
    assert re.fullmatch(r"cards\.yaml:\d+:\d+: card 'Squall' of type 'Storm': no template "
                        r"templates/harbour/storm\.j2", line), line


@pytest.mark.parametrize("template", ["die-face.j2", "token.j2"], ids=["dice", "tokens"])
def test_declared_dice_or_tokens_without_their_template(cli, game, template):
    # the starter declares a die and tokens (issue 21): take away the template that draws them
    assert "dice:" in (game / "cards.yaml").read_text() and "tokens:" in (game / "cards.yaml").read_text()
    (game / "templates" / "harbour" / template).unlink()
    line = _refused(cli, game)
    assert line == f"templates/harbour/{template}: template not found", line


def _art(game: Path, content: bytes | tuple[int, int]) -> None:
    """Squall draws `art.png` (bytes as given, or a navy PNG of that many pixels:
    dark enough for the white text it covers to keep its contrast)."""
    storm = game / "templates" / "harbour" / "storm.j2"
    storm.write_text(storm.read_text() + "{% if card.image %}\n- image: {path: "
                     "{{ card.image }}, box: [6, 17, 51.5, 30], fit: cover}\n{% endif %}\n")
    _edit(game / "cards.yaml", "- {name: Squall, type: Storm,",
          "- {name: Squall, type: Storm, image: art.png,")
    if isinstance(content, bytes):
        (game / "art.png").write_bytes(content)
    else:
        from PIL import Image

        Image.new("RGB", content, "navy").save(game / "art.png")


def test_art_that_is_not_an_image(cli, game):
    _art(game, b"not a picture\n")
    line = _refused(cli, game)
    assert line == ("card 'Squall': image 'art.png' cannot be read: not an image file "
                    "(PNG, JPEG, WebP, GIF, TIFF or BMP)"), line


def test_missing_art(cli, game):
    _art(game, b"")
    (game / "art.png").unlink()
    line = _refused(cli, game)
    assert line.startswith("cards.yaml:") and "image file 'art.png' not found" in line, line


def _warned(cli, game: Path, *flags: str) -> list[str]:
    result = cli("pnp", "validate", *flags, cwd=game)
    assert "Traceback" not in result.stderr
    assert result.returncode == (1 if flags else 0), result.stderr
    return [line for line in result.stderr.splitlines() if line.startswith("warning: ")]


def test_art_under_print_resolution_is_a_warning(cli, game):
    _art(game, (100, 60))
    says = "100 x 60 px in a 51.5 x 30.0 mm box (cover) prints at 49 dpi (needs 300)"
    assert _warned(cli, game) == [f"warning: harbour/storms: Squall: image art.png: {says}"]
    assert _warned(cli, game, "--strict") == [
        f"warning: harbour/storms: Squall: image art.png: {says}"]


def test_art_far_above_print_resolution_is_a_notice_not_a_warning(cli, game):
    """The build embeds it at 300 dpi (issue 22 item 5): validate says so, as build does,
    and it is no problem even with --strict."""
    _art(game, (1500, 900))
    for flags in ((), ("--strict",)):
        result = cli("pnp", "validate", *flags, cwd=game)
        assert result.returncode == 0, result.stderr
        notices = [line for line in result.stderr.splitlines() if line.startswith("notice: ")]
        assert len(notices) == 1 and "art.png: 1500 x 900 px would print at" in notices[0] \
            and "embedded at 300 dpi" in notices[0], result.stderr
        assert not [line for line in result.stderr.splitlines()
                    if line.startswith("warning: ")], result.stderr


def test_text_that_does_not_fit_and_characters_no_font_has_are_warnings(cli, game):
    long = "Every ship with speed 2 or less loses 1 cargo. " * 12
    _edit(game / "cards.yaml", 'text: "Every player loses 1 cargo."',
          f'text: "雨 {long}"')
    warnings = _warned(cli, game)
    assert len(warnings) == 2, warnings
    assert any("Squall: rules: text does not fit its" in w for w in warnings), warnings
    assert any("Squall: rules: no font has the character '雨' (U+96E8)" in w
               for w in warnings), warnings
    result = cli("pnp", "validate", cwd=game)
    assert result.stdout.strip().endswith("valid (1 games, 2 decks, 11 card designs); "
                                          "2 warnings")


def test_validate_and_build_refuse_alike(cli, game):
    """The same line from both: they run one render and check path."""
    _edit(game / "templates" / "harbour" / "ship.j2", "value: {{ card.cargo }}",
          "value: {{ card.cargp }}")
    line = _refused(cli, game)
    built = cli("pnp", "build", "--out", str(game.parent / "out"), cwd=game)
    assert built.returncode == 1
    assert built.stderr.strip().splitlines()[-1] == f"pnp: {line}"


def test_an_unknown_game_is_a_usage_error(cli, game):
    result = cli("pnp", "validate", "--game", "nope", cwd=game)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines()[-1] == ("pnp: unknown game 'nope' (choose "
                                                      "harbour)")
