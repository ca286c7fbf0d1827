"""Packed sheets (issue 33 item 2): every die's labels share pages, tokens of every kind
share pages (one size a page), headings count what is on them with plurals from the
declaration, tokens sit on a pitch a standard punch of their size fits, a label's word
keeps clear of the die's rounded edge, and nothing is painted within 5 mm of the paper."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from pypdf import PdfReader

from pnp.artefacts.kinds._plurals import counted, plural  # noqa: E402
from pnp.artefacts.kinds.tokens import pitch_mm, punch_mm  # noqa: E402
from tests.pdftext import page_texts  # noqa: E402
from tests.pnp.pieces_support import build, own_pieces, starter  # noqa: E402


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("packed")
    own_pieces(root)                    # the battle die besides the three storm dice
    build(root)
    return root / "output" / "harbour"


def test_the_starters_labels_and_tokens_each_take_one_page(built):
    labels, tokens = PdfReader(built / "dice-labels.pdf"), PdfReader(built / "tokens.pdf")
    assert len(labels.pages) == 1          # 4 dice x 6 faces, were 2 pages (one per die)
    assert len(tokens.pages) == 1          # 40 cargo + 20 lanterns, were 2 pages
    heading = page_texts(built / "dice-labels.pdf", [0])[0]
    assert "Dice labels: 1 Battle die, 3 Storm dice" in heading
    assert "Tokens: 40 Cargo, 20 Lanterns" in page_texts(built / "tokens.pdf", [0])[0]


def test_a_page_heading_counts_only_what_it_holds(tmp_path):
    db = starter(tmp_path)
    db.write_text(db.read_text().replace("count: 20, start: 2d6", "count: 100, start: 2d6"))
    build(tmp_path)
    pages = PdfReader(tmp_path / "output" / "harbour" / "tokens.pdf").pages
    texts = page_texts(tmp_path / "output" / "harbour" / "tokens.pdf")
    per_page = 7 * 9                                  # letter, 20 mm tokens on a 26.4 mm pitch
    assert len(pages) == -(-140 // per_page) == 3
    assert "Tokens: 40 Cargo, 23 Lanterns" in texts[0]
    assert f"Tokens: {per_page} Lanterns" in texts[1]
    assert f"Tokens: {140 - 2 * per_page} Lanterns" in texts[2]


def test_plurals_follow_english_unless_declared():
    assert [plural(w) for w in ("Gold", "Glory", "Day", "Box", "Glass", "Match")] == \
        ["Golds", "Glories", "Days", "Boxes", "Glasses", "Matches"]
    assert plural("Gold", "Gold") == "Gold" and counted(1, "Glory") == "1 Glory"
    assert counted(2, "Glory") == "2 Glories"


def test_tokens_sit_on_a_pitch_their_punch_fits(built):
    assert punch_mm(20) == 25.4 and pitch_mm(20) == pytest.approx(26.4)
    assert punch_mm(25.4) == 25.4 and punch_mm(80) is None and pitch_mm(80) == 83
    layout = (built / "tokens.layout.json").read_text()
    page = PdfReader(built / "tokens.pdf").pages[0]
    content = page.get_contents().get_data().decode("latin-1")
    # each token is placed with `1 0 0 1 x y cm` before its form: neighbours 26.4 mm apart
    xs = sorted({round(float(m[0]), 2) for m in re.findall(r"1 0 0 1 ([\d.]+) ([\d.]+) cm\n"
                                                           r"/FormXob\.token", content)})
    steps = {round((b - a) / 72 * 25.4, 1) for a, b in zip(xs, xs[1:], strict=False)}
    assert steps == {26.4}, (steps, layout[:100])


def test_the_label_word_keeps_clear_of_the_rounded_edge(built):
    j2 = (built.parents[1] / "templates" / "harbour" / "die-face.j2").read_text()
    box = re.search(r"text: \{id: face, box: \[\{\{ ([\d.]+) \* k \}\}, [^,]+, "
                    r"\{\{ W - ([\d.]+) \* k \}\}", j2)
    assert box and float(box[1]) == 2.5 and float(box[2]) == 5.0   # 2.5 mm of a 16 mm label


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="needs poppler's pdftoppm")
def test_nothing_is_painted_within_5_mm_of_the_paper_edge(built, tmp_path):
    from PIL import Image

    for name in ("dice-labels", "tokens"):
        subprocess.run(["pdftoppm", "-r", "72", "-png", "-singlefile", str(built / f"{name}.pdf"),
                        str(tmp_path / name)], check=True)
        image = Image.open(tmp_path / f"{name}.png").convert("L")
        w, h = image.size
        band = round(5 / 25.4 * 72)
        inner = image.crop((band, band, w - band, h - band))
        assert inner.getextrema()[0] < 128, "the page holds something"
        for box in ((0, 0, w, band), (0, h - band, w, h), (0, 0, band, h), (w - band, 0, w, h)):
            assert image.crop(box).getextrema()[0] == 255, (name, box)


def test_label_text_reaching_the_rounded_edge_is_moved_in_and_reported(tmp_path):
    from click.testing import CliRunner

    from pnp.cli.main import main

    starter(tmp_path)
    j2 = tmp_path / "templates" / "harbour" / "die-face.j2"
    j2.write_text(j2.read_text().replace("box: [{{ 2.5 * k }}, {{ 3 * k }}, {{ W - 5 * k }}",
                                         "box: [0, {{ 3 * k }}, {{ W }}"))
    result = CliRunner().invoke(main, ["build", "--project", str(tmp_path), "--only",
                                       "dice-labels"])
    assert result.exit_code == 0, result.output
    assert "text box reaches outside the safe zone (1 mm inside the edge); moved inside" \
        in result.output
