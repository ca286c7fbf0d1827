"""The generic table kit: any game of cards.yaml without a `rules:` plug-in, played with
what it declares: dice, tokens (per player or shared, a bank of `count`), its decks held
by the players (counted, a card learned only when shown), seats and turns (optional
`phases:`). Pure functions on a state dict; dice come from an injected `FaceSource`.

State: `{"game": ID, "kit": "table", "seed", "players": [seat order], "title",
"turn": {"number", "round", "player", "phase": str|None}, "tokens": {player: {kind: n}},
"pool": {kind: n} (shared kinds), "decks": {deck: {"deck": n, "discard": n, "seen":
[cards shown onto the discard pile, top last]}}, "hands": {player: {deck: n}}, "shown":
{player: [cards shown and kept in hand]}, "last_roll": {...}|None, "setup": {...},
"over": false, "winner": null}`. `public_state` leaves out the seed and `shown`."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from typing import Any

from carddb.dice import Die, dice_of
from carddb.gamerules import Phase, Rules, rules_of
from carddb.gamerules import Step as RuleStep
from referee.errors import RefereeError, UsageError
from referee.inputs import shown
from referee.outcome import Result, Step
from referee.state_copy import ATOMS
from referee.state_copy import copy_state as copied
from referee.table.dice import FaceSource, summary
from referee.words import counted

KIT = "table"


@dataclass(frozen=True)
class TokenKind:
    id: str
    name: str
    label: str
    count: int  # the bank: every token of the kind printed
    start: int | str  # a number, or dice like "2d6"
    shared: bool
    min: int = 0  # what a holding never goes below (tokens.KIND.min)
    max: int | None = None  # nor above (tokens.KIND.max)


@dataclass(frozen=True)
class TableGame:
    """What cards.yaml declares of a game the kit plays."""

    id: str
    title: str
    min_players: int
    max_players: int
    dice: dict[str, Die]
    tokens: dict[str, TokenKind]
    decks: dict[str, int]  # deck id -> cards printed
    deck_titles: dict[str, str]
    cards: dict[str, str]  # card name -> deck id
    phases: tuple[str, ...]
    # rules declared as data (carddb.gamerules; `Rules()`: none) and what they read of
    # the cards: each card's type, its numeric fields (sums over zones), each deck's cards
    rules: Rules = field(default_factory=Rules)
    card_types: dict[str, str] = field(default_factory=dict)  # card name -> card type
    card_fields: dict[str, dict[str, int]] = field(default_factory=dict)  # card -> {field: n}
    deck_cards: dict[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)
    # a card's name in another declared language, case-folded -> its name (its identity:
    # carddb.languages), so a table playing a German print types the German names
    aliases: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_db(cls, db: Any, game_id: str) -> TableGame:
        game = db.games[game_id]
        tokens = {}
        for tid, t in (game.extras.get("tokens") or {}).items():
            tokens[tid] = TokenKind(tid, str(t.get("name", tid)), str(t.get("label", tid)),
                                    int(t["count"]), t.get("start", 0), t.get("per") == "shared",
                                    int(t.get("min", 0)), t.get("max"))
        cards: dict[str, str] = {}
        types: dict[str, str] = {}
        fields: dict[str, dict[str, int]] = {}
        for deck_id, deck in game.decks.items():
            for card in deck.cards:
                cards.setdefault(card.name, deck_id)
                types.setdefault(card.name, card.type)
                fields.setdefault(card.name, _numbers(card.fields))
        phases = tuple(p if isinstance(p, str) else str(p["name"])
                       for p in game.extras.get("phases") or ())
        return cls(game.id, game.title, game.min_players, game.max_players,
                   dice_of(game.extras, game.title, game.colors), tokens,
                   {d: deck.count for d, deck in game.decks.items()},
                   {d: deck.title for d, deck in game.decks.items()}, cards, phases,
                   rules_of(game.extras, game.card_types), types, fields,
                   {d: tuple((c.name, c.copies) for c in deck.cards)
                    for d, deck in game.decks.items()}, _aliases(db, game_id, cards))

    @cached_property
    def folded(self) -> dict[str, str]:
        """Each card's name case-folded -> its name (worked out once: `card_named` reads it
        at every card a simulated game plays, issue 30)."""
        return {c.casefold(): c for c in self.cards}

    @cached_property
    def phase_named(self) -> dict[str, Phase]:
        """Each declared phase by its name, the first of a name (worked out once)."""
        found: dict[str, Phase] = {}
        for phase in self.rules.phases:
            found.setdefault(phase.name, phase)
        return found

    @cached_property
    def step_at(self) -> dict[tuple[str, int], RuleStep]:
        """Each declared step by its phase's name and its index in the phase: the step a
        turn is at in one look-up (worked out once: the balance lab asks at every step,
        issue 30)."""
        return {(name, i): step for name, phase in self.phase_named.items()
                for i, step in enumerate(phase.steps)}

    @cached_property
    def phase_after(self) -> dict[str, str]:
        """The phase that follows each phase within a turn (the last has none; of a name
        declared twice, its first place counts), worked out once."""
        after: dict[str, str] = {}
        for i, name in enumerate(self.phases[:-1]):
            after.setdefault(name, self.phases[i + 1])
        return after

    @property
    def card_names(self) -> tuple[str, ...]:
        return tuple(self.cards)

    def to_data(self) -> dict[str, Any]:
        """Plain JSON-able data, every field (nested dataclasses, tuples): what a session
        keeps of the game at `new` (referee/kept.py); `from_data` builds it again. A game
        in one language keeps no `aliases` (its sessions as they always were)."""
        from referee.plain import to_data

        data: dict[str, Any] = to_data(self)
        if not self.aliases:
            data.pop("aliases", None)
        return data

    @classmethod
    def from_data(cls, data: Any, where: str = "data") -> TableGame:
        """The game `to_data` gave, each value checked against its field's type
        (state_schema.SchemaError saying where otherwise)."""
        from referee.plain import from_data

        return from_data(cls, data, where)  # type: ignore[no-any-return]

    def first_die(self) -> Die | None:
        """The die a first-player roll uses: the game's first die if its faces all count."""
        for die in self.dice.values():
            return die if die.numeric else None
        return None


