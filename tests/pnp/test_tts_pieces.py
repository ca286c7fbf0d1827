"""Dice and tokens in the tabletop exports (issue 33 item 3): `pnp export tts` writes a
game's dice as TTS custom dice (a texture of its faces, RotationValues naming them) and
its tokens as custom tokens in a bag per kind, with links under `--base-url` or, said
so, local files; Tabletopia gets one image per die face and per token kind."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from click.testing import CliRunner
from PIL import Image

from pnp.cli.main import main
from tests.pnp.pieces_support import own_pieces  # noqa: E402

BASE = "https://example.org/harbour-play/"
# TTS's save format (its knowledge base, custom-content/save-file-format: ObjectState,
# TransformState, CustomImageState, CustomDiceState, CustomTokenState, RotationValueState;
# GMNotes and ImageScalar as TTS writes them today)
OBJECT_KEYS = {"GUID", "Name", "Transform", "Nickname", "Description", "GMNotes",
               "ColorDiffuse", "Locked", "Grid", "Snap", "Autoraise", "Sticky", "Tooltip",
               "GridProjection", "HideWhenFaceDown", "Hands", "CustomImage", "RotationValues",
               "ContainedObjects", "LuaScript", "LuaScriptState", "XmlUI"}
DIE_KEYS = {"GUID", "Name", "Transform", "Nickname", "Description", "CustomImage",
            "RotationValues", "ColorDiffuse"}
TRANSFORM = {"posX", "posY", "posZ", "rotX", "rotY", "rotZ", "scaleX", "scaleY", "scaleZ"}
IMAGE_KEYS = {"ImageURL", "ImageSecondaryURL", "ImageScalar", "WidthScale"}


def _objects(states):
    for state in states:
        yield state
        yield from _objects(state.get("ContainedObjects", ()))


def test_every_object_has_only_keys_of_the_save_format(shared):
    save = json.loads((shared / "harbour" / "pieces.json").read_text())
    for state in _objects(save["ObjectStates"]):
        assert set(state) <= OBJECT_KEYS, set(state) - OBJECT_KEYS
        assert set(state["Transform"]) == TRANSFORM
        assert set(state["ColorDiffuse"]) == {"r", "g", "b"}
        image = state.get("CustomImage")
        if image is not None:
            assert IMAGE_KEYS <= set(image) <= IMAGE_KEYS | {"CustomDice", "CustomToken"}
            assert set(image.get("CustomDice", {"Type": 1})) == {"Type"}
            assert set(image.get("CustomToken", {"Thickness": 0, "MergeDistancePixels": 0,
                                                 "Stackable": 0})) == \
                {"Thickness", "MergeDistancePixels", "Stackable"}


def _export(root: Path, *args: str):
    return CliRunner().invoke(main, ["export", "tts", "--project", str(root), "--out",
                                     str(root / "tts"), *args])


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    root = tmp_path_factory.mktemp("tts-pieces")
    own_pieces(root)
    result = _export(root, "--base-url", BASE)
    assert result.exit_code == 0, result.output
    return root / "tts"


def _local(url: str, out: Path) -> Path:
    assert url.startswith(BASE), url
    return out / unquote(url[len(BASE):])


def test_the_dice_are_tts_custom_dice_with_their_faces(shared):
    save = json.loads((shared / "harbour" / "pieces.json").read_text())
    dice = [o for o in save["ObjectStates"] if o["Name"] == "Custom_Dice"]
    assert [d["Nickname"] for d in dice] == ["Battle die"] + ["Storm die"] * 3   # per_player
    for die in dice:
        assert DIE_KEYS <= set(die) and set(die["Transform"]) == TRANSFORM
        image = die["CustomImage"]
        assert IMAGE_KEYS <= set(image) and image["CustomDice"] == {"Type": 1}     # a d6
        assert len(die["RotationValues"]) == 6
        assert all(set(v["Rotation"]) == {"x", "y", "z"} for v in die["RotationValues"])
        texture = Image.open(_local(image["ImageURL"], shared))
        assert texture.size[0] == texture.size[1] > 0             # TTS's d6 template: square
    battle = [v["Value"] for v in dice[0]["RotationValues"]]
    assert battle == ["sword", "sword", "shield", "skull", "blank", 1]   # a number counts
    assert len({d["GUID"] for d in save["ObjectStates"]}) == len(save["ObjectStates"])


def test_the_texture_is_laid_out_as_the_tts_d6_template(shared):
    """3 x 3 cells, top row unused; faces 2 4 5 in the middle row, 1 3 6 below, 1 and 6
    upside down: each cell is the face's own image."""
    from PIL import ImageChops

    folder = shared / "harbour" / "dice"
    texture = Image.open(folder / "battle.png").convert("RGB")
    cell = texture.size[0] // 3
    where = {1: (0, 2, 180), 2: (0, 1, 0), 3: (1, 2, 0), 4: (1, 1, 0), 5: (2, 1, 0),
             6: (2, 2, 180)}
    for n, (col, row, turned) in where.items():
        face = Image.open(folder / f"battle-{n}.png").convert("RGB").rotate(turned)
        placed = texture.crop((col * cell, row * cell, (col + 1) * cell, (row + 1) * cell))
        assert ImageChops.difference(face, placed).getbbox() is None, n
    top = texture.crop((0, 0, texture.size[0], cell)).convert("L")
    assert top.getextrema() == (255, 255)                 # unused: the die's white


