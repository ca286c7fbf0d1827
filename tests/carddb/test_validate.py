"""`pnp validate`: every kind of mistake yields one FILE:LINE:COL: path: message line
pointing at the YAML that is wrong, and exit status 1; a valid database passes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

# Mistakes are made in a fixed small database, so content edits to the bundled one
# never move the targets of these tests.
FIXTURE = Path(__file__).resolve().parents[1] / "data" / "minimal-cards.yaml"

# (id, regex on the fixture, replacement, token whose position is reported, message)
# The replacement is applied to the first match only; the expected line and column are
# those of `token` in the mutated text, searched from the start of the replacement.
CASES = [
    ("unknown-field", r"copies: 5", "copeis: 5", "copeis", "unknown field 'copeis' (did you mean 'copies'?)"),
    ("wrong-type", r"\{modify: carnage, by: -1\}", "{modify: carnage, by: lots}", "lots",
     "expected an integer, got text"),
    ("missing-field", r"\{name: Anarchist, type: Hero, ", "{name: Anarchist, ", "{name: Anarchist",
     "missing field 'type'"),
    # A misspelt `type` key: the card's fields cannot be checked, but the typo is named.
    ("misspelt-type-key", r"\{name: Anarchist, type: Hero, ", "{name: Anarchist, tpye: Hero, ", "tpye",
     "unknown field 'tpye' (did you mean 'type'?)"),
    ("unknown-inline-icon", r"text: \"Get -1 to Carnage Rolls\"", r'text: "Get -1 {icon:enrgy} to Carnage Rolls"',
     '"Get -1 {icon:enrgy}', "text: unknown icon {icon:enrgy} (did you mean 'energy'?)"),
    # A deck whose `cards:` holds nothing, or an empty list: loading crashed on the first,
    # the build wrote a PDF of no pages for the second.
    ("deck-cards-null", r"(team-names:\n(?:.*\n){3}\s+cards:)\n(?:\s+- .*\n)+", r"\1 ~\n", "~",
     "team-names.cards: expected a list of cards, got nothing"),
    ("deck-cards-empty", r"(team-names:\n(?:.*\n){3}\s+cards:)\n(?:\s+- .*\n)+", r"\1 []\n", "[]",
     "team-names.cards: a deck needs at least one card"),
    ("duplicate-name", r"name: Dead Girl,", "name: Anarchist,", "Anarchist", "duplicate card name 'Anarchist'"),
    ("unknown-card-type", r"name: Ocelot, type: Hero", "name: Ocelot, type: Heor", "Heor",
     "'Heor' is not a card type of x-statix (did you mean 'Hero'?)"),
    ("unknown-effect-verb", r"event: \[\{reroll: carnage\}\]", "event: [{rerol: carnage}]", "rerol",
     "unknown effect 'rerol' (did you mean 'reroll'?)"),
    ("unknown-roll", r"\{modify: payoff, by: 2\}", "{modify: payof, by: 2}", "payof",
     "'payof' is not one of"),
    ("effect-extra-parameter", r"event: \[\{draw: 2\}", "event: [{draw: 2, by: 1}", "by", "'draw' takes no parameter 'by'"),
    ("copies-zero", r"copies: 5", "copies: 0", "0", "must be at least 1, got 0"),
    ("unknown-size", r"size: poker", "size: pokerr", "pokerr", "unknown card size 'pokerr' (did you mean 'poker'?)"),
    ("bad-paper", r"paper: letter", "paper: legal", "legal", "'legal' is not one of letter, a4"),
    # issue 12: a text floor below 4 pt (or a word for a number) is no floor at all
    ("min-text-too-small", r"(paper: letter.*\n)", r"\1  min_text_pt: 2.5\n", "2.5",
     "print.min_text_pt: must be at least 4, got 2.5"),
    ("min-text-not-a-number", r"(paper: letter.*\n)", r"\1  min_text_pt: small\n", "small",
     "print.min_text_pt: expected a number of points, got text"),
    # issue 12: the printer's unprintable band, and the sheet layout
    ("printer-margin-negative", r"crop_marks: true", "crop_marks: true\n  printer_margin_mm: -1",
     "-1", "print.printer_margin_mm: must be at least 0, got -1"),
    ("printer-margin-huge", r"crop_marks: true", "crop_marks: true\n  printer_margin_mm: 40",
     "40", "print.printer_margin_mm: must be at most 25, got 40"),
    ("printer-margin-text", r"crop_marks: true", "crop_marks: true\n  printer_margin_mm: wide",
     "wide", "print.printer_margin_mm: expected a number of mm from 0 to 25, got text"),
    ("bad-layout", r"crop_marks: true", "crop_marks: true\n  layout: tight", "tight",
     "'tight' is not one of auto, gutters, abut"),
    ("missing-version", r"version: 1\n", "", "\n", "missing field 'version'"),
    ("escaping-image", r"\{name: Phat, type: Hero,", "{name: Phat, image: ../../etc/passwd, type: Hero,",
     "../../etc/passwd", "escapes the project folder"),
    ("missing-image", r"\{name: Phat, type: Hero,", "{name: Phat, image: art/phat.png, type: Hero,",
     "art/phat.png", "image file 'art/phat.png' not found"),
    ("duplicate-key", r"\{name: Lacuna, type: Hero,", "{name: Lacuna, type: Hero, type: Power,",
     "type: Power", "cards[8].type: duplicate key 'type'"),
    ("mask-faces", r"faces: \[0, 1, 1, 2, 2, 3\]", "faces: [0, 1, 1, 2, 2, 4]", "[0, 1, 1, 2, 2, 4]",
     "XO-1: a mask die has the faces 0, 1, 1, 2, 2, 3"),
    ("dangling-action", r"(actions: \[)[^,\]]+", r"\1No Such Action", "No Such Action",
     "no Action card named 'No Such Action'"),
    ("impossible-fcv", r"fcv: \d+", "fcv: 99", "99", "FCV 99 is impossible"),
    ("unknown-status", r"attack_effect: (?!optional )\w[\w ]*?(?=[,}\n])", "attack_effect: Confused", "Confused",
     "no Status card named 'Confused'"),
    ("bad-icon", r"superpower: \w+", "superpower: lasers", "lasers", "'lasers' is not one of energy"),
    ("players-type", r"players: \{min: 2, max: 3\}", "players: {min: two, max: 3}", "two",
     "expected a whole number >= 1, got text"),
]


def mutate(tmp_path: Path, pattern: str, replacement: str, token: str) -> tuple[Path, int, int]:
    text = FIXTURE.read_text(encoding="utf-8")
    match = re.search(pattern, text)
    assert match, f"pattern {pattern!r} not in {FIXTURE.name}"
    new = match.expand(replacement)
    mutated = text[:match.start()] + new + text[match.end():]
    at = mutated.index(token, match.start()) if token.strip() else match.start()
    line = mutated.count("\n", 0, at) + 1
    col = at - (mutated.rfind("\n", 0, at) + 1) + 1
    path = tmp_path / "cards.yaml"
    path.write_text(mutated, encoding="utf-8")
    return path, line, col


def test_valid_database_passes(cli):
    """The small test database. The bundled one is validated whole, a game at a time, by
    `pnp validate` of each `pnp init --example` copy (tests/pnp/test_any_game.py:
    test_pnp_init_example_copies_one_bundled_game, one case per bundled game, its header
    and the game's block and templates as bundled) and loaded whole, both games in one
    file, by tests/carddb/test_model.py: a `pnp validate` of it here planned and measured
    every face a second time in the suite."""
    result = cli("pnp", "validate", str(FIXTURE))
    assert result.returncode == 0, result.stderr
    assert "valid" in result.stdout


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_mistake_is_reported_at_its_line(cli, tmp_path, case):
    _id, pattern, replacement, token, message = case
    path, line, col = mutate(tmp_path, pattern, replacement, token)
    result = cli("pnp", "validate", "cards.yaml", cwd=tmp_path)
    assert result.returncode == 1
    problems = result.stderr.splitlines()[:-1]
    assert problems, result.stderr
    assert "Traceback" not in result.stderr
    hits = [p for p in problems if message in p]
    assert hits, result.stderr
    if token.strip():
        assert hits[0].startswith(f"cards.yaml:{line}:{col}: "), (hits[0], line, col)
    assert result.stderr.splitlines()[-1].endswith("found")


def test_every_problem_is_reported_not_just_the_first(cli, tmp_path):
    text = FIXTURE.read_text(encoding="utf-8")
    text = text.replace("{name: Ocelot, type: Hero", "{name: Ocelot, type: Heor", 1)
    text = text.replace("{modify: payoff, by: 2}", "{modify: payoff, by: two}", 1)
    (tmp_path / "cards.yaml").write_text(text, encoding="utf-8")
    result = cli("pnp", "validate", "cards.yaml", cwd=tmp_path)
    assert result.returncode == 1
    assert len(result.stderr.splitlines()) == 3  # two problems and the count
    assert "2 problems found" in result.stderr


@pytest.mark.parametrize("content,message", [
    (b"", "the file is empty"),
    (b"# only a comment\n", "the file is empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00binary", "not a text file"),
    (b"games: [unclosed\nversion: 1\n", "YAML syntax"),
    (b"version: 1\ngames: !!python/object/apply:os.system ['echo pwned']\n", "could not determine a constructor"),
    (b"just a sentence, not a mapping\n", "expected a mapping with 'version' and 'games'"),
    (b"\xff\xfe not utf-8", "not UTF-8"),
])
def test_unreadable_files_get_one_line_errors(cli, tmp_path, content, message):
    (tmp_path / "cards.yaml").write_bytes(content)
    result = cli("pnp", "validate", "cards.yaml", cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith("cards.yaml:") and message in lines[0], result.stderr
    assert "pwned" not in result.stdout


def test_yaml_syntax_error_points_at_the_line(cli, tmp_path):
    (tmp_path / "cards.yaml").write_text("version: 1\ngames:\n  xo: {title: [oops}\n")
    result = cli("pnp", "validate", "cards.yaml", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("cards.yaml:3:")


def test_missing_file_is_one_line(cli, tmp_path):
    result = cli("pnp", "validate", "nope.yaml", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == "nope.yaml:1:1: (file): cannot read: No such file or directory"


def test_anchors_and_merge_keys_are_allowed(tmp_path):
    import carddb

    text = FIXTURE.read_text(encoding="utf-8").replace(
        "        back: {title: X-Statix, subtitle: Common Deck}",
        "        back: &xsback {title: X-Statix, subtitle: Common Deck}", 1).replace(
        "        back: {title: X-Statix, subtitle: Owner}",
        "        back: {<<: *xsback, subtitle: Owner}", 1)
    (tmp_path / "cards.yaml").write_text(text, encoding="utf-8")
    db = carddb.load(tmp_path / "cards.yaml")
    assert db.games["x-statix"].decks["owners"].back == {"title": "X-Statix", "subtitle": "Owner"}
