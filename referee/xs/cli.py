"""`referee xs ...`: one command per decision of an X-Statix turn. Thin: each command
parses, runs one rules action on the session's state (referee/xs/turn.py, mission.py,
events.py) with the referee's dice (seeded per the session) or the faces given with
--roll, records the event and prints the steps with their rulings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from referee.command import WHOLE, Reply, Tx, session_command
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
    The table's guards are on (`Play.at_table`); `skip`: a phase is skipped on purpose."""
    from referee.xs.catalog import Catalog
    from referee.xs.play import Play, Settled
    from referee.xs.rolls import Dice

    state = tx.require_game("x-statix")
    play = Play(state, Catalog.from_db(tx.db), Dice(tx.rng(ask=True)), at_table=True,
                skip=skip)
    refusal: Settled | None = None
    try:
        result = action(play, *args, **kwargs)
    except Settled as settled:  # the open roll it settled stands; the command is refused
        refusal, result = settled, settled.result
    steps = [{"text": s.text, "ruling": s.ruling} for s in result.steps]
    story = "; ".join(s.text for s in result.steps)
    summary = f"{result.summary}: {story}" if story else result.summary
    payload = {"action": result.kind, "args": [a for a in args if a is not None],
               "options": {k: v for k, v in kwargs.items() if v}, "faces": tx.entered,
               "steps": steps}
    if refusal is not None:
        payload = {"action": "pay", "args": [], "options": {}, "faces": None, "steps": steps,
                   "refused": {"action": getattr(action, "__name__", str(action)),
                               "error": refusal.message, "ruling": refusal.ruling}}
    seq = tx.record(result.kind, summary, payload, result.state)
    lines = [s.text + (f" ({s.ruling})" if s.ruling else "") for s in result.steps]
    for player, cards in result.reveal.items():
        if player == result.state["turn"]["player"]:  # a steal: the card taken, not the hand
            lines.append(f"seen by {player} only: {player} takes {', '.join(cards)}")
        else:
            lines.append(f"seen: {player}'s hand: {', '.join(cards) or '(empty)'}")
    if result.state.get("over"):
        from referee.xs.game import status_lines

        lines += status_lines(result.state)
    else:
        now = result.state["turn"]
        seat = result.state["table"][now["player"]]
        lines.append(f"-- turn {now['number']}, {now['player']}'s {now['phase']} phase: "
                     f"{seat['mt']} MT, {counted(len(seat['hand']), 'card')} in hand, deck "
                     f"{len(result.state['deck'])}")
        if not now.get("free_drawn"):
            lines.append(f"-- {now['player']}: draw the turn's free card (xs draw)")
    return Reply(lines, {"seq": seq, "summary": result.summary, "steps": steps,
                         "reveal": result.reveal, "over": result.state.get("over", False),
                         "winner": result.state.get("winner"),
                         "state": tx.public(result.state)},
                 refusal=refusal)


@click.group()
def xs() -> None:
    """X-Statix: one command per decision of the turn (XS-1..XS-13).

    Phases run in order; a command of a later phase ends the phases before it (Fame and
    Fortune are applied on the way). Rolls are made by the referee, or given with --roll."""


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
    from referee.xs import turn

    return act(tx, turn.pay_now, player)


@xs.command()
@click.argument("hero")
@PLAYER
@session_command()
def recruit(tx: Tx, hero: str, player: str | None) -> Reply:
    """Recruitment: put a Hero from hand into play for a Recruit roll (XS-4)."""
    from referee.xs import turn

    return act(tx, turn.recruit, player, hero)


@xs.command()
@click.argument("card")
@click.argument("hero")
@PLAYER
@session_command()
def attach(tx: Tx, card: str, hero: str, player: str | None) -> Reply:
    """Publicity: attach a Marketing card to a hero for a Marketing roll (XS-5)."""
    from referee.xs import turn

    return act(tx, turn.attach, player, card, hero)


@xs.command()
@click.argument("card")
@PLAYER
@session_command()
def mission(tx: Tx, card: str, player: str | None) -> Reply:
    """Mission: play a Mission card and make the Mission roll (XS-6)."""
    from referee.xs import mission as rules

    return act(tx, rules.start, player, card)


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
@click.argument("card")
@click.option("--target", default=None, help="The opponent targeted (needed with 3 players).")
@click.option("--hero", default=None, help="The hero targeted (Popularity Ratings...).")
@click.option("--pick", default=None,
              help="The card the opponent chooses (Acid Spray), or the table's random pick.")
@click.option("--sendoff", default=None, metavar="HERO",
              help="The Sendoff roll of this hero, killed on the mission under way.")
@PLAYER
@session_command()
def event(tx: Tx, card: str, target: str | None, hero: str | None, pick: str | None,
          sendoff: str | None, player: str | None) -> Reply:
    """Discard a Power or Marketing card from hand for its Event ability (XS-12)."""
    from referee.xs import events

    return act(tx, events.play_event, player, card, target=target, hero=hero,
               pick=pick, sendoff=sendoff)


@xs.command()
@click.argument("source")
@click.option("--sendoff", default=None, metavar="HERO",
              help="The Sendoff roll of this hero, killed on the mission under way.")
@PLAYER
@session_command()
def reroll(tx: Tx, source: str, sendoff: str | None, player: str | None) -> Reply:
    """Reroll the open roll with a hero (The Orphan, Plazm, Succubus) or an event card."""
    from referee.xs import events

    return act(tx, events.reroll, player, source, sendoff=sendoff)


@xs.command()
@click.argument("source")
@click.option("--by", "by", type=WHOLE, required=True, help="The modifier given, e.g. --by -1.")
@click.option("--sendoff", default=None, metavar="HERO",
              help="The Sendoff roll of this hero, killed on the mission under way.")
@PLAYER
@session_command(rolls=False)
def adjust(tx: Tx, source: str, by: int, sendoff: str | None, player: str | None) -> Reply:
    """Give a modifier to the open roll with a hero (Venus Dee Milo: +1 or -1)."""
    from referee.xs import events

    return act(tx, events.adjust, player, source, by, sendoff=sendoff)


@xs.command()
@click.argument("cards", nargs=-1, required=True)
@SKIP
@PLAYER
@session_command(rolls=False)
def discard(tx: Tx, cards: tuple[str, ...], skip: bool, player: str | None) -> Reply:
    """End phase: discard down to the hand limit (XS-11)."""
    from referee.xs import turn

    return act(tx, turn.discard, player, list(cards), skip=skip)


@xs.command()
@click.argument("hero")
@SKIP
@PLAYER
@session_command()
def kill(tx: Tx, hero: str, skip: bool, player: str | None) -> Reply:
    """End phase: the Owner's kill of a team member for 1D6 MT (Coach, XS-11)
    (--roll: the 1D6, then any survival roll)."""
    from referee.xs import turn

    return act(tx, turn.end_phase_kill, player, hero, skip=skip)


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
@click.argument("hero")
@click.argument("amount")
@session_command(rolls=False)
def ft(tx: Tx, hero: str, amount: str) -> Reply:
    """X-Statix fame tokens on a hero in play: `ft HERO +1`, `ft HERO -1`."""
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
