"""What a session's rows must hold before the referee trusts them.

A row's CRC only proves the row is what some program wrote; a session file is edited by
hand and copied between tables, so its content is checked too, when it is opened (every
row's columns, every payload, the undo/redo history, the current state) and when an earlier
state is read back (undo, redo, `log` with states). A refusal is a `SchemaError` whose
message says where: `event #3: state.table.Ann.mt: expected a whole number, found '8'`.

The session's format version (`PRAGMA user_version`) names the schema its states follow:
`SCHEMAS[version][game]`. Each game's function checks the base shape of its state
(docs/ARCHITECTURE.md); a game module may add keys (they are not checked, except the
engine keys listed as optional), never rename these. Format 2 changed how states are
stored (referee/state_delta.py), not their shapes: its schema is format 1's. To change a
shape incompatibly, add `SCHEMAS[3]`, write new sessions as 3 and keep reading the older
ones (or convert them).

No sqlite3 here: checks on plain values, so the schema is testable on its own."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from referee.inputs import shown
from referee.seq_runs import Seqs  # `done` as runs: a long history costs what a short one does

FORMAT_VERSION = 2  # what new sessions are written as (session.py: PRAGMA user_version)
MAX_TEXT_CHARS = 1_000_000  # one column of one row; a real state is 2-10 KB
MAX_DEPTH = 32  # nesting of a state or payload; a real one nests 7 deep
MAX_SESSION_BYTES = 256 * 1024 * 1024  # the file; a 1,000-event game is ~5 MB
RESERVED_KINDS = ("new", "undo", "redo")


class SchemaError(Exception):
    """A row that does not match the session format; the message says where."""


Check = Callable[[Any, str], None]


def _fail(where: str, message: str) -> SchemaError:
    return SchemaError(f"{where}: {message}")


def _found(value: Any) -> str:
    """A value found where another belongs, as a message shows it (bounded, one line)."""
    if isinstance(value, str):
        return f"text {shown(value)}"
    if isinstance(value, dict | list):
        return "an object" if isinstance(value, dict) else "a list"
    return _cut(json.dumps(value))  # null, true, 8.5, a 4,000-digit number


def _cut(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


# ── checks: small functions `check(value, where)` that raise SchemaError ──────────
def whole(minimum: int = 0) -> Check:
    """A JSON integer (not true/false, not 8.0, not "8") of at least `minimum`."""

    def check(value: Any, where: str) -> None:
        if type(value) is not int:
            raise _fail(where, f"expected a whole number, found {_found(value)}")
        if value < minimum:
            raise _fail(where, f"expected a whole number of at least {minimum}, found {value}")

    return check


def name(value: Any, where: str) -> None:
    """A non-empty single-line text (a player, a card, a phase)."""
    if not isinstance(value, str) or not value:
        raise _fail(where, f"expected a name, found {_found(value)}")
    if not value.isprintable():
        raise _fail(where, f"a name with control characters: {shown(value)}")


def flag(value: Any, where: str) -> None:
    if type(value) is not bool:
        raise _fail(where, f"expected true or false, found {_found(value)}")


def obj(value: Any, where: str) -> None:
    if not isinstance(value, dict):
        raise _fail(where, f"expected an object, found {_found(value)}")


def seq(value: Any, where: str) -> None:
    if not isinstance(value, list):
        raise _fail(where, f"expected a list, found {_found(value)}")


def equals(expected: Any) -> Check:
    def check(value: Any, where: str) -> None:
        if value != expected or type(value) is not type(expected):
            raise _fail(where, f"expected {json.dumps(expected)}, found {_found(value)}")

    return check


def one_of(*choices: str) -> Check:
    def check(value: Any, where: str) -> None:
        if not isinstance(value, str) or value not in choices:
            raise _fail(where, f"expected one of {', '.join(choices)}, found {_found(value)}")

    return check


def maybe(inner: Check) -> Check:
    """`inner`, or null."""

    def check(value: Any, where: str) -> None:
        if value is not None:
            inner(value, where)

    return check


def either(first: Check, second: Check, expected: str) -> Check:
    """`first` (a container check) or `second`; a container that fails gets `first`'s
    complaint (which element is wrong), anything else says what was `expected`."""

    def check(value: Any, where: str) -> None:
        try:
            first(value, where)
            return
        except SchemaError as error:
            if isinstance(value, dict | list):
                raise error from None
        try:
            second(value, where)
        except SchemaError:
            raise _fail(where, f"expected {expected}, found {_found(value)}") from None

    return check


def list_of(item: Check) -> Check:
    def check(value: Any, where: str) -> None:
        seq(value, where)
        for index, element in enumerate(value):
            item(element, f"{where}[{index}]")

    return check


def mapping(item: Check) -> Check:
    """An object whose keys are names and values pass `item`."""

    def check(value: Any, where: str) -> None:
        obj(value, where)
        for key, element in value.items():
            name(key, f"{where} key")
            item(element, f"{where}.{key}")

    return check


def record(required: dict[str, Check], optional: dict[str, Check] | None = None) -> Check:
    """An object with every `required` key, `optional` ones checked when present; other
    keys are the game module's own and pass."""

    def check(value: Any, where: str) -> None:
        obj(value, where)
        for key, inner in required.items():
            if key not in value:
                raise _fail(where, f"missing {key!r}")
            inner(value[key], f"{where}.{key}")
        for key, inner in (optional or {}).items():
            if key in value:
                inner(value[key], f"{where}.{key}")

    return check


