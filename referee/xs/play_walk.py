"""X-Statix's entry in the game contract for `referee new` and `referee play`
(referee/games.py): the options of `new`, the walk's questions (referee/play/walk.py:
`xs_question`), the card context they read, and what Tab completes."""

from __future__ import annotations

from typing import Any

import click


def _pairs(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> dict:
    """`--owner Ann=Coach` -> {"Ann": "Coach"} (one line for a malformed one)."""
    option = param.opts[0]
    result = {}
    for value in values:
        player, sep, card = value.partition("=")
        if not sep or not player.strip() or not card.strip():
            raise click.BadParameter(f"{value!r}: write {option} PLAYER=CARD", ctx, param)
        result[player.strip()] = card.strip()
    return result


NEW_OPTIONS = [
    click.Option(["--owner", "owners"], multiple=True, metavar="PLAYER=CARD",
                 callback=_pairs, help="X-Statix: choose an Owner."),
    click.Option(["--team", "teams"], multiple=True, metavar="PLAYER=CARD", callback=_pairs,
                 help="X-Statix: choose a Team Name."),
    click.Option(["--deal"], type=click.Choice(["table", "referee"]), default="table",
                 help="X-Statix: table = the players' own printed deck (default; the referee "
                 "counts cards and learns each one when shown, XS-16); referee = a virtual "
                 "deck the referee shuffles and deals (solo tests, remote play)."),
]


class XsRules:
    """What X-Statix questions read from the cards: names (Tab, abbreviations), hand
    limits (XS-11) and an Owner's End-phase kill (Coach), loaded once per game: the cards
    the game began with when the session keeps them (referee/kept.py)."""

    def __init__(self, db: Any) -> None:
        from referee.xs.catalog import Catalog

        self.db = db
        self.cat = Catalog.from_db(db)
        self.card_names = tuple(c.name for c in db.games["x-statix"].cards())

    def _play(self, state: dict) -> Any:
        import random

        from referee.xs.play import Play
        from referee.xs.rolls import Dice

        return Play(state, self.cat, Dice(random.Random(0)))

    def hand_limit(self, state: dict, player: str) -> int:
        return self._play(state).hand_limit(player)[0]

    def can_kill(self, state: dict, player: str) -> bool:
        play = self._play(state)
        return bool(play.with_verb(player, "end_phase_kill")) and not any(
            play.turn["used"].get(name) for name, _, _ in play.with_verb(player, "end_phase_kill"))


def context(db: Any, state: dict) -> XsRules | None:
    return XsRules(db) if "x-statix" in db.games else None


def question(state: dict, ctx: Any, answered: set) -> Any:
    from referee.play.walk import xs_question

    return xs_question(state, ctx, answered)


def names(state: dict, ctx: Any) -> list[str]:
    """The players, the heroes in play and every card of the game."""
    found: list[str] = list(state.get("players", []))
    for seat in state.get("table", {}).values():
        found += [h["name"] for h in seat.get("heroes", [])]
    if ctx is not None:
        found += list(ctx.card_names)
    return found
