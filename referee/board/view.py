"""What the board shows, as data: a pure function of the public state, the turn clock and
the last events. Nothing private reaches it: it starts from `public_state` (hands and
decks as counts, no seed; the table kit's shown cards left out) and from what `log`
prints; the dice are read from the states' rolls and the events' results, never from a
payload as a whole.

`board(...)` gives the JSON of `/state`: `state` is exactly `status --json`'s state, and
`players`, `facts`, `roll`, `log`, `winner` are that state arranged for the page (a list
of (label, value) per player, so the page draws every game, and every public key a
declared game adds, the same way)."""

from __future__ import annotations

from typing import Any

LOG_LINES = 6  # the log's last lines: a TV shows them without scrolling
MASK_FACES = (0, 1, 1, 2, 2, 3)  # XO-1 (referee/dice.py, not imported: kept light)


def board(seq: int, public: dict, lines: list[str], stand: dict, events: list[Any],
          states: list[dict], looks: dict | None = None, names: dict | None = None) -> dict:
    """The board of the session at event `seq`: `public` its public state, `lines` what
    `status` prints, `stand` the clock (`clock.standing`), `events` the last events
    (session.Event, oldest first) and `states` their public states; `looks`: a declared
    game's dice as its labels print them (`dice_looks`); `names`: its own names for its
    tokens and decks (`kit_names`; without them, their ids)."""
    players = [p for p in public.get("players", []) if isinstance(p, str)]
    kind = _kind(public)
    seats = (_kit_seats(public, players, names) if kind == "kit" else
             {"x-statix": _xs_seats, "xo": _xo_seats}.get(kind, _kit_seats)(public, players))
    return {
        "ok": True,
        "seq": seq,
        "game": public.get("game"),
        "title": _title(public, kind),
        "headline": lines[0] if lines else "",
        "lines": lines,
        "state": public,
        "clock": stand,
        "turn": _on_turn(public),
        "players": [{"name": p, "turn": p == _on_turn(public), "running": p == stand.get("running"),
                     "seconds": stand.get("used", {}).get(p, 0), **seats.get(p, {})}
                    for p in players],
        "facts": (_kit_facts(public, names) if kind == "kit" else
                  {"x-statix": _xs_facts, "xo": _xo_facts}.get(kind, _kit_facts)(public)),
        "roll": last_roll(events, states, looks or {}),
        "log": [{"seq": e.seq, "kind": e.kind, "text": e.summary, "undone": e.undone}
                for e in events[-LOG_LINES:]],
        "winner": _winner(public, kind),
    }


def _kind(state: dict) -> str:
    if state.get("kit") == "table":
        return "kit"
    return str(state.get("game"))


def _title(state: dict, kind: str) -> str:
    if kind == "kit":
        return str(state.get("title") or state.get("game"))
    return {"x-statix": "X-Statix", "xo": "XO!"}.get(kind, str(state.get("game")))


def _on_turn(state: dict) -> str | None:
    found = state.get("turn")
    turn: dict = found if isinstance(found, dict) else {}
    player = turn.get("player")
    players = state.get("players", [])
    if player is None and turn.get("active") in ("heroes", "villains") and len(players) == 2:
        player = players[0 if turn["active"] == "heroes" else 1]
    return player if isinstance(player, str) else None


# ── X-Statix: MT, FT, heroes in play ───────────────────────────────────────────
def _xs_seats(state: dict, players: list[str]) -> dict[str, dict]:
    seats = {}
    for p in players:
        seat = state.get("table", {}).get(p, {})
        heroes = [h for h in seat.get("heroes", []) if isinstance(h, dict)]
        ft = sum(h.get("ft", 0) for h in heroes if isinstance(h.get("ft"), int))
        seats[p] = {
            "subtitle": " · ".join(str(x) for x in (seat.get("owner"), seat.get("team")) if x),
            "stats": [["MT", seat.get("mt")], ["FT", ft], ["cards in hand", seat.get("hand")]],
            "items": [{"name": h.get("name"), "detail": f"{h.get('ft', 0)} FT",
                       "tags": list(h.get("marketing", []))} for h in heroes],
        }
    return seats


def _xs_facts(state: dict) -> list[list[Any]]:
    turn = state.get("turn", {})
    facts = [["turn", turn.get("number")], ["phase", turn.get("phase")],
             ["deck", state.get("deck")], ["discard", _count(state.get("discard"))]]
    mission = turn.get("mission")
    if isinstance(mission, dict):
        facts.append(["mission", f"{mission.get('card')} ({mission.get('stage')})"])
    for place in state.get("ranking") or []:  # a finished game (XS-13)
        if isinstance(place, dict):
            facts.append([f"#{place.get('place')}", f"{place.get('player')}: "
                          f"{place.get('mt')} MT, {place.get('ft')} FT"])
    return facts


# ── XO!: chapters won, characters and their statuses ────────────────────────────
LEAGUES = ("heroes", "villains")


