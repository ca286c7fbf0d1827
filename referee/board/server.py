"""The board's web server: `/` the page, `/state` the board as JSON, `/events` one
Server-Sent Event per change of the session. Read-only: every endpoint answers GET (and
HEAD) only, and the session is opened for reading like `status` (never written, no lock).

Whichever process writes the session (`referee play`, a one-shot command in another
terminal), the watcher sees it: it looks at the file's identity (inode, size, times of
the file and its `-wal`: every committed command changes them, session.py's `_durable`)
every `POLL_S` seconds and, when it changed, reads the board again and sends it to every
open page if the log moved. Standard library only (http.server)."""

from __future__ import annotations

import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from carddb.sse import Streams

POLL_S = 0.05  # the page follows a command within 200 ms: a poll, a read, a send
RECENT = 20  # events read for the log lines and the last roll


def read_board(path: str, looks: dict | None = None, names: dict | None = None) -> dict:
    """The board of the session at `path` now (view.board), read as `status` reads;
    `looks` and `names`: a declared game's dice looks and own names (`declared_of`)."""
    from referee import clock
    from referee.board.view import board
    from referee.command import public_state
    from referee.games import module_of_state
    from referee.session import Session

    with Session.open(path, write=False) as session:
        state = session.state
        stand = session.clock()
        lines = [*module_of_state(state).status_lines(state), *clock.lines(stand)]
        recent = session.log(with_states=True, last=RECENT)
        seq = session.last_seq
    events = [event for event, _ in recent]  # type: ignore[misc]
    states = [public_state(s) for _, s in recent]  # type: ignore[misc]
    return board(seq, public_state(state), lines, stand, events, states, looks, names)


def declared_of(path: str, cards: str | None) -> tuple[dict, dict | None]:
    """The session's game as cards.yaml declares it (a declared game only: X-Statix rolls
    d6, XO! mask dice): its dice looks (`view.dice_looks`) and its own names for its
    tokens and decks (`view.kit_names`); ({}, None) when the database cannot be read (the
    faces are then drawn with their symbols alone, the tokens named by their ids)."""
    from referee.session import Session

    try:
        with Session.open(path, write=False) as session:
            state = session.state
        if state.get("kit") != "table":
            return {}, None
        from referee.board.view import dice_looks, kit_names
        from referee.command import load_cards
        from referee.table.kit import TableGame

        game = TableGame.from_db(load_cards(cards, None), str(state["game"]))
        return dice_looks(game.dice), kit_names(game)
    except Exception:  # a look or a name is decoration: never a reason to refuse the board
        return {}, None


def dice_looks_of(path: str, cards: str | None) -> dict:
    """The dice looks alone (`declared_of`)."""
    return declared_of(path, cards)[0]


def identity(path: str) -> tuple:
    """What changes whenever a command commits (the file and its WAL, which SQLite keeps
    beside the real file of a session reached through a symbolic link)."""
    from referee.session_media import wal_of

    found: list[tuple[int, int, int, int] | None] = []
    for name in (path, wal_of(path)):
        try:
            st = os.stat(name)
            found.append((st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
        except OSError:
            found.append(None)
    return tuple(found)


class Board:
    """The session watched, the latest board, and the open event streams."""

    def __init__(self, path: str, cards: str | None = None) -> None:
        self.path = path
        self.cards = cards
        self.looks: dict | None = None  # read once a game is there
        self.names: dict | None = None
        self.streams = Streams()
        self.stopped = self.streams.stopped
        self.latest = self._read()
        self._seen = identity(path)
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _read(self) -> dict:
        try:
            if self.looks is None and os.path.isfile(self.path):
                self.looks, self.names = declared_of(self.path, self.cards)
            return {**read_board(self.path, self.looks, self.names), "read_at": time.time()}
        except Exception as error:  # a session refused: the page says why, in one line
            from referee.inputs import one_line

            message = getattr(error, "message", None) or str(error)
            return {"ok": False, "error": one_line(message)}

    def start(self) -> None:
        self._thread.start()

    def _watch(self) -> None:
        while not self.stopped.wait(POLL_S):
            now = identity(self.path)
            if now == self._seen:
                continue
            self._seen = now
            fresh = self._read()
            if fresh.get("seq") != self.latest.get("seq") or fresh.get("ok") != self.latest.get(
                    "ok") or fresh.get("state") != self.latest.get("state"):
                self.publish(fresh)

    def publish(self, fresh: dict) -> None:
        def latest() -> dict:
            self.latest = fresh
            return fresh

        self.streams.publish(latest)

    def stop(self) -> None:
        self.streams.stop()


def now_clock(snapshot: dict) -> dict:
    """The board with `served_at` (the page runs the running player's clock from it)."""
    return {**snapshot, "served_at": time.time()}


class Handler(BaseHTTPRequestHandler):
    board: Board  # set on the subclass made by `serve`
    server_version = "referee-board"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the table's terminal
        pass

    def do_HEAD(self) -> None:
        self.do_GET(head=True)

    def do_GET(self, head: bool = False) -> None:
        route = self.path.split("?", 1)[0]
        if route == "/":
            from referee.board.page import PAGE

            self._send(200, "text/html; charset=utf-8", PAGE.encode("utf-8"), head)
        elif route == "/state":
            body = json.dumps(now_clock(self.board.latest), ensure_ascii=False)
            self._send(200, "application/json; charset=utf-8", body.encode("utf-8"), head)
        elif route == "/events":
            self._events(head)
        else:
            self._send(404, "text/plain; charset=utf-8", b"not found\n", head)

    def _refuse(self) -> None:
        self.send_response(405)
        self.send_header("Allow", "GET, HEAD")
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_PUT = do_DELETE = do_PATCH = _refuse  # the board writes nothing

    def _send(self, code: int, kind: str, body: bytes, head: bool) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _events(self, head: bool) -> None:
        from carddb import sse

        sse.headers(self)
        if not head:
            sse.stream_to(self, self.board.streams, _frame, first=lambda: self.board.latest)


def _frame(fresh: dict) -> str:
    data = json.dumps(now_clock(fresh), ensure_ascii=False)
    return f"event: state\nid: {fresh.get('seq', 0)}\ndata: {data}\n\n"


class BoardServer:
    """A running board: `url`, and `close()` (ends the streams, the watcher, the server)."""

    def __init__(self, path: str, host: str = "127.0.0.1", port: int = 0,
                 cards: str | None = None) -> None:
        self.board = Board(path, cards)
        handler = type("BoardHandler", (Handler,), {"board": self.board})
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self.host, self.port = host, self.httpd.server_address[1]
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        shown = "127.0.0.1" if self.host in ("", "0.0.0.0", "::") else self.host
        return f"http://{shown}:{self.port}/"

    def serve_forever(self) -> None:
        """Serve in this thread until `close()` or Ctrl-C (KeyboardInterrupt propagates)."""
        self.board.start()
        self.httpd.serve_forever(poll_interval=0.2)

    def start(self) -> BoardServer:
        """Serve from a thread of its own (`referee play --board`)."""
        self.board.start()
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={
            "poll_interval": 0.2}, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self.board.stop()
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join(timeout=2)
        self.httpd.server_close()


def lan_address() -> str:
    """This machine's address on its local network (the route a packet would take; no
    packet is sent), else 127.0.0.1."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"
