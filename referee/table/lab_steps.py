"""The balance lab's path through a declared game's steps (issue 30 item 5): what
`turn.step_in_place(quiet=True)` does to a state, done without a word said, without a
`Result`, and refused before anything is changed, so the lab tries an answer on the
state itself rather than on a copy. The rules' meaning is the referee's own: each kind
calls the same rule functions (`rules.apply_quietly` is `apply_effects` saying nothing,
`rules.rolled` is `roll`'s outcome, `turn.advance_quietly` is `advance`), and what this
path must check before it changes anything (`rules.refuses`, `turn.hand_refuses`, a
cost paid) is the refusals those functions raise. An answer this path does not take (a
card named in another language, several cards played at once, a cost of two kinds, a
reveal drawn by the referee, faces typed) gives None and the caller steps the general
way; tests/referee/table/test_lab_steps.py plays whole games through both and compares
every state."""

from __future__ import annotations

from collections.abc import Callable

from carddb.gamerules import Step as RuleStep
from referee.errors import UsageError
from referee.table import rules, turn
from referee.table.dice import FaceSource
from referee.table.kit import TableGame, deck_of

# step(state, game, now, words, source) -> True (done), False (refused, nothing
# changed) or None (not taken here: nothing changed, step the general way)
Run = Callable[[dict, TableGame, RuleStep, list[str], FaceSource], "bool | None"]


def step(state: dict, game: TableGame, now: RuleStep | None, words: list[str],
         source: FaceSource) -> bool | None:
    """The current step (`now`: `turn.current_step`, None when a choice is pending or the
    phase has no steps) answered with `words` on `state` in place, settled as a quiet
    step settles: True done, False refused (the state as it was), None not taken here."""
    if state.get("over"):
        return None  # refused by the general path, with its words
    if state.get("pending"):
        done = _resolve(state, game, words)
        if not done:
            return done
    elif now is None:
        rules.next_phase_quietly(state, game)
        done = True
    else:
        run = RUNS.get(now.kind)
        done = run(state, game, now, words, source) if run is not None else None
        if not done or not turn.settles(game, now):
            return done
    rules.settle(state, game)
    return done


def _seat(state: dict, words: list[str], player: str) -> str | None:
    """The player an answer names (the next by default), or None when it is not a seat's
    own name as written (the general path reads it)."""
    if not words:
        return rules.choose_default(state, player)
    if len(words) == 1 and words[0] in state["players"]:
        return words[0]
    return None


def _resolve(state: dict, game: TableGame, words: list[str]) -> bool | None:
    """A choice of player a card or an option waits for (`turn._resolve`)."""
    pending = state["pending"]
    player = pending["player"]
    chosen = _seat(state, words, player)
    if chosen is None:
        return None
    effects = turn.pending_effects(game, pending)
    if rules.refuses(effects, player, chosen, pending["index"]):
        return False
    state["pending"] = None
    stopped = rules.apply_quietly(state, game, effects, player, chosen, pending.get("card"),
                                  pending["index"])
    if stopped is not None:
        state["pending"] = {**pending, "index": stopped}
    elif pending["then"] == "advance":
        turn.advance_quietly(state, game)
    return True


def _effect(state: dict, game: TableGame, now: RuleStep, words: list[str],
            source: FaceSource) -> bool | None:
    effect = now.effect
    assert effect is not None
    active = state["turn"]["player"]
    chosen = None
    if effect.chooses:
        chosen = _seat(state, words, active)
        if chosen is None:
            return None
    elif words:
        return False  # a step that runs by itself takes no answer
    if rules.refuses((effect,), active, chosen):
        return False
    rules.apply_quietly(state, game, (effect,), active, chosen)
    turn.advance_quietly(state, game)
    return True


def _roll(state: dict, game: TableGame, now: RuleStep, words: list[str],
          source: FaceSource) -> bool | None:
    if words:
        return None  # faces typed: read by the general path
    rules.rolled(state, game, game.rules.rolls[now.roll], state["turn"]["player"], source)
    turn.advance_quietly(state, game)
    return True


def _choose(state: dict, game: TableGame, now: RuleStep, words: list[str],
            source: FaceSource) -> bool | None:
    pick = " ".join(words) if words else now.default
    option = next((o for o in now.options if o.name == pick), None)
    if option is None:
        return None  # not an option's name as written: the general path reads it
    active = state["turn"]["player"]
    if rules.refuses(option.effects, active, None):
        return False
    stopped = rules.apply_quietly(state, game, option.effects, active, None)
    if stopped is None:
        turn.advance_quietly(state, game)
        return True
    state["pending"] = {"kind": "option", "option": pick, "player": active,
                        "phase": state["turn"]["phase"], "step": state["turn"]["step"],
                        "index": stopped, "then": "advance"}
    return True