def _xo_seats(state: dict, players: list[str]) -> dict[str, dict]:
    seats = {}
    won = state.get("won", {}) if isinstance(state.get("won"), dict) else {}
    for league, p in zip(LEAGUES, players, strict=False):
        chapters = sorted(int(c) for c, who in won.items() if who == league and c.isdigit())
        roster = state.get("roster", {}).get(league, [])
        seats[p] = {
            "subtitle": f"{league}: {state.get('leagues', {}).get(league, '')}",
            "stats": [["chapters won", len(chapters)],
                      ["cards in hand", (state.get("hands") or {}).get(league)],
                      ["energy", (state.get("energy") or {}).get(league)]],
            "items": [{"name": c.get("name"), "detail": "KO" if c.get("ko") else "",
                       "tags": list(c.get("statuses", []))}
                      for c in roster if isinstance(c, dict)],
        }
    return seats


def _xo_facts(state: dict) -> list[list[Any]]:
    turn = state.get("turn", {})
    facts = [["chapter", f"{state.get('chapter')} of 7"], ["turn", turn.get("number")],
             ["phase", turn.get("phase")]]
    for league, objective in (state.get("objectives") or {}).items():
        if isinstance(objective, dict):
            facts.append([f"{league}' objective", f"{objective.get('name')} "
                          f"(FCV {objective.get('fcv')}, TCV {objective.get('tcv')})"])
    for stack, cards in (state.get("resources") or {}).items():  # XO-20: the face-up top
        if isinstance(cards, list):
            facts.append([f"{stack} resources", f"{cards[0]} face up, {len(cards)} in all"
                          if cards else "(empty)"])
    bonus = state.get("thwart_bonus")
    if isinstance(bonus, dict):
        facts.append(["thwart bonus", bonus.get("league")])
    return facts


# ── a declared game (the table kit): tokens, zones, scores, whatever it adds ──────
KIT_KNOWN = {"game", "kit", "players", "title", "turn", "tokens", "pool", "decks", "hands",
             "last_roll", "setup", "over", "winner", "clock", "zones", "table", "scores",
             "pending"}


def kit_names(game: Any) -> dict[str, dict[str, str]]:
    """A declared game's own names for what its state keys by id (referee.table.kit's
    TableGame): each token kind's `name` (`cargo` -> Cargo), each deck's title."""
    return {"tokens": {k: t.name for k, t in game.tokens.items()},
            "decks": dict(game.deck_titles)}


def _named(names: dict | None, what: str, key: str) -> str:
    return str(((names or {}).get(what) or {}).get(key) or key)


def _kit_seats(state: dict, players: list[str], names: dict | None = None) -> dict[str, dict]:
    """Tokens (by the names the game gives them), cards in hand and the score, each zone
    by its name with its cards, then every other per-player key of the public state,
    generically: a key whose value is keyed by the players."""
    per_player = [k for k, v in state.items() if k not in KIT_KNOWN and isinstance(v, dict)
                  and v and set(v) <= set(players)]
    seats = {}
    for p in players:
        stats: list[list[Any]] = [[_named(names, "tokens", k), n]
                                  for k, n in (state.get("tokens", {}).get(p) or {}).items()]
        hand = (state.get("hands", {}).get(p) or {})
        stats.append(["cards in hand", sum(n for n in hand.values() if isinstance(n, int))])
        if p in (state.get("scores") or {}):
            stats.append(["score", state["scores"][p]])
        items = [_zone_item(zone, cards) for zone, cards in
                 ((state.get("zones") or {}).get(p) or {}).items()]
        for key in per_player:
            value = state[key].get(p)
            if isinstance(value, (int, float, str)) or value is None:
                stats.append([key, value])
            elif isinstance(value, dict):
                for sub, inner in value.items():
                    items.append({"name": f"{key}: {sub}", "detail": _words(inner), "tags": []})
            elif isinstance(value, list):
                items.append({"name": key, "detail": _words(value), "tags": []})
        seats[p] = {"subtitle": "", "stats": stats, "items": items}
    return seats


def _zone_item(zone: str, cards: Any) -> dict:
    """A zone by its declared name, its cards (`harbour`: Kestrel, Osprey; or no cards)."""
    listed = _words(cards) if isinstance(cards, list) and cards else "no cards"
    return {"name": str(zone), "detail": listed, "tags": []}


def _kit_facts(state: dict, names: dict | None = None) -> list[list[Any]]:
    turn = state.get("turn", {})
    facts: list[list[Any]] = [["round", turn.get("round")], ["turn", turn.get("number")],
                              ["phase", turn.get("phase")]]
    facts += [[f"{_named(names, 'tokens', k)} (shared)", n]
              for k, n in (state.get("pool") or {}).items()]
    facts += [[f"{zone} (the table)", _zone_item(zone, cards)["detail"]]
              for zone, cards in (state.get("table") or {}).items()]
    for deck, pile in (state.get("decks") or {}).items():
        if isinstance(pile, dict):
            top = f", top of discard: {pile['seen'][-1]}" if pile.get("seen") else ""
            facts.append([f"deck {_named(names, 'decks', deck)}", f"{pile.get('deck')} to "
                          f"draw, {pile.get('discard')} discarded{top}"])
    players = set(state.get("players", []))
    for key, value in state.items():  # a key the kit does not know and not per player
        if key in KIT_KNOWN or (isinstance(value, dict) and value and set(value) <= players):
            continue
        facts.append([key, _words(value)])
    return facts


