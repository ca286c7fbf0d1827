"""The turn of a game with rules as data (carddb.gamerules), and the table's moves its
vocabulary adds: a card put into play and taken out of it, a card revealed, a token move
for every player, a transfer between players, and `step`, the current step of the phase
run or answered. Pure functions on a state dict (copied here), returning `Result`s like
every command of the kit (referee/table/kit.py); dice from an injected `FaceSource`, a
card the referee draws for the table from an injected `random.Random`."""

from __future__ import annotations

import random

from carddb.gamerules import Effect, Phase
from carddb.gamerules import Step as RuleStep
from referee.errors import DiceError, RefereeError, UsageError
from referee.outcome import Result
from referee.table import rules
from referee.table.dice import FaceSource
from referee.table.kit import (
    TableGame,
    TokenKind,
    _result,
    bank,
    card_named,
    copy_state,
    deck_of,
    named,
    seat,
)
from referee.words import counted


# ── where the turn is ─────────────────────────────────────────────────────────────
def phase_of(state: dict, game: TableGame) -> Phase | None:
    """The declared phase the turn is in (None: no phases, or a game without rules)."""
    return game.phase_named.get(state["turn"].get("phase"))  # type: ignore[no-any-return]


def current_step(state: dict, game: TableGame) -> RuleStep | None:
    """The declared step the turn is at (None: its phase has no such step, or none)."""
    turn = state["turn"]
    return game.step_at.get((turn.get("phase"), turn.get("step", 0)))


def hand_limit(game: TableGame, step: RuleStep) -> int:
    return step.count or (game.rules.hand_limit or 0)


def advance(state: dict, game: TableGame) -> list[str]:
    """The step done: the next step of the phase, else the next phase (or turn)."""
    turn = state["turn"]
    turn["step"] = turn.get("step", 0) + 1
    turn["done"] = 0
    if (turn.get("phase"), turn["step"]) in game.step_at:  # a step of the phase is left
        return []
    return rules.next_phase(state, game)


def advance_quietly(state: dict, game: TableGame) -> None:
    """`advance` saying nothing (the balance lab's path, issue 30)."""
    turn = state["turn"]
    turn["step"] = turn.get("step", 0) + 1
    turn["done"] = 0
    if (turn.get("phase"), turn["step"]) not in game.step_at:
        rules.next_phase_quietly(state, game)


# ── cards in and out of play ────────────────────────────────────────────────────
def _zone_of(game: TableGame, text: str | None) -> str:
    mine = [z.name for z in game.rules.zones]
    if not mine:
        raise UsageError(f"{game.title} declares no zones in cards.yaml (zones:)")
    own = [z.name for z in game.rules.zones if not z.shared]
    if text is None:
        if len(own) == 1:  # a player's one zone in play (the table's are named)
            return own[0]
        raise UsageError(f"{game.title} has {len(mine)} zones: name one with --to "
                         f"({', '.join(mine)})")
    return named(text, mine, "zone", "the zones are")


def _cards_of(state: dict, game: TableGame, who: str, zone: str) -> list[str]:
    found = game.rules.zone(zone)
    if found is not None and found.shared:
        return state["table"][zone]
    return state["zones"][who][zone]


def hand_refuses(state: dict, game: TableGame, who: str, card: str) -> bool:
    """Whether `_from_hand` refuses `card` (asked before anything is changed: the balance
    lab tries answers in place, issue 30)."""
    deck = game.cards[card]
    held = state["hands"][who][deck]
    if held < 1:
        return True
    shown = state["shown"][who]
    return bool(shown) and card not in shown and len(
        [c for c in shown if game.cards[c] == deck]) >= held


def _from_hand(state: dict, game: TableGame, who: str, card: str) -> None:
    deck = game.cards[card]
    if state["hands"][who][deck] < 1:
        raise RefereeError(f"{who} holds no {deck} card: {card} cannot come from the hand, "
                           "nothing changed")
    shown = state["shown"][who]  # none shown: nothing to count (the lab's every play)
    if shown and card not in shown and len(
            [c for c in shown if game.cards[c] == deck]) >= state["hands"][who][deck]:
        raise RefereeError(f"{who}'s {counted(state['hands'][who][deck], deck + ' card')} "
                           f"in hand are shown and {card} is not one, nothing changed")
    state["hands"][who][deck] -= 1
    if card in state["shown"][who]:
        state["shown"][who].remove(card)


