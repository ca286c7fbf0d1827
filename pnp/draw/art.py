"""Card art: opened only by image decoders that run no program, drawn at print resolution.

Pillow's `Image.open` accepts every format it knows, and some of them hand the file to
another program: a file beginning `%!PS-Adobe`, whatever its name, is rendered by the
EPS plugin with Ghostscript (`gs`), which runs the PostScript in it. A project folder is
a stranger's document (docs/ARCHITECTURE.md, "Trust model"), so art is opened here only,
by the plugins of an allow-list of raster formats (`FORMATS`), the format told from the
bytes and never from the name; anything else (EPS, PostScript, PDF, SVG, ...) is refused
with one line. ReportLab's own image reading is routed through the same allow-list.

Art far finer than its box needs (over `2 x PRINT_DPI` at its printed size) is embedded
downsampled to `PRINT_DPI`, once per content: the result is kept in the cache folder
(carddb.cache: $PNP_CACHE_DIR) by the SHA-256 of the original's bytes, with what was
learnt from decoding it, so a rebuild after an edit elsewhere decodes it again never.
One notice line says so (`listen(notify)`), once per image and size in a build; a worker
planning a deck's cards keeps its notices (`keep_notices`) for the build to tell (`tell`).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from carddb.limits import MAX_ASSET_BYTES, MAX_IMAGE_PIXELS

# Pillow format ids of the decoders art may use: all of them read pixels in-process.
FORMATS = ("PNG", "JPEG", "WEBP", "GIF", "TIFF", "BMP")
FORMAT_NAMES = "PNG, JPEG, WebP, GIF, TIFF or BMP"
PRINT_DPI = 300                 # what art is downsampled to (pnp.draw.checks.MIN_DPI)
OVERSIZE = 2.0                  # ... when it would print finer than this times PRINT_DPI
CACHE_VERSION = "art-1"

# What a refused file is, told from its first bytes (for the message only).
_KNOWN = ((b"%!PS", "PostScript/EPS"), (b"\xc5\xd0\xd3\xc6", "EPS"), (b"%PDF", "PDF"),
          (b"<svg", "SVG"), (b"<?xml", "XML/SVG"), (b"\x00\x00\x01\x00", "ICO"),
          (b"icns", "ICNS"), (b"8BPS", "Photoshop PSD"), (b"P1", "PNM"), (b"P2", "PNM"),
          (b"P3", "PNM"), (b"P4", "PNM"), (b"P5", "PNM"), (b"P6", "PNM"))


class ArtError(Exception):
    """An art file that cannot be used; the message names the file (one line)."""


@dataclass(frozen=True)
class Art:
    """An image file a card draws, as read once: its digest, pixel size and format."""
    path: Path
    digest: str                 # SHA-256 of the file's bytes
    size: tuple[int, int]       # pixels
    format: str                 # a Pillow format id of FORMATS


_known: dict[tuple, Art] = {}                 # (path, mtime_ns, size) -> Art
_readers: dict[str, Any] = {}                 # downsampled art kept in memory (no cache folder)
_told: set[tuple] = set()
_listeners: list = []
_kept: dict[tuple, str] | None = None        # a worker's notices, kept for the build to tell


def keep_notices() -> list[tuple[tuple, str]]:
    """From now on this process (a worker) keeps its notices instead of telling them;
    returns (and forgets) those kept since the last call, each as (key, line) for `tell`."""
    global _kept
    kept = [] if _kept is None else list(_kept.items())
    _kept = {}
    return kept


def tell(told: tuple, line: str) -> None:
    """Tell the listeners `line`, unless the notice `told` (an image and size) was told."""
    if told in _told:
        return
    _told.add(told)
    for notify in _listeners:
        notify(line)


def listen(notify: Any) -> None:
    """`notify(line)` is told each time art is downsampled for print, once per image and
    size from this call on (each run listens anew, so a second build or validate in the
    same process is told again); None: nobody."""
    _listeners.clear()
    _told.clear()
    if notify is not None:
        _listeners.append(notify)


def _plugins() -> tuple[str, ...]:
    from PIL import (  # noqa: F401  (importing registers the plugin)
        BmpImagePlugin,
        GifImagePlugin,
        Image,
        JpegImagePlugin,
        PngImagePlugin,
        TiffImagePlugin,
    )
    try:
        from PIL import WebPImagePlugin  # noqa: F401
    except ImportError:                         # a Pillow built without WebP
        pass
    return tuple(f for f in FORMATS if f in Image.OPEN)


def open_image(fp: Any):
    """`PIL.Image.open` restricted to FORMATS, the format read from the bytes; Pillow's
    own warnings (DecompressionBombWarning, ...) are not printed: the callers check the
    pixel count against carddb.limits.MAX_IMAGE_PIXELS and say so in their own words."""
    from PIL import Image

    formats = _plugins()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Image.open(fp, formats=list(formats))


def _refused(name: str, raw: bytes) -> ArtError:
    head = raw[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    for magic, kind in _KNOWN:
        if head.startswith(magic) or (kind == "SVG" and b"<svg" in raw[:4096].lower()):
            return ArtError(f"image {name!r} is {kind}, not a raster image art may use "
                            f"({FORMAT_NAMES}; told from its bytes, not its name)")
    return ArtError(f"image {name!r} cannot be read: not an image file ({FORMAT_NAMES})")


def _read(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as f:
        if os.fstat(f.fileno()).st_size > MAX_ASSET_BYTES:
            raise ArtError(f"image {path.name!r} is larger than {MAX_ASSET_BYTES:,} bytes (limit)")
        raw = f.read(MAX_ASSET_BYTES + 1)
    if len(raw) > MAX_ASSET_BYTES:
        raise ArtError(f"image {path.name!r} is larger than {MAX_ASSET_BYTES:,} bytes (limit)")
    return raw


def _cache_dir() -> Path | None:
    from carddb.cache import folder

    base = folder()
    return None if base is None else base / CACHE_VERSION


def _write_atomic(path: Path, data: bytes) -> bool:
    """Write a cache entry (False when the cache folder cannot be written: no cache)."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, part = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".part")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(part, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(part)
            raise
        return True
    except OSError:
        return False


