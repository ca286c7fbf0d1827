"""Helpers of the proof/export/incremental tests: a tiny stand-in renderer (tests only)
that keeps the pnp renderer contract, and a small project folder with its own cards.yaml."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

MINI_YAML = """\
version: 1
print: {paper: letter, bleed_mm: 3.175, duplex: long-edge, back_offset_mm: [0, 0]}
card_sizes: {poker: [63.5, 88.9]}
"""


class StandInRenderer:
    """Paints a background out into the bleed, a border and the name in the safe zone.
    Colours differ per card so pixels tell cards apart."""

    def __init__(self, db=None, fonts=None, blank=()):
        self.blank = set(blank)         # card names drawn as nothing at all
        self.calls = 0
        self.fonts = {"regular": "Helvetica", "bold": "Helvetica-Bold",
                      "italic": "Helvetica-Oblique", "bolditalic": "Helvetica-BoldOblique"}

    def _paint(self, c, label, hue, x, y, w, h, bleed):
        c.setFillColorRGB(*hue)
        c.rect(x - bleed, y - bleed, w + 2 * bleed, h + 2 * bleed, stroke=0, fill=1)
        c.setFillColorRGB(1, 1, 1)
        c.rect(x + 12, y + 12, w - 24, h - 24, stroke=0, fill=1)
        c.setFillColorRGB(0, 0, 0)
        c.setFont("Helvetica-Bold", 10)
        c.drawString(x + 14, y + h - 30, label)

    def draw_front(self, canvas, card, deck, x, y, w, h, bleed):
        self.calls += 1
        if card.name in self.blank:
            return []
        n = sum(map(ord, card.name))
        hue = ((n % 7) / 7, (n % 5) / 5, (n % 3) / 3)
        self._paint(canvas, card.name, hue, x, y, w, h, bleed)
        return []

    def draw_back(self, canvas, deck, x, y, w, h, bleed):
        self.calls += 1
        self._paint(canvas, "back", (0.1, 0.2, 0.6), x, y, w, h, bleed)
        return []


def make_project(tmp: Path, cards_yaml: str | None = None) -> Path:
    """A project folder: the bundled cards.yaml (or the given text) and the templates."""
    tmp.mkdir(parents=True, exist_ok=True)
    if cards_yaml is None:
        shutil.copy(ROOT / "cards.yaml", tmp / "cards.yaml")
    else:
        (tmp / "cards.yaml").write_text(cards_yaml)
    if (ROOT / "templates").is_dir():
        shutil.copytree(ROOT / "templates", tmp / "templates", dirs_exist_ok=True)
    return tmp
