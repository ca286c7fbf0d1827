"""What one template render may spend, counted inside single filter and global calls too.

The sandbox (pnp/draw/sandbox.py) counts loop steps and calls, and checks what operators
and string methods build. That stops a template between steps, not inside one call: a
filter is plain Python run to its end, so `range(100000)|sum(start=[])` (quadratic
copying), `lipsum(3000000)`, `|string` of a list holding a long text 100,000 times
(10^10 characters) or `|join` of the same ran far past the time limit or asked for
gigabytes at once. Here:

- every filter and global a template can call is wrapped (`install`): it costs a step;
  an iterator handed to it is taken at most TEMPLATE_STRING items at a time (`take`), and
  a list, mapping or other value it is given must not stand for more than
  TEMPLATE_OUTPUT characters once written out (`measure`, which stops counting at the
  limit, so measuring costs no more than the limit); a string or list it returns is held
  to TEMPLATE_STRING (`check_size`);
- `sum`, `join`, `list`, `wordwrap` and `lipsum` have bounded versions (`sum` adds lists
  in linear time, `lipsum` and `wordwrap` are refused when their result would be too
  long, before it is made).

With its inputs and output bounded so, one call is bounded in time and memory too (no
call of the sandbox is worse than n log n in its input). Exceeding a bound raises
`TemplateLimit`; the renderer reports it at the template's line.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

from carddb import limits


class TemplateLimit(Exception):
    """A template exceeded one of the bounds of carddb/limits.py."""


class Budget:
    """What the current render has spent (renders do not nest: one per card)."""

    def __init__(self) -> None:
        self.start()

    def start(self) -> None:
        self.ops = 0
        self.output = 0
        self.deadline = time.thread_time() + limits.TEMPLATE_SECONDS

    def spend(self, n: int = 1) -> None:
        self.ops += n
        if self.ops > limits.TEMPLATE_OPERATIONS:
            raise TemplateLimit(f"more than {limits.TEMPLATE_OPERATIONS:,} loop steps and "
                                "calls in one render (limit)")
        if (self.ops & 0x3FF) < n and time.thread_time() > self.deadline:
            raise TemplateLimit(f"took more than {limits.TEMPLATE_SECONDS:g} s to render (limit)")

    def wrote(self, n: int) -> None:
        self.output += n
        if self.output > limits.TEMPLATE_OUTPUT:
            raise TemplateLimit(f"writes more than {limits.TEMPLATE_OUTPUT:,} characters (limit)")


BUDGET = Budget()


def check_size(value: Any) -> Any:
    """`value`, refused when it is a string or list longer than TEMPLATE_STRING."""
    if isinstance(value, str | list | tuple) and len(value) > limits.TEMPLATE_STRING:
        raise TemplateLimit(f"builds a {type(value).__name__} of {len(value):,} items, more "
                            f"than {limits.TEMPLATE_STRING:,} (limit)")
    return value


def check_size_n(n: int, kind: str = "string") -> None:
    if n > limits.TEMPLATE_STRING:
        raise TemplateLimit(f"builds a {kind} of {n:,} items, more than "
                            f"{limits.TEMPLATE_STRING:,} (limit)")


_SCALARS = (bool, float, type(None))
_PLAIN = frozenset({str, int, float, bool, type(None)})     # nothing to settle
_SIZED = frozenset({str, list, tuple})


def measure(value: Any, limit: int = limits.TEMPLATE_OUTPUT) -> int:
    """About how many characters `value` is once written out (str, repr, JSON), counted
    only up to `limit`: a list holding one long text 100,000 times is 10^10 characters,
    found out after `limit` of them."""
    total = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            total += len(v) + 2
        elif isinstance(v, int) and not isinstance(v, bool):
            total += int(v.bit_length() * 0.30103) + 1 + (v < 0)    # its digits
        elif isinstance(v, _SCALARS):
            total += 5
        elif isinstance(v, list | tuple | set | frozenset):
            total += 2 + 2 * max(len(v) - 1, 0)                     # [a, b]
            if total <= limit:
                stack.extend(itertools.islice(v, limit - total + 1))
        elif isinstance(v, dict):
            total += 2 + 4 * len(v)
            if total <= limit:
                for key, item in itertools.islice(v.items(), limit - total + 1):
                    stack.append(key)
                    stack.append(item)
        elif isinstance(v, range):
            total += 8 * len(v)
        else:
            total += 16                     # an object: its own str is bounded elsewhere
        if total > limit:
            return total
    return total


def check_measure(value: Any, what: str, limit: int = limits.TEMPLATE_OUTPUT) -> None:
    size = measure(value, limit)
    if size > limit:
        raise TemplateLimit(f"{what} stands for more than {limit:,} characters once written "
                            "out (limit)")


def _is_iterator(value: Any) -> bool:
    return hasattr(type(value), "__next__") and not isinstance(value, str | bytes)


def take(iterable: Any, what: str = "an iterable") -> list:
    """The items of an iterator, at most TEMPLATE_STRING of them and TEMPLATE_OUTPUT
    characters together, each one a step of the budget."""
    items: list = []
    size = 0
    spend = BUDGET.spend
    for item in iterable:
        spend()
        items.append(item)
        if len(items) > limits.TEMPLATE_STRING:
            raise TemplateLimit(f"{what} yields more than {limits.TEMPLATE_STRING:,} items "
                                "(limit)")
        size += measure(item, limits.TEMPLATE_OUTPUT - size)
        if size > limits.TEMPLATE_OUTPUT:
            raise TemplateLimit(f"{what} yields more than {limits.TEMPLATE_OUTPUT:,} "
                                "characters (limit)")
    return items


def settle(value: Any, what: str) -> Any:
    """An argument of a call, bounded: iterators taken (`take`), containers measured."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if _is_iterator(value):
        return take(value, what)
    if isinstance(value, list | tuple | set | frozenset | dict | range):
        check_measure(value, what)
    return value


