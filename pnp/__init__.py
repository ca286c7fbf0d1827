"""pnp: print-and-play production pipeline for the card database."""

from pnp.lazy_pillow import install as _lazy_pillow

_lazy_pillow()      # before anything imports ReportLab (issue 24)