def _card(game: TableGame, words: list[str]) -> str | None:
    """The one card `words` name by its name as printed (case aside), else None."""
    names = turn._names(words)  # noqa: SLF001 - the engine's own reading of an answer
    return game.folded.get(names[0].casefold()) if len(names) == 1 else None


def _discard_to(state: dict, game: TableGame, now: RuleStep, words: list[str],
                source: FaceSource) -> bool | None:
    active = state["turn"]["player"]
    over = rules.hand_size(state, active) - turn.hand_limit(game, now)
    if over <= 0:
        if words:
            return False
        turn.advance_quietly(state, game)
        return True
    found = [game.folded.get(w.casefold()) for w in turn._names(words)]  # noqa: SLF001
    cards = [card for card in found if card is not None]
    if len(cards) < len(found) or state["shown"][active]:
        return None  # a name in another language, or shown cards: the general path
    if len(cards) > over:
        return False
    wanted: dict[str, int] = {}
    for card in cards:
        deck = game.cards[card]
        wanted[deck] = wanted.get(deck, 0) + 1
    if any(state["hands"][active][d] < n for d, n in wanted.items()):
        return False
    for card in cards:
        deck = game.cards[card]
        state["hands"][active][deck] -= 1
        state["decks"][deck]["discard"] += 1
        state["decks"][deck]["seen"].append(card)
    if over - len(cards):
        rules.discard_face_down(state, game, active, over - len(cards))
    turn.advance_quietly(state, game)
    return True


def _reveal(state: dict, game: TableGame, now: RuleStep, words: list[str],
            source: FaceSource) -> bool | None:
    try:
        deck = deck_of(game, now.deck or None)
    except UsageError:
        return None
    pile = state["decks"][deck]
    if not words:
        if pile["deck"] >= 1:
            return None  # the referee draws the card: the general path
        turn.advance_quietly(state, game)
        return True
    card = game.folded.get(" ".join(words).strip().casefold())
    if card is None:
        return None  # a name in another language, or none: the general path
    active = state["turn"]["player"]
    effects = game.rules.effects_of(card, game.card_types.get(card, ""), "revealed")
    if (pile["deck"] < 1 or game.cards[card] != deck
            or not turn._unseen_copy(state, game, deck, card)  # noqa: SLF001
            or rules.refuses(effects, active, None)):
        return False
    done = state["turn"]["done"] = state["turn"].get("done", 0) + 1
    pile["deck"] -= 1
    pile["discard"] += 1
    pile["seen"].append(card)
    last = done >= now.count
    _card_effects(state, game, effects, active, card, "revealed", last)
    if last and not state.get("pending"):
        turn.advance_quietly(state, game)
    return True


def _card_effects(state: dict, game: TableGame, effects: tuple, who: str, card: str,
                  when: str, last: bool) -> None:
    """`turn._card_effects` saying nothing."""
    stopped = rules.apply_quietly(state, game, effects, who, None, card)
    if stopped is not None:
        state["pending"] = {"kind": "card", "card": card, "player": who, "when": when,
                            "index": stopped, "then": "advance" if last else "stay"}


def _play(state: dict, game: TableGame, now: RuleStep, words: list[str],
          source: FaceSource) -> bool | None:
    if not words:
        turn.advance_quietly(state, game)
        return True
    card = _card(game, words)
    if card is None or len(now.cost) > 1:
        return None  # several cards, another language, a cost of two kinds: general
    active = state["turn"]["player"]
    if state["turn"].get("done", 0) >= now.count or (now.deck and game.cards[card] != now.deck):
        return False
    pay = [turn.price(state, game, active, card, k, a) for k, a in now.cost]
    effects = game.rules.effects_of(card, game.card_types.get(card, ""), "played")
    if (any(n > have - kind.min for kind, n, have in pay)
            or turn.hand_refuses(state, game, active, card) or rules.refuses(effects, active, None)):
        return False
    for kind, n, _ in pay:
        rules.moved(state, None if kind.shared else active, kind, -n)
    turn._from_hand(state, game, active, card)  # noqa: SLF001
    turn._cards_of(state, game, active, now.zone).append(card)  # noqa: SLF001
    done = state["turn"]["done"] = state["turn"].get("done", 0) + 1
    _card_effects(state, game, effects, active, card, "played", done >= now.count)
    if not state.get("pending") and done >= now.count:
        turn.advance_quietly(state, game)
    return True


RUNS: dict[str, Run] = {"effect": _effect, "roll": _roll, "choose": _choose,
                        "discard_to": _discard_to, "reveal": _reveal, "play": _play}
