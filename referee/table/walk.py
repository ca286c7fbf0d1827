"""The walk of a declared game (the table kit) in `referee play`, its entry in the game
contract (referee/games.py `TABLE_KIT`): `question(state, ctx, answered)` is what play
asks next, `context(db, state)` the game as cards.yaml declares it (`kit.TableGame`), and
`names(state, ctx)` what Tab completes: players, cards, tokens, dice and decks."""

from __future__ import annotations

from typing import Any

from referee.play.walk import Question


def context(db: Any, state: dict) -> Any:
    from referee.table.kit import TableGame

    game = str(state.get("game"))
    return TableGame.from_db(db, game) if game in db.games else None


def question(state: dict, ctx: Any, answered: set) -> Question | None:
    """The turn of the declared phases: any of the kit's commands, Enter passes on."""
    if state.get("over"):
        return None
    turn = state["turn"]
    phase = f", {turn['phase']}" if turn.get("phase") else ""
    return Question(f"{turn['player']}'s turn{phase} (roll, token, draw, ...; Enter: next) >",
                    ["next"], None)


def names(state: dict, ctx: Any) -> list[str]:
    """The players, then the game's cards, tokens (ids and names), dice and decks."""
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
