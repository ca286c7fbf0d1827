"""Names `pnp validate` accepted and the referee then refused (issue 31, item 6): a soft
hyphen, a zero-width joiner or a bidi mark in a token's name, an escape character in a
game's title. One rule now (carddb.names: printable characters only, as the referee's
sessions hold), checked by validation, so a name validate accepts is one the referee
plays with, and one it refuses is refused at its `file:line:col` before any session is
made. Such characters are escaped wherever a message prints them."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

import carddb
from carddb import names

STARTER = Path(__file__).resolve().parent.parent / "pnp" / "starter"

REFUSED = {"soft hyphen": "\u00ad", "zero-width joiner": "\u200d", "right-to-left mark": "\u200f",
           "bidi override": "\u202e", "bidi isolate": "\u2067", "escape": "\x1b",
           "no-break space": "\u00a0", "line separator": "\u2028", "tab": "\t"}
# where the referee reads a name of a declared game: (text in the starter, the same with
# the character at {c})
PLACES = {
    "token name": ("name: Cargo,", 'name: "Car{c}go",'),
    "token id": ("      cargo: {name", '      "car{c}go": {name'),
    "game title": ("title: Harbour Lights\n", 'title: "Harbour{c}Lights"\n'),
    "phase": ("phases: [Draw,", 'phases: ["Dr{c}aw",'),
    "deck title": ("title: Storms\n", 'title: "Sto{c}rms"\n'),
    "card name": ("{name: Squall,", '{name: "Squ{c}all",'),
}


def project(tmp_path: Path, place: str | None = None, char: str = "") -> Path:
    """The `pnp init` starter, with `char` written (as a YAML escape) into one name."""
    from pnp.cli.init import write_project

    folder = tmp_path / "harbour"
    write_project(folder, None)
    cards = folder / "cards.yaml"  # its rules as data left out: a name's one line, alone
    text = cards.read_text(encoding="utf-8")
    cards.write_text(text[:text.index("    zones:")] + "    phases: [Draw, Sail, Storm]\n"
                     + text[text.index("    decks:"):], encoding="utf-8")
    if place is not None:
        old, new = PLACES[place]
        escape = json.dumps(char)[1:-1]  # "\u00ad", "\u001b": YAML's double-quoted escapes
        text = (folder / "cards.yaml").read_text(encoding="utf-8")
        assert text.count(old) >= 1, old
        (folder / "cards.yaml").write_text(text.replace(old, new.replace("{c}", escape), 1),
                                           encoding="utf-8")
    return folder


def run(main, args: list[str], cwd: Path, monkeypatch) -> SimpleNamespace:
    monkeypatch.chdir(cwd)
    result = CliRunner(env={"REFEREE_SESSION": None, "REFEREE_CARDS": None}).invoke(main, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return SimpleNamespace(code=result.exit_code, out=result.stdout, err=result.stderr)


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("char", REFUSED.values(), ids=REFUSED.keys())
def test_validate_refuses_a_name_the_referee_cannot_hold_at_its_place(tmp_path, place, char):
    with pytest.raises(carddb.DatabaseError) as refused:
        carddb.load(project(tmp_path, place, char) / "cards.yaml")
    lines = [str(problem) for problem in refused.value.problems]
    assert len(lines) == 1, lines
    code = f"U+{ord(char):04X}"
    assert "cards.yaml:" in lines[0] and f"a name may not hold {code}" in lines[0]
    assert lines[0].isprintable(), lines[0]  # the message escapes what it quotes


@pytest.mark.parametrize("place", ["token name", "game title", "phase", "card name"])
def test_the_referee_refuses_such_a_database_in_one_line_and_makes_no_session(
        tmp_path, monkeypatch, place):
    from referee.cli import main

    folder = project(tmp_path, place, "\u200f")
    done = run(main, ["--session", "s.db", "new", "harbour", "--players", "Ann,Bob"], folder,
               monkeypatch)
    assert done.code in (1, 2)
    line = one_line(done.err)
    assert "cards.yaml:" in line and "U+200F RIGHT-TO-LEFT MARK" in line, line
    assert not (folder / "s.db").exists()


@pytest.mark.parametrize("char", [*REFUSED.values(), "é", "ß", "’", "☸", "😀", "東", " ", "-"])
def test_validate_and_the_referees_session_agree_on_every_character(char):
    """Validation's rule is the one the referee's session rows are checked with."""
    from referee import state_schema

    try:
        state_schema.name(f"Car{char}go", "name")
        referee_takes = True
    except state_schema.SchemaError:
        referee_takes = False
    assert names.allowed(f"Car{char}go") == referee_takes
    assert (names.first_refused(f"Car{char}go") is None) == referee_takes


def test_a_name_validate_accepts_is_played_by_the_referee(tmp_path, monkeypatch):
    """Letters of any script, typographic quotes and symbols stay names: validate takes
    them, and the referee records and prints them as written."""
    from referee.cli import main

    folder = project(tmp_path)
    yaml = folder / "cards.yaml"
    yaml.write_text(yaml.read_text(encoding="utf-8").replace(
        "name: Cargo,", 'name: "Cargo’s ☸ Fracht",').replace(
        "title: Harbour Lights\n", "title: Häfen ☸ Lights\n", 1), encoding="utf-8")
    valid = run(carddb_cli(), ["validate"], folder, monkeypatch)
    assert valid.code == 0, valid.err
    s = ["--session", "s.db"]
    made = run(main, [*s, "new", "harbour", "--players", "Ann,Bob", "--roll", "5,4,2,3"],
               folder, monkeypatch)
    assert made.code == 0 and made.out.startswith("Häfen ☸ Lights: Ann, Bob"), made.err
    token = run(main, [*s, "token", "Ann", "cargo", "+1"], folder, monkeypatch)
    assert token.code == 0 and "Ann Cargo’s ☸ Fracht +1: 3 -> 4" in token.out, token.err


def carddb_cli():
    from pnp.cli.main import main

    return main


def test_validate_escapes_a_bidi_mark_in_what_it_prints(tmp_path, monkeypatch):
    """A refusal quoting a value, and a layout warning naming a card's element, print a
    right-to-left override as `\\u202e`: on a terminal it would reverse the line."""
    folder = project(tmp_path)
    yaml = folder / "cards.yaml"
    yaml.write_text(yaml.read_text(encoding="utf-8").replace(
        "size: poker\n", 'size: "pok\\u202eer"\n', 1), encoding="utf-8")
    done = run(carddb_cli(), ["validate"], folder, monkeypatch)
    assert done.code == 1
    lines = [line for line in done.err.splitlines() if line.startswith("cards.yaml:")]
    assert lines and all(line.isprintable() for line in lines), done.err
    assert any("pok\\u202eer" in line for line in lines), done.err

    from pnp.cli.support import warning_line

    warning = SimpleNamespace(game="harbour", deck="storms", card="Squall", element="rules\u200f",
                              message="cut after 'more \u202ewords\u2066'")
    line = warning_line(warning)
    assert line.isprintable() and "rules\\u200f" in line and "\\u202ewords\\u2066" in line, line


def test_a_refusal_names_the_character_it_cannot_see():
    assert names.first_refused("Car\u00adgo") == "U+00AD SOFT HYPHEN"
    assert names.first_refused("a\x1bb") == "U+001B (a control character)"
    assert names.first_refused("Cargo") is None
    assert names.escaped("a\u200fb\x1b[31m") == "a\\u200fb\\x1b[31m"
    assert unicodedata.category("\u200f") == "Cf"


def test_pnp_list_escapes_a_type_name_it_prints():
    from pnp.cli.listing import render_table

    table = render_table([("harbour", "storms", "Sto\u202erm", 5, 6)])
    assert all(line.isprintable() for line in table.splitlines()), table
    assert "Sto\\u202erm" in table
