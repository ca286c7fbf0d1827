"""referee: the table referee for XO! and X-Statix."""

from referee import _mypyc

_mypyc.check()  # before any compiled module loads: no stale compiled code
