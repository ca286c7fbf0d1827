"""The drawing-element registry (issue 24, item 1): one module per element in
pnp/draw/elements/, typed frozen operations, a reference generated from the
declarations, and an element added from outside pnp working end to end."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import pkgutil
import struct
import sys
from pathlib import Path

import pytest

from pnp.draw import elements
from pnp.draw.elements.base import Element, Op
from pnp.draw.elements.reference import markdown
from tests.harness import run_cli

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ("badge", "ellipse", "icon", "image", "line", "polygon", "rect", "text")


def test_the_registry_finds_one_module_per_element():
    """Every module of the package is an element of its name (the bundled ones at
    least: an element added later adds to them, the exact list is not pinned)."""
    package = Path(elements.__file__).parent
    modules = {info.name for info in pkgutil.iter_modules([str(package)])
               if info.name not in ("base", "reference") and not info.name.startswith("_")}
    found = elements.registry()
    assert set(BUNDLED) <= modules <= set(found)
    for name, element in found.items():
        assert isinstance(element, Element) and element.name == name
    for name in modules:
        element = found[name]
        assert importlib.import_module(f"pnp.draw.elements.{name}").ELEMENT is element
        assert element.doc.strip() and element.keys
        for key in element.keys:
            assert key.type and key.doc, f"{name}.{key.name} is undocumented"


def test_the_committed_element_reference_is_current():
    """docs/ELEMENTS.md is `python -m pnp.draw.elements` output; regenerate it (and the
    table of docs/CARDS.md) with `python -m pnp.draw.elements --write docs`."""
    committed = (ROOT / "docs" / "ELEMENTS.md").read_text(encoding="utf-8")
    assert committed == markdown(), "docs/ELEMENTS.md is stale: python -m pnp.draw.elements " \
                                    "--write docs"
    for name, element in elements.registry().items():
        assert f"## {name}" in committed
        assert all(f"`{key.name}`" in committed for key in element.keys)


def test_the_element_table_of_cards_md_is_current():
    """docs/CARDS.md carries a generated summary between its elements markers."""
    from pnp.draw.elements.reference import with_summary

    committed = (ROOT / "docs" / "CARDS.md").read_text(encoding="utf-8")
    assert committed == with_summary(committed), "docs/CARDS.md's element table is stale: " \
                                                 "python -m pnp.draw.elements --write docs"
    for name in elements.registry():
        assert f"[`{name}`](ELEMENTS.md#{name})" in committed


def test_the_generator_rewrites_both_files(tmp_path):
    from pnp.draw.elements.reference import BEGIN, END, write

    (tmp_path / "CARDS.md").write_text(f"# x\n\n{BEGIN}\nold table\n{END}\n\nafter\n")
    write(tmp_path)
    cards = (tmp_path / "CARDS.md").read_text()
    assert "old table" not in cards and "| [`rect`](ELEMENTS.md#rect) |" in cards
    assert cards.startswith("# x\n") and cards.endswith(f"{END}\n\nafter\n")
    assert (tmp_path / "ELEMENTS.md").read_text() == markdown()


def test_settings_are_checked_against_the_declaration():
    rect = elements.registry()["rect"]
    with pytest.raises(elements.ElementError, match="rect: missing 'box'"):
        rect.normalise({})
    with pytest.raises(elements.ElementError, match="unknown setting 'colour'"):
        rect.normalise({"box": [0, 0, 1, 1], "colour": "red"})
    with pytest.raises(elements.ElementError, match="align must be one of left, center"):
        elements.normalise({"text": {"box": [0, 0, 1, 1], "text": "x", "align": "up"}})
    with pytest.raises(elements.ElementError, match="unknown element 'txt'"):
        elements.normalise({"txt": {}})
    assert rect.normalise({"box": [0, 0, 1, 1], "id": "bg"})["width"] == 0.5


def _bmp(w: int, h: int) -> bytes:
    """A w x h red BMP, byte for byte the same everywhere (unlike an encoder's PNG)."""
    row = (w * 3 + 3) // 4 * 4
    pixels = b"".join(bytes([0, 0, 255] * w).ljust(row, b"\0") for _ in range(h))
    return b"BM" + struct.pack("<IHHI", 54 + len(pixels), 0, 0, 54) + struct.pack(
        "<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(pixels), 2835, 2835, 0, 0) + pixels


EVERY_ELEMENT = """{#- design: 63.5 x 88.9 -#}
- rect: {box: [0, 0, {{ W }}, {{ H }}], fill: "#1d5c8c", bleed: true, radius: 1, dash: [2, 1], stroke: red}
- rect: {box: [5, 5, 10, 10], fill: "cmyk(0, 0.8, 0.8, 0.1)", alpha: 0.5}
- ellipse: {box: [5, 20, 10, 6], fill: "#ffffff", stroke: "#000000"}
- polygon: {points: [[5, 30], [15, 30], [10, 38]], fill: "#c62828"}
- line: {points: [[5, 40], [50, 40], [50, 45]], width: 0.75, dash: 2}
- text: {id: rules, box: [6, 50, 50, 20], text: {{ card.text }}, align: center, size: 9}
- icon: {name: mask, center: [30, 10], size: 6}
- badge: {center: [40, 30], size: 10, shape: burst, value: 3, label: ATTACK, icon: null}
- badge: {center: [20, 75], size: 8, shape: shield, icon: mask}
- image: {path: art.bmp, box: [30, 55, 20, 15], fit: contain}
"""

PROJECT = """version: 1
games:
  g:
    title: G
    players: {min: 2, max: 4}
    types:
      T: {fields: {}}
    decks:
      d:
        title: D
        size: [63.5, 88.9]
        back: {title: G}
        cards:
          - {name: A, type: T, text: "Draw **1** {icon:mask}."}
"""

# The plan text's digest of EVERY_ELEMENT as the positional-tuple renderer (before
# pnp/draw/elements/) computed it: the per-card hashes of `pnp build`'s records, and so
# `pnp diff` and --changed-only across the upgrade, rest on it. Recorded with
# ReportLab 5.1 (glyph widths and colour reprs are ReportLab's).
GOLDEN_PLAN = "8944b1088c1c4e6858270edf9e2773e6849b43efb5a973f56e9f9195b51cd3ba"


def _renderer(tmp_path, template: str):
    import carddb
    from pnp.draw.fonts import register_fonts
    from pnp.draw.render import CardRenderer

    (tmp_path / "templates" / "g").mkdir(parents=True)
    (tmp_path / "cards.yaml").write_text(PROJECT)
    (tmp_path / "art.bmp").write_bytes(_bmp(4, 3))
    (tmp_path / "templates" / "g" / "t.j2").write_text(template)
    db = carddb.load(tmp_path / "cards.yaml")
    renderer = CardRenderer(db, register_fonts({}, tmp_path), templates=tmp_path / "templates")
    return renderer, db.games["g"].decks["d"]


def test_operations_are_frozen_slotted_and_hash_as_before(tmp_path):
    import reportlab

    from pnp.artefacts import drawn
    from pnp.draw.render import MM

    renderer, deck = _renderer(tmp_path, EVERY_ELEMENT)
    planned = renderer._planned(*renderer._front(deck.cards[0], deck, 63.5 * MM, 88.9 * MM,
                                                 3.175 * MM))
    ops = [op for _, op in planned[1]]
    assert {op.kind for op in ops} == {"rect", "ellipse", "polygon", "line", "text", "icon",
                                       "shape", "image"}
    for op in ops:
        assert isinstance(op, Op) and dataclasses.is_dataclass(op)
        assert not hasattr(op, "__dict__")                 # slots
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(op, dataclasses.fields(op)[0].name, None)
        assert repr(op) == repr(op.as_tuple()) and op.as_tuple()[0] == op.kind
    if not reportlab.Version.startswith("5.1"):
        pytest.skip(f"golden plan recorded with ReportLab 5.1, this is {reportlab.Version}")
    text = drawn.plan_text(planned[1], {})
    assert hashlib.sha256(text.encode()).hexdigest() == GOLDEN_PLAN


@pytest.fixture
def checker():
    """The test-only `checker` element, registered by importing its one module."""
    try:
        sys.modules.pop("tests.pnp.checker_element", None)
        module = importlib.import_module("tests.pnp.checker_element")
        yield module.ELEMENT
    finally:
        elements.unregister("checker")


def _starter(tmp_path) -> Path:
    project = tmp_path / "game"
    result = run_cli("pnp", "init", str(project))
    assert result.returncode == 0, result.stderr
    storm = project / "templates" / "harbour" / "storm.j2"
    storm.write_text(storm.read_text() + '- checker: {box: [6, 55, 20, 20], a: "#ff0000", '
                                          'b: "#00ff00", n: 4}\n')
    return project


def _build(project: Path, out: Path):
    return run_cli("pnp", "build", "--project", str(project), "--out", str(out),
                   "--only", "storms", "--force")


def test_an_element_registered_by_one_module_is_drawn_end_to_end(tmp_path, checker):
    import pypdfium2 as pdfium

    project = _starter(tmp_path)
    result = _build(project, tmp_path / "out")
    assert result.returncode == 0, result.stderr
    pdf = pdfium.PdfDocument(tmp_path / "out" / "harbour" / "storms.pdf")
    image = pdf[0].render(scale=1).to_pil().convert("RGB")
    pdf.close()
    counts = {"red": 0, "green": 0}
    data = image.tobytes()
    for r, g, b in zip(data[0::3], data[1::3], data[2::3], strict=True):
        if r > 240 and g < 15 and b < 15:
            counts["red"] += 1
        elif g > 240 and r < 15 and b < 15:
            counts["green"] += 1
    # five Storm cards, each a 20 mm checker (~57 x 57 px at 72 dpi), half of each colour
    assert counts["red"] > 5 * 1400 and counts["green"] > 5 * 1400, counts
    assert abs(counts["red"] - counts["green"]) < 0.1 * counts["red"]
    assert "checker" in markdown()          # registered elements join the reference


def test_without_its_module_the_element_is_unknown(tmp_path):
    project = _starter(tmp_path)
    result = _build(project, tmp_path / "out")
    assert result.returncode == 1
    assert "unknown element 'checker'" in result.stderr


def test_hex_colours_are_the_colours_reportlab_makes():
    """`#rrggbb` is made without toColor's first attempts (base.color): the same class
    and values as toColor's; anything else (a name, `#rgb`, a bad value) is toColor's."""
    import random

    from reportlab.lib.colors import toColor

    from pnp.draw.elements import base

    rng = random.Random(36)
    values = ["#111111", "#FDF6E3", "#d7262E", "#000000", "#ffffff",
              *(f"#{rng.randrange(1 << 24):06x}" for _ in range(200))]
    for value in [*values, "red", "#fff", "#12345", "#1234567", "#11223344", "rgb(10, 20, 30)"]:
        made = base.color(value, "color")
        expected = toColor(value)
        assert type(made) is type(expected) and vars(made) == vars(expected), value
    for bad in ("#12345g", "#", "not a colour"):
        with pytest.raises(base.ElementError):
            base.color(bad, "color")
