"""The designer's preview sheet of `pnp preview`: one card of each type (front and back,
bleed shown), the mats, the reference card, die labels and tokens of a game, as PDF and
optionally PNG. `every_card` draws every card instead of one per type. The trim line is
drawn in thin cyan so the bleed shows.
"""

from __future__ import annotations

from pathlib import Path

from pnp.draw.render import MM, CardRenderer, LayoutWarning

GAP = 8 * MM
LABEL = 5 * MM


def preview(db, fonts, game_id: str, out_pdf: Path, every_card: bool = False,
            bleed_mm: float = 3.175) -> list[LayoutWarning]:
    from reportlab.pdfgen.canvas import Canvas

    renderer = CardRenderer(db, fonts)
    game = db.games[game_id]
    bleed = bleed_mm * MM
    picks = []
    seen: set[str] = set()
    for deck in game.decks.values():
        for card in deck.cards:
            if every_card or card.type not in seen:
                seen.add(card.type)
                picks.append((card, deck))
    cols = 6
    cw = max(d.size_mm[0] for d in game.decks.values()) * MM + 2 * bleed
    ch = max(d.size_mm[1] for d in game.decks.values()) * MM + 2 * bleed
    cells = []
    for card, deck in picks:
        cells.append(("front", card, deck))
        if not every_card:
            cells.append(("back", card, deck))
    rows = (len(cells) + cols - 1) // cols
    page_w = GAP + cols * (cw + GAP)
    page_h = GAP + rows * (ch + GAP + LABEL)
    out_pdf.parent.mkdir(parents=True, exist_ok=True)
    c = Canvas(str(out_pdf), pagesize=(page_w, page_h), invariant=1)
    c.setTitle(f"{game.title} proof")
    warnings: list[LayoutWarning] = []
    for i, (side, card, deck) in enumerate(cells):
        col, row = i % cols, i // cols
        x0 = GAP + col * (cw + GAP)
        y0 = page_h - (row + 1) * (ch + GAP + LABEL)
        w, h = deck.size_mm[0] * MM, deck.size_mm[1] * MM
        x, y = x0 + bleed, y0 + bleed
        c.setFillColorRGB(0.4, 0.4, 0.4)
        c.setFont(fonts["regular"], 7)
        c.drawString(x0, y0 + ch + 2 * MM, f"{card.type} ({side})" if not every_card
                     else card.type)
        if side == "front":
            warnings += renderer.draw_front(c, card, deck, x, y, w, h, bleed)
        else:
            warnings += renderer.draw_back(c, deck, x, y, w, h, bleed)
        c.setStrokeColorRGB(0, 0.75, 0.85)
        c.setLineWidth(0.3)
        c.rect(x, y, w, h)
    c.showPage()
    warnings += _extras_page(c, renderer, game, fonts)
    c.save()
    return warnings


def _extras_page(c, renderer, game, fonts) -> list[LayoutWarning]:
    """Mats (scaled down), reference card, die labels, tokens."""
    warnings: list[LayoutWarning] = []
    page_w, page_h = 600 * MM, 420 * MM
    c.setPageSize((page_w, page_h))
    y_top = page_h - GAP
    for mat_id, mat in (game.extras.get("mats") or {}).items():
        mw, mh = mat["size_mm"]
        scale = min(1.0, 280 / mw)
        w, h = mw * MM * scale, mh * MM * scale
        x = GAP if mat_id == next(iter(game.extras["mats"])) else 2 * GAP + 280 * MM
        warnings += renderer.draw_mat(c, game.id, mat_id, x, y_top - h, w, h)
    if game.extras.get("mats"):
        y_top -= 200 * MM
    if game.extras.get("reference"):
        w, h = 4 * 25.4 * MM, 6 * 25.4 * MM
        warnings += renderer.draw_reference(c, game.id, GAP, y_top - h, w, h)
        c.setStrokeColorRGB(0, 0.75, 0.85)
        c.rect(GAP, y_top - h, w, h)
    x = GAP + 4 * 25.4 * MM + GAP
    from carddb.dice import dice_of

    size = 16 * MM
    rows = [(die_set.id, die) for die in dice_of(game.extras, game.title,
                                                 game.extras.get("colors")).values()
            for die_set in die.sets]
    for r, (set_id, die) in enumerate(rows):
        for i, face in enumerate(die.faces):
            value = face.value if face.symbol is None else face.key
            warnings += renderer.draw_die_face(c, game.id, set_id, value,
                                               x + i * (size + 3 * MM),
                                               y_top - (r + 1) * (size + 3 * MM), size, face=face)
    for i, (token_id, token) in enumerate((game.extras.get("tokens") or {}).items()):
        radius = token["diameter_mm"] / 2 * MM
        warnings += renderer.draw_token(c, game.id, token_id, x + radius + i * (2 * radius + GAP),
                                        y_top - 2 * (16 + 3) * MM - GAP - radius, radius)
    c.showPage()
    return warnings


def to_png(pdf: Path, scale: float = 2.0) -> list[Path]:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(pdf))
    out = []
    for i in range(len(document)):
        png = pdf.with_name(f"{pdf.stem}-{i + 1}.png")
        document[i].render(scale=scale).to_pil().save(png)
        out.append(png)
    document.close()
    return out