def _numbers(fields: dict[str, Any]) -> dict[str, int]:
    """A card's fields a sum may add: whole numbers (true counts 1)."""
    return {k: int(v) for k, v in fields.items() if isinstance(v, int)}


# ── helpers ─────────────────────────────────────────────────────────────────────
@lru_cache(maxsize=256)
def _folded(names: tuple[str, ...]) -> dict[str, str]:
    """Each name case-folded -> the name (the last of a folding), worked out once for
    names asked for again and again (the seats, a step's options: issue 30)."""
    return {n.casefold(): n for n in names}


def named(text: str, names: list[str] | tuple[str, ...], what: str, among: str) -> str:
    """`text` as one of `names`, case aside; else a one-line refusal with a did-you-mean."""
    import difflib

    wanted = text.strip().casefold()
    found = _folded(tuple(names)).get(wanted)
    if found is not None:
        return found
    close = difflib.get_close_matches(wanted, [n.casefold() for n in names], n=1, cutoff=0.6)
    hint = f" (did you mean {next(n for n in names if n.casefold() == close[0])}?)" if close else ""
    raise UsageError(f"no {what} {shown(text)}{hint}: {among} {', '.join(names) or 'none'}")


def seat(state: dict, text: str) -> str:
    return named(text, state["players"], "player", "players are")


def deck_of(game: TableGame, text: str | None) -> str:
    if text is None:
        if len(game.decks) == 1:
            return next(iter(game.decks))
        raise UsageError(f"{game.title} has {len(game.decks)} decks: name one with --deck "
                         f"({', '.join(game.decks)})")
    return named(text, list(game.decks), "deck", "the decks are")


def token_kind(game: TableGame, text: str) -> TokenKind:
    wanted = text.strip().casefold()
    for kind in game.tokens.values():
        if wanted in (kind.id.casefold(), kind.name.casefold()):
            return kind
    return game.tokens[named(text, list(game.tokens), "token", f"{game.title}'s tokens are")]


def in_play(state: dict, kind: TokenKind) -> int:
    if kind.shared:
        return int(state["pool"].get(kind.id, 0))
    return sum(int(state["tokens"][p].get(kind.id, 0)) for p in state["players"])


