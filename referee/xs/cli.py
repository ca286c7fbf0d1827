"""`referee xs ...`: one command per decision of an X-Statix turn. Thin: each command
parses, runs one rules action on the session's state (referee/xs/turn.py, mission.py,
events.py) with the referee's dice (seeded per the session) or the faces given with
--roll, records the event and prints the steps with their rulings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from referee.click_types import WHOLE
from referee.command import Reply, Tx, session_command
from referee.errors import RefereeError, UsageError
from referee.inputs import MAX_DIGITS, shown, small_int
from referee.words import counted

PLAYER = click.option("--player", default=None,
                      help="The acting player (default: whose turn it is); others are refused, "
                           "but for an event on the open roll (xs event/reroll, XS-14).")


def act(tx: Tx, action: Callable[..., Any], *args: Any, skip: bool = False,
        **kwargs: Any) -> Reply:
    """Run one rules action on the session's state and record it as one event. Dice come
    from `tx.rng()`: the referee's seeded stream, or the faces given with core's --roll.
    The table's guards are on (`Play.at_table`); `skip`: a phase is skipped on purpose.
    Then the chain (`chain`): the compulsory mission steps that follow, each its own
    event, until one needs a decision. A refused command changes nothing: not even the
    open roll it would have paid first (issue 31; XS-2: it is paid by `xs pay` or by the
    next command that goes through)."""
    from referee.command import ask_line, at_terminal
    from referee.xs.catalog import Catalog
    from referee.xs.play import Play, SkipGuard
    from referee.xs.rolls import Dice

    state = tx.require_game("x-statix")
    cat = Catalog.from_db(tx.db)

    def offer(question: str) -> str:
        tx.session.let_go()  # nobody waits for the lock while the table answers
        return ask_line(question)

    dice = Dice(tx.rng(ask=True), offer=offer if at_terminal() else None)
    name = getattr(action, "__name__", str(action))
    try:
        result = action(Play(state, cat, dice, at_table=True, skip=skip), *args, **kwargs)
    except SkipGuard as guard:
        if not may_skip(tx, guard):
            raise
        result = action(Play(state, cat, dice, at_table=True, skip=True), *args, **kwargs)
    if not result.state.get("over") and result.state["turn"].get("open"):
        result = pay_at_once(tx, result, cat, dice)  # one command, one event (one undo)
    lines, data = record(tx, result, args, kwargs)
    if name in CHAINED:
        result = chain(tx, result, cat, dice, lines, data)
        left_over(tx, lines, data)
    lines += turn_lines(result.state)
    data.update({"over": result.state.get("over", False), "winner": result.state.get("winner"),
                 "state": tx.public(result.state)})
    return Reply(lines, data)


def may_skip(tx: Tx, guard: RefereeError) -> bool:
    """The "skip a phase" guard on a terminal: asked ("... skip it? [y/N]") instead of
    refused; without a terminal the refusal stands (`--skip` says it in a script)."""
    from referee.command import ask_line, at_terminal, walked_by_play

    if not at_terminal() or walked_by_play():
        return False
    reason = guard.message.split(": ", 1)[-1].split("; end it with")[0]
    tx.session.let_go()  # nobody waits for the lock while the player answers
    # through ask_line: `referee play` answers it from its own lines too
    while True:
        answer = ask_line(f"{reason}: skip it? [y/N]").strip().casefold()
        if answer in ("", "n", "no"):
            return False
        if answer in ("y", "yes"):
            return True


# the ruling that makes each chained step compulsory
CHAIN_RULING = {"carnage": "XS-7", "casualties": "XS-7", "success": "XS-8", "payoff": "XS-8"}
# mission steps after which the chain runs the compulsory ones that follow
CHAINED = ("start", "carnage", "casualties", "success", "boost")


def record(tx: Tx, result: Any,
           args: tuple = (), kwargs: dict | None = None,
           chained: bool = False) -> tuple[list[str], dict]:
    """Record `result` as one event; its lines (steps, what was seen) and --json data."""
    steps = [{"text": s.text, "ruling": s.ruling} for s in result.steps]
    story = "; ".join(s.text for s in result.steps)
    summary = f"{result.summary}: {story}" if story else result.summary
    payload = {"action": result.kind, "args": [a for a in args if a is not None],
               "options": {k: v for k, v in (kwargs or {}).items() if v},
               "faces": tx.entered, "steps": steps}
    if chained:  # made by the chain of the command typed, not typed itself
        payload["chained"] = True
    seq = tx.record(result.kind, summary, payload, result.state)
    lines = [s.text + (f" ({s.ruling})" if s.ruling else "") for s in result.steps]
    for player, cards in result.reveal.items():
        if player == result.state["turn"]["player"]:  # a steal: the card taken, not the hand
            lines.append(f"seen by {player} only: {player} takes {', '.join(cards)}")
        else:
            lines.append(f"seen: {player}'s hand: {', '.join(cards) or '(empty)'}")
    return lines, {"seq": seq, "summary": result.summary, "steps": steps,
                   "reveal": result.reveal, "events": [seq]}


def left_over(tx: Tx, lines: list[str], data: dict) -> None:
    """Faces given with --roll for steps the chain did not reach (it stopped for a
    decision, or the mission ended): ignored, and said, so a script may give the dice of
    every step that could follow."""
    from referee.dice import table_of

    table = table_of(tx.rng())
    if tx.entered is None or table is None or not table.handed or not table.unused:
        return
    extra = [raw for _, raw in table.tokens[table.used:]]
    tx.faces_may_be_left = True
    lines.append(f"-- {counted(len(extra), 'face')} given not needed, ignored: "
                 f"{','.join(extra)}")
    data["ignored_faces"] = extra


def turn_lines(state: dict) -> list[str]:
    if state.get("over"):
        from referee.command import walked_by_play
        from referee.xs.game import status_lines

        if walked_by_play():  # `play` shows the final table itself: once (issue 31)
            return []

        return status_lines(state)
    now = state["turn"]
    seat = state["table"][now["player"]]
    lines = [f"-- turn {now['number']}, {now['player']}'s {now['phase']} phase: "
             f"{seat['mt']} MT, {counted(len(seat['hand']), 'card')} in hand, deck "
             f"{len(state['deck'])}"]
    if not now.get("free_drawn"):
        lines.append(f"-- {now['player']}: draw the turn's free card (xs draw)")
    return lines


def go_on(tx: Tx, roll: dict | None, options: list[str], rolls_next: bool,
          lines: list[str]) -> bool:
    """Whether the chain goes on past `roll`, which `options` could still change (XS-14):
    on a terminal the table is asked once ("anyone changing this roll? (Enter: no)");
    in a script, faces given with --roll for what follows say that nobody did. A next
    step that rolls dice needs them: typed on a terminal, or given with --roll."""
    from referee.command import ask_line, at_terminal, walked_by_play
    from referee.dice import table_of
    from referee.xs import rolls

    table = table_of(tx.rng())
    left = table.unused if table is not None else 0
    terminal = at_terminal() and not walked_by_play()
    if not terminal and rolls_next and not left:
        return False
    if not options or roll is None:
        return True
    if not terminal:
        return left > 0
    label = rolls.LABEL.get(roll["kind"], roll["kind"])
    tx.session.let_go()  # nobody waits for the lock while the table answers
    answer = ask_line(f"{label} {roll['total']}: {', '.join(options)} may change it; "
                      "anyone changing this roll? (Enter: no)").strip()
    if answer:
        lines.append(f"-- the {label} stays open: change it (xs reroll, xs adjust, xs event), "
                     "then go on")
    return not answer


def chain(tx: Tx, result: Any, cat: Any, dice: Any, lines: list[str], data: dict) -> Any:
    """The compulsory mission steps after a step (XS-7, XS-8): the Carnage roll after an
    attempted Mission roll, the casualties when the carnage asks nothing of the player
    (none at 0), the Success roll, the Payoff right after a success. Each its own event;
    it stops where the player decides (said in one line) or the roll just made is changed."""
    from referee.command import at_terminal
    from referee.dice import table_of
    from referee.xs import mission as rules
    from referee.xs.events import open_roll
    from referee.xs.play import Play
    from referee.xs.turn import roll_options

    steps = {"carnage": rules.carnage, "casualties": rules.casualties,
             "success": rules.success, "payoff": rules.payoff}
    while True:
        play = Play(result.state, cat, dice, at_table=True)
        following, asked = rules.next_compulsory(play)
        if not following:
            if asked:
                lines.append(f"-- {asked}")
            return result
        roll = open_roll(play)
        options = roll_options(play, play.active, roll) if roll is not None else []
        mission = play.turn["mission"]
        rolls_next = following != "casualties" or mission["rolls"]["carnage"]["total"] > 0
        if not go_on(tx, roll, options, rolls_next, lines):
            lines.append(f"-- next: xs {following}" + (
                f" ({', '.join(options)} may change the roll first)" if options else ""))
            return result
        if following == "casualties" and rolls_next and play.table_deck and not at_terminal():
            lines.append("-- next: xs casualties --picked HERO.. (the casualties are picked at "
                         "the table, XS-16)")
            return result
        table = table_of(tx.rng())
        mark = table.mark() if table is not None else None
        try:
            result = steps[following](play, None)
        except UsageError as error:  # too few faces for it: it waits for its own command
            if table is None or mark is None:
                raise
            table.restore(mark)
            lines.append(f"-- next: xs {following} ({error.message})")
            return result
        more, extra = record(tx, result, chained=True)
        lines.append(f"-- then, compulsory: xs {following} ({CHAIN_RULING[following]})")
        lines += more
        data["events"] += extra["events"]
        data["steps"] += extra["steps"]
        data["seq"] = extra["seq"]


def pay_at_once(tx: Tx, result: Any, cat: Any, dice: Any) -> Any:
    """A paid roll left open (someone may change it, XS-14): on a terminal the table is
    asked once, and paid now when nobody changes it (XS-2), so the payment and the bought
    card are told by this command, in its one event (one `undo` takes back both)."""
    from dataclasses import replace

    from referee.command import ask_line, at_terminal, walked_by_play
    from referee.xs import rolls, turn
    from referee.xs.play import Play

    roll = result.state["turn"]["open"]
    if not at_terminal() or walked_by_play():
        return result
    tx.session.let_go()
    answer = ask_line(f"{rolls.LABEL[roll['kind']]} {roll['total']}: anyone changing "
                      "this roll? (Enter: no, it is paid now)").strip()
    if answer:
        return result
    paid = turn.pay_now(Play(result.state, cat, dice, at_table=True), None)
    return replace(result, state=paid.state, steps=[*result.steps, *paid.steps],
                   reveal={**result.reveal, **paid.reveal})


class Names(click.Command):
    """An `xs` command whose card and hero names may be typed without quotes, as a table
    types them (issue 31): `xs recruit Dead Girl`, `xs casualties --power Healing Powers`.
    The words after an option that names a card or hero, up to the next option, are its
    value once the command's own names are given (or it takes none); the other words are
    the command's names. Quoted names read as before."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, rejoined(self, args))


