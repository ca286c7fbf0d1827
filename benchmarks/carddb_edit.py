"""One row edited in an 8,000-row spreadsheet: CPU of `carddb.load` in a fresh process
with the cache (it remembers validated rows: carddb.cache) against the same load with
no cache (PNP_CACHE_DIR=off), alternating pairs in one run, with the ratio per pair.

    PYTHONPATH=. python benchmarks/carddb_edit.py [--rows 8000] [--pairs 5] [--xlsx]

The project is the `pnp init` starter with its Ships deck read from N rows. Each pair
edits a different row, then loads with the cache and without it. The CPU is measured
inside the child: of `carddb.load` (the validation modules and YAML it imports
included), and of the whole child (interpreter start-up and `import carddb` as well).
Target (issue 24): the edited load at least 5x cheaper than the uncached one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 5.0
CHILD = ("import time; import carddb; t = time.process_time(); db = carddb.load('cards.yaml'); "
         "print(time.process_time() - t, time.process_time())")


def cpu_of(cwd: Path, env: dict) -> tuple[float, float]:
    """CPU seconds of carddb.load and of the whole child process."""
    run = subprocess.run([sys.executable, "-c", CHILD], cwd=cwd, env=env, capture_output=True,
                         text=True)
    if run.returncode != 0:
        sys.exit(f"load failed: {run.stderr.strip()[-400:]}")
    load, whole = run.stdout.split()[-2:]
    return float(load), float(whole)


def ship(i: int, note: str = "") -> list:
    flags = ["red", "blue", "green", "gold"]
    return [f"Ship {i}", flags[i % 4], str(1 + i % 6), str(i % 7), f"Captain {i}", "1",
            f"Moves {i % 3} extra in calm weather; ship number {i}{note}."]


def write(project: Path, rows: list[list[str]], xlsx: bool) -> None:
    header = ["name", "flag", "speed", "cargo", "captain", "copies", "text"]
    if not xlsx:
        (project / "ships.csv").write_text("\n".join(",".join(r) for r in [header, *rows]) + "\n")
        return
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    for row in [header, *rows]:
        sheet.append(row)
    book.save(project / "ships.xlsx")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=8000)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--xlsx", action="store_true", help="an XLSX workbook, not a CSV")
    a = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from pnp.cli.init import write_project

    with tempfile.TemporaryDirectory(prefix="carddb-edit-") as tmp:
        project = Path(tmp) / "game"
        write_project(project, None)
        rows = [ship(i) for i in range(a.rows)]
        write(project, rows, a.xlsx)
        if a.xlsx:
            cards = project / "cards.yaml"
            cards.write_text(cards.read_text().replace("from: ships.csv", "from: ships.xlsx"))
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PNP_CACHE_DIR": str(Path(tmp) / "cache")}
        cold_env = {**env, "PNP_CACHE_DIR": "off"}
        cpu_of(project, env)                                # the first load: the cache
        edited, cold = [], []
        for i in range(a.pairs):
            k = a.rows // 2 + i                              # a different row each pair
            rows[k] = ship(k, " (edit)")
            write(project, rows, a.xlsx)
            edited.append(cpu_of(project, env))
            cold.append(cpu_of(project, cold_env))
            print(f"pair {i + 1}: carddb.load one row edited {edited[-1][0]:6.3f} s CPU, "
                  f"no cache {cold[-1][0]:6.3f} s CPU, {cold[-1][0] / edited[-1][0]:.1f}x "
                  f"(whole process {edited[-1][1]:.3f} / {cold[-1][1]:.3f} s, "
                  f"{cold[-1][1] / edited[-1][1]:.1f}x)", flush=True)
    kind = "XLSX" if a.xlsx else "CSV"
    for what, k in (("carddb.load", 0), ("whole process", 1)):
        ratios = [c[k] / e[k] for c, e in zip(cold, edited, strict=True)]
        med = statistics.median(ratios)
        print(f"{a.rows}-row {kind}, {a.pairs} alternating pairs, {what}: no cache / one row "
              f"edited CPU = {med:.1f}x median (range {min(ratios):.1f}-{max(ratios):.1f}x)"
              + (f"; target >= {TARGET:g}x: {'met' if med >= TARGET else 'NOT met'}"
                 if k == 0 else ""))


if __name__ == "__main__":
    main()
