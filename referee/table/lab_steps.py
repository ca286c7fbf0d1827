"""The balance lab's path through a declared game's steps (issue 30 item 5): what
`turn.step_in_place(quiet=True)` does to a state, done without a word said, without a
`Result`, and refused before anything is changed, so the lab tries an answer on the
state itself rather than on a copy. Each declared step of a game is made once into one
function (`plan`): what it reads of the declaration (its effects, each made once by
`rules.quiet_effects`; its deck, roll, options, limit; whether it settles) looked up
then, not at every turn.

The rules' meaning is the referee's own: each kind calls the same rule functions
(`rules.quiet_effects` is `apply_effects` saying nothing, `rules.rolled` is `roll`'s
outcome, `turn.advance_quietly` is `advance`, `rules.settle`), and what this path checks
before it changes anything (`rules.refuses`, `turn.hand_refuses`, a cost) is the
refusals those functions raise. An answer this path does not take (a card named in
another language, several cards played at once, a cost of two kinds, a reveal drawn by
the referee, faces typed) gives None and the caller steps the general way;
tests/referee/table/test_lab_steps.py plays whole games through both and compares every
state."""

from __future__ import annotations

from collections.abc import Callable

from carddb.gamerules import Effect
from carddb.gamerules import Step as RuleStep
from referee.errors import UsageError
from referee.table import rules, turn
from referee.table.dice import FaceSource
from referee.table.kit import TableGame, deck_of

# run(state, words, source) -> True (done), False (refused, nothing changed) or None
# (not taken here: nothing changed, step the general way)
Run = Callable[[dict, list[str], FaceSource], "bool | None"]
# (advance, settle): how a run ends (`ends`)
Ends = tuple[Callable[[dict], None], Callable[[dict], None]]

# id(game) -> (the game, its plan)
_PLANS: dict[int, tuple[TableGame, Plan]] = {}

# watch(kind, run) -> the run a plan keeps: each run a plan makes passed through it when
# set (kind: a step's kind, "pending" or "none"), so a test sees every run the lab calls,
# however the caller reaches it (`run_of`, or referee/simulate/declared.py's random steps,
# which hold a plan's runs); None in play. Plans made before it was set keep their runs:
# tests/referee/table/test_lab_steps.py sets it with `_PLANS` emptied.
Watch = Callable[[str, Run], Run]
watch: Watch | None = None


def _not_here(state: dict, words: list[str], source: FaceSource) -> bool | None:
    return None


class Plan:
    """A game's steps made into runs, once a game: each declared step's (`steps`, by the
    step's id; None for a kind this path does not take), a pending choice's and a phase's
    without steps (`now` None)."""

    def __init__(self, game: TableGame) -> None:
        self.game = game
        self.settle = rules.settler(game)
        self.at = {id(s): at for at, s in game.step_at.items()}  # each step's (phase, index)
        self.steps: dict[int, Run | None] = {id(s): self.made(s) for s in game.step_at.values()}
        self.resolve = _watched("pending", self._resolving)
        self.next_phase = _watched("none", self._phase_over)
        # the steps that may change a hand (`turn.step_parts`), by id: after the others the
        # lab's hidden hands have nothing to follow
        self.hand_steps = frozenset(id(s) for s in game.step_at.values()
                                    if "hands" in turn.step_parts(game, s))
        # the steps with one answer whatever the state (`answers`: none typed), by id: a
        # roll, an effect that chooses no player; the random policy takes it without a
        # list of answers to shuffle
        self.fixed = frozenset(id(s) for s in game.step_at.values()
                               if s.kind == "roll" or (s.kind == "effect" and s.effect is not None
                                                       and not s.effect.chooses))

    def made(self, now: RuleStep) -> Run | None:
        """The run of the step `now`, which settles itself after it when it may change what
        settle reads (`turn.settles`): its `Ends`."""
        make = MAKERS.get(now.kind)
        try:
            run = make(self.game, now, ends(self.game, self.at[id(now)],
                                            turn.settles(self.game, now))) \
                if make is not None else None
        except UsageError:  # a declaration the general path refuses at the step itself
            return None
        return _watched(now.kind, run) if run is not None else None

    def _resolving(self, state: dict, words: list[str], source: FaceSource) -> bool | None:
        done = _resolve(state, self.game, words)
        if done:
            self.settle(state)
        return done

    def _phase_over(self, state: dict, words: list[str], source: FaceSource) -> bool | None:
        rules.next_phase_quietly(state, self.game)
        self.settle(state)
        return True


def _watched(kind: str, run: Run) -> Run:
    """`run` as `watch` keeps it (itself when nothing watches)."""
    return run if watch is None else watch(kind, run)


def _unsettled(state: dict) -> None:
    """A step that cannot change what settle reads: nothing to settle."""