def players(value: Any, where: str) -> None:
    list_of(name)(value, where)
    if not value:
        raise _fail(where, "no players")
    if len(set(value)) != len(value):
        raise _fail(where, "a player is named twice")


def seed(value: Any, where: str) -> None:
    if value is not None and type(value) is not int and not isinstance(value, str):
        raise _fail(where, f"expected a number, a text or null, found {_found(value)}")


def _seat_of(state: dict, player: Any, where: str) -> None:
    if player not in state["players"]:
        raise _fail(where, f"{shown(player)} is not one of the players")


# ── X-Statix (referee/xs/) ────────────────────────────────────────────────────
_XS_HERO = record({"name": name, "ft": whole(), "marketing": list_of(name)})
_XS_SEAT = record(
    {
        "mt": whole(),
        "owner": name,
        "team": name,
        # a count when the players hold the cards
        "hand": either(list_of(name), whole(), "a list of card names or a count"),
        "heroes": list_of(_XS_HERO),
    }
)
_XS_TURN = record(
    {"number": whole(), "player": name, "phase": name},
    {  # the engine's keys (referee/xs/play.py: fresh_turn): their types
        "open": maybe(obj),
        "used": mapping(whole()),
        "queued": list_of(obj),
        "mission": maybe(obj),
        "missions": whole(),
        "choose_casualties": flag,
        "another_turn": flag,
        "coach_kills": whole(),
        "fame": seq,
        "free_drawn": flag,
        "paid_alone": flag,
    },
)
_XS_STATE = record(
    {
        "game": equals("x-statix"),
        "seed": seed,
        "players": players,
        "table": mapping(_XS_SEAT),
        "deck": either(list_of(name), whole(), "a list of card names or a count"),
        "discard": list_of(name),
        "turn": _XS_TURN,
        "over": flag,
        "winner": maybe(list_of(name)),
    },
    {
        "setup": obj,
        "ranking": list_of(
            record({"player": name, "mt": whole(), "ft": whole(), "place": whole(1)})
        ),
    },
)


def xs_state(state: Any, where: str = "state") -> None:
    _XS_STATE(state, where)
    if sorted(state["table"]) != sorted(state["players"]):
        raise _fail(f"{where}.table", "its seats are not the players")
    _seat_of(state, state["turn"]["player"], f"{where}.turn.player")
    for index, winner in enumerate(state["winner"] or []):
        _seat_of(state, winner, f"{where}.winner[{index}]")


# ── XO! (referee/xo/) ─────────────────────────────────────────────────────────
_LEAGUE = one_of("heroes", "villains")
_XO_CHARACTER = record({"name": name, "statuses": list_of(name), "ko": flag})
_XO_STATE = record(
    {
        "game": equals("xo"),
        "seed": seed,
        "players": players,
        "leagues": record({"heroes": name, "villains": name}),
        "roster": record({"heroes": list_of(_XO_CHARACTER), "villains": list_of(_XO_CHARACTER)}),
        "chapter": whole(1),
        "won": mapping(_LEAGUE),
        "thwart_bonus": maybe(record({"league": _LEAGUE, "turn": whole()})),
        "turn": record({"number": whole(), "active": _LEAGUE, "phase": name}),
        "over": flag,
        "winner": maybe(name),
    },
    {
        "setup": obj,
        "hands": record({"heroes": whole(), "villains": whole()}),
        "energy": record({"heroes": whole(), "villains": whole()}),
        "resources": mapping(list_of(name)),
        "objectives": obj,
    },
)


def xo_state(state: Any, where: str = "state") -> None:
    _XO_STATE(state, where)
    if len(state["players"]) != 2:
        raise _fail(f"{where}.players", "XO! is played by two players")
    for league in ("heroes", "villains"):
        _seat_of(state, state["leagues"][league], f"{where}.leagues.{league}")


