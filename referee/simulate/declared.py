"""The balance lab for a game with rules declared as data (carddb.gamerules): whole games
played through the referee's own moves (referee/table/turn.py `step`, the move `referee
play` makes at every step of the walk), the dice from a seeded RNG and every choice made
by a policy: `random` (a random legal answer) or `greedy` (the answer that leaves the
player's declared score highest against the best other player's). No rule is written
twice: a choice is legal when the engine accepts it. The referee counts the cards in a
hand; the lab also knows which cards they are (the deck shuffled here, each card drawn
off its top), so a policy plays the cards it holds. Game i of a run seeded S plays with
an RNG seeded from (S, i) alone: the same seed gives the same figures whatever --jobs."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from carddb.dice import Die, Face
from carddb.gamerules import Step as RuleStep
from referee.errors import RefereeError, UsageError
from referee.table import lab_steps, rules, turn
from referee.table.dice import FaceSource
from referee.table.kit import TableGame, copy_state, new_state

POLICIES = ("random", "greedy")
MAX_STEPS = 20_000  # a game still going after this many steps is counted as unfinished
UNFINISHED = "no end (unfinished)"


def game_seed(seed: int, index: int) -> int:
    """A 64-bit seed for game `index` of a run seeded `seed` (no `hash()`: stable)."""
    from referee.simulate.runner import derived_seed

    return derived_seed("declared", seed, index)


def seat_names(players: int) -> list[str]:
    return [f"P{i + 1}" for i in range(players)]


def shuffle(rng: random.Random, items: list) -> None:
    """`rng.shuffle(items)`: of a plain `random.Random`, its own steps (each swap with a
    number below i + 1 from `getrandbits(bit_length)`, asked again while not below)
    without a call to `_randbelow` an item (the lab shuffles every deck each game, and
    answers at most steps); the same numbers, the same order (tests/referee/table/
    test_lab_steps.py). Another RNG class shuffles by its own method."""
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        below = i + 1
        bits = below.bit_length()
        j = getrandbits(bits)
        while j >= below:
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]


# ── the cards behind the referee's counts ───────────────────────────────────────
class Hidden:
    """Each deck shuffled (its top is the end of the list) and each hand's cards: what
    the referee only counts. `sync` follows the state's counts after every move."""

    def __init__(self, game: TableGame, players: list[str], rng: random.Random) -> None:
        self.piles: dict[str, list[str]] = {}
        for deck, cards in game.deck_cards.items():
            pile = [name for name, copies in cards for _ in range(copies)]
            shuffle(rng, pile)
            self.piles[deck] = pile
        self.hands: dict[str, dict[str, list[str]]] = {
            p: {d: [] for d in game.decks} for p in players}
        self.counts: dict[str, dict[str, int]] = {}  # the state's hands at the last sync

    def sync(self, state: dict, rng: random.Random) -> None:
        table = state["hands"]
        if table == self.counts:  # most steps draw and discard nothing
            return
        counts, hands = self.counts, self.hands
        for player, decks in table.items():
            if counts.get(player) == decks:  # this hand as the last sync left it
                continue
            counts[player] = dict(decks)
            held = hands[player]
            for deck, n in decks.items():
                mine = held[deck]
                if len(mine) == n:
                    continue
                while len(mine) < n:  # drawn: off the top of the deck
                    mine.append(self.piles[deck].pop())
                while len(mine) > n:  # discarded face down: which, the referee does not say
                    mine.pop(rng.randrange(len(mine)))

    def gone(self, player: str, deck: str, card: str) -> None:
        """`card` left `player`'s hand by the table's word (played, discarded by name); the
        counts of the last sync follow it, so a sync after it finds nothing else to do
        when the table's hands changed by that card alone."""
        self.hands[player][deck].remove(card)
        if self.counts:
            self.counts[player][deck] -= 1

    def held(self, player: str, deck: str | None = None) -> list[str]:
        hand = self.hands[player]
        if deck:
            return list(hand[deck])
        return [c for cards in hand.values() for c in cards]