def price(state: dict, game: TableGame, who: str, card: str, kind_id: str,
          amount: str) -> tuple[TokenKind, int, int]:
    """One token kind of a card's cost: the kind, what `card` costs `who` of it (a card
    field, else an expression) and what they hold of it."""
    kind = game.tokens[kind_id]
    fields = game.card_fields.get(card, {})
    if amount in fields or not amount.lstrip("+-").strip():
        n = fields.get(amount, 0)
    else:
        fixed = rules.constant(amount)  # most costs read nothing (`cargo: 1`)
        n = fixed if fixed is not None else rules.evaluate(amount, rules.Env(state, game, who,
                                                                               card))
    return kind, n, rules.holding(state, None if kind.shared else who, kind)


def _pay(state: dict, game: TableGame, who: str, card: str,
         cost: tuple[tuple[str, str], ...]) -> list[str]:
    lines = []
    for kind_id, amount in cost:
        kind, n, have = price(state, game, who, card, kind_id, amount)
        if n > have - kind.min:
            raise RefereeError(f"{card} costs {n} {kind.name}; {who} has {have}, nothing changed")
        rules.moved(state, None if kind.shared else who, kind, -n)
        lines.append(f"{who} pays {n} {kind.name} ({have - n})")
    return lines


def _card_effects(state: dict, game: TableGame, who: str, card: str, when: str,
                  chosen: str | None, then: str) -> list[str]:
    """`card`'s effects `when` (played or revealed), naming it; a choice of player not given
    is left waiting (`pending`) for the table, with what to do after it (`then`)."""
    effects = game.rules.effects_of(card, game.card_types.get(card, ""), when)
    lines, stopped = rules.apply_effects(state, game, effects, who, card, chosen, card)
    if stopped is not None:
        state["pending"] = {"kind": "card", "card": card, "player": who, "when": when,
                            "index": stopped, "then": then}
    return lines


def put(state: dict, game: TableGame, who: str, text: str, zone: str | None,
        chosen: str | None = None) -> Result:
    """A card of `who`'s hand put into play (`zone`), its effects when played applied."""
    rules.refuse_when_over(state)
    new = copy_state(state)
    card, where = card_named(game, text), _zone_of(game, zone)
    _from_hand(new, game, who, card)
    _cards_of(new, game, who, where).append(card)
    lines = [f"{who} puts {card} into {where} ({', '.join(_cards_of(new, game, who, where))})"]
    lines += _card_effects(new, game, who, card, "played", chosen, "stay")
    return _result(new, lines[0], lines, {"player": who, "card": card, "zone": where}, game)


def take_out(state: dict, game: TableGame, who: str, cards: list[str], zone: str | None) -> Result:
    """Cards of `who` in play (`zone`) onto their deck's discard pile, shown."""
    rules.refuse_when_over(state)
    new = copy_state(state)
    where = _zone_of(game, zone)
    if not cards:
        raise UsageError("name the cards to take out of play")
    names = []
    for text in cards:
        card = card_named(game, text)
        held = _cards_of(new, game, who, where)
        if card not in held:
            raise RefereeError(f"{card} is not in {who}'s {where} ({', '.join(held) or 'empty'}), "
                               "nothing changed")
        held.remove(card)
        deck = game.cards[card]
        new["decks"][deck]["discard"] += 1
        new["decks"][deck]["seen"].append(card)
        names.append(card)
    line = f"{who} takes {', '.join(names)} out of {where} onto the discard pile"
    return _result(new, line, [line], {"player": who, "cards": names, "zone": where}, game)


