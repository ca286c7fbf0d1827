"""The DXF beside each sheet's SVG in `pnp export cut`: the same cut paths, for software
that opens DXF but not SVG (Silhouette Studio's Basic Edition; CAD and laser tools).

One closed LWPOLYLINE per card trim on layer CUT, its rounded corners exact arcs (vertex
bulges, not flattened segments), in millimetres ($INSUNITS 4) with 0,0 at the page's
bottom-left corner and y up: the PDF's own frame, so the drawing is upright in every DXF
viewer (the SVG's y runs down from the top-left; x is the same in both). DXF R2000
(AC1015): the oldest version ezdxf writes that has LWPOLYLINE (R12 has not), nothing newer
used (docs/PROOFS-AND-EXPORTS.md, "The DXF").
Dates are fixed and GUIDs zero, so the same input gives the same bytes.

The machines' registration marks are not in the file: Silhouette Studio and Cricut Design
Space draw their own from their settings and, as far as we know, read none from an
imported file, whose every shape they would cut.

ezdxf is imported here only, when a DXF is written (not by `pnp build` nor `referee`).
"""

from __future__ import annotations

import io
import math
from pathlib import Path

LAYER = "CUT"
DXF_VERSION = "R2000"
QUARTER_BULGE = math.tan(math.radians(90) / 4)   # a 90-degree arc, counter-clockwise


def rounded_outline(x: float, y: float, w: float, h: float,
                    r: float) -> list[tuple[float, float, float]]:
    """The (x, y, bulge) vertices of a w x h rectangle from its bottom-left corner (x, y),
    y up, counter-clockwise, its corners arcs of radius r (0: square; at most half a
    side). A vertex's bulge shapes the segment to the next vertex."""
    if r <= 0:
        return [(x, y, 0.0), (x + w, y, 0.0), (x + w, y + h, 0.0), (x, y + h, 0.0)]
    b = QUARTER_BULGE
    x1, y1 = x + w, y + h
    ring = [(x + r, y, 0.0), (x1 - r, y, b), (x1, y + r, 0.0), (x1, y1 - r, b),
            (x1 - r, y1, 0.0), (x + r, y1, b), (x, y1 - r, 0.0), (x, y + r, b)]
    # a radius of half a side leaves a straight edge of length 0: drop its vertex
    return [v for v, nxt in zip(ring, ring[1:] + ring[:1], strict=True)
            if v[2] or math.dist(v[:2], nxt[:2]) > 1e-9]


def cut_dxf(page: dict, radius: float) -> bytes:
    """The DXF (R2000, ASCII) of one page of the layout report: a closed, rounded
    LWPOLYLINE per card trim, in the layout report's card order."""
    import ezdxf
    from ezdxf import units

    w, h = page["size_mm"]
    fixed = ezdxf.options.write_fixed_meta_data_for_testing
    ezdxf.options.write_fixed_meta_data_for_testing = True   # fixed dates, zero GUIDs
    try:
        doc = ezdxf.new(DXF_VERSION, setup=False)
        doc.units = units.MM
        doc.header["$MEASUREMENT"] = 1                       # metric
        doc.layers.add(LAYER, color=1)                       # red, as the SVG's stroke
        msp = doc.modelspace()
        msp.dxf.limmin, msp.dxf.limmax = (0, 0), (w, h)      # drawing limits: the page
        corners: list[tuple[float, float]] = []
        for card in page["cards"]:
            x, top, cw, ch = card["trim_mm"]
            r = min(radius, cw / 2, ch / 2)
            y = h - top - ch                                 # from the page's bottom edge
            outline = [(round(px, 6), round(py, 6), b)       # no float noise in the file
                       for px, py, b in rounded_outline(x, y, cw, ch, r)]
            msp.add_lwpolyline(outline, format="xyb", close=True,
                               dxfattribs={"layer": LAYER})
            corners += [(round(x, 6), round(y, 6)), (round(x + cw, 6), round(y + ch, 6))]
        if corners:
            msp.dxf.extmin = (min(p[0] for p in corners), min(p[1] for p in corners), 0)
            msp.dxf.extmax = (max(p[0] for p in corners), max(p[1] for p in corners), 0)
        text = io.StringIO()
        doc.write(text)
        return doc.encode(text.getvalue())
    finally:
        ezdxf.options.write_fixed_meta_data_for_testing = fixed


def write_cut_dxf(path: Path, page: dict, radius: float) -> Path:
    """Write cut_dxf(page, radius) to `path` (through a .part file); returns `path`."""
    from pnp.exports import staging

    part = staging.part(path)
    part.write_bytes(cut_dxf(page, radius))
    staging.place(part, path)
    return path
