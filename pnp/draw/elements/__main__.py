"""`python -m pnp.draw.elements` prints the element reference (docs/ELEMENTS.md);
`python -m pnp.draw.elements --write docs` rewrites docs/ELEMENTS.md and the element
table of docs/CARDS.md."""

import sys
from pathlib import Path

from pnp.draw.elements.reference import markdown, write

args = sys.argv[1:]
if not args:
    sys.stdout.write(markdown())
elif len(args) == 2 and args[0] == "--write" and Path(args[1]).is_dir():
    for path in write(Path(args[1])):
        print(f"wrote {path}")
else:
    sys.exit("usage: python -m pnp.draw.elements [--write DOCS_FOLDER]")
