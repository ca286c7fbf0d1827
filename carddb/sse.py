"""Server-Sent Events fan-out, shared by the two live pages (the referee's board,
referee/board/server.py, and pnp's proof gallery, pnp/exports/gallery_server.py): the
open streams, an event put on each, and one stream written to a page until the server
stops or the page goes. Standard library only; it knows no event's content."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

KEEPALIVE_S = 15.0  # a comment line this often, so proxies and browsers keep the stream


class Streams:
    """The open event streams: `publish` puts an event on each; `stop` ends them all."""

    def __init__(self) -> None:
        self.stopped = threading.Event()
        self._lock = threading.Lock()
        self._streams: list[queue.Queue] = []

    def publish(self, make: Callable[[], Any]) -> Any:
        """Put the event `make()` returns on every open stream, and return it; `make` runs
        under the streams' lock, so what it records (the latest, a count) changes with
        the fan-out, never between it and a new subscriber's first event."""
        with self._lock:
            event = make()
            for stream in self._streams:
                stream.put(event)
        return event

    def subscribe(self, first: Callable[[], Any] | None = None) -> queue.Queue:
        """A new stream; `first()`'s event (the latest, say) put on it before any other."""
        stream: queue.Queue = queue.Queue()
        with self._lock:
            self._streams.append(stream)
            if first is not None:
                stream.put(first())
        return stream

    def unsubscribe(self, stream: queue.Queue) -> None:
        with self._lock:
            if stream in self._streams:
                self._streams.remove(stream)

    def stop(self) -> None:
        self.stopped.set()
        with self._lock:
            for stream in self._streams:
                stream.put(None)


def stream_to(handler: BaseHTTPRequestHandler, streams: Streams,
              frame: Callable[[Any], str], first: Callable[[], Any] | None = None,
              keepalive: float = KEEPALIVE_S) -> None:
    """Answer `handler`'s request with an event stream: each event published (after
    `first()`'s, when given) written as `frame(event)` (`event: ...\\ndata: ...\\n\\n`),
    a keep-alive comment when quiet, until the streams stop or the page is closed."""
    stream = streams.subscribe(first)
    try:
        handler.wfile.write(b"retry: 1000\n\n")
        handler.wfile.flush()
        while not streams.stopped.is_set():
            try:
                event = stream.get(timeout=keepalive)
            except queue.Empty:
                handler.wfile.write(b": keep-alive\n\n")
                handler.wfile.flush()
                continue
            if event is None:
                break
            handler.wfile.write(frame(event).encode())
            handler.wfile.flush()
    except (BrokenPipeError, ConnectionResetError):
        pass  # the page was closed
    finally:
        streams.unsubscribe(stream)


def headers(handler: BaseHTTPRequestHandler) -> None:
    """The response line and headers of an event stream."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream; charset=utf-8")
    handler.send_header("Cache-Control", "no-store")
    handler.end_headers()
