"""`pnp build` reads a plain command line without click (pnp.cli.build_options.fast_params,
issue 36), from the same option table the click command is made of: whatever it reads it
reads as click does, and everything else it leaves to click."""

from __future__ import annotations

import json

import pytest

from pnp.cli.build import build
from pnp.cli.build_options import OPTIONS, fast_params
from tests.harness import run_cli, run_process

READ = [
    [],
    ["--force"],
    ["--game", "x-statix", "--only", "common", "--force"],
    ["--game=xo", "--only=mats", "--json"],
    ["--paper", "A4", "--duplex", "short-edge", "--layout", "abut", "--fold", "--no-backs"],
    ["--paper=LETTER", "--ink-saver", "--contrast", "--large-print", "--strict"],
    ["--out", "somewhere/out", "--project", "proj"],
    ["--back-offset", "1.5,0.25", "--back-scale", "100.2,99.8", "--back-rotate", "0.5"],
    ["--back-rotate", "2", "--printer-margin", "4.5", "-j", "2"],
    ["--jobs", "64", "--changed-only", "--since", "3"],
    ["--lang", "all"],
    ["--lang", "de", "--printer-margin", "nan"],
]

LEFT_TO_CLICK = [
    ["--help"],
    ["--paper", "A5"],                      # click refuses it
    ["--jobs", "0"],
    ["--back-rotate", "3"],
    ["--back-offset", "x"],
    ["--printer-margin", "wide"],
    ["--fold=1"],                           # a flag given a value
    ["--game"],                             # no value
    ["--game", "xo", "--game", "x-statix"],  # repeated
    ["--back-rotate", "-1"],                # a value starting with `-`
    ["extra"],
    ["--frobnicate"],
    ["-j4"],
    ["--since", "3"],                       # run's usage errors: click's to say
    ["--json", "--changed-only"],
    ["--out", "cards.yaml"],                # a file, not a folder
]


def click_params(args: list[str]) -> dict:
    return build.make_context("build", list(args)).params


def test_the_click_command_is_made_from_the_same_table():
    assert [p.name for p in build.params if p.name != "help"] == [s.dest for s in OPTIONS]
    assert [p.opts for p in build.params if p.name != "help"] == [list(s.flags) for s in OPTIONS]


@pytest.mark.parametrize("args", READ, ids=" ".join)
def test_a_plain_command_line_is_read_as_click_reads_it(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fast = fast_params(["build", *args])
    assert fast is not None
    expected = click_params(args)
    if args == ["--lang", "de", "--printer-margin", "nan"]:     # nan != nan
        assert str(fast.pop("printer_margin")) == str(expected.pop("printer_margin")) == "nan"
    assert fast == expected
    assert {k: type(v) for k, v in fast.items()} == {k: type(v) for k, v in expected.items()}


@pytest.mark.parametrize("args", LEFT_TO_CLICK, ids=" ".join)
def test_what_it_cannot_read_as_click_does_is_left_to_click(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cards.yaml").write_text("")
    assert fast_params(["build", *args]) is None


def test_only_build_and_no_completion_is_read():
    assert fast_params(["list"]) is None
    assert fast_params(["--version", "build"]) is None
    assert fast_params([]) is None


def test_completion_is_left_to_click(monkeypatch):
    monkeypatch.setenv("_PNP_COMPLETE", "bash_complete")
    assert fast_params(["build"]) is None


def test_the_real_command_says_a_build_error_in_one_line_and_as_json(tmp_path):
    """The entry point's own build path (a real process: its exit code and its streams)
    answers as the click commands do: one line on stderr, the JSON object on stdout."""
    assert run_cli("pnp", "init", str(tmp_path)).returncode == 0
    result = run_process("pnp", "build", "--game", "nope", "--json", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1].startswith("pnp: unknown game 'nope'")
    assert "Traceback" not in result.stderr
    answer = json.loads(result.stdout.splitlines()[-1])
    assert answer["ok"] is False and answer["exit_code"] == 2
    assert answer["error"].startswith("unknown game 'nope'")


def test_the_entry_point_builds_what_it_read_in_this_process(cli, tmp_path, monkeypatch, capsys):
    from pnp.cli import entry

    assert cli("pnp", "init", str(tmp_path), cwd=tmp_path).returncode == 0
    monkeypatch.chdir(tmp_path)
    argv = ["build", "--game", "harbour", "--only", "storms"]
    params = fast_params(argv)
    assert params is not None
    assert entry.build(params, argv) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"reading {(tmp_path / 'cards.yaml').resolve()}"
    assert "output/harbour/storms.pdf" in out
    assert (tmp_path / "output" / "harbour" / "storms.pdf").read_bytes()[:5] == b"%PDF-"
    argv = ["build", "--game", "nope"]
    assert entry.build(fast_params(argv) or {}, argv) == 2
    assert capsys.readouterr().err.splitlines() == ["pnp: unknown game 'nope' (choose harbour)"]
