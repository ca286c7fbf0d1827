"""Card art from a stranger's project (issue 25 item 1, issue 22 item 5): decoded only by
raster plugins that run no program, the format told from the bytes; Pillow's warnings
never reach the terminal; art far finer than print needs is embedded at print
resolution, made once and cached by content.

The builds run in bounded processes (memory and CPU limits, an audit hook: a blow-up
fails the tests, not the machine): every build of one kind in one process, each
measured and audited on its own (tests/carddb/bounded.py). A process each cost more
than the builds (issue 34: the suite's CPU)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.carddb.bounded import Command, run_bounded
from tests.pnp.hostile_support import (  # noqa: E402
    Run,
    flat_png,
    gs_stand_in,
    one_line_error,
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


def _built(tmp_path_factory, makers: dict, max_mb: int,
           env: dict[str, str] | None = None) -> dict[str, tuple[Path, Run]]:
    """(watched folder, the build's Run) of each of `makers`' projects, `makers[name]`
    putting the art into a copy of the fixture project: `pnp build` of each in one
    bounded process, the project in FOLDER/project, its cache in FOLDER/cache."""
    folders = {}
    for name, make in makers.items():
        folder = tmp_path_factory.mktemp(name)
        make(project(folder))
        folders[name] = folder
    runs = run_bounded([Command(BUILD, folder / "project", folder) for folder in folders.values()],
                       tmp_path_factory.mktemp("bounded"), max_mb=max_mb, timeout=180, env=env)
    return {name: (folder, run) for (name, folder), run in zip(folders.items(), runs, strict=True)}


def _with_art(art: str, data: bytes | None):
    def make(folder: Path) -> None:
        (folder / "art").mkdir()
        (folder / art).write_bytes(data if data is not None else _truncated_png())
        with_owner_art(folder, art)
    return make


@pytest.fixture(scope="module")
def not_raster(tmp_path_factory) -> tuple[Path, dict[str, tuple[Path, Run]]]:
    """(the file a `gs` stand-in first on PATH writes when run, the builds of
    NOT_RASTER's projects): nothing here is changed after."""
    env, marker = gs_stand_in(tmp_path_factory.mktemp("gs"))
    makers = {name: _with_art(art, data) for name, (art, data, _) in NOT_RASTER.items()}
    return marker, _built(tmp_path_factory, makers, 1200, env)


@pytest.mark.parametrize("name", NOT_RASTER)
def test_art_that_is_not_an_allowed_raster_is_one_line_and_runs_nothing(not_raster, name):
    art, _, message = NOT_RASTER[name]
    marker, builds = not_raster
    folder, run = builds[name]
    line = one_line_error(run, 1, Path(art).name, message, "card 'Coach'")
    assert "PNG, JPEG, WebP, GIF, TIFF or BMP" in line or message == "cannot be read"
    assert not marker.exists(), "Ghostscript was run on card art"
    stayed_inside(run, folder / "project", folder / "cache")
    assert not list(folder.rglob("WRITTEN-BY-POSTSCRIPT"))
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


def _big_png(folder: Path) -> None:
    (folder / "art").mkdir()
    flat_png(folder / "art" / "big.png", 9500, 9500, white=True)     # Pillow warns at 89 M
    with_owner_art(folder, "art/big.png")


def _huge_jpg(folder: Path) -> None:
    from PIL import Image, ImageDraw

    (folder / "art").mkdir()
    big = Image.new("RGB", (8000, 8000), "#204080")
    ImageDraw.Draw(big).ellipse((1000, 1000, 7000, 7000), fill="#e0b000")
    big.save(folder / "art" / "huge.jpg", quality=85)
    del big
    with_owner_art(folder, "art/huge.jpg")


@pytest.fixture(scope="module")
def big_art(tmp_path_factory) -> dict[str, tuple[Path, Run]]:
    """The builds of a project with 90-megapixel art and of one with 8000 px art, in one
    process bounded to 1500 MB. The 8000 px test then edits and rebuilds its project."""
    return _built(tmp_path_factory, {"90-megapixel": _big_png, "8000-px": _huge_jpg}, 1500)


def test_a_legal_90_megapixel_image_prints_no_library_warning(big_art):
    folder, run = big_art["90-megapixel"]
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Warning" not in run.stderr and "DecompressionBomb" not in run.stderr, run.stderr
    assert "big.png: 9500 x 9500 px would print at" in run.stderr
    stayed_inside(run, folder / "project", folder / "cache")


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


def test_8000_px_art_is_embedded_at_print_resolution_once(big_art, monkeypatch):
    """51 mm wide art of 8000 px (about 3,800 dpi): embedded at <= 2 x 300 dpi, one
    notice; a rebuild after an edit elsewhere neither decodes nor resizes it again."""
    watched, first = big_art["8000-px"]
    folder = watched / "project"
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
    stayed_inside(first, folder, watched / "cache")

    # A one-line edit elsewhere: the deck is rebuilt, the art is not decoded again.
    monkeypatch.chdir(folder)
    monkeypatch.setenv("PNP_CACHE_DIR", str(watched / "cache"))
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
