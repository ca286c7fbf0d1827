"""The proof gallery served live (`pnp watch --serve`): `/` the gallery (OUT/index.html
with a small script added), its images, and `/events` (Server-Sent Events: one after
each build, naming the PNGs that changed, or the save's one-line error). The page swaps
the changed images itself (a new `?v=` defeats the cache), shows an error in a banner
and clears it on the next good build, and reloads itself only when the gallery's cards
themselves changed (added, removed, warnings). Read-only, standard library only; files
are served only from inside OUT (pnp.outpaths.inside)."""

from __future__ import annotations

import json
import mimetypes
import queue
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

KEEPALIVE_S = 15.0

LIVE_SCRIPT = """<div id="pnp-live-error" hidden style="position:fixed;top:0;left:0;right:0;
z-index:9;background:#c0392b;color:#fff;font:15px/1.4 monospace;padding:8px 12px"></div>
<script>
(function () {
  "use strict";
  var banner = document.getElementById("pnp-live-error");
  var events = new EventSource("/events");
  events.addEventListener("build", function (m) {
    var build = JSON.parse(m.data);
    document.body.dataset.build = build.build;
    if (build.error) { banner.textContent = build.error; banner.hidden = false; return; }
    banner.hidden = true; banner.textContent = "";
    if (build.reload) { location.reload(); return; }
    var wanted = {};
    build.changed.forEach(function (png) { wanted[png] = true; });
    document.querySelectorAll("img").forEach(function (img) {
      var src = img.getAttribute("src").split("?")[0];
      if (wanted[src]) img.src = src + "?v=" + build.build;
    });
  });
})();
</script>
"""


class Gallery:
    """The builds announced and the open event streams."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.stopped = threading.Event()
        self._lock = threading.Lock()
        self._streams: list[queue.Queue] = []
        self.builds = 0

    def publish(self, changed: list[str], error: str | None = None,
                reload: bool = False) -> dict:
        with self._lock:
            self.builds += 1
            event = {"build": self.builds, "changed": changed, "error": error,
                     "reload": reload}
            for stream in self._streams:
                stream.put(event)
        return event

    def subscribe(self) -> queue.Queue:
        stream: queue.Queue = queue.Queue()
        with self._lock:
            self._streams.append(stream)
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


class Handler(BaseHTTPRequestHandler):
    gallery: Gallery
    server_version = "pnp-proof"

    def log_message(self, format: str, *args: Any) -> None:  # the watch prints its own lines
        pass

    def do_GET(self) -> None:
        from urllib.parse import unquote

        route = unquote(self.path.split("?", 1)[0])
        if route == "/events":
            self._events()
            return
        if route in ("/", f"/{'index.html'}"):
            self._index()
            return
        self._file(route.lstrip("/"))

    def _refuse(self) -> None:
        self._send(405, "text/plain; charset=utf-8", b"the gallery is read-only\n")

    do_POST = do_PUT = do_DELETE = do_PATCH = _refuse

    def _send(self, code: int, kind: str, body: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(body)

    def _index(self) -> None:
        from pnp.exports.proof import INDEX

        try:
            page = (self.gallery.out / INDEX).read_text(encoding="utf-8")
        except OSError:
            page = "<!doctype html><title>proof</title><body><p>The first proof is on its way.</p></body>"
        body = page.replace("</body>", LIVE_SCRIPT + "</body>") if "</body>" in page else (
            page + LIVE_SCRIPT)
        self._send(200, "text/html; charset=utf-8", body.encode("utf-8"))

    def _file(self, relative: str) -> None:
        from pnp.outpaths import OutsideOutput, inside

        try:
            path = inside(self.gallery.out, *[p for p in relative.split("/") if p])
            data = path.read_bytes() if path.is_file() else None
        except (OutsideOutput, OSError, ValueError):
            data = None
        if data is None:
            self._send(404, "text/plain; charset=utf-8", b"not found\n")
            return
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        self._send(200, kind, data)

    def _events(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        stream = self.gallery.subscribe()
        try:
            self.wfile.write(b"retry: 1000\n\n")
            self.wfile.flush()
            while not self.gallery.stopped.is_set():
                try:
                    event = stream.get(timeout=KEEPALIVE_S)
                except queue.Empty:
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                    continue
                if event is None:
                    break
                self.wfile.write(f"event: build\nid: {event['build']}\ndata: "
                                 f"{json.dumps(event, ensure_ascii=False)}\n\n".encode())
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            self.gallery.unsubscribe(stream)


class GalleryServer:
    """The gallery of OUT served from a thread: `url`, `publish(...)`, `close()`."""

    def __init__(self, out: Path, host: str = "127.0.0.1", port: int = 0) -> None:
        self.gallery = Gallery(out)
        handler = type("GalleryHandler", (Handler,), {"gallery": self.gallery})
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://{host}:{self.port}/"
        self._thread = threading.Thread(target=self.httpd.serve_forever,
                                        kwargs={"poll_interval": 0.2}, daemon=True)
        self._thread.start()

    def publish(self, changed: list[str], error: str | None = None,
                reload: bool = False) -> dict:
        return self.gallery.publish(changed, error, reload)

    def close(self) -> None:
        self.gallery.stop()
        self.httpd.shutdown()
        self._thread.join(timeout=2)
        self.httpd.server_close()