def unseen(state: dict, game: TableGame, deck: str) -> list[str]:
    """The cards of `deck` the referee has not seen leave the deck: copies printed, less
    those shown on its discard pile, in play or shown in a hand."""
    out: list[str] = []
    seen = list(state["decks"][deck]["seen"])
    for cards in state["shown"].values():
        seen += cards
    for zones in state.get("zones", {}).values():
        for cards in zones.values():
            seen += cards
    for cards in state.get("table", {}).values():
        seen += cards
    for card, copies in game.deck_cards.get(deck, ()):
        out += [card] * max(0, copies - seen.count(card))
    return out


def _unseen_copy(state: dict, game: TableGame, deck: str, card: str) -> bool:
    """Whether `card` is among `unseen(state, game, deck)`, counting only its own copies
    (the lab reveals a named card at every turn, issue 30)."""
    seen = state["decks"][deck]["seen"].count(card)
    for cards in state["shown"].values():
        seen += cards.count(card)
    for zones in state.get("zones", {}).values():
        for cards in zones.values():
            seen += cards.count(card)
    for cards in state.get("table", {}).values():
        seen += cards.count(card)
    for name, copies in game.deck_cards.get(deck, ()):  # a loop: no generator a reveal
        if name == card and copies > seen:
            return True
    return False


def reveal(state: dict, game: TableGame, who: str, text: str | None, deck: str | None,
           rng: random.Random, chosen: str | None = None, then: str = "stay") -> tuple[dict, list[str]]:
    """`who` reveals the top card of `deck` (named by the table, else drawn by the referee
    among the cards it has not seen): onto the discard pile, its effects when revealed."""
    new = copy_state(state)
    return new, _reveal(new, game, who, text, deck, rng, chosen, then)


def _reveal(new: dict, game: TableGame, who: str, text: str | None, deck: str | None,
            rng: random.Random, chosen: str | None, then: str) -> list[str]:
    """`reveal` on a state the caller has copied (changed in place): the lines."""
    d = deck_of(game, deck)
    pile = new["decks"][d]
    if pile["deck"] < 1:
        raise RefereeError(f"the {d} deck is empty: nothing to reveal (referee shuffle {d})")
    if text:
        card = card_named(game, text)
        if game.cards[card] != d:
            raise UsageError(f"{card} is a card of the {game.cards[card]} deck, not {d}")
        if not _unseen_copy(new, game, d, card):
            raise RefereeError(f"every {card} of {d} is accounted for (on the discard pile, in "
                               "play or shown): not the one revealed, nothing changed")
        how = ""
    else:
        left = unseen(new, game, d)
        if not left:
            raise RefereeError(f"every card of {d} is accounted for: name the card revealed")
        card = rng.choice(left)
        how = " (drawn by the referee)"
    pile["deck"] -= 1
    pile["discard"] += 1
    pile["seen"].append(card)
    lines = [f"{who} reveals {card}{how}"]
    return lines + _card_effects(new, game, who, card, "revealed", chosen, then)


def reveal_command(state: dict, game: TableGame, who: str, text: str | None, deck: str | None,
                   rng: random.Random, chosen: str | None = None) -> Result:
    rules.refuse_when_over(state)
    new, lines = reveal(state, game, who, text, deck, rng, chosen)
    return _result(new, lines[0], lines, {"player": who, "card": new["decks"][deck_of(
        game, deck)]["seen"][-1]}, game)


