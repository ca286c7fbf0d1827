"""`referee odds` for a designer's own game (cards.yaml): the question read, the game's
dice or deck found, the answer (`referee.table.pools`, `referee.table.draws`) written as
text and `--json` (each probability `{"fraction": "num/den", "value": float}`)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from referee.command import Reply, fraction_json, percent
from referee.errors import UsageError
from referee.inputs import natural
from referee.odds import Distribution
from referee.table import draws, pools
from referee.table.dice import faces_text
from referee.table.kit import TableGame


def _table(dist: Distribution, label: str) -> list[str]:
    lines = [f"  {label:>8}  {'P(=)':>8}  {'P(>=)':>8}"]
    for v, p in dist.fractions().items():
        lines.append(f"  {v:>8}  {percent(p):>8}  {percent(dist.at_least(v)):>8}  {p}")
    return lines


def _label(outcome: pools.Outcome) -> str:
    text = str(outcome)
    return text if len(text) <= 8 else "outcome"


def _dist_json(dist: Distribution) -> dict:
    return {str(v): fraction_json(p) for v, p in dist.fractions().items()}


# ── dice ────────────────────────────────────────────────────────────────────────
def _table_games(db: Any) -> list[TableGame]:
    found = [TableGame.from_db(db, gid) for gid, g in db.games.items() if g.rules is None]
    with_dice = [g for g in found if g.dice]
    if not with_dice:
        raise UsageError("no game of the card database declares its own dice (cards.yaml "
                         "dice:); dice notation is 3m, 2d6 or 1d6+2")
    return with_dice


def dice_answer(db: Any, text: str, at_least: int | None,
                rolls_of: Callable[[str], pools.Rolls] | None = None) -> Reply:
    """A question about a game's dice (`pools.parse_question`): the first game of `db`
    (without `rules:`) it reads against, the games declaring its first die (or roll)
    tried first. `rolls_of(game id)`: that game's named rolls, when the caller knows them."""
    games = _table_games(db)
    words = text.split()
    if not words:
        raise UsageError("odds: name a pool of the game's dice (3 storm) or a draw")
    first_name = (words[1] if natural(words[0]) is not None and len(words) > 1
                  else words[0]).casefold()

    def declares(game: TableGame) -> bool:
        names = [*game.dice, *(rolls_of(game.id) if rolls_of else {})]
        return first_name in {n.casefold() for n in names}

    games.sort(key=lambda g: not declares(g))
    problem: UsageError | None = None
    for game in games:
        try:
            question = pools.parse_question(text, game.dice, game.title,
                                            rolls_of(game.id) if rolls_of else None)
        except UsageError as error:
            problem = problem or error  # the first game's, the one that declares the die
            continue
        return question_reply(game.id, question, at_least)
    assert problem is not None
    raise problem


def question_reply(game_id: str, question: pools.Question, at_least: int | None) -> Reply:
    """The answer to a question read by `pools.parse_question`."""
    if len(question.sides) == 2:
        left, right = question.sides
        if left.outcome is None or right.outcome is None:  # neither side named one
            if not all(f.value is not None for side in question.sides
                       for _, d in side.pool.groups for f in d.faces):
                raise UsageError(f"odds \"{left.pool} vs {right.pool}\": name what the sides "
                                 f"compare after the pools: {_examples(left.pool)} or sum")
            total = pools.Outcome(((1, pools.SUM),))
            left, right = pools.Side(left.pool, total), pools.Side(right.pool, total)
        return opposed_reply(game_id, left, right, at_least)
    side = question.sides[0]
    if side.outcome is None:
        if at_least is not None:
            raise UsageError(f"--at-least {at_least}: name what is counted, e.g. --at-least "
                             f"{at_least} {(side.pool.symbols or side.pool.keys)[0]}")
        return counts_reply(game_id, side.pool)
    return outcome_reply(game_id, side.pool, side.outcome, at_least, side.roll)


