"""X-Statix setup (XS-1) and the table summary. Pure: the card database and the RNG come in."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.errors import RefereeError, UsageError
from referee.words import listed

if TYPE_CHECKING:  # the dice are imported by what rolls them: `status` rolls none (issue 36)
    import random

    from carddb.model import Database

GAME_ID = "x-statix"
TITLE = "X-Statix"
HAND_SIZE = 7  # XS-1
HIDDEN = "?"  # a card the referee has not seen (the same as referee.xs.play.HIDDEN)
START_MT_DICE = 4  # XS-1: 4D6 MT
PHASES = ("opportunity", "recruitment", "publicity", "mission", "fame", "fortune", "end")


def new_state(
    players: list[str],
    db: Database,
    rng: random.Random,
    *,
    owners: dict[str, str] | None = None,
    teams: dict[str, str] | None = None,
    seed: int | str | None = None,
    deal: str = "referee",
    **unknown: Any,
) -> dict:
    """A new game per XS-1. `owners`/`teams` map a player to a chosen card name; the
    others are dealt at random from what is left. `deal`: "referee" (the referee shuffles
    and deals a virtual deck: solo tests, remote play, the balance lab) or "table" (the
    players' own printed deck, XS-16: the referee counts the cards and learns each one
    when it is shown)."""
    if deal not in ("referee", "table"):
        raise UsageError(f"--deal {deal!r}: choose table (the players' own deck) or referee")
    if unknown:
        raise UsageError(f"X-Statix has no setup option {', '.join(sorted(unknown))}")
    game = db.games["x-statix"]
    players = check_players(players, game.min_players, game.max_players)

    owner_of, owners_chosen = deal_specials(
        players, owners or {}, _names(game, "owners"), rng, "Owner"
    )
    team_of, teams_chosen = deal_specials(
        players, teams or {}, _names(game, "team-names"), rng, "Team Name"
    )

    deck = [card.name for card in game.decks["common"].cards for _ in range(card.copies)]
    if len(deck) < HAND_SIZE * len(players):
        raise RefereeError(
            f"the common deck has {len(deck)} cards, too few to deal {HAND_SIZE} to "
            f"{len(players)} players",
            "XS-1",
        )
    if deal == "table":  # the players shuffle and deal: nothing seen yet
        deck = [HIDDEN] * len(deck)
    else:
        rng.shuffle(deck)
    hands: dict[str, list[str]] = {p: [] for p in players}
    for _ in range(HAND_SIZE):  # dealt one at a time, in seat order
        for player in players:
            hands[player].append(deck.pop(0))

    from referee.dice import roll_d6

    mt_rolls = {p: roll_d6(START_MT_DICE, rng, f"{p}'s starting MT") for p in players}
    first, first_rolls = first_player(players, rng)

    return {
        "game": GAME_ID,
        "seed": seed,
        "deal": deal,
        "players": players,
        "table": {
            p: {
                "mt": sum(mt_rolls[p]),
                "owner": owner_of[p],
                "team": team_of[p],
                "hand": hands[p],
                "heroes": [],
            }
            for p in players
        },
        "deck": deck,
        "discard": [],
        "turn": {"number": 1, "player": first, "phase": "opportunity"},  # Play fills the rest
        "over": False,
        "winner": None,
        "setup": {
            "mt_rolls": mt_rolls,
            "first_player_rolls": first_rolls,
            "owners_chosen": owners_chosen,
            "teams_chosen": teams_chosen,
        },
    }


def check_players(players: list[str], low: int, high: int) -> list[str]:
    names = [p.strip() for p in players]
    if any(not n for n in names):
        raise UsageError("a player name is empty")
    if len(set(n.casefold() for n in names)) != len(names):
        raise UsageError(f"player names must differ: {', '.join(names)}")
    if not low <= len(names) <= high:
        raise UsageError(f"X-Statix is for {low} to {high} players, not {len(names)} (XS-1)")
    return names


def first_player(players: list[str], rng: random.Random) -> tuple[str, list[dict[str, int]]]:
    """XS-1: highest 1D6 goes first; ties reroll among the tied. Returns the first player
    and every round of rolls."""
    from referee.dice import roll_d6

    rounds: list[dict[str, int]] = []
    contenders = list(players)
    while True:
        again = " again (a tie)" if rounds else ""
        # one die each, named when asked for at the table (the same faces as one roll)
        faces = {p: roll_d6(1, rng, f"{p}'s first-player roll{again}")[0] for p in contenders}
        rounds.append(faces)
        best = max(faces.values())
        contenders = [p for p in contenders if faces[p] == best]
        if len(contenders) == 1:
            return contenders[0], rounds


def deal_specials(
    players: list[str],
    chosen: dict[str, str],
    cards: list[str],
    rng: random.Random,
    kind: str,
) -> tuple[dict[str, str], list[str]]:
    """One card of `cards` per player: the chosen ones first, then the rest at random.
    Returns the cards by player and the players (in seat order) who chose theirs."""
    by_fold = {fold(c): c for c in cards}
    seat_of = {fold(p): p for p in players}
    result: dict[str, str] = {}
    for player, card in chosen.items():
        seat = seat_of.get(fold(player))
        if seat is None:
            raise UsageError(f"{kind} chosen for {player!r}, who is not a player")
        name = by_fold.get(fold(card))
        if name is None:
            raise UsageError(f"no {kind} card {card!r}; choose one of: {', '.join(cards)}")
        if name in result.values():
            raise UsageError(f"{kind} {name} is chosen twice (XS-1: one each)")
        result[seat] = name
    chose = [p for p in players if p in result]
    rest = [c for c in cards if c not in result.values()]
    rng.shuffle(rest)
    for player in players:
        if player not in result:
            if not rest:
                raise RefereeError(f"not enough {kind} cards for {len(players)} players", "XS-1")
            result[player] = rest.pop(0)
    return result, chose


def fold(name: str) -> str:
    """Compare names as typed at a keyboard: case, spacing and curly apostrophes ignored."""
    return " ".join(name.replace("\u2019", "'").replace("\u2018", "'").casefold().split())


def _names(game: Any, deck_id: str) -> list[str]:
    return [card.name for card in game.decks[deck_id].cards]


def setup_summary(state: dict) -> str:
    """One line telling the setup rolls (for the log)."""
    setup = state.get("setup", {})
    rounds = setup.get("first_player_rolls", [])
    rolls = " | reroll ".join(", ".join(f"{p} {f}" for p, f in r.items()) for r in rounds)
    mt = ", ".join(
        f"{p} {sum(f)} ({'+'.join(map(str, f))})" for p, f in setup.get("mt_rolls", {}).items()
    )
    cards = ", ".join(
        f"{p}: {state['table'][p]['owner']} / {state['table'][p]['team']}" for p in state["players"]
    )
    first = state["turn"]["player"]
    dealt = ("the players deal their own deck" if state.get("deal") == "table"
             else "the referee deals")
    return (
        f"X-Statix for {', '.join(state['players'])} ({cards}); {dealt} 7 cards each; "
        "first player "
        f"1D6: {rolls} -> {first} goes first (XS-1); starting MT 4D6: {mt}; deck "
        f"{len(state['deck'])}; {first} starts with turn 1's free card: xs draw (XS-3)"
    )


def marketing_load(hero: dict, db: Database | None = None) -> int:
    """Marketing cards held by a hero for the XS-5 limit, each counted as its
    `counts.marketing` says in the card database (Cult of Personality: 2). `db` defaults to
    `carddb.load()`; pass the session's database when there is one."""
    from referee.xs.catalog import Catalog

    if db is None:
        import carddb

        db = carddb.load()
    cat = Catalog.from_db(db)
    return sum(cat.counts(name, "marketing") if name in cat else 1
               for name in hero.get("marketing", []))