# the options whose value is a card or a hero (the others: a player, a number, faces)
NAME_OPTIONS = {"--power", "--sacrifice", "--choose", "--swap-for", "--picked", "--discard",
                "--hero", "--pick", "--sendoff"}


def rejoined(command: click.Command, args: list[str]) -> list[str]:
    """`["--power", "Healing", "Powers"]` -> `["--power", "Healing Powers"]`."""
    valued = {opt for p in command.params if isinstance(p, click.Option) and not p.is_flag
              for opt in p.opts}
    named = not any(isinstance(p, click.Argument) for p in command.params)  # names given
    out: list[str] = []
    joins = False  # the word before was a name option's value: this one may go on with it
    taking = ""  # the option whose value the next word is
    for arg in args:
        if taking:
            out.append(arg)
            joins, taking = taking in NAME_OPTIONS and named, ""
        elif arg.startswith("-") and len(arg) > 1:
            out.append(arg)
            joins, taking = False, arg if arg in valued else ""
        elif joins:
            out[-1] += f" {arg}"
        else:
            out.append(arg)
            named = True
    return out


def one_name(words: tuple[str, ...]) -> str:
    return " ".join(words)


def card_and_hero(tx: Tx, words: tuple[str, ...]) -> tuple[str, str]:
    """`Movies Dead Girl` -> ("Movies", "Dead Girl"): the one cut into two card names."""
    if len(words) == 2:
        return words[0], words[1]
    from referee.xs.catalog import Catalog

    cat = Catalog.from_db(tx.db)
    cuts = [(" ".join(words[:i]), " ".join(words[i:])) for i in range(1, len(words))]
    found = [(c, h) for c, h in cuts if cat.resolve(c) and cat.resolve(h)]
    if len(found) == 1:
        return found[0]
    raise UsageError(f"{' '.join(words)!r}: name the Marketing card and the hero, each in "
                     'quotes: xs attach "CARD" "HERO"')


