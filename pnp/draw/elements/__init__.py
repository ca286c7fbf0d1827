"""The drawing elements a template may write, one module each (`pnp/draw/elements/
<name>.py` defining `ELEMENT`, a `base.Element`): its keys with their types, defaults
and meaning, its compile step (settings -> frozen operation objects) and their paint
step. A new element is one new module here; `register(element)` adds one from
elsewhere (a plug-in, a test). The element reference in docs/ELEMENTS.md is written
from this registry (and the table of docs/CARDS.md): `python -m pnp.draw.elements
--write docs`.

    elements = registry()                 # {name: Element}, sorted by name
    element, settings = normalise(raw)    # `{text: {...}}` -> (the text Element, with defaults)
"""

from __future__ import annotations

from typing import Any

from pnp.draw.elements.base import Element, ElementError
from pnp.plugins import ModuleRegistry

# modules of this package that are not elements: the shared base, the reference writer
_ELEMENTS = ModuleRegistry(__name__, __path__, "ELEMENT", Element,
                           shared=("base", "reference"), dashes=False,
                           group="pnp_referee.elements")


def registry() -> dict[str, Element]:
    """Every element by name (sorted): this package's modules, then registered ones."""
    return _ELEMENTS.entries()


def register(element: Element) -> None:
    """Add an element defined outside this package (replacing one of the same name)."""
    _ELEMENTS.register(element)


def unregister(name: str) -> None:
    """Drop an element `register` added."""
    _ELEMENTS.unregister(name)


def registered() -> tuple[str, ...]:
    """The elements from outside pnp (`register`, installed plug-ins), sorted."""
    return _ELEMENTS.registered()


def normalise(raw: Any, known: dict[str, Element] | None = None
              ) -> tuple[Element, dict[str, Any]]:
    """`{text: {...}}` -> (the text element, its settings with defaults). Raises
    ElementError saying what is wrong."""
    known = registry() if known is None else known
    if not isinstance(raw, dict) or len(raw) != 1:
        raise ElementError(
            f"each element must be a mapping with one key (one of {', '.join(known)}), "
            f"got {raw!r}"[:200]
        )
    kind, params = next(iter(raw.items()))
    element = known.get(kind)
    if element is None:
        raise ElementError(f"unknown element {kind!r} (known: {', '.join(known)})")
    return element, element.normalise(params)
