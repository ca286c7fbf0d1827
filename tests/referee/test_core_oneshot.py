"""The one-shot path (referee/oneshot.py, the `referee` console script): `status` and
`roll` answered without click say exactly what click's path says (stdout, stderr, exit
code, the session files after), and every other line is handed to click unchanged."""

from __future__ import annotations

import functools
import hashlib
import io
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from referee import cli as referee_cli
from referee import oneshot
from tests.harness import ROOT, process_env, run_cli

ISLE = """\
version: 1
card_sizes: {poker: [63.5, 88.9]}
games:
  isle:
    title: Isle
    players: {min: 2, max: 4}
    types: {Tile: {fields: {}}}
    decks:
      tiles: {title: Tiles, size: poker, back: {title: Isle}, cards: [{name: Reef, type: Tile}]}
    dice:
      storm: {faces: [wind, wind, wave, calm, 2, 3], per_player: 3}
"""


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> Path:
    """A folder a table plays in: an X-Statix session (the default file), an XO! one, one
    of the table kit (cards.yaml's Isle), a folder where a file belongs, a corrupt file."""
    where = tmp_path_factory.mktemp("table")
    (where / "cards.yaml").write_text(ISLE, encoding="utf-8")
    for args in (["new", "x-statix", "--players", "Ann,Bob,Cy", "--seed", "1"],
                 ["--session", "xo.db", "new", "xo", "--players", "Hero,Vil", "--seed", "2"],
                 ["--session", "kit.db", "new", "isle", "--players", "Ann,Bob", "--seed", "3"]):
        done = run_cli("referee", *args, cwd=where)
        assert done.returncode == 0, done.stderr
    run_cli("referee", "mt", "Ann", "+2", cwd=where)
    (where / "folder.db").mkdir()
    (where / "junk.db").write_bytes(b"not a session" * 10)
    return where


S = ["--session"]
LINES: list[tuple[list[str], bool]] = [  # (argv, answered without click)
    (["status"], True),
    (["status", "--json"], True),
    (["status", "--json", "--json"], True),
    ([*S, "xo.db", "status"], True),
    ([*S, "xo.db", "status", "--json"], True),
    (["--session=xo.db", "status"], True),
    ([*S, "kit.db", "status"], True),
    ([*S, "kit.db", "status", "--json"], True),
    ([*S, "missing.db", "status"], True),
    ([*S, "missing.db", "status", "--json"], True),
    ([*S, "junk.db", "status"], True),
    ([*S, "junk.db", "status", "--json"], True),
    ([*S, "", "status"], True),
    ([*S, "xo.db", *S, "referee-session.db", "status"], True),
    (["--cards", "cards.yaml", "status"], True),
    (["--cards", "missing.yaml", "status", "--json"], True),
    (["--seed", "1", "status"], True),
    (["--seed", "1", "status", "--json"], True),
    (["--seed=7", *S, "xo.db", "status"], True),
    (["roll", "3", "--seed", "1"], True),
    (["roll", "3", "--seed", "2"], True),  # moffed: its colour stripped off a terminal
    (["roll", "3", "--seed", "2", "--json"], True),
    (["roll", "3m", "--seed", "5", "--league", "villains"], True),
    (["roll", "3", "--league", "villains", "--json", "--seed", "5"], True),
    (["roll", "2d6+1", "--seed", "4"], True),
    (["roll", "1d6", "-1", "--seed", "3"], True),
    (["roll", "1d6", "-12", "--json", "--seed", "3"], True),
    (["roll", "2d6", "+", "3m", "--seed", "8"], True),
    (["roll", "2d6 - 1d4", "--seed", "8", "--json"], True),
    (["roll", "3", "--roll", "0,1,2"], True),
    (["roll", "3", "--roll", "0,1,2", "--json"], True),
    (["roll", "3", "--roll", "0,1"], True),
    (["roll", "3", "--roll", "0,1,9", "--json"], True),
    (["roll", "9"], True),
    (["roll", "9", "--json"], True),
    (["roll", "8m", "--league", "villains"], True),
    (["roll", "x"], True),
    (["roll", "x", "--json"], True),
    (["roll", ""], True),
    (["roll", "3", "4", "5"], True),
    (["roll", "0d6", "--seed", "1"], True),
    (["roll", "99999999999999999999d6"], True),
    (["--seed", "11", "roll", "2d6"], True),
    (["--seed", "11", "roll", "2d6", "--seed", "12"], True),
    (["--seed", " 11 ", "roll", "2d6"], True),
    (["--seed", "+11", "roll", "2d6"], True),
    ([*S, "xo.db", "roll", "3", "--seed", "1"], True),
    ([*S, "missing.db", "roll", "3", "--seed", "1"], True),
    ([*S, "junk.db", "roll", "3", "--seed", "1"], True),
    ([*S, "kit.db", "roll", "2d6", "--seed", "1"], True),
    ([*S, "kit.db", "roll", "3x"], True),
    ([*S, "kit.db", "roll", "x"], False),  # a roll cards.yaml might name
    # what click reads: help, usage errors, options written otherwise, other commands
    ([], False),
    (["--help"], False),
    (["-h"], False),
    (["status", "--help"], False),
    (["status", "-h"], False),
    (["status", "now"], False),
    (["status", "--jso"], False),
    (["status", "--json=1"], False),
    (["status", "--session", "xo.db"], False),
    (["--json", "status"], False),
    (["--", "status"], False),
    (["Status"], False),
    (["stat"], False),
    (["log"], False),
    (["--session"], False),
    (["--session", "--json", "status"], False),
    ([*S, "folder.db", "status"], False),
    ([*S, "folder.db", "roll", "3"], False),
    (["--cards", "folder.db", "status"], False),
    (["--cards=folder.db", "roll", "3"], False),
    (["--seed", "x", "status"], False),
    (["--seed", "1.5", "roll", "3"], False),
    (["--seed", "٣", "roll", "3"], False),
    (["--seed", "1" * 41, "roll", "3"], False),
    (["--seed=", "roll", "3"], False),
    (["roll"], False),
    (["roll", "--json"], False),
    (["roll", "3", "--help"], False),
    (["roll", "3", "-h"], False),
    (["roll", "3", "--seed"], False),
    (["roll", "3", "--seed", "x"], False),
    (["roll", "3", "--seed=1"], False),
    (["roll", "3", "--seed", "-1"], False),
    (["roll", "3", "--league", "Heroes"], False),
    (["roll", "3", "--league", "elves"], False),
    (["roll", "3", "--league"], False),
    (["roll", "3", "--roll"], False),
    (["roll", "3", "--roll=1,2,3"], False),
    (["roll", "3", "--bogus"], False),
    (["roll", "3", "-x"], False),
    (["roll", "1d6", "-1h"], False),
    (["roll", "3", "storm", "--seed", "1"], False),  # a die of ./cards.yaml
    (["roll", "3", "storm", "--json", "--seed", "2"], False),
    (["roll", "2", "wind"], False),  # not dice notation, nor a die of cards.yaml
    ([*S, "kit.db", "roll", "3"], False),  # the table kit's own dice, logged
    ([*S, "kit.db", "roll", "2", "storm"], False),
    ([*S, "kit.db", "roll", "storm"], False),
    (["odds", "3m"], False),
    (["mt", "Bob", "+1"], False),
]