class LabFaces(FaceSource):
    """The referee's dice for the lab: each face drawn from the seeded RNG as FaceSource
    draws it (the same numbers in the same order), without the words naming each die
    that FaceSource keeps for a session's log (the lab keeps no log)."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        # id(die) -> (the die, each face's (key, value or 0)): read once a game, not a roll
        self.keyed: dict[int, tuple[Die, tuple[tuple[str, int], ...]]] = {}

    def take(self, n: int, die: Die, label: str) -> list[Face]:
        choice, faces = self.rng.choice, die.faces
        return [choice(faces) for _ in range(n)]

    def drawn(self, n: int, die: Die, label: str) -> list[tuple[str, int]]:
        """`take`'s faces as (key, value or 0), drawn with the numbers `take` draws:
        `Random.choice` is `seq[_randbelow(len(seq))]`, and `_randbelow` of a plain
        `random.Random` asks `getrandbits(len(seq).bit_length())` until below the length;
        done here without those two calls a die (the lab rolls every turn). Another RNG
        class draws through `choice` (tests/referee/simulate: the same faces as `take`)."""
        hit = self.keyed.get(id(die))
        if hit is None or hit[0] is not die:
            hit = self.keyed[id(die)] = (die, tuple((f.key, f.value or 0) for f in die.faces))
        faces = hit[1]
        if type(self.rng) is not random.Random:
            choice = self.rng.choice
            return [choice(faces) for _ in range(n)]
        getrandbits, sides = self.rng.getrandbits, len(faces)
        bits = sides.bit_length()
        out = []
        for _ in range(n):
            r = getrandbits(bits)
            while r >= sides:
                r = getrandbits(bits)
            out.append(faces[r])
        return out


# ── the answers a step may take ─────────────────────────────────────────────────
def answers(state: dict, game: TableGame, hidden: Hidden, rng: random.Random,
            now: RuleStep | None) -> list[list[str]]:
    """Every answer worth trying at the current step, `now` (the engine decides which are
    legal); the kinds asked most first (the lab asks at every step)."""
    if state.get("pending"):
        return [[p] for p in state["players"]]
    if now is None or now.kind == "roll":
        return [[]]
    kind = now.kind
    if kind == "effect":
        chooses = now.effect is not None and now.effect.chooses
        return [[p] for p in state["players"]] if chooses else [[]]
    if kind == "choose":
        return [[o.name] for o in now.options]
    active = state["turn"]["player"]
    if kind == "play":
        return [[], *([card] for card in sorted(set(hidden.held(active, now.deck or None))))]
    if kind == "discard_to":
        over = rules.hand_size(state, active) - turn.hand_limit(game, now)
        held = hidden.held(active)
        return [[", ".join(rng.sample(held, over))]] if over > 0 else [[]]
    deck = now.deck or next(iter(game.decks))  # reveal: the top card of the shuffled deck
    pile = hidden.piles[deck]
    return [[pile[-1]]] if pile and state["decks"][deck]["deck"] > 0 else [[]]


def margin(state: dict, player: str) -> int:
    """The declared score of `player` less the best other player's (the scores the engine
    keeps in the state after every move: rules.settle)."""
    score = state["scores"]
    if not score:
        return 0
    others = [n for p, n in score.items() if p != player]
    return score[player] - (max(others) if others else 0)


def _move(state: dict, game: TableGame, words: list[str], source: FaceSource,
          rng: random.Random, last: bool) -> dict:
    """The state after `words` by the referee's general step (`turn.step`, where the lab's
    path, referee/table/lab_steps.py, does not take an answer): every answer but the last
    tried on a copy; the last on the state itself, no longer needed (each earlier try has
    its own; a refusal may leave it part-changed, and then an earlier try is taken or the
    game ends)."""
    step = turn.step_in_place if last else turn.step
    return step(state, game, words, source, rng, quiet=True).state  # type: ignore[no-any-return]


def random_answer(state: dict, game: TableGame, hidden: Hidden, source: FaceSource,
                  rng: random.Random, now: RuleStep | None) -> tuple[list[str], dict]:
    """The random policy's answer at the step `now` and the state after it: the answers
    shuffled, the first the engine accepts (`first_accepted`)."""
    options = answers(state, game, hidden, rng, now)
    if len(options) > 1:  # one answer: nothing to shuffle (and no number drawn for it)
        shuffle(rng, options)
    return first_accepted(state, game, options, lab_steps.run_of(game, state, now), source, rng)


def first_accepted(state: dict, game: TableGame, options: list[list[str]], run: lab_steps.Run,
                   source: FaceSource, rng: random.Random) -> tuple[list[str], dict]:
    """The first of `options` the engine accepts and the state after it: tried on the
    state itself by the lab's `run` (a refusal there changes nothing), else, where the run
    does not take it, by the general step on a copy (so a refusal of every answer leaves
    the state as it was)."""
    for words in options:
        done = run(state, words, source)
        if done:
            return words, state
        if done is None:
            try:
                return words, _move(state, game, words, source, rng, False)
            except (RefereeError, UsageError):
                continue
    raise RefereeError(f"no legal answer at {rules.turn_line(state)}")  # the state as it was


def _each_legal(options: list[list[str]], state: dict, game: TableGame, source: FaceSource,
                rng: random.Random, now: RuleStep | None) -> Iterator[tuple[list[str], dict]]:
    """Every answer the engine accepts and the state after it, each but the last on a
    copy of its own; one at a time, so the caller's numbers drawn for each come between
    the tries as they always have (the same seeds, the same games)."""
    last = len(options) - 1
    run = lab_steps.run_of(game, state, now)
    for i, words in enumerate(options):
        target = state if i == last else copy_state(state)
        done = run(target, words, source)
        if done is None:
            try:
                target = _move(target, game, words, source, rng, True)
            except (RefereeError, UsageError):
                continue
        elif not done:
            continue
        yield words, target


def decide(policy: str, state: dict, game: TableGame, hidden: Hidden, source: FaceSource,
           rng: random.Random, now: RuleStep | None) -> tuple[list[str], dict]:
    """The policy's answer at the step `now` and the state after it."""
    if policy == "random":
        return random_answer(state, game, hidden, source, rng, now)
    options = answers(state, game, hidden, rng, now)
    where = {"turn": dict(state["turn"])}  # said (turn_line) when no answer is legal
    chooser = state["pending"]["player"] if state.get("pending") else state["turn"]["player"]
    tried = [(margin(after, chooser), rng.random(), words, after)
             for words, after in _each_legal(options, state, game, source, rng, now)]
    if not tried:
        raise RefereeError(f"no legal answer at {rules.turn_line(where)}")
    best = max(tried, key=lambda t: (t[0], t[1]))
    return best[2], best[3]