def public_state(state: dict) -> dict:
    """What the whole table may see of `state` (printed by `status --json`, the commands'
    replies): hands and the deck as counts, never their contents or order, and no seed
    (the deck's order follows from it). Hand contents are private to their holder (XS-16):
    `xs hand --player NAME`."""
    from referee.state_copy import copy_state

    shown = copy_state(state)
    shown.pop("seed", None)
    deck = shown.get("deck")
    shown["deck"] = len(deck) if isinstance(deck, list) else deck
    for seat in shown.get("table", {}).values():
        hand = seat.get("hand")
        seat["hand"] = len(hand) if isinstance(hand, list) else hand
    return shown


STAGE_TEXT = {
    "mission": "Mission roll made",
    "carnage": "Carnage roll made, casualties next",
    "casualties": "carnage resolved, Success roll next",
    "success": "Success roll made",
    "payoff": "Payoff made",
    "done": "finished",
}


def _described(roll: dict) -> str:
    """A roll's text (referee.xs.rolls, and the dice it imports, only when a roll is shown)."""
    from referee.xs.rolls import describe

    return describe(roll)


def status_lines(state: dict) -> list[str]:
    """The table (issue item 6): each player's MT, Owner and Team Name, heroes in play with
    FT and marketing, hand size; deck count, whose turn and which phase; the open roll and
    the mission under way."""
    turn = state["turn"]
    if state.get("over"):
        head = f"{TITLE}: game over after turn {turn['number']}"
    else:
        head = f"{TITLE}: turn {turn['number']}, {turn['player']}'s {turn['phase']} phase"
    lines = [f"{head}; deck {len(state['deck'])}, discard {len(state['discard'])}"]
    for player in state["players"]:
        seat = state["table"][player]
        mark = "*" if player == turn["player"] and not state.get("over") else " "
        lines.append(
            f"{mark}{player}: {seat['mt']} MT; owner {seat['owner']}; team {seat['team']}; "
            f"{_count(len(seat['hand']), 'card')} in hand; {_count(len(seat['heroes']), 'hero')}"
        )
        for hero in seat["heroes"]:
            marketing = f", marketing: {', '.join(hero['marketing'])}" if hero["marketing"] else ""
            lines.append(f"    {hero['name']}: {hero['ft']} FT{marketing}")
    if turn.get("open"):
        lines.append(f"open roll: {_described(turn['open'])} (not yet paid)")
    mission = turn.get("mission")
    if mission and not state.get("over"):
        made = ", ".join(_described(r) for r in mission["rolls"].values())
        lines.append(f"mission {mission['card']}: {STAGE_TEXT[mission['stage']]}"
                     + (f" ({made})" if made else ""))
    if turn.get("another_turn") and not state.get("over"):
        lines.append(f"{turn['player']} takes another turn after this one (XS-12)")
    if state.get("over"):
        for row in state.get("ranking", []):
            lines.append(f"  {row['place']}. {row['player']}: {row['mt']} MT, {row['ft']} FT in play")
        winners = state.get("winner") or []
        lines.append(f"Game over: {listed(winners) or 'no one'} "
                     f"{'wins' if len(winners) <= 1 else 'win'} (XS-13)")
    return lines


def _count(n: int, noun: str) -> str:
    """'1 card', '2 cards', '1 hero', '0 heroes'."""
    if n == 1:
        return f"1 {noun}"
    return f"{n} {noun}{'es' if noun.endswith('o') else 's'}"
