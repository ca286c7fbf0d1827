"""`referee simulate` through the CLI: the PDF reports have their charts (parsed back with pypdf:
pages, chart titles in the text layer, drawing operators), --json equals across worker
counts, and bad input is one line on stderr with exit 2."""

from __future__ import annotations

import json

import pytest
from pypdf import PdfReader

from tests.pdftext import page_texts
from tests.referee.simulate.sim_support import referee

XS_TITLES = ["X-Statix balance report", "Win rate by seat", "Win rate by Owner card",
             "Win rate by Team Name card", "MT over time", "Mission success rate by mission card",
             "Average payoff per mission card played", "Hero survival rate on missions",
             "Summary: the most unbalanced findings"]
XO_TITLES = ["XO! balance report", "P(hit): heroes attacking villains",
             "P(KO): villains attacking heroes", "Objectives: best character's feat probability",
             "Objectives: best opponent's thwart probability", "Summary: the most unbalanced findings"]


def pdf_text_and_ops(path) -> tuple[int, str, bytes]:
    """Pages, text (pdfium, tests/pdftext.py: a tenth of pypdf's CPU) and the pages' drawing
    operators (pypdf: the content streams as written)."""
    reader = PdfReader(str(path))
    text = "\n".join(page_texts(path))
    ops = b"".join(page.get_contents().get_data() for page in reader.pages)
    return len(reader.pages), text, ops


def test_xs_report_has_its_charts(tmp_path):
    path = tmp_path / "xs.pdf"
    proc = referee("simulate", "x-statix", "--games", "40", "--players", "3", "--seed", "5",
                   "--workers", "1", "--report", str(path))
    assert proc.returncode == 0, proc.stderr
    assert f"report: {path}" in proc.stdout
    pages, text, ops = pdf_text_and_ops(path)
    assert pages >= 4
    for title in XS_TITLES:
        assert title in text, title
    assert b" re" in ops  # bars: rectangles
    assert b" l\n" in ops or b" l " in ops  # error bars, axes, the MT line: line segments
    assert ops.count(b" re") > 60


def test_xo_report_has_heat_maps_and_objective_charts(tmp_path):
    path = tmp_path / "xo.pdf"
    proc = referee("simulate", "xo", "--report", str(path))
    assert proc.returncode == 0, proc.stderr
    pages, text, ops = pdf_text_and_ops(path)
    assert pages >= 3
    for title in XO_TITLES:
        assert title in text, title
    assert ops.count(b" re") > 20  # heat-map cells and bars


def test_json_is_the_same_with_one_and_two_workers(small_chunks):
    assert len(small_chunks) == 3  # 24 games: chunks of 10, 10 and 4

    def run(workers: str, *more: str) -> dict:
        proc = referee("simulate", "x-statix", "--games", "24", "--players", "2", "--seed",
                       "11", "--policy", "cautious,greedy", "--workers", workers, "--json",
                       *more)
        assert proc.returncode == 0, proc.stderr
        data = json.loads(proc.stdout)
        for key in ("seconds", "workers"):
            data.pop(key)
        return data

    one, two = run("1"), run("2")
    assert one == two
    strict = run("2", "--strict")
    assert strict.pop("strict") is True and one.pop("strict") is False
    assert strict == one  # every decision re-checked on a copy: the same games
    assert one["ok"] and one["games"] == 24 and one["policies"] == ["cautious", "greedy"]
    assert {row["label"] for row in one["by_policy"]} == {"cautious", "greedy"}
    assert 0 <= one["seats"][0]["low"] <= one["seats"][0]["rate"] <= one["seats"][0]["high"] <= 1


def test_terminal_shows_the_key_table():
    proc = referee("simulate", "x-statix", "--games", "10", "--seed", "1", "--workers", "1",
                   "--no-progress")
    assert proc.returncode == 0, proc.stderr
    for text in ("Win rate", "seat: 1st player", "Owner:", "Team Name:", "95% CI", "Missions",
                 "game length", "findings:"):
        assert text in proc.stdout, text


@pytest.mark.parametrize("args, message", [
    (["x-statix", "--players", "4"], "4"),
    (["x-statix", "--policy", "reckless"], "choose from cautious, greedy"),
    (["x-statix", "--policy", "greedy,greedy", "--players", "3"], "names 2 policies"),
    (["x-statix", "--games", "0"], "0"),
    (["x-statix", "--report", "out.txt"], "name it *.pdf"),
    (["xo", "--report", "no/such/folder/x.pdf"], "does not exist"),
    (["xo", "--report", "README.md/x.pdf"], "cannot write it"),
])
def test_bad_usage_is_one_line_and_exit_2(args, message):
    proc = referee("simulate", *args)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_global_seed_is_the_run_seed_and_is_shown():
    def run(*args: str) -> dict:
        proc = referee(*args)
        assert proc.returncode == 0, proc.stderr
        data = json.loads(proc.stdout)
        data.pop("seconds")
        return data

    local = run("simulate", "x-statix", "--games", "12", "--seed", "4", "--workers", "2", "--json")
    root = run("--seed", "4", "simulate", "x-statix", "--games", "12", "--workers", "2", "--json")
    assert local == root and local["seed"] == 4
    unseeded = run("simulate", "x-statix", "--games", "1", "--json")
    assert isinstance(unseeded["seed"], int)  # chosen at random and shown, so it can be rerun
    assert unseeded["games"] == 1 and len(unseeded["seats"]) == 3


def test_a_designers_project_folder_without_the_games(tmp_path):
    """In a project of the designer's own game (`pnp init`: no X-Statix, no XO!), the
    balance lab loads the cards as the referee does: ./cards.yaml only when it has the
    game, else the bundled games; a database without the game is one line naming the games
    of the database in use (and the bundled ones when it looked there too), exit 2."""
    from tests.harness import run_cli
    from tests.referee.simulate.sim_support import ROOT

    project = tmp_path / "harbour"
    assert run_cli("pnp", "init", str(project), cwd=tmp_path).returncode == 0
    run = ("simulate", "x-statix", "--games", "4", "--seed", "2", "--workers", "1", "--json")
    here, bundled = (referee(*run, cwd=cwd) for cwd in (project, ROOT))
    assert here.returncode == 0 == bundled.returncode, here.stderr
    drop = ("seconds",)
    assert ({k: v for k, v in json.loads(here.stdout).items() if k not in drop}
            == {k: v for k, v in json.loads(bundled.stdout).items() if k not in drop})
    for game, title in (("x-statix", "X-Statix"), ("xo", "XO!")):
        proc = referee("--cards", "cards.yaml", "simulate", game, cwd=project)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.splitlines() == [
            f"referee: cards.yaml has no {title} game (it has: harbour); name a card "
            "database with one: --cards PATH"]
    proc = referee("simulate", "bramble", cwd=project)  # no such game here nor bundled
    assert proc.returncode == 2 and proc.stderr.splitlines() == [
        "referee: cards.yaml has no bramble game (it has: harbour; bundled: x-statix, xo); "
        "name a card database with one: --cards PATH"]
