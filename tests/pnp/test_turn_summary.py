"""The turn summary (issue 33 item 4): one copy per player as `players.max` asks (or the
reference's `copies`), at the reference's `size` or half a page, packed onto as few
pages as fit with cut lines; the size is checked like a deck's."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from pnp.cli.main import main
from tests.pdftext import page_texts  # noqa: E402
from tests.pnp.pieces_support import build, starter  # noqa: E402

REFERENCE_J2 = """- rect: {box: [0, 0, {{ W }}, {{ H }}], fill: "#fff8e0"}
- text: {box: [4, 4, {{ W - 8 }}, 8], text: {{ reference.title }}, markup: false, font: bold, size: 12}
- text: {box: [4, 14, {{ W - 8 }}, {{ H - 18 }}], text: {{ reference.lines | join("\\n") }}, size: 9}
"""


def _project(root: Path, reference: str) -> Path:
    db = starter(root)
    (root / "templates" / "harbour" / "reference.j2").write_text(REFERENCE_J2)
    db.write_text(db.read_text().replace(
        "    phases: [Draw, Sail, Storm]",
        f"    reference: {reference}\n    phases: [Draw, Sail, Storm]", 1))
    return db


def _path(root: Path) -> Path:
    return root / "output" / "harbour" / "reference.pdf"


def _pdf(root: Path) -> PdfReader:
    return PdfReader(_path(root))


def test_one_turn_summary_per_player_two_to_a_page(tmp_path):
    _project(tmp_path, "{title: Your turn, lines: [Draw 2, Sail, Storm]}")   # players max 4
    build(tmp_path, "--only", "reference")
    pdf = _pdf(tmp_path)
    assert len(pdf.pages) == 2
    texts = page_texts(_path(tmp_path))
    assert all(t.count("Your turn") == 2 for t in texts)
    assert "Turn summary x 2, one per player (1-2 of 4)" in texts[0]


def test_a_card_sized_summary_packs_many_to_a_page(tmp_path):
    _project(tmp_path, "{title: Your turn, lines: [Draw 2, Sail, Storm], size: poker, "
                       "copies: 5}")
    build(tmp_path, "--only", "reference")
    pdf = _pdf(tmp_path)
    # 2 x 2 poker cards inside the sheets' 12.7 mm margin and heading
    assert len(pdf.pages) == 2
    texts = page_texts(_path(tmp_path))
    assert [t.count("Your turn") for t in texts] == [4, 1]
    assert "Turn summary x 4 (1-4 of 5)" in texts[0]       # `copies`: not one per player


@pytest.mark.parametrize("reference, message", [
    ("{title: T, lines: [a], size: tarot}", "reference.size: unknown card size 'tarot'"),
    ("{title: T, lines: [a], copies: 0}", "reference.copies: must be at least 1, got 0"),
    ("{title: T, lines: [a], size: [500, 500]}", "reference.size"),
])
def test_a_wrong_size_or_count_is_located(tmp_path, reference, message):
    db = _project(tmp_path, reference)
    result = CliRunner().invoke(main, ["validate", str(db)])
    assert result.exit_code != 0 and message in result.output, result.output
    assert "cards.yaml:" in result.output
