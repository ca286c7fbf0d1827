"""Constants and helpers of the XO! referee tests (a module name no other test folder uses)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
FIXTURE_DB = ROOT / "tests" / "data" / "xo-cards.yaml"
HEROES = ["Captain Volt", "Iron Ward", "Swift", "Mindlock", "Sky Lancer", "Arcana", "Gearhead"]
VILLAINS = ["Doctor Null", "Brute", "Wraith", "Blaze", "Frostbite", "Psyche", "Razor"]


def run_referee(*args: str, cwd: Path | None = None, input: str | None = None):
    """`python -m referee ARGS` for real, with the repo on PYTHONPATH."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "referee", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd or ROOT,
        input=input,
        timeout=60,
    )
