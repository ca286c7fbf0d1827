"""Shop profiles (issue 17 item 1): built-in presets and profiles declared in cards.yaml,
`pnp export --profile NAME`, through the real CLI on the project `pnp init` writes."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfReader

from tests.harness import run_cli
from tests.pdftext import page_texts
from tests.pnp.starter_copies import fresh_copy


@pytest.fixture(scope="module")
def _project(tmp_path_factory):
    """The `pnp init` project (made once; each test a copy)."""
    root = tmp_path_factory.mktemp("project")
    done = run_cli("pnp", "init", str(root / "proj"))
    assert done.returncode == 0, done.stderr
    return root / "proj"


@pytest.fixture
def project(_project, playground) -> Path:
    """A fresh copy of it, at one path for every test (tests/pnp/starter_copies)."""
    return fresh_copy(_project, playground, "proj")


def export(cli, project, out, *args):
    done = cli("pnp", "export", "--deck", "ships", "--out", str(out), *args, cwd=project)
    assert done.returncode == 0, done.stderr
    return done


def test_tgc_profile_gives_825x1125_pngs_per_poker_card(cli, project, tmp_path):
    out = tmp_path / "tgc"
    export(cli, project, out, "--profile", "tgc")
    files = sorted(p.name for p in (out / "harbour").iterdir())
    # six designs, two copies of each (copies are files), and the back
    assert len(files) == 12 + 1
    assert "ships--iron-maiden--2.png" in files and "ships--back--1.png" in files
    for name in files:
        with Image.open(out / "harbour" / name) as image:
            assert image.format == "PNG" and image.mode == "RGB"
            assert image.size == (825, 1125), name
            assert round(image.info["dpi"][0]) == 300
            assert_srgb(image)
    # The embedded profile is the same bytes every time: exports stay reproducible.
    again = tmp_path / "again"
    export(cli, project, again, "--profile", "tgc")
    first = "harbour/ships--the-gull--1.png"
    assert (again / first).read_bytes() == (out / first).read_bytes()


def assert_srgb(image):
    """The image carries an sRGB ICC profile (issue 22): a shop's RIP need not guess."""
    import io

    from PIL import ImageCms

    profile = ImageCms.ImageCmsProfile(io.BytesIO(image.info["icc_profile"]))
    assert profile.profile.xcolor_space.strip() == "RGB"
    assert "sRGB" in ImageCms.getProfileDescription(profile)


def test_mpc_preset_and_dtc_pages(cli, project, tmp_path):
    export(cli, project, tmp_path / "mpc", "--profile", "mpc")
    with Image.open(tmp_path / "mpc" / "harbour" / "ships--the-gull--1.png") as image:
        assert image.size == (822, 1122)
    done = export(cli, project, tmp_path / "dtc", "--profile", "dtc")
    assert "CMYK PDF/X-1a, total ink <= 240 %" in done.stdout    # tests/pnp/test_cmyk.py checks it
    pdf = PdfReader(tmp_path / "dtc" / "harbour" / "ships.pdf")
    assert len(pdf.pages) == 2 * 12         # each copy: its back, then its front (back_first)
    for page in pdf.pages:
        assert [round(float(v) / 72, 3) for v in page.mediabox[2:]] == [2.75, 3.75]
        assert [round(float(v) / 72, 3) for v in page.trimbox] == [0.125, 0.125, 2.625, 3.625]
    texts = page_texts(tmp_path / "dtc" / "harbour" / "ships.pdf")
    assert "Iron Maiden" in texts[5] and "Iron Maiden" in texts[7]  # after two Gulls
    assert texts[0] == texts[2] != texts[1]                 # backs on pages 1, 3, ...


def test_a_profile_declared_in_cards_yaml(cli, project, tmp_path):
    own = project
    yaml = own / "cards.yaml"
    yaml.write_text(yaml.read_text().replace("card_sizes:", (
        "profiles:\n"
        "  club: {like: tgc, bleed_mm: 0, format: jpg, copies: once, naming: \"{deck}/{card}\"}\n"
        "  minis: {sizes: {mini: [44, 63.5]}}\n"
        "  broken: {bleed: 3}\n"
        "card_sizes:"), 1))
    bad = cli("pnp", "export", "--profile", "club", cwd=own)
    assert bad.returncode == 1 and "profiles.broken.bleed" in bad.stderr
    yaml.write_text(yaml.read_text().replace("{bleed: 3}", "{like: dtc, back_first: 1}"))
    bad = cli("pnp", "export", "--profile", "club", cwd=own)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1
    assert "profiles.broken.back_first: expected true or false" in bad.stderr
    yaml.write_text(yaml.read_text().replace("  broken: {like: dtc, back_first: 1}\n", ""))
    export(cli, own, tmp_path / "club", "--profile", "club")
    files = sorted(p.name for p in (tmp_path / "club" / "ships").iterdir())
    assert len(files) == 6 + 1 and "iron-maiden.jpg" in files        # one file a design
    with Image.open(tmp_path / "club" / "ships" / "kestrel.jpg") as image:
        assert image.format == "JPEG" and image.size == (750, 1050)   # 2.5 x 3.5 in, no bleed
        assert_srgb(image)
    refused = cli("pnp", "export", "--deck", "ships", "--profile", "minis",
                  "--out", str(tmp_path / "m"), cwd=own)
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1
    assert "63.5 x 88.9 mm" in refused.stderr and "mini 44 x 63.5 mm" in refused.stderr
    unknown = cli("pnp", "export", "--profile", "tcg", cwd=own)
    assert unknown.returncode == 2 and "choose club, dtc, minis, mpc, tgc" in unknown.stderr
