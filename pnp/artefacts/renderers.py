"""The card renderer a build draws with, and the store of card plans it keeps across
builds: made here, below both the build (project_build) and the workers that plan a large
deck's fronts (deck_planning), which import it without importing each other."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def plan_store(db: Any, force: bool = False) -> Any:
    """The card plans kept across builds (pnp.draw.plan_cache); `force`: none is read,
    every plan is made and stored anew."""
    from pnp.artefacts import drawn
    from pnp.draw import plan_cache

    return plan_cache.PlanStore(plan_cache.folder(), context=drawn.fonts_digest(db),
                                read=not force, project=str(Path(db.root).resolve()))


def checked_renderer(db: Any, fonts: dict[str, str], ink_saver: bool = False,
                     store: Any = None, opts: Any = None,
                     stamp: dict[str, str] | None = None) -> Any:
    """The card renderer, wrapped in the layout checks (pnp.draw.checks), keeping its
    card plans in `store` (a PlanStore) when given; `opts` (Options): --contrast adds the
    contrast check, --large-print sets text as large as its box allows. `stamp`: the
    version stamp its templates see, when the caller has it (pnp.draw.stamp: else the
    renderer looks through every game's template files for it)."""
    from pnp.draw.checks import CheckedRenderer
    from pnp.draw.render import CardRenderer

    if not ink_saver:      # (the call stand-in renderers of the tests take)
        renderer = CardRenderer(db, fonts)
    else:
        renderer = CardRenderer(db, fonts, ink_saver=True)
    if store is not None:
        renderer.plan_store = store
    if stamp is not None:
        renderer.stamp = stamp
    accessible(renderer, opts)
    return CheckedRenderer(renderer)


def accessible(renderer: Any, opts: Any) -> Any:
    """`renderer` set up for the accessibility options of `opts` (before the checks are
    installed): --contrast, --large-print."""
    if opts is not None and getattr(opts, "contrast", False):
        renderer.check_contrast = True
    if opts is not None and getattr(opts, "large_print", False):
        from pnp.draw.render import LARGE_PRINT_PT

        renderer.large_print = LARGE_PRINT_PT
    return renderer