def _examples(pool: pools.Pool) -> str:
    """`a face (wind), a net count (wind - wave)`, from the pool's own symbols."""
    named = pool.symbols or pool.keys
    text = f"a face ({named[0]})"
    return text + (f", a net count ({named[0]} - {named[1]})" if len(named) > 1 else "")


def _faces(pool: pools.Pool) -> str:
    dice = list(dict.fromkeys(d for _, d in pool.groups))
    if len(dice) == 1:
        return faces_text(dice[0])
    return "; ".join(f"{d.name}: {faces_text(d)}" for d in dice)


def _pool_json(game_id: str, pool: pools.Pool) -> dict[str, Any]:
    data: dict[str, Any] = {"game": game_id, "pool": str(pool),
                            "dice": [{"die": d.name, "n": n} for n, d in pool.groups]}
    if len(pool.groups) == 1:
        data["die"], data["n"] = pool.groups[0][1].name, pool.groups[0][0]
    return data


def counts_reply(game_id: str, pool: pools.Pool, first: list[str] | None = None) -> Reply:
    """Each face's count and the numeric sum over `pool`, as distributions."""
    counts = {s: pools.distribution(pool, pools.count(s)) for s in pool.symbols}
    total = pools.distribution(pool, pools.Outcome(((1, pools.SUM),))) if pool.numeric else None
    lines = [f"{pool} ({_faces(pool)}):", *(first or [])]
    for symbol, dist in counts.items():
        lines.append(f"  {symbol}: " + ", ".join(f"{k}: {p}" for k, p in dist.fractions().items()))
    if total is not None:
        lines.append("  sum: " + ", ".join(f"{k}: {p}" for k, p in total.fractions().items()))
    data = {**_pool_json(game_id, pool),
            "counts": {s: _dist_json(d) for s, d in counts.items()},
            "sum": None if total is None else _dist_json(total)}
    return Reply(lines, data)


def outcome_reply(game_id: str, pool: pools.Pool, outcome: pools.Outcome,
                  at_least: int | None, name: str | None = None) -> Reply:
    """The distribution of `outcome` over `pool` (a named roll: `name`), and with
    `at_least` P(outcome >= at_least)."""
    dist = pools.distribution(pool, outcome)
    single = len(outcome.terms) == 1 and outcome.terms[0][0] == 1 and not outcome.constant \
        and outcome.terms[0][1] != pools.SUM
    head = f"P(at least {at_least} {outcome})" if single else f"P({outcome} >= {at_least})"
    line = None if at_least is None else f"  {head} = {dist.at_least(at_least)} = " \
        f"{percent(dist.at_least(at_least))}"
    if single and line is not None:  # `"3 storm" --at-least 2 wind`: as before, all counts
        reply = counts_reply(game_id, pool, [line])
    else:
        title = f"{name}: " if name else ""
        reply = Reply([f"{title}{pool} ({_faces(pool)}), outcome {outcome}: mean "
                       f"{float(dist.mean()):.3f}", *([line] if line else []),
                       *_table(dist, _label(outcome))],
                      _pool_json(game_id, pool))
    reply.data.update({"outcome": str(outcome), "mean": fraction_json(dist.mean()),
                       "distribution": _dist_json(dist)})
    if name:
        reply.data["roll"] = name
    if at_least is not None:
        p = dist.at_least(at_least)
        reply.data["at_least"] = {"k": at_least, **({"symbol": outcome.terms[0][1]} if single
                                                     else {}), **fraction_json(p)}
    return reply


