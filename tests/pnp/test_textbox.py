"""Text fitting: whatever the text and box, nothing is drawn outside the box."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pnp.draw import textbox
from pnp.draw.markup import parse

words = st.lists(st.one_of(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789-+.,", min_size=1,
            max_size=14),
    st.sampled_from(["**bold**", "*it*", "{mask}", "{mt}", "{icon:energy}", "\n", "\n\n",
                     "Supercalifragilisticexpialidocious"])), min_size=1, max_size=60)


@settings(max_examples=100, deadline=None)
@given(words, st.floats(20, 200), st.floats(8, 120), st.sampled_from([6.0, 9.0, 14.0]),
       st.sampled_from(["left", "center", "right"]),
       st.sampled_from(["top", "middle", "bottom"]))
def test_pieces_stay_inside_the_box(fonts, parts, width, height, size, align, valign):
    from reportlab.pdfbase.pdfmetrics import getAscentDescent

    text = " ".join(parts)
    fitted = textbox.fit(parse(text), fonts, "regular", size, 5.0, width, height, align, valign)
    assert 5.0 <= fitted.size <= size
    ascent, descent = (abs(v) / 1000 for v in getAscentDescent(fonts["regular"]))
    one_line = (ascent + descent) * fitted.size
    for piece in fitted.pieces:
        assert piece.x >= -1e-6
        assert piece.x + piece.width <= width + 1e-6
        if one_line <= height:                  # a box too short for one line is reported
            assert piece.baseline - ascent * fitted.size >= -1e-6
            assert piece.baseline + descent * fitted.size <= height + 1e-6
    if not fitted.overflow:
        assert fitted.height <= height + 1e-6


def test_shrinks_in_quarter_points_to_the_largest_size_that_fits(fonts):
    text = parse("Get +1 to the Success Roll for each Power card you discard this turn.")
    fitted = textbox.fit(text, fonts, "regular", 12, 6, 100, 30)
    assert not fitted.overflow and fitted.size < 12 and (fitted.size * 4) % 1 == 0
    bigger = textbox.fit(text, fonts, "regular", fitted.size + 0.25, fitted.size + 0.25, 100, 30)
    assert bigger.overflow                      # a quarter point more would not fit


def test_characters_the_font_lacks_are_set_in_its_fallback_in_runs_of_their_own(fonts):
    fitted = textbox.fit(parse("go \u2192 **win\u2605** \u65e5"), fonts, "regular", 9, 6, 200, 30)
    runs = [(p.text.strip(), p.font) for p in fitted.pieces]
    assert runs == [("go", fonts["regular"]), ("\u2192", "PnP-fallback-DejaVuSans"),
                    ("win", fonts["bold"]), ("\u2605", "PnP-fallback-DejaVuSans-Bold"),
                    ("\u65e5", fonts["regular"])]    # no font has it: the card font's box
    assert fitted.missing == "\u65e5" and not fitted.overflow
