"""Any designer's game (issue 15): a game declared in cards.yaml with its own card types
and fields, decks read from CSV and XLSX, located one-line errors for broken sheets,
`pnp init`, `--project`, no silent fallback to the bundled games. Real files, real CLI."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

import carddb  # noqa: E402
from pnp.cli.init import EXAMPLES
from tests.pdftext import page_texts
from tests.pnp.test_watch import Watcher  # noqa: E402

CARDS = """\
version: 1
card_sizes: {poker: [63.5, 88.9]}
games:
  orbit:
    title: Orbit Run
    players: {min: 1, max: 4}
    types:
      Pilot:
        fields:
          skill: {type: int, min: 1, max: 5}
          callsign: text
          rookie: {type: bool, default: false}
      Ship:
        fields:
          hull: {type: int, min: 1}
          class: {type: enum, values: [scout, freighter, cruiser]}
          weapons: {type: list, of: text, default: []}
          speed: optional number
      Planet:
        fields:
          gravity: number
          glyph: icon
          moons: {type: int, min: 0, default: 0}
    decks:
      pilots:
        title: Pilots
        size: poker
        back: {title: Orbit Run, subtitle: Pilots}
        cards: {from: pilots.csv, type: Pilot}
      ships:
        title: Ships
        size: poker
        back: {title: Orbit Run, subtitle: Ships}
        cards: {from: fleet.xlsx, sheet: Ships}
      planets:
        title: Planets
        size: poker
        back: {title: Orbit Run}
        cards:
          - {name: Vesper Prime, type: Planet, gravity: 1.2, glyph: energy, moons: 2}
          - {name: Dustfall, type: Planet, gravity: 0.4, glyph: mask}
