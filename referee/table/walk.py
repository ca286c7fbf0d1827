"""The walk of a game of your own cards.yaml (the table kit) at `referee play` (the game
contract's `walk`, referee/games.py `TABLE_KIT`; `ctx` is the kit's `context`,
referee/table/entry.py): from the state alone, the one thing its declared rules
(carddb.gamerules) need next, as a `Question` of referee.play.walk. Steps that run by themselves come as compulsory
questions (`auto`); each asking step has a default that Enter takes (`referee step`
alone); a typed answer becomes `referee step ANSWER`; any command may be typed instead.
A game without declared steps is walked as before: Enter moves to the next phase."""

from __future__ import annotations

from typing import Any

from referee.play.walk import NO, Question, match, split_names
from referee.words import counted


def question(state: dict, ctx: Any, answered: set) -> Question | None:
    """`ctx`: the game's `TableGame` (referee/table/kit.py), or None when it could not be
    read (then only the plain walk: Enter, the next phase)."""
    if state.get("over"):
        return None
    turn = state["turn"]
    if ctx is None or not ctx.rules.declared or "step" not in turn:
        return _plain(state)
    game = ctx
    if state.get("pending"):
        return _choice_pending(state, game)
    from referee.table.turn import current_step

    now = current_step(state, game)
    if now is None:
        return _plain(state)
    active = turn["player"]
    if now.kind == "effect":
        assert now.effect is not None
        if now.effect.chooses:
            return _player_question(state, f"{turn['phase']}: which player?", active)
        return _auto(f"{turn['phase']}: {_said(now.effect, active)}")
    if now.kind == "roll":
        return _roll(game, now.roll, active)
    if now.kind == "play":
        return _play(state, game, now, active)
    if now.kind == "choose":
        names = tuple(o.name for o in now.options)
        prompt = now.prompt or f"{active} chooses"
        return Question(f"{prompt} ({', '.join(names)})? [{now.default}]", ["step"],
                        lambda text: ["step", match(text, names)], names=names)
    if now.kind == "discard_to":
        return _discard(state, game, now, active)
    return _reveal(state, game, now, active)


def _auto(prompt: str) -> Question:
    """A step the rules run by themselves: said on one line, then `referee step`."""
    return Question(prompt, ["step"], auto=True)


def _said(effect: Any, active: str) -> str:
    """An effect in a few words, for the line of a compulsory step (`Ann: cargo +1`)."""
    who = {"self": active, "each_player": "every player", "each_other": "every other player",
           "pool": "the shared pool"}.get(effect.verb, "")
    if effect.tokens and who:
        return f"{who}: " + ", ".join(f"{k} {_signed(a)}" for k, a in effect.tokens)
    if effect.verb in ("draw", "discard"):
        deck = f" of {effect.deck}" if effect.deck else ""
        return f"{active} {effect.verb}s {counted(effect.count, 'card')}{deck}"
    return effect.verb


def _signed(amount: str) -> str:
    return amount if amount[:1] in "+-" else f"+ {amount}"


def turn_phase(state: dict) -> str:
    return str(state["turn"].get("phase") or "")


def _plain(state: dict) -> Question:
    turn = state["turn"]
    phase = f", {turn['phase']}" if turn.get("phase") else ""
    return Question(f"{turn['player']}'s turn{phase} (roll, token, draw, ...; Enter: next) >",
                    ["next"], None)


def _player_question(state: dict, prompt: str, player: str) -> Question:
    from referee.table.rules import choose_default

    seats = tuple(state["players"])
    default = choose_default(state, player)
    return Question(f"{prompt} [{default}]", ["step"],
                    lambda text: ["step", match(text, seats)], names=seats)


def _choice_pending(state: dict, game: Any) -> Question:
    pending = state["pending"]
    what = pending.get("card") or pending.get("option")
    return _player_question(state, f"{what}: which player?", pending["player"])


def _roll(game: Any, name: str, active: str) -> Question:
    named = game.rules.rolls[name]
    pool = " + ".join(f"{n} {d}" for d, n in named.pool)
    faces = tuple(dict.fromkeys(k for d, _ in named.pool for k in game.dice[d].symbols))
    return Question(f"{active}'s {name} roll, {pool} (faces as rolled; Enter: the referee "
                    "rolls) [roll]", ["step"],
                    lambda text: ["step", *text.replace(",", " ").split()], names=faces)


def _play(state: dict, game: Any, now: Any, active: str) -> Question:
    cards = tuple(c for c, d in game.cards.items() if not now.deck or d == now.deck)
    fields = {f for values in game.card_fields.values() for f in values}
    cost = ", ".join(f"its {a} in {k}" if a in fields else f"{a} {k}" for k, a in now.cost)
    done = state["turn"].get("done", 0)
    more = f" ({done} of {now.count})" if done else ""
    prompt = now.prompt or f"{active}: a card into {now.zone}" + (f" for {cost}" if cost else "")
    held = sum(state["hands"][active].values())
    if held == 0:
        return _auto(f"{active} has no card to play into {now.zone}")
    return Question(f"{prompt}{more}? [none]", ["step"],
                    lambda text: ["step"] if text.casefold() in NO else
                    ["step", ", ".join(match(n, cards) for n in split_names(text))], names=cards)


def _discard(state: dict, game: Any, now: Any, active: str) -> Question:
    from referee.table.turn import hand_limit

    limit = hand_limit(game, now)
    held = sum(state["hands"][active].values())
    if held <= limit:
        return _auto(f"{turn_phase(state)}: the hand limit, {limit}")
    over = held - limit
    cards = tuple(game.cards)
    return Question(f"{active} holds {counted(held, 'card')} (limit {limit}): discard {over} "
                    "[face down]", ["step"],
                    lambda text: ["step", ", ".join(match(n, cards) for n in split_names(text))],
                    names=cards)


def _reveal(state: dict, game: Any, now: Any, active: str) -> Question:
    deck = now.deck or next(iter(game.decks))
    if state["decks"][deck]["deck"] < 1:
        return _auto(f"the {deck} deck is empty: nothing to reveal")
    cards = tuple(c for c, d in game.cards.items() if d == deck)
    title = game.deck_titles.get(deck, deck)
    return Question(f"{active} reveals a card of {title} (its name; Enter: the referee draws "
                    "one) [draw]", ["step"], lambda text: ["step", match(text, cards)],
                    names=cards)