def check_call(args: tuple, kwargs: dict, what: str = "an argument") -> tuple[tuple, dict]:
    """The arguments of one filter, global or method call, each settled. Most calls of
    a card template (its macros', `dict.get`) pass only texts and numbers, which settle
    as they are: those arguments are handed back without being rebuilt."""
    if not kwargs and all(type(a) in _PLAIN for a in args):
        return args, kwargs
    return (tuple(settle(a, what) for a in args),
            {k: settle(v, what) for k, v in kwargs.items()})


# ── bounded versions of the calls that build their result from many pieces ────────────


def bounded_sum(environment: Any, iterable: Any, attribute: Any = None, start: Any = 0) -> Any:
    """`sum`, adding lists and tuples in linear time, every item a step, the result held
    to TEMPLATE_STRING items (Python's sum copies the list at each step: 100,000 lists
    cost 10^10 copies)."""
    from jinja2.filters import make_attrgetter

    items = take(iterable, "sum's input")
    if attribute is not None:
        get = make_attrgetter(environment, attribute)
        items = [get(item) for item in items]
    if isinstance(start, list | tuple):
        out = list(start)
        for item in items:
            if type(item) is not type(start):
                raise TypeError(f"can only concatenate {type(start).__name__} (not "
                                f"\"{type(item).__name__}\") to {type(start).__name__}")
            check_size_n(len(out) + len(item), type(start).__name__)
            out.extend(item)
        return out if isinstance(start, list) else tuple(out)
    total = start
    for item in items:
        if isinstance(item, int) and isinstance(total, int) and \
                max(item.bit_length(), total.bit_length()) > limits.TEMPLATE_INT_BITS:
            raise TemplateLimit(f"sum of numbers larger than 2**{limits.TEMPLATE_INT_BITS} "
                                "(limit)")
        total = total + item
        check_size(total)
    return total


def _joined_size(items: Any, sep: str) -> int:
    """About the length of `sep.join(map(str, items))`, counted up to TEMPLATE_STRING + 1."""
    limit = limits.TEMPLATE_STRING
    size = 0
    for i, item in enumerate(items):
        size += (len(item) if isinstance(item, str) else measure(item, limit)) + (len(sep) if i else 0)
        if size > limit:
            break
    return size


