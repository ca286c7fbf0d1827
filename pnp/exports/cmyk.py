"""RGB -> CMYK for print-shop profiles: an ICC conversion (littleCMS through Pillow), a
total-ink cap, and pure K for black text and thin lines.

The output profile is the shop's `.icc` (a profile's `icc:`), else $PNP_CMYK_ICC, else the
one pnp ships (issue 22 item 2): `icc/pnp-fogra39.icc`, a FOGRA39 (coated offset) output
profile ArgyllCMS built from Fogra's zlib-licensed characterisation data;
`icc/make_profile.sh` says how, `icc/LICENSE.txt` whose it is.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

SHIPPED_ICC = Path(__file__).resolve().parent / "icc" / "pnp-fogra39.icc"


def default_icc() -> Path | None:
    """The CMYK output profile when a shop profile names none: $PNP_CMYK_ICC, else the
    shipped one (None only when an install lost it)."""
    import os

    named = os.environ.get("PNP_CMYK_ICC")
    if named:
        return Path(named)
    return SHIPPED_ICC if SHIPPED_ICC.is_file() else None


# A neutral colour at most this light counts as black: K-only 100 % in text and thin
# lines (pnp's body text is #111111).
BLACK_MAX = 0.15
NEUTRAL_SPREAD = 2 / 255   # r, g, b this close together: a grey
THIN_LINE_PT = 1.0         # strokes at most this wide are "thin lines"

CMYK = tuple[float, float, float, float]


def cap_ink(c: float, m: float, y: float, k: float, limit: float) -> CMYK:
    """Total ink (C+M+Y+K, 1.0 = 100 %) at most `limit`: first grey-component replacement
    (equal parts of C, M and Y become K), then C, M and Y scaled down, K kept."""
    total = c + m + y + k
    if total > limit:
        grey = min(c, m, y, 1 - k, (total - limit) / 2)
        c, m, y, k = c - grey, m - grey, y - grey, k + grey
        cmy = c + m + y
        if cmy + k > limit and cmy > 0:
            scale = max(0.0, limit - k) / cmy
            c, m, y = c * scale, m * scale, y * scale
    # Four decimals, rounded down: the written numbers must still sum to <= the limit.
    out = tuple(int(v * 10000) / 10000 for v in (c, m, y, min(k, 1.0)))
    return out  # type: ignore[return-value]


def is_grey(rgb: tuple[float, float, float]) -> bool:
    return max(rgb) - min(rgb) <= NEUTRAL_SPREAD


def k_only(rgb: tuple[float, float, float]) -> CMYK:
    """A grey as K alone: black (at most BLACK_MAX light) is 100 % K."""
    v = sum(rgb) / 3
    return (0.0, 0.0, 0.0, 1.0 if v <= BLACK_MAX else round(1 - v, 4))


class Converter:
    """sRGB colours to the output profile's CMYK, ink-capped; `icc` a CMYK output profile."""

    def __init__(self, icc: Path, ink_limit: float = 3.0):
        from PIL import ImageCms

        self.icc = Path(icc)
        self.ink_limit = ink_limit
        try:
            profile = ImageCms.getOpenProfile(str(self.icc))
        except ImageCms.PyCMSError as exc:
            raise ValueError(f"{self.icc}: {exc}") from None
        if profile.profile.xcolor_space.strip() != "CMYK":
            raise ValueError(f"{self.icc}: not a CMYK ICC profile")
        self.description = ImageCms.getProfileDescription(profile).strip()
        self._transform = ImageCms.buildTransform(
            ImageCms.createProfile("sRGB"), profile, "RGB", "CMYK",
            ImageCms.Intent.RELATIVE_COLORIMETRIC)
        self.convert = lru_cache(maxsize=4096)(self._convert)

    def _convert(self, rgb: tuple[float, float, float]) -> CMYK:
        from PIL import Image

        pixel = Image.new("RGB", (1, 1), tuple(round(max(0, min(1, v)) * 255) for v in rgb))
        c, m, y, k = self._transform.apply(pixel).tobytes()     # one CMYK pixel: 4 bytes
        return cap_ink(c / 255, m / 255, y / 255, k / 255, self.ink_limit)

    def image(self, image):
        """An RGB PIL image in the output profile's CMYK, each pixel ink-capped."""
        from PIL import ImageCms

        out = ImageCms.applyTransform(image.convert("RGB"), self._transform)
        return cap_image(out, self.ink_limit)


def cap_image(image, limit: float):
    """`cap_ink`'s second step for every pixel of a CMYK image (C, M, Y scaled, K kept)."""
    import numpy as np
    from PIL import Image

    a = np.asarray(image, dtype=np.float64) / 255
    cmy, k = a[..., :3], a[..., 3:]
    total = cmy.sum(axis=-1, keepdims=True) + k
    over = total > limit
    scale = np.where(over, np.clip(limit - k, 0, None) / np.maximum(cmy.sum(-1, keepdims=True),
                                                                     1e-9), 1.0)
    out = np.concatenate([cmy * scale, k], axis=-1)
    return Image.fromarray(np.floor(out * 255).astype(np.uint8), "CMYK")
