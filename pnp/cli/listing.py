"""The `pnp list` table: games, decks, card types and counts."""

from __future__ import annotations

from collections import Counter

HEADERS = ("game", "deck", "type", "designs", "cards")


def deck_rows(db, game_id: str | None = None) -> list[tuple]:
    """One row per (game, deck, card type): distinct designs and physical cards."""
    rows = []
    for gid, game in db.games.items():
        if game_id not in (None, gid):
            continue
        for did, deck in game.decks.items():
            designs = Counter(c.type for c in deck.cards)
            copies: Counter[str] = Counter()
            for card in deck.cards:
                copies[card.type] += card.copies
            for ctype in designs:
                rows.append((gid, did, ctype, designs[ctype], copies[ctype]))
    return rows


def render_table(rows: list[tuple]) -> str:
    total = ("total", "", "", sum(r[3] for r in rows), sum(r[4] for r in rows))
    from pnp.errors import one_line

    table = [HEADERS, *[tuple(v if isinstance(v, int) else one_line(str(v)) for v in r)
                        for r in rows], total]  # a type name's bidi mark shown escaped
    widths = [max(len(str(r[i])) for r in table) for i in range(len(HEADERS))]
    lines = []
    for n, row in enumerate(table):
        cells = [str(v).rjust(w) if isinstance(v, int) else str(v).ljust(w) for v, w in zip(row, widths, strict=True)]
        lines.append("  ".join(cells).rstrip())
        if n == 0 or n == len(table) - 2:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)
