"""A TTS sheet written a band at a time (pnp.exports.jpeg_strips, issue 36 item 4) is the
JPEG Pillow writes for the whole sheet with a restart marker every MCU row."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

import carddb
from pnp.artefacts.single import Face, select_faces
from pnp.exports import tts
from pnp.exports.cards import render_faces
from pnp.exports.jpeg_strips import JpegStrips
from tests.pnp.exports_support import ROOT, StandInRenderer


def patterned(size: tuple[int, int]) -> Image.Image:
    """An image whose every row and column differs (noise in each band, not symmetric)."""
    noise = Image.effect_noise(size, 60)
    return Image.merge("RGB", [noise, noise.transpose(Image.Transpose.FLIP_LEFT_RIGHT),
                               noise.transpose(Image.Transpose.FLIP_TOP_BOTTOM)])


def whole(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "JPEG", quality=tts.JPEG_QUALITY, restart_marker_rows=1)
    return out.getvalue()


@pytest.mark.parametrize(("size", "band"), [
    ((409, 573), 573),       # one band, height not a multiple of 16
    ((300, 100), 7),         # bands shorter than a strip
    ((37, 5), 2),            # narrower and shorter than one MCU
    ((64, 64), 16),          # bands of whole strips
    ((100, 70), 33),         # a band ending inside a strip, the last one short
])
def test_strips_are_the_whole_image_with_restarts(size, band):
    image = patterned(size)
    out = io.BytesIO()
    strips = JpegStrips(out, size, tts.JPEG_QUALITY)
    for top in range(0, size[1], band):
        strips.add(image.crop((0, top, size[0], min(size[1], top + band))))
    assert out.getvalue() == whole(image)
    with Image.open(io.BytesIO(out.getvalue())) as back:
        assert back.size == size and back.format == "JPEG"


def test_a_band_that_does_not_fit_is_refused():
    strips = JpegStrips(io.BytesIO(), (32, 20), tts.JPEG_QUALITY)
    with pytest.raises(ValueError, match="does not fit"):
        strips.add(Image.new("RGB", (31, 4)))
    strips.add(Image.new("RGB", (32, 16)))
    with pytest.raises(ValueError, match="after 16 rows"):
        strips.add(Image.new("RGB", (32, 5)))


def test_a_tts_sheet_is_the_sheet_assembled_whole(tmp_path):
    db = carddb.load(ROOT / "cards.yaml")
    deck = db.games["x-statix"].decks["common"]
    faces = select_faces(db, "x-statix", ["common"], [c.name for c in deck.cards[:12]])
    renderer = StandInRenderer()
    tts.export_tts(db, faces, renderer, tmp_path)
    state = json.loads((tmp_path / "x-statix" / "common.json").read_text())["ObjectStates"][0]
    custom = state["CustomDeck"]["1"]
    sheet_path = Path(custom["FaceURL"].removeprefix("file://"))
    # the sheet pasted whole, as the export made it before it wrote strips: 12 cards in
    # slot order, the back in the hidden (last) slot, white between
    w_mm, h_mm = deck.size_mm
    grid = tts.sheet_grid(12, w_mm, h_mm, tts.deck_cell([12], w_mm, h_mm))
    dpi = grid.cell_w / (w_mm / 25.4)
    fronts = [f for f in faces if f.card is not None]
    rendered = list(render_faces([*fronts, Face(deck)], renderer, db.print.bleed_mm, dpi))
    slots = [*range(12), grid.hidden]
    expected = Image.new("RGB", grid.size, "white")
    for slot, (_, raw, _) in zip(slots, rendered, strict=True):
        cell = tts.crop_trim(raw, db.print.bleed_mm / 25.4 * dpi, (grid.cell_w, grid.cell_h))
        expected.paste(cell, tts._slot_xy(grid, slot))
    assert sheet_path.read_bytes() == whole(expected)
    with Image.open(sheet_path) as sheet:
        assert sheet.size == (custom["NumWidth"] * grid.cell_w, custom["NumHeight"] * grid.cell_h)