def opposed_reply(game_id: str, left: pools.Side, right: pools.Side,
                  at_least: int | None) -> Reply:
    """`left` vs `right`, each scored by its outcome: win (left strictly greater), tie,
    loss, the margin; with `at_least`, P(left - right >= at_least)."""
    assert left.outcome is not None and right.outcome is not None
    result = pools.opposed(left.pool, right.pool, left.outcome, right.outcome)
    lines = [f"{_scored(left)} vs {_scored(right)}: left wins when its "
             f"{left.outcome} is greater" + (f" than right's {right.outcome}"
                                             if right.outcome != left.outcome else ""),
             f"  win   {result.win}  = {percent(result.win)}",
             f"  tie   {result.tie}  = {percent(result.tie)}",
             f"  loss  {result.loss}  = {percent(result.loss)}"]
    data: dict[str, Any] = {"game": game_id,
                            **{k: {"pool": str(side.pool), "outcome": str(side.outcome),
                                   "roll": side.roll} for k, side in (("left", left),
                                                                     ("right", right))},
                            "win": fraction_json(result.win), "tie": fraction_json(result.tie),
                            "loss": fraction_json(result.loss),
                            "margin": {str(m): fraction_json(p) for m, p in result.margin.items()}}
    if at_least is not None:
        p = sum((q for m, q in result.margin.items() if m >= at_least), Fraction(0))
        lines.append(f"  P(left - right >= {at_least}) = {p} = {percent(p)}")
        data["at_least"] = {"k": at_least, **fraction_json(p)}
    lines.append("  margin (left - right):")
    lines += [f"    {m:>+4d}  {percent(p):>8}  {p}" for m, p in result.margin.items()]
    return Reply(lines, data)


def _scored(side: pools.Side) -> str:
    """`3 battle (sword)`, `3 storm (weather: wind - wave)`."""
    return f"{side.pool} ({side.roll + ': ' if side.roll else ''}{side.outcome})"


# ── decks ───────────────────────────────────────────────────────────────────────
def deck_answer(db: Any, words: list[str], at_least: int | None) -> Reply:
    """`draw N [DECK] CONDITION`: how many of the first N cards of the deck meet it."""
    if len(words) < 2 or natural(words[1]) is None:
        raise UsageError("odds draw N [DECK] WHAT: a number of cards after draw (as in draw 5 "
                         "storms \"type Storm\")")
    n = natural(words[1]) or 0
    decks = {(gid, did): deck for gid, g in db.games.items() for did, deck in g.decks.items()}
    if not decks:
        raise UsageError("the card database declares no deck")
    rest = words[2:]
    by_id: dict[str, Any] = {}
    for (gid, did), deck in decks.items():
        for key in (did, deck.title, f"{gid}.{did}"):
            by_id.setdefault(key.casefold(), deck)
    deck = by_id.get(rest[0].casefold()) if rest else None
    if deck is not None:
        rest = rest[1:]
    elif len(decks) == 1:
        deck = next(iter(decks.values()))
    else:
        word = rest[0] if rest else ""
        ids = [did for _, did in decks]
        raise UsageError(f"odds draw {n}: name the deck after the number"
                         f"{pools.closest(word, ids) if word else ''} (decks: {', '.join(ids)})")
    condition = draws.parse_condition(" ".join(rest), deck.cards, f"deck {deck.id}")
    dist = draws.draw(deck.cards, n, condition)
    hits, total = draws.copies(deck.cards, condition)
    what = str(condition) if condition.plain else f"with {condition}"
    lines = [f"draw {n} of {deck.id} ({total} cards, {hits} {what}):"]
    data: dict[str, Any] = {"game": deck.game, "deck": deck.id, "cards": total, "draw": n,
                            "count": str(condition), "matching": hits,
                            "mean": fraction_json(dist.mean()), "distribution": _dist_json(dist)}
    if at_least is not None:
        p = dist.at_least(at_least)
        noun = str(condition) if condition.plain else \
            f"{'card' if at_least == 1 else 'cards'} with {condition}"
        lines.append(f"  P(at least {at_least} {noun}) = {p} = {percent(p)}")
        data["at_least"] = {"k": at_least, **fraction_json(p)}
    lines += _table(dist, "cards")
    return Reply(lines, data)

