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
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from carddb.sse import Streams

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
        self.streams = Streams()
        self.stopped = self.streams.stopped
        self.builds = 0

    def publish(self, changed: list[str], error: str | None = None,
                reload: bool = False) -> dict:
        def event() -> dict:
            self.builds += 1
            return {"build": self.builds, "changed": changed, "error": error, "reload": reload}

        return self.streams.publish(event)

    def stop(self) -> None:
        self.streams.stop()


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
        from carddb import sse

        sse.headers(self)
        sse.stream_to(self, self.gallery.streams, _frame)


def _frame(event: dict) -> str:
    return (f"event: build\nid: {event['build']}\ndata: "
            f"{json.dumps(event, ensure_ascii=False)}\n\n")


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
