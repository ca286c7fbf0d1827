"""The sandboxed template environment: values are quoted YAML, errors are one line
naming the template file and line, templates cannot reach Python internals."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pnp.draw.templates import TemplateError, Templates


def templates_in(tmp_path, **files) -> Templates:
    folder = tmp_path / "templates"
    for name, text in files.items():
        path = folder / "g" / f"{name}.j2"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return Templates([folder], display_root=tmp_path)


ONE_TEXT = "- text: {box: [0, 0, 10, 10], text: {{ value }}}\n"


@pytest.fixture(scope="module")
def one_text(tmp_path_factory):
    return templates_in(tmp_path_factory.mktemp("t"), card=ONE_TEXT)


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.text(), st.integers(), st.booleans(), st.none(),
                 st.lists(st.text(max_size=5), max_size=3),
                 st.dictionaries(st.text(max_size=5), st.integers(), max_size=3)))
def test_every_value_round_trips_through_yaml(one_text, value):
    (element,) = one_text.render("g/card.j2", {"value": value}, "test")
    assert element["text"]["text"] == value


def test_constant_expressions_are_quoted_too(tmp_path):
    t = templates_in(tmp_path, card='- text: {text: {{ "a: b # c" }}, n: {{ (-2) | signed }}}\n')
    assert t.render("g/card.j2", {}, "test") == [{"text": {"text": "a: b # c", "n": "-2"}}]


def test_floats_are_written_as_numbers(tmp_path):
    t = templates_in(tmp_path, card="- rect: {box: [{{ a }}, {{ b }}, {{ c }}, 1]}\n")
    (element,) = t.render("g/card.j2", {"a": 1e-7, "b": 2.5, "c": 10 / 3}, "test")
    assert element["rect"]["box"][:3] == [0, 2.5, 3.3333]


def test_macros_emit_elements_unquoted(tmp_path):
    t = templates_in(
        tmp_path,
        parts='{% macro box(t) %}- text: {box: [0, 0, 1, 1], text: {{ t }}}\n{% endmacro %}',
        card='{% import "g/parts.j2" as parts %}{{ parts.box("a: b") }}',
    )
    assert t.render("g/card.j2", {}, "test") == [{"text": {"box": [0, 0, 1, 1], "text": "a: b"}}]


def test_filters_for_designers(tmp_path):
    t = templates_in(tmp_path, card=(
        "- a: {{ (-2) | signed }}\n- b: {{ 3 | signed }}\n- c: {{ 'energy' | icon }}\n"
        "- d: {{ powers | pairs('{icon:%s} **%s**', ' / ') }}\n- e: {{ 'a*b{c}' | literal }}\n"))
    out = t.render("g/card.j2", {"powers": {"energy": 3, "mind": 1}}, "test")
    assert out == [{"a": "-2"}, {"b": "+3"}, {"c": "{icon:energy}"},
                   {"d": "{icon:energy} **3** / {icon:mind} **1**"}, {"e": "a\\*b\\{c\\}"}]


def test_tint_mixes_a_colour_over_a_base(tmp_path):
    t = templates_in(tmp_path, card=(
        "- a: {{ '#d7262e' | tint(1) }}\n- b: {{ '#d7262e' | tint(0) }}\n"
        "- c: {{ '#000000' | tint(0.5) }}\n- d: {{ '#ffffff' | tint(0.5, '#000') }}\n"))
    assert t.render("g/card.j2", {}, "x") == [{"a": "#d7262e"}, {"b": "#ffffff"},
                                               {"c": "#808080"}, {"d": "#808080"}]
    bad = templates_in(tmp_path / "bad", card="- a: {{ 'red' | tint(0.5) }}\n")
    with pytest.raises(TemplateError, match="not a #rrggbb colour"):
        bad.render("g/card.j2", {}, "x")


def test_syntax_error_is_one_line_with_file_and_line(tmp_path):
    t = templates_in(tmp_path, card="- rect: {box: [0, 0, 1, 1]}\n{% if x %}\n- oops\n{% endfor %}\n")
    with pytest.raises(TemplateError) as info:
        t.render("g/card.j2", {"x": 1}, "card 'A'")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("templates/g/card.j2:4:")
    assert "syntax error" in message


def test_syntax_error_in_an_imported_template_names_that_file(tmp_path):
    t = templates_in(tmp_path, parts="{% macro m() %}\n{{ 1 + }}\n{% endmacro %}",
                     card='{% import "g/parts.j2" as p %}{{ p.m() }}')
    with pytest.raises(TemplateError, match=r"^templates/g/parts\.j2:2: template syntax error"):
        t.render("g/card.j2", {}, "card 'A'")


def test_undefined_field_names_file_line_field_and_card(tmp_path):
    t = templates_in(tmp_path, card="- rect: {box: [0, 0, 1, 1]}\n- text: {text: {{ card.atack }}}\n")
    with pytest.raises(TemplateError) as info:
        t.render("g/card.j2", {"card": {"attack": 3}}, "card 'Captain Volt'")
    message = str(info.value)
    assert message.startswith("templates/g/card.j2:2: ")
    assert "atack" in message and "card 'Captain Volt'" in message
    assert "\n" not in message


@pytest.mark.parametrize("expression", [
    "card.__class__",
    "''.__class__.__mro__[1].__subclasses__()",
    "card.update({'name': 'hacked'})",
    "card.items.__self__",
    "range.__globals__",
    "lipsum.__globals__['os']",
    "cycler.__init__.__globals__",
])
def test_sandbox_blocks_python_internals_and_mutation(tmp_path, expression):
    t = templates_in(tmp_path, card="- x: {{ " + expression + " }}\n")
    card = {"name": "Anarchist"}
    with pytest.raises(TemplateError):
        t.render("g/card.j2", {"card": card}, "card 'Anarchist'")
    assert card == {"name": "Anarchist"}


def test_templates_cannot_include_files_outside_the_templates_folder(tmp_path):
    (tmp_path / "secret.txt").write_text("- secret: 1\n")
    t = templates_in(tmp_path, card='{% include "../secret.txt" %}')
    with pytest.raises(TemplateError, match="not found|missing"):
        t.render("g/card.j2", {}, "card 'A'")


def test_invalid_yaml_output_is_reported_with_the_output_line(tmp_path):
    t = templates_in(tmp_path, card='- text: {box: [0, 0, 1, 1], text: "{{ name }}"}\n')
    with pytest.raises(TemplateError) as info:
        t.render("g/card.j2", {"name": "Anarchist"}, "card 'Anarchist'")
    message = str(info.value)
    assert message.startswith("templates/g/card.j2: output is not valid YAML at output line 1")
    assert "already quoted" in message and "\n" not in message


def test_output_must_be_a_list(tmp_path):
    t = templates_in(tmp_path, card="rect: {box: [0, 0, 1, 1]}\n")
    with pytest.raises(TemplateError, match="must be a YAML list"):
        t.render("g/card.j2", {}, "card 'A'")


def test_missing_template(tmp_path):
    t = templates_in(tmp_path)
    with pytest.raises(TemplateError, match=r"templates/g/nope\.j2: template not found"):
        t.render("g/nope.j2", {}, "card 'A'")


def test_project_templates_override_bundled_ones(tmp_path):
    project = tmp_path / "project"
    bundled = tmp_path / "bundled"
    for folder, text in ((project, "- a: 1\n"), (bundled, "- a: 2\n")):
        (folder / "g").mkdir(parents=True)
        (folder / "g" / "card.j2").write_text(text)
    (bundled / "g" / "other.j2").write_text("- b: 3\n")
    t = Templates([project, bundled])
    assert t.render("g/card.j2", {}, "x") == [{"a": 1}]
    assert t.render("g/other.j2", {}, "x") == [{"b": 3}]


def test_compiled_templates_are_kept_on_disk_and_follow_their_source(tmp_path, monkeypatch):
    """A second run reads the compiled template from the cache folder; an edited
    template is compiled again (Jinja compares the source's checksum), never stale."""
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    first = templates_in(tmp_path, card=ONE_TEXT)
    assert first.render("g/card.j2", {"value": "a"}, "test") == [
        {"text": {"box": [0, 0, 10, 10], "text": "a"}}]
    (entry,) = (tmp_path / "cache").glob("templates-*/__jinja2_*.cache")
    compiled = entry.read_bytes()
    again = templates_in(tmp_path, card=ONE_TEXT)
    assert again.render("g/card.j2", {"value": "b"}, "test")[0]["text"]["text"] == "b"
    assert entry.read_bytes() == compiled
    edited = templates_in(tmp_path, card="- text: {box: [1, 1, 5, 5], text: {{ value }}}\n")
    assert edited.render("g/card.j2", {"value": "c"}, "test") == [
        {"text": {"box": [1, 1, 5, 5], "text": "c"}}]
    assert entry.read_bytes() != compiled


def test_a_template_compiled_once_serves_another_folder_and_its_errors_name_that_folder(
        tmp_path):
    """A process compiles a template once (pnp.draw.templates._compiled): another project
    with the same template, or the next build of `pnp watch`, takes the code, writes its
    own cache entry, and its errors still name its own file and line."""
    text = "- rect: {box: [0, 0, 1, 1]}\n- text: {text: {{ card.atack }}}\n"

    def project(folder: str, templates: str) -> Templates:
        path = tmp_path / folder / templates / "g" / "card.j2"
        path.parent.mkdir(parents=True)
        path.write_text(text)
        return Templates([path.parent.parent], display_root=tmp_path / folder)

    first = project("a", "one")
    with pytest.raises(TemplateError, match=r"^one/g/card\.j2:2: .*atack"):
        first.render("g/card.j2", {"card": {"attack": 3}}, "card 'A'")
    second = project("b", "two")
    compiled: list[str] = []
    second.env.compile = lambda *args, **kw: compiled.append(args[1])  # type: ignore
    with pytest.raises(TemplateError, match=r"^two/g/card\.j2:2: .*atack"):
        second.render("g/card.j2", {"card": {"attack": 3}}, "card 'B'")
    assert compiled == []
    assert second.render("g/card.j2", {"card": {"atack": 3}}, "card 'B'")[1] == {
        "text": {"text": 3}}


def test_an_unusable_template_cache_only_means_compiling_again(tmp_path, monkeypatch):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv("PNP_CACHE_DIR", str(blocked))
    t = templates_in(tmp_path, card=ONE_TEXT)
    assert t.render("g/card.j2", {"value": 1}, "test")[0]["text"]["text"] == 1
    monkeypatch.setenv("PNP_CACHE_DIR", "off")
    assert templates_in(tmp_path, card=ONE_TEXT).env.bytecode_cache is None


def test_plain_safe_values_as_the_pattern_says():
    """`_plain_safe` (str methods first, the pattern only for what they leave) answers as
    the _PLAIN_SAFE pattern does, and `_yaml_value` escapes what _YAML_UNPRINTABLE
    finds, for every character alone and inside text (a value that needs no escaping
    is written between quotes as it is)."""
    import json
    import re

    from pnp.draw import templates as t

    plain = re.compile(t._PLAIN_SAFE)
    unprintable = re.compile(t._YAML_UNPRINTABLE)
    for code in [*range(0x3000), *range(0xd700, 0x10000), 0x10000, 0x1f600, 0x10fffd]:
        for value in (chr(code), f"a{chr(code)}b", f"’ {chr(code)}"):
            assert t._plain_safe(value) == (plain.match(value) is not None), hex(code)
            expected = unprintable.sub(lambda m: f"\\u{ord(m.group()):04x}",
                                       json.dumps(value, ensure_ascii=False))
            assert t._yaml_value(value) == expected, hex(code)