def card_names(tx: Tx, words: tuple[str, ...]) -> list[str]:
    """`Dead Girl Zombies` -> ["Dead Girl", "Zombies"]: each the longest card name from
    where the last ended; a word that starts none is kept as typed (refused by name)."""
    from referee.xs.catalog import Catalog

    cat = Catalog.from_db(tx.db)
    names, start = [], 0
    while start < len(words):
        end = next((e for e in range(len(words), start, -1)
                    if cat.resolve(" ".join(words[start:e]))), start + 1)
        names.append(" ".join(words[start:end]))
        start = end
    return names


class XsGroup(click.Group):
    command_class = Names


@click.group(cls=XsGroup)
def xs() -> None:
    """X-Statix: one command per decision of the turn (XS-1..XS-13).

    Phases run in order; a command of a later phase ends the phases before it (Fame and
    Fortune are applied on the way). Rolls are made by the referee, or given with --roll.
    After a mission command the compulsory steps follow by themselves (Carnage roll,
    casualties, Success roll, Payoff: XS-7, XS-8) until one needs a decision; in a
    script, with the dice of what follows given with --roll (faces left are ignored)."""


@xs.command()
@click.option("--extra", is_flag=True,
              help="An extra card, for an Opportunity roll (the free card: without --extra).")
@PLAYER
@session_command()
def draw(tx: Tx, extra: bool, player: str | None) -> Reply:
    """Opportunity: the turn's free card; `--extra`: one more for an Opportunity roll (XS-3)."""
    from referee.xs import turn

    return act(tx, turn.buy_draw if extra else turn.draw, player)