class Terminal(io.TextIOWrapper):
    def isatty(self) -> bool:
        return True


def run(argv: list[str], folder: Path, through: str, monkeypatch, terminal: bool = False
        ) -> tuple[int, str, str, bool]:
    """`referee ARGV` in `folder` through the one-shot entry ("oneshot") or click's
    (referee.cli:main): exit code, stdout, stderr, whether the one-shot handed it on."""
    out = (Terminal if terminal else io.TextIOWrapper)(io.BytesIO(), encoding="utf-8")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    handed = []

    def by_click() -> None:
        handed.append(argv)
        referee_cli.main()

    with monkeypatch.context() as patch:
        patch.chdir(folder)
        patch.setattr(sys, "argv", ["referee", *argv])
        patch.setattr(sys, "stdout", out)
        patch.setattr(sys, "stderr", err)
        patch.setattr(oneshot, "by_click", by_click)
        patch.setattr("referee.session._time", lambda: 1_900_000_000.0)  # the clock shown
        for name in ("REFEREE_SESSION", "REFEREE_CARDS", "_REFEREE_COMPLETE"):
            patch.delenv(name, raising=False)
        try:
            (oneshot.main if through == "oneshot" else referee_cli.main)()
            code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    return code, _text(out), _text(err), bool(handed)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    return stream.buffer.getvalue().decode("utf-8")  # type: ignore[attr-defined]


def files(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())
            if p.is_file()}


@pytest.mark.parametrize(("argv", "fast"), LINES, ids=[" ".join(a) or "-" for a, _ in LINES])
def test_a_line_says_through_the_one_shot_path_what_click_says(argv, fast, table, tmp_path,
                                                               monkeypatch):
    by_click, by_oneshot = tmp_path / "click", tmp_path / "oneshot"
    shutil.copytree(table, by_click)
    shutil.copytree(table, by_oneshot)
    *expected, _ = run(argv, by_click, "click", monkeypatch)
    *found, handed = run(argv, by_oneshot, "oneshot", monkeypatch)
    assert found == expected
    assert handed is not fast
    if fast:  # the session files as click's path leaves them (a line click runs writes
        assert files(by_oneshot) == files(by_click)  # its event's time: not compared)


@pytest.mark.parametrize("argv", [["roll", "3", "--seed", "2"], ["roll", "3", "--seed", "1"]])
def test_colour_is_kept_at_a_terminal_as_click_keeps_it(argv, table, monkeypatch):
    expected = run(argv, table, "click", monkeypatch, terminal=True)
    found = run(argv, table, "oneshot", monkeypatch, terminal=True)
    assert found[:3] == expected[:3]
    assert ("\x1b[31m" in found[1]) is (argv[-1] == "2")  # --seed 2 rolls three 0s: moffed


