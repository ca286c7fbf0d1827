"""How fast is `pnp build`?

1. The full build of the bundled cards.yaml (every artefact of both games) against the
   same number of card frames drawn by bare ReportLab calls in the same process: each
   frame the elements of an X-Statix Hero front written out by hand (no templates, no
   markup), same fonts, same page layout. Frames = the fronts and backs placed plus the
   labels, tokens, mats, tiles and pages of the other artefacts. Target: the build within
   1.5x of that baseline.
2. A synthetic deck of 10,000 cards (the bundled X-Statix cards, renamed and repeated),
   run in a fresh process so its peak memory is its own. Targets: under 1.5 ms per card,
   peak memory under 300 MB.

Run from the project root:  PYTHONPATH=. python benchmarks/build_speed.py [--cards N]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _setup():
    import carddb
    from pnp.draw.fonts import register_fonts
    from pnp.draw.render import CardRenderer

    db = carddb.load(ROOT / "cards.yaml")
    fonts = register_fonts(db.print.fonts, db.root)
    return db, fonts, CardRenderer


def full_build(out: Path) -> tuple[tuple[float, float], int]:
    """(wall, CPU) seconds for every artefact of the bundled database, and the frames."""
    from pnp.artefacts import build as b

    db, fonts, CardRenderer = _setup()
    opts = b.options_from_profile(db.print)
    start, cpu = time.perf_counter(), time.process_time()
    renderer = CardRenderer(db, fonts)
    frames = 0
    for art in b.artefacts(db):
        result = b.build_artefact(db, art, opts, renderer, fonts, out)
        # a deck draws each card twice (front and back); the rest one item each
        frames += result.cards * (2 if art.kind == "deck" and opts.backs else 1)
    return (time.perf_counter() - start, time.process_time() - cpu), frames


def bare_reportlab(frames: int, out: Path, fonts: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds to draw `frames` poker cards, 9 to a Letter page, with plain
    ReportLab calls and no templates (benchmarks/reportlab_floor.py: the same elements as
    an X-Statix Hero front)."""
    from benchmarks.reportlab_floor import draw_frames

    start, cpu = time.perf_counter(), time.process_time()
    draw_frames(frames, str(out), fonts)
    return time.perf_counter() - start, time.process_time() - cpu


def synthetic(n: int, out: Path) -> dict:
    """Build one deck of `n` cards; report seconds, ms per card and peak RSS in MB."""
    from pnp.artefacts import build as b

    db, fonts, CardRenderer = _setup()
    game = db.games["x-statix"]
    pool = [c for deck in game.decks.values() for c in deck.cards]
    source = game.decks["common"]
    cards = tuple(dataclasses.replace(pool[i % len(pool)], name=f"{pool[i % len(pool)].name} {i}",
                                      copies=1, deck="synthetic") for i in range(n))
    deck = dataclasses.replace(source, id="synthetic", title="Synthetic", cards=cards)
    synth_game = dataclasses.replace(game, decks={"synthetic": deck})
    db = dataclasses.replace(db, games={**db.games, "x-statix": synth_game})
    art = b.Artefact("x-statix", "synthetic", "deck", "Synthetic deck", deck="synthetic")
    opts = b.options_from_profile(db.print)
    start, cpu = time.perf_counter(), time.process_time()
    result = b.build_artefact(db, art, opts, CardRenderer(db, fonts), fonts, out)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux
    return {"cards": result.cards, "pages": result.pages, "seconds": seconds,
            "ms_per_card": 1000 * seconds / result.cards,
            "cpu_ms_per_card": 1000 * cpu_seconds / result.cards, "peak_mb": peak_kb / 1024,
            "bytes": result.path.stat().st_size}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=10_000, help="synthetic deck size")
    parser.add_argument("--repeat", type=int, default=3, help="best of N for the full build")
    parser.add_argument("--synthetic-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        if args.synthetic_only:
            print(json.dumps(synthetic(args.cards, out)))
            return 0

        _, fonts, _ = _setup()
        full_build(out / "warm")  # imports, template compilation, font subsets
        builds, bases = [], []
        for i in range(args.repeat):
            times, frames = full_build(out / f"run{i}")
            builds.append(times)
            bases.append(bare_reportlab(frames, out / f"bare{i}.pdf", fonts))
        # Best of N; CPU time is the fairer figure on a machine shared with other work.
        build_wall, build_cpu = min(t[0] for t in builds), min(t[1] for t in builds)
        base_wall, base_cpu = min(t[0] for t in bases), min(t[1] for t in bases)
        ratio = build_cpu / base_cpu
        print(f"full build of the bundled database: {build_cpu * 1000:.0f} ms CPU "
              f"({build_wall * 1000:.0f} ms wall) for {frames} card frames")
        print(f"bare ReportLab, same frames:        {base_cpu * 1000:.0f} ms CPU "
              f"({base_wall * 1000:.0f} ms wall)")
        print(f"ratio: {ratio:.2f}x CPU, {build_wall / base_wall:.2f}x wall  "
              f"(target <= 1.5x: {'ok' if ratio <= 1.5 else 'MISSED'})")

        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run([sys.executable, __file__, "--synthetic-only", "--cards",
                               str(args.cards)], capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return 1
        s = json.loads(proc.stdout)
        print(f"synthetic deck: {s['cards']} cards, {s['pages']} pages, {s['seconds']:.2f} s wall, "
              f"{s['cpu_ms_per_card']:.3f} ms CPU/card ({s['ms_per_card']:.3f} wall) "
              f"(target < 1.5: {'ok' if s['cpu_ms_per_card'] < 1.5 else 'MISSED'}), "
              f"peak RSS {s['peak_mb']:.0f} MB "
              f"(target < 300: {'ok' if s['peak_mb'] < 300 else 'MISSED'}), "
              f"{s['bytes'] / 1e6:.1f} MB file")
    return 0


if __name__ == "__main__":
    sys.exit(main())