def ends(game: TableGame, at: tuple[str, int], settles: bool) -> Ends:
    """How the run of the step at `at` (its phase, its index) ends, one call each:
    (`advance`: `turn.advance_quietly` then, where the step `settles`, `rules.settle`'s
    two halves; `settle`: those halves alone, for a step that stays where it is).
    `advance_quietly`'s few lines are written here rather than called, one frame fewer at
    every lab step (issue 30), and what they read of the position worked out once: a run
    is called at its own step (`run_of`), so the next index and whether the phase has a
    step there are known; test_lab_steps compares every state with the general step's."""
    following = at[1] + 1
    last = (at[0], following) not in game.step_at  # the phase's last step: the next phase
    next_phase = rules.next_phase_quietly
    check, end = rules.settle_check(game), rules.settle_end(game)

    def advance(state: dict) -> None:
        turn_now = state["turn"]
        turn_now["step"] = following
        turn_now["done"] = 0
        if last:
            next_phase(state, game)
        if settles and check(state):
            end(state)

    def settle(state: dict) -> None:
        if check(state):
            end(state)
    return advance, settle if settles else _unsettled


def plan(game: TableGame) -> Plan:
    """`game`'s plan, made once a game."""
    hit = _PLANS.get(id(game))
    if hit is not None and hit[0] is game:
        return hit[1]
    return rules.per_game(_PLANS, id(game), game, lambda: Plan(game), 64)  # type: ignore[no-any-return]


def run_of(game: TableGame, state: dict, now: RuleStep | None) -> Run:
    """The run of the step `state` is at (`now`: `turn.current_step`, None when a choice
    is pending or the phase has no steps): `run(state, words, source)` answers it with
    `words` on `state` in place, settled as a quiet step settles: True done, False
    refused (the state as it was), None not taken here (step the general way)."""
    if state.get("over"):
        return _not_here  # refused by the general path, with its words
    hit = _PLANS.get(id(game))  # `plan(game)`, looked up here: at every lab step
    made = hit[1] if hit is not None and hit[0] is game else plan(game)
    if state.get("pending"):
        return made.resolve
    if now is None:
        return made.next_phase
    return made.steps.get(id(now)) or _not_here


def step(state: dict, game: TableGame, now: RuleStep | None, words: list[str],
         source: FaceSource) -> bool | None:
    """`run_of(game, state, now)(state, words, source)`."""
    return run_of(game, state, now)(state, words, source)


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


class _Chain:
    """Effects made once: applied saying nothing, and whether they may be refused."""

    __slots__ = ("effects", "apply", "refusable")

    def __init__(self, game: TableGame, effects: tuple[Effect, ...]) -> None:
        self.effects = effects
        self.apply = rules.quiet_effects(game, effects)
        self.refusable = rules.may_refuse(effects)

    def refuses(self, player: str, chosen: str | None) -> bool:
        """`rules.refuses` (asked where `refusable`: a chain without a transfer never is)."""
        return rules.refuses(self.effects, player, chosen)


def _card_chains(game: TableGame, when: str) -> Callable[[str], _Chain]:
    """Each card's effects `when` (played or revealed), made once when first asked."""
    made: dict[str, _Chain] = {}

    def chain(card: str) -> _Chain:
        found = made.get(card)
        if found is None:
            found = made[card] = _Chain(game, game.rules.effects_of(
                card, game.card_types.get(card, ""), when))
        return found
    return chain


def _card_done(state: dict, chain: _Chain, who: str, card: str, when: str, count: int,
               ends: Ends) -> None:
    """A card revealed or played (`when`) counted, its effects applied (`_after_card`),
    and the turn moved on when it was the step's last card and nothing is pending, else
    settled where it stands."""
    advance, settle = ends
    done = state["turn"]["done"] = state["turn"].get("done", 0) + 1
    _after_card(state, chain, who, card, when, done >= count)
    if done >= count and not state.get("pending"):
        advance(state)
    else:
        settle(state)


def _after_card(state: dict, chain: _Chain, who: str, card: str, when: str,
                last: bool) -> None:
    """`turn._card_effects` saying nothing: a choice of player not given left pending."""
    stopped = chain.apply(state, who, None, card, 0)
    if stopped is not None:
        state["pending"] = {"kind": "card", "card": card, "player": who, "when": when,
                            "index": stopped, "then": "advance" if last else "stay"}


def _effect(game: TableGame, now: RuleStep, ends: Ends) -> Run:
    advance, _ = ends
    assert now.effect is not None
    chain = _Chain(game, (now.effect,))
    chooses = now.effect.chooses

    def run(state: dict, words: list[str], source: FaceSource) -> bool | None:
        active = state["turn"]["player"]
        chosen = None
        if chooses:
            chosen = _seat(state, words, active)
            if chosen is None:
                return None
        elif words:
            return False  # a step that runs by itself takes no answer
        if chain.refusable and chain.refuses(active, chosen):
            return False
        chain.apply(state, active, chosen, None, 0)
        advance(state)
        return True
    return run


def _roll(game: TableGame, now: RuleStep, ends: Ends) -> Run:
    advance, _ = ends
    named = game.rules.rolls[now.roll]

    def run(state: dict, words: list[str], source: FaceSource) -> bool | None:
        if words:
            return None  # faces typed: read by the general path
        rules.rolled(state, game, named, state["turn"]["player"], source)
        advance(state)
        return True
    return run