# ── token moves of the table ────────────────────────────────────────────────────
def token_all(state: dict, game: TableGame, kind: TokenKind, op: str, amount: int) -> Result:
    """Every player's `kind` changed at once (`token all gold +2`): all or nothing."""
    rules.refuse_when_over(state)
    if kind.shared:
        raise UsageError(f"{kind.name} tokens are shared: referee token {kind.id} AMOUNT")
    new = copy_state(state)
    parts = []
    for who in new["players"]:
        before = rules.holding(new, who, kind)
        after = before + amount if op == "+" else before - amount if op == "-" else amount
        if after < kind.min or (kind.max is not None and after > kind.max):
            raise RefereeError(f"{who} has {before} {kind.name}; {op}{amount} leaves the limits "
                               f"({kind.min} to {kind.max if kind.max is not None else 'any'}), "
                               "nothing changed")
        new["tokens"][who][kind.id] = after
        parts.append(f"{who} {after}")
    if bank(new, kind) < 0:
        raise RefereeError(f"the bank holds {bank(state, kind)} {kind.name} (of {kind.count}); "
                           f"every player {op}{amount} needs more, nothing changed")
    line = f"every player {kind.name} {op}{amount}: {', '.join(parts)}"
    return _result(new, line, [line, f"  bank: {bank(new, kind)} {kind.name} left"],
                   {"token": kind.id, "op": op, "amount": amount, "bank": bank(new, kind)}, game)


def give(state: dict, game: TableGame, giver: str, taker: str, kind: TokenKind, n: int) -> Result:
    """`giver` gives `taker` `n` tokens of `kind` (within both limits)."""
    rules.refuse_when_over(state)
    if kind.shared:
        raise UsageError(f"{kind.name} tokens are shared, not a player's to give")
    if giver == taker:
        raise UsageError(f"{giver} cannot give to themselves")
    new = copy_state(state)
    have, other = rules.holding(new, giver, kind), rules.holding(new, taker, kind)
    if have - n < kind.min:
        raise RefereeError(f"{giver} has {have} {kind.name}; giving {n} leaves fewer than "
                           f"{kind.min}, nothing changed")
    if kind.max is not None and other + n > kind.max:
        raise RefereeError(f"{taker} has {other} {kind.name}; {n} more passes the most, "
                           f"{kind.max}, nothing changed")
    new["tokens"][giver][kind.id] = have - n
    new["tokens"][taker][kind.id] = other + n
    line = f"{giver} gives {taker} {n} {kind.name} ({giver} {have - n}, {taker} {other + n})"
    return _result(new, line, [line], {"from": giver, "to": taker, "token": kind.id, "n": n},
                   game)


# ── the current step ────────────────────────────────────────────────────────────
def pending_effects(game: TableGame, pending: dict) -> tuple[Effect, ...]:
    if pending["kind"] == "card":
        card = pending["card"]
        return game.rules.effects_of(card, game.card_types.get(card, ""), pending["when"])
    step = _step_at(game, pending["phase"], pending["step"])
    option = next(o for o in step.options if o.name == pending["option"])
    return option.effects


def _step_at(game: TableGame, phase: str, index: int) -> RuleStep:
    return next(p for p in game.rules.phases if p.name == phase).steps[index]


def step_parts(game: TableGame, now: RuleStep) -> frozenset[str]:
    """The parts of a state the step `now` may change (rules.settle_parts' names), for any
    answer: what its kind changes and every effect it may apply (a card's: any card's of
    the game). Every step may end the turn, and the next starts with no roll outcomes."""
    parts = {"rolls"}
    effects: tuple[Effect, ...] = ()
    if now.kind == "effect" and now.effect is not None:
        effects = (now.effect,)
    elif now.kind == "choose":
        effects = tuple(e for option in now.options for e in option.effects)
    elif now.kind in ("play", "reveal"):
        when = "played" if now.kind == "play" else "revealed"
        effects = tuple(e for card in game.cards for e in game.rules.effects_of(
            card, game.card_types.get(card, ""), when))
        parts |= {"tokens", "hands", "zones"} if now.kind == "play" else {"decks"}
    elif now.kind == "discard_to":
        parts |= {"hands", "decks"}
    elif now.kind != "roll":  # a kind this list does not know: anything
        return frozenset({"tokens", "rolls", "hands", "zones", "decks"})
    for effect in effects:
        parts |= rules.effect_parts(effect)
    return frozenset(parts)


# id(game) -> (the game, {id(step): whether a quiet step there settles})
_SETTLES: dict[int, tuple[TableGame, dict[int, bool]]] = {}