"""
PILOTS = """\
name,callsign,skill,rookie,copies,text
Mara Quill,Needle,4,no,1,Reroll one **skill** test.
Oskar Venn,Tin Man,2,yes,2,
Ida Sol,Halo,5,,1,Moves first.
"""
SHIPS = [["name", "type", "class", "hull", "weapons", "speed"],
         ["Long Shadow", "Ship", "cruiser", 6, "rail gun; flak", 1.5],
         ["Pennywhistle", "Ship", "scout", 2, None, 4],
         ["Ox", "Ship", "freighter", 5, "", None]]
CARD_TEMPLATE = """\
{#- design: 63.5 x 88.9 -#}
- rect: {box: [0, 0, {{ W }}, {{ H }}], fill: "#223344", bleed: true}
- text: {id: name, box: [5, 5, {{ W - 10 }}, 10], text: {{ card.name }}, markup: false,
         font: bold, size: 12, color: "#ffffff"}
- text: {id: facts, box: [5, 20, {{ W - 10 }}, 30], markup: false, color: "#ffffff",
         text: {{ FACTS }}}
"""
FACTS = {
    "pilot": '"skill " ~ card.skill ~ " " ~ card.callsign ~ (" rookie" if card.rookie else "")',
    "ship": '"hull " ~ card.hull ~ " " ~ card["class"] ~ " " ~ (card.weapons | join(", "))',
    "planet": '"gravity " ~ card.gravity ~ " moons " ~ card.moons',
}
BACK = """\
{#- design: 63.5 x 88.9 -#}
- rect: {box: [0, 0, {{ W }}, {{ H }}], fill: "#112233", bleed: true}
- text: {id: title, box: [5, 40, {{ W - 10 }}, 10], text: {{ back.title }}, markup: false,
         align: center, color: "#ffffff"}
"""


def write_xlsx(path: Path, rows, sheet: str = "Ships", edit=None) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    ws = book.active
    ws.title = sheet
    for row in rows:
        ws.append(row)
    if edit is not None:
        edit(ws)
    book.save(path)


@pytest.fixture
def orbit(tmp_path) -> Path:
    """A brand-new game: its own id, three card types, a CSV deck and an XLSX deck."""
    (tmp_path / "cards.yaml").write_text(CARDS, encoding="utf-8")
    (tmp_path / "pilots.csv").write_text(PILOTS, encoding="utf-8")
    write_xlsx(tmp_path / "fleet.xlsx", SHIPS)
    folder = tmp_path / "templates" / "orbit"
    folder.mkdir(parents=True)
    for kind, facts in FACTS.items():
        (folder / f"{kind}.j2").write_text(CARD_TEMPLATE.replace("FACTS", facts))
    (folder / "back.j2").write_text(BACK)
    return tmp_path


def pdf_text(path: Path) -> str:
    return "\n".join(page_texts(path))


def test_a_new_game_with_csv_and_xlsx_decks_validates_and_builds(cli, orbit):
    result = cli("pnp", "validate", cwd=orbit)
    assert result.returncode == 0, result.stderr
    assert "valid (1 games, 3 decks, 8 card designs)" in result.stdout
    result = cli("pnp", "build", cwd=orbit)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == f"reading {(orbit / 'cards.yaml').resolve()}"
    text = {deck: pdf_text(orbit / "output" / "orbit" / f"{deck}.pdf")
            for deck in ("pilots", "ships", "planets")}
    for name in ("Mara Quill", "Oskar Venn", "Ida Sol"):
        assert name in text["pilots"]
    for name in ("Long Shadow", "Pennywhistle", "Ox"):
        assert name in text["ships"]
    for name in ("Vesper Prime", "Dustfall"):
        assert name in text["planets"]
    # Cells converted by the declared field types, defaults applied.
    assert "skill 2 Tin Man rookie" in text["pilots"] and "skill 5 Halo" in text["pilots"]
    assert "hull 6 cruiser rail gun, flak" in text["ships"]
    assert "moons 0" in text["planets"]


def test_cells_are_converted_by_field_types_and_located(orbit):
    db = carddb.load(orbit / "cards.yaml")
    game = db.games["orbit"]
    assert game.rules is None and set(game.card_types) == {"Pilot", "Ship", "Planet"}
    oskar = game.card("Oskar Venn")
    assert (oskar.copies, oskar["skill"], oskar["rookie"], oskar.text) == (2, 2, True, "")
    assert game.card("Ida Sol")["rookie"] is False            # default for an empty cell
    shadow = game.card("Long Shadow")
    assert shadow["weapons"] == ["rail gun", "flak"] and shadow["speed"] == 1.5
    assert game.card("Ox")["weapons"] == []
    assert str(oskar.source) == "pilots.csv:3:1" or oskar.source.file.endswith("pilots.csv")
    assert [p.name for p in db.sources] == ["cards.yaml", "pilots.csv", "fleet.xlsx"]


def _csv(text: str):
    return lambda folder: (folder / "pilots.csv").write_text(text, encoding="utf-8")


def _xlsx(rows, edit=None):
    return lambda folder: write_xlsx(folder / "fleet.xlsx", rows, edit=edit)


BROKEN = [
    ("missing-column", _csv("name,callsign,rookie\nMara,Needle,no\n"),
     "pilots.csv:1:D: games.orbit.decks.pilots.cards: missing column 'skill' (a required field of Pilot)"),
    ("wrong-type", _csv("name,callsign,skill\nMara,Needle,4\nOskar,Tin,lots\n"),
     "pilots.csv:3:C: games.orbit.decks.pilots.cards[1].skill: expected a whole number >= 1, got text 'lots'"),
    ("empty-row", _csv("name,callsign,skill\nMara,Needle,4\n,,\nOskar,Tin,2\n"),
     "pilots.csv:3:A: games.orbit.decks.pilots.cards: an empty row"),
    ("bad-copies", _csv("name,callsign,skill,copies\nMara,Needle,4,0\n"),
     "pilots.csv:2:D: games.orbit.decks.pilots.cards[0].copies: must be at least 1, got 0"),
    ("unknown-field", _csv("name,callsign,skil\nMara,Needle,4\n"),
     "pilots.csv:1:C: games.orbit.decks.pilots.cards: unknown field 'skil' (did you mean 'skill'?)"),
    ("duplicate-header", _csv("name,callsign,skill,skill\nMara,Needle,4,4\n"),
     "pilots.csv:1:D: games.orbit.decks.pilots.cards: duplicate column 'skill' (first in column C)"),
    ("non-utf8", lambda f: (f / "pilots.csv").write_bytes(b"name,callsign,skill\nMara,Needle,4\nOskar,T\xe9n,2\n"),
     "pilots.csv:3:B: games.orbit.decks.pilots.cards: not UTF-8 text"),
    ("formula", _xlsx([SHIPS[0], SHIPS[1], ["Ox", "Ship", "freighter", "=2+3"]]),
     "fleet.xlsx[Ships]!D3: games.orbit.decks.ships.cards: a formula (=2+3)"),
    ("merged", _xlsx(SHIPS, edit=lambda ws: ws.merge_cells("A3:B3")),
     "fleet.xlsx[Ships]!A3: games.orbit.decks.ships.cards: merged cells A3:B3"),
    ("empty-file", lambda f: (f / "pilots.csv").write_bytes(b""),
     "pilots.csv:1:A: games.orbit.decks.pilots.cards: the file is empty"),
]


@pytest.mark.parametrize("case", BROKEN, ids=[c[0] for c in BROKEN])
def test_a_broken_spreadsheet_is_one_line_at_its_cell(cli, orbit, case):
    _id, breaker, expected = case
    breaker(orbit)
    result = cli("pnp", "validate", cwd=orbit)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    problems = result.stderr.splitlines()
    assert problems[-1] == "1 problem found", result.stderr
    assert problems[0].startswith(expected), result.stderr
    build = cli("pnp", "build", cwd=orbit)
    assert build.returncode == 1 and build.stderr.count("\n") == 1, build.stderr
    assert not (orbit / "output" / "orbit").exists()


def test_a_wrong_type_cell_shows_its_value_escaped_and_shortened(cli, orbit):
    """The cell is all a designer sees of a spreadsheet: its text is shown, one line (a
    control character escaped) and bounded, never the whole of a long cell."""
    long = "lots\x1b[31m of skill, " + "really " * 40
    (orbit / "pilots.csv").write_text(f'name,callsign,skill,rookie\nMara,Needle,"{long}",maybe\n',
                                      encoding="utf-8")
    result = cli("pnp", "validate", cwd=orbit)
    assert result.returncode == 1
    skill, rookie = (line for line in result.stderr.splitlines() if line.startswith("pilots.csv"))
    assert skill.startswith("pilots.csv:2:C: games.orbit.decks.pilots.cards[0].skill: expected "
                            "a whole number >= 1, got text 'lots\\x1b[31m of skill, really "), skill
    assert skill.endswith("...'") and len(skill) < 160 and "\x1b" not in skill, skill
    assert rookie.endswith("rookie: expected true or false, got text 'maybe'"), rookie


def test_a_sheet_of_another_name_and_an_unknown_type_get_did_you_mean(cli, orbit):
    text = CARDS.replace("sheet: Ships", "sheet: Shps").replace("type: Pilot}", "type: Pilto}")
    (orbit / "cards.yaml").write_text(text)
    result = cli("pnp", "validate", cwd=orbit)
    assert result.returncode == 1
    assert "'Pilto' is not a card type of this game (did you mean 'Pilot'?)" in result.stderr
    assert "no sheet 'Shps' in fleet.xlsx (did you mean 'Ships'?)" in result.stderr


@pytest.mark.parametrize("old,new,message", [
    ("hull: {type: int, min: 1}", "hull: {type: integer}", "unknown field type 'integer' (did you mean 'int'?"),
    ("class: {type: enum, values: [scout, freighter, cruiser]}", "class: enum",
     "an enum needs `values`"),
    ("gravity: number", "gravity: xo-effects", "field type 'xo-effects' comes with `rules: xo`"),
    ("    players: {min: 1, max: 4}", "    rules: xoo\n    players: {min: 1, max: 4}",
     "unknown rules 'xoo' (did you mean 'xo'?)"),
    ("callsign: text", "name: text", "'name' is a field of every card"),
    ("moons: {type: int, min: 0, default: 0}", "moons: {type: int, min: 0, default: -1}",
     "moons.default: must be at least 0, got -1"),
])
def test_declarations_are_checked_with_located_errors(cli, orbit, old, new, message):
    assert old in CARDS
    (orbit / "cards.yaml").write_text(CARDS.replace(old, new, 1))
    result = cli("pnp", "validate", cwd=orbit)
    assert result.returncode == 1
    assert any(message in line and line.startswith("cards.yaml:") for line in result.stderr.splitlines()), result.stderr


def test_xo_rules_apply_to_a_game_only_by_its_rules_key(cli, orbit):
    """XO-1 dice and the two leagues' mats are required by `rules: xo`, not by a game id."""
    (orbit / "cards.yaml").write_text(CARDS.replace("    players: {min: 1, max: 4}",
                                                    "    rules: xo\n    players: {min: 1, max: 4}"))
    result = cli("pnp", "validate", cwd=orbit)
    assert result.returncode == 1
    assert "games.orbit: missing field 'dice'" in result.stderr
    assert "games.orbit: missing field 'mats'" in result.stderr


def test_an_edited_csv_rebuilds_its_deck_only(cli, orbit):
    assert cli("pnp", "build", cwd=orbit).returncode == 0
    again = cli("pnp", "build", cwd=orbit)
    assert "nothing to do" in again.stdout
    (orbit / "pilots.csv").write_text(PILOTS.replace("Mara Quill", "Mara Quell"))
    result = cli("pnp", "build", cwd=orbit)
    assert result.returncode == 0, result.stderr
    assert "building output/orbit/pilots.pdf" in result.stdout
    assert "up to date: output/orbit/ships.pdf" in result.stdout
    assert "Mara Quell" in pdf_text(orbit / "output" / "orbit" / "pilots.pdf")


def test_the_load_cache_follows_the_spreadsheets(orbit, monkeypatch):
    monkeypatch.setenv("PNP_CACHE_DIR", str(orbit / "cache"))
    carddb._cache.clear()
    assert carddb.load(orbit / "cards.yaml").games["orbit"].card("Mara Quill")["skill"] == 4
    assert list((orbit / "cache").glob("*.pickle"))
    (orbit / "pilots.csv").write_text(PILOTS.replace("Needle,4", "Needle,3"))
    assert carddb.load(orbit / "cards.yaml").games["orbit"].card("Mara Quill")["skill"] == 3


def test_a_warm_load_imports_no_yaml_or_validation(orbit, tmp_path):
    import subprocess

    code = ("import sys, carddb; carddb.load('cards.yaml'); "
            "print(sorted(m for m in ('yaml', 'carddb.validate', 'openpyxl') if m in sys.modules))")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "PNP_CACHE_DIR": str(tmp_path / "cache")}

    def run():                      # a fresh process: what a load imports is the point
        return subprocess.run([sys.executable, "-c", code], cwd=orbit, env=env,
                              capture_output=True, text=True, timeout=60)

    cold, warm = run(), run()
    assert cold.stdout.strip() == "['carddb.validate', 'openpyxl', 'yaml']", cold.stderr
    assert warm.stdout.strip() == "[]", warm.stderr


# ── pnp init, --project, no fallback ──────────────────────────────────────────────


def test_pnp_init_writes_a_project_that_builds(cli, tmp_path):
    result = cli("pnp", "init", "game", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    project = tmp_path / "game"
    assert {"cards.yaml", "ships.csv", "README.md"} <= {p.name for p in project.iterdir()}
    db = carddb.load(project / "cards.yaml")
    (game,) = db.games.values()
    assert game.id == "harbour" and len(game.card_types) == 2
    assert sum(d.count for d in game.decks.values()) == 24  # 12 Ships, 12 Storms
    assert (project / "templates" / "harbour" / "reference.j2").is_file()  # its turn summary
    build = cli("pnp", "build", "--project", str(project), cwd=tmp_path)
    assert build.returncode == 0, build.stderr
    assert build.stdout.splitlines()[0] == f"reading {(project / 'cards.yaml').resolve()}"
    assert "The Gull" in pdf_text(project / "output" / "harbour" / "ships.pdf")
    assert "Squall" in pdf_text(project / "output" / "harbour" / "storms.pdf")
    assert "Harbour Lights turn summary" in pdf_text(project / "output" / "harbour" /
                                                     "reference.pdf")
    again = cli("pnp", "init", "game", cwd=tmp_path)
    assert again.returncode == 1 and "already exists" in again.stderr


def test_the_examples_are_every_bundled_game():
    """test_pnp_init_example_copies_one_bundled_game is the suite's full `pnp validate` of
    the bundled games (every face planned and its contrast measured): one example per
    bundled game keeps it whole."""
    bundled = carddb.load(carddb.bundled_root() / "cards.yaml")
    assert sorted(EXAMPLES) == sorted(bundled.games)


@pytest.mark.parametrize("example", EXAMPLES)
def test_pnp_init_example_copies_one_bundled_game(cli, tmp_path, example):
    result = cli("pnp", "init", "--example", example, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    db = carddb.load(tmp_path / "cards.yaml")
    assert list(db.games) == [example] and db.games[example].rules == example
    assert (tmp_path / "templates" / example / "back.j2").is_file()
    assert cli("pnp", "validate", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("command", [["build"], ["validate"], ["list"], ["proof"],
                                     ["export", "png"], ["build", "--game", "xo"]])
def test_no_cards_yaml_is_an_error_not_the_bundled_games(cli, tmp_path, command):
    result = cli("pnp", *command, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "pnp init" in result.stderr, result.stderr
    assert not (tmp_path / "output").exists()


@pytest.mark.parametrize("command", [["validate"], ["list"], ["proof", "--card", "Squall"],
                                     ["export", "png", "--card", "Squall"]])
def test_every_command_reading_a_database_names_it_on_its_first_line(cli, tmp_path, command):
    project = tmp_path / "game"
    assert cli("pnp", "init", str(project), cwd=tmp_path).returncode == 0
    result = cli("pnp", *command, "--project", str(project), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == f"reading {(project / 'cards.yaml').resolve()}"


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_cards_yaml_that_is_no_file_is_refused_without_reading(cli, tmp_path, kind):
    if kind == "folder":
        (tmp_path / "cards.yaml").mkdir()
    else:
        os.mkfifo(tmp_path / "cards.yaml")
    result = cli("pnp", "build", cwd=tmp_path, timeout=20)
    assert result.returncode == 1 and "is not a regular file" in result.stderr
    assert not (tmp_path / "output").exists()


def test_watch_names_its_database_first_says_it_is_missing_and_keeps_watching(tmp_path, cli):
    """One `pnp watch` process (a process is the point: it runs until stopped) for both:
    its first line names the database it watches; a deleted cards.yaml is said, and the
    watch goes on to build the file written again."""
    assert cli("pnp", "init", cwd=tmp_path).returncode == 0
    watcher = Watcher(tmp_path, "--interval", "0.1", "--game", "harbour", "--only", "storms")
    try:
        lines = watcher.wait_for("build done")
        assert lines[0] == f"reading {(tmp_path / 'cards.yaml').resolve()}", lines
        saved = (tmp_path / "cards.yaml").read_text()
        (tmp_path / "cards.yaml").unlink()
        lines = watcher.wait_for("build failed")
        assert any("no cards.yaml" in line for line in lines), lines
        assert not (tmp_path / "output" / "x-statix").exists()
        (tmp_path / "cards.yaml").write_text(saved.replace("Squall", "Black Squall"))
        watcher.wait_for("build done")
        assert "Black Squall" in pdf_text(tmp_path / "output" / "harbour" / "storms.pdf")
    finally:
        watcher.stop()


def test_referee_uses_the_bundled_games_beside_a_project_of_another_game(cli, tmp_path):
    assert cli("pnp", "init", cwd=tmp_path).returncode == 0
    result = cli("referee", "--session", str(tmp_path / "s.db"), "new", "x-statix",
                 "--players", "Ann,Bob", "--seed", "3", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert textwrap.dedent(result.stdout).strip()
