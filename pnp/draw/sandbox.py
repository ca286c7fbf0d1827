"""The Jinja sandbox of the card templates, with bounded work (issue 16).

Jinja's immutable sandbox keeps a template away from Python internals and the card
database; this one also bounds what one render may cost, since templates are shared
like documents: loop steps and calls (`TEMPLATE_OPERATIONS`), wall-clock time
(`TEMPLATE_SECONDS`), the length of strings and lists it builds (`*`, `+`, `~`, string
methods, `center`, `indent`, `replace`, `batch`, `slice`), the size of integers it
computes (`**`, `*`), printf and format field widths, and the size of its output. The
limits are in carddb/limits.py. Inside one filter or global call the work is bounded by
pnp/draw/budget.py (every filter wrapped). Exceeding one raises `TemplateLimit`, which
the renderer reports as one line naming the template and the card.

Constant folding is off for the intercepted operators, so `{{ 9**(9**9) }}` is refused
when drawn instead of hanging the compiler.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

from jinja2 import Template, nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

from carddb import limits
from pnp.draw import budget
from pnp.draw.budget import BUDGET, Budget, TemplateLimit, check_size, check_size_n  # noqa: F401

__all__ = ["BUDGET", "Budget", "BoundedSandbox", "BoundedTemplate", "TemplateLimit",
           "check_format", "check_printf", "check_size", "check_size_n"]


# Compiled when first needed: most templates format nothing.
_PRINTF = r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?"
_FORMAT_SPEC = r"\{[^{}]*?:([^{}]*)\}|\{[^{}]*\{"


@functools.cache
def _pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def check_printf(pattern: Any) -> None:
    """Refuse printf field widths and precisions above TEMPLATE_WIDTH (`%999999999d`)."""
    if not isinstance(pattern, str):
        return
    for m in _pattern(_PRINTF).finditer(pattern):
        for part in m.groups():
            if part == "*" or (part is not None and len(part) > 6) or (
                    part is not None and int(part) > limits.TEMPLATE_WIDTH):
                raise TemplateLimit(f"a printf field width or precision above "
                                    f"{limits.TEMPLATE_WIDTH} in {pattern[:40]!r} (limit)")


def check_format(pattern: Any) -> None:
    """The same for str.format specs (`{:999999999}`), nested specs refused."""
    if not isinstance(pattern, str):
        return
    for m in _pattern(_FORMAT_SPEC).finditer(pattern):
        spec = m.group(1)
        numbers = re.findall(r"\d+", spec or "{")
        if spec is None or any(len(n) > 6 or int(n) > limits.TEMPLATE_WIDTH for n in numbers):
            raise TemplateLimit(f"a format width or precision above {limits.TEMPLATE_WIDTH} "
                                f"in {pattern[:40]!r} (limit)")


def _bits(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    if isinstance(value, int):
        return float(value.bit_length())
    return math.log2(abs(value)) if math.isfinite(value) and value else 0.0


def _check_binop(operator: str, left: Any, right: Any) -> None:
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (left, right))
    if operator == "**" and numbers:
        if isinstance(left, int) and isinstance(right, int) and abs(left) > 1 and right > 0 \
                and right * _bits(left) > limits.TEMPLATE_INT_BITS:
            raise TemplateLimit(f"{_short(left)} ** {_short(right)} is larger than "
                                f"2**{limits.TEMPLATE_INT_BITS} (limit)")
    elif operator == "*":
        ints = numbers and isinstance(left, int) and isinstance(right, int)
        if ints and _bits(left) + _bits(right) > limits.TEMPLATE_INT_BITS:
            raise TemplateLimit(f"{_short(left)} * {_short(right)} is larger than "
                                f"2**{limits.TEMPLATE_INT_BITS} (limit)")
        for seq, n in ((left, right), (right, left)):
            if isinstance(seq, str | list | tuple) and isinstance(n, int) and \
                    len(seq) * max(n, 0) > limits.TEMPLATE_STRING:
                raise TemplateLimit(f"repeats a {type(seq).__name__} of {len(seq):,} items "
                                    f"{_short(n)} times: more than {limits.TEMPLATE_STRING:,} "
                                    "(limit)")
    elif operator == "+":
        if isinstance(left, str | list | tuple) and isinstance(right, str | list | tuple):
            check_size_n(len(left) + len(right), type(left).__name__)
    elif operator == "%" and isinstance(left, str):
        check_printf(left)
        budget.check_measure(right, "the values of a % format")


def _short(value: Any) -> str:
    text = str(value) if not isinstance(value, int) or value.bit_length() < 200 else "a huge number"
    return text[:30]


# str methods whose integer argument is a result length (center, ljust, ...).
_WIDTH_METHODS = {"center", "ljust", "rjust", "zfill", "expandtabs"}


def _check_str_method(obj: Any, args: tuple, kwargs: dict) -> None:
    name = getattr(obj, "__name__", "")
    owner = getattr(obj, "__self__", None)
    if not isinstance(owner, str):
        return
    if name in _WIDTH_METHODS:
        for n in (*args, *kwargs.values()):
            if isinstance(n, int) and n > limits.TEMPLATE_STRING:
                raise TemplateLimit(f"str.{name}({_short(n)}): more than "
                                    f"{limits.TEMPLATE_STRING:,} characters (limit)")
    elif name == "translate" and args and isinstance(args[0], dict):
        longest = max((len(v) for v in args[0].values() if isinstance(v, str)), default=1)
        check_size_n(len(owner) * max(longest, 1))
    elif name == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        old, new = args[0], args[1]
        hits = owner.count(old) if old else len(owner) + 1
        check_size_n(len(owner) + hits * len(new))


def _replace_size(s: Any, old: Any, new: Any) -> None:
    s, old, new = str(s), str(old), str(new)
    hits = s.count(old) if old else len(s) + 1
    check_size_n(len(s) + hits * len(new))


class BoundedTemplate(Template):
    """A template whose every render starts with a fresh budget (includes and macros
    run inside their caller's render and share its budget)."""

    def render(self, *args: Any, **kwargs: Any) -> str:
        BUDGET.start()
        return super().render(*args, **kwargs)

    def generate(self, *args: Any, **kwargs: Any):
        BUDGET.start()
        yield from super().generate(*args, **kwargs)


class BoundedSandbox(ImmutableSandboxedEnvironment):
    """ImmutableSandboxedEnvironment whose work per render is bounded (see the module)."""

    template_class = BoundedTemplate
    intercepted_binops = frozenset({"**", "*", "+", "%"})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        filters = self.filters
        center, indent, fmt, replace = (filters["center"], filters["indent"], filters["format"],
                                        filters["replace"])
        batch, slice_ = filters["batch"], filters["slice"]

        def bounded_center(value: Any, width: int = 80) -> str:
            if isinstance(width, int) and width > limits.TEMPLATE_STRING:
                check_size_n(width)
            return center(value, width)

        def bounded_indent(value: Any, width: Any = 4, *args: Any, **kwargs: Any) -> str:
            size = len(width) if isinstance(width, str) else width
            if isinstance(size, int):
                check_size_n((str(value).count("\n") + 1) * size + len(str(value)))
            return check_size(indent(value, width, *args, **kwargs))

        def bounded_format(value: Any, *args: Any, **kwargs: Any) -> str:
            check_printf(str(value))
            return check_size(fmt(value, *args, **kwargs))

        def bounded_replace(eval_ctx: Any, s: Any, old: Any, new: Any, count: Any = None) -> str:
            _replace_size(s, old, new)
            return replace(eval_ctx, s, old, new, count)

        def bounded_batch(value: Any, linecount: int, fill_with: Any = None):
            if isinstance(linecount, int) and linecount > limits.TEMPLATE_STRING:
                check_size_n(linecount, "batch")
            return batch(value, linecount, fill_with)

        def bounded_slice(value: Any, slices: int, fill_with: Any = None):
            if isinstance(slices, int) and slices > limits.TEMPLATE_STRING:
                check_size_n(slices, "slice")
            return slice_(value, slices, fill_with)

        bounded_replace.jinja_pass_arg = replace.jinja_pass_arg  # type: ignore[attr-defined]
        filters.update(center=bounded_center, indent=bounded_indent, format=bounded_format,
                       replace=bounded_replace, batch=bounded_batch, slice=bounded_slice,
                       pnp_loop_budget=self._loop_budget)
        self.globals["range"] = self._range
        budget.install(self)        # every filter and lipsum bounded inside its call too

    # `card.name`: most attribute look-ups of a card template are items of a context
    # mapping (plain dicts, pnp.draw.render). Jinja tries the attribute first and takes
    # the item after the AttributeError; a name no dict attribute has is an item at once.
    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except (TypeError, LookupError):
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        """Jinja's answer (the immutable sandbox's: by the object's type and the
        attribute's name alone), worked out once per type and name."""
        key = (type(obj), attr)
        safe = _SAFE_ATTRIBUTES.get(key)
        if safe is None:
            if len(_SAFE_ATTRIBUTES) > 4096:       # (`attr(name)` names them at run time)
                _SAFE_ATTRIBUTES.clear()
            safe = _SAFE_ATTRIBUTES[key] = super().is_safe_attribute(obj, attr, value)
        return safe

    # every loop step of every `{% for %}` passes here (see _parse)
    @staticmethod
    def _loop_budget(iterable: Any, weight: int = 1):
        spend = BUDGET.spend
        for item in iterable:
            spend(weight)
            yield item

    @staticmethod
    def _range(*args: Any) -> range:
        from jinja2.sandbox import safe_range

        return safe_range(*args)

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        """Wrap every loop's iterable so each step is counted; a step costs more when the
        loop writes much constant text (its weight)."""
        tree = super()._parse(source, name, filename)
        for loop in tree.find_all(nodes.For):
            text = sum(len(data.data) for data in _direct(loop, nodes.TemplateData))
            loop.iter = nodes.Filter(loop.iter, "pnp_loop_budget",
                                     [nodes.Const(1 + text // 10)], [], None, None,
                                     lineno=loop.lineno)
        return tree

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        BUDGET.spend()
        _check_binop(operator, left, right)
        return check_size(super().call_binop(context, operator, left, right))

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        BUDGET.spend()
        args, kwargs = budget.check_call(args, kwargs)
        _check_str_method(__obj, args, kwargs)
        return check_size(super().call(__context, __obj, *args, **kwargs))

    @staticmethod
    def pnp_operand(value: Any) -> Any:
        """One operand of `~`, measured before it is made text."""
        if not isinstance(value, str | int | float):
            budget.check_measure(value, "a value joined with ~")
        return value

    @staticmethod
    def pnp_concat(joined: Any) -> Any:
        """What `~` built (the code generator wraps every Concat node in this)."""
        return check_size(joined)

    def wrap_str_format(self, value: Any) -> Any:
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        pattern = value.__self__

        def checked(*args: Any, **kwargs: Any) -> str:
            check_format(pattern)
            return check_size(wrapped(*args, **kwargs))

        return checked


_DICT_ATTRIBUTES = frozenset(dir(dict))
_SAFE_ATTRIBUTES: dict[tuple[type, str], bool] = {}


def _direct(node: nodes.Node, kind: type) -> list:
    """Nodes of `kind` in a loop's own body, not inside loops nested in it."""
    found = []
    stack = list(node.iter_child_nodes(exclude=("iter",)))
    while stack:
        child = stack.pop()
        if isinstance(child, kind):
            found.append(child)
        if not isinstance(child, nodes.For):
            stack.extend(child.iter_child_nodes())
    return found