def bank(state: dict, kind: TokenKind) -> int:
    return kind.count - in_play(state, kind)


def _start_dice(text: str) -> tuple[int, int]:
    n, _, sides = text.lower().partition("d")
    return int(n), int(sides)


@cache
def _d(sides: int) -> Die:
    from carddb.dice import DieSet, Face

    return Die(f"d{sides}", tuple(Face(None, None, v) for v in range(1, sides + 1)), 1,
               (DieSet(f"d{sides}", "#ffffff", "#000000", f"d{sides}"),))


# ── a new game ──────────────────────────────────────────────────────────────────
def new_state(players: list[str], game: TableGame, source: FaceSource, seed: Any = None) -> dict:
    """Seats in the order given; the first player by a roll (the game's die when its faces
    all count, else a d6; ties roll again among the tied); each token kind's start (a
    number, or dice rolled for each player); every deck whole, every hand empty."""
    if not game.min_players <= len(players) <= game.max_players:
        raise UsageError(f"{game.title} is for {game.min_players} to {game.max_players} players, "
                         f"not {len(players)}")
    if len({p.casefold() for p in players}) != len(players) or not all(players):
        raise UsageError("--players: each player needs a name of their own")
    state: dict[str, Any] = {
        "game": game.id, "kit": KIT, "seed": seed, "title": game.title, "players": list(players),
        "tokens": {p: {} for p in players}, "pool": {},
        "decks": {d: {"deck": n, "discard": 0, "seen": []} for d, n in game.decks.items()},
        "hands": {p: {d: 0 for d in game.decks} for p in players},
        "shown": {p: [] for p in players}, "last_roll": None, "over": False, "winner": [],
    }
    die = game.first_die() or _d(6)
    rounds: list[dict[str, int]] = []
    tied = list(players)
    while len(tied) > 1:
        faces = {p: source.take(1, die, f"{p}'s first-player roll ({die.name})")[0].value or 0
                 for p in tied}
        rounds.append(faces)
        best = max(faces.values())
        tied = [p for p in tied if faces[p] == best]
        if len(rounds) >= 20:
            break
    first = tied[0]
    starts: dict[str, dict[str, list[int]]] = {}
    for kind in game.tokens.values():
        owners = [None] if kind.shared else list(players)
        for owner in owners:
            if isinstance(kind.start, str):
                n, sides = _start_dice(kind.start)
                whose = "shared" if owner is None else f"{owner}'s"
                rolled = [f.value or 0 for f in
                          source.take(n, _d(sides), f"{whose} {kind.name} start ({kind.start})")]
                starts.setdefault(kind.id, {})[owner or "shared"] = rolled
                value = sum(rolled)
            else:
                value = int(kind.start)
            if owner is None:
                state["pool"][kind.id] = value
            else:
                state["tokens"][owner][kind.id] = value
        if in_play(state, kind) > kind.count:
            raise RefereeError(f"the {kind.name} tokens start at {in_play(state, kind)} in all, but "
                               f"cards.yaml prints {kind.count} (tokens.{kind.id}.count)")
    state["turn"] = {"number": 1, "round": 1, "player": first,
                     "phase": game.phases[0] if game.phases else None}
    state["setup"] = {"first_player_rolls": rounds, "token_starts": starts, "first": first}
    if game.rules.declared:
        _declared_state(state, game)
    return state


def _declared_state(state: dict, game: TableGame) -> None:
    """What a game with rules as data adds: its zones (each player's, the table's), the
    step of the phase, the turn's roll outcomes, a choice waiting, the scores."""
    mine = [z.name for z in game.rules.zones if not z.shared]
    state["zones"] = {p: {z: [] for z in mine} for p in state["players"]}
    state["table"] = {z.name: [] for z in game.rules.zones if z.shared}
    state["turn"].update({"step": 0, "done": 0, "rolls": {}})
    state["pending"] = None
    from referee.table.rules import scores

    state["scores"] = scores(state, game)


def setup_summary(state: dict) -> str:
    rolls = state.get("setup", {}).get("first_player_rolls") or []
    how = ""
    if rolls:
        how = " (rolled " + "; then ".join(", ".join(f"{p} {f}" for p, f in r.items())
                                           for r in rolls) + ")"
    return (f"{state.get('title', state['game'])}: {', '.join(state['players'])}; "
            f"{state['turn']['player']} goes first{how}")


