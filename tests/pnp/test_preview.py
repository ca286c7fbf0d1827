"""`pnp preview`: the designer's quick look at the templates, through the real CLI on the
project `pnp init` writes (two decks of ship and storm cards)."""

from __future__ import annotations

from PIL import Image
from pypdf import PdfReader


def test_preview_draws_each_card_type_front_and_back_and_the_pngs(cli, tmp_path):
    assert cli("pnp", "init", str(tmp_path / "proj")).returncode == 0
    project = tmp_path / "proj"
    done = cli("pnp", "preview", "--png", cwd=project)
    assert done.returncode == 0, done.stderr
    pdf = project / "output" / "preview" / "harbour-preview.pdf"
    assert done.stdout.splitlines()[0].startswith("reading ")
    assert str(pdf) in done.stdout or "harbour-preview.pdf" in done.stdout
    reader = PdfReader(pdf)
    assert len(reader.pages) == 2              # the cards, then the game's extras
    text = reader.pages[0].extract_text()
    for card_type in ("ship", "storm"):
        assert f"{card_type} (front)" in text.lower() and f"{card_type} (back)" in text.lower()
    pngs = sorted((project / "output" / "preview").glob("harbour-preview-*.png"))
    assert [p.name for p in pngs] == ["harbour-preview-1.png", "harbour-preview-2.png"]
    with Image.open(pngs[0]) as image:
        assert image.width > 400 and image.height > 200

    every = cli("pnp", "preview", "--all", "--out", str(tmp_path / "all"), cwd=project)
    assert every.returncode == 0, every.stderr
    cards = PdfReader(tmp_path / "all" / "harbour-preview.pdf").pages[0].extract_text()
    assert "(front)" not in cards and cards.lower().count("ship") > text.lower().count("ship")


def test_preview_refuses_an_unknown_game_and_a_folder_without_cards_yaml(cli, tmp_path):
    assert cli("pnp", "init", str(tmp_path / "proj")).returncode == 0
    unknown = cli("pnp", "preview", "--game", "chess", cwd=tmp_path / "proj")
    assert unknown.returncode == 2
    assert unknown.stderr.strip().splitlines() == [
        "pnp: unknown game 'chess' (choose from harbour)"]
    assert not (tmp_path / "proj" / "output" / "preview").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = cli("pnp", "preview", cwd=empty)
    assert nothing.returncode == 1 and "no cards.yaml" in nothing.stderr
    assert "Traceback" not in nothing.stderr and list(empty.iterdir()) == []
