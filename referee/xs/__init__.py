"""X-Statix: setup and rules. The click group lives in `referee.xs.cli` (imported lazily)."""