def settles(game: TableGame, now: RuleStep) -> bool:
    """Whether the step `now` may change what `rules.settle` reads (the score, the end
    tests on tokens), worked out once a game for each declared step: a step that cannot
    (a draw, a roll the score does not name, a discard) leaves the scores and the ends as
    they were (issue 30: the balance lab settles only after the others)."""
    hit = _SETTLES.get(id(game))
    known = hit[1] if hit is not None and hit[0] is game else rules.per_game(
        _SETTLES, id(game), game, lambda: {
            id(s): bool(step_parts(game, s) & rules.settle_parts(game))
            for s in game.step_at.values()}, 64)
    return known.get(id(now), True)  # type: ignore[no-any-return]


def step(state: dict, game: TableGame, words: list[str], source: FaceSource,
         rng: random.Random, quiet: bool = False) -> Result:
    """`referee step [ANSWER]`: the step the turn is at, run (a step that runs by itself,
    or the default answer of one that asks: Enter at `referee play`) or answered: a
    player's name at a choice of player, faces at a roll, cards at play or discard, an
    option at a choice, the card revealed. `quiet`: the Result holds the new state alone
    (no summary, lines or data; the balance lab reads only the state, issue 30); the
    scores and the end are kept all the same, worked out again only after a step that may
    change what they read (`settles`): a quiet step is taken from a settled state (one a
    step or `rules.settle` gave; the lab settles a game's first state after its first
    step)."""
    return step_in_place(copy_state(state), game, words, source, rng, quiet)  # refused there


def step_in_place(new: dict, game: TableGame, words: list[str], source: FaceSource,
                  rng: random.Random, quiet: bool = False) -> Result:
    """`step` on a state the caller gives up: changed in place and returned in the Result
    (a refusal may leave it part-changed; `step` copies it first). The balance lab steps
    this way where one answer is all there is (issue 30: no copy per step)."""
    rules.refuse_when_over(new)
    active = new["turn"]["player"]
    now = None
    if new.get("pending"):
        lines = _resolve(new, game, words)
    else:
        now = current_step(new, game)
        if now is None:  # a phase without steps: on to the next
            lines = rules.next_phase(new, game)
        else:
            lines = _run(new, game, now, active, words, source, rng)
    if quiet:
        if now is None or settles(game, now):
            rules.settle(new, game)
        return Result(new, "")
    if not lines:
        lines = [rules.turn_line(new)]
    return _result(new, lines[0], lines, {"turn": dict(new["turn"]),
                                          "pending": new.get("pending")}, game)


def _chosen(state: dict, words: list[str], player: str) -> str:
    if not words:
        return rules.choose_default(state, player)
    return seat(state, " ".join(words))


def _resolve(state: dict, game: TableGame, words: list[str]) -> list[str]:
    pending = state["pending"]
    chosen = _chosen(state, words, pending["player"])
    effects = pending_effects(game, pending)
    source = pending.get("card") or pending.get("option") or ""
    state["pending"] = None
    lines, stopped = rules.apply_effects(state, game, effects, pending["player"], source, chosen,
                                         pending.get("card"), pending["index"])
    if stopped is not None:
        state["pending"] = {**pending, "index": stopped}
        return lines
    if pending["then"] == "advance":
        lines += advance(state, game)
    return lines


