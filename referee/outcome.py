"""What every engine's rules return (the XO! engine, the X-Statix engine, the table kit):
`Step(text, ruling)`, one thing the referee did or checked and the ruling that says so
(an id of ../shared/RULINGS.md, "XO-4", "XS-7", or None), and `Result`, what one action
did. Light: no imports beyond the standard library (compiled engines import it too)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple


class Step(NamedTuple):
    """One thing the referee did or checked, and the ruling that says so (or None)."""

    text: str
    ruling: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "ruling": self.ruling}


def rulings_of(steps: Iterable[Step]) -> list[str]:
    """The distinct ruling ids used by these steps, in first-use order."""
    seen: list[str] = []
    for step in steps:
        if step.ruling and step.ruling not in seen:
            seen.append(step.ruling)
    return seen


@dataclass
class Result:
    """What one action did: the new state, one line of summary for the log, the steps
    (each with its ruling), the event's kind, a JSON payload (`data`) and anything shown
    only to one player (`reveal`: a looked-at hand)."""

    state: dict
    summary: str
    steps: list[Step] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    kind: str = ""
    reveal: dict[str, Any] = field(default_factory=dict)
