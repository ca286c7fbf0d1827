"""Print geometry: hand-computed layouts for the real paper sizes, plus properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pnp.layout import geometry as g

POKER = (g.mm(63.5), g.mm(88.9))
BLEED = g.mm(3.175)
TOL = 0.1  # mm


def close(points: float, millimetres: float) -> bool:
    return abs(g.to_mm(points) - millimetres) < TOL


def same(a: g.Rect, b: g.Rect) -> bool:
    return all(abs(u - v) < 1e-6 for u, v in zip((a.x, a.y, a.w, a.h), (b.x, b.y, b.w, b.h), strict=True))


def overlaps(a: g.Rect, b: g.Rect) -> bool:
    eps = 1e-6
    return a.x < b.right - eps and b.x < a.right - eps and a.y < b.top - eps and b.y < a.top - eps


def test_paper_sizes():
    w, h = g.paper_size("letter")
    assert close(w, 215.9) and close(h, 279.4)
    w, h = g.paper_size("A4")
    assert close(w, 210) and close(h, 297)
    assert g.paper_size("a4", landscape=True) == (h, w)
    with pytest.raises(ValueError, match="unknown paper"):
        g.paper_size("legal")


def test_poker_on_letter_keeps_gutters_across_and_abuts_down():
    sheet = g.card_sheet(*g.paper_size("letter"), *POKER, BLEED)
    assert (sheet.cols, sheet.rows) == (3, 3)
    # Across: 3 x 63.5 + 2 gutters of 6.35 = 203.2 on 215.9 -> left edge 6.35 mm.
    assert close(sheet.gutter_x, 6.35) and sheet.gutter_y == 0
    assert [round(g.to_mm(x), 2) for x in sheet.cut_xs] == [6.35, 69.85, 76.2, 139.7, 146.05, 209.55]
    # Down: 3 x 88.9 = 266.7 abutting, centred on 279.4 -> 6.35 mm top and bottom.
    assert [round(g.to_mm(y), 2) for y in sheet.cut_ys] == [6.35, 95.25, 184.15, 273.05]
    top_left, middle, bottom_right = sheet.slots[0], sheet.slots[4], sheet.slots[8]
    assert close(top_left.trim.x, 6.35) and close(top_left.trim.top, 273.05)
    assert close(top_left.trim.w, 63.5) and close(top_left.trim.h, 88.9)
    # Every card keeps its side bleed; only the outer rows keep top/bottom bleed.
    assert top_left.bleed == g.Edges(left=BLEED, right=BLEED, top=BLEED, bottom=0)
    assert middle.bleed == g.Edges(left=BLEED, right=BLEED, top=0, bottom=0)
    assert bottom_right.bleed == g.Edges(left=BLEED, right=BLEED, top=0, bottom=BLEED)


def test_poker_on_a4_abuts_across_and_keeps_gutters_down():
    sheet = g.card_sheet(*g.paper_size("a4"), *POKER, BLEED)
    assert (sheet.cols, sheet.rows) == (3, 3)
    assert sheet.gutter_x == 0 and close(sheet.gutter_y, 6.35)
    assert [round(g.to_mm(x), 2) for x in sheet.cut_xs] == [9.75, 73.25, 136.75, 200.25]
    # 3 x 88.9 + 2 x 6.35 = 279.4 on 297 -> 8.8 mm top and bottom.
    assert [round(g.to_mm(y), 2) for y in sheet.cut_ys] == [
        8.8, 97.7, 104.05, 192.95, 199.3, 288.2]
    assert sheet.slots[4].bleed == g.Edges(left=0, right=0, top=BLEED, bottom=BLEED)


def test_tarot_fits_two_by_two_with_full_bleed():
    sheet = g.card_sheet(*g.paper_size("letter"), g.mm(70), g.mm(120), BLEED)
    assert (sheet.cols, sheet.rows) == (2, 2)
    assert all(s.bleed == g.Edges(BLEED, BLEED, BLEED, BLEED) for s in sheet.slots)


def test_card_too_big_is_refused():
    with pytest.raises(ValueError, match="does not fit"):
        g.card_sheet(*g.paper_size("letter"), g.mm(300), g.mm(90), BLEED)


sizes = st.tuples(st.floats(20, 200), st.floats(20, 280), st.floats(0, 5),
                  st.sampled_from(["letter", "a4"]), st.floats(0, 12),
                  st.sampled_from(g.LAYOUTS))


def _spans(seg: g.Segment) -> g.Rect:
    return g.Rect(min(seg.x0, seg.x1), min(seg.y0, seg.y1), abs(seg.x1 - seg.x0),
                  abs(seg.y1 - seg.y0))


@settings(max_examples=50, deadline=None, derandomize=True)
@given(sizes)
def test_sheet_properties(case):
    w_mm, h_mm, bleed_mm, paper, margin_mm, layout = case
    pw, ph = g.paper_size(paper)
    w, h, b, m = g.mm(w_mm), g.mm(h_mm), g.mm(bleed_mm), g.mm(margin_mm)
    room = g.GUIDE_GAP + g.MIN_GUIDE  # a guide and its gap beside the outer trims
    try:
        sheets = g.sheet_choices(pw, ph, w, h, b, m, layout)
    except ValueError:
        assert w + 2 * (m + room) > pw + 1e-6 or h + 2 * (m + room) > ph + 1e-6
        return
    for sheet in sheets:
        slots = sheet.slots
        p = sheet.printable
        for i, s in enumerate(slots):
            t = s.trim  # every trim prints
            assert t.x >= m - 1e-6 and t.right <= pw - m + 1e-6
            assert t.y >= m - 1e-6 and t.top <= ph - m + 1e-6
            assert abs(t.w - w) < 1e-9 and abs(t.h - h) < 1e-9
            for other in slots[i + 1:]:
                assert not overlaps(s.area, other.area)
        if layout == "gutters":
            assert all(s.bleed == g.Edges(b, b, b, b) for s in slots)
            assert b == 0 or not g.abutting(sheet, sheet.per_sheet)
        for count in {1, sheet.per_sheet, max(1, sheet.per_sheet // 2)}:
            used = slots[:count]
            guides = g.cut_guides(sheet, count)
            # every trim line of every used card has a guide on it, none for empty slots
            on_x = {round(gd.segment.x0, 4) for gd in guides if gd.segment.x0 == gd.segment.x1}
            on_y = {round(gd.segment.y0, 4) for gd in guides if gd.segment.y0 == gd.segment.y1}
            want_x = {round(x, 4) for s in used for x in (s.trim.x, s.trim.right)}
            want_y = {round(y, 4) for s in used for y in (s.trim.y, s.trim.top)}
            near = g.mm(0.001)  # lines closer than this are one cut
            assert all(any(abs(x - o) <= near for o in on_x) for x in want_x)
            assert all(any(abs(y - o) <= near for o in on_y) for y in want_y)
            assert all(any(abs(x - o) <= near for o in want_x) for x in on_x)
            assert all(any(abs(y - o) <= near for o in want_y) for y in on_y)
            for gd in guides:
                seg = _spans(gd.segment)
                assert max(seg.w, seg.h) >= g.MIN_GUIDE - 1e-6
                # printable, and never over a card's trim
                assert seg.x >= p.x - 1e-6 and seg.right <= p.right + 1e-6
                assert seg.y >= p.y - 1e-6 and seg.top <= p.top + 1e-6
                for s in used:
                    t = s.trim
                    assert (seg.right <= t.x + 1e-6 or seg.x >= t.right - 1e-6
                            or seg.top <= t.y + 1e-6 or seg.y >= t.top - 1e-6)
                if gd.kind == "mark":  # crop marks stay off every painted area
                    for s in used:
                        a = s.area
                        assert (seg.right <= a.x + 1e-6 or seg.x >= a.right - 1e-6
                                or seg.top <= a.y + 1e-6 or seg.y >= a.top - 1e-6)
            for label_pt in (6, 12):         # a higher print.min_text_pt: a taller plate
                plate = g.scale_plate(g.free_cells(sheet, count), g.mm(50), label_pt)
                if plate is not None:
                    r = plate.rect
                    assert abs(min(r.w, r.h) - g.scale_plate_height(label_pt)) < 1e-9
                    assert p.x <= r.x and r.right <= p.right and p.y <= r.y and r.top <= p.top
                    for s in used:
                        assert not overlaps(r, s.trim)


def test_auto_layout_offers_abutting_then_full_bleed():
    # Poker on Letter: gutters across cost nothing; down, gutters would cost a row.
    first, second = g.sheet_choices(*g.paper_size("letter"), *POKER, BLEED)
    assert (first.per_sheet, first.gutter_y) == (9, 0)
    assert second.per_sheet == 6 and close(second.gutter_x, 6.35) and close(second.gutter_y, 6.35)
    assert g.abutting(second, 6) == []
    # In a 3 x 3 sheet with rows abutting, each card shares its bottom edge with the one below.
    assert g.abutting(first, 9) == [(i, i + 3, "y") for i in range(6)]
    assert g.abutting(first, 4) == [(0, 3, "y")]
    (only,) = g.sheet_choices(*g.paper_size("letter"), *POKER, BLEED, layout="gutters")
    assert only.per_sheet == 6
    (abut,) = g.sheet_choices(*g.paper_size("letter"), *POKER, BLEED, layout="abut")
    assert abut.gutter_x == 0 and abut.gutter_y == 0 and abut.per_sheet == 9
    with pytest.raises(ValueError, match="unknown layout"):
        g.sheet_choices(*g.paper_size("letter"), *POKER, BLEED, layout="tight")


def test_a_wider_printer_margin_costs_a_row_on_letter():
    # 6.35 mm (many lasers): 3 rows of 88.9 mm leave no room for the vertical guides.
    sheet = g.card_sheet(*g.paper_size("letter"), *POKER, BLEED, margin=g.mm(6.35))
    assert (sheet.cols, sheet.rows) == (3, 2)


def test_guides_on_letter_with_a_5_mm_margin():
    """Hand-computed: trims 6.35 mm from every edge, so the guides of the vertical trim
    lines are the 1.05 mm from the printable edge (5 mm) to 0.3 mm short of the trim;
    the horizontal lines get guides in the two 6.35 mm column gutters too."""
    sheet = g.card_sheet(*g.paper_size("letter"), *POKER, BLEED)
    guides = g.cut_guides(sheet)
    assert all(gd.kind == "bleed" for gd in guides)  # no margin wide enough for marks
    mm_ = [tuple(round(g.to_mm(v), 2) for v in (gd.segment.x0, gd.segment.y0, gd.segment.x1,
                                                gd.segment.y1)) for gd in guides]
    assert (6.35, 6.05, 6.35, 5.0) in mm_ and (6.35, 273.35, 6.35, 274.4) in mm_
    assert (70.15, 95.25, 75.9, 95.25) in mm_  # in the first column gutter
    assert len(guides) == 6 * 2 + 4 * 4


def test_crop_marks_in_a_wide_margin():
    # Tarot on Letter leaves wide margins: classic crop marks beyond the bleed.
    sheet = g.card_sheet(*g.paper_size("letter"), g.mm(70), g.mm(120), BLEED)
    marks = [gd for gd in g.cut_guides(sheet) if gd.kind == "mark"]
    ext = sheet.extent
    assert marks
    for gd in marks:
        s = gd.segment
        if s.x0 == s.x1:
            assert max(s.y0, s.y1) < ext.y or min(s.y0, s.y1) > ext.top
        else:
            assert max(s.x0, s.x1) < ext.x or min(s.x0, s.x1) > ext.right


def test_crop_marks_sit_on_every_trim_line():
    sheet = g.card_sheet(*g.paper_size("letter"), *POKER, BLEED)
    marks = g.crop_marks(sheet)
    vertical = sorted({round(g.to_mm(m.x0), 2) for m in marks if m.x0 == m.x1})
    horizontal = sorted({round(g.to_mm(m.y0), 2) for m in marks if m.y0 == m.y1})
    assert vertical == [round(g.to_mm(x), 2) for x in sheet.cut_xs]
    assert horizontal == [round(g.to_mm(y), 2) for y in sheet.cut_ys]


def test_guides_only_for_slots_holding_a_card():
    sheet = g.card_sheet(*g.paper_size("letter"), *POKER, BLEED)
    two = g.cut_guides(sheet, 2)
    xs = {round(g.to_mm(gd.segment.x0), 2) for gd in two if gd.segment.x0 == gd.segment.x1}
    ys = {round(g.to_mm(gd.segment.y0), 2) for gd in two if gd.segment.y0 == gd.segment.y1}
    assert xs == {6.35, 69.85, 76.2, 139.7} and ys == {184.15, 273.05}
    # below the two cards, where the empty slots are, the marks are crop marks again
    assert any(gd.kind == "mark" for gd in two)


def test_scale_plate_goes_where_no_card_is():
    sheet = g.card_sheet(*g.paper_size("letter"), *POKER, BLEED)
    plate = g.scale_plate(g.free_cells(sheet), g.scale_length("letter")[0])
    # full Letter sheet: only the column gutters are free, so it stands in the first one
    assert plate.vertical and close(plate.rect.x + plate.rect.w / 2, 73.025)
    a4 = g.card_sheet(*g.paper_size("a4"), *POKER, BLEED)
    plate = g.scale_plate(g.free_cells(a4), g.scale_length("a4")[0])
    assert not plate.vertical and close(plate.rect.y + plate.rect.h / 2, (192.95 + 199.3) / 2)



def test_a_taller_label_gets_a_taller_plate_or_another_place():
    # A4 poker leaves a 6.35 mm band between the rows (less 0.5 mm clear each side): the
    # 5 mm plate of a 6 pt label lies in it; the 8.375 mm plate of a 12 pt label cannot, so
    # it stands in a gutter between the columns instead of covering the cards' trims.
    a4 = g.card_sheet(*g.paper_size("a4"), *POKER, BLEED)
    assert close(g.scale_plate_height(6), 5)
    assert close(g.scale_plate_height(12), 5 + g.to_mm(4.5))
    lying = g.scale_plate(g.free_cells(a4), g.scale_length("a4")[0], 6)
    assert not lying.vertical
    tall = g.scale_plate(g.free_cells(a4), g.scale_length("a4")[0], 12)
    assert tall is None or tall.vertical


def test_long_edge_back_mirrors_left_right():
    pw, ph = g.paper_size("letter")
    sheet = g.card_sheet(pw, ph, *POKER, BLEED)
    backs = g.back_slots(sheet, 9, "long-edge")
    for front, back in zip(sheet.slots, backs, strict=True):
        assert abs(back.trim.x - (pw - front.trim.right)) < 1e-9
        assert back.trim.y == front.trim.y
        assert back.bleed.left == front.bleed.right and back.bleed.top == front.bleed.top
        assert back.rotate == 0  # turned over a vertical line: the back stays upright
    # The back of the top-left card is the top-right slot of the back page.
    assert same(backs[0].trim, sheet.slots[2].trim)


def test_short_edge_back_mirrors_top_bottom():
    pw, ph = g.paper_size("a4")
    sheet = g.card_sheet(pw, ph, *POKER, BLEED)
    backs = g.back_slots(sheet, 9, "short-edge")
    for front, back in zip(sheet.slots, backs, strict=True):
        assert back.trim.x == front.trim.x
        assert abs(back.trim.y - (ph - front.trim.top)) < 1e-9
        assert back.bleed.top == front.bleed.bottom
        # Turned over a horizontal line, the card's top comes to the bottom of the back
        # page: drawn turned 180, the back stands upright behind its front.
        assert back.rotate == 180
    assert same(backs[0].trim, sheet.slots[6].trim)


def test_partial_last_sheet_and_offset():
    pw, ph = g.paper_size("letter")
    sheet = g.card_sheet(pw, ph, *POKER, BLEED)
    backs = g.back_slots(sheet, 4, "long-edge", offset=(g.mm(1.5), g.mm(-0.5)))
    assert len(backs) == 4
    # Front slot 3 (row 1, col 0) is backed at row 1, col 2, shifted by the offset.
    expected = sheet.slots[5].trim
    assert close(backs[3].trim.x, g.to_mm(expected.x) + 1.5)
    assert close(backs[3].trim.y, g.to_mm(expected.y) - 0.5)


def test_landscape_page_long_edge_mirrors_y():
    assert g.mirror_axis(100, 200, "long-edge") == "x"
    assert g.mirror_axis(200, 100, "long-edge") == "y"
    assert g.mirror_axis(200, 100, "short-edge") == "x"
    with pytest.raises(ValueError):
        g.mirror_axis(100, 200, "sideways")


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["letter", "a4"]), st.sampled_from(g.DUPLEX_MODES),
       st.floats(-5, 5), st.floats(-5, 5))
def test_duplex_twice_is_identity(paper, duplex, dx, dy):
    pw, ph = g.paper_size(paper)
    sheet = g.card_sheet(pw, ph, *POKER, BLEED)
    for s in sheet.slots:
        back = g.back_slot(s, pw, ph, duplex, (g.mm(dx), g.mm(dy)))
        again = g.back_slot(back, pw, ph, duplex)
        # Mirroring twice returns the front, displaced by the mirrored offset.
        assert abs(abs(again.trim.x - s.trim.x) - abs(g.mm(dx))) < 1e-6
        assert abs(abs(again.trim.y - s.trim.y) - abs(g.mm(dy))) < 1e-6
        assert g.back_slot(back, pw, ph, duplex).bleed == s.bleed


def test_parse_offset():
    assert g.parse_offset("1.5,-0.5") == (1.5, -0.5)
    assert g.parse_offset(" 0 , 2 ") == (0, 2)
    for bad in ("1", "a,b", "1,2,3", "nan,1", ""):
        with pytest.raises(ValueError):
            g.parse_offset(bad)


def test_fold_puts_back_beside_front_on_the_fold_line():
    fold = g.fold_sheet("letter", *POKER, BLEED)
    assert fold.axis == "vertical" and fold.per_sheet == 4
    assert fold.grid.page_w > fold.grid.page_h  # landscape holds 4 pairs, portrait 3
    for pair in fold.pairs:
        f, b = pair.front, pair.back
        assert abs(f.trim.right - b.trim.x) < 1e-9 and f.trim.y == b.trim.y
        assert pair.fold.x0 == f.trim.right
        assert f.bleed.right == 0 and b.bleed.left == 0 and b.rotate == 0
    areas = [s.area for p in fold.pairs for s in (p.front, p.back)]
    for i, a in enumerate(areas):
        assert not any(overlaps(a, o) for o in areas[i + 1:])


def test_fold_horizontal_turns_the_back():
    # A card too wide for two side by side on either orientation folds top/bottom.
    fold = g.fold_sheet("letter", g.mm(140), g.mm(60), BLEED)
    assert fold.axis == "horizontal"
    for pair in fold.pairs:
        assert pair.back.rotate == 180
        assert abs(pair.back.trim.top - pair.front.trim.y) < 1e-9
        assert pair.front.bleed.bottom == 0 and pair.back.bleed.top == 0
    for m in g.fold_marks(fold):
        assert m.y0 == m.y1


@pytest.mark.parametrize("size", [(63.5, 88.9), (140, 60)])
def test_fold_marks_print_and_stay_off_the_pairs(size):
    fold = g.fold_sheet("letter", g.mm(size[0]), g.mm(size[1]), BLEED)
    p = fold.grid.printable
    guides = g.fold_guides(fold)
    folds = {round(pair.fold.x0 if fold.axis == "vertical" else pair.fold.y0, 3)
             for pair in fold.pairs}
    on = {round(gd.segment.x0 if fold.axis == "vertical" else gd.segment.y0, 3)
          for gd in guides}
    assert on == folds  # every fold line is marked
    for gd in guides:
        seg = _spans(gd.segment)
        assert p.x - 1e-6 <= seg.x and seg.right <= p.right + 1e-6
        assert p.y - 1e-6 <= seg.y and seg.top <= p.top + 1e-6
        for unit in fold.grid.slots:
            t = unit.trim
            assert (seg.right <= t.x + 1e-6 or seg.x >= t.right - 1e-6
                    or seg.top <= t.y + 1e-6 or seg.y >= t.top - 1e-6)


def test_tile_plan_covers_the_mat_with_overlap():
    mat_w, mat_h = g.mm(431.8), g.mm(279.4)
    plan = g.tile_plan(mat_w, mat_h, "letter", margin=g.mm(10), overlap=g.mm(10))
    # Landscape letter: 259.4 x 195.9 mm per tile -> 2 x 2 beats 3 x 2 portrait.
    assert (plan.cols, plan.rows) == (2, 2) and plan.page_w > plan.page_h
    assert [t.label for t in plan.tiles] == ["A1", "A2", "B1", "B2"]
    xs = sorted({(t.window.x, t.window.right) for t in plan.tiles})
    ys = sorted({(t.window.y, t.window.top) for t in plan.tiles})
    assert xs[0][0] == 0 and abs(xs[-1][1] - mat_w) < 1e-6
    assert ys[0][0] == 0 and abs(ys[-1][1] - mat_h) < 1e-6
    assert close(xs[0][1] - xs[1][0], 10) and close(ys[0][1] - ys[1][0], 10)
    for t in plan.tiles:
        x, y = t.on_page(t.window.x, t.window.top)
        assert close(x, 10) and close(plan.page_h - y, 10)  # top-left at the margin
        assert t.window.w <= plan.page_w - 2 * plan.margin + 1e-6
        assert t.window.h <= plan.page_h - 2 * plan.margin + 1e-6
    # Every alignment mark is printed on at least two tiles.
    for mx, my in plan.marks:
        assert sum(t.window.contains(mx, my) for t in plan.tiles) >= 2
    assert len(plan.marks) == 5


def test_small_mat_is_one_tile():
    plan = g.tile_plan(g.mm(150), g.mm(100), "a4")
    assert len(plan.tiles) == 1 and plan.marks == ()


def test_item_grid_and_chunks():
    area = g.Rect(0, 0, g.mm(100), g.mm(40))
    grid = g.item_grid(area, g.mm(16), g.mm(16), g.mm(3), max_cols=6)
    # floor((100 + 3) / 19) = 5 columns, floor(43 / 19) = 2 rows
    assert (grid.cols, grid.rows) == (5, 2)
    assert all(area.contains(c.x, c.y) and area.contains(c.right, c.top) for c in grid.cells)
    with pytest.raises(ValueError):
        g.item_grid(area, g.mm(120), g.mm(16), 0)
    assert list(g.chunks(range(7), 3)) == [[0, 1, 2], [3, 4, 5], [6]]