def _turn_line(state: dict) -> str:
    from referee.table.rules import turn_line

    return turn_line(state)


def _zone_text(zones: dict[str, list[str]]) -> str:
    return "; ".join(f"{z} {len(cs)}" + (f" ({', '.join(cs)})" if cs else "")
                     for z, cs in zones.items())


def status_lines(state: dict) -> list[str]:
    """The table as everyone may see it: turn, every player's tokens and hand counts, the
    shared pools, each deck and discard pile (its top card when shown), the last roll."""
    lines = [f"{state.get('title', state['game'])}: {_turn_line(state)}"]
    scores = state.get("scores") or {}
    for p in state["players"]:
        tokens = ", ".join(f"{n} {k}" for k, n in state["tokens"][p].items())
        cards = sum(state["hands"][p].values())
        zones = state.get("zones", {}).get(p)
        played = f"; {_zone_text(zones)}" if zones else ""
        score = f"; score {scores[p]}" if p in scores else ""
        lines.append(f"  {p}: {tokens or 'no tokens'}; {counted(cards, 'card')} in hand"
                     f"{played}{score}")
    if state["pool"]:
        lines.append("  shared: " + ", ".join(f"{n} {k}" for k, n in state["pool"].items()))
    if state.get("table"):
        lines.append(f"  table: {_zone_text(state['table'])}")
    for d, pile in state["decks"].items():
        top = f" (top: {pile['seen'][-1]})" if pile["seen"] else ""
        lines.append(f"  deck {d}: {pile['deck']} to draw, {pile['discard']} discarded{top}")
    roll = state.get("last_roll")
    if roll:
        outcome = f" = {roll['outcome']}" if "outcome" in roll else ""
        lines.append(f"  last roll: {roll['who']} {roll['die']} {' '.join(roll['faces'])}"
                     f"{outcome}")
    if state.get("over"):
        won = state.get("winner") or []
        lines.append(f"  the game is over ({state.get('ended', 'ended')}): "
                     f"{', '.join(won) or 'no winner'} {'wins' if len(won) == 1 else 'win'}")
    return lines


def public_state(state: dict) -> dict:
    """What the whole table may see: no seed, and no hand's shown cards (hands as counts)."""
    return {k: v for k, v in state.items() if k not in ("seed", "shown")}


# ── the copy a command changes ──────────────────────────────────────────────────
# Plain loops, not comprehensions: on Python 3.11 a comprehension is a function call of
# its own, and the balance lab copies a state at every answer it tries (issue 30).
def _rows(table: dict) -> dict:
    new = {}
    for key, row in table.items():
        new[key] = row.copy()
    return new


def _lists(table: dict) -> dict:
    new = {}
    for key, items in table.items():
        new[key] = items.copy()
    return new


def _zones(zones: dict) -> dict:
    new = {}
    for player, mine in zones.items():
        copied: dict[str, list] = {}
        new[player] = copied
        for zone, cards in mine.items():
            copied[zone] = cards.copy()
    return new


def _decks(decks: dict) -> dict:
    new = {}
    for deck, pile in decks.items():
        copied = new[deck] = pile.copy()
        copied["seen"] = pile["seen"].copy()
    return new


def _turn(turn: dict) -> dict:
    new = turn.copy()
    rolls = turn.get("rolls")
    if rolls is not None:
        new["rolls"] = rolls.copy()
    return new


# each part of the state a rule changes in place, copied as deep as its shape (game.py's
# schema): a command never changes the state it was given
_COPIES: dict[str, Any] = {
    "players": list, "winner": list, "pool": dict, "scores": dict, "pending": dict,
    "tokens": _rows, "hands": _rows, "shown": _lists, "table": _lists,
    "zones": _zones, "decks": _decks, "turn": _turn,
}
_COPIED = tuple(_COPIES.items())
# only ever replaced whole, never changed in place: shared by the copy
_SHARED = frozenset({"setup", "last_roll"})
_KNOWN = frozenset(_COPIES) | _SHARED


