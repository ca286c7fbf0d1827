"""CMYK and PDF/X-1a (issue 17 item 2): a shop profile with `colour: cmyk` (the `dtc`
preset) writes CMYK PDF/X-1a, checked by pnp.exports.pdfx's structural rules; no PDF/X checker
is installable here (veraPDF checks PDF/A and is in neither Debian nor PyPI; Ghostscript
writes PDF/X but does not check it), so these rules are the test."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfReader

from pnp.exports import cmyk
from pnp.exports.cmyk import Converter, cap_ink
from pnp.exports.pdfx import PdfxError, check_pdfx, colour_operations, make_pdfx
from tests.harness import run_cli
from tests.pnp.starter_copies import fresh_copy

CMYK_RED = "cmyk(0, 0.8, 0.8, 0.1)"
# The profile pnp ships (issue 22 item 2): every CMYK test runs on any machine.
ICC = cmyk.SHIPPED_ICC


@pytest.fixture(autouse=True)
def _no_profile_from_the_machine(monkeypatch):
    """The exports (subprocesses inherit os.environ) use what pnp ships, not a profile the
    machine names."""
    monkeypatch.delenv("PNP_CMYK_ICC", raising=False)


@pytest.fixture(scope="module")
def _project(tmp_path_factory):
    """The `pnp init` project with black body text (#111111, as the bundled games), a
    thin black line and a colour given as CMYK in the template."""
    root = tmp_path_factory.mktemp("project")
    done = run_cli("pnp", "init", str(root / "proj"))
    assert done.returncode == 0, done.stderr
    proj = root / "proj"
    cards = proj / "cards.yaml"
    cards.write_text(cards.read_text().replace('secondary: "#14202b"', 'secondary: "#111111"'))
    ship = proj / "templates" / "harbour" / "ship.j2"
    ship.write_text(ship.read_text() + (
        '- line: {points: [[6, 51], [{{ W - 6 }}, 51]], color: "#000000", width: 0.4}\n'
        f'- rect: {{box: [6, 80, 4, 4], fill: "{CMYK_RED}"}}\n'))
    return proj


@pytest.fixture
def project(_project, playground) -> Path:
    """A fresh copy of it, at one path for every test (tests/pnp/starter_copies)."""
    return fresh_copy(_project, playground, "proj")


def export(cli, project, out, *args):
    done = cli("pnp", "export", "--deck", "ships", "--out", str(out), *args, cwd=project)
    assert done.returncode == 0, done.stderr
    return done


def all_ops(pdf):
    return [op for page in pdf.pages for op in colour_operations(pdf, page)]


def test_dtc_export_is_pdfx_1a_cmyk_with_k_only_black_text(cli, project, tmp_path):
    done = export(cli, project, tmp_path / "dtc", "--profile", "dtc")
    assert "CMYK PDF/X-1a, total ink <= 240 %" in done.stdout
    path = tmp_path / "dtc" / "harbour" / "ships.pdf"
    assert check_pdfx(path) == []
    pdf = PdfReader(path)
    ops = all_ops(pdf)
    assert ops and {op for op, _, _ in ops} <= {"k", "K"}      # no rg / RG / g / G / cs
    # Black text (#111111) is 100 % K alone; no text or thin line is four-colour black.
    text_fills = [tuple(v) for op, v, in_text in ops if op == "k" and in_text]
    assert (0, 0, 0, 1) in text_fills
    rich = [v for op, v, _ in ops if v[3] >= 0.9 and max(v[:3]) > 0 and op == "K"]
    rich += [v for v in text_fills if v[3] >= 0.9 and max(v[:3]) > 0]
    assert rich == []
    assert ("K", [0, 0, 0, 1], False) in ops                 # the thin black line
    # The template's CMYK colour arrives as given (its ink 170 % is under the cap).
    assert ("k", [0, 0.8, 0.8, 0.1], False) in ops
    # The big near-black border is a rich black, capped.
    assert any(op == "k" and v[3] > 0.9 and max(v[:3]) > 0.2 for op, v, _ in ops)
    assert max(sum(v) for _, v, _ in ops) <= 2.40 + 1e-9
    for page in pdf.pages:
        assert "/TrimBox" in page and "/BleedBox" in page
    intent = pdf.trailer["/Root"]["/OutputIntents"][0].get_object()
    assert intent["/S"] == "/GTS_PDFX" and intent["/OutputConditionIdentifier"]
    assert intent["/DestOutputProfile"].get_object().get_data() == ICC.read_bytes()
    # PDF/X-1a:2003, as DriveThruCards asks: PDF 1.4, the version key alone (ISO 15930-4)
    assert pdf.trailer["/Info"]["/GTS_PDFXVersion"] == "PDF/X-1a:2003"
    assert "/GTS_PDFXConformance" not in pdf.trailer["/Info"]
    assert pdf.pdf_header == "%PDF-1.4"


def test_the_rgb_export_fails_the_pdfx_check_and_stays_rgb(cli, project, tmp_path):
    export(cli, project, tmp_path / "rgb", "pdf-single")
    path = tmp_path / "rgb" / "harbour" / "ships.pdf"
    problems = check_pdfx(path)
    assert any("RGB colour operator" in p for p in problems)
    assert any("OutputIntent" in p for p in problems)
    assert "rg" in {op for op, _, _ in all_ops(PdfReader(path))}


def test_a_declared_profile_sets_its_own_ink_limit(cli, project, tmp_path):
    cards = project / "cards.yaml"
    cards.write_text(cards.read_text() + "\nprofiles:\n  offset:\n    like: dtc\n"
                     "    ink_limit: 200\n")
    export(cli, project, tmp_path / "off", "--profile", "offset")
    pdf = PdfReader(tmp_path / "off" / "harbour" / "ships.pdf")
    ops = all_ops(pdf)
    assert max(sum(v) for _, v, _ in ops) <= 2.00 + 1e-9
    assert ("k", [0, 0.8, 0.8, 0.1], False) in ops        # 170 % <= 200 %: as given


def test_two_cmyk_exports_are_byte_identical(cli, project, tmp_path):
    export(cli, project, tmp_path / "a", "--profile", "dtc")
    export(cli, project, tmp_path / "b", "--profile", "dtc")
    a = (tmp_path / "a" / "harbour" / "ships.pdf").read_bytes()
    assert a == (tmp_path / "b" / "harbour" / "ships.pdf").read_bytes()


def test_cmyk_needs_a_pdf_format(cli, project, tmp_path):
    cards = project / "cards.yaml"
    cards.write_text(cards.read_text() + "\nprofiles:\n  bad:\n    like: tgc\n"
                     "    colour: cmyk\n")
    done = cli("pnp", "export", "--profile", "bad", "--out", str(tmp_path / "x"), cwd=project)
    assert done.returncode == 1
    assert "cmyk needs format: pdf" in done.stderr and "Traceback" not in done.stderr


def test_transparency_is_refused_in_one_line(cli, project, tmp_path):
    ship = project / "templates" / "harbour" / "ship.j2"
    ship.write_text(ship.read_text() + '- rect: {box: [6, 60, 9, 9], fill: "#ff0000", '
                                       'alpha: 0.5}\n')
    done = cli("pnp", "export", "--deck", "ships", "--profile", "dtc", "--out",
               str(tmp_path / "t"), cwd=project)
    assert done.returncode == 1, done.stdout
    assert "transparency" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()[-1]) < 300
    assert not (tmp_path / "t" / "harbour" / "ships.pdf").exists()


# ── the converter and the rewrite, on PDFs made here ──────────────────────────────


def test_cap_ink_keeps_totals_under_the_limit():
    for c, m, y, k in [(0.75, 0.68, 0.67, 0.9), (1, 1, 1, 1), (0, 1, 1, 0.5), (0.2, 0, 0, 0)]:
        capped = cap_ink(c, m, y, k, 2.4)
        assert sum(capped) <= 2.4
        if c + m + y + k <= 2.4:
            assert capped == pytest.approx((c, m, y, k), abs=1e-4)
    assert cap_ink(0, 1, 1, 0.5, 2.4)[3] == 0.5        # no grey component: CMY scaled


def _rgb_pdf(tmp_path, draw):
    from reportlab.pdfgen.canvas import Canvas

    path = tmp_path / "in.pdf"
    c = Canvas(str(path), pagesize=(100, 100), invariant=1, pageCompression=1)
    c.setTrimBox((5, 5, 95, 95))
    c.setBleedBox((0, 0, 100, 100))
    draw(c)
    c.showPage()
    c.save()
    return path


def test_rgb_images_become_cmyk_images_with_capped_ink(tmp_path, monkeypatch):
    from reportlab import rl_config

    monkeypatch.setattr(rl_config, "useA85", 1)   # the image stream ASCII85 + Flate
    image = Image.new("RGB", (8, 8), (0, 0, 0))
    image.paste((30, 60, 160), (0, 0, 4, 8))
    buf = io.BytesIO()
    image.save(buf, "PNG")
    buf.seek(0)

    def draw(c):
        from reportlab.lib.utils import ImageReader

        c.drawImage(ImageReader(buf), 10, 10, 80, 80)

    source = _rgb_pdf(tmp_path, draw)
    out = tmp_path / "out.pdf"
    make_pdfx(source, out, Converter(ICC, 2.4), "image")
    assert [p for p in check_pdfx(out) if "font" not in p] == []
    pdf = PdfReader(out)
    xobjects = pdf.pages[0]["/Resources"]["/XObject"]
    (img,) = [x.get_object() for x in xobjects.values()]
    assert img["/ColorSpace"] == "/DeviceCMYK"
    pixels = Image.frombytes("CMYK", (8, 8), img.get_data())
    raw = pixels.tobytes()
    assert max(sum(raw[i:i + 4]) for i in range(0, len(raw), 4)) <= 2.4 * 255
    assert pixels.getpixel((6, 4))[3] > 200              # black stays mostly K


def test_a_translucent_fill_is_refused(tmp_path):
    def draw(c):
        c.setFillAlpha(0.4)
        c.setFillColorRGB(1, 0, 0)
        c.rect(10, 10, 50, 50, fill=1)

    with pytest.raises(PdfxError, match="transparency"):
        make_pdfx(_rgb_pdf(tmp_path, draw), tmp_path / "out.pdf",
                  Converter(ICC, 2.4), "alpha")


def test_a_profile_names_the_shops_icc_and_an_rgb_one_is_refused(cli, project, tmp_path):
    from PIL import ImageCms

    (project / "shop.icc").write_bytes(ICC.read_bytes())
    (project / "screen.icc").write_bytes(
        ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
    cards = project / "cards.yaml"
    cards.write_text(cards.read_text() + "\nprofiles:\n  shop:\n    like: dtc\n"
                     "    icc: shop.icc\n  screen:\n    like: dtc\n    icc: screen.icc\n")
    export(cli, project, tmp_path / "shop", "--profile", "shop")
    assert check_pdfx(tmp_path / "shop" / "harbour" / "ships.pdf") == []
    done = cli("pnp", "export", "--deck", "ships", "--profile", "screen", "--out",
               str(tmp_path / "screen"), cwd=project)
    assert done.returncode == 1
    assert "screen.icc" in done.stderr and "not a CMYK ICC profile" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "screen").exists()                # refused before drawing
    cards.write_text(cards.read_text().replace("icc: screen.icc", "icc: missing.icc"))
    done = cli("pnp", "export", "--deck", "ships", "--profile", "screen", "--out",
               str(tmp_path / "missing"), cwd=project)
    assert done.returncode == 1 and "missing.icc" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) <= 2



def test_the_shipped_profile_is_a_fogra39_cmyk_output_profile():
    from PIL import ImageCms

    profile = ImageCms.getOpenProfile(str(ICC))
    assert profile.profile.xcolor_space.strip() == "CMYK"
    assert profile.profile.device_class == "prtr"        # an output (printer) profile
    assert "FOGRA39" in ImageCms.getProfileDescription(profile)
    assert 50_000 < ICC.stat().st_size < 400_000
    licence = (ICC.parent / "LICENSE.txt").read_text()
    assert "FOGRA39L.ti3" in licence and "zlib" in licence and "colprof" in licence
    assert "FOGRA39L.ti3" in (ICC.parent / "make_profile.sh").read_text()
    # Colours land where a FOGRA39 separation puts them: sRGB red is magenta + yellow,
    # blue cyan + magenta, white no ink (not inverted, no stray channel).
    conv = Converter(ICC, 3.0)
    c, m, y, k = conv.convert((1.0, 0.0, 0.0))
    assert m > 0.8 and y > 0.8 and c < 0.1 and k < 0.1
    c, m, y, k = conv.convert((0.0, 0.0, 1.0))
    assert c > 0.8 and m > 0.5 and y < 0.1
    assert conv.convert((1.0, 1.0, 1.0)) == (0, 0, 0, 0)


def test_pnp_cmyk_icc_overrides_the_shipped_profile(cli, project, tmp_path, monkeypatch):
    # Another CMYK profile: the shipped one with a different creation date in its header.
    other = bytearray(ICC.read_bytes())
    other[24:36] = bytes([0x07, 0xD0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0])     # 2000-01-01
    (tmp_path / "other.icc").write_bytes(bytes(other))
    monkeypatch.setenv("PNP_CMYK_ICC", str(tmp_path / "other.icc"))
    export(cli, project, tmp_path / "dtc", "--profile", "dtc")
    pdf = PdfReader(tmp_path / "dtc" / "harbour" / "ships.pdf")
    intent = pdf.trailer["/Root"]["/OutputIntents"][0].get_object()
    assert intent["/DestOutputProfile"].get_object().get_data() == bytes(other)


def test_without_a_cmyk_profile_the_export_says_where_to_get_one(monkeypatch):
    # An install that lost the shipped profile, and none named: one line says so
    import types

    from pnp.errors import PnpError
    from pnp.exports import profiles

    monkeypatch.setattr(cmyk, "SHIPPED_ICC", ICC.with_name("gone.icc"))
    assert cmyk.default_icc() is None
    dtc = types.SimpleNamespace(name="dtc", icc="", ink_limit=240)
    with pytest.raises(PnpError, match="CMYK needs the printer's ICC output profile") as err:
        profiles._converter(dtc, None)
    assert "\n" not in str(err.value) and "reinstall" in str(err.value)
