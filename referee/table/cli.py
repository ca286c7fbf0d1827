"""The table kit's commands (a game of your own cards.yaml, no `rules:`): `referee token`,
`draw`, `discard`, `show`, `shuffle`, `next`, `hand`, and the session side of `roll`.
Thin: parse, call referee/table/kit.py, record one event, print. Mounted lazily by
referee/cli.py (nothing here loads until one of them is typed)."""

from __future__ import annotations

from typing import Any

import click

from referee.click_types import WholeNumber
from referee.command import Reply, Tx, session_command
from referee.errors import RefereeError, UsageError
from referee.inputs import MAX_DIGITS, shown, small_int

_ARGS = {"ignore_unknown_options": True}  # "-3" is an amount, not an option
EVERYONE = ("all", "every", "everyone", "each")


def require_kit(tx: Tx) -> dict:
    state = tx.state
    if state.get("kit") != "table":
        from referee.games import title

        raise RefereeError(f"this session holds a {title(str(state.get('game')))} game; "
                           f"`{tx.command}` is for a game of your own cards.yaml (no `rules:`)")
    return state


def table_game(tx: Tx, state: dict) -> Any:
    """The game as the session keeps it since `new` (referee/kept.py: dice, tokens, decks,
    cards as they were, whatever cards.yaml says now); a session made before games were
    kept: as cards.yaml declares it now."""
    from referee.table.kit import TableGame

    kept = tx.kept
    if kept is not None:
        return kept.table_game()
    return TableGame.from_db(tx.db, state["game"])


def playing(tx: Tx) -> dict:
    """The state of a kit game still going on (a game over refuses every move in one line)."""
    from referee.table.rules import refuse_when_over

    state = require_kit(tx)
    refuse_when_over(state)
    return state


def done(tx: Tx, kind: str, result: Any, payload: dict) -> Reply:
    tx.record(kind, result.summary, payload, result.state)
    return Reply([step.text for step in result.steps], result.data)


def face_source(tx: Tx) -> Any:
    """The command's dice: --roll, then (on a terminal) asked by name, else the referee's
    seeded roll (the session's stream, `Tx.rng`)."""
    from referee.command import at_terminal
    from referee.table.dice import FaceSource

    def asking(what: str, die: Any, most: int = 1) -> Any:
        tx.session.let_go()  # nobody waits for the session while a person is asked
        return ask_face(what, die, most)

    ask = asking if at_terminal() and tx.entered is None else None
    return FaceSource(tx.session.rng(tx.command, tx.session.state_digest()), tx.entered, ask)


def ask_face(what: str, die: Any, most: int = 1) -> Any:
    """Dice asked for by name on stderr: up to `most` faces at once (`sword skull blank`
    or `sword,skull,blank`: the rest of the roll); Enter: the referee rolls this one. A
    face the die cannot show, or too many, is asked again."""
    from referee.command import ask_line
    from referee.table.dice import faces_text

    at_once = f"up to {most} at once; " if most > 1 else ""
    while True:
        text = ask_line(f"{what}, {die.name} ({faces_text(die)}; {at_once}Enter: the referee "
                        "rolls)").strip()
        if not text:
            return None
        words = [w for w in text.replace(",", " ").split() if w]
        faces = [die.face(w) for w in words]
        whole = die.face(text)  # a face named in several words
        if whole is not None and (len(words) > 1 and None in faces):
            return [whole]
        if None not in faces and len(faces) <= most:
            return faces
        if len(faces) > most:
            click.echo(f"  {shown(text)}: {len(faces)} faces, but {most} "
                       f"{'die is' if most == 1 else 'dice are'} left to roll", err=True)
            continue
        bad = next(w for w, f in zip(words, faces, strict=True) if f is None)
        click.echo(f"  {shown(bad)}: the {die.name} die shows {faces_text(die)}", err=True)


@click.command("roll", hidden=True, context_settings=_ARGS)
@click.argument("words", nargs=-1, required=True)
@session_command()
def session_roll(tx: Tx, words: tuple[str, ...]) -> Reply:
    """`referee roll N [DIE]` in a session of the table kit (logged, undoable)."""
    from referee.table import dice, kit

    state = playing(tx)
    game = table_game(tx, state)
    if len(words) == 1 and not words[0].isdigit() and game.rules.rolls:
        return _named_roll(tx, state, game, words[0])
    if len(words) > 2:
        raise UsageError(f"roll {' '.join(words)!r}: write roll N [DIE]")
    n = dice.count_of(words[0])
    die = dice.die_named(game.dice, words[1] if len(words) > 1 else None, game.title)
    source = face_source(tx)
    result = kit.roll(state, game, n, die, source)
    source.check_all_used()
    tx.entered = None  # the faces are the kit's own (checked above), not TableDice's
    reply = done(tx, "roll", result, {"die": die.name, "n": n, **result.data,
                                      "entered": source.entered is not None})
    if source.referee and source.ask is not None:
        reply.data["referee_rolled"] = [{"roll": w, "faces": [f]} for w, f in source.referee]
    return reply