@xs.command()
@PLAYER
@session_command()
def buy(tx: Tx, player: str | None) -> Reply:
    """Opportunity: an extra card for an Opportunity roll (the same as `xs draw --extra`)."""
    from referee.xs import turn

    return act(tx, turn.buy_draw, player)


SKIP = click.option("--skip", is_flag=True,
                    help="End on purpose a phase in which something could still be done "
                         "(the Mission phase with a mission to play).")


@xs.command("pass")
@PLAYER
@session_command(rolls=False)
def pass_(tx: Tx, player: str | None) -> Reply:
    """End the current phase (no more draws, recruits, marketing; a mission not attempted)."""
    from referee.xs import turn

    return act(tx, turn.pass_phase, player)


@xs.command()
@PLAYER
@session_command(rolls=False)
def pay(tx: Tx, player: str | None) -> Reply:
    """Pay the open Opportunity/Recruit/Marketing roll now (XS-2)."""
    from referee.command import walked_by_play
    from referee.xs import turn

    return act(tx, pay_on_enter if walked_by_play() else turn.pay_now, player)


def pay_on_enter(play: Any, player: str | None) -> Any:
    """`xs pay` run by Enter at `referee play`'s "changing this roll?": the payment belongs
    to the command that made the roll, and the walk's next `undo` takes back both
    (`paid_alone`, dropped by the next action: one command, one undo, issue 31). Only
    there: a script's `xs pay` leaves the state, and so the seeded dice, as they were."""
    from referee.xs import turn

    result = turn.pay_now(play, player)
    result.state["turn"]["paid_alone"] = True
    return result


@xs.command()
@click.argument("hero", nargs=-1, required=True)
@PLAYER
@session_command()
def recruit(tx: Tx, hero: tuple[str, ...], player: str | None) -> Reply:
    """Recruitment: put a Hero from hand into play for a Recruit roll (XS-4)."""
    from referee.xs import turn

    return act(tx, turn.recruit, player, one_name(hero))


@xs.command()
@click.argument("names", nargs=-1, required=True, metavar="CARD HERO")
@PLAYER
@session_command()
def attach(tx: Tx, names: tuple[str, ...], player: str | None) -> Reply:
    """Publicity: attach a Marketing card to a hero for a Marketing roll (XS-5)."""
    from referee.xs import turn

    return act(tx, turn.attach, player, *card_and_hero(tx, names))