def test_one_image_per_face_beside_the_texture(shared):
    faces = sorted(p.name for p in (shared / "harbour" / "dice").glob("battle-*.png"))
    assert faces == [f"battle-{n}.png" for n in range(1, 7)]
    blank = Image.open(shared / "harbour" / "dice" / "battle-5.png").convert("L")
    assert blank.getextrema() == (255, 255), "the blank face is blank"
    sword = Image.open(shared / "harbour" / "dice" / "battle-1.png").convert("RGB")
    assert any(b > 150 and r < 100 for _n, (r, _g, b) in sword.getcolors(1 << 20)), \
        "the blue SVG blade"


def test_tokens_are_custom_tokens_in_a_bag_of_their_count(shared):
    save = json.loads((shared / "harbour" / "pieces.json").read_text())
    bags = {o["Nickname"]: o for o in save["ObjectStates"] if o["Name"] == "Bag"}
    assert set(bags) == {"Cargo (40)", "Lantern (20)"}
    for bag, count in ((bags["Cargo (40)"], 40), (bags["Lantern (20)"], 20)):
        tokens = bag["ContainedObjects"]
        assert len(tokens) == count and {t["Name"] for t in tokens} == {"Custom_Token"}
        image = tokens[0]["CustomImage"]
        assert IMAGE_KEYS <= set(image)
        assert set(image["CustomToken"]) >= {"Thickness", "MergeDistancePixels", "Stackable"}
        picture = Image.open(_local(image["ImageURL"], shared))
        assert picture.mode == "RGBA"
        assert picture.getpixel((0, 0))[3] == 0, "transparent outside the circle"
        w, h = picture.size
        assert picture.getpixel((w // 2, h // 2))[3] == 255


def test_the_decks_link_under_the_base_url_too(shared):
    deck = json.loads((shared / "harbour" / "ships.json").read_text())
    custom = next(iter(deck["ObjectStates"][0]["CustomDeck"].values()))
    assert _local(custom["FaceURL"], shared).is_file()
    assert _local(custom["BackURL"], shared).is_file()


def test_without_a_base_url_the_links_are_local_and_said_to_be(shared, tmp_path):
    # the shared project again (its card plans kept: pnp.draw.plan_cache), into a folder
    # of this test's own
    result = CliRunner().invoke(main, ["export", "tts", "--project", str(shared.parent),
                                       "--out", str(tmp_path / "tts")])
    assert result.exit_code == 0, result.output
    assert "only it can load them" in result.output and "--base-url URL" in result.output
    save = json.loads((tmp_path / "tts" / "harbour" / "pieces.json").read_text())
    url = save["ObjectStates"][0]["CustomImage"]["ImageURL"]
    assert url.startswith("file://") and Path(unquote(urlsplit(url).path)).is_file()


@pytest.mark.parametrize("url", ["example.org/x", "ftp://example.org/x", "https://"])
def test_a_base_url_that_is_no_web_address_is_refused(tmp_path, url):
    own_pieces(tmp_path)
    result = _export(tmp_path, "--base-url", url)
    assert result.exit_code != 0 and "--base-url" in result.output
    assert len(result.output.strip().splitlines()) <= 2 and "Traceback" not in result.output
    assert not (tmp_path / "tts").exists()


def test_tabletopia_gets_the_face_and_token_images(tmp_path):
    own_pieces(tmp_path)
    result = CliRunner().invoke(main, ["export", "tabletopia", "--project", str(tmp_path),
                                       "--out", str(tmp_path / "tt"), "--dpi", "150"])
    assert result.exit_code == 0, result.output
    game = tmp_path / "tt" / "harbour"
    for die in ("battle", "storm"):
        faces = sorted(p.name for p in (game / "dice" / die).iterdir())
        assert faces == [f"face-{n}.png" for n in range(1, 7)]
        assert Image.open(game / "dice" / die / "face-1.png").size == (94, 94)   # 16 mm
    assert sorted(p.name for p in (game / "tokens").iterdir()) == ["cargo.png", "lantern.png"]
    assert Image.open(game / "tokens" / "cargo.png").mode == "RGBA"


def test_a_deck_or_card_selection_exports_no_pieces(tmp_path):
    own_pieces(tmp_path)
    result = _export(tmp_path, "--deck", "ships")
    assert result.exit_code == 0, result.output
    game = tmp_path / "tts" / "harbour"
    assert (game / "ships.json").is_file()
    assert not (game / "pieces.json").exists() and not (game / "dice").exists()
