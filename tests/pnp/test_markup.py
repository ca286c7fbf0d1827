"""Card text markup: styles, icons, breaks, and that nothing else is interpreted."""

from __future__ import annotations

import pytest

from pnp.draw.markup import Icon, MarkupError, Span, parse, plain_text


def runs(text):
    """The single paragraph's single line."""
    (paragraph,) = parse(text)
    (line,) = paragraph
    return line


def test_bold_and_italic_spans():
    assert runs("a **b** *c* ***d***") == [
        Span("a "), Span("b", bold=True), Span(" "), Span("c", italic=True), Span(" "),
        Span("d", bold=True, italic=True),
    ]


def test_html_like_text_prints_as_itself():
    assert runs("Tom & Jerry <b>x</b> &amp; <font>") == [Span("Tom & Jerry <b>x</b> &amp; <font>")]


def test_unmatched_markers_print_literally():
    assert runs("5 * 3 = 15") == [Span("5 * 3 = 15")]
    assert runs("**bold** and a lone **") == [Span("bold", bold=True), Span(" and a lone **")]


def test_backslash_escapes_markers_and_braces():
    assert runs(r"\*not italic\* \{mask}") == [Span("*not italic* {mask}")]


def test_inline_icons():
    assert runs("Gain 2{mt} and {ft}, roll {mask} {icon:energy}") == [
        Span("Gain 2"), Icon("mt"), Span(" and "), Icon("ft"), Span(", roll "), Icon("mask"),
        Span(" "), Icon("energy"),
    ]


def test_unknown_icon_is_an_error_naming_it():
    with pytest.raises(MarkupError, match="icon:enrgy"):
        parse("{icon:enrgy}")


def test_other_braces_print_literally():
    assert runs("{note} {MT}") == [Span("{note} {MT}")]


def test_line_breaks_and_paragraphs():
    paragraphs = parse("one\ntwo\n\nthree")
    assert paragraphs == [[[Span("one")], [Span("two")]], [[Span("three")]]]


def test_styles_do_not_leak_across_paragraphs():
    paragraphs = parse("*open\n\nnext")
    assert paragraphs[1] == [[Span("next")]]


def test_empty_text_has_no_paragraphs():
    assert parse("") == []
    assert parse("\n\n") == []


def test_plain_text_drops_markup_and_icons():
    assert plain_text("**Event:** gain 2{mt}\nnow") == "Event: gain 2 now"
    assert plain_text("roll {mask}", icons=True) == "roll [mask]"


def test_validate_accepts_exactly_the_icons_the_printer_draws():
    """`pnp validate` checks `{icon:NAME}` against carddb's list; the renderer draws
    pnp.draw.icons'. Equal lists: validate neither passes a text the build refuses nor
    refuses one the build prints."""
    from carddb.vocab import MARKUP_ICONS
    from pnp.draw.icons import ICON_NAMES

    assert set(MARKUP_ICONS) == ICON_NAMES
