"""Fuzz (issue 16): a valid database with one value, key or field mutated is either
refused by validation with located one-line problems, or accepted, and then `pnp build`
builds it. What validate accepts, build must build.

Bounded to stay fast: the small test database, mutations in the parts one small build
reads (the print profile, card sizes, X-Statix settings, tokens, reference and its two
small decks), a fixed number of derandomised examples, each built into two artefacts."""

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

HOSTILE = st.one_of(
    st.sampled_from([None, True, 0, -1, 1, 7.0, 1e308, -1e308, math.nan, math.inf, -math.inf,
                     "", "../../../escaped", "/abs/path", "a\0b", "#3060c0{", "#fff", "x" * 300,
                     "Hero\nfake.yaml:1:1: injected", "\x07", [], [1], {}, {"a": 1}, 10**30,
                     [0.001, 0.001], [63.5, 88.9], "poker", "letter", "{icon:nope}", "**"]),
    st.integers(min_value=-10**12, max_value=10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
)
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


def _build(db, out: Path) -> None:
    from pnp.artefacts import build as b
    from pnp.draw.fonts import register_fonts
    from pnp.draw.render import CardRenderer

    opts = b.options_from_profile(db.print)
    fonts = register_fonts(db.print.fonts, db.root)
    renderer = CardRenderer(db, fonts)
    todo = b.artefacts(db, game="x-statix")
    decks = [a for a in todo if a.kind == b.DECK and a.deck in SMALL_DECKS][:1]
    others = [a for a in todo if a.kind in (b.TOKENS, b.REFERENCE)][:1]
    for art in decks + others or todo[:1]:
        written = b.build_artefact(db, art, opts, renderer, fonts, out)
        assert written.path.is_file() and written.pages >= 1


@settings(max_examples=30, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(target=st.sampled_from(TARGETS), how=st.sampled_from(["set", "set", "rename", "delete"]),
       value=HOSTILE)
def test_mutated_database_is_refused_in_one_line_or_built(target, how, value):
    import carddb

    data = _mutate(copy.deepcopy(BASE), target, how, value)
    with tempfile.TemporaryDirectory(prefix="i16-fuzz-") as tmp:
        folder = Path(tmp)
        (folder / "cards.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False),
                                           encoding="utf-8")
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
            _build(db, folder / "out")
        finally:
            os.chdir(cwd)