# ── the random policy's steps, each kind fused ──────────────────────────────────
class Lab:
    """What one game of the lab steps with besides the state: the game, the cards behind
    the counts, the RNG, the dice and the named rolls' outcomes so far (the record's)."""

    __slots__ = ("game", "hidden", "rng", "source", "rolls", "seats")

    def __init__(self, game: TableGame, hidden: Hidden, rng: random.Random, source: FaceSource,
                 rolls: list[tuple[str, int]], players: list[str]) -> None:
        self.game, self.hidden, self.rng, self.source, self.rolls = (
            game, hidden, rng, source, rolls)
        self.seats = [[p] for p in players]  # each seat's name as an answer (`answers`)


# take(state, lab) -> the state after the step (the random policy's answer taken, what the
# lab follows of it followed), or None: nothing changed and no number drawn, step the
# general way (`_policy_step`)
Take = Callable[[dict, Lab], "dict | None"]
# (a take by the position a turn is at (phase, step), the take of a pending choice)
Takes = tuple[dict[tuple[Any, int], Take], Take]

# id(plan) -> (the plan, its takes): made once a plan (`rules.per_game`; a plan made
# afresh has its own)
_TAKES: dict[int, tuple[lab_steps.Plan, Takes]] = {}


def random_takes(game: TableGame, made: lab_steps.Plan) -> Takes:
    """The random policy's step of each declared step of `game`, once a plan: what the
    lab's loop, the policy (`random_answer`), the run and what the lab follows after it
    (a roll's outcome, the cards behind the counts) do at that step, in one function a
    kind (issue 30 item 5: the lab steps some 80 times a game, and the calls and the
    look-ups between those four were a fifth of its time). Each calls the plan's run of
    its step, the one `lab_steps.run_of` gives (and `lab_steps.watch` sees), and answers
    as `random_answer` does: the same numbers drawn, the same games. The first answer
    is tried there; where its run does not take it, `first_accepted` tries them all in
    turn (the first again: a run refusing, or leaving an answer to the general step,
    changed nothing and drew nothing)."""
    return rules.per_game(_TAKES, id(made), made, lambda: _takes_of(game, made), 64)  # type: ignore[no-any-return]


def _takes_of(game: TableGame, made: lab_steps.Plan) -> Takes:
    takes: dict[tuple[Any, int], Take] = {}
    for (phase, index), now in game.step_at.items():
        run = made.steps.get(id(now))
        if run is not None:
            takes[(phase, index)] = _TAKERS[now.kind](game, now, run, id(now) in made.hand_steps)
    for phase in game.phases:  # a phase without steps: the next phase, nothing to answer
        if (phase, 0) not in game.step_at:
            takes[(phase, 0)] = _phase_take(made.next_phase)
    # a choice of player a card or an option waits for: the hands followed after it, as
    # after every step the loop knows no step of (`_policy_step`)
    return takes, _one_of_take(made.resolve, True)


def _phase_take(run: lab_steps.Run) -> Take:
    """A phase without steps: no answer, the next phase; the hands followed after it."""
    def take(state: dict, lab: Lab) -> dict | None:
        if not run(state, [], lab.source):
            state = first_accepted(state, lab.game, [[]], run, lab.source, lab.rng)[1]
        lab.hidden.sync(state, lab.rng)
        return state
    return take