@xs.command()
@click.argument("card", nargs=-1, required=True)
@PLAYER
@session_command()
def mission(tx: Tx, card: tuple[str, ...], player: str | None) -> Reply:
    """Mission: play a Mission card and make the Mission roll (XS-6)."""
    from referee.xs import mission as rules

    return act(tx, rules.start, player, one_name(card))


@xs.command()
@PLAYER
@session_command()
def carnage(tx: Tx, player: str | None) -> Reply:
    """Mission: the Carnage roll (XS-7)."""
    from referee.xs import mission as rules

    return act(tx, rules.carnage, player)


@xs.command()
@click.option("--power", "powers", multiple=True, help="A Power card discarded to negate carnage.")
@click.option("--sacrifice", "sacrifices", multiple=True,
              help="A hero killed to negate carnage (Battering Ram).")
@click.option("--choose", "choose", multiple=True,
              help="A casualty chosen, in order (after Ratings Bonanza).")
@click.option("--swap-for", "swap_for", multiple=True,
              help="U-Go Girl takes the place of this hero if it is the casualty.")
@click.option("--picked", "picked", multiple=True,
              help="A random casualty picked at the table, in order (XS-16: the table's own "
                   "deck asks for the rest on a terminal; --deal referee: the referee picks).")
@PLAYER
@session_command()
def casualties(tx: Tx, powers: tuple[str, ...], sacrifices: tuple[str, ...], choose: tuple[str, ...],
               swap_for: tuple[str, ...], picked: tuple[str, ...], player: str | None) -> Reply:
    """Mission: negate carnage with Power cards, then the casualties and their Sendoff rolls
    (--roll: survival rolls, Sendoff rolls, La Nuit's roll, in that order per casualty)."""
    from referee.xs import mission as rules

    return act(tx, rules.casualties, player, powers=list(powers),
               sacrifices=list(sacrifices), choose=list(choose), swap_for=list(swap_for),
               picked=list(picked))


BOOSTS = [
    click.option("--power", "powers", multiple=True, help="A Power card discarded for +1 (XS-8)."),
    click.option("--discard", "discards", multiple=True,
                 help="Any card discarded for its hero's bonus (Gin Genie)."),
    click.option("--sacrifice", "sacrifices", multiple=True,
                 help="A hero killed for its bonus (Overkill)."),
]


def boosts(fn: Callable) -> Callable:
    for option in reversed(BOOSTS):
        fn = option(fn)
    return fn


@xs.command()
@boosts
@PLAYER
@session_command()
def success(tx: Tx, powers: tuple[str, ...], discards: tuple[str, ...], sacrifices: tuple[str, ...],
            player: str | None) -> Reply:
    """Mission: the Success roll, 1D6 + survivors + modifiers (XS-8)."""
    from referee.xs import mission as rules

    return act(tx, rules.success, player, powers=list(powers),
               discards=list(discards), sacrifices=list(sacrifices))


@xs.command()
@boosts
@PLAYER
@session_command()
def boost(tx: Tx, powers: tuple[str, ...], discards: tuple[str, ...], sacrifices: tuple[str, ...],
          player: str | None) -> Reply:
    """Mission: add to the Success roll already made (--roll: Sendoff of a sacrifice)."""
    from referee.xs import mission as rules

    return act(tx, rules.boost, player, powers=list(powers),
               discards=list(discards), sacrifices=list(sacrifices))


@xs.command()
@PLAYER
@session_command()
def payoff(tx: Tx, player: str | None) -> Reply:
    """Mission: the Payoff roll, 2D6 MT + modifiers (XS-8)."""
    from referee.xs import mission as rules

    return act(tx, rules.payoff, player)


@xs.command()
@click.argument("card", nargs=-1, required=True)
@click.option("--target", default=None, help="The opponent targeted (needed with 3 players).")
@click.option("--hero", default=None, help="The hero targeted (Popularity Ratings...).")
@click.option("--pick", default=None,
              help="The card the opponent chooses (Acid Spray), or the table's random pick.")
@click.option("--sendoff", default=None, metavar="HERO",
              help="The Sendoff roll of this hero, killed on the mission under way.")
