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


YES = {"y", "yes", "extra", "draw", "buy", "one", "1"}
NO = {"n", "no", "none", "pass", "-"}


# ── X-Statix ────────────────────────────────────────────────────────────────────
def xs_question(state: dict, rules: Any, answered: set) -> Question | None:
    """X-Statix (XS-1..XS-13): `rules(state)` gives a `referee.xs.play.Play` of the
    state (hand limits, abilities in play) when a question needs the cards."""
    if state.get("over"):
        return None
    turn = state["turn"]
    active = turn["player"]
    seat = state["table"][active]
    heroes = [h["name"] for h in seat["heroes"]]
    cards = rules.card_names if rules is not None else ()
    if turn.get("open"):  # XS-2/XS-14: a paid roll, open to events; paid at once after
        return Question(f"{listed(holders(state))} changing this roll? [no]", ["xs", "pay"],
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
        return _mission(state, turn, heroes, cards, answered)
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
        if (heroes and rules is not None and key not in answered
                and rules.can_kill(state, active)):
            return Question("Kill a team member for 1D6 MT? [none]", None,
                            lambda text: ["xs", "kill", match(text, heroes)], once=key,
                            names=tuple(heroes))
        return compulsory(["xs", "next"])
    return None


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
             answered: set) -> Question:
    mission = turn.get("mission")
    if not mission or mission.get("stage") == "done":
        if turn.get("missions") or not heroes or not seat_of(state)["hand"]:
            return compulsory(["xs", "pass"])  # one Mission a turn; none without heroes (XS-6)
        return Question("Play a Mission? [none]", ["xs", "pass"],
                        lambda text: ["xs", "pass"] if text.casefold() in NO
                        else ["xs", "mission", match(text, cards)], names=cards)
    stage = mission["stage"]
    rolls = mission.get("rolls", {})
    if stage == "mission":
        needed = (rolls.get("mission") or {}).get("total", 0)
        if needed > len(heroes):  # XS-6: not attempted unless the roll changes
            return Question(f"{counted(needed, 'hero', 'heroes')} needed, "
                            f"{turn['player']} has {len(heroes)}: the mission is not "
                            "attempted (a reroll: type it; Enter: pass) [pass]", ["xs", "pass"],
                            _unknown, names=cards)
        return compulsory(["xs", "carnage"])
    if stage in ("carnage", "success"):
        roll = rolls.get(stage)
        if roll is not None:  # XS-14: before the roll is settled, once
            key = (turn["number"], stage, tuple(roll.get("faces", ())), roll.get("total"))
            if key not in answered:
                return Question(f"{listed(holders(state))} changing this roll? (Enter: no)",
                                None, _unknown, once=key, names=cards)
    if stage == "carnage":
        roll = rolls.get("carnage") or {}
        if roll.get("total", 1) <= 0 or not seat_of(state)["hand"]:
            return compulsory(["xs", "casualties"])  # no casualty step to choose in
        return Question("Powers against carnage? [none]", ["xs", "casualties"],
                        lambda text: _casualties(turn, text, heroes, cards),
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
    return Question("Casualties chosen, in order (Ratings Bonanza)? [none]",
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
def xo_question(state: dict, answered: set) -> Question | None:
    """XO! (XO-11): the characters picked, then attack / feat / thwart / pass."""
    if state.get("over"):
        return None
    turn = state["turn"]
    roster = state.get("roster", {})
    players = dict(zip(("heroes", "villains"), state["players"], strict=False))
    if turn["phase"] == "setup":
        league = "heroes" if not roster.get("heroes") else "villains"
        return Question(f"{players[league]} picks the {league}' characters (names, comma-"
                        "separated) >", None,
                        lambda text: ["xo", "pick", players[league], *split_names(text)])
    active = turn["active"]
    other = "villains" if active == "heroes" else "heroes"
    ours = [c["name"] for c in roster.get(active, []) if not c.get("ko")]
    theirs = [c["name"] for c in roster.get(other, []) if not c.get("ko")]
    feat = turn.get("feat")
    if feat:  # a successful feat the other league may thwart (XO-14)
        return Question(f"{players[other]}: thwart with? (CHARACTER) [no]", ["xo", "next"],
                        lambda text: ["xo", "next"] if text.casefold() in NO else
                        ["xo", "thwart", match(_without(text, "thwart"), theirs)],
                        names=tuple(theirs), verbs=("thwart", "next"))
    if turn["phase"] == "Attack":
        prompt = f"{players[active]} ({active}): attack A D, feat C, or Enter: no more attacks >"
    else:
        prompt = f"{players[active]} ({active}): feat C, or Enter: the turn ends >"
    return Question(prompt, ["xo", "next"], lambda text: _xo_action(text, ours, theirs),
                    names=(*ours, *theirs), verbs=("attack", "feat", "next"))


def _without(text: str, verb: str) -> str:
    word, _, rest = text.strip().partition(" ")
    return rest if word.casefold() == verb else text


def _xo_action(text: str, ours: list[str], theirs: list[str]) -> Argv:
    word, _, rest = text.strip().partition(" ")
    verb = word.casefold()
    if '"' in text or "--" in text:  # quoted names or options: the command as typed
        import shlex

        return ["xo", *shlex.split(text)]
    if verb in NO or verb in ("next",):
        return ["xo", "next"]
    if verb == "feat":
        return ["xo", "feat", match(rest, ours)]
    if verb == "attack":
        return ["xo", "attack", *_two(rest, ours, theirs)]
    return ["xo", "attack", *_two(text, ours, theirs)]


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


# ── a designer's game (the table kit) ──────────────────────────────────────────
def kit_question(state: dict) -> Question | None:
    if state.get("over"):
        return None
    turn = state["turn"]
    phase = f", {turn['phase']}" if turn.get("phase") else ""
    return Question(f"{turn['player']}'s turn{phase} (roll, token, draw, ...; Enter: next) >",
                    ["next"], None)


def question(state: dict, rules: Any, answered: set) -> Question | None:
    if state.get("kit") == "table":  # its walk comes from its game module (issue 29)
        from referee.games import module_of_state

        return module_of_state(state).walk_question(state, rules, answered)
    if state.get("game") == "x-statix":
        return xs_question(state, rules, answered)
    if state.get("game") == "xo":
        return xo_question(state, answered)
    return None
