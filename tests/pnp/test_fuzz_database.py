"""Fuzz (issue 16): a valid database with one value, key or field mutated is either
refused by validation with located one-line problems, or accepted, and then `pnp build`
builds it. What validate accepts, build must build.

Bounded to stay fast: the small test database, mutations in the parts one small build
reads (the print profile, card sizes, X-Statix settings, tokens, reference and its two
small decks), a fixed number of derandomised examples, each built into two artefacts.
The XO! game's parts (its characters, statuses, objectives and resources: their decks and
card types; dice, mats, colours, reference) are mutated by a second test, each example
built into the artefacts that read the part mutated."""

from __future__ import annotations

import copy
import math
import os
import re
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "minimal-cards.yaml"
BASE = yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))
SMALL_DECKS = ("owners", "team-names")


def _paths(node, prefix=()):
    """Every mapping key and list item under `node`: (path, is a mapping key)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield prefix + (key,)
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield prefix + (i,)
            yield from _paths(value, prefix + (i,))


def _in_scope(path) -> bool:
    if path[:1] in (("print",), ("card_sizes",)):
        return True
    if path[:2] != ("games", "x-statix") or len(path) < 3:
        return False
    if path[2] == "decks":
        return len(path) == 3 or path[3] in SMALL_DECKS
    return True


TARGETS = [p for p in _paths(BASE) if _in_scope(p)]

XO_DECKS = ("heroes-characters", "villains-characters", "statuses", "objectives", "resources")
XO_TYPES = ("Character", "Status", "Objective", "Resource")
XO_PARTS = ("dice", "mats", "colors", "reference")


def _in_xo_scope(path) -> bool:
    if path[:2] != ("games", "xo") or len(path) < 3:
        return False
    if path[2] in ("decks", "types"):
        return len(path) == 3 or path[3] in (XO_DECKS if path[2] == "decks" else XO_TYPES)
    return path[2] in XO_PARTS


XO_TARGETS = [p for p in _paths(BASE) if _in_xo_scope(p)]
# A part first, then a path in it: the objectives deck alone holds a third of the paths.
XO_PARTS_OF = {}
for _path in XO_TARGETS:
    XO_PARTS_OF.setdefault(_path[2:4] if _path[2] == "decks" else _path[2:3], []).append(_path)
XO_TARGET = st.sampled_from(sorted(XO_PARTS_OF)).flatmap(lambda part: st.sampled_from(XO_PARTS_OF[part]))

HOSTILE = st.one_of(
    st.sampled_from([None, True, 0, -1, 1, 7.0, 1e308, -1e308, math.nan, math.inf, -math.inf,
                     "", "../../../escaped", "/abs/path", "a\0b", "#3060c0{", "#fff", "x" * 300,
                     "Hero\nfake.yaml:1:1: injected", "\x07", [], [1], {}, {"a": 1}, 10**30,
                     [0.001, 0.001], [63.5, 88.9], "poker", "letter", "{icon:nope}", "**"]),
    st.integers(min_value=-10**12, max_value=10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
)
# libyaml's emitter where PyYAML has it: each example's data written as the same YAML (for
# the base database, the very text safe_dump writes) without the pure-Python emitter,
# which took most of an example's CPU.
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
LOCATED = re.compile(r"cards\.yaml:\d+:\d+: \S[^\n\r]*\Z")


def _mutate(data, path, how, value):
    node = data
    for step in path[:-1]:
        node = node[step]
    last = path[-1]
    if how == "delete":
        del node[last]
    elif how == "rename" and isinstance(node, dict):
        renamed = {}
        for k, v in node.items():
            renamed[value if k == last and isinstance(value, str | int) else k] = v
        node.clear()
        node.update(renamed)
    else:
        node[last] = value
    return data


def _build(db, out: Path, game: str = "x-statix", target=()) -> None:
    from pnp.artefacts import build as b
    from pnp.draw.fonts import register_fonts
    from pnp.draw.render import CardRenderer

    opts = b.options_from_profile(db.print)
    fonts = register_fonts(db.print.fonts, db.root)
    renderer = CardRenderer(db, fonts)
    todo = b.artefacts(db, game=game)
    if game == "xo":
        chosen = _xo_artefacts(b, db, target, todo)
    else:
        decks = [a for a in todo if a.kind == "deck" and a.deck in SMALL_DECKS][:1]
        others = [a for a in todo if a.kind in ("tokens", "reference")][:1]
        chosen = decks + others
    for art in chosen or todo[:1]:
        written = b.build_artefact(db, art, opts, renderer, fonts, out)
        assert written.path.is_file() and written.pages >= 1


def _xo_artefacts(b, db, target, todo) -> list:
    """The XO! artefacts that read the part `target` mutated: its deck (a renamed deck
    too), the decks of its card type, the dice labels, the mats (full size and tiled),
    the reference; for the colours, the Status cards."""
    part, name = target[2], target[3] if len(target) > 3 else None
    kinds = {"dice": ("dice-labels",), "mats": ("mats", "mats-tiled"), "reference": ("reference",)}
    if part in kinds:
        return [a for a in todo if a.kind in kinds[part]]
    if part == "types" and name is not None:
        decks = {card.deck for card in db.games["xo"].cards() if card.type == name}
    elif part == "decks" and name is not None:
        decks = {name} | {d for d in db.games["xo"].decks if d not in BASE["games"]["xo"]["decks"]}
    else:
        decks = {"statuses"}
    return [a for a in todo if a.kind == "deck" and a.deck in decks][:2]


def _validate_then_build(data, game: str = "x-statix", target=()) -> None:
    """cards.yaml holding `data`: refused by carddb.load with located one-line problems,
    or loaded and then built (`_build`)."""
    import carddb

    with tempfile.TemporaryDirectory(prefix="i16-fuzz-") as tmp:
        folder = Path(tmp)
        (folder / "cards.yaml").write_text(yaml.dump(data, Dumper=DUMPER, allow_unicode=True,
                                                     sort_keys=False), encoding="utf-8")
        cwd = os.getcwd()
        os.chdir(folder)
        try:
            try:
                db = carddb.load("cards.yaml")
            except carddb.DatabaseError as exc:
                assert exc.problems
                for problem in exc.problems:
                    assert LOCATED.match(str(problem)), str(problem)
                return
            _build(db, folder / "out", game, target)
        finally:
            os.chdir(cwd)


@settings(max_examples=30, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(target=st.sampled_from(TARGETS), how=st.sampled_from(["set", "set", "rename", "delete"]),
       value=HOSTILE)
def test_mutated_database_is_refused_in_one_line_or_built(target, how, value):
    _validate_then_build(_mutate(copy.deepcopy(BASE), target, how, value))


@settings(max_examples=16, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(target=XO_TARGET, how=st.sampled_from(["set", "set", "rename", "delete"]),
       value=HOSTILE)
def test_mutated_xo_database_is_refused_in_one_line_or_built(target, how, value):
    _validate_then_build(_mutate(copy.deepcopy(BASE), target, how, value), "xo", target)
