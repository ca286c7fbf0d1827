"""The click parameter types of the referee's commands (whole numbers read strictly).

Apart from referee/command.py so that a module can share the commands' helpers without
importing click: the one-shot path (referee/oneshot.py) never loads click."""

from __future__ import annotations

from typing import Any

import click

from referee.inputs import MAX_DIGITS, SEED_DIGITS, integer_problem


class WholeNumber(click.IntRange):
    """click's `int` / `IntRange`, strict: ASCII digits with an optional sign and at most
    `max_digits` digits (click's own accepts `٣` as 3, and more than 4,300 digits raise)."""

    def __init__(
        self, min: int | None = None, max: int | None = None, max_digits: int = MAX_DIGITS
    ) -> None:
        super().__init__(min, max)
        self.max_digits = max_digits
        self.name = "integer" if min is None and max is None else "integer range"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            problem = integer_problem(value.strip(), self.max_digits)
            if problem:
                self.fail(problem, param, ctx)
            value = int(value.strip())
        return super().convert(value, param, ctx)

    def _describe_range(self) -> str:
        return super()._describe_range() if self.min is not None or self.max is not None else ""


WHOLE = WholeNumber()
SEED = WholeNumber(max_digits=SEED_DIGITS)