class _Registered(Mapping[str, Callable[[Any, str], None]]):
    """Game id -> its state check, from the one game registry (`referee.games`), looked
    up when a state is checked (a game registered later is found too)."""

    def __getitem__(self, game: str) -> Callable[[Any, str], None]:
        from referee.games import REGISTRY

        return REGISTRY[game].schema_check()

    def __iter__(self) -> Iterator[str]:
        from referee.games import REGISTRY

        return iter(list(REGISTRY))

    def __len__(self) -> int:
        from referee.games import REGISTRY

        return len(REGISTRY)


# format 2 stores most states as deltas (state_delta); the states it rebuilds are format 1's
SCHEMAS: dict[int, Mapping[str, Callable[[Any, str], None]]] = {1: _Registered(), 2: _Registered()}


# ── rows ──────────────────────────────────────────────────────────────────────
def parse(text: Any, where: str) -> Any:
    """A column's JSON text as values, bounded: size, nesting (the C parser recurses, so
    100,000 nested arrays are a RecursionError), integers of 4,301+ digits (ValueError)."""
    if not isinstance(text, str):
        raise _fail(where, f"expected JSON text, found {_found(text)}")
    if len(text) > MAX_TEXT_CHARS:
        raise _fail(where, f"{len(text)} characters; at most {MAX_TEXT_CHARS}")
    try:
        value = json.loads(text)
    except RecursionError:
        raise _fail(where, f"nested more than {MAX_DEPTH} deep") from None
    except ValueError as error:
        raise _fail(where, f"not JSON ({str(error).split(':')[0]})") from None
    if text.count("[") + text.count("{") > MAX_DEPTH and not _passed(text, _check_depth):
        _check_depth(value, where)  # (a text with fewer brackets cannot nest deeper)
        _remember(text, _check_depth)
    return value


# Texts that passed a check lately, by check: a command reads the kept game's `new` payload
# and the current state more than once (on open, on write, on the next open), and each
# check is a pure function of the text (issue 34: a fifth of a command's CPU). Bounded: a
# few entries of at most MAX_TEXT_CHARS; a refused text is never remembered.
_PASSED: dict[tuple[str, Callable[..., object]], None] = {}
_PASSED_MAX = 8
_PAYLOAD_KEPT = 1024  # payloads remembered: longer than this (a `new` event's, check_row)


def _passed(text: str, check: Callable[..., object]) -> bool:
    """Whether `text` passed `check` lately (then it is the newest entry again)."""
    if (text, check) not in _PASSED:
        return False
    _PASSED[text, check] = _PASSED.pop((text, check))
    return True


def _remember(text: str, check: Callable[..., object]) -> None:
    if len(_PASSED) >= _PASSED_MAX:
        del _PASSED[next(iter(_PASSED))]  # the oldest
    _PASSED[text, check] = None


def _check_depth(value: Any, where: str) -> None:
    level: list[Any] = [value]
    for _ in range(MAX_DEPTH + 1):
        level = [
            child
            for node in level
            if isinstance(node, dict | list)
            for child in (node.values() if isinstance(node, dict) else node)
            if isinstance(child, dict | list)
        ]
        if not level:
            return
    raise _fail(where, f"nested more than {MAX_DEPTH} deep")


def check_state(state: Any, version: int = FORMAT_VERSION, where: str = "state") -> dict:
    """`state` if it matches its game's schema in format `version`, else SchemaError."""
    _schema_of(state, version, where)(state, where)
    return state


def _schema_of(state: Any, version: int, where: str) -> Check:
    """The check of `state`'s game in format `version` (SchemaError if it has none)."""
    obj(state, where)
    games = SCHEMAS[version]
    game = state.get("game")
    if state.get("kit") == "table":  # a cards.yaml game played with the table kit
        from referee.games import TABLE_KIT

        return TABLE_KIT.schema_check()
    if not isinstance(game, str) or game not in games:
        hint = " (a game no installed plug-in provides?)" if isinstance(game, str) else ""
        raise _fail(f"{where}.game",
                    f"expected one of {', '.join(games)}, found {_found(game)}{hint}")
    return games[game]


def load_state(text: Any, version: int = FORMAT_VERSION, where: str = "state") -> dict:
    """A row's `state_json`, parsed and checked (a text that passed its game's check
    lately is not checked again: the verdict would be the same)."""
    state = parse(text, where)
    check = _schema_of(state, version, where)
    if not _passed(text, check):
        check(state, where)
        _remember(text, check)
    return state


