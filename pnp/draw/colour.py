"""Colour arithmetic of the accessibility checks (pure: no ReportLab, no images).

- Contrast: WCAG 2.x relative luminance and contrast ratio
  (https://www.w3.org/TR/WCAG21/#dfn-relative-luminance, #dfn-contrast-ratio). Text needs
  4.5:1, large text (18 pt and more, or 14 pt and more in bold) 3:1 (success criterion
  1.4.3, "Contrast (Minimum)").
- Colour vision: the simulation matrices of Machado, Oliveira and Fernandes, "A
  Physiologically-based Model for Simulation of Color Vision Deficiency", IEEE TVCG 15(6),
  2009, at severity 1.0 (dichromacy: protanopia, deuteranopia, tritanopia), applied to
  linear sRGB as the paper prescribes.
- Colour difference: CIEDE2000 (Sharma, Wu and Dalal, "The CIEDE2000 Color-Difference
  Formula: Implementation Notes, Supplementary Test Data, and Mathematical Observations",
  Color Research & Application 30(1), 2005) between CIELAB values under D65.

Colours are (r, g, b) tuples of floats from 0 to 1 (sRGB, gamma encoded) unless a
function says otherwise.
"""

from __future__ import annotations

import math
import re

RGB = tuple[float, float, float]

TEXT_RATIO = 4.5          # WCAG 1.4.3: text
LARGE_TEXT_RATIO = 3.0    # WCAG 1.4.3: large text
LARGE_PT = 18.0           # large text: 18 pt and more ...
LARGE_BOLD_PT = 14.0      # ... or 14 pt and more in bold

# Machado et al. 2009, Table 1, severity 1.0 (linear RGB -> linear RGB).
VISION: dict[str, tuple[RGB, RGB, RGB]] = {
    "protanopia": ((0.152286, 1.052583, -0.204868),
                   (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968),
                     (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779),
                   (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}
VISIONS = tuple(VISION)

# Two colours that tell kinds apart must stay at least this far apart (CIEDE2000) under
# each simulated vision: below 10 two patches read as "the same colour, a bit off"
# (about four times the just-noticeable difference of 2.3 on printed, side-by-side
# patches; cards are seen apart, under table light).
DISTINCT_DE = 10.0

_HEX6 = re.compile(r"[0-9a-fA-F]{6}")


def hex_bytes(value: object) -> tuple[int, int, int]:
    """`#rrggbb` or `#rgb` -> (r, g, b) in 0..255; ValueError otherwise. The one reading
    of a hex colour (the `tint` filter, guide strokes and the checks share it)."""
    text = str(value).strip().lstrip("#")
    if len(text) == 3:
        text = "".join(ch * 2 for ch in text)
    if not _HEX6.fullmatch(text):
        raise ValueError(f"not a #rrggbb colour: {value!r}")
    return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)


def parse_hex(value: str) -> RGB:
    """`#rrggbb` or `#rgb` -> (r, g, b) in 0..1; ValueError otherwise."""
    r, g, b = hex_bytes(value)
    return (r / 255, g / 255, b / 255)


def to_hex(rgb: RGB) -> str:
    return "#" + "".join(f"{round(min(max(c, 0.0), 1.0) * 255):02x}" for c in rgb)


# WCAG relative luminance: the weights of linear R, G, B (contrast.py applies them to pictures)
LUMA = (0.2126, 0.7152, 0.0722)


def linear(c: float) -> float:
    """One sRGB channel (0..1) decoded to linear light."""
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def encoded(c: float) -> float:
    """One linear channel encoded to sRGB (clipped to 0..1)."""
    c = min(max(c, 0.0), 1.0)
    return c * 12.92 if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055


def luminance(rgb: RGB) -> float:
    """WCAG relative luminance (0 black .. 1 white)."""
    r, g, b = (linear(c) for c in rgb)
    return LUMA[0] * r + LUMA[1] * g + LUMA[2] * b


def contrast(a: RGB, b: RGB) -> float:
    """WCAG contrast ratio of two colours, 1 .. 21."""
    la, lb = luminance(a), luminance(b)
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05)


def required_ratio(size_pt: float, bold: bool) -> float:
    """The least contrast text of this printed size needs (WCAG 1.4.3)."""
    large = size_pt >= LARGE_PT or (bold and size_pt >= LARGE_BOLD_PT)
    return LARGE_TEXT_RATIO if large else TEXT_RATIO


def simulate(rgb: RGB, vision: str) -> RGB:
    """How `rgb` looks with `vision` (a key of VISION), sRGB in and out."""
    m = VISION[vision]
    lin = [linear(c) for c in rgb]
    out = [sum(m[i][j] * lin[j] for j in range(3)) for i in range(3)]
    return (encoded(out[0]), encoded(out[1]), encoded(out[2]))


def lab(rgb: RGB) -> tuple[float, float, float]:
    """CIELAB (D65 white) of an sRGB colour."""
    r, g, b = (linear(c) for c in rgb)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = (0.2126729 * r + 0.7151522 * g + 0.0721750 * b) / 1.0
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = f(x), f(y), f(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def delta_e2000(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    """CIEDE2000 colour difference (kL = kC = kH = 1)."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    c_bar7 = ((c1 + c2) / 2) ** 7
    g = 0.5 * (1 - math.sqrt(c_bar7 / (c_bar7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl = l2 - l1
    dc = c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    else:
        dh = h2p - h1p
        if dh > 180:
            dh -= 360
        elif dh < -180:
            dh += 360
    dhh = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_bar = (l1 + l2) / 2
    c_bar = (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_bar - 30))
         + 0.24 * math.cos(math.radians(2 * h_bar))
         + 0.32 * math.cos(math.radians(3 * h_bar + 6))
         - 0.20 * math.cos(math.radians(4 * h_bar - 63)))
    d_theta = 30 * math.exp(-(((h_bar - 275) / 25) ** 2))
    c_bar7 = c_bar ** 7
    r_c = 2 * math.sqrt(c_bar7 / (c_bar7 + 25 ** 7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c = 1 + 0.045 * c_bar
    s_h = 1 + 0.015 * c_bar * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt((dl / s_l) ** 2 + (dc / s_c) ** 2 + (dhh / s_h) ** 2
                     + r_t * (dc / s_c) * (dhh / s_h))


def difference(a: RGB, b: RGB, vision: str | None = None) -> float:
    """CIEDE2000 between two colours, as seen with `vision` (None: typical vision)."""
    if vision is not None:
        a, b = simulate(a, vision), simulate(b, vision)
    return delta_e2000(lab(a), lab(b))


def collapsing(colours: dict[str, str], threshold: float = DISTINCT_DE
               ) -> list[tuple[str, str, str, float]]:
    """The pairs of `colours` (name -> #rrggbb) that are told apart with typical vision
    (at least `threshold` apart) but fall below it with one of VISIONS:
    (name, other, vision, difference), the worst vision of each pair."""
    parsed = {name: parse_hex(value) for name, value in colours.items()}
    names = list(parsed)
    found = []
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            a, b = parsed[first], parsed[second]
            if difference(a, b) < threshold:
                continue            # alike for everyone: not a colour-vision problem
            worst = min((difference(a, b, v), v) for v in VISIONS)
            if worst[0] < threshold:
                found.append((first, second, worst[1], worst[0]))
    return found
