"""A baseline JPEG written a band of rows at a time, never the whole image in memory.

A TTS sheet is up to 4096 x 4096 px: held whole as a Pillow RGB image it is 64 MiB (four
bytes a pixel), and Pillow's `optimize=True` makes libjpeg keep every DCT coefficient of
the image besides (about 47 MiB more), so `pnp export tts` of the 80-card starter peaked
at 165 MiB (issue 36 item 4). Here each 16-row strip (one row of 4:2:0 MCUs) is encoded
by Pillow as a JPEG of its own, with the standard Huffman tables; the strips' entropy-
coded data are joined with restart markers (RST0..RST7 in turn) under one header whose
frame height is the whole image's and whose DRI marker restarts every MCU row. A restart
resets the DC predictors and byte-aligns the data, which is exactly where a strip of its
own starts and ends, so the file is byte for byte what Pillow writes for the whole image
with `restart_marker_rows=1` (tests/pnp/test_tts_strips.py checks it): a baseline JPEG any
decoder reads, TTS's included.

The cost: no Huffman optimisation (it needs the whole image's statistics first), so the
file is a few per cent larger, plus two bytes of marker per MCU row.
"""

from __future__ import annotations

import io
import struct
from typing import IO, Any

MCU_PX = 16          # one MCU of 4:2:0 subsampling is 16 x 16 pixels
SOF0, SOS, DRI, EOI = 0xC0, 0xDA, 0xDD, b"\xff\xd9"


def _header_end(data: bytes) -> tuple[int, int, int]:
    """(start of the SOF0 segment, start of the SOS segment, end of the SOS segment) of
    a JPEG as Pillow writes it: SOI, then marker segments up to SOS."""
    pos, sof = 2, -1
    while True:
        marker = data[pos + 1]
        end = pos + 2 + struct.unpack(">H", data[pos + 2:pos + 4])[0]
        if marker == SOF0:
            sof = pos
        if marker == SOS:
            return sof, pos, end
        pos = end


class JpegStrips:
    """Writes a `size` RGB JPEG to `fp` from bands of full-width rows given top to bottom
    (`add`), any heights; holds at most one 16-row strip besides the band it is given."""

    def __init__(self, fp: IO[bytes], size: tuple[int, int], quality: int) -> None:
        self.fp, self.size, self.quality = fp, size, quality
        self.rows = 0                 # rows given so far
        self.strips = 0               # strips written so far
        self.rest: Any = None         # rows given but not written: fewer than MCU_PX

    def add(self, band: Any) -> None:
        """The next rows of the image (a PIL image, the image's width)."""
        width, height = self.size
        if band.width != width or self.rows + band.height > height:
            raise ValueError(f"a band of {band.size} does not fit a {self.size} image "
                             f"after {self.rows} rows")
        self.rows += band.height
        top = 0
        if self.rest is not None:
            top = min(MCU_PX - self.rest.height, band.height)
            self._join(band.crop((0, 0, width, top)))
        while top < band.height:
            bottom = min(top + MCU_PX, band.height)
            piece = band if (top, bottom) == (0, band.height) else \
                band.crop((0, top, width, bottom))
            top = bottom
            self._gather(piece)
        if self.rows == height:
            if self.rest is not None:   # the image's last rows
                self._encode(self.rest)
                self.rest = None
            self.fp.write(EOI)

    def _join(self, rows: Any) -> None:
        from PIL import Image

        joined = Image.new("RGB", (self.size[0], self.rest.height + rows.height))
        joined.paste(self.rest, (0, 0))
        joined.paste(rows, (0, self.rest.height))
        self.rest = None
        self._gather(joined)

    def _gather(self, rows: Any) -> None:
        """Rows after those written: a strip when they make one, else kept."""
        if rows.height == MCU_PX:
            self._encode(rows)
        else:
            self.rest = rows

    def _encode(self, strip: Any) -> None:
        out = io.BytesIO()
        strip.save(out, "JPEG", quality=self.quality, subsampling="4:2:0")
        data = out.getvalue()
        sof, sos, data_start = _header_end(data)
        if self.strips == 0:
            self.fp.write(self._header(data, sof, sos, data_start))
        else:
            self.fp.write(bytes((0xFF, 0xD0 + (self.strips - 1) % 8)))  # RSTn
        self.fp.write(data[data_start:-2])   # the entropy-coded data, without EOI
        self.strips += 1

    def _header(self, data: bytes, sof: int, sos: int, data_start: int) -> bytes:
        """The first strip's header with the whole image's height and a DRI segment
        (restart every MCU row) before SOS, where libjpeg writes it."""
        width, height = self.size
        mcus_per_row = -(-width // MCU_PX)
        return (data[:sof + 5] + struct.pack(">H", height) + data[sof + 7:sos]
                + struct.pack(">BBHH", 0xFF, DRI, 4, mcus_per_row) + data[sos:data_start])
