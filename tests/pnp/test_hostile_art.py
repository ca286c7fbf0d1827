"""Card art from a stranger's project (issue 25 item 1, issue 22 item 5): decoded only by
raster plugins that run no program, the format told from the bytes; Pillow's warnings
never reach the terminal; art far finer than print needs is embedded at print
resolution, made once and cached by content."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.pnp.hostile_support import (  # noqa: E402
    flat_png,
    gs_stand_in,
    one_line_error,
    pnp,
    project,
    stayed_inside,
    with_owner_art,
)

BUILD = ("build", "--game", "x-statix", "--only", "owners", "--out", "out")

EPS = (b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n"
       b"(WRITTEN-BY-POSTSCRIPT) (w) file closefile\n{ } loop\nshowpage\n")
NOT_RASTER = {
    "eps-named-png": ("art/owner.png", EPS, "is PostScript/EPS"),
    "eps": ("art/owner.eps", EPS, "is PostScript/EPS"),
    "dos-eps": ("art/owner.jpg", b"\xc5\xd0\xd3\xc6" + b"\0" * 28 + EPS, "is EPS"),
    "pdf": ("art/owner.png", b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n", "is PDF"),
    "svg": ("art/owner.png", b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>',
            "is SVG"),
    "text": ("art/owner.png", b"just some words\n", "not an image file"),
    "truncated-png": ("art/owner.png", None, "cannot be read"),
    "damaged-tiff": ("art/owner.tif", b"II*\x00\x08\x00\x00\x00\xff\xff" + b"\x01" * 64,
                     "cannot be read"),
}


def _truncated_png() -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.effect_noise((400, 400), 60).save(out, "PNG")
    return out.getvalue()[:3000]


@pytest.mark.parametrize("name", NOT_RASTER)
def test_art_that_is_not_an_allowed_raster_is_one_line_and_runs_nothing(tmp_path, name):
    art, data, message = NOT_RASTER[name]
    folder = project(tmp_path)
    (folder / "art").mkdir()
    (folder / art).write_bytes(data if data is not None else _truncated_png())
    with_owner_art(folder, art)
    env, marker = gs_stand_in(tmp_path)
    run = pnp(*BUILD, cwd=folder, watch=tmp_path, env=env, timeout=60)
    line = one_line_error(run, 1, Path(art).name, message, "card 'Coach'")
    assert "PNG, JPEG, WebP, GIF, TIFF or BMP" in line or message == "cannot be read"
    assert not marker.exists(), "Ghostscript was run on card art"
    stayed_inside(run, folder, tmp_path / "cache")
    assert not list(tmp_path.rglob("WRITTEN-BY-POSTSCRIPT"))
    assert run.cpu < 30


def test_reportlab_cannot_open_an_eps_either(tmp_path):
    """Past the renderer's check (a file swapped for EPS before it is drawn), ReportLab's
    own image reading refuses it too: no plugin outside the allow-list is ever used."""
    from PIL import UnidentifiedImageError
    from reportlab.lib.utils import ImageReader

    from pnp.draw import art

    (tmp_path / "a.png").write_bytes(EPS)
    art.printable(str(tmp_path / "a.png"), (10, 10), 100, 100)    # installs the guard
    with pytest.raises(Exception) as caught:
        ImageReader(str(tmp_path / "a.png"))
    assert isinstance(caught.value, UnidentifiedImageError) or "cannot identify" in str(caught.value)


def test_a_legal_90_megapixel_image_prints_no_library_warning(tmp_path):
    folder = project(tmp_path)
    (folder / "art").mkdir()
    flat_png(folder / "art" / "big.png", 9500, 9500, white=True)     # Pillow warns at 89 M
    with_owner_art(folder, "art/big.png")
    run = pnp(*BUILD, cwd=folder, watch=tmp_path, max_mb=1500, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Warning" not in run.stderr and "DecompressionBomb" not in run.stderr, run.stderr
    assert "big.png: 9500 x 9500 px would print at" in run.stderr
    stayed_inside(run, folder, tmp_path / "cache")


def _embedded_images(pdf: Path) -> list[tuple[int, int]]:
    from pypdf import PdfReader

    sizes = []
    for page in PdfReader(pdf).pages:
        xobjects = page["/Resources"].get("/XObject") or {}
        for ref in xobjects.values():
            obj = ref.get_object()
            if obj.get("/Subtype") == "/Image":
                sizes.append((int(obj["/Width"]), int(obj["/Height"])))
    return sizes


def test_8000_px_art_is_embedded_at_print_resolution_once(tmp_path, monkeypatch):
    """51 mm wide art of 8000 px (about 3,800 dpi): embedded at <= 2 x 300 dpi, one
    notice; a rebuild after an edit elsewhere neither decodes nor resizes it again."""
    from PIL import Image, ImageDraw

    folder = project(tmp_path)
    (folder / "art").mkdir()
    big = Image.new("RGB", (8000, 8000), "#204080")
    ImageDraw.Draw(big).ellipse((1000, 1000, 7000, 7000), fill="#e0b000")
    big.save(folder / "art" / "huge.jpg", quality=85)
    del big
    with_owner_art(folder, "art/huge.jpg")
    first = pnp(*BUILD, cwd=folder, watch=tmp_path, max_mb=1500, timeout=120)
    assert first.returncode == 0, first.stderr[-2000:]
    notices = [ln for ln in first.stderr.splitlines() if "huge.jpg" in ln]
    assert len(notices) == 1 and notices[0].startswith("notice: huge.jpg: 8000 x 8000 px "
                                                       "would print at"), first.stderr
    assert "embedded at 300 dpi" in notices[0]
    # The template's art window is 53.5 mm wide, cover: the image is drawn 53.5 mm square.
    drawn_in = (63.5 - 10) / 25.4
    sizes = _embedded_images(folder / "out" / "x-statix" / "owners.pdf")
    assert sizes, "no image embedded"
    for w, h in sizes:
        assert w / drawn_in <= 2 * 300 and h / drawn_in <= 2 * 300, (w, h)
        assert w >= math.floor(drawn_in * 300) - 1, (w, h)     # print resolution kept
    stayed_inside(first, folder, tmp_path / "cache")

    # A one-line edit elsewhere: the deck is rebuilt, the art is not decoded again.
    monkeypatch.chdir(folder)
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    cards = folder / "cards.yaml"
    cards.write_text(cards.read_text().replace("Max Hand Size = 7", "Max Hand Size = 8"))
    from pnp.cli.watch import run_command
    from pnp.draw import art

    decoded: list = []
    monkeypatch.setattr(art, "_decode", lambda *a: decoded.append(a) or (_ for _ in ()).throw(
        AssertionError("decoded again")))
    monkeypatch.setattr(art, "_downsample", lambda *a: decoded.append(a) or (_ for _ in ()).throw(
        AssertionError("resized again")))
    monkeypatch.setattr(art, "_known", {})
    assert run_command(list(BUILD)) == 0
    assert decoded == []
    assert _embedded_images(folder / "out" / "x-statix" / "owners.pdf") == sizes


def test_art_at_print_resolution_is_embedded_as_it_is(tmp_path):
    from PIL import Image

    from pnp.draw import art

    path = tmp_path / "ok.png"
    Image.new("RGB", (1200, 800), "#336699").save(path)
    assert art.open_art(path).size == (1200, 800)
    # 1200 px over 2 in: 600 dpi, not over 2 x 300: the file itself is drawn.
    assert art.printable(str(path), (1200, 800), 144, 96) == str(path)
    assert art.print_size((1201, 801), 144, 96) == (600, 400)
