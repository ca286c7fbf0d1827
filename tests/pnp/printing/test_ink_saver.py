"""Ink saver (issue 22 item 6): `pnp build --ink-saver` and `print.ink_saver: true` give
the templates INK_SAVER; the bundled templates then draw white cards with outlines, no
solid fills behind text. Measured from the pixels pypdfium2 renders."""

from __future__ import annotations

import json
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from click.testing import CliRunner

import carddb
from pnp.cli.main import main  # noqa: E402
from tests.pnp.exports_support import ROOT, make_project  # noqa: E402

SCALE = 1.0          # 72 px per inch: enough to count dark pixels
DARK = 128           # a pixel darker than mid-grey (the X-Statix red counts as dark)


def x_statix_project(tmp: Path) -> Path:
    """The bundled project with its X-Statix game only: every test here builds or diffs
    X-Statix decks, and `pnp diff` plans every card of the database, the XO! game's
    (two thirds of them) included, three times over (issue 34: the suite's CPU)."""
    text = (ROOT / "cards.yaml").read_text(encoding="utf-8")
    start = text.index("\n  x-statix:\n")
    end = text.index("\n  # \u2500", start)          # the rule above the next game
    return make_project(tmp, text[:end] + "\n")


def build(project: Path, out: str, *extra: str):
    result = CliRunner().invoke(main, ["build", "--project", str(project), "--out",
                                       str(project / out), "--game", "x-statix",
                                       "--only", "common", *extra])
    assert result.exit_code == 0, result.output + result.stderr
    return result


def pages(project: Path, out: str, side: str) -> list[int]:
    """The indices of the full pages of `side` (front or back) of the common deck."""
    layout = json.loads((project / out / "x-statix" / "common.layout.json").read_text())
    found = layout["artefacts"][0]["pages"]
    most = max(len(p["cards"]) for p in found)
    return [p["page"] - 1 for p in found if p["side"] == side and len(p["cards"]) == most]


def grey(project: Path, out: str, index: int):
    pdf = pdfium.PdfDocument(project / out / "x-statix" / "common.pdf")
    try:
        return pdf[index].render(scale=SCALE, grayscale=True).to_pil().convert("L")
    finally:
        pdf.close()


def dark_share(image) -> float:
    histogram = image.histogram()
    return sum(histogram[:DARK]) / sum(histogram)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    project = x_statix_project(tmp_path_factory.mktemp("ink"))
    build(project, "normal")
    build(project, "saver", "--ink-saver")
    return project


def test_a_sheet_of_x_statix_backs_is_at_most_15_percent_dark(built):
    backs = pages(built, "saver", "back")
    assert backs, "no full sheet of backs"
    shares = [dark_share(grey(built, "saver", i)) for i in backs[:2]]
    assert max(shares) <= 0.15, shares
    # the measure sees the ordinary backs' solid black (issue 22: 73 % of the sheet)
    assert dark_share(grey(built, "normal", pages(built, "normal", "back")[0])) > 0.6


def test_ink_saver_fronts_are_light_and_keep_their_cut_guides_and_margin(built):
    front = pages(built, "saver", "front")[0]
    image = grey(built, "saver", front)
    assert dark_share(image) <= 0.15
    assert dark_share(grey(built, "normal", front)) > 0.25
    # the same sheets: every card where the ordinary build puts it, so the same guides
    normal = json.loads((built / "normal" / "x-statix" / "common.layout.json").read_text())
    saver = json.loads((built / "saver" / "x-statix" / "common.layout.json").read_text())
    assert saver == normal
    w, h = image.size
    margin = round(5 / 25.4 * 72 * SCALE) - 1        # the 5 mm printer margin, blank
    pixels = image.load()
    band = [pixels[x, y] for x in range(w) for y in range(h)
            if min(x, y, w - 1 - x, h - 1 - y) < margin]
    assert min(band) >= 250
    # cut guides: dark marks just inside the margin, in the gutters outside the trims
    trims = [c["trim_mm"] for c in saver["artefacts"][0]["pages"][front]["cards"]]
    px = 72 / 25.4 * SCALE
    left = min(t[0] for t in trims)
    top = min(t[1] for t in trims)
    bottom = max(t[1] + t[3] for t in trims)
    column = round(left * px)                  # the vertical cut line left of the first column
    marks = [pixels[column, y] for y in range(margin, round(top * px) - 1)]
    marks += [pixels[column, y] for y in range(round(bottom * px) + 1, h - margin)]
    assert min(marks) < DARK, "no cut guide above or below the first column"


def test_print_ink_saver_in_cards_yaml_is_the_default_and_the_flag_rebuilds(tmp_path):
    project = x_statix_project(tmp_path / "p")
    cards = project / "cards.yaml"
    text = cards.read_text()
    cards.write_text(text.replace("  crop_marks: true\n", "  crop_marks: true\n  ink_saver: true\n", 1))
    build(project, "out")
    back = pages(project, "out", "back")[0]
    assert dark_share(grey(project, "out", back)) <= 0.15
    # --ink-saver is an input of the build: without it (and without print.ink_saver)
    # the deck is drawn again, dark
    cards.write_text(text)
    again = build(project, "out")
    assert "building" in again.output and "up to date" not in again.output
    assert dark_share(grey(project, "out", back)) > 0.6
    flagged = build(project, "out", "--ink-saver")
    assert "building" in flagged.output
    assert dark_share(grey(project, "out", back)) <= 0.15


def test_a_print_ink_saver_that_is_not_a_boolean_is_refused_where_it_is(tmp_path):
    project = x_statix_project(tmp_path / "p")
    cards = project / "cards.yaml"
    lines = cards.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("  crop_marks:"))
    lines.insert(at + 1, "  ink_saver: yes please\n")
    cards.write_text("".join(lines))
    result = CliRunner().invoke(main, ["validate", "--project", str(project)])
    assert result.exit_code == 1
    assert f"cards.yaml:{at + 2}:" in result.output + result.stderr
    assert "print.ink_saver" in result.output + result.stderr


def test_pnp_diff_after_an_ink_saver_build_compares_like_with_like(tmp_path):
    """The record says the build drew light: pnp diff plans the cards that way too, so
    an ink-saver build followed by pnp diff lists nothing (not every card)."""
    project = x_statix_project(tmp_path / "p")
    owners = ["x-statix/owners/" + c.name
              for c in carddb.load(project / "cards.yaml").games["x-statix"].decks["owners"].cards]
    build_args = ["build", "--project", str(project), "--out", str(project / "out"),
                  "--game", "x-statix", "--only", "owners"]
    assert CliRunner().invoke(main, [*build_args, "--ink-saver"]).exit_code == 0
    record = json.loads(next((project / "out" / ".pnp-builds").glob("0001.json")).read_text())
    assert record["ink_saver"] == "flag"

    def diff():
        done = CliRunner().invoke(main, ["diff", "--project", str(project), "--out",
                                         str(project / "out"), "--json"])
        assert done.exit_code == 0, done.output
        return json.loads(done.stdout)

    found = diff()
    assert [c["card"] for c in found["changed"]] == [] and not set(owners) & set(found["added"])
    # the same cards drawn in full colour are a different print: every owner changed
    assert CliRunner().invoke(main, build_args).exit_code == 0
    assert "ink_saver" not in json.loads(
        (project / "out" / ".pnp-builds" / "0002.json").read_text())
    assert diff()["changed"] == []
    since = CliRunner().invoke(main, ["diff", "--project", str(project), "--out",
                                      str(project / "out"), "--json", "--since", "1"])
    assert sorted(c["card"] for c in json.loads(since.stdout)["changed"]) == sorted(owners)