def _one_of_take(run: lab_steps.Run, hand: bool, names: list[list[str]] | None = None) -> Take:
    """A choice among fixed answers, in shuffled order: each seat's name (a choice of
    player), or each of `names` (a choose step's options)."""
    def take(state: dict, lab: Lab) -> dict | None:
        options = (lab.seats if names is None else names)[:]
        if len(options) > 1:
            shuffle(lab.rng, options)
        if not run(state, options[0], lab.source):
            state = first_accepted(state, lab.game, options, run, lab.source, lab.rng)[1]
        if hand:
            lab.hidden.sync(state, lab.rng)
        return state
    return take


def _effect_take(game: TableGame, now: RuleStep, run: lab_steps.Run, hand: bool) -> Take:
    """An effect: a seat's name when it chooses a player (each seat, shuffled), else no
    answer, taken by its run or left to the general step (nothing drawn yet)."""
    if now.effect is not None and now.effect.chooses:
        return _one_of_take(run, hand)

    def take(state: dict, lab: Lab) -> dict | None:
        if not run(state, [], lab.source):
            return None
        if hand:  # a draw, a discard: the cards behind the counts
            lab.hidden.sync(state, lab.rng)
        return state
    return take


def _roll_take(game: TableGame, now: RuleStep, run: lab_steps.Run, hand: bool) -> Take:
    """A named roll: no answer (the dice from the RNG), its outcome kept for the record."""
    name = now.roll

    def take(state: dict, lab: Lab) -> dict | None:
        if not run(state, [], lab.source):
            return None
        lab.rolls.append((name, int(state["last_roll"]["outcome"])))
        if hand:
            lab.hidden.sync(state, lab.rng)
        return state
    return take


def _choose_take(game: TableGame, now: RuleStep, run: lab_steps.Run, hand: bool) -> Take:
    """An option by its name, each option in shuffled order."""
    return _one_of_take(run, hand, [[option.name] for option in now.options])


def _play_take(game: TableGame, now: RuleStep, run: lab_steps.Run, hand: bool) -> Take:
    """No card, or a card the player holds (each name once, in shuffled order); the card
    played leaves the hand the lab follows."""
    deck, cards = now.deck or None, game.cards

    def take(state: dict, lab: Lab) -> dict | None:
        hidden, active = lab.hidden, state["turn"]["player"]
        options: list[list[str]] = [[]]
        for card in sorted(set(hidden.held(active, deck))):
            options.append([card])
        if len(options) > 1:
            shuffle(lab.rng, options)
        words = options[0]
        if not run(state, words, lab.source):
            words, state = first_accepted(state, lab.game, options, run, lab.source, lab.rng)
        if words:
            for card in turn._names(words):  # noqa: SLF001 - the engine's own reading
                hidden.gone(active, cards[card], card)
        if hand:
            hidden.sync(state, lab.rng)
        return state
    return take


def _discard_take(game: TableGame, now: RuleStep, run: lab_steps.Run, hand: bool) -> Take:
    """Over the hand limit: as many held cards as over it, drawn at random by name."""
    limit, cards = turn.hand_limit(game, now), game.cards

    def take(state: dict, lab: Lab) -> dict | None:
        hidden, active = lab.hidden, state["turn"]["player"]
        over = rules.hand_size(state, active) - limit
        words = [", ".join(lab.rng.sample(hidden.held(active), over))] if over > 0 else []
        if not run(state, words, lab.source):
            words, state = first_accepted(state, lab.game, [words], run, lab.source, lab.rng)
        if words:
            for card in turn._names(words):  # noqa: SLF001 - the engine's own reading
                hidden.gone(active, cards[card], card)
        if hand:
            hidden.sync(state, lab.rng)
        return state
    return take


def _reveal_take(game: TableGame, now: RuleStep, run: lab_steps.Run, hand: bool) -> Take:
    """The top card of the deck the lab shuffled (none when the table's deck is empty),
    taken off the lab's pile once revealed."""
    deck, cards = now.deck or next(iter(game.decks)), game.cards

    def take(state: dict, lab: Lab) -> dict | None:
        hidden = lab.hidden
        pile = hidden.piles[deck]
        words = [pile[-1]] if pile and state["decks"][deck]["deck"] > 0 else []
        if not run(state, words, lab.source):
            words, state = first_accepted(state, lab.game, [words], run, lab.source, lab.rng)
        if words:
            hidden.piles[cards[words[0]]].pop()
        if hand:
            hidden.sync(state, lab.rng)
        return state
    return take


_TAKERS: dict[str, Callable[[TableGame, RuleStep, lab_steps.Run, bool], Take]] = {
    "effect": _effect_take, "roll": _roll_take, "choose": _choose_take, "play": _play_take,
    "discard_to": _discard_take, "reveal": _reveal_take}


