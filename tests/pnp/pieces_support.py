"""A game of one's own pieces for the tests of issue 33 (items 1-4): the starter from
`pnp init`, given its own icons (an SVG sword, a PNG skull), a sword-shield-skull-blank
die, a token showing the skull and card text naming both icons."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from pnp.cli.main import main

SWORD_BLUE = "#3060c0"          # the SVG's blade: found as a fill colour in the PDF
SWORD_FILL = re.compile(rb"\.1882\d* \.3764\d* \.7529\d* rg")    # ReportLab writes it so
SWORD_SVG = f"""<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="100" height="100">
  <path d="M50 5 L58 60 L42 60 Z" fill="{SWORD_BLUE}"/>
  <rect x="30" y="60" width="40" height="8" fill="#202020"/>
  <rect x="46" y="68" width="8" height="25" fill="#804020"/>
</svg>
"""
BATTLE_DIE = """    icons:
      sword: icons/sword.svg
      skull: {file: icons/skull.png, size_mm: 12}
    dice:
      battle:
        faces: [sword, sword, shield, skull, blank, 1]
        per_player: 1
        label: Battle
        color: "#ffffff"
        ink: "#000000"
      storm:"""


def skull_png(path: Path, px: int = 300) -> None:
    from PIL import Image, ImageDraw

    image = Image.new("RGBA", (px, px), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.ellipse((px * 0.13, px * 0.1, px * 0.87, px * 0.77), fill=(230, 20, 20, 255))
    draw.ellipse((px * 0.3, px * 0.3, px * 0.46, px * 0.46), fill=(0, 0, 0, 255))
    image.save(path)


def starter(root: Path) -> Path:
    """`pnp init` into `root`; its cards.yaml, its rules as data and turn summary left out
    (phases as names only: these tests add their own pieces and summary)."""
    result = CliRunner().invoke(main, ["init", str(root)])
    assert result.exit_code == 0, result.output
    cards = root / "cards.yaml"
    text = cards.read_text()
    cards.write_text(text[:text.index("    zones:")] + "    phases: [Draw, Sail, Storm]\n"
                     + text[text.index("    decks:"):])
    (root / "templates" / "harbour" / "reference.j2").unlink()
    return cards


def own_pieces(root: Path) -> Path:
    """The starter with its own icons, the battle die, a skull token and icons in text."""
    db = starter(root)
    (root / "icons").mkdir()
    (root / "icons" / "sword.svg").write_text(SWORD_SVG)
    skull_png(root / "icons" / "skull.png")
    text = db.read_text()
    text = text.replace("    dice:\n      storm:", BATTLE_DIE, 1)
    text = text.replace("per: shared, diameter_mm: 20,", "per: shared, diameter_mm: 20, "
                        "icon: skull,", 1)
    text = text.replace('text: "Every player loses 1 cargo."',
                        'text: "Every player {icon:sword} loses 1 {icon:skull} cargo."', 1)
    assert text.count("icons/") == 2 and "icon: skull" in text and "{icon:sword}" in text
    db.write_text(text)
    return db


def build(root: Path, *args: str) -> None:
    result = CliRunner().invoke(main, ["build", "--project", str(root), *args])
    assert result.exit_code == 0, result.output


def drawn(page) -> tuple[bytes, list[str]]:
    """All the drawing code of a PDF page, its form XObjects' code included, and the
    names of the raster images it shows."""
    contents = page.get_contents()
    code, images = [contents.get_data() if contents is not None else b""], []

    def walk(resources, depth=0):
        xobjects = (resources or {}).get("/XObject") or {}
        for name, ref in xobjects.items():
            obj = ref.get_object()
            if obj.get("/Subtype") == "/Image":
                images.append(str(name))
            elif obj.get("/Subtype") == "/Form" and depth < 8:
                code.append(obj.get_data())
                walk(obj.get("/Resources"), depth + 1)

    walk(page.get("/Resources"))
    return b"\n".join(code), images
