"""Helpers of the balance-lab tests: run `python -m referee` for real, load the cards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CARDS = ROOT / "cards.yaml"


def referee(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("REFEREE_CARDS", None)
    env.pop("REFEREE_SESSION", None)
    return subprocess.run([sys.executable, "-m", "referee", *args], capture_output=True,
                          text=True, env=env, cwd=cwd or ROOT, timeout=timeout)


def referee_json(*args: str) -> dict:
    proc = referee(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)
