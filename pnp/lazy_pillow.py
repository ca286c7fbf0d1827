"""Pillow's PIL.Image, loaded when first used rather than when ReportLab is imported.

ReportLab's reportlab.lib.utils runs `from PIL import Image` at import, a twelfth of a
small build's time; a card without art never touches it (issue 24). `install()` puts a
lazy PIL.Image in its place (importlib.util.LazyLoader): the module runs on the first
attribute read (`Image.open`, `isinstance(x, Image.Image)`), so art loads it as before."""

from __future__ import annotations

import sys


def install() -> None:
    """Make `PIL.Image` lazy, unless it is loaded already or Pillow is missing."""
    if "PIL.Image" in sys.modules:
        return
    import importlib.util

    try:
        spec = importlib.util.find_spec("PIL.Image")
    except ImportError:
        return
    if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
        return
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules["PIL.Image"] = module
    spec.loader.exec_module(module)
    # `from PIL import Image` finds it as an attribute (PIL's stubs declare no submodule
    # attributes on the package)
    sys.modules["PIL"].Image = module  # type: ignore[attr-defined]
