"""`pnp watch` from save to PDF on disk (issue 36 item 2): seconds from writing one
edited card to its deck's PDF being replaced, for an N-card deck, with the default
settle interval against `--interval 0.5` (the default before issue 36), two watches on
two copies of the project, their edits alternating in one run.

    PYTHONPATH=. python benchmarks/watch_latency.py [--cards 80] [--edits 5] [--base TREE]

With `--base TREE` (another checkout of the project) the two watches are that tree's
and this one's, both with the default settle interval: the ratio is this tree's to the
base's, edits alternating in one run (the same load for both).

The project is the `pnp init` starter with its Ships deck grown to N cards (a CSV);
each watch builds only the Ships deck (`--only ships`). The next edit waits for the
rebuild to finish. Targets (issue 36): at most 0.3 s at 80 cards and 1.0 s at 8,000 on
an idle machine; on a shared machine the load average is printed with the result.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _starter import grown_starter  # benchmarks/, the script's folder

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {80: 0.3, 8000: 1.0}


class Watch:
    def __init__(self, folder: Path, env: dict, *args: str) -> None:
        self.folder = folder
        # a cache of its own: each watch measured as if alone (plan files are now named
        # by the project too, so two watches sharing one no longer overwrite each other's)
        env = {**env, "PNP_CACHE_DIR": str(folder.parent / f"{folder.name}-cache")}
        self.pdf = folder / "output" / "harbour" / "ships.pdf"
        self.proc = subprocess.Popen([sys.executable, "-m", "pnp", "watch", *args, "--only",
                                      "ships"], cwd=folder, env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stamp(self) -> tuple | None:
        try:
            st = self.pdf.stat()
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def settled(self, timeout: float = 900) -> None:
        """Wait until the PDF exists and has not changed for a second."""
        deadline = time.monotonic() + timeout
        last, since = self.stamp(), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.05)
            now = self.stamp()
            if now != last:
                last, since = now, time.monotonic()
            elif now is not None and time.monotonic() - since > 1.0:
                return
        sys.exit("the watch never wrote its PDF")

    def cpu(self) -> float:
        """CPU seconds (user + system) of the watch process so far (Linux /proc)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def edit(self, k: int) -> tuple[float, float]:
        """Seconds from saving an edit of card k to the PDF replaced, and the watch's
        CPU seconds in that time."""
        ships = self.folder / "ships.csv"
        text = ships.read_text()
        before = self.stamp()
        edited = text.replace(f"ship number {k}.\n", f"ship number {k} (edit).\n")
        cpu = self.cpu()
        started = time.perf_counter()
        ships.write_text(edited)
        while self.stamp() == before:
            time.sleep(0.002)
            if time.perf_counter() - started > 300:
                sys.exit("no rebuild within 300 s")
        took = time.perf_counter() - started
        cpu = self.cpu() - cpu
        self.settled()
        return took, cpu

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=80)
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--base", type=Path, help="another checkout to measure against")
    a = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory(prefix="pnp-watch-latency-") as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        if a.base is None:
            old_name, old_args, old_env = "--interval 0.5", ("--interval", "0.5"), env
        else:
            old_name, old_args = "base", ()
            old_env = {**os.environ, "PYTHONPATH": str(a.base.resolve())}
        watches = {old_name: Watch(grown_starter(Path(tmp) / "old", a.cards), old_env,
                                   *old_args),
                   "default": Watch(grown_starter(Path(tmp) / "new", a.cards), env)}
        settles = (0.05 if a.base else 0.5, 0.05)
        took: dict[str, list[float]] = {name: [] for name in watches}
        idle: dict[str, list[float]] = {name: [] for name in watches}
        try:
            for w in watches.values():
                w.settled()
            for i in range(a.edits):
                for (name, w), settle in zip(watches.items(), settles, strict=True):
                    wall, cpu = w.edit(a.cards // 2 + i)
                    took[name].append(wall)
                    idle[name].append(settle + cpu)
                    print(f"edit {i + 1} {name}: {wall:.3f} s, CPU {cpu:.3f} s "
                          f"(load {os.getloadavg()[0]:.2f})", flush=True)
        finally:
            for w in watches.values():
                w.stop()
    target = TARGETS.get(a.cards)
    print(f"{a.cards}-card deck, {a.edits} alternating edits (load {os.getloadavg()[0]:.2f})"
          + (f"; target <= {target} s on an idle machine" if target else ""))
    for label, data in (("measured", took), ("idle (settle + CPU)", idle)):
        old, new = (statistics.median(data[n]) for n in watches)
        ratios = [n / o for o, n in zip(*data.values(), strict=True)]
        print(f"  {label}: save to PDF {new:.3f} s median with the default settle, "
              f"{old:.3f} s with {old_name}; ratio {statistics.median(ratios):.2f} median")


if __name__ == "__main__":
    main()