def _decode(name: str, raw: bytes) -> tuple[tuple[int, int], str]:
    """Decode `raw` in full once (a truncated file fails here, not inside the PDF
    writer), after the pixel count is checked from the header."""
    from PIL import Image, UnidentifiedImageError

    too_many = (f"image {name!r} has more than {MAX_IMAGE_PIXELS:,} pixels (limit)")
    try:
        with open_image(io.BytesIO(raw)) as image:
            w, h = image.size
            if w * h > MAX_IMAGE_PIXELS:
                raise ArtError(f"{too_many}: {w} x {h}")
            fmt = "JPEG" if image.format == "MPO" else str(image.format)   # a camera's JPEG
            if fmt == "JPEG":                   # decoded at 1/8 scale: all of it is read
                image.draft(image.mode, (max(w // 8, 1), max(h // 8, 1)))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                image.load()
            return (w, h), fmt
    except Image.DecompressionBombError:
        raise ArtError(too_many) from None
    except UnidentifiedImageError:
        raise _refused(name, raw) from None
    except ArtError:
        raise
    except Exception as exc:        # a damaged file fails inside a decoder in many ways
        raise _unreadable(name, exc) from None


def _unreadable(name: str, exc: BaseException) -> ArtError:
    detail = " ".join(str(exc).split())[:200] or type(exc).__name__
    return ArtError(f"image {name!r} cannot be read: {detail}")


def open_art(path: str | os.PathLike[str]) -> Art:
    """The art at `path` checked: a regular file of at most MAX_ASSET_BYTES, in one of
    FORMATS (told from its bytes), at most MAX_IMAGE_PIXELS, decodable to its end.
    What decoding found is cached by content, so unchanged art is decoded once."""
    path = Path(path)
    try:
        st = path.stat()
    except OSError as exc:
        raise ArtError(f"image {path.name!r} cannot be read: {exc.strerror or exc}") from None
    key = (str(path), st.st_mtime_ns, st.st_size)
    known = _known.get(key)
    if known is not None:
        return known
    if st.st_size > MAX_ASSET_BYTES:
        raise ArtError(f"image {path.name!r} is larger than {MAX_ASSET_BYTES:,} bytes (limit)")
    try:
        raw = _read(path)
    except OSError as exc:
        raise ArtError(f"image {path.name!r} cannot be read: {exc.strerror or exc}") from None
    digest = hashlib.sha256(raw).hexdigest()
    folder = _cache_dir()
    entry = folder / f"{digest}.json" if folder is not None else None
    art = None
    if entry is not None:
        try:
            facts = json.loads(entry.read_text(encoding="utf-8"))
            size = (int(facts["size"][0]), int(facts["size"][1]))
            if facts["format"] in FORMATS and size[0] * size[1] <= MAX_IMAGE_PIXELS:
                art = Art(path, digest, size, facts["format"])
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            art = None
    if art is None:
        size, fmt = _decode(path.name, raw)
        art = Art(path, digest, size, fmt)
        if entry is not None:
            _write_atomic(entry, json.dumps({"size": list(size), "format": fmt}).encode())
    _known[key] = art
    return art


def print_size(pixels: tuple[int, int], w_pt: float, h_pt: float) -> tuple[int, int] | None:
    """The pixel size to embed art of `pixels` drawn `w_pt` x `h_pt` points at, or None
    when it is not over OVERSIZE x PRINT_DPI on both axes (embedded as it is)."""
    iw, ih = pixels
    if w_pt <= 0 or h_pt <= 0 or iw <= 0 or ih <= 0:
        return None
    dpi_x, dpi_y = iw / (w_pt / 72), ih / (h_pt / 72)
    if min(dpi_x, dpi_y) <= OVERSIZE * PRINT_DPI:
        return None
    import math

    return (min(iw, max(1, math.ceil(w_pt / 72 * PRINT_DPI))),
            min(ih, max(1, math.ceil(h_pt / 72 * PRINT_DPI))))


def printable(path: str, pixels: tuple[int, int], w_pt: float, h_pt: float) -> Any:
    """What to hand ReportLab's `drawImage` for art drawn `w_pt` x `h_pt` points: the
    file itself, or, when it is far finer than print needs, its copy at PRINT_DPI (a
    file in the cache folder; in memory without one)."""
    _guard_reportlab()
    target = print_size(pixels, w_pt, h_pt)
    if target is None:
        return path
    art = open_art(Path(path))
    if art.size != tuple(pixels):
        return path
    jpeg = art.format == "JPEG"
    name = f"{art.digest}-{target[0]}x{target[1]}.{'jpg' if jpeg else 'png'}"
    folder = _cache_dir()
    cached = folder / name if folder is not None else None
    if name in _readers:
        result = _readers[name]
    elif cached is not None and cached.is_file():
        result = str(cached)
    else:
        data = _downsample(art, target, jpeg)
        if cached is not None and _write_atomic(cached, data):
            result = str(cached)
        else:
            result = _readers[name] = _reader(data)
    told = (art.digest, target)
    if told not in _told or (_kept is not None and told not in _kept):
        dpi = min(pixels[0] / (w_pt / 72), pixels[1] / (h_pt / 72))
        kept = "made once and cached" if isinstance(result, str) else "made once"
        line = (f"{Path(path).name}: {pixels[0]} x {pixels[1]} px would print at "
                f"{dpi:,.0f} dpi; embedded at {PRINT_DPI} dpi ({target[0]} x {target[1]} px, "
                f"{kept})")
        if _kept is not None:
            _kept[told] = line
        else:
            tell(told, line)
    return result


def _downsample(art: Art, target: tuple[int, int], jpeg: bool) -> bytes:
    raw = _read(art.path)
    if hashlib.sha256(raw).hexdigest() != art.digest:
        raise ArtError(f"image {art.path.name!r} changed while the build read it")
    try:
        return _resized(raw, target, jpeg)
    except Exception as exc:        # decoded once already: only a damaged decoder gets here
        raise _unreadable(art.path.name, exc) from None


def _resized(raw: bytes, target: tuple[int, int], jpeg: bool) -> bytes:
    from PIL import Image

    with open_image(io.BytesIO(raw)) as image:
        if jpeg:
            image.draft(image.mode, target)      # libjpeg scales down while decoding
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            image.load()
        im = image
        if im.mode == "P":
            im = im.convert("RGBA")
        elif im.mode not in ("1", "L", "LA", "RGB", "RGBA", "CMYK"):
            im = im.convert("RGBA" if "A" in im.mode else "RGB")
        if (jpeg and im.mode not in ("L", "RGB")) or (not jpeg and im.mode == "CMYK"):
            im = im.convert("RGB")              # what each of the two formats can hold
        small = im.resize(target, Image.Resampling.LANCZOS, reducing_gap=3.0)
    out = io.BytesIO()
    if jpeg:
        small.save(out, "JPEG", quality=92, optimize=True)
    else:
        small.save(out, "PNG", optimize=False, compress_level=6)
    return out.getvalue()


def _reader(data: bytes) -> Any:
    from reportlab.lib.utils import ImageReader

    return ImageReader(io.BytesIO(data))


def _guard_reportlab() -> None:
    """ReportLab opens images itself (drawImage of a file that is not `.jpg`): through
    the same allow-list (set when art is first drawn)."""
    from reportlab.lib.utils import ImageReader

    if getattr(ImageReader, "_pnp_guarded", False):
        return
    ImageReader._read_image = lambda self, fp: open_image(fp)     # type: ignore[method-assign]
    ImageReader._pnp_guarded = True                               # type: ignore[attr-defined]