def _words(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_words(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_words(v) for v in value) or "none"
    return "" if value is None else str(value)


def _count(value: Any) -> Any:
    return len(value) if isinstance(value, list) else value


def _winner(state: dict, kind: str) -> str | None:
    if state.get("over") is not True:
        return None
    winner = state.get("winner")
    league = state.get("winning_league", winner)  # XO!'s public state names both
    if kind == "xo" and league in LEAGUES:
        players = state.get("players", [])
        who = players[LEAGUES.index(league)] if len(players) == 2 else ""
        return f"{who} ({league}: {state.get('leagues', {}).get(league, '')}) wins"
    if kind == "xo" and winner == []:
        return "a draw (XO-16)"
    if isinstance(winner, list):
        return (" and ".join(map(str, winner)) + (" win" if len(winner) > 1 else " wins")
                if winner else "no winner")
    return f"{winner} wins" if winner else "the game is over"


# ── the last roll, as the dice the table holds ────────────────────────────────
def dice_looks(dice: dict[str, Any]) -> dict[str, dict]:
    """A declared game's dice (carddb.dice.Die by name) as their labels print them: the
    set's colour and ink, and the icon a face prints instead of its symbol."""
    looks = {}
    for name, die in dice.items():
        first = die.sets[0] if die.sets else None
        looks[name] = {"color": getattr(first, "color", None), "ink": getattr(first, "ink", None),
                       "icons": {f.key: f.icon for f in die.faces if f.icon}}
    return looks


def last_roll(events: list[Any], states: list[dict], looks: dict | None = None
              ) -> dict | None:
    """The newest roll among the last events: the table kit's `last_roll`, X-Statix's
    open roll or mission rolls, XO!'s attack, defense, feat and thwart rolls (the event's
    result). {"who", "label", "groups": [{"name", "die", "faces"}], "total"}."""
    for event, state in zip(reversed(events), reversed(states), strict=False):
        if event.undone or event.kind in ("undo", "redo", "clock"):
            continue
        found = _roll_of(event, state, looks or {})
        if found is not None:
            return found
    return None


def _roll_of(event: Any, state: dict, looks: dict) -> dict | None:
    kind = _kind(state)
    who = _on_turn(state)
    if kind == "kit":
        # the state keeps its last roll: a `roll` command's, or a named roll the walk's
        # `step` made (rules as data), whose outcome is what the table reads
        roll = state.get("last_roll")
        if isinstance(roll, dict):
            faces = [str(f) for f in roll.get("faces", [])]
            total = roll.get("outcome", roll.get("sum", roll.get("total")))
            look = looks.get(str(roll.get("die")), {})
            return {"who": roll.get("who"), "label": f"{len(faces)} {roll.get('die')}",
                    "groups": [{"name": roll.get("die"), "die": "symbol", "faces": faces,
                                **look}],
                    "total": total}
        return None
    if kind == "x-statix":
        turn = state.get("turn", {})
        rolls = [turn.get("open")] if isinstance(turn.get("open"), dict) else []
        mission = turn.get("mission")
        if not rolls and isinstance(mission, dict) and isinstance(mission.get("rolls"), dict):
            rolls = list(mission["rolls"].values())[-1:]
        for roll in rolls:
            if isinstance(roll, dict) and isinstance(roll.get("faces"), list):
                return {"who": who, "label": f"{roll.get('kind', '')} roll".strip(),
                        "groups": [{"name": roll.get("kind"), "die": "d6",
                                    "faces": list(roll["faces"])}],
                        "total": roll.get("total")}
        return None
    if kind == "xo":
        result = event.payload.get("result") if isinstance(event.payload, dict) else None
        groups = list(_mask_rolls(result, ""))
        active = state.get("turn", {}).get("active")
        for group in groups:  # XO-1: the heroes' White Mask dice, the villains' Black Mask
            other = "villains" if active == "heroes" else "heroes"
            group["league"] = other if "defense" in group["name"] else active
        if groups:
            return {"who": who, "label": event.kind, "groups": groups, "total": None}
    return None


def _mask_rolls(value: Any, where: str) -> Any:
    """XO!'s rolls in a command's result: keys ending in `roll` holding mask faces."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if (isinstance(key, str) and key.endswith("roll") and isinstance(inner, list)
                    and inner and all(type(f) is int and f in MASK_FACES for f in inner)):
                name = key.replace("_", " ")
                yield {"name": f"{where} {name}".strip(), "die": "mask", "faces": inner}
            elif isinstance(inner, (dict, list)) and key != "referee_rolled":
                yield from _mask_rolls(inner, where if not isinstance(inner, dict) else
                                       str(inner.get("name", where)))
    elif isinstance(value, list):
        for inner in value:
            yield from _mask_rolls(inner, where)