@PLAYER
@session_command()
def event(tx: Tx, card: tuple[str, ...], target: str | None, hero: str | None, pick: str | None,
          sendoff: str | None, player: str | None) -> Reply:
    """Discard a Power or Marketing card from hand for its Event ability (XS-12)."""
    from referee.xs import events

    return act(tx, events.play_event, player, one_name(card), target=target, hero=hero,
               pick=pick, sendoff=sendoff)


@xs.command()
@click.argument("source", nargs=-1, required=True)
@click.option("--sendoff", default=None, metavar="HERO",
              help="The Sendoff roll of this hero, killed on the mission under way.")
@PLAYER
@session_command()
def reroll(tx: Tx, source: tuple[str, ...], sendoff: str | None, player: str | None) -> Reply:
    """Reroll the open roll with a hero (The Orphan, Plazm, Succubus) or an event card."""
    from referee.xs import events

    return act(tx, events.reroll, player, one_name(source), sendoff=sendoff)


@xs.command()
@click.argument("source", nargs=-1, required=True)
@click.option("--by", "by", type=WHOLE, required=True, help="The modifier given, e.g. --by -1.")
@click.option("--sendoff", default=None, metavar="HERO",
              help="The Sendoff roll of this hero, killed on the mission under way.")
@PLAYER
@session_command(rolls=False)
def adjust(tx: Tx, source: tuple[str, ...], by: int, sendoff: str | None, player: str | None) -> Reply:
    """Give a modifier to the open roll with a hero (Venus Dee Milo: +1 or -1)."""
    from referee.xs import events

    return act(tx, events.adjust, player, one_name(source), by, sendoff=sendoff)


@xs.command()
@click.argument("cards", nargs=-1, required=True)
@SKIP
@PLAYER
@session_command(rolls=False)
def discard(tx: Tx, cards: tuple[str, ...], skip: bool, player: str | None) -> Reply:
    """End phase: discard down to the hand limit (XS-11)."""
    from referee.xs import turn

    return act(tx, turn.discard, player, card_names(tx, cards), skip=skip)


@xs.command()
@click.argument("hero", nargs=-1, required=True)
@SKIP
@PLAYER
@session_command()
def kill(tx: Tx, hero: tuple[str, ...], skip: bool, player: str | None) -> Reply:
    """End phase: the Owner's kill of a team member for 1D6 MT (Coach, XS-11)
    (--roll: the 1D6, then any survival roll)."""
    from referee.xs import turn

    return act(tx, turn.end_phase_kill, player, one_name(hero), skip=skip)


@xs.command("next")
@SKIP
@PLAYER
@session_command(rolls=False)
def next_(tx: Tx, skip: bool, player: str | None) -> Reply:
    """End the turn: the next player's turn starts with its free draw; with the deck empty
    the game ends and the players are ranked (XS-13)."""
    from referee.xs import turn

    return act(tx, turn.next_turn, player, skip=skip)


@xs.command()
@click.option("--player", required=True,
              help="Whose hand: shown to that player only (XS-16: hands are private).")
@session_command(write=False)
def hand(tx: Tx, player: str) -> Reply:
    """Show a player's hand to that player (`xs hand --player NAME`)."""
    from referee.errors import UsageError

    state = tx.require_game("x-statix")
    seat = {p.casefold(): p for p in state["players"]}.get(player.strip().casefold())
    if seat is None:
        raise UsageError(f"no player {player!r}: players are {', '.join(state['players'])}")
    cards = state["table"][seat]["hand"]
    if state.get("deal") == "table":  # the players' own deck: the referee counts the cards
        from referee.xs.play import HIDDEN

        named = [c for c in cards if c != HIDDEN]
        shown = f"; shown: {', '.join(named)}" if named else ""
        return Reply([f"{seat} holds {counted(len(cards), 'card')} of the table's own deck{shown} "
                      "(the referee sees only what is shown, XS-16)"],
                     {"player": seat, "count": len(cards), "hand": named})
    return Reply([f"{seat}'s hand ({len(cards)}): {', '.join(cards) or '(empty)'}"],
                 {"player": seat, "count": len(cards), "hand": cards})


