"""Tabletop Simulator export: deck sheets, one back image per deck and a saved-object JSON.

TTS custom decks read the card faces from sheet images laid out in a grid of at most
10 x 7 cards; the last slot of the grid is the "hidden" card TTS shows for cards in other
players' hands (we put the deck's back there). Sheets stay within 4096 x 4096 px. Cards
are cut at the trim (no bleed). Each card of the saved object has CardID =
deck_number * 100 + slot index, deck_number counting the deck's sheets from 1; copies of
a design repeat its CardID in DeckIDs. Every sheet of a deck, and its back, has the same
cell size in pixels (the size the fullest sheet allows), so a deck's cards look alike
in TTS whichever sheet they come from.

Layout under OUT: <game>/<deck>-sheet-<n>.jpg, <game>/<deck>-back.jpg, <game>/<deck>.json
(load the JSON as a TTS saved object: Documents/My Games/Tabletop Simulator/Saves/
Saved Objects).

A game's dice and tokens (issue 33), when whole games are exported: <game>/dice/<set>-
<n>.png, one image per face as die-face.j2 draws it, <game>/dice/<set>.png the six laid
out as the texture of a TTS custom d6 (D6_CELLS), <game>/tokens/<token>.png each token
round and transparent outside, and <game>/pieces.json: a saved object with each die of
each set as a `Custom_Dice` (its RotationValues naming the faces, so TTS tells what was
rolled) and each token kind as a `Bag` of its `count` `Custom_Token`s.

Image links: `file://` URIs of this computer by default (only it can load the save),
or with `base_url` the files' paths under OUT appended to it (where the folder will be
served: a shared save any player's TTS can load).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_COLS, MAX_ROWS = 10, 7
MAX_SHEET_PX = 4096
MAX_CARD_DPI = 300  # no point in sheets sharper than the print
JPEG_QUALITY = 92


@dataclass(frozen=True)
class SheetGrid:
    cols: int
    rows: int
    cell_w: int
    cell_h: int

    @property
    def slots(self) -> int:
        return self.cols * self.rows

    @property
    def hidden(self) -> int:
        """The slot TTS uses for the hidden card: the last one."""
        return self.slots - 1

    @property
    def size(self) -> tuple[int, int]:
        return self.cols * self.cell_w, self.rows * self.cell_h


def sheet_grid(designs: int, card_w_mm: float, card_h_mm: float,
               cell: tuple[int, int] | None = None) -> SheetGrid:
    """The grid for `designs` cards plus the hidden card (TTS wants at least 2 x 2).
    Its cells are `cell` pixels when given (see `deck_cell`), else as large as the
    sheet limit and MAX_CARD_DPI allow for this grid."""
    slots = designs + 1
    if slots > MAX_COLS * MAX_ROWS:
        raise ValueError(f"{designs} cards do not fit one sheet (at most "
                         f"{MAX_COLS * MAX_ROWS - 1} plus the hidden card)")
    rows = max(2, math.ceil(slots / MAX_COLS))
    cols = max(2, math.ceil(slots / rows))
    if cell is not None:
        return SheetGrid(cols, rows, *cell)
    aspect = card_h_mm / card_w_mm
    cell_w = min(MAX_SHEET_PX // cols, math.floor((MAX_SHEET_PX // rows) / aspect),
                 round(card_w_mm / 25.4 * MAX_CARD_DPI))
    cell_h = min(round(cell_w * aspect), MAX_SHEET_PX // rows)
    return SheetGrid(cols, rows, cell_w, cell_h)


def deck_cell(sheet_sizes: list[int], card_w_mm: float, card_h_mm: float) -> tuple[int, int]:
    """One cell size (px) for every sheet of a deck: the smallest any of its sheets
    needs, so no sheet breaks the 4096 px limit and all cards share one resolution."""
    grids = [sheet_grid(n, card_w_mm, card_h_mm) for n in sheet_sizes or [1]]
    smallest = min(grids, key=lambda g: g.cell_w)
    return smallest.cell_w, smallest.cell_h


def per_sheet() -> int:
    return MAX_COLS * MAX_ROWS - 1


def guid(*parts: str) -> str:
    """A stable 6-hex-digit TTS GUID."""
    return hashlib.sha1("/".join(parts).encode()).hexdigest()[:6]


def _transform(x: float = 0.0) -> dict[str, float]:
    return {"posX": x, "posY": 1.0, "posZ": 0.0, "rotX": 0.0, "rotY": 180.0, "rotZ": 180.0,
            "scaleX": 1.0, "scaleY": 1.0, "scaleZ": 1.0}


def _card_object(card: Any, card_id: int, custom: dict, game: str) -> dict[str, Any]:
    return {
        "GUID": guid(game, card.deck, card.name),
        "Name": "Card",
        "Transform": _transform(),
        "Nickname": card.name,
        "Description": card.text,
        "GMNotes": card.type,
        "CardID": card_id,
        "CustomDeck": custom,
        "Hands": True,
        "SidewaysCard": False,
        "Locked": False,
        "Grid": True,
        "Snap": True,
        "Tooltip": True,
    }


def crop_trim(image: Any, bleed_px: float, size: tuple[int, int]) -> Any:
    """The trim area of a rasterised face (bleed cut off), exactly `size` pixels."""
    w, h = image.size
    b = round(bleed_px)
    trimmed = image.crop((b, b, w - b, h - b))
    if trimmed.size != size:
        from PIL import Image

        trimmed = trimmed.resize(size, Image.Resampling.LANCZOS)
    return trimmed


def export_tts(db: Any, faces: list, renderer: Any, out: Path, jpeg: bool = True,
               jobs: int | None = 1, base_url: str | None = None,
               pieces_of: tuple[str, ...] = ()):
    """Sheets, back and saved-object JSON for every deck among `faces`, and the dice and
    tokens of the games `pieces_of`; `jobs` > 1 (None: the machine's cores): the decks
    drawn by that many worker processes (pnp.artefacts.workers), the files the same
    whatever `jobs`. `base_url`: where OUT will be served (links), else file:// URIs."""
    from pnp.artefacts.workers import FEW_FACES, in_order
    from pnp.exports.cards import Exported, grouped_by_deck

    result = Exported()
    groups = [g for g in grouped_by_deck(faces).values()
              if any(f.card is not None for f in g)]
    # a forked worker draws with this very renderer, a spawned one makes its own
    for files, warnings in in_order(_deck, (db, renderer, out, jpeg, base_url), groups, jobs,
                                    cost=len, spawned=(db, None, out, jpeg, base_url),
                                    small=FEW_FACES):
        result.files += files
        result.warnings += warnings
    for game in pieces_of:
        files, warnings = export_pieces(db, renderer, game, out, base_url)
        result.files += files
        result.warnings += warnings
    return result


def image_url(path: Path, out: Path, base_url: str | None) -> str:
    """How a save names an image: under `base_url` by its path below OUT, else the
    file's URI on this computer."""
    if base_url is None:
        return path.resolve().as_uri()
    from urllib.parse import quote

    rel = path.resolve().relative_to(out.resolve()).as_posix()
    return base_url.rstrip("/") + "/" + quote(rel)


# ── dice and tokens ─────────────────────────────────────────────────────────────────

# A TTS custom d6 texture, laid out as TTS's own d6 template (Modding/Dice Templates; the
# picture in TTS's knowledge base, custom-content/custom-dice): a square of 3 x 3 cells,
# the top row unused, faces 2, 4, 5 in the middle row, 1 (upside down), 3 and 6 (upside
# down) in the bottom row. The faces as declared are TTS's values 1..6 in order:
# face n -> (column, row, degrees turned). D6_ROTATIONS: the rotation TTS saves for a d6
# lying with value n uppermost (its RotationValues).
D6_CELLS = {1: (0, 2, 180), 2: (0, 1, 0), 3: (1, 2, 0), 4: (1, 1, 0), 5: (2, 1, 0),
            6: (2, 2, 180)}
D6_ROTATIONS = ((-90.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, -90.0), (0.0, 0.0, 90.0),
                (0.0, 0.0, -180.0), (90.0, 0.0, 0.0))
DICE_TYPE = {4: 0, 6: 1, 8: 2, 10: 3, 12: 4, 20: 5}   # CustomDice.Type by number of faces
TOKEN_THICKNESS = 0.2


def export_pieces(db: Any, renderer: Any, game: str, out: Path,
                  base_url: str | None) -> tuple[list[Path], list]:
    """A game's face and token images and its pieces.json (the module's docstring)."""
    from pnp.exports import pieces, staging
    from pnp.outpaths import inside

    files: list[Path] = []
    warnings: list = []
    folder = inside(out, game)
    objects: list[dict] = []
    for number, die in enumerate(pieces.dice(db, renderer, game), start=1):
        warnings += die.warnings
        if len(die.faces) != 6:
            from pnp.draw.layout_warning import LayoutWarning

            warnings.append(LayoutWarning(game, "(dice)", die.set_id, "tts",
                                          f"a die of {len(die.faces)} faces: only the d6 is "
                                          "written as a TTS custom die (its faces are "
                                          "written as images)"))
        dice_folder = inside(folder, "dice")
        files += [pieces.save_png(image, dice_folder, f"{die.set_id}-{index}.png")
                  for index, image in enumerate(die.faces, start=1)]
        if len(die.faces) == 6:
            texture = pieces.save_png(d6_texture(die.faces), dice_folder, f"{die.set_id}.png")
            files.append(texture)
            url = image_url(texture, out, base_url)
            objects += [dice_object(game, die, n, url, number)
                        for n in range(die.die.per_player)]
    for token in pieces.tokens(db, renderer, game):
        warnings += token.warnings
        path = pieces.save_png(token.image, inside(folder, "tokens"), f"{token.token_id}.png")
        files.append(path)
        objects.append(token_bag(game, token.token_id, token.spec,
                                 image_url(path, out, base_url)))
    if objects:
        folder.mkdir(parents=True, exist_ok=True)
        json_path = inside(folder, "pieces.json")
        staging.target(json_path).write_text(
            json.dumps(_saved(objects), indent=2, ensure_ascii=False) + "\n")
        files.append(json_path)
    return files, warnings


def d6_texture(faces: list) -> Any:
    """The six face images placed as D6_CELLS says, one square texture (the unused top
    row in the colour of the first face's corner: the die's own colour)."""
    from PIL import Image

    w, h = faces[0].size
    sheet = Image.new("RGB", (3 * w, 3 * h), faces[0].convert("RGB").getpixel((0, 0)))
    for n, face in enumerate(faces, start=1):
        col, row, turned = D6_CELLS[n]
        sheet.paste(face.convert("RGB").rotate(turned), (col * w, row * h))
    return sheet


def dice_object(game: str, die: Any, n: int, url: str, number: int) -> dict[str, Any]:
    """One die of a set as a TTS Custom_Dice."""
    faces = die.die.faces
    return {
        "GUID": guid(game, "die", die.set_id, str(n)),
        "Name": "Custom_Dice",
        "Transform": {**_transform(2.0 * n), "posZ": -4.0 * number, "rotY": 0.0,
                      "rotZ": 0.0},
        "Nickname": f"{die.label} die",
        "Description": ", ".join(face.label for face in faces),
        "GMNotes": "",
        "ColorDiffuse": {"r": 1.0, "g": 1.0, "b": 1.0},
        "Locked": False, "Grid": True, "Snap": True, "Autoraise": True, "Sticky": True,
        "Tooltip": True, "Hands": False,
        "CustomImage": {"ImageURL": url, "ImageSecondaryURL": "", "ImageScalar": 1.0,
                        "WidthScale": 0.0, "CustomDice": {"Type": DICE_TYPE[len(faces)]}},
        "RotationValues": [{"Value": face.key if face.value is None else face.value,
                            "Rotation": dict(zip("xyz", rotation,
                                                                   strict=True))}
                           for face, rotation in zip(faces, D6_ROTATIONS, strict=True)],
        "LuaScript": "", "LuaScriptState": "", "XmlUI": "",
    }


def token_object(game: str, token_id: str, spec: dict, url: str, n: int) -> dict[str, Any]:
    """One token as a TTS Custom_Token (TTS cuts its shape from the image's alpha)."""
    return {
        "GUID": guid(game, "token", token_id, str(n)),
        "Name": "Custom_Token",
        "Transform": {**_transform(), "rotY": 0.0, "rotZ": 0.0,
                      "scaleX": float(spec["diameter_mm"]) / 25.4,
                      "scaleY": 1.0, "scaleZ": float(spec["diameter_mm"]) / 25.4},
        "Nickname": str(spec.get("name", token_id)),
        "Description": str(spec.get("label", "")),
        "GMNotes": "",
        "ColorDiffuse": {"r": 1.0, "g": 1.0, "b": 1.0},
        "Locked": False, "Grid": True, "Snap": True, "Autoraise": True, "Sticky": True,
        "Tooltip": True, "Hands": False,
        "CustomImage": {"ImageURL": url, "ImageSecondaryURL": "", "ImageScalar": 1.0,
                        "WidthScale": 0.0,
                        "CustomToken": {"Thickness": TOKEN_THICKNESS,
                                        "MergeDistancePixels": 15.0, "Stackable": True}},
        "LuaScript": "", "LuaScriptState": "", "XmlUI": "",
    }


def token_bag(game: str, token_id: str, spec: dict, url: str) -> dict[str, Any]:
    """A token kind's bank: a Bag holding its `count` tokens."""
    count = int(spec["count"])
    name = str(spec.get("name", token_id))
    return {
        "GUID": guid(game, "bag", token_id),
        "Name": "Bag",
        "Transform": {**_transform(), "rotY": 0.0, "rotZ": 0.0, "posZ": 4.0},
        "Nickname": f"{name} ({count})",
        "Description": f"{count} {name} tokens",
        "GMNotes": "",
        "ColorDiffuse": {"r": 0.7, "g": 0.7, "b": 0.7},
        "Locked": False, "Grid": True, "Snap": True, "Autoraise": True, "Sticky": True,
        "Tooltip": True, "Hands": False,
        "ContainedObjects": [token_object(game, token_id, spec, url, n) for n in range(count)],
        "LuaScript": "", "LuaScriptState": "", "XmlUI": "",
    }


def _saved(objects: list[dict]) -> dict[str, Any]:
    """A TTS saved object holding `objects`."""
    return {"SaveName": "", "GameMode": "", "Date": "", "Table": "", "Sky": "", "Note": "",
            "Rules": "", "XmlUI": "", "LuaScript": "", "LuaScriptState": "",
            "ObjectStates": objects, "TabStates": {}, "VersionNumber": ""}


def _deck(shared: tuple, deck_faces: list) -> tuple[list, list]:
    """One deck's sheets, back and JSON (a piece of pnp.artefacts.workers.in_order):
    (files, warnings)."""

    from pnp.artefacts.single import Face
    from pnp.exports import staging
    from pnp.exports.cards import Exported, render_faces
    from pnp.outpaths import inside

    db, renderer, out, jpeg, base_url = shared
    if renderer is None:                # a spawned worker
        from pnp.draw.render import card_renderer

        renderer = card_renderer(db)
    result = Exported()
    ext = "jpg" if jpeg else "png"
    deck = deck_faces[0].deck
    game, deck_id = deck.game, deck.id
    fronts = [f for f in deck_faces if f.card is not None]
    folder = inside(out, game)
    folder.mkdir(parents=True, exist_ok=True)
    w_mm, h_mm = deck.size_mm
    bleed_mm = db.print.bleed_mm
    sheets = [fronts[i:i + per_sheet()] for i in range(0, len(fronts), per_sheet())]
    cell_px = deck_cell([len(s) for s in sheets], w_mm, h_mm)

    back_path = inside(folder, f"{deck_id}-back.{ext}")   # checked before drawing
    back_size = cell_px
    dpi = cell_px[0] / (w_mm / 25.4)
    [(_, back_raw, back_warnings)] = render_faces([Face(deck)], renderer, bleed_mm, dpi)
    result.warnings += back_warnings
    back = crop_trim(back_raw, bleed_mm / 25.4 * dpi, back_size)
    _save(back, staging.target(back_path), jpeg)
    result.files.append(back_path)

    custom_decks: dict[str, dict] = {}
    card_ids: dict[str, int] = {}
    for number, designs in enumerate(sheets, start=1):
        grid = sheet_grid(len(designs), w_mm, h_mm, cell_px)
        sheet_path = inside(folder, f"{deck_id}-sheet-{number}.{ext}")
        cells = _cells(render_faces(designs, renderer, bleed_mm, dpi, f"{game}/{deck_id}"),
                       bleed_mm / 25.4 * dpi, grid, result.warnings)
        for index, face in enumerate(_write_sheet(grid, cells, back, staging.target(sheet_path),
                                                  jpeg)):
            card_ids[face.card.name] = number * 100 + index
        result.files.append(sheet_path)
        custom_decks[str(number)] = {
            "FaceURL": image_url(sheet_path, out, base_url),
            "BackURL": image_url(back_path, out, base_url),
            "NumWidth": grid.cols,
            "NumHeight": grid.rows,
            "BackIsHidden": False,  # the hidden card is the sheet's last slot
            "UniqueBack": False,
            "Type": 0,
        }

    saved = saved_object(game, deck, [f.card for f in fronts], card_ids, custom_decks)
    json_path = inside(folder, f"{deck_id}.json")
    staging.target(json_path).write_text(json.dumps(saved, indent=2, ensure_ascii=False) + "\n")
    result.files.append(json_path)
    return result.files, result.warnings


def _slot_xy(grid: SheetGrid, index: int) -> tuple[int, int]:
    return (index % grid.cols) * grid.cell_w, (index // grid.cols) * grid.cell_h


def _cells(rendered: Iterator[tuple], bleed_px: float, grid: SheetGrid,
           warnings: list) -> Iterator[tuple[Any, Any]]:
    """(face, its cell image: the trim, cell-sized) of each rendered face, its warnings
    added to `warnings`; each raster is dropped once cut."""
    for face, raw, found in rendered:
        warnings += found
        yield face, crop_trim(raw, bleed_px, (grid.cell_w, grid.cell_h))


def _write_sheet(grid: SheetGrid, cells: Iterator[tuple[Any, Any]], back: Any, path: Path,
                 jpeg: bool) -> Iterator[Any]:
    """Write the sheet of `cells` (slot by slot from the first) with `back` in the hidden
    slot to `path`, yielding each card's face as it is placed. A JPEG sheet is written a
    row of cards at a time (pnp.exports.jpeg_strips), never held whole; a PNG whole."""
    if not jpeg:
        from PIL import Image

        sheet = Image.new("RGB", grid.size, "white")
        for row, (faces, band) in enumerate(_bands(grid, cells, back)):
            yield from faces
            sheet.paste(band, (0, row * grid.cell_h))
        _save(sheet, path, jpeg)
        return
    from pnp.exports.jpeg_strips import JpegStrips

    with path.open("wb") as fp:
        strips = JpegStrips(fp, grid.size, JPEG_QUALITY)
        for faces, band in _bands(grid, cells, back):
            yield from faces
            strips.add(band)
            del band                    # freed before the next row is made


def _bands(grid: SheetGrid, cells: Iterator[tuple[Any, Any]], back: Any
           ) -> Iterator[tuple[list, Any]]:
    """(faces placed, image) of each row of the sheet, top to bottom: the cells in slot
    order, the back in the hidden (last) slot, white where no card is."""
    from PIL import Image

    for row in range(grid.rows):
        band = Image.new("RGB", (grid.size[0], grid.cell_h), "white")
        faces = []
        for slot in range(row * grid.cols, (row + 1) * grid.cols):
            if slot == grid.hidden:
                cell = back
            else:
                face, cell = next(cells, (None, None))
                if face is None:
                    continue
                faces.append(face)
            band.paste(cell, ((slot % grid.cols) * grid.cell_w, 0))
        yield faces, band
        del band, cell                  # freed before the next row is made


def _save(image: Any, path: Path, jpeg: bool) -> None:
    # convert() copies even an RGB image: a 4090 x 4011 sheet is 64 MiB more at its peak
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    if jpeg:
        rgb.save(path, "JPEG", quality=JPEG_QUALITY, optimize=True)
    else:
        rgb.save(path, "PNG", compress_level=6)


def saved_object(game: str, deck: Any, cards: list, card_ids: dict[str, int],
                 custom_decks: dict[str, dict]) -> dict[str, Any]:
    """The TTS saved-object JSON of one deck (a lone Card object when it has one card)."""
    def custom_for(card_id: int) -> dict:
        number = str(card_id // 100)
        return {number: custom_decks[number]}

    contained, deck_ids = [], []
    for card in cards:
        for _ in range(card.copies):
            cid = card_ids[card.name]
            deck_ids.append(cid)
            contained.append(_card_object(card, cid, custom_for(cid), game))
    if len(contained) == 1:
        state = contained[0]
    else:
        state = {
            "GUID": guid(game, deck.id),
            "Name": "Deck",
            "Transform": _transform(),
            "Nickname": deck.title,
            "Description": f"{len(deck_ids)} cards",
            "DeckIDs": deck_ids,
            "CustomDeck": custom_decks,
            "ContainedObjects": contained,
            "Hands": False,
            "SidewaysCard": False,
            "Locked": False,
            "Grid": True,
            "Snap": True,
            "Tooltip": True,
        }
    return _saved([state])