# ── one game ────────────────────────────────────────────────────────────────────
def _policy_step(state: dict, lab: Lab, made: lab_steps.Plan, policy_of: dict[str, str],
                 steps: int) -> dict:
    """One step by the policy of whoever answers it (`decide`), and what the lab follows
    after it: a roll's outcome, the cards behind the counts; the state after it."""
    game, hidden, source, rng = lab.game, lab.hidden, lab.source, lab.rng
    pending = state.get("pending")
    now = turn.current_step(state, game) if not pending else None
    actor = state["turn"]["player"]
    policy_now = policy_of[pending["player"] if pending else actor]
    if (policy_now == "random" and id(now) in made.fixed
            and lab_steps.run_of(game, state, now)(state, [], source)):
        words: list[str] = []  # the one answer `answers` gives such a step, taken (random_answer)
    else:
        words, state = decide(policy_now, state, game, hidden, source, rng, now)
    kind = now.kind if now is not None else ""
    if kind == "roll":
        if state.get("last_roll"):
            lab.rolls.append((now.roll, int(state["last_roll"]["outcome"])))  # type: ignore[union-attr]
    elif words and kind in ("play", "discard_to"):
        for card in turn._names(words):  # noqa: SLF001 - the engine's own reading
            hidden.gone(actor, game.cards[card], card)
    elif words and kind == "reveal":
        hidden.piles[game.cards[words[0]]].pop()
    if not steps:  # a quiet step settles only what it may change: the first state too
        rules.settle(state, game)
    if now is None or id(now) in made.hand_steps:  # the other steps change no hand
        hidden.sync(state, rng)
    return state


def end_label(end: Any) -> str:
    if end.kind in ("token", "pool"):
        return f"{end.kind}: {end.test}"
    if end.kind == "deck_empty":
        return f"deck_empty: {end.deck}"
    return f"rounds: {end.count}"


def _which_end(state: dict, game: TableGame) -> str:
    reason = str(state.get("ended") or "")
    for end in game.rules.end:
        if end.kind in ("token", "pool") and reason.endswith(f"({end.test})"):
            return end_label(end)
        if end.kind == "deck_empty" and reason.startswith(
                f"the {game.deck_titles.get(end.deck, end.deck)} deck is empty"):
            return end_label(end)
        if end.kind == "rounds" and reason.endswith(" played"):
            return end_label(end)
    return reason or UNFINISHED


def _in_play(state: dict, player: str) -> list[str]:
    return [c for cards in state.get("zones", {}).get(player, {}).values() for c in cards]


def seat_policies(policy: str, state: dict) -> dict[str, str]:
    """Each player's policy: `policy` names one for all, or one a seat in turn order from
    the first player (`greedy,random`: the first player greedy)."""
    names = policy.split(",")
    players = state["players"]
    first = players.index(state["setup"]["first"])
    order = players[first:] + players[:first]
    return {p: names[i if len(names) > 1 else 0] for i, p in enumerate(order)}


def parse_policies(text: str, players: int) -> str:
    """`--policy`: one name, or one a seat separated by commas (a one-line refusal)."""
    from referee.simulate import policy_names

    return ",".join(policy_names(text, players, POLICIES))


def play_game(game: TableGame, players: int, policy: str, seed: int) -> dict[str, Any]:
    """One whole game; its record (plain data): seats in turn order from the first player.
    A table of the random policy alone steps by its takes (`random_takes`) where there is
    one, else by `_policy_step`, as every step of another table does."""
    rng = random.Random(seed)
    source = LabFaces(rng)
    names = seat_names(players)
    state = new_state(names, game, source)
    rolls: list[tuple[str, int]] = []
    lab = Lab(game, Hidden(game, names, rng), rng, source, rolls, state["players"])
    policy_of = seat_policies(policy, state)
    made = lab_steps.plan(game)
    takes, resolving = random_takes(game, made) if set(policy_of.values()) == {"random"} \
        else ({}, None)
    steps = 0
    if not state.get("over"):  # the first step by `_policy_step`, which settles after it
        state = _policy_step(state, lab, made, policy_of, steps)
        steps = 1
    while not state.get("over") and steps < MAX_STEPS:
        at = state["turn"]  # the position `turn.current_step` reads
        take = resolving if state.get("pending") else takes.get((at.get("phase"),
                                                                 at.get("step", 0)))
        after = take(state, lab) if take is not None else None
        state = after if after is not None else _policy_step(state, lab, made, policy_of, steps)
        steps += 1
    first = state["setup"]["first"]
    order = names[names.index(first):] + names[:names.index(first)]
    ended = _which_end(state, game) if state.get("over") else UNFINISHED
    at_start = (ended.startswith(("deck_empty", "rounds"))
                or state.get("ended") == state.get("last_round"))  # a round played out
    score = rules.scores(state, game)
    return {"winners": [order.index(p) for p in state.get("winner") or []],
            "turns": state["turn"]["number"] - (1 if at_start else 0),
            "rounds": state["turn"]["round"] - (1 if at_start and state["turn"]["player"] == first
                                                else 0),  # rounds begun
            "scores": [score.get(p, 0) for p in order], "end": ended, "rolls": rolls,
            "in_play": [_in_play(state, p) for p in order]}


