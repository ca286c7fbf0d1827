"""The fast element parser must read everything exactly as PyYAML does."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pnp.draw import fastyaml


def pyyaml(text):
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def test_every_bundled_template_output_parses_like_pyyaml(db, renderer):
    from pnp.draw.render import template_slug

    simple = 0
    for game in db.games.values():
        for deck in game.decks.values():
            for card in deck.cards:
                context = {**renderer.front_context(card, deck), "W": 63.5, "H": 88.9,
                           "BLEED": 3.175, "SAFE": 3.175, "MIN_PT": 6.0,
                           "INK_SAVER": False}
                name = f"{game.id}/{template_slug(card.type)}.j2"
                text = renderer.templates.get(name).render(context)
                assert fastyaml.load(text) == pyyaml(text)
                try:
                    fastyaml._load_simple(text)
                    simple += 1
                except fastyaml._NotSimple:
                    pass
    assert simple > 0.9 * sum(len(d.cards) for g in db.games.values() for d in g.decks.values())


@pytest.mark.parametrize("text", [
    "- a: {b: yes, c: on, d: ~, e: null, f: 0o17, g: 017, h: 1_000, i: 1:20, j: .5, k: -.5}\n",
    "- a: {b: 'single', c: \"x\\ty\", d: 1e3, e: 1.0e+3, f: 2001-12-14, g: =, h: <<}\n",
    "- a: {b: c # comment\n    , d: 1}\n",
    "- a: {b: \"two\n\n  lines\"}\n",
    "- on: {a: 1}\n",
    "- a: {b: FEAT (FCV), c: [1, -2, 3.5, x y], d: {e: \"f\"}, g: [], h: {}}\n",
    "- a: {b: [1,\n      2], c: &x 1, d: *x}\n",
    "# comment\n- a: {b: 1}\n\n- c: {d: 2}\n",
    "- a: {b: #fff}\n",
    "- a:\n    b: 1\n",
    "",
    "# only a comment\n",
    "- a: {b: 1, b: 2}\n",
    # a no-break space is text to YAML (Python's strip() would drop it): found by hypothesis
    "- rect: {_: 0\u00a0}\n",
    "- rect: {_: \"a\u00a0b\", x: 1}\n",
    "- rect: {a: 0}\u00a0\n",
    "- rect: {a:\u00a0x}\n",
    "- rect: {a: 0}\n  \u2003\n",
    # characters PyYAML refuses or breaks lines at, in a value, a comment or a blank line
    # (fastyaml looks for them only in lines that are not printable)
    "- a: {b: \"x\u0085y\"}\n",
    "- a: {b: \"x\u2028y\", c: 1}\n",
    "# a c\u2028omment\n- a: {b: 1}\n",
    # a blank line with a tab: PyYAML refuses it (fastyaml read it, before issue 36)
    "- a: {b: 1}\n\t\n- c: {d: 2}\n",
    "- a: {b: 1}\n  \t\n",
    "\t\n- a: {b: 1}\n",
    "- a: {b: \"\ufeffx\"}\n",
    "- a: {b: \"x\ty\"}\n",
    "- a: {b: 1}\n  \x07\n",
])
def test_tricky_yaml_matches_pyyaml(text):
    try:
        expected = pyyaml(text)
    except yaml.YAMLError:
        with pytest.raises(yaml.YAMLError):
            fastyaml.load(text)
        return
    assert fastyaml.load(text) == expected


scalars = st.one_of(
    st.text(max_size=12), st.integers(-10**6, 10**6), st.booleans(), st.none(),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from(["center", "bold", "FEAT (FCV)", "yes", "No", "0x1f", "012", "1:30",
                     "-.5", ".5", "1.", "x-y", "a b", "~", "#abc", "'q'", "-", "?x"]),
)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(
    st.sampled_from(["rect", "text", "badge"]),
    st.dictionaries(st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=6),
                    st.one_of(scalars, st.lists(scalars, max_size=4)), max_size=5),
    st.booleans()), min_size=1, max_size=4))
def test_random_element_lists_match_pyyaml(elements):
    lines = []
    for kind, params, raw in elements:
        def fmt(v, raw=raw):
            if isinstance(v, list):
                return "[" + ", ".join(fmt(x) for x in v) + "]"
            if raw and isinstance(v, str):
                return v                        # bare words, as a designer might type
            return json.dumps(v, ensure_ascii=False)
        body = ", ".join(f"{k}: {fmt(v)}" for k, v in params.items())
        lines.append(f"- {kind}: {{{body}}}")
    text = "\n".join(lines) + "\n"
    try:
        expected = pyyaml(text)
    except yaml.YAMLError:
        with pytest.raises(yaml.YAMLError):
            fastyaml.load(text)
        return
    assert fastyaml.load(text) == expected