def copy_state(state: dict) -> dict:
    """The state for a command to change: equal to `state`, sharing with it only what no
    rule changes in place (the setup, the last roll, the plain values), so the copy costs
    a few dicts and lists rather than a deep copy of every value (issue 30: the balance
    lab copies at every answer it tries, so each part is visited once, by its own copier,
    and the parts of known shape are looked up by name rather than found by a walk over
    every key). A part of unknown shape is copied whole (referee.state_copy)."""
    new = state.copy()
    get = state.get
    for key, copier in _COPIED:  # a part of known shape (None: missing, or no choice pending)
        value = get(key)
        if type(value) not in ATOMS:
            new[key] = copier(value)
    for key in state.keys() - _KNOWN:  # the plain values, and any part of unknown shape
        value = state[key]
        if type(value) not in ATOMS:
            new[key] = copied(value)
    return new


# ── commands (each returns the new state, a summary, lines and data) ──────────
def _result(state: dict, summary: str, lines: list[str], data: dict[str, Any],
            game: TableGame | None = None) -> Result:
    """The kit's commands answer with the one result type of every engine; a declared
    game's scores kept and its end noticed (`rules.settle`)."""
    if game is not None:
        from referee.table.rules import settle

        lines = lines + settle(state, game)
        if state.get("over"):
            data = {**data, "over": True, "winner": state["winner"]}
    return Result(state, summary, [Step(line) for line in lines], data)


def roll(state: dict, game: TableGame, n: int, die: Die, source: FaceSource) -> Result:
    new = copy_state(state)
    who = state["turn"]["player"]
    faces = source.take(n, die, f"{who}'s roll of {counted(n, die.name + ' die', die.name + ' dice')}")
    data = summary(faces, die)
    new["last_roll"] = {"who": who, "die": die.name, **data}
    from referee.table.dice import roll_line

    line = roll_line(die, faces)
    return _result(new, f"{who} rolls {line}", [line], {"die": die.name, **data})


def change_token(state: dict, game: TableGame, who: str | None, kind: TokenKind,
                 op: str, amount: int) -> Result:
    """+N takes N from the bank, -N gives N back, =N sets; never below 0, never more
    than the bank holds."""
    new = copy_state(state)
    if kind.shared and who is not None:
        raise UsageError(f"{kind.name} tokens are shared: referee token {kind.id} AMOUNT")
    if not kind.shared and who is None:
        raise UsageError(f"{kind.name} tokens belong to a player: referee token PLAYER {kind.id} "
                         "AMOUNT")
    holder = new["pool"] if who is None else new["tokens"][who]
    name = "the shared pool" if who is None else who
    before = int(holder.get(kind.id, 0))
    after = before + amount if op == "+" else before - amount if op == "-" else amount
    if after < 0:
        raise RefereeError(f"{name} has {before} {kind.name}; taking {amount} away would go below "
                           "zero, nothing changed")
    if after < kind.min or (kind.max is not None and after > kind.max):
        most = f" to {kind.max}" if kind.max is not None else " or more"
        raise RefereeError(f"{name} would hold {after} {kind.name}: tokens.{kind.id} allows "
                           f"{kind.min}{most}, nothing changed")
    free = bank(state, kind)
    if after - before > free:
        raise RefereeError(f"the bank holds {free} {kind.name} (of {kind.count}); {name} cannot "
                           f"take {after - before}, nothing changed")
    holder[kind.id] = after
    summary_line = f"{name} {kind.name} {op}{amount}: {before} -> {after}"
    lines = [summary_line, f"  bank: {bank(new, kind)} {kind.name} left"]
    return _result(new, summary_line, lines, {"holder": who, "token": kind.id, "before": before,
                                           "after": after, "bank": bank(new, kind)}, game)


def draw(state: dict, game: TableGame, who: str, n: int, deck: str) -> Result:
    new = copy_state(state)
    pile = new["decks"][deck]
    if n > pile["deck"]:
        more = " (referee shuffle " + deck + " turns the discard pile over)" if pile["discard"] else ""
        raise RefereeError(f"the {deck} deck holds {counted(pile['deck'], 'card')}; {who} cannot "
                           f"draw {n}{more}, nothing changed")
    pile["deck"] -= n
    new["hands"][who][deck] += n
    held = sum(new["hands"][who].values())
    line = f"{who} draws {counted(n, 'card')} from {deck}: {held} in hand, {pile['deck']} left"
    return _result(new, line, [line], {"player": who, "deck": deck, "drawn": n, "hand": held,
                                    "left": pile["deck"]}, game)


