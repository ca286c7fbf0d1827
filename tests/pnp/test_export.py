"""`pnp export png|tts|pdf-single`: sizes, bleed, sheet grids, TTS JSON, page boxes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

import carddb  # noqa: E402
from pnp.artefacts.single import select_faces  # noqa: E402
from pnp.exports import cards as ex  # noqa: E402
from pnp.exports import tts  # noqa: E402
from tests.harness import run_cli
from tests.pdftext import page_texts
from tests.pnp.exports_support import ROOT, StandInRenderer  # noqa: E402

PT = 72 / 25.4


@pytest.fixture(scope="module")
def db():
    return carddb.load(ROOT / "cards.yaml")


def first_with_copies(db):
    for game in db.games.values():
        for deck in game.decks.values():
            for card in deck.cards:
                if card.copies > 1:
                    return card
    raise AssertionError("the bundled database has a card with copies")


def test_png_sizes_bleed_and_copies(db, tmp_path):
    card = first_with_copies(db)
    other = db.games[card.game].decks[card.deck].cards[0]
    faces = select_faces(db, card.game, [card.deck], {card.name, other.name})
    result = ex.export_png(db, faces, StandInRenderer(), tmp_path)
    folder = tmp_path / card.game
    names = sorted(p.name for p in folder.iterdir())
    slug = lambda n: "".join(ch if ch.isalnum() else "-" for ch in n.lower()).strip("-")  # noqa: E731
    expected = {f"{card.deck}--{slug(card.name)}--{k}.png" for k in range(1, card.copies + 1)}
    expected |= {f"{card.deck}--{slug(other.name)}--{k}.png" for k in range(1, other.copies + 1)}
    expected.add(f"{card.deck}--back.png")
    assert set(names) == expected
    assert len(result.files) == len(expected)
    for path in folder.iterdir():
        with Image.open(path) as im:
            assert im.size == (825, 1125), path.name      # poker + 2 x 1/8 in at 300 dpi
            assert round(im.info["dpi"][0]) == 300
            rgb = im.convert("RGB")
            # The background runs into the bleed: the outermost pixels are painted, and
            # the card's white panel starts 12 pt inside the trim (37.5 + 50 px in).
            corner = rgb.getpixel((0, 0))
            assert corner != (255, 255, 255)
            assert rgb.getpixel((1, 562)) == corner
            assert rgb.getpixel((37 + 50 + 5, 562)) == (255, 255, 255)
    # Copies are the same picture.
    a, b = (folder / f"{card.deck}--{slug(card.name)}--{k}.png" for k in (1, 2))
    assert a.read_bytes() == b.read_bytes()


def test_pdf_single_boxes(db, tmp_path):
    from pypdf import PdfReader

    card = first_with_copies(db)
    faces = select_faces(db, card.game, [card.deck], [card.name])
    result = ex.export_pdf_single(db, faces, StandInRenderer(), tmp_path)
    [path] = result.files
    reader = PdfReader(path)
    assert len(reader.pages) == 2 * card.copies      # front, back, front, back...
    w, h = db.games[card.game].decks[card.deck].size_mm
    b = 3.175
    for page in reader.pages:
        media = [float(v) / PT for v in page.mediabox]
        trim = [float(v) / PT for v in page.trimbox]
        bleed = [float(v) / PT for v in page.bleedbox]
        assert media == pytest.approx([0, 0, w + 2 * b, h + 2 * b], abs=0.01)
        assert bleed == pytest.approx(media, abs=0.01)
        assert trim == pytest.approx([b, b, b + w, b + h], abs=0.01)
    texts = page_texts(path)
    assert card.name in texts[0] and "back" in texts[1]


def test_tts_grid_math():
    g = tts.sheet_grid(69, 63.5, 88.9)
    assert (g.cols, g.rows, g.hidden) == (10, 7, 69)
    assert g.size[0] <= 4096 and g.size[1] <= 4096
    small = tts.sheet_grid(3, 63.5, 88.9)
    assert (small.cols, small.rows) == (2, 2) and small.hidden == 3
    assert (tts.sheet_grid(12, 63.5, 88.9).cols, tts.sheet_grid(12, 63.5, 88.9).rows) == (7, 2)
    assert tts.sheet_grid(1, 63.5, 88.9).slots == 4     # TTS wants at least 2 x 2
    with pytest.raises(ValueError):
        tts.sheet_grid(70, 63.5, 88.9)


def test_tts_sheet_and_json(db, tmp_path):
    game = db.games["x-statix"]
    deck = game.decks["common"]
    chosen = [c.name for c in deck.cards[:12]]
    faces = select_faces(db, "x-statix", ["common"], chosen)
    result = tts.export_tts(db, faces, StandInRenderer(), tmp_path)
    folder = tmp_path / "x-statix"
    saved = json.loads((folder / "common.json").read_text())
    [state] = saved["ObjectStates"]
    assert state["Name"] == "Deck"
    [(number, custom)] = state["CustomDeck"].items()
    assert number == "1"
    cols, rows = custom["NumWidth"], custom["NumHeight"]
    assert (cols, rows) == (7, 2)          # 12 cards + the hidden one
    sheet_path = Path(custom["FaceURL"].removeprefix("file://"))
    assert custom["FaceURL"].startswith("file:///") and sheet_path.is_file()
    assert Path(custom["BackURL"].removeprefix("file://")).is_file()
    assert custom["BackIsHidden"] is False
    with Image.open(sheet_path) as sheet:
        assert sheet.mode == "RGB" and sheet.format == "JPEG"
        assert sheet.size[0] <= 4096 and sheet.size[1] <= 4096
        cell_w, cell_h = sheet.size[0] // cols, sheet.size[1] // rows
        assert sheet.size == (cols * cell_w, rows * cell_h)
        assert abs(cell_h / cell_w - 88.9 / 63.5) < 0.01
        # The hidden card (last slot) is the back: same picture as the back image.
        hidden = sheet.crop((sheet.size[0] - cell_w, sheet.size[1] - cell_h, *sheet.size))
        with Image.open(folder / "common-back.jpg") as back:
            small = back.convert("RGB").resize(hidden.size)
        diff = ImageStat.Stat(ImageChops.difference(hidden, small)).mean
        assert max(diff) < 8
        # An unused slot stays blank.
        unused = sheet.crop((12 % cols * cell_w, 12 // cols * cell_h,
                             12 % cols * cell_w + cell_w, 12 // cols * cell_h + cell_h))
        assert min(ImageStat.Stat(unused).mean) > 250
    ids = [c["CardID"] for c in state["ContainedObjects"]]
    expected = []
    for i, card in enumerate(deck.cards[:12]):
        expected += [100 + i] * card.copies
    assert ids == expected == state["DeckIDs"]
    assert [c["Nickname"] for c in state["ContainedObjects"]][0] == deck.cards[0].name
    assert all(c["CustomDeck"] == {"1": custom} for c in state["ContainedObjects"])
    assert len(result.files) == 3


def test_tts_more_than_one_sheet(db, tmp_path, monkeypatch):
    # Sheets of 10 x 2 (19 cards + the hidden one) keep the drawing short; the full
    # 10 x 7 grid is checked in test_tts_grid_math.
    monkeypatch.setattr(tts, "MAX_ROWS", 2)
    deck = db.games["x-statix"].decks["common"]
    names = [c.name for c in deck.cards[:25]]
    faces = select_faces(db, "x-statix", ["common"], names)
    tts.export_tts(db, faces, StandInRenderer(), tmp_path)
    state = json.loads((tmp_path / "x-statix" / "common.json").read_text())["ObjectStates"][0]
    assert set(state["CustomDeck"]) == {"1", "2"}
    first, second = state["CustomDeck"]["1"], state["CustomDeck"]["2"]
    assert (first["NumWidth"], first["NumHeight"]) == (10, 2)
    assert (second["NumWidth"], second["NumHeight"]) == (4, 2)   # 6 cards + hidden
    ids = sorted(set(state["DeckIDs"]))
    assert ids == list(range(100, 119)) + list(range(200, 206))
    assert len(state["DeckIDs"]) == sum(c.copies for c in deck.cards[:25])
    for card in state["ContainedObjects"]:
        number = str(card["CardID"] // 100)
        assert card["CustomDeck"] == {number: state["CustomDeck"][number]}


def test_tts_sheets_of_one_deck_share_one_resolution(db, tmp_path, monkeypatch):
    # issue 17 item 5: 409 px cells on sheet 1 and 682 px on sheet 2 made one deck's
    # cards look different in TTS. Every sheet and the back now share one cell size.
    monkeypatch.setattr(tts, "MAX_ROWS", 2)
    deck = db.games["x-statix"].decks["common"]
    faces = select_faces(db, "x-statix", ["common"], [c.name for c in deck.cards[:25]])
    tts.export_tts(db, faces, StandInRenderer(), tmp_path)
    folder = tmp_path / "x-statix"
    state = json.loads((folder / "common.json").read_text())["ObjectStates"][0]
    cells = set()
    for number, custom in state["CustomDeck"].items():
        with Image.open(folder / f"common-sheet-{number}.jpg") as sheet:
            w, h = sheet.size
        assert w % custom["NumWidth"] == 0 and h % custom["NumHeight"] == 0
        cells.add((w // custom["NumWidth"], h // custom["NumHeight"]))
    with Image.open(folder / "common-back.jpg") as back:
        cells.add(back.size)
    assert len(cells) == 1, cells
    [(cell_w, cell_h)] = cells
    assert cell_w * 10 <= 4096 and abs(cell_h / cell_w - 88.9 / 63.5) < 0.01
    assert tts.deck_cell([19, 6], 63.5, 88.9) == (cell_w, cell_h)


def test_export_command_png_with_the_real_renderer(db, tmp_path):
    import io

    from PIL import ImageCms

    from tests.pnp.exports_support import make_project

    project = make_project(tmp_path / "project")
    card = db.games["x-statix"].decks["owners"].cards[0]
    run = run_cli("pnp", "export", "png", "--card", card.name, cwd=project)
    assert run.returncode == 0, run.stderr
    files = sorted((project / "output" / "export" / "png" / "x-statix").glob("*.png"))
    assert [p.name for p in files] == ["owners--back.png",
                                       f"owners--{card.name.lower().replace(' ', '-')}--1.png"]
    for path in files:
        with Image.open(path) as im:
            assert im.size == (825, 1125)
            icc = ImageCms.ImageCmsProfile(io.BytesIO(im.info["icc_profile"]))
            assert ImageCms.getProfileDescription(icc).strip() == "sRGB built-in"
    bad = run_cli("pnp", "export", "svg", cwd=project)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_an_export_warns_each_problem_of_an_element_once_but_every_problem(cli, tmp_path):
    # One card's rules text both overflows at the 6 pt floor and holds characters no font
    # has: two warnings on one element, each said once however many files draw it.
    assert cli("pnp", "init", str(tmp_path / "proj")).returncode == 0
    sheet = tmp_path / "proj" / "ships.csv"
    sheet.write_text(sheet.read_text().replace(
        "Moves 1 extra in calm weather.", "日本 " + "Moves one extra space in calm weather. " * 16))
    done = cli("pnp", "export", "png", "--deck", "ships", "--card", "The Gull",
               "--out", str(tmp_path / "png"), cwd=tmp_path / "proj")
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 2
    assert "The Gull: rules: text does not fit" in warnings[0]
    assert "The Gull: rules: no font has the characters '日' (U+65E5)" in warnings[1]
