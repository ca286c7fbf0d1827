"""XO! (Extraordinary): setup and rules. The click group lives in `referee.xo.cli` (imported lazily)."""
