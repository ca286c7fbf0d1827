"""The table kit's entry in the game contract for `referee play` (referee/games.py
`TABLE_KIT`), beside its walk (referee/table/walk.py: `question`): `context(db, state)`,
the game as cards.yaml declares it (`kit.TableGame`), which the walk's questions read,
and `names(state, ctx)`, what Tab completes: players, cards, tokens, dice and decks."""

from __future__ import annotations

from typing import Any


def context(db: Any, state: dict) -> Any:
    from referee.table.kit import TableGame

    game = str(state.get("game"))
    return TableGame.from_db(db, game) if game in db.games else None


def names(state: dict, ctx: Any) -> list[str]:
    """The players, then the game's cards, tokens (names, then ids), dice and decks."""
    found: list[str] = [str(p) for p in state.get("players", [])]
    if ctx is not None:
        found += list(ctx.cards)
        for kind in ctx.tokens.values():
            found += [kind.name, kind.id]
        found += list(ctx.dice)
        found += list(ctx.decks)
    once: dict[str, str] = {}
    for name in found:  # `cargo` and `Cargo` are one word to type
        once.setdefault(name.casefold(), name)
    return list(once.values())
