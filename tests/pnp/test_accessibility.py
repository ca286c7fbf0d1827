"""Prints everyone can read (issue 35, item 2): text contrast measured on the rendered
face, kind colours that collapse under simulated colour vision, proofs as seen with
deuteranopia, protanopia and tritanopia, and `pnp build --large-print` measured on the
printed pages. Real `pnp init` projects through the CLI (in-process)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pnp.draw import colour
from tests.harness import run_cli
from tests.pnp.starter_copies import fresh_copy, make_starter

ROOT = Path(__file__).resolve().parents[2]
PAPER = "#f7f1e3"          # the starter's paper colour (cards.yaml colors.paper)


@pytest.fixture(scope="module")
def starter(tmp_path_factory) -> Path:
    return make_starter(tmp_path_factory.mktemp("starter") / "game")


@pytest.fixture(scope="module")
def playground(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("accessibility")


@pytest.fixture
def game(starter, playground) -> Path:
    """A fresh copy of the starter, at one path for every test (tests/pnp/starter_copies)."""
    return fresh_copy(starter, playground)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _pnp(*args: str):
    result = run_cli("pnp", *args)
    assert "Traceback" not in result.stderr
    return result


def _warnings(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("warning: ")]


# ── the colour arithmetic, against published values ───────────────────────────────

def test_wcag_contrast_ratios_and_thresholds():
    assert colour.contrast((0, 0, 0), (1, 1, 1)) == pytest.approx(21.0)
    assert colour.contrast(colour.parse_hex("#777777"), (1, 1, 1)) == pytest.approx(4.48, abs=0.005)
    assert colour.required_ratio(12, bold=False) == 4.5
    assert colour.required_ratio(14, bold=True) == 3.0
    assert colour.required_ratio(14, bold=False) == 4.5
    assert colour.required_ratio(18, bold=False) == 3.0


@pytest.mark.parametrize("lab1, lab2, expected", [     # Sharma, Wu, Dalal 2005, Table 1
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
])
def test_ciede2000_matches_the_published_test_data(lab1, lab2, expected):
    assert colour.delta_e2000(lab1, lab2) == pytest.approx(expected, abs=1e-4)


def test_the_simulations_keep_greys_and_merge_red_with_green_for_deuteranopia():
    for vision in colour.VISIONS:           # Machado 2009: each row sums to 1
        grey = colour.simulate((0.5, 0.5, 0.5), vision)
        assert grey == pytest.approx((0.5, 0.5, 0.5), abs=0.01)
    red, green = colour.parse_hex("#d62728"), colour.parse_hex("#2ca02c")
    assert colour.difference(red, green) > 50
    assert colour.difference(red, green, "deuteranopia") < colour.DISTINCT_DE


# ── contrast, measured on the rendered face ────────────────────────────────────────

def test_a_low_contrast_template_is_warned_with_its_ratio_and_a_passing_one_is_not(game):
    passing = _pnp("validate", "--project", str(game))
    assert passing.returncode == 0 and _warnings(passing) == [], passing.stderr
    # the type tag at the foot of every card, now light grey on the paper panel
    _edit(game / "templates" / "harbour" / "_look.j2", 'color: "#5f5f5f"}', 'color: "#b0b0b0"}')
    ratio = colour.contrast(colour.parse_hex("#b0b0b0"), colour.parse_hex(PAPER))
    result = _pnp("validate", "--project", str(game))
    assert result.returncode == 0, result.stderr
    says = (f'text "SHIP": contrast {ratio:.2f}:1 of #b0b0b0 text (6 pt bold) against '
            "what is behind it, below 4.5:1 (WCAG 1.4.3)")
    assert f"warning: harbour/ships: The Gull: {says}" in _warnings(result)
    storms = [w for w in _warnings(result) if "harbour/storms: Squall: " in w]
    assert len(storms) == 1 and 'text "STORM": contrast' in storms[0]
    strict = _pnp("validate", "--project", str(game), "--strict")
    assert strict.returncode == 1


def test_build_measures_contrast_when_asked_and_strict_refuses_it(game, tmp_path):
    _edit(game / "templates" / "harbour" / "_look.j2", 'color: "#5f5f5f"}', 'color: "#b0b0b0"}')
    plain = _pnp("build", "--project", str(game), "--out", str(tmp_path / "a"), "-j", "1")
    assert plain.returncode == 0 and not any("contrast" in w for w in _warnings(plain))
    asked = _pnp("build", "--project", str(game), "--out", str(tmp_path / "b"), "-j", "1",
                 "--contrast")
    assert asked.returncode == 0
    assert any('The Gull: text "SHIP": contrast 1.93:1' in w for w in _warnings(asked))
    out = tmp_path / "c"
    refused = _pnp("build", "--project", str(game), "--out", str(out), "-j", "1",
                   "--contrast", "--strict")
    assert refused.returncode == 1 and not list(out.rglob("*.pdf"))     # nothing written


def test_a_rasters_luminance_is_each_pixels_wcag_luminance():
    """A face's background raster (bytes) is turned into WCAG luminance by a table of the
    256 channel values: every value, in every channel, as colour.luminance gives it."""
    import numpy as np

    from pnp.draw import contrast

    values = np.arange(256, dtype=np.uint8)
    pixels = np.stack([values, values[::-1], np.roll(values, 85)], axis=-1)[None]
    found = contrast._luminance(pixels)
    assert found.shape == (1, 256)
    for (r, g, b), lum in zip(pixels[0].tolist(), found[0].tolist(), strict=True):
        assert lum == pytest.approx(colour.luminance((r / 255, g / 255, b / 255)),
                                    rel=1e-12, abs=1e-15)


def test_the_ratio_a_texts_background_reaches_is_numpys_quantile_to_the_bit():
    """contrast.quantile is np.quantile's 'linear' method written out: every sample
    count from 1 (each fraction between two order statistics), ties and skewed ratios,
    the quantile the check uses and the ends, equal to the last bit, the input kept."""
    import numpy as np

    from pnp.draw import contrast

    rng = np.random.default_rng(35)
    for n in range(1, 41):
        for values in (rng.random(n) * 20 + 1, rng.choice([1.0, 4.5, 21.0], n),
                       rng.exponential(3, n) + 1):
            kept = values.copy()
            for q in (contrast.QUANTILE, 0.0, 0.1, 0.5, 0.9, 1.0):
                assert contrast.quantile(values, q) == float(np.quantile(values, q)), (n, q)
            assert (values == kept).all()


def test_text_over_a_dark_band_is_measured_against_the_band(game):
    """What is behind the text is what is painted: white names on the banner pass, on a
    banner painted pale they do not (The Gull flies the blue flag)."""
    _edit(game / "templates" / "harbour" / "ship.j2", '"blue": "#1d5c8c"', '"blue": "#9ec3e0"')
    ratio = colour.contrast((1, 1, 1), colour.parse_hex("#9ec3e0"))
    result = _pnp("validate", "--project", str(game))
    names = [w for w in _warnings(result) if "harbour/ships: The Gull: text \"The Gull\"" in w]
    assert len(names) == 1 and f"contrast {ratio:.2f}:1 of #ffffff text" in names[0]


# ── colour vision ───────────────────────────────────────────────────────────────────

def test_kind_colours_that_collapse_for_deuteranopia_are_warned_by_pair(game, tmp_path):
    _edit(game / "cards.yaml", '    colors: {primary: "#1d5c8c"',
          '    kind_colors: {flags: {red: "#d62728", green: "#2ca02c", blue: "#1d5c8c"}}\n'
          '    colors: {primary: "#1d5c8c"')
    diff = colour.difference(colour.parse_hex("#d62728"), colour.parse_hex("#2ca02c"),
                             "deuteranopia")
    result = _pnp("validate", "--project", str(game))
    assert result.returncode == 0, result.stderr
    assert _warnings(result) == [
        f"warning: harbour/(colours): flags: red / green: #d62728 and #2ca02c look alike with "
        f"deuteranopia (CIEDE2000 {diff:.1f}, below 10): tell them apart by another colour, "
        "or by shape or text as well"]
    build = _pnp("build", "--project", str(game), "--out", str(tmp_path / "o"), "-j", "1",
                 "--strict")
    assert build.returncode == 1 and "red / green" in build.stderr


def test_a_kind_colour_must_be_a_colour(game):
    _edit(game / "cards.yaml", '    colors: {primary: "#1d5c8c"',
          '    kind_colors: {flags: {red: crimson}}\n    colors: {primary: "#1d5c8c"')
    result = _pnp("validate", "--project", str(game))
    assert result.returncode == 1
    assert "kind_colors.flags.red" in result.stderr and "crimson" in result.stderr


def test_vision_proofs_are_written_as_each_deficiency_sees_the_faces(game, tmp_path):
    from PIL import Image

    out = tmp_path / "proof"
    result = _pnp("proof", "--project", str(game), "--out", str(out), "--deck", "ships",
                  "--vision", "all", "-j", "1", "--dpi", "72")
    assert result.returncode == 0, result.stderr
    original = Image.open(out / "harbour" / "ships" / "the-gull.png").convert("RGB")
    for vision in ("deuteranopia", "protanopia", "tritanopia"):
        folder = out / "vision" / vision / "harbour"
        assert (folder / "ships-contact.png").is_file()
        seen = Image.open(folder / "ships" / "the-gull.png").convert("RGB")
        assert seen.size == original.size
        for xy in ((original.width // 2, 30), (original.width // 2, original.height // 2)):
            expected = colour.simulate(tuple(c / 255 for c in original.getpixel(xy)), vision)
            assert seen.getpixel(xy) == pytest.approx([round(c * 255) for c in expected],
                                                      abs=1)
    # the banner's blue is not what tritanopia shows
    xy = (original.width // 2, 30)
    tritan = Image.open(out / "vision" / "tritanopia" / "harbour" / "ships" / "the-gull.png")
    assert tritan.convert("RGB").getpixel(xy) != original.getpixel(xy)


# ── large print ─────────────────────────────────────────────────────────────────────

def test_large_print_is_measured_on_the_rendered_pages(game, tmp_path, kit):
    normal = _pnp("build", "--project", str(game), "--out", str(tmp_path / "n"), "-j", "1",
                  "--only", "ships", "--no-backs")
    large = _pnp("build", "--project", str(game), "--out", str(tmp_path / "l"), "-j", "1",
                 "--only", "ships", "--no-backs", "--large-print")
    assert normal.returncode == 0 and large.returncode == 0, large.stderr
    before = kit.glyphs(tmp_path / "n" / "harbour" / "ships.pdf")
    after = kit.glyphs(tmp_path / "l" / "harbour" / "ships.pdf")
    assert [g.char for g in before] == [g.char for g in after]     # the same text
    # every glyph at least as large as before, none above 18 pt unless it was
    for b, a in zip(before, after, strict=True):
        assert a.size >= b.size - 0.01
        assert a.size <= max(18.0, b.size) + 0.01
    grown = [(b, a) for b, a in zip(before, after, strict=True) if a.size > b.size + 0.01]
    assert len(grown) > len(before) / 2                          # most text grew ...
    assert any(b.size == pytest.approx(13.0) and a.size == pytest.approx(18.0)
               for b, a in grown)                                # ... names 13 -> 18 pt
    said = _warnings(large)
    assert any(": type: large print: set at" in w and "cannot hold it at 18 pt" in w
               for w in said), said
    assert not any("large print" in w for w in _warnings(normal))
