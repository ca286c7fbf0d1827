"""`python -m pnp.draw.elements` prints the element reference (docs/ELEMENTS.md)."""

import sys

from pnp.draw.elements.reference import markdown

sys.stdout.write(markdown())