# ── many games ──────────────────────────────────────────────────────────────────
@dataclass
class Tally:
    """Plain integer counts over games (merged in game order: the same whatever --jobs)."""

    games: int = 0
    seat_wins: list[int] = field(default_factory=list)
    shared: int = 0
    turns: list[int] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)
    spread: list[int] = field(default_factory=list)  # best score less the lowest, a game
    win_scores: list[int] = field(default_factory=list)
    ends: Counter = field(default_factory=Counter)
    rolls: dict[str, Counter] = field(default_factory=dict)
    winner_cards: Counter = field(default_factory=Counter)
    loser_cards: Counter = field(default_factory=Counter)
    winner_seats: int = 0
    loser_seats: int = 0
    # policy -> [[wins, games] at each seat in turn order]: a policy's wins by seat
    policy_seats: dict[str, list[list[int]]] = field(default_factory=dict)

    def add(self, record: dict[str, Any]) -> None:
        n = len(record["scores"])
        if not self.seat_wins:
            self.seat_wins = [0] * n
        self.games += 1
        won = record["winners"]
        for s in won:
            self.seat_wins[s] += 1
        for s, name in enumerate(record.get("policies", ())):
            cell = self.policy_seats.setdefault(name, [[0, 0] for _ in range(n)])[s]
            cell[0] += s in won
            cell[1] += 1
        self.shared += len(won) > 1
        self.turns.append(record["turns"])
        self.rounds.append(record["rounds"])
        scores = record["scores"]
        self.spread.append(max(scores) - min(scores) if scores else 0)
        if won:
            self.win_scores.append(scores[won[0]])
        self.ends[record["end"]] += 1
        for name, outcome in record["rolls"]:
            self.rolls.setdefault(name, Counter())[outcome] += 1
        for s, cards in enumerate(record["in_play"]):
            if not won:
                continue
            if s in won:
                self.winner_cards.update(cards)
                self.winner_seats += 1
            else:
                self.loser_cards.update(cards)
                self.loser_seats += 1


def _mean(values: list[int]) -> float:
    return sum(values) / len(values) if values else 0.0


def _sd(values: list[int]) -> float:
    if len(values) < 2:
        return 0.0
    m = _mean(values)
    return float((sum((v - m) ** 2 for v in values) / (len(values) - 1)) ** 0.5)


def by_policy(tally: Tally) -> list[dict[str, Any]]:
    """Each policy's wins over every seat it played (a shared first place counts for each
    seat), with its Wilson 95% interval, and its wins at each seat in turn order. A policy
    fixed to one seat carries that seat's advantage: `--seating rotate` seats the policies
    in turn so each plays every seat as often (differing by one game at most)."""
    from referee.simulate.stats import wilson

    rows = []
    for name, cells in sorted(tally.policy_seats.items()):
        wins, n = sum(c[0] for c in cells), sum(c[1] for c in cells)
        low, high = wilson(wins, n)
        rows.append({"policy": name, "seats_played": n, "wins": wins,
                     "rate": wins / n if n else 0.0, "low": low, "high": high,
                     "by_seat": [{"seat": s + 1, "games": g, "wins": w}
                                 for s, (w, g) in enumerate(cells)]})
    return rows


def _counts(values: list[int]) -> dict[str, int]:
    """How many games had each value (a histogram; JSON keys are strings)."""
    return {str(v): n for v, n in sorted(Counter(values).items())}


def with_odds(summary: dict[str, Any], tally: Tally, game: TableGame) -> dict[str, Any]:
    """Each named roll's outcomes against its exact odds (referee/table/pools.py), with the
    goodness-of-fit test, as `referee report` gives them: `fit` in the roll's figures."""
    from referee.report.read import exact_odds
    from referee.report.summary import fit

    for name, figures in summary["rolls"].items():
        declared = game.rules.rolls.get(name)
        odds = exact_odds(game.dice, declared) if declared is not None else None
        figures["fit"] = fit(odds, tally.rolls[name])
    return summary


