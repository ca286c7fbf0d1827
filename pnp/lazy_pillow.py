"""Pillow's PIL.Image, loaded when first used rather than when ReportLab is imported.

ReportLab's reportlab.lib.utils runs `from PIL import Image` at import, a twelfth of a
small build's time; a card without art never touches it (issue 24). `install()` puts a
lazy PIL.Image in its place (pnp.lazy_modules.lazy): the module
runs on the first attribute read (`Image.open`, `isinstance(x, Image.Image)`), so art
loads it as before."""

from __future__ import annotations

import sys

from pnp.lazy_modules import lazy


def install() -> None:
    """Make `PIL.Image` lazy, unless it is loaded already or Pillow is missing."""
    module = lazy("PIL.Image")
    if module is None:
        return
    # `from PIL import Image` finds it as an attribute (PIL's stubs declare no submodule
    # attributes on the package)
    sys.modules["PIL"].Image = module  # type: ignore[attr-defined]
