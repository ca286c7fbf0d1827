"""The build as a library call (issue 24 item 2): build_project(project, options,
progress) -> BuildReport, in process, without the click command."""

from __future__ import annotations

from pathlib import Path

import pytest

import carddb  # noqa: E402
from pnp.artefacts.project_build import (  # noqa: E402
    BuildOptions,
    Progress,
    StrictRefusal,
    build_project,
)
from pnp.errors import PnpError  # noqa: E402
from tests.pnp.exports_support import make_project  # noqa: E402


class Recording(Progress):
    def __init__(self):
        self.calls: list[tuple] = []

    def reading(self, path):
        self.calls.append(("reading", Path(path).name))

    def begin(self, total):
        self.calls.append(("begin", total))

    def start(self, art, path):
        self.calls.append(("start", art.name))

    def skip(self, path, units):
        self.calls.append(("skip", Path(path).name))

    def advance(self, n):
        self.calls.append(("advance", n))

    def warning(self, warning):
        self.calls.append(("warning", warning.card))

    def end(self):
        self.calls.append(("end",))


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path / "p")


def test_build_project_builds_reports_and_then_has_nothing_to_do(project):
    progress = Recording()
    options = BuildOptions(game="x-statix", only="owners", paper="a4")
    report = build_project(project, options, progress)
    pdf = project / "output" / "x-statix" / "owners.pdf"
    assert [Path(r.path) for r in report.results] == [pdf] and pdf.is_file()
    assert [a.name for a in report.built] == ["owners"] and not report.nothing_to_do
    assert report.results[0].cards == 3 and report.warnings == []
    assert progress.calls[0] == ("reading", "cards.yaml")
    assert progress.calls[1] == ("begin", 3) and progress.calls[2] == ("start", "owners")
    assert sum(c[1] for c in progress.calls if c[0] == "advance") == 3
    assert progress.calls[-1] == ("end",)
    layout = report.layout()["artefacts"][0]
    assert layout["path"] == "x-statix/owners.pdf"
    assert layout["pages"][0]["size_mm"] == [210.0, 297.0]
    again = build_project(project, options, Recording())
    assert again.nothing_to_do and again.built == []
    assert [Path(r.path) for r in again.results] == [pdf]
    assert again.layout() == report.layout()


def test_build_project_strict_refuses_with_every_warning_and_writes_nothing(project):
    cards = project / "cards.yaml"
    db = carddb.load(cards)
    long = " ".join(["Far too much text for one small card box."] * 40)
    text = cards.read_text()
    for card in db.games["x-statix"].decks["owners"].cards[:2]:
        text = text.replace(card.text, long, 1)
    cards.write_text(text)
    out = project / "out"
    with pytest.raises(StrictRefusal) as refused:
        build_project(project, BuildOptions(out=out, game="x-statix", only="owners",
                                            strict=True), Recording())
    assert sorted({w.card for w in refused.value.warnings}) == sorted(
        c.name for c in db.games["x-statix"].decks["owners"].cards[:2])
    assert refused.value.exit_code == 1
    assert not out.exists() or not any(p.is_file() for p in out.rglob("*.pdf"))
    report = build_project(project, BuildOptions(out=out, game="x-statix", only="owners"))
    assert {w.card for w in report.warnings} == {w.card for w in refused.value.warnings}
    assert (out / "x-statix" / "owners.pdf").is_file()


def test_build_project_errors_are_pnp_errors_naming_the_problem(project, tmp_path):
    with pytest.raises(PnpError, match="cards.yaml"):
        build_project(tmp_path / "nowhere", BuildOptions())
    cards = project / "cards.yaml"
    cards.write_text(cards.read_text().replace("paper: letter", "paper: folio", 1))
    with pytest.raises(PnpError) as bad:
        build_project(project, BuildOptions(game="x-statix", only="owners"))
    assert "print.paper" in str(bad.value) and bad.value.exit_code == 1