def _named_roll(tx: Tx, state: dict, game: Any, text: str) -> Reply:
    """`roll NAME`: a roll cards.yaml names (`rolls:`), its outcome worked out and kept for
    the turn (a step may read it: `if weather > 0`)."""
    from referee.table import kit, rules

    name = kit.named(text, list(game.rules.rolls), "roll", "the rolls are")
    source = face_source(tx)
    new = kit.copy_state(state)
    line, data = rules.roll(new, game, game.rules.rolls[name], new["turn"]["player"], source)
    source.check_all_used()
    tx.entered = None
    result = kit._result(new, line, [line], data, game)
    return done(tx, "roll", result, {"roll": name, **data})


def _amount(text: str) -> tuple[str, int]:
    text = text.strip()
    value = small_int(text[1:]) if text[1:2] not in ("+", "-") else None
    if len(text) > 1 and text[0] in "+-=" and value is not None:
        return text[0], value
    raise UsageError(f"amount {shown(text)}: write +N to take from the bank, -N to give back, =N "
                     f"to set (N: digits 0-9, at most {MAX_DIGITS})")


@click.command(context_settings=_ARGS)
@click.argument("words", nargs=-1, required=True)
@session_command(rolls=False)
def token(tx: Tx, words: tuple[str, ...]) -> Reply:
    """Tokens: `token PLAYER NAME +N|-N|=N`, `token all NAME +N` for every player at once,
    `token NAME +N` for a shared pool."""
    from referee.table import kit

    state = playing(tx)
    game = table_game(tx, state)
    if len(words) == 3 and words[0].casefold() in EVERYONE:
        from referee.table import turn

        kind = kit.token_kind(game, words[1])
        op, value = _amount(words[-1])
        return done(tx, "token", turn.token_all(state, game, kind, op, value),
                    {"player": "all", "token": kind.id, "op": op, "amount": value})
    if len(words) == 3:
        who: str | None = kit.seat(state, words[0])
        kind = kit.token_kind(game, words[1])
    elif len(words) == 2:
        who, kind = None, kit.token_kind(game, words[0])
    else:
        raise UsageError("write token PLAYER NAME +N|-N|=N (or token NAME +N for a shared pool)")
    op, value = _amount(words[-1])
    result = kit.change_token(state, game, who, kind, op, value)
    return done(tx, "token", result, {"player": who, "token": kind.id, "op": op, "amount": value})


@click.command()
@click.argument("player")
@click.argument("n", type=WholeNumber(min=1), default=1)
@click.option("--deck", default=None, help="Which deck (needed when the game has several).")
@session_command(rolls=False)
def draw(tx: Tx, player: str, n: int, deck: str | None) -> Reply:
    """A player draws N cards of the printed deck (the referee counts them)."""
    from referee.table import kit

    state = playing(tx)
    game = table_game(tx, state)
    who, d = kit.seat(state, player), kit.deck_of(game, deck)
    return done(tx, "draw", kit.draw(state, game, who, n, d), {"player": who, "deck": d, "n": n})


@click.command()
@click.argument("player")
@click.argument("cards", nargs=-1)
@click.option("-n", "count", type=WholeNumber(min=1), default=None,
              help="Discard N cards face down (no names).")
@click.option("--deck", default=None, help="The deck of the cards discarded face down.")
@click.option("--from", "zone", default=None, metavar="ZONE",
              help="Cards in play (a zone of cards.yaml `zones:`) taken out onto the discard pile.")
@session_command(rolls=False)
def discard(tx: Tx, player: str, cards: tuple[str, ...], count: int | None,
            deck: str | None, zone: str | None) -> Reply:
    """Discard: named cards are shown onto their discard pile; else -n N face down;
    --from ZONE: cards in play taken out of it."""
    from referee.table import kit

    state = playing(tx)
    game = table_game(tx, state)
    who = kit.seat(state, player)
    if zone is not None:
        from referee.table import turn

        result = turn.take_out(state, game, who, list(cards), zone)
        return done(tx, "discard", result, {"player": who, "cards": result.data["cards"],
                                            "zone": result.data["zone"]})
    result = kit.discard(state, game, who, list(cards), count, deck)
    return done(tx, "discard", result, {"player": who, "cards": result.data["cards"],
                                        "n": result.data["discarded"]})


@click.command()
@click.argument("player")
@click.argument("card")
@session_command(rolls=False)
def show(tx: Tx, player: str, card: str) -> Reply:
    """A card shown to the table that stays in the hand (the referee learns it)."""
    from referee.table import kit

    state = playing(tx)
    game = table_game(tx, state)
    who = kit.seat(state, player)
    result = kit.show(state, game, who, card)
    return done(tx, "show", result, {"player": who, "card": result.data["card"]})