def _aliases(db: Any, game_id: str, cards: dict[str, str]) -> dict[str, str]:
    """Each card's names in the other declared languages -> its name (carddb.languages)."""
    langs = getattr(db, "languages", None)
    if langs is None:
        return {}
    return {typed: name for typed, name in langs.names.get(game_id, {}).items()
            if name in cards and typed != name.casefold()}


def card_named(game: TableGame, text: str) -> str:
    """The card `text` names, in any language of the game (case aside): its name; else a
    one-line refusal with the nearest name."""
    import difflib

    typed = text.strip().casefold()
    found = game.folded.get(typed) or game.aliases.get(typed)
    if found is None:
        close = difflib.get_close_matches(text.strip().casefold(),
                                          [c.casefold() for c in game.cards], n=1, cutoff=0.6)
        hint = (f" (did you mean {next(c for c in game.cards if c.casefold() == close[0])}?)"
                if close else "")
        raise UsageError(f"{shown(text)} is not a card of {game.title} in cards.yaml{hint}")
    return found


def discard(state: dict, game: TableGame, who: str, cards: list[str], n: int | None,
            deck: str | None) -> Result:
    """Named cards are shown as they go onto their deck's discard pile (the referee learns
    them); without names, `n` cards (default 1) of `deck` go face down."""
    new = copy_state(state)
    moved: list[tuple[str, str | None]] = []  # (deck, card or None)
    if cards:
        if n is not None:
            raise UsageError("discard names the cards or gives -n N, not both")
        for text in cards:
            name = card_named(game, text)
            moved.append((game.cards[name], name))
    else:
        d = deck_of(game, deck)
        moved = [(d, None)] * (1 if n is None else n)
    for d, card in moved:
        if new["hands"][who][d] < 1:
            raise RefereeError(f"{who} holds no {d} card to discard, nothing changed")
        new["hands"][who][d] -= 1
        new["decks"][d]["discard"] += 1
        if card is not None:
            new["decks"][d]["seen"].append(card)
            if card in new["shown"][who]:
                new["shown"][who].remove(card)
    names = [c for _, c in moved if c]
    what = ", ".join(names) if names else counted(len(moved), "card") + " face down"
    held = sum(new["hands"][who].values())
    line = f"{who} discards {what}: {held} in hand"
    return _result(new, line, [line], {"player": who, "cards": names, "discarded": len(moved),
                                    "hand": held}, game)


def show(state: dict, game: TableGame, who: str, text: str) -> Result:
    """A card shown to the table that stays in the hand: the referee learns it."""
    new = copy_state(state)
    name = card_named(game, text)
    d = game.cards[name]
    known = new["shown"][who].count(name)
    if new["hands"][who][d] <= sum(1 for c in new["shown"][who] if game.cards[c] == d):
        raise RefereeError(f"{who} holds {counted(new['hands'][who][d], d + ' card')}, all "
                           "already shown, nothing changed")
    new["shown"][who].append(name)
    line = f"{who} shows {name}" + (f" ({known + 1} shown)" if known else "")
    return _result(new, line, [line], {"player": who, "card": name})


def shuffle(state: dict, game: TableGame, deck: str) -> Result:
    new = copy_state(state)
    pile = new["decks"][deck]
    back = pile["discard"]
    pile["deck"] += back
    pile["discard"] = 0
    pile["seen"] = []
    line = (f"{deck}: {counted(back, 'card')} from the discard pile shuffled in at the table; "
            f"{pile['deck']} to draw")
    return _result(new, line, [line], {"deck": deck, "returned": back, "left": pile["deck"]},
                   game)


def next_turn(state: dict, game: TableGame) -> Result:
    """The next phase of the turn (`phases:`), or the next player in seat order; a new
    round when the turn comes back to the first player (a declared game: the steps left in
    the phase are skipped, and the end checked as the turn begins)."""
    from referee.table.rules import next_phase

    new = copy_state(state)
    lines = next_phase(new, game)
    return _result(new, lines[0], lines, {"turn": dict(new["turn"])}, game)