def summarize(tally: Tally, top: int = 8) -> dict[str, Any]:
    """The figures the lab reports, plain data for --json."""
    from referee.simulate.stats import wilson

    n = tally.games
    players = len(tally.seat_wins)
    seats = []
    for s, wins in enumerate(tally.seat_wins):
        low, high = wilson(wins, n)
        seats.append({"seat": s + 1, "wins": wins, "rate": wins / n if n else 0.0,
                      "low": low, "high": high})
    fair = 1 / players if players else 0.0
    first = seats[0] if seats else {"rate": 0.0, "low": 0.0, "high": 1.0}
    cards = []
    for card in set(tally.winner_cards) | set(tally.loser_cards):
        w = tally.winner_cards[card] / tally.winner_seats if tally.winner_seats else 0.0
        lo = tally.loser_cards[card] / tally.loser_seats if tally.loser_seats else 0.0
        cards.append({"card": card, "winner": round(w, 4), "loser": round(lo, 4),
                      "difference": round(w - lo, 4)})
    cards.sort(key=lambda c: (-c["difference"], c["card"]))
    rolls = {}
    for name, counts in sorted(tally.rolls.items()):
        total = sum(counts.values())
        rolls[name] = {"rolls": total, "outcomes": {str(k): {"count": v, "rate": v / total}
                                                    for k, v in sorted(counts.items())}}
    return {
        "games": n, "players": players, "seats": seats, "shared_wins": tally.shared,
        "first_player": {"rate": first["rate"], "low": first["low"], "high": first["high"],
                         "fair": fair, "advantage": first["rate"] - fair},
        "turns": {"mean": _mean(tally.turns), "sd": _sd(tally.turns),
                  "min": min(tally.turns, default=0), "max": max(tally.turns, default=0),
                  "counts": _counts(tally.turns)},
        "rounds": {"mean": _mean(tally.rounds), "sd": _sd(tally.rounds),
                   "min": min(tally.rounds, default=0), "max": max(tally.rounds, default=0),
                   "counts": _counts(tally.rounds)},
        "score_spread": {"mean": _mean(tally.spread), "sd": _sd(tally.spread),
                         "winner_mean": _mean(tally.win_scores),
                         "counts": _counts(tally.spread)},
        "ends": {k: {"count": v, "rate": v / n} for k, v in sorted(tally.ends.items())},
        "rolls": rolls,
        "cards": cards[:top],
        "by_policy": by_policy(tally),
    }


def seating(policy: str, players: int, index: int, rotate: bool) -> list[str]:
    """The policy of each seat in turn order for game `index` of a run: as given, or with
    `rotate` shifted one seat a game (game 0 as given; game 1 seat 1 plays what seat 2 was
    given, ...), so each policy plays every seat equally; by the game's index alone, so
    the same whatever --jobs."""
    names = policy.split(",")
    names = names * players if len(names) == 1 else names
    shift = index % players if rotate else 0
    return names[shift:] + names[:shift]


def play_chunk(job: tuple[TableGame, int, str, int, int, int, bool]) -> tuple[int, list[dict]]:
    """Games `start` .. `start + count - 1` of a run; returns (start, their records), each
    with the policy of each seat in turn order (`policies`)."""
    game, players, policy, seed, start, count, rotate = job
    records = []
    for i in range(start, start + count):
        seats = seating(policy, players, i, rotate)
        record = play_game(game, players, ",".join(seats), game_seed(seed, i))
        records.append({**record, "policies": seats})
    return start, records


def default_jobs() -> int:
    from referee.simulate.runner import default_workers

    return default_workers()


def simulate(variants: list[TableGame], players: int, policy: str, games: int, seed: int,
             jobs: int = 1, rotate: bool = False) -> list[dict[str, Any]]:
    """`games` games of each variant (every variant with the same seeds), in chunks over
    `jobs` processes; each variant's summary, in the order given. `rotate`: the policies
    change seats each game (`seating`)."""
    from referee.simulate.runner import CHUNK_GAMES, process_pool

    work = [(v, (game, players, policy, seed, start, min(CHUNK_GAMES, games - start), rotate))
            for v, game in enumerate(variants) for start in range(0, games, CHUNK_GAMES)]
    results: dict[tuple[int, int], list[dict]] = {}
    if jobs <= 1 or len(work) == 1:
        for v, job in work:
            results[(v, job[4])] = play_chunk(job)[1]
    else:
        with process_pool(min(jobs, len(work))) as pool:
            done = pool.map(play_chunk, [job for _, job in work])
        for (v, _), (start, records) in zip(work, done, strict=True):
            results[(v, start)] = records
    out = []
    for v in range(len(variants)):
        tally = Tally()
        for key in sorted(k for k in results if k[0] == v):
            for record in results[key]:
                tally.add(record)
        out.append(with_odds(summarize(tally), tally, variants[v]))
    return out


# ── sweeps: one setting of cards.yaml changed, a variant for each value ──────────
SWEEP_KEYS = ("hand_limit", "dice.DIE.faces", "tokens.KIND.start", "end.rounds",
              "end.token.KIND", "end.pool.KIND", "end.finish")