@click.command()
@click.argument("deck", required=False)
@session_command(rolls=False)
def shuffle(tx: Tx, deck: str | None) -> Reply:
    """The discard pile of DECK is shuffled back into it at the table."""
    from referee.table import kit

    state = playing(tx)
    game = table_game(tx, state)
    d = kit.deck_of(game, deck)
    return done(tx, "shuffle", kit.shuffle(state, game, d), {"deck": d})


@click.command("next")
@session_command(rolls=False)
def next_(tx: Tx) -> Reply:
    """Pass on: the next phase (cards.yaml `phases:`), else the next player's turn."""
    from referee.table import kit

    state = playing(tx)
    game = table_game(tx, state)
    return done(tx, "next", kit.next_turn(state, game), {})


@click.command()
@click.argument("player")
@session_command(write=False)
def hand(tx: Tx, player: str) -> Reply:
    """Private: PLAYER's hand as the referee knows it (counts, and the cards shown and
    kept). Type it only where that player alone reads the screen."""
    from referee.table import kit

    state = require_kit(tx)
    who = kit.seat(state, player)
    counts = state["hands"][who]
    known = state["shown"][who]
    held = ", ".join(f"{n} {d}" for d, n in counts.items())
    lines = [f"{who}'s hand (private): {held}; shown: {', '.join(known) or 'none'}"]
    return Reply(lines, {"player": who, "counts": counts, "shown": known})


def referee_rng(tx: Tx) -> Any:
    """The referee's own draw for the table (a card revealed unnamed): the session's
    stream for this command and state."""
    return tx.session.rng(tx.command, tx.session.state_digest())


@click.command("step", context_settings=_ARGS)
@click.argument("words", nargs=-1)
@session_command(rolls=False)
def step(tx: Tx, words: tuple[str, ...]) -> Reply:
    """Your own game's rules as data: the step the turn is at, run by itself, or answered
    (faces at a roll, cards at a play, an option, a player at a choice, the card revealed;
    alone: the default, as Enter at `referee play`)."""
    from referee.table import turn
    from referee.table.dice import FaceSource

    state = playing(tx)
    game = table_game(tx, state)
    source = FaceSource(referee_rng(tx))
    result = turn.step(state, game, list(words), source, referee_rng(tx))
    source.check_all_used()
    return done(tx, "step", result, {"words": list(words)})


@click.command()
@click.argument("player")
@click.argument("card")
@click.option("--to", "zone", default=None, metavar="ZONE", help="The zone (cards.yaml zones:).")
@click.option("--target", default=None, metavar="PLAYER", help="The player its effect chooses.")
@session_command(rolls=False)
def put(tx: Tx, player: str, card: str, zone: str | None, target: str | None) -> Reply:
    """PLAYER puts CARD from the hand into play (its effects when played apply)."""
    from referee.table import kit, turn

    state = playing(tx)
    game = table_game(tx, state)
    who = kit.seat(state, player)
    chosen = kit.seat(state, target) if target else None
    result = turn.put(state, game, who, card, zone, chosen)
    return done(tx, "put", result, {"player": who, "card": result.data["card"],
                                    "zone": result.data["zone"], "target": chosen})


@click.command()
@click.argument("player")
@click.argument("card", required=False)
@click.option("--deck", default=None, help="Which deck (needed when the game has several).")
@click.option("--target", default=None, metavar="PLAYER", help="The player its effect chooses.")
@session_command(rolls=False)
def reveal(tx: Tx, player: str, card: str | None, deck: str | None, target: str | None) -> Reply:
    """PLAYER reveals the top card of a deck (CARD: what it is; without it the referee
    draws one among the cards not yet seen): onto the discard pile, its effects applied."""
    from referee.table import kit, turn

    state = playing(tx)
    game = table_game(tx, state)
    who = kit.seat(state, player)
    chosen = kit.seat(state, target) if target else None
    result = turn.reveal_command(state, game, who, card, deck, referee_rng(tx), chosen)
    return done(tx, "reveal", result, {"player": who, "card": result.data["card"],
                                       "target": chosen})


@click.command(context_settings=_ARGS)
@click.argument("giver")
@click.argument("taker")
@click.argument("token_name")
@click.argument("n", type=WholeNumber(min=1))
@session_command(rolls=False)
def give(tx: Tx, giver: str, taker: str, token_name: str, n: int) -> Reply:
    """GIVER gives TAKER N tokens: `give Ann Bob cargo 2`."""
    from referee.table import kit, turn

    state = playing(tx)
    game = table_game(tx, state)
    who, to = kit.seat(state, giver), kit.seat(state, taker)
    kind = kit.token_kind(game, token_name)
    return done(tx, "give", turn.give(state, game, who, to, kind, n),
                {"from": who, "to": to, "token": kind.id, "n": n})


COMMANDS = {"token": token, "draw": draw, "discard": discard, "show": show,
            "shuffle": shuffle, "next": next_, "hand": hand, "step": step, "put": put,
            "reveal": reveal, "give": give}
