"""Symbol dice of a designer's own game (issue 21): cards.yaml accepts number, symbol and
{symbol, icon, value} faces in one die or several named dice; the exact odds of each
face's count and of the numeric sum (referee.table.pools) match an `itertools.product` enumeration; `referee
odds "N DIE"` and `referee roll N DIE` read the project's die."""

from __future__ import annotations

import itertools
import json
import textwrap
from collections import Counter
from fractions import Fraction

import pytest

from carddb.dice import Face, dice_of
from referee.errors import DiceError
from referee.table import dice, pools

STORM = {"storm": {"faces": ["wind", "wind", "wave", "wave", "calm", 2], "per_player": 3}}
SUN = {"sun": {"faces": [{"symbol": "sun", "icon": "energy", "value": 1}, "moon", 3, 3, "moon",
                         {"symbol": "sun", "icon": "energy", "value": 1}], "per_player": 2}}


def die(spec):
    return next(iter(dice_of({"dice": spec}).values()))


def enumerate_faces(d, n):
    for faces in itertools.product(d.faces, repeat=n):
        yield faces, Fraction(1, len(d.faces) ** n)


@pytest.mark.parametrize("spec", [STORM, SUN])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_exact_odds_match_an_enumeration(spec, n):
    """Each face's count and the numeric sum of `n` of a designer's dice (symbol, number
    and {symbol, icon, value} faces), through the pools model the odds and rolls use."""
    d = die(spec)
    pool = pools.Pool(((n, d),))
    for term in (*d.symbols, pools.SUM):
        outcome = pools.Outcome(((1, term),))
        expected: Counter = Counter()
        for faces, p in enumerate_faces(d, n):
            expected[sum(f.value or 0 if term == pools.SUM else f.key == term for f in faces)] += p
        dist = pools.distribution(pool, outcome)
        assert {v: p for v, p in dist.fractions().items() if p} == dict(expected)
        for k in range(n + 2):
            assert dist.at_least(k) == sum((p for v, p in expected.items() if v >= k), Fraction(0))


def test_a_die_of_symbols_only_has_no_numeric_sum():
    d = die({"dice4": {"faces": ["a", "b", "c"], "per_player": 1}})
    assert not pools.Pool(((2, d),)).numeric
    assert dice.summary([d.faces[0]], d)["sum"] is None


def test_faces_from_the_table_are_checked_against_the_die():
    d = die(STORM)
    assert [f.key for f in dice.parse_entered("Wind calm,2", d)] == ["wind", "calm", "2"]
    with pytest.raises(DiceError) as err:
        dice.parse_entered("wind,fire", d)
    assert str(err.value) == ("--roll 'wind,fire': face 'fire' at column 6 is not a face of the "
                              "storm die (faces wind, wave, calm, 2)")


def test_an_icon_face_prints_its_icon_and_counts_its_symbol_and_value():
    d = die(SUN)
    sun = d.face("SUN")
    assert sun == Face("sun", "energy", 1) and sun.label == "energy" and sun.key == "sun"
    assert d.face("3").label == "3" and d.face("moon").label == "moon"
    assert dice.summary([sun, sun, d.face("3")], d) == {"faces": ["sun", "sun", "3"],
                                                          "counts": {"sun": 2}, "sum": 5}


# ── cards.yaml ─────────────────────────────────────────────────────────────────
BASE = """\
version: 1
card_sizes: {poker: [63.5, 88.9]}
games:
  isle:
    title: Isle
    players: {min: 2, max: 4}
    types: {Tile: {fields: {}}}
    decks:
      tiles: {title: Tiles, size: poker, back: {title: Isle}, cards: [{name: Reef, type: Tile}]}
"""


def load(tmp_path, extra: str):
    import carddb

    path = tmp_path / "cards.yaml"
    path.write_text(BASE + textwrap.indent(textwrap.dedent(extra), "    "))
    return carddb.load(path)


def problems(tmp_path, extra: str) -> list[str]:
    import carddb

    try:
        load(tmp_path, extra)
    except carddb.DatabaseError as error:
        return [str(p) for p in error.problems]
    return []


def test_cards_yaml_takes_symbol_faces_and_named_dice(tmp_path):
    db = load(tmp_path, """\
        dice:
          storm: {faces: [wind, wind, wave, wave, calm, 2], per_player: 3}
          sun: {faces: [{symbol: sun, icon: energy, value: 1}, moon, 3], per_player: 1, color: "#ffcc00"}
        tokens:
          shell: {label: "1", name: Shell, count: 30, start: 2d6, per: player, diameter_mm: 20}
        phases: [Draw, Act]
        """)
    found = dice_of(db.games["isle"].extras)
    assert list(found) == ["storm", "sun"] and found["sun"].sets[0].color == "#ffcc00"
    assert found["storm"].symbols == ("wind", "wave", "calm", "2")