def _choose(game: TableGame, now: RuleStep, ends: Ends) -> Run:
    advance, settle = ends
    chains = {option.name: _Chain(game, option.effects) for option in now.options}
    default = now.default

    def run(state: dict, words: list[str], source: FaceSource) -> bool | None:
        pick = " ".join(words) if words else default
        chain = chains.get(pick)
        if chain is None:
            return None  # not an option's name as written: the general path reads it
        active = state["turn"]["player"]
        if chain.refusable and chain.refuses(active, None):
            return False
        stopped = chain.apply(state, active, None, None, 0)
        if stopped is None:
            advance(state)
            return True
        state["pending"] = {"kind": "option", "option": pick, "player": active,
                            "phase": state["turn"]["phase"], "step": state["turn"]["step"],
                            "index": stopped, "then": "advance"}
        settle(state)
        return True
    return run


def _discard_to(game: TableGame, now: RuleStep, ends: Ends) -> Run:
    advance, _ = ends
    limit = turn.hand_limit(game, now)

    def run(state: dict, words: list[str], source: FaceSource) -> bool | None:
        active = state["turn"]["player"]
        over = rules.hand_size(state, active) - limit
        if over <= 0:
            if words:
                return False
            advance(state)
            return True
        found = [game.folded.get(w.casefold()) for w in turn._names(words)]  # noqa: SLF001
        cards = [card for card in found if card is not None]
        if len(cards) < len(found) or state["shown"][active]:
            return None  # a name in another language, or shown cards: the general path
        if len(cards) > over or not _held(state["hands"][active], game, cards):
            return False
        for card in cards:
            deck = game.cards[card]
            state["hands"][active][deck] -= 1
            pile = state["decks"][deck]
            pile["discard"] += 1
            pile["seen"].append(card)
        if over - len(cards):
            rules.discard_face_down(state, game, active, over - len(cards))
        advance(state)
        return True
    return run


def _held(hand: dict[str, int], game: TableGame, cards: list[str]) -> bool:
    """Whether a hand of these counts holds as many cards of each deck as `cards`."""
    wanted: dict[str, int] = {}
    for card in cards:
        deck = game.cards[card]
        wanted[deck] = wanted.get(deck, 0) + 1
    return all(hand[d] >= n for d, n in wanted.items())


def _reveal(game: TableGame, now: RuleStep, ends: Ends) -> Run:
    advance, _ = ends
    deck = deck_of(game, now.deck or None)
    chain_of = _card_chains(game, "revealed")
    count = now.count

    def run(state: dict, words: list[str], source: FaceSource) -> bool | None:
        pile = state["decks"][deck]
        if not words:
            if pile["deck"] >= 1:
                return None  # the referee draws the card: the general path
            advance(state)
            return True
        card = game.folded.get(" ".join(words).strip().casefold())
        if card is None:
            return None  # a name in another language, or none: the general path
        active = state["turn"]["player"]
        chain = chain_of(card)
        if (pile["deck"] < 1 or game.cards[card] != deck
                or not turn._unseen_copy(state, game, deck, card)  # noqa: SLF001
                or (chain.refusable and chain.refuses(active, None))):
            return False
        pile["deck"] -= 1
        pile["discard"] += 1
        pile["seen"].append(card)
        _card_done(state, chain, active, card, "revealed", count, ends)
        return True
    return run


def _play(game: TableGame, now: RuleStep, ends: Ends) -> Run | None:
    advance, _ = ends
    if len(now.cost) > 1:
        return None  # a cost of two kinds: each paid in turn, by the general path
    chain_of = _card_chains(game, "played")
    count, zone, deck, cost = now.count, now.zone, now.deck, now.cost

    def run(state: dict, words: list[str], source: FaceSource) -> bool | None:
        if not words:
            advance(state)
            return True
        names = turn._names(words)  # noqa: SLF001 - the engine's own reading of an answer
        card = game.folded.get(names[0].casefold()) if len(names) == 1 else None
        if card is None:
            return None  # several cards, or a name in another language: the general path
        active = state["turn"]["player"]
        if state["turn"].get("done", 0) >= count or (deck and game.cards[card] != deck):
            return False
        if cost:  # of one kind at most (above): what `turn._pay` asks
            kind, n, have = turn.price(state, game, active, card, *cost[0])
            if n > have - kind.min:
                return False
        chain = chain_of(card)
        if (turn.hand_refuses(state, game, active, card)
                or (chain.refusable and chain.refuses(active, None))):
            return False
        if cost:
            rules.moved(state, None if kind.shared else active, kind, -n)
        turn._from_hand(state, game, active, card)  # noqa: SLF001
        turn._cards_of(state, game, active, zone).append(card)  # noqa: SLF001
        _card_done(state, chain, active, card, "played", count, ends)
        return True
    return run


MAKERS: dict[str, Callable[[TableGame, RuleStep, Ends], Run | None]] = {
    "effect": _effect, "roll": _roll, "choose": _choose, "discard_to": _discard_to,
    "reveal": _reveal, "play": _play}