# ── X-Statix tokens (also `referee mt` / `referee ft`, the short forms) ──────────
def _delta(text: str) -> tuple[str, int]:
    """ "+5" / "-3" change a balance, "=7" sets it."""
    text = text.strip()
    value = small_int(text[1:]) if text[1:2] not in ("+", "-") else None
    if len(text) > 1 and text[0] in "+-=" and value is not None:
        return text[0], value
    raise UsageError(
        f"amount {shown(text)}: write +N to add, -N to take away, =N to set "
        f"(N: digits 0-9, at most {MAX_DIGITS})"
    )


def _apply(before: int, op: str, amount: int) -> int:
    return before + amount if op == "+" else before - amount if op == "-" else amount


_TOKEN_CONTEXT = {"ignore_unknown_options": True}  # so "-3" is an amount, not an option


@xs.command(context_settings=_TOKEN_CONTEXT)
@click.argument("player")
@click.argument("amount")
@session_command(rolls=False)
def mt(tx: Tx, player: str, amount: str) -> Reply:
    """X-Statix money tokens: `mt PLAYER +5`, `mt PLAYER -3`, `mt PLAYER =10`."""
    op, value = _delta(amount)
    state = tx.require_game("x-statix")
    seat = {p.casefold(): p for p in state["players"]}.get(player.strip().casefold())
    if seat is None:
        raise UsageError(f"no player {player!r}: players are {', '.join(state['players'])}")
    before = state["table"][seat]["mt"]
    after = _apply(before, op, value)
    if after < 0:
        raise RefereeError(
            f"{seat} has {before} MT; taking {value} would go below zero, nothing changed", "XS-2"
        )
    state["table"][seat]["mt"] = after
    state["turn"].pop("paid_alone", None)  # an undo after this one is this one's alone
    summary = f"{seat} MT {amount}: {before} -> {after}"
    tx.record(
        "mt",
        summary,
        {"player": seat, "op": op, "amount": value, "before": before, "after": after},
        state,
    )
    balances = {p: state["table"][p]["mt"] for p in state["players"]}
    lines = [summary, "  " + ", ".join(f"{p} {m} MT" for p, m in balances.items())]
    return Reply(lines, {"player": seat, "before": before, "after": after, "balances": balances})


@xs.command(context_settings=_TOKEN_CONTEXT)
@click.argument("words", nargs=-1, required=True, metavar="HERO")
@click.argument("amount")
@session_command(rolls=False)
def ft(tx: Tx, words: tuple[str, ...], amount: str) -> Reply:
    """X-Statix fame tokens on a hero in play: `ft HERO +1`, `ft HERO -1`."""
    hero = one_name(words)
    op, value = _delta(amount)
    state = tx.require_game("x-statix")
    found = [
        (player, h)
        for player in state["players"]
        for h in state["table"][player]["heroes"]
        if h["name"].casefold() == hero.strip().casefold()
    ]
    if not found:
        in_play = [h["name"] for p in state["players"] for h in state["table"][p]["heroes"]]
        raise RefereeError(
            f"{shown(hero)} is not in play; heroes in play: {', '.join(in_play) or 'none'}"
        )
    player, card = found[0]
    before = card["ft"]
    after = _apply(before, op, value)
    if after < 0:
        raise RefereeError(
            f"{card['name']} has {before} FT; taking {value} would go below zero, nothing changed"
        )
    card["ft"] = after
    state["turn"].pop("paid_alone", None)
    summary = f"{card['name']} ({player}) FT {amount}: {before} -> {after}"
    tx.record(
        "ft",
        summary,
        {
            "hero": card["name"],
            "player": player,
            "op": op,
            "amount": value,
            "before": before,
            "after": after,
        },
        state,
    )
    lines = [summary]
    from referee.xs.game import marketing_load

    if marketing_load(card, tx.db) > after:
        lines.append(
            f"  note: {card['name']} now holds more Marketing cards than FT; no more may be "
            "attached until the FT catch up (XS-5)"
        )
    heroes = {h["name"]: h["ft"] for h in state["table"][player]["heroes"]}
    lines.append("  " + ", ".join(f"{n} {f} FT" for n, f in heroes.items()))
    return Reply(
        lines,
        {
            "hero": card["name"],
            "player": player,
            "before": before,
            "after": after,
            "heroes": heroes,
        },
    )