def _run(state: dict, game: TableGame, now: RuleStep, active: str, words: list[str],
         source: FaceSource, rng: random.Random) -> list[str]:
    phase = state["turn"]["phase"]
    if now.kind == "effect":
        assert now.effect is not None
        chosen = _chosen(state, words, active) if now.effect.chooses else None
        if words and not now.effect.chooses:
            raise UsageError(f"this step of {phase} runs by itself: `step` alone")
        lines, _ = rules.apply_effects(state, game, (now.effect,), active, phase, chosen)
        return lines + advance(state, game)
    if now.kind == "roll":
        faces = _faces(source, words)
        try:
            line, _ = rules.roll(state, game, game.rules.rolls[now.roll], active, faces)
            faces.check_all_used()
        except DiceError as error:  # typed at the roll's question, not with --roll
            raise DiceError(error.message.replace("--roll ", "faces ", 1)) from None
        return [line, *advance(state, game)]
    if now.kind == "choose":
        names = [o.name for o in now.options]
        pick = named(" ".join(words), names, "option", "the options are") if words else now.default
        option = next(o for o in now.options if o.name == pick)
        lines, stopped = rules.apply_effects(state, game, option.effects, active, pick, None)
        lines = [f"{active} chooses {pick}", *lines]
        if stopped is not None:
            index = game.rules.phases.index(phase_of(state, game))  # type: ignore[arg-type]
            state["pending"] = {"kind": "option", "option": pick, "player": active,
                                "phase": game.rules.phases[index].name,
                                "step": state["turn"]["step"], "index": stopped, "then": "advance"}
            return lines
        return lines + advance(state, game)
    if now.kind == "discard_to":
        return _discard_to(state, game, now, active, words) + advance(state, game)
    if now.kind == "reveal":
        deck = deck_of(game, now.deck or None)
        if state["decks"][deck]["deck"] < 1 and not words:
            return [f"the {deck} deck is empty: nothing revealed", *advance(state, game)]
        text = " ".join(words) or None
        state["turn"]["done"] = state["turn"].get("done", 0) + 1
        last = state["turn"]["done"] >= now.count
        lines = _reveal(state, game, active, text, now.deck or None, rng, None,
                        "advance" if last else "stay")
        if last and not state.get("pending"):
            lines += advance(state, game)
        return lines
    return _play(state, game, now, active, words)


def _faces(source: FaceSource, words: list[str]) -> FaceSource:
    if not words:
        return source
    return FaceSource(source.rng, " ".join(words), None)


def _discard_to(state: dict, game: TableGame, now: RuleStep, active: str,
                words: list[str]) -> list[str]:
    limit = hand_limit(game, now)
    held = rules.hand_size(state, active)
    over = held - limit
    if over <= 0:
        if words:
            raise UsageError(f"{active} holds {held} of {limit}: nothing to discard")
        return [f"{active} holds {held} of {limit}: nothing to discard"]
    cards = [card_named(game, w) for w in _names(words)]
    if len(cards) > over:
        raise UsageError(f"{active} discards {over} (limit {limit}), not {len(cards)}")
    lines = []
    for card in cards:
        deck = game.cards[card]
        _from_hand(state, game, active, card)
        state["decks"][deck]["discard"] += 1
        state["decks"][deck]["seen"].append(card)
        lines.append(f"{active} discards {card}")
    if over - len(cards):
        lines.append(rules.discard_face_down(state, game, active, over - len(cards)))
    return [f"{active} holds {held} (limit {limit}): discards {over}", *lines]


def _names(words: list[str]) -> list[str]:
    text = " ".join(words)
    return [p.strip() for p in text.replace(" and ", ",").split(",") if p.strip()]


def _play(state: dict, game: TableGame, now: RuleStep, active: str, words: list[str]) -> list[str]:
    if not words:
        return [f"{active} plays no card into {now.zone}", *advance(state, game)]
    lines: list[str] = []
    for text in _names(words):
        if state["turn"].get("done", 0) >= now.count:
            raise UsageError(f"up to {now.count} a turn into {now.zone}")
        card = card_named(game, text)
        if now.deck and game.cards[card] != now.deck:
            raise UsageError(f"{card} is a card of {game.cards[card]}; {now.zone} takes "
                             f"{now.deck} cards")
        lines += _pay(state, game, active, card, now.cost)
        _from_hand(state, game, active, card)
        _cards_of(state, game, active, now.zone).append(card)
        state["turn"]["done"] = state["turn"].get("done", 0) + 1
        lines.append(f"{card} goes into {active}'s {now.zone} "
                     f"({', '.join(_cards_of(state, game, active, now.zone))})")
        last = state["turn"]["done"] >= now.count
        lines += _card_effects(state, game, active, card, "played", None,
                               "advance" if last else "stay")
        if state.get("pending"):
            return lines
    if state["turn"]["done"] >= now.count:
        lines += advance(state, game)
    return lines

