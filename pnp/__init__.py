"""pnp: print-and-play production pipeline for the card database."""

from pnp.dataclass_code import install as _kept_dataclass_code
from pnp.lazy_pillow import install as _lazy_pillow

# before carddb's and pnp's classes are made, and before anything imports ReportLab
_kept_dataclass_code()
_lazy_pillow()
