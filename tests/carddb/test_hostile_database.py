"""A card database is shared like a document, so it is untrusted input (issue 16): every
value `pnp build` would refuse is refused by validation first, every limit of
carddb/limits.py is refused with a located one-line error, and no input makes
validation hang, exhaust memory or print a traceback."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.carddb.bounded import Command, run_bounded
from tests.pnp.hostile_support import Run

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "minimal-cards.yaml"


def _problems(tmp_path: Path, text: str) -> list[str]:
    import carddb

    path = tmp_path / "cards.yaml"
    path.write_text(text, encoding="utf-8")
    from pnp.artefacts.kinds import reserved_deck_ids

    try:
        carddb.load(path, reserved=reserved_deck_ids())   # as pnp loads it
    except carddb.DatabaseError as exc:
        return [str(p) for p in exc.problems]
    return []


def _at(text: str, token: str, start: int = 0) -> str:
    at = text.index(token, start)
    return f"{text.count(chr(10), 0, at) + 1}:{at - (text.rfind(chr(10), 0, at) + 1) + 1}"


# (id, old text (first occurrence), new text, token reported, message)
CASES = [
    # Deck ids become file names (build, export, proof): a safe slug, nothing else.
    ("deck-id-dotdot", "      common:", "      ../../../escaped-deck:", "../../../escaped-deck",
     "a deck id becomes a file name"),
    ("deck-id-absolute", "      common:", "      /tmp/escaped-deck:", "/tmp/escaped-deck",
     "a deck id becomes a file name"),
    ("deck-id-integer", "      common:", "      12:", "12:", "got an integer"),
    ("deck-id-empty", "      common:", '      "":', '"":', "got ''"),
    ("deck-id-nul", "      common:", '      "a\\0b":', '"a', "a deck id becomes a file name"),
    ("deck-id-artefact", "      common:", "      tokens:", "tokens:",
     "'tokens' is the name of another artefact"),
    ("decks-text", "    decks:\n      common:", "    decks: oops\n    old:\n      common:", "oops",
     "decks: expected a mapping of deck ids to decks, got text"),
    ("decks-list", "    decks:\n      common:", "    decks: [1]\n    old:\n      common:", "[1]",
     "decks: expected a mapping of deck ids to decks, got a list"),
    # Values validate accepted and build refused.
    ("colour-brace", 'primary: "#d7262e"', 'primary: "#3060c0{"', '"#3060c0{"',
     "expected a colour #rrggbb (or #rgb), got '#3060c0{'"),
    ("colour-token", 'color: "#e0b000"', 'color: "red-ish"', '"red-ish"', "expected a colour"),
    ("chapters-float", "chapters: 7", "chapters: 7.0", "7.0", "'7.0' is not one of 7"),
    ("version-float", "version: 1", "version: 1.0", "1.0", "'1.0' is not one of 1"),
    ("offset-nan", "back_offset_mm: [0, 0]", "back_offset_mm: [.nan, 0]", ".nan", "not a finite number"),
    ("diameter-inf", "diameter_mm: 22", "diameter_mm: .inf", ".inf", "not a finite number"),
    ("bleed-huge", "bleed_mm: 3.175", "bleed_mm: 1e308", "1e308", "a bleed in mm from 0 to 10"),
    # Limits (carddb/limits.py).
    ("copies-huge", "copies: 5", "copies: " + "1" + "0" * 30, "1000", "must be at most 1000"),
    ("copies-4300-digits", "copies: 5", "copies: " + "9" * 5000, "9999",
     "an integer of 5000 characters is longer than the limit of 40"),
    ("tokens-billion", "count: 80", "count: 1000000000", "1000000000", "must be at most 1000"),
    ("card-size-tiny", "poker: [63.5, 88.9]", "poker: [0.001, 0.001]", "0.001", "expected a size in mm from 10 to 280, got 0.001"),
    ("card-size-too-big", "size: poker", "size: [200, 270]", "[200, 270]",
     "does not fit on letter paper"),
    ("die-label-huge", "die_label_mm: 16", "die_label_mm: 100000", "100000", "a label size in mm"),
    ("text-huge", 'text: "Get -1 to Carnage Rolls"', 'text: "' + "word " * 5000 + '"', '"word',
     "longer than the limit of 20000"),
    # Field names: YAML reads a bare `on`/`yes`/`no` key as true/false, `1` as a number
    # (found by tests/pnp/test_fuzz_database.py: a traceback in validation).
    ("field-name-on", "          superpower: {type: enum", "          on: optional int\n"
     "          superpower: {type: enum", "on:", "a field's name is text (YAML reads it as "
     "true/false: quote it)"),
    ("record-field-name-1", "fields: {carnage: optional int,", "fields: {1: optional int, "
     "carnage: optional int,", "1: optional", "a field's name is text"),
    # Messages: values are shown escaped and bounded, so they cannot forge a line.
    ("injected-line", "type: Hero,", 'type: "Hero\\nfake.yaml:1:1: injected",', '"Hero',
     "'Hero\\nfake.yaml:1:1: injected' is not a card type"),
    ("control-character", "title: X-Statix turn summary", "title: X-Statix \x07 turn summary", "\x07",
     "control character U+0007 is not allowed"),
    ("image-nul", "{name: Phat, type: Hero,", '{name: Phat, image: "a\\0b.png", type: Hero,', '"a\\0b',
     "is not a usable file name"),
    ("image-5000-chars", "{name: Phat, type: Hero,", "{name: Phat, image: " + "a" * 5000 + ".png, type: Hero,",
     "aaaa", "is not a usable file name"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_refused_with_a_located_one_line_problem(tmp_path, case):
    _id, old, new, token, message = case
    base = FIXTURE.read_text(encoding="utf-8")
    assert old in base, old
    text = base.replace(old, new, 1)
    problems = _problems(tmp_path, text)
    hits = [p for p in problems if message in p]
    assert hits, problems
    assert all("\n" not in p and "\r" not in p for p in problems)
    assert hits[0].startswith(f"{os.path.relpath(tmp_path / 'cards.yaml')}:{_at(text, token, base.index(old))}: "), \
        hits[0]
    assert len(hits[0]) < 400


def _bomb(levels: int, fan: int = 10) -> str:
    lines = ["l0: &l0 [" + ", ".join(["x"] * fan) + "]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * fan) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name,text,message", [
    ("alias-bomb", "version: 1\ngames: {}\nbomb:\n" + "".join("  " + ln + "\n" for ln in _bomb(9).splitlines()),
     "more than 500,000 values once aliases are expanded"),
    # A rejected value is no longer formatted with str(): a bomb under a wrong key is cheap.
    ("alias-bomb-in-a-wrong-value", _bomb(5) + "version: *l4\ngames: {}\n", "'a list' is not one of 1"),
    ("recursive-alias", "version: 1\ngames: &g {x: *g}\n", "a value that contains itself"),
    ("nesting-490", "version: 1\ngames: " + "[" * 490 + "]" * 490 + "\n", "nested more than 64 levels"),
    ("nesting-100000", "version: 1\ngames: " + "[" * 100_000 + "]" * 100_000 + "\n",
     "nested more than 64 levels"),
    ("block-nesting", "version: 1\ngames:\n" + "".join("  " * i + "- \n" for i in range(1, 200)),
     "nested more than 64 levels"),
], ids=lambda v: v if isinstance(v, str) and len(v) < 40 else "")
def test_unbounded_yaml_is_refused_quickly(tmp_path, name, text, message):
    import time

    started = time.process_time()   # CPU, not the machine's load
    problems = _problems(tmp_path, text)
    assert time.process_time() - started < 2
    hits = [p for p in problems if message in p]
    assert hits, problems
    assert re.match(r"[^:]+:\d+:\d+: ", hits[0]) and "\n" not in hits[0]


def _fifo(folder: Path) -> None:
    os.mkfifo(folder / "cards.yaml")


def _oversized(folder: Path) -> None:
    with (folder / "cards.yaml").open("w") as f:
        f.write("version: 1\ngames: {}\nfiller:\n")
        line = "  - " + "x" * 95 + "\n"
        f.write(line * (5 * 1024 * 1024 // len(line)))


def _alias_bomb_900_bytes(folder: Path) -> None:
    # The reproduction: 11 s and 2.9 GB in `pnp validate` before.
    text = _bomb(9) + "version: *l8\ngames: {}\n"
    assert len(text) < 1200
    (folder / "cards.yaml").write_text(text)


# (name, what is made in its folder, the database `pnp validate` is given)
LIMITED = [("dev-zero", _fifo, "/dev/zero"), ("fifo", _fifo, "cards.yaml"),
           ("oversized", _oversized, "cards.yaml"), ("alias-bomb", _alias_bomb_900_bytes,
                                                     "cards.yaml")]


@pytest.fixture(scope="module")
def limited(tmp_path_factory) -> dict[str, Run]:
    """`pnp validate` of each hostile file under memory and CPU limits: a blow-up fails,
    not the machine, and a hang is killed by the timeout. One bounded process runs them
    all, each measured on its own (tests/carddb/bounded.py): a process each cost more
    than the commands."""
    commands = []
    for name, make, target in LIMITED:
        folder = tmp_path_factory.mktemp(name)
        make(folder)
        commands.append(Command(("validate", target), folder, folder))
    runs = run_bounded(commands, tmp_path_factory.mktemp("bounded"), max_mb=700, timeout=60)
    return {name: run for (name, _, _), run in zip(LIMITED, runs, strict=True)}


def _bounded(run: Run, mb: float, seconds: float = 20) -> None:   # CPU seconds
    assert run.cpu < seconds, run.cpu
    assert run.max_rss_mb < mb, run.max_rss_mb


@pytest.mark.parametrize("name", ["dev-zero", "fifo"])
def test_dev_zero_fifo_and_folder_are_refused_without_hanging(limited, name):
    result = limited[name]
    assert result.returncode == 1, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and "cannot read: not a regular file" in lines[0], result.stderr
    _bounded(result, mb=700)


def test_oversized_database_is_refused_before_parsing(limited):
    result = limited["oversized"]
    assert result.returncode == 1
    assert "more than the limit of 4,194,304" in result.stderr.splitlines()[0]
    _bounded(result, mb=400)


def test_900_byte_alias_bomb_under_resource_limits(limited):
    result = limited["alias-bomb"]
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "alias" in result.stderr.splitlines()[0]
    _bounded(result, mb=500)


def test_paper_sizes_agree_with_the_printer():
    from carddb import limits
    from pnp.layout import geometry

    assert limits.PAPER_MM == geometry.PAPERS_MM
    assert limits.GUIDE_ROOM_MM == pytest.approx((geometry.GUIDE_GAP + geometry.MIN_GUIDE)
                                                 / geometry.PT_PER_MM)


@pytest.mark.parametrize("limit,value,message", [
    ("MAX_CARDS", 5, "card designs, more than the limit of 5"),
    ("MAX_DECK_CARDS", 10, "cards (copies counted), more than the limit of 10 in one deck"),
    ("MAX_PAGES", 2, "cards print on 4 pages, more than the limit of 2 for one deck"),
])
def test_card_count_limits(tmp_path, monkeypatch, limit, value, message):
    # The real limits (20,000 designs, 100,000 cards a deck) take a 3 MB file to reach;
    # the check is the same at a lower limit.
    from carddb import limits

    monkeypatch.setattr(limits, limit, value)
    problems = _problems(tmp_path, FIXTURE.read_text(encoding="utf-8"))
    hits = [p for p in problems if message in p]
    assert hits and re.match(r"[^:]+:\d+:\d+: games", hits[0]), problems


@pytest.mark.parametrize("paper", ["letter", "a4"])
def test_pages_are_counted_as_the_printer_lays_cards_out(paper):
    import itertools

    from carddb import limits
    from pnp.layout import geometry as g

    for w, h, bleed, margin in itertools.product([10, 44, 63.5, 70, 88.9, 120, 200],
                                                 [10, 63.5, 88.9, 120, 270], [0, 3.175, 10],
                                                 [0, 5, 6.35, 25]):
        try:
            printed = g.card_sheet(*g.paper_size(paper), g.mm(w), g.mm(h), g.mm(bleed),
                                   g.mm(margin)).per_sheet
        except ValueError:
            printed = 0
        assert limits.cards_per_sheet((w, h), paper, margin) == printed, (w, h, bleed, margin)