def check_rows(rows: list[tuple], version: int = FORMAT_VERSION,
               history: tuple[int, Iterable[int], list[int]] | None = None) -> None:
    """Every row `(seq, ts, kind, summary, payload_json, state_json)` of a log: columns of
    the right types, payloads JSON objects, every undo and redo naming exactly the events
    the history lets it move, and the current (last) state matching its game's schema.
    Earlier states are checked when read back (`load_state`). `history`: the rows follow
    rows already checked, whose (base, done, undone) stacks these are (session_verified)."""
    log = LogCheck(history)
    for row in rows:
        log.row(row)
    if rows:
        last = rows[-1]
        load_state(last[5], version, f"event #{last[0]}: state")


def check_columns(row: tuple) -> Any:
    """One row's own content, whatever its place in the log: ts, kind and summary one
    line of text each (at most MAX_TEXT_CHARS), the state text, the payload a JSON object;
    the payload is returned. SchemaError saying where otherwise."""
    number, ts, kind, summary, payload_json, state_json = row
    at = f"event #{number}"
    for column, value in (("ts", ts), ("kind", kind), ("summary", summary)):
        if not isinstance(value, str) or not value.isprintable():
            raise _fail(f"{at}: {column}", f"expected one line of text, found {_found(value)}")
        if len(value) > MAX_TEXT_CHARS:
            raise _fail(f"{at}: {column}", f"{len(value)} characters; at most {MAX_TEXT_CHARS}")
    if not isinstance(state_json, str):
        raise _fail(f"{at}: state", f"expected JSON text, found {_found(state_json)}")
    return _payload(payload_json, f"{at}: payload")


def check_row(row: tuple) -> None:
    """`check_columns` for a row read back whose payload's values are not wanted
    (session._rows_between): a payload text that passed lately is not parsed again, as its
    verdict would be the same (the kept game's `new` payload, some 16 kB, was parsed on
    every command only to be dropped)."""
    if isinstance(row[4], str) and _passed(row[4], _payload):
        check_columns((*row[:4], "{}", row[5]))  # the other columns, as always
        return
    check_columns(row)
    if len(row[4]) > _PAYLOAD_KEPT:  # a short one costs less to parse than to look up
        _remember(row[4], _payload)


def _payload(text: Any, where: str) -> dict:
    """A payload column's JSON text as its object (SchemaError: not JSON, not an object)."""
    payload = parse(text, where)
    obj(payload, where)
    return payload


class LogCheck:
    """`check_rows` a row at a time, keeping the undo history as it goes (base, done,
    undone, reverted: as session._undo_stacks replays them). `regular(first, count)` takes
    a run of ordinary events (a whole session checked in bulk, session._verify_bulk: their
    CRCs; their columns are checked when read): they only extend what undo may revert."""

    def __init__(self, history: tuple[int, Iterable[int], list[int]] | None = None) -> None:
        self.base, self.done, self.undone = (0, Seqs(), []) if history is None else (
            history[0], Seqs.of(history[1]), list(history[2]))
        self.reverted: set[int] = set()  # seqs these rows revert (and do not redo)

    def regular(self, first: int, count: int) -> None:
        self.done.add_run(first, count)
        self.undone = []

    def row(self, row: tuple) -> None:
        number, _, kind, _, _, _ = row
        at = f"event #{number}"
        payload = check_columns(row)
        if number == 1 and kind != "new":
            raise _fail(at, "the first event is not a new game")
        done, undone = self.done, self.undone
        if kind == "new":
            self.base, self.done, self.undone = number, Seqs(), []  # a new game: undo stops here
        elif kind == "undo":
            n = len(done)
            record({"n": whole(1), "undone": list_of(whole(1)), "restores": whole(1)})(
                payload, f"{at}: payload"
            )
            count = payload["n"]
            expected = list(reversed(done.last(count))) if count <= n else None
            restores = (done.at(-count - 1) if count < n else self.base) if count <= n else None
            if payload["undone"] != expected or payload["restores"] != restores:
                raise _fail(
                    f"{at}: payload",
                    f"undo names events {_cut(json.dumps(payload['undone']))}; the history "
                    f"lets it undo {_cut(json.dumps(list(reversed(done.last(count)))))}",
                )
            done.drop_last(count)
            undone.extend(payload["undone"])
            self.reverted.update(payload["undone"])
        elif kind == "redo":
            record({"n": whole(1), "redone": list_of(whole(1))})(payload, f"{at}: payload")
            count = payload["n"]
            expected = list(reversed(undone[-count:])) if count <= len(undone) else None
            if payload["redone"] != expected:
                raise _fail(
                    f"{at}: payload",
                    f"redo names events {_cut(json.dumps(payload['redone']))}; the history "
                    f"lets it redo {_cut(json.dumps(list(reversed(undone))[:count]))}",
                )
            del undone[-count:]
            done.extend(payload["redone"])
            self.reverted.difference_update(payload["redone"])
        else:
            done.append(number)
            self.undone = []
