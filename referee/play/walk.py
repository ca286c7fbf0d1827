"""The turn walks itself: from the state after each line, the one thing the rules need next,
as a `Question` (or a compulsory step run without asking). Driven only by the state (turn
phase, mission stage, open roll, hand size), never by what `play` ran before, so it stays
right whichever commands the players type themselves, in `play` or in another terminal.

A question offers a default in brackets, taken by Enter alone (not a typed line); a typed
answer becomes the one-shot command it stands for (`dead girl` at "Recruit a hero?" is
`xs recruit "Dead Girl"`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from referee.words import counted

Argv = list[str]


class Question:
    """What to ask next. `enter`: the command run on Enter (None: Enter only moves on,
    `once` then marks this question answered, e.g. "anyone changing this roll?");
    `answer(text)`: a typed answer -> the command, or a follow-up Question; `auto`: a
    compulsory step, run without asking; `names`: what Tab completes here."""

    __slots__ = ("prompt", "enter", "answer", "auto", "once", "names", "verbs")

    def __init__(self, prompt: str, enter: Argv | None = None,
                 answer: Callable[[str], Argv | Question] | None = None, auto: bool = False,
                 once: Any = None, names: tuple[str, ...] = (),
                 verbs: tuple[str, ...] = ()) -> None:
        self.prompt = prompt
        self.enter = enter
        self.answer = answer
        self.auto = auto
        self.once = once
        self.names = names
        self.verbs = verbs  # first words this answer takes itself ("attack A D" in XO!)


def compulsory(argv: Argv) -> Question:
    return Question(" ".join(argv), argv, auto=True)


def split_names(text: str) -> list[str]:
    """"Healing Powers, Regeneration" -> both names (a comma or "and" between them)."""
    parts = text.replace(" and ", ",").split(",")
    return [p.strip() for p in parts if p.strip()]


def match(text: str, names: Iterable[str]) -> str:
    """`text` as the name it abbreviates, case aside (a unique prefix), else as typed."""
    wanted = text.strip().casefold()
    names = list(dict.fromkeys(names))
    exact = [n for n in names if n.casefold() == wanted]
    if exact:
        return exact[0]
    found = [n for n in names if n.casefold().startswith(wanted)]
    return found[0] if len(found) == 1 else text.strip()


def listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


YES = {"y", "yes", "extra", "draw", "buy"}  # not "1": a die face typed early buys nothing
NO = {"n", "no", "none", "pass", "-"}


# ── X-Statix ────────────────────────────────────────────────────────────────────
def xs_question(state: dict, rules: Any, answered: set) -> Question | None:
    """X-Statix (XS-1..XS-13): `rules(state)` gives a `referee.xs.play.Play` of the
    state (hand limits, abilities in play) when a question needs the cards."""
    ask = _xs_question(state, rules, answered)
    if ask is None or ask.auto or not state.get("turn", {}).get("paid_alone"):
        return ask
    return _undo_with_payment(ask)


def _undo_with_payment(ask: Question) -> Question:
    """Right after a roll was paid on Enter (`xs pay`), `undo` takes back the payment and
    the command that made the roll together: one command, one undo (issue 31)."""
    answer = ask.answer

    def either(text: str) -> Argv | Question:
        words = text.split()
        if words and words[0].casefold() == "undo":  # `undo 3`: as typed
            return ["undo", "2"] if len(words) == 1 else ["undo", *words[1:]]
        if answer is None:
            raise ValueError(f"{text!r}: not an answer here")
        return answer(text)

    return Question(ask.prompt, ask.enter, either, once=ask.once, names=ask.names,
                    verbs=(*ask.verbs, "undo"))


def _xs_question(state: dict, rules: Any, answered: set) -> Question | None:
    if state.get("over"):
        return None
    turn = state["turn"]
    active = turn["player"]
    seat = state["table"][active]
    heroes = [h["name"] for h in seat["heroes"]]
    cards = rules.card_names if rules is not None else ()
    if turn.get("open"):  # XS-2/XS-14: a paid roll, open to events; paid at once after
        who = changers(state, rules, turn["open"]) or ["anyone"]
        return Question(f"{listed(who)} changing this roll? [no]", ["xs", "pay"],
                        lambda text: ["xs", "pay"] if text.casefold() in NO else _unknown(text),
                        names=cards)
    if not turn.get("free_drawn"):
        return compulsory(["xs", "draw"])
    phase = turn["phase"]
    empty = not seat["hand"]  # nothing to recruit, attach, play or discard for (XS-4..XS-7)
    if phase == "opportunity" and not state["deck"]:
        return compulsory(["xs", "pass"])  # no card left to buy (XS-3)
    if phase in ("recruitment", "publicity") and empty:
        return compulsory(["xs", "pass"])
    if phase == "opportunity":
        return Question("Extra card for an Opportunity roll 1D6 MT? [pass]", ["xs", "pass"],
                        lambda text: ["xs", "draw", "--extra"] if text.casefold() in YES
                        else ["xs", "pass"] if text.casefold() in NO else _unknown(text))
    if phase == "recruitment":
        return Question("Recruit a hero? [none]", ["xs", "pass"],
                        lambda text: ["xs", "pass"] if text.casefold() in NO
                        else ["xs", "recruit", match(text, cards)], names=cards)
    if phase == "publicity":
        if not heroes:
            return compulsory(["xs", "pass"])
        return Question("Attach marketing (CARD to HERO)? [none]", ["xs", "pass"],
                        lambda text: _attach(text, heroes, cards), names=(*cards, *heroes))
    if phase == "mission":
        return _mission(state, turn, heroes, cards, answered, rules)
    if phase in ("fame", "fortune"):
        return compulsory(["xs", "pass"])
    if phase == "end":
        hand = len(seat["hand"])
        limit = rules.hand_limit(state, active) if rules is not None else 5
        if hand > limit:
            over = hand - limit
            return Question(f"{active} holds {counted(hand, 'card')} (limit {limit}): discard "
                            f"{over} >", None,
                            lambda text: ["xs", "discard", *[match(n, cards)
                                                             for n in split_names(text)]],
                            names=cards)
        key = ("kill", turn["number"], active)
        if (heroes and rules is not None and key not in answered  # one Coach kill a turn
                and not turn.get("coach_kills") and rules.can_kill(state, active)):
            return Question("Kill a team member for 1D6 MT? [none]", None,
                            lambda text: ["xs", "kill", match(text, heroes)], once=key,
                            names=tuple(heroes))
        return compulsory(["xs", "next"])
    return None


def changers(state: dict, rules: Any, roll: dict) -> list[str]:
    """Who may change `roll` (XS-14): with the cards known, the active player's own reroll
    or adjust heroes too (The Orphan); else every player holding a card."""
    cat = getattr(rules, "cat", None)
    if cat is None:
        return [p for p in holders(state) if p != "anyone"]
    from referee.xs.turn import who_may_change

    return who_may_change(state, cat, roll)


def seat_of(state: dict) -> dict:
    return state["table"][state["turn"]["player"]]


def holders(state: dict) -> list[str]:
    """Who may hold an event for the open roll, in turn order from the active player
    (XS-14): every player with a card in hand (hands are private: any card may be one)."""
    seats = state["players"]
    start = seats.index(state["turn"]["player"])
    order = seats[start:] + seats[:start]
    found = [p for p in order if state["table"][p]["hand"]]
    return found or ["anyone"]


def _mission(state: dict, turn: dict, heroes: list[str], cards: tuple[str, ...],
             answered: set, rules: Any = None) -> Question:
    mission = turn.get("mission")
    if not mission or mission.get("stage") == "done":
        if turn.get("missions") or not heroes or not seat_of(state)["hand"]:
            return compulsory(["xs", "pass"])  # one Mission a turn; none without heroes (XS-6)
        return Question("Play a Mission? [none]", ["xs", "pass"],
                        lambda text: ["xs", "pass"] if text.casefold() in NO
                        else ["xs", "mission", match(text, cards)], names=cards)
    stage = mission["stage"]
    rolls = mission.get("rolls", {})
    needed = (rolls.get("mission") or {}).get("total", 0)
    if stage == "mission" and needed > len(heroes):  # XS-6: not attempted unless it changes
        return Question(f"{counted(needed, 'hero', 'heroes')} needed, "
                        f"{turn['player']} has {len(heroes)}: the mission is not "
                        "attempted (a reroll: type it; Enter: pass) [pass]", ["xs", "pass"],
                        _unknown, names=cards)
    roll = rolls.get(stage)
    if roll is not None:  # XS-14: every roll, before it is settled, once (Mission to Payoff)
        key = (turn["number"], stage, tuple(roll.get("faces", ())), roll.get("total"))
        who = changers(state, rules, roll) if key not in answered else []
        if who:
            return Question(f"{listed(who)} changing this roll? (Enter: no)",
                            None, _unknown, once=key, names=cards)
    if stage == "mission":
        return compulsory(["xs", "carnage"])
    if stage == "carnage":
        roll = rolls.get("carnage") or {}
        if roll.get("total", 1) <= 0 or not seat_of(state)["hand"]:
            return compulsory(["xs", "casualties"])  # no casualty step to choose in
        powers_none = ("no powers", turn["number"], tuple(roll.get("faces", ())))
        if turn.get("choose_casualties") and powers_none in answered:
            return _chosen([], heroes)  # Enter at the powers: the casualties still chosen
        return Question("Powers against carnage? [none]",
                        None if turn.get("choose_casualties") else ["xs", "casualties"],
                        lambda text: _casualties(turn, text, heroes, cards),
                        once=powers_none if turn.get("choose_casualties") else None,
                        names=cards)
    if stage == "casualties":
        return compulsory(["xs", "success"])
    if stage == "success":
        success = rolls["success"]["total"]
        carnage = rolls["carnage"]["total"]
        if success > carnage:
            return compulsory(["xs", "payoff"])
        if not seat_of(state)["hand"]:
            return compulsory(["xs", "pass"])  # no Power card to add: the mission fails
        return Question(f"Success {success} is not higher than Carnage {carnage}: powers for "
                        "success (+1 each)? [none]", ["xs", "pass"],
                        lambda text: ["xs", "pass"] if text.casefold() in NO else
                        ["xs", "boost", *_each("--power", text, cards)], names=cards)
    return compulsory(["xs", "pass"])  # the payoff is made: Fame and Fortune on the way


def _each(option: str, text: str, names: Iterable[str]) -> Argv:
    argv: Argv = []
    for name in split_names(text):
        argv += [option, match(name, names)]
    return argv


def _casualties(turn: dict, text: str, heroes: list[str], cards: tuple[str, ...]) -> Argv | Question:
    powers = [] if text.casefold() in NO else _each("--power", text, cards)
    if not turn.get("choose_casualties"):  # random casualties: picked at their prompts
        return ["xs", "casualties", *powers]
    return _chosen(powers, heroes)


def _chosen(powers: Argv, heroes: list[str]) -> Question:
    """Ratings Bonanza: the casualties chosen, in order (Enter: picked at random, XS-7)."""
    return Question("Casualties chosen, in order (Ratings Bonanza)? [random]",
                    ["xs", "casualties", *powers],
                    lambda chosen: ["xs", "casualties", *powers,
                                    *_each("--choose", chosen, heroes)], names=tuple(heroes))


def _attach(text: str, heroes: list[str], cards: tuple[str, ...]) -> Argv:
    if text.casefold() in NO:
        return ["xs", "pass"]
    for sep in (" to ", " on ", " -> "):
        card, found, hero = text.partition(sep)
        if found:
            return ["xs", "attach", match(card, cards), match(hero, heroes)]
    if len(heroes) == 1:
        return ["xs", "attach", match(text, cards), heroes[0]]
    raise ValueError(f"{text!r}: write CARD to HERO (heroes: {', '.join(heroes)})")


def _unknown(text: str) -> Argv:
    raise ValueError(f"{text!r}: type a command (xs event CARD --player NAME, xs reroll ...) "
                     "or Enter")


# ── XO! ──────────────────────────────────────────────────────────────────────────
def xo_question(state: dict, answered: set, cards: Any = None) -> Question | None:
    """XO! (XO-11): the characters picked, then attack / feat / thwart / pass. `cards`:
    each league's characters (referee.xo.play_walk.XoRoster), which the picks complete
    and abbreviate, or None."""
    if state.get("over"):
        return None
    turn = state["turn"]
    roster = state.get("roster", {})
    players = dict(zip(("heroes", "villains"), state["players"], strict=False))
    if turn["phase"] == "setup":
        return _pick_question(roster, players, cards)
    active = turn["active"]
    other = "villains" if active == "heroes" else "heroes"
    ours = [c["name"] for c in roster.get(active, []) if not c.get("ko")]
    theirs = [c["name"] for c in roster.get(other, []) if not c.get("ko")]
    hands = state.get("hands") or {}
    feat = turn.get("feat")
    if turn["phase"] != "Attack" and ("ends", turn["number"]) in answered and any(hands.values()):
        return _discards_question(["xo", "next"])
    if feat and feat.get("pending"):  # a successful feat the other league may thwart (XO-14)
        if not feat.get("thwarters", theirs):
            return compulsory(["xo", "next"])  # no ready character of theirs can thwart
        ending = _ending(turn, answered, hands)
        return Question(f"{players[other]}: thwart with? (CHARACTER) [no]", ending,
                        lambda text: ["xo", "next"] if text.casefold() in NO else
                        _as_typed(text, "thwart") or _then_discards(
                            ["xo", "thwart", match(_without(text, "thwart"), theirs)], hands),
                        once=("ends", turn["number"]) if ending is None else None,
                        names=tuple(feat.get("thwarters", theirs)), verbs=("thwart", "next"))
    if turn["phase"] == "Attack":
        prompt = f"{players[active]} ({active}): attack A D, feat C, or Enter: no more attacks >"
        enter: Argv | None = ["xo", "next"]
    else:
        prompt = f"{players[active]} ({active}): feat C, or Enter: the turn ends >"
        enter = _ending(turn, answered, hands)
    return Question(prompt, enter,
                    lambda text: _xo_action(text, ours, theirs, players[other], hands.get(other)),
                    once=("ends", turn["number"]) if enter is None else None,
                    names=(*ours, *theirs), verbs=("attack", "feat", "next"))


def _pick_question(roster: dict, players: dict, cards: Any) -> Question:
    """Set-up step 3 (rules: setup 3): the next league short of its 7 picks, in one line or
    several; Tab offers its characters not yet picked, and a unique start of a name is
    that name."""
    league = next((lg for lg in ("heroes", "villains") if len(roster.get(lg, [])) < 7),
                  "villains")
    more = 7 - len(roster.get(league, []))
    taken = {c["name"] for c in roster.get(league, [])}
    free = tuple(n for n in (cards.characters[league] if cards is not None else ())
                 if n not in taken)
    return Question(f"{players[league]} picks the {league}' characters ({more} more; names, "
                    "comma-separated) >", None,
                    lambda text: ["xo", "pick", players[league],
                                  *[match(name, free) for name in split_names(text)]],
                    names=free)


def _ending(turn: dict, answered: set, hands: dict) -> Argv | None:
    """Enter that ends the turn: the discards asked first (XO-10) while a league holds a
    card (None: Enter only marks the question answered, the discards are asked next)."""
    if ("ends", turn["number"]) in answered or not any(hands.values()):
        return ["xo", "next"]
    return None


def _then_discards(argv: Argv, hands: dict) -> Argv | Question:
    """The command that ends the turn (`xo next`, a thwart), with the next turn's discards
    asked first (XO-10) while a league holds a card."""
    return _discards_question(argv) if any(hands.values()) else argv


def _discards_question(argv: Argv) -> Question:
    return Question("Discards before the next draw (e.g. heroes 2, villains 1; up to 2 each, "
                    "XO-10)? [none]", argv, lambda text: _discards(argv, text),
                    names=("heroes", "villains"))


def _discards(argv: Argv, text: str) -> Argv:
    """"heroes 2, villains 1" -> `--discard heroes=2 --discard villains=1` after `argv`."""
    if text.casefold() in NO:
        return argv
    argv = list(argv)
    for part in split_names(text):
        league, _, n = part.replace("=", " ").partition(" ")
        argv += ["--discard", f"{league.strip()}={n.strip()}"]
    return argv


def _as_typed(text: str, verb: str) -> Argv | None:
    """A line with quotes or options is the command as typed (`thwart X --play CARD`)."""
    if '"' not in text and "--" not in text:
        return None
    import shlex

    argv = shlex.split(text)
    return ["xo", *argv] if argv and argv[0].casefold() == verb else ["xo", verb, *argv]


def _without(text: str, verb: str) -> str:
    word, _, rest = text.strip().partition(" ")
    return rest if word.casefold() == verb else text


def _xo_action(text: str, ours: list[str], theirs: list[str], defender: str = "",
               cards: int | None = None) -> Argv | Question:
    word, _, rest = text.strip().partition(" ")
    verb = word.casefold()
    if '"' in text or "--" in text:  # quoted names or options: the command as typed
        import shlex

        return ["xo", *shlex.split(text)]
    if verb in NO or verb in ("next",):
        return ["xo", "next"]
    if verb == "feat":
        return ["xo", "feat", match(rest, ours)]
    argv = ["xo", "attack", *_two(rest if verb == "attack" else text, ours, theirs)]
    if not cards:  # the defending league holds no card: nothing to ask it
        return argv
    return Question(f"{defender}: defense cards for {argv[-1]}? [none]", argv,
                    lambda played: argv if played.casefold() in NO
                    else [*argv, *_each("--defense-play", played, ())])


def _two(text: str, ours: list[str], theirs: list[str]) -> list[str]:
    """"captain volt gravelmaw" -> the attacker and the defender, by their names."""
    words = text.split()
    for cut in range(1, len(words)):
        left, right = " ".join(words[:cut]), " ".join(words[cut:])
        a, d = match(left, ours), match(right, theirs)
        if a in ours and d in theirs:
            return [a, d]
    if len(words) == 2:
        return words
    raise ValueError(f"{text!r}: write ATTACKER DEFENDER (yours: {', '.join(ours)}; "
                     f"theirs: {', '.join(theirs)})")


# ── any game: its entry's walk (referee/games.py) ────────────────────────────────
def question(state: dict, ctx: Any, answered: set) -> Question | None:
    """What the game of `state` asks next, from its entry in the game contract."""
    from referee.games import of_state

    result = of_state(state).question(state, ctx, answered)
    return result if isinstance(result, Question) else None