def parse_set(text: str) -> tuple[str, list[str]]:
    """`KEY=V1,V2,...` as (KEY, values); a die's faces are one value, spaced:
    `dice.storm.faces=wind wave calm 2 2 2,wind wind wave calm 2 2`."""
    key, eq, values = text.partition("=")
    key = key.strip()
    found = [v.strip() for v in values.split(",") if v.strip()]
    if not eq or not key or not found:
        raise UsageError(f"--set {text!r}: write KEY=V1,V2,... (keys: {', '.join(SWEEP_KEYS)})")
    return key, found


def _set(extras: dict, key: str, value: str, title: str) -> None:
    parts = key.split(".")
    where = f"--set {key}={value}"
    if parts == ["hand_limit"]:
        extras["hand_limit"] = _number(value, where)
    elif len(parts) == 3 and parts[0] == "dice" and parts[2] == "faces":
        die = _known(extras.get("dice") or {}, parts[1], "die", title, where)
        die["faces"] = [int(f) if f.lstrip("-").isdigit() else f for f in value.split()]
    elif len(parts) == 3 and parts[0] == "tokens" and parts[2] == "start":
        kind = _known(extras.get("tokens") or {}, parts[1], "token", title, where)
        if not re.fullmatch(r"\d+|[1-9]\d?d[1-9]\d{0,2}", value):
            raise UsageError(f"{where}: a start is a whole number or dice such as 2d6")
        kind["start"] = int(value) if value.isdigit() else value
    elif parts == ["end", "finish"]:
        _finish(extras, value, title, where)
    elif parts == ["end", "rounds"]:
        _end(extras, "rounds", None, _number(value, where), title, where)
    elif len(parts) == 3 and parts[:2] in (["end", "token"], ["end", "pool"]):
        if not re.fullmatch(r"(>=|<=|==|!=|>|<) ?-?\d+", value):
            raise UsageError(f"{where}: an end test is a comparison and a number, '>= 25'")
        _end(extras, parts[1], parts[2], value, title, where)
    else:
        raise UsageError(f"{where}: no such setting (keys: {', '.join(SWEEP_KEYS)})")


def _number(value: str, where: str) -> int:
    if not value.isdigit():
        raise UsageError(f"{where}: a whole number")
    return int(value)


def _known(table: dict, name: str, what: str, title: str, where: str) -> dict:
    if name not in table:
        raise UsageError(f"{where}: {title} has no {what} '{name}' (it has: "
                         f"{', '.join(table) or 'none'})")
    table[name] = dict(table[name])
    return table[name]  # type: ignore[no-any-return]


def _end(extras: dict, kind: str, name: str | None, value: Any, title: str, where: str) -> None:
    ends = [dict(e) if isinstance(e, dict) else e for e in extras.get("end") or []]
    for end in ends:
        if not isinstance(end, dict) or kind not in end:
            continue
        if name is None:
            end[kind] = value
            break
        if isinstance(end[kind], dict) and name in end[kind]:
            end[kind] = {**end[kind], name: value}
            break
    else:
        raise UsageError(f"{where}: {title} declares no such end condition")
    extras["end"] = ends


def _finish(extras: dict, value: str, title: str, where: str) -> None:
    """`end.finish=now|round`: every end condition of the game finishes so."""
    from carddb.gamerules import FINISHES

    if value not in FINISHES:
        raise UsageError(f"{where}: a finish is one of {', '.join(FINISHES)}")
    ends = [e for e in extras.get("end") or [] if isinstance(e, dict)]
    if not ends:
        raise UsageError(f"{where}: {title} declares no end condition")
    extras["end"] = [{**e, "finish": value} for e in ends]


def variant(db: Any, game_id: str, settings: list[tuple[str, str]]) -> TableGame:
    """The game as cards.yaml declares it with `settings` changed (a refusal, one line,
    when a setting names nothing or its value is not one the rules accept)."""
    import copy

    from carddb import expr

    game = db.games[game_id]
    extras = copy.deepcopy(game.extras)
    for key, value in settings:
        _set(extras, key, value, game.title)
    patched = copy.copy(game)
    object.__setattr__(patched, "extras", extras)
    shadow = copy.copy(db)
    object.__setattr__(shadow, "games", {**db.games, game_id: patched})
    label = ", ".join(f"{k}={v}" for k, v in settings)
    try:
        table = TableGame.from_db(shadow, game_id)
        for end in table.rules.end:
            if end.test:
                expr.parse(end.test)
    except Exception as error:  # noqa: BLE001 - any value the rules cannot read: one line
        raise UsageError(f"--set {label}: not a value {game.title} can play with ({error})"
                         ) from None
    return table


def sweep(db: Any, game_id: str, sets: list[tuple[str, list[str]]]) -> list[list[tuple[str, str]]]:
    """Every combination of the values of each --set key, in the order given."""
    import itertools

    keys = [k for k, _ in sets]
    return [list(zip(keys, combo, strict=True))
            for combo in itertools.product(*(values for _, values in sets))]
