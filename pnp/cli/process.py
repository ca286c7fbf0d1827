"""The process the `pnp` command is: what it sets up around its command, and only it
(never `import pnp`: issue 36), whether click runs the command (pnp.cli.main) or the
command line is a plain build (pnp.cli.entry)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


def speed_ups() -> None:
    """What only the `pnp` command does to its own process, before any of carddb's and
    pnp's classes are made and before anything imports ReportLab (issue 24; issue 36: never
    on `import pnp`, which a program calling the library does): dataclass methods compiled
    once and kept in the cache folder (pnp.dataclass_code, which hooks `dataclasses`), and
    PIL.Image, `tempfile` and `inspect` loaded at their first use (pnp.lazy_pillow,
    pnp.lazy_modules: lazy modules in sys.modules), Jinja's compiler loaded only when a
    template is compiled (pnp.lazy_jinja), regular expressions compiled once and kept in
    the cache folder (pnp.pattern_code)."""
    from pnp import dataclass_code, lazy_jinja, lazy_modules, lazy_pillow, pattern_code

    pattern_code.install()          # first: importing dataclasses compiles patterns
    lazy_modules.install()          # before dataclasses imports inspect
    dataclass_code.install()
    lazy_pillow.install()
    lazy_jinja.install()


@contextmanager
def command_process() -> Iterator[None]:
    """The `pnp` process's own settings around its command: the speed-ups, rarer garbage
    collections and a closed stdout that is no failure."""
    speed_ups()                     # first: importing pnp.errors compiles a pattern
    import gc

    from pnp.errors import keep_going_when_stdout_closes

    # The command is the process (issue 24). It allocates far more than it frees, so
    # collecting every 700 new objects is wasted work: rarer collections, as mypy's
    # main does. At exit everything is frozen, so the interpreter's last full
    # collection (a twentieth of a small build) does not scan what the process is
    # about to drop (atexit handlers still run first).
    gc.set_threshold(100_000, 50, 100)
    keep_going_when_stdout_closes()     # `pnp build | head -1` still builds
    try:
        yield
    finally:
        gc.freeze()