def test_outcomes_are_all_covered(table, tmp_path, monkeypatch):
    """The fast lines give every exit code and the --json refusal object (so that the
    comparison above compares them)."""
    shutil.copytree(table, tmp_path / "t")
    codes = {run(a, tmp_path / "t", "oneshot", monkeypatch)[0] for a, fast in LINES if fast}
    assert codes == {0, 1, 2}


def test_shell_completion_and_ascii_streams_are_clicks(table, monkeypatch):
    monkeypatch.setenv("_REFEREE_COMPLETE", "bash_complete")
    with pytest.raises(oneshot.ByClick):
        oneshot._answer(["status"])
    monkeypatch.delenv("_REFEREE_COMPLETE")
    ascii_out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    monkeypatch.setattr(sys, "stdout", ascii_out)
    with pytest.raises(oneshot.ByClick):  # click re-wraps such a stream: its to write
        oneshot._answer(["status"])


# ── start-up: what a one-shot command imports ──────────────────────────────────
def loaded_by(argv: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess, set[str]]:
    """`referee ARGV` through the console script's entry in a fresh process: its result
    and the modules it loaded."""
    code = textwrap.dedent(
        f"""
        import sys
        sys.argv = ["referee", *{argv!r}]
        from referee.oneshot import main
        try:
            main()
        except SystemExit as exit:
            pass
        print("\\n" + " ".join(sorted(sys.modules)))
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**process_env(), "PYTHONPATH": str(ROOT)}, cwd=cwd)
    return proc, set(proc.stdout.strip().splitlines()[-1].split()) - interpreter_modules()


@functools.cache
def interpreter_modules() -> frozenset[str]:
    """What the interpreter has loaded before any of the referee's code runs, in the same
    environment: not the command's doing (an editable install's finder, run from its .pth
    file at start-up, imports pathlib and importlib.util)."""
    proc = subprocess.run([sys.executable, "-c", "import sys; print(' '.join(sys.modules))"],
                          capture_output=True, text=True, check=True,
                          env={**process_env(), "PYTHONPATH": str(ROOT)}, cwd=ROOT)
    return frozenset(proc.stdout.split())


NEVER = {"click", "carddb", "yaml", "rich", "random", "referee.cli", "referee.dice",
         "referee.xs.rolls", "pathlib", "hashlib", "dataclasses", "importlib.util"}


def test_a_one_shot_status_loads_no_click(table):
    proc, loaded = loaded_by(["status"], table)
    assert "X-Statix: turn 1" in proc.stdout, proc.stderr
    assert {"referee.status", "referee.session", "referee.xs.game"} <= loaded
    assert not {m for m in loaded if m in NEVER or m.startswith("click.")}
    proc, loaded = loaded_by(["--session", "missing.db", "status", "--json"], table)
    assert '"ok": false' in proc.stdout
    assert not {m for m in loaded if m in NEVER or m.startswith("click.")}


def test_a_one_shot_roll_loads_no_click(table):
    for where in (table, table / "folder.db"):  # a session here (X-Statix), and none
        proc, loaded = loaded_by(["roll", "3"], where)
        assert "White Mask" in proc.stdout, proc.stderr
        assert "referee.notation" in loaded
        assert not {m for m in loaded
                    if m in NEVER - {"random", "pathlib", "referee.dice"} or m.startswith("click.")}
        assert "referee.session" not in loaded and "carddb" not in loaded


def test_help_and_other_commands_go_through_click(table):
    proc, loaded = loaded_by(["--help"], table)
    assert "Usage: referee" in proc.stdout
    assert {"click", "referee.cli"} <= loaded


def test_the_console_script_and_python_m_referee_enter_the_one_shot_path():
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["scripts"]
    assert scripts["referee"] == "referee.oneshot:main"
    assert "referee.oneshot import main" in (ROOT / "referee" / "__main__.py").read_text("utf-8")
    done = subprocess.run([sys.executable, "-m", "referee", "roll", "2d6", "--seed", "3"],
                          capture_output=True, text=True, env=process_env(), cwd=os.getcwd())
    assert done.returncode == 0 and done.stdout.startswith("2d6: d6 "), done.stderr


def test_plug_ins_still_find_the_number_types_in_referee_command():
    """docs/PLUGINS.md: `from referee.command import WholeNumber` (now referee/click_types.py,
    so that referee.command imports no click)."""
    from referee import click_types
    from referee.command import SEED, WHOLE, WholeNumber

    assert (WholeNumber, WHOLE, SEED) == (click_types.WholeNumber, click_types.WHOLE,
                                          click_types.SEED)
    with pytest.raises(ImportError):
        from referee.command import NoSuchName  # noqa: F401
