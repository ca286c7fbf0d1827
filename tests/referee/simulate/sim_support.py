"""Helpers of the balance-lab tests: `referee` through the one harness (in this process),
the bundled cards."""

from __future__ import annotations

import json
from functools import partial

from tests.harness import BUNDLED as CARDS
from tests.harness import ROOT, run_cli

__all__ = ["CARDS", "ROOT", "referee", "referee_json"]

referee = partial(run_cli, "referee")


def referee_json(*args: str) -> dict:
    proc = referee(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)
