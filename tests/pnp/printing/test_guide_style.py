"""The cut-guide style is data (issue 24 item 3): `print.cut_guides` sets the guides'
colour, widths, halo and fold dash; left out, the sheets are drawn as before (the
defaults are today's values, black 0.5 pt on a 1.5 pt white halo, 0.25 pt crop marks,
fold lines dashed [2 2]); a bad value is a located refusal."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from pypdf import PdfReader

from pnp.artefacts.guides import GuideStyle, code, from_profile
from tests.harness import run_cli

pnp = partial(run_cli, "pnp")


@pytest.fixture
def project(tmp_path):
    assert pnp("init", str(tmp_path / "p"), cwd=tmp_path).returncode == 0
    return tmp_path / "p"


def _styled(project: Path, style: str) -> None:
    cards = project / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    cards.write_text(text.replace("  crop_marks: true\n",
                                  f"  crop_marks: true\n  cut_guides: {style}\n", 1),
                     encoding="utf-8")


def _content(pdf: Path) -> str:
    """Every page's content stream (a full sheet has no room for crop marks: they are on
    the part-filled one)."""
    return "".join(page.get_contents().get_data().decode("latin-1")
                   for page in PdfReader(pdf).pages)


class Segment:
    x0, y0, x1, y1 = 1.0, 2.0, 3.0, 4.0


class Guide:
    def __init__(self, kind):
        self.kind, self.segment = kind, Segment()


def test_the_default_style_writes_todays_operators():
    guides = [Guide("mark"), Guide("bleed")]
    path = "1.0000 2.0000 m 3.0000 4.0000 l"
    assert code(guides, GuideStyle()) == (f"q 0.25 w 0 G 0 J {path} S Q\n"
                                          f"q 1.5 w 1 G 0 J {path} S Q\n"
                                          f"q 0.5 w 0 G 0 J {path} S Q\n")
    assert code(guides[1:], GuideStyle(), dash=True).startswith("q 1.5 w 1 G 0 J [2 2] 0 d ")
    assert from_profile({}) == GuideStyle()
    assert from_profile({"width": 1, "dash": [3, 1]}) == GuideStyle(width=1.0, dash=(3.0, 1.0))


def test_print_cut_guides_restyles_the_sheets_guides(project):
    assert pnp("build", "--only", "ships", "--force", cwd=project).returncode == 0
    before = _content(project / "output" / "harbour" / "ships.pdf")
    assert " 1.5 w 1 G 0 J " in before and " 0.5 w 0 G 0 J " in before
    _styled(project, '{color: "#ff0000", width: 0.8, halo: 0, mark_width: 0.4}')
    done = pnp("build", "--only", "ships", cwd=project)
    assert done.returncode == 0, done.stderr
    after = _content(project / "output" / "harbour" / "ships.pdf")
    assert " 0.8 w 1 0 0 RG 0 J " in after and " 0.4 w 1 0 0 RG 0 J " in after
    assert " 1.5 w 1 G " not in after and " 0.5 w 0 G " not in after      # no halo


def test_the_fold_dash_is_data_too(project):
    _styled(project, "{dash: [3, 1.5]}")
    done = pnp("build", "--only", "ships", "--fold", "--force", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "[3 1.5] 0 d" in _content(project / "output" / "harbour" / "ships.pdf")


def test_a_bad_style_is_refused_where_it_is_written(project):
    _styled(project, "{width: 9}")
    done = pnp("validate", cwd=project)
    assert done.returncode == 1
    line = next(i for i, t in enumerate((project / "cards.yaml").read_text().splitlines(), 1)
                if "cut_guides" in t)
    assert f"cards.yaml:{line}:" in done.stderr and "print.cut_guides.width" in done.stderr
    assert "a line width in pt from 0.05 to 5" in done.stderr