def test_the_one_die_form_takes_symbols_too(tmp_path):
    db = load(tmp_path, "dice: {faces: [fire, water, 1, 2], per_player: 2}\n")
    only = dice_of(db.games["isle"].extras, "Isle")
    assert list(only) == ["dice"] and only["dice"].symbols == ("fire", "water", "1", "2")


@pytest.mark.parametrize("extra, says", [
    ('dice: {storm: {faces: [wind, "2"], per_player: 1}}', "is a number in quotes"),
    ("dice: {storm: {faces: [wind, 'a b'], per_player: 1}}", "is not a symbol word"),
    ("dice: {storm: {faces: [wind], per_player: 1}}", "at least 2"),
    ("dice: {storm: {faces: [wind, calm], per_player: 0}}", "must be at least 1"),
    ("dice: {Storm!: {faces: [wind, calm], per_player: 1}}", "is not a lower-case word"),
    ("dice: {storm: {faces: [{symbol: sun, value: 1}, {symbol: sun, value: 2}], per_player: 1}}",
     "declared twice"),
    ("dice: {sun: {faces: [{symbol: sun, icon: star}, moon], per_player: 1}}", "unknown icon 'star'"),
    ("tokens: {shell: {label: a, name: S, count: 3, start: 2x6, diameter_mm: 20}}",
     "dice like 2d6"),
    ("tokens: {shell: {label: a, name: S, count: 3, per: team, diameter_mm: 20}}", "per"),
])
def test_bad_dice_and_tokens_are_one_located_problem(tmp_path, extra, says):
    found = problems(tmp_path, extra + "\n")
    assert len(found) == 1 and says in found[0], found
    assert "cards.yaml:10:" in found[0]  # located: file, line, column


# ── the CLI, without a session ──────────────────────────────────────────────────
@pytest.fixture
def own_project(tmp_path):
    load(tmp_path, "dice:\n  storm: {faces: [wind, wind, wave, wave, calm, 2], per_player: 3}\n")
    from tests.harness import run_cli

    def run(*args, code=0):
        result = run_cli("referee", *args, cwd=tmp_path)
        assert result.returncode == code, result.stdout + result.stderr
        return result

    return run


def test_odds_of_a_symbol_die_as_text_and_json(own_project):
    out = own_project("odds", "3 storm", "--at-least", "2", "wind").stdout.splitlines()
    assert out[0] == "3 storm (wind, wave, calm, 2):"
    assert out[1] == "  P(at least 2 wind) = 7/27 = 25.93%"
    assert "  calm: 0: 125/216, 1: 25/72, 2: 5/72, 3: 1/216" in out
    data = json.loads(own_project("odds", "2 storm", "--json").stdout)
    assert data["counts"]["wind"] == {"0": {"fraction": "4/9", "value": 4 / 9},
                                      "1": {"fraction": "4/9", "value": 4 / 9},
                                      "2": {"fraction": "1/9", "value": 1 / 9}}
    assert data["sum"]["4"]["fraction"] == "1/36"
    line = own_project("odds", "3 storm", "--at-least", "1", "fire", code=2).stderr.strip()
    assert line == "referee: the storm die has no face 'fire' (faces wind, wave, calm, 2)"


def test_roll_names_a_die_of_the_project_without_a_session(own_project):
    out = own_project("roll", "2", "storm", "--roll", "calm,2").stdout.strip()
    assert out == "2 storm: calm 2  (1 calm, sum 2)  (faces from the table)"
    data = json.loads(own_project("roll", "3", "storm", "--seed", "4", "--json").stdout)
    assert len(data["faces"]) == 3 and set(data["faces"]) <= {"wind", "wave", "calm", "2"}
    err = own_project("roll", "2", "storm", "--roll", "calm,sun", code=2).stderr.strip()
    assert err.endswith("'sun' at column 6 is not a face of the storm die (faces wind, wave, calm, 2)")
    # a plain number is still dice notation (XO!'s mask dice) without a session of the game
    assert "White Mask" in own_project("roll", "2").stdout


def test_a_label_prints_a_faces_icon_instead_of_its_symbol(tmp_path):
    """The starter's die-face.j2 on a die with an icon face: the icon is drawn, so the
    symbol is not in the label's text; the other faces print their symbol or number."""
    from tests.harness import run_cli
    from tests.pdftext import words

    project = tmp_path / "isle"
    assert run_cli("pnp", "init", str(project)).returncode == 0
    cards = project / "cards.yaml"
    text = cards.read_text().replace("faces: [wind, wind, wave, wave, calm, 2]",
                                     "faces: [{symbol: sun, icon: energy, value: 1}, moon, 3]")
    text = text.replace("outcome: wind - wave", "outcome: sun - moon")  # its roll's symbols
    cards.write_text(text)
    done = run_cli("pnp", "build", "--only", "dice-labels", "--project", str(project))
    assert done.returncode == 0, done.stderr
    text = words(project / "output" / "harbour" / "dice-labels.pdf", [0])
    assert text.split().count("moon") >= 3 and text.split().count("3") >= 3
    assert "sun" not in text  # the energy icon is drawn in its place