def bounded_join(join: Any):
    def joined(eval_ctx: Any, value: Any, d: str = "", attribute: Any = None) -> str:
        items = take(value, "join's input") if _is_iterator(value) else value
        if attribute is None and isinstance(items, list | tuple | set | frozenset | range):
            check_size_n(_joined_size(items, str(d)))
        return check_size(join(eval_ctx, items, d, attribute))

    joined.jinja_pass_arg = join.jinja_pass_arg  # type: ignore[attr-defined]
    return joined


def bounded_list(value: Any) -> list:
    if isinstance(value, str):
        return check_size(list(value))
    if isinstance(value, dict):
        return check_size(list(value))
    return check_size(take(value, "list's input"))


def bounded_wordwrap(wordwrap: Any):
    def wrapped(environment: Any, s: Any, width: int = 79, break_long_words: bool = True,
                wrapstring: Any = None, break_on_hyphens: bool = True) -> str:
        text = str(s)
        sep = str(wrapstring) if wrapstring is not None else environment.newline_sequence
        if isinstance(width, int) and width < 1:
            raise TemplateLimit("wordwrap: a width below 1")
        lines = len(text) // max(width if isinstance(width, int) else 1, 1) + \
            text.count("\n") + len(text.split()) + 1
        check_size_n(len(text) + min(lines, len(text) + 1) * len(sep), "string")
        return check_size(wordwrap(environment, s, width, break_long_words, wrapstring,
                                   break_on_hyphens))

    wrapped.jinja_pass_arg = wordwrap.jinja_pass_arg  # type: ignore[attr-defined]
    return wrapped


def bounded_lipsum(lipsum: Any):
    def lorem(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:  # noqa: A002
        words = (n if isinstance(n, int) else 0) * (max if isinstance(max, int) else 0)
        if not isinstance(n, int) or not isinstance(max, int) or not isinstance(min, int) \
                or words * 8 > limits.TEMPLATE_STRING:
            raise TemplateLimit(f"lipsum({str(n)[:20]}, max={str(max)[:20]}): more than "
                                f"{limits.TEMPLATE_STRING:,} characters (limit)")
        return check_size(lipsum(n, html, min, max))

    return lorem


def bounded(fn: Any, name: str):
    """A filter or global whose arguments are settled and result checked, a step each."""
    pass_arg = getattr(fn, "jinja_pass_arg", None)
    what = f"{name}'s input"

    first = 1 if pass_arg is not None else 0
    spend = BUDGET.spend

    def call(*args: Any, **kwargs: Any) -> Any:
        spend()
        for i in range(first, len(args)):
            if type(args[i]) not in _PLAIN:
                args = (*args[:first], *(settle(a, what) for a in args[first:]))
                break
        if kwargs:
            kwargs = {k: settle(v, what) for k, v in kwargs.items()}
        result = fn(*args, **kwargs)
        if type(result) in _SIZED and len(result) > limits.TEMPLATE_STRING:
            check_size(result)
        return result

    if pass_arg is not None:
        call.jinja_pass_arg = pass_arg  # type: ignore[attr-defined]
    call.__name__ = getattr(fn, "__name__", name)
    call.pnp_bounded = True  # type: ignore[attr-defined]
    return call


def install(env: Any, lazy_filters: frozenset = frozenset({"pnp_loop_budget"})) -> None:
    """Bound every filter and `lipsum` of `env` (see the module); filters named in
    `lazy_filters` (the loop budget's own) are left as they are. Call it again after
    adding filters: those already bounded stay as they are."""
    from jinja2.utils import pass_environment

    filters = env.filters
    special = {"sum": lambda fn: pass_environment(bounded_sum), "join": bounded_join,
               "list": lambda fn: bounded_list, "wordwrap": bounded_wordwrap}
    for name, fn in list(filters.items()):
        if name in lazy_filters or getattr(fn, "pnp_bounded", False):
            continue
        filters[name] = bounded(special[name](fn) if name in special else fn, name)
    lipsum = env.globals.get("lipsum")
    if lipsum is not None and not getattr(lipsum, "pnp_bounded", False):
        env.globals["lipsum"] = bounded(bounded_lipsum(lipsum), "lipsum")
