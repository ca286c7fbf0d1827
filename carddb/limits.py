"""The limits a card database and its templates must stay within, in one place.

A database and its templates are shared between designers like documents, so `pnp`
treats them as untrusted input (docs/ARCHITECTURE.md, "Trust model"). Each limit is far
beyond what a real game needs (the bundled database is 58 KB with a few hundred cards)
and each is refused with a located one-line error, so that no input can make `pnp`
hang, exhaust memory or write outside its output folder.
"""

from __future__ import annotations

import re

# ── the file ──────────────────────────────────────────────────────────────────────
MAX_FILE_BYTES = 4 * 1024 * 1024   # cards.yaml; the bundled one is 58 KB
MAX_YAML_VALUES = 500_000          # values once aliases are expanded (alias bombs)
MAX_DEPTH = 64                     # nesting of mappings and lists
MAX_INT_CHARS = 40                 # an integer literal (Python refuses > 4,300 digits)
MAX_TEXT = 20_000                  # characters of one text value (card text, a line)

# ── spreadsheets a deck reads its cards from (checked before they are parsed) ───────
MAX_SHEET_BYTES = 16 * 1024 * 1024   # a .csv or .xlsx file
MAX_SHEET_ROWS = 20_001            # rows of a sheet: a header and MAX_CARDS cards
MAX_SHEET_COLUMNS = 256            # columns of a sheet
MAX_SHEET_CELLS = 500_000          # rows x columns of the sheet's used area
MAX_SHEET_PROBLEMS = 100           # problems shown per spreadsheet, then "and N more"
XLSX_MEMBERS = 1_000               # files inside one workbook (a zip)
XLSX_MEMBER_BYTES = 64 * 1024 * 1024   # one of them, uncompressed
XLSX_TOTAL_BYTES = 128 * 1024 * 1024   # all of them, uncompressed
XLSX_SHARED_STRINGS = 500_000      # distinct texts of a workbook (sharedStrings.xml)
# A cell's value is held to the limits of cards.yaml's values: MAX_TEXT characters,
# MAX_DEPTH nesting, MAX_YAML_VALUES values, MAX_INT_CHARS digits.

# ── the game data ─────────────────────────────────────────────────────────────────
MAX_CARDS = 20_000                 # card designs in one database
MAX_COPIES = 1_000                 # copies of one design
MAX_DECK_CARDS = 100_000           # physical cards of one deck (copies counted)
MAX_TOKENS = 1_000                 # tokens of one kind (up to 1 a page at 150 mm)
MAX_PAGES = 10_000                 # pages of one deck's PDF (fronts and backs)
MAX_DICE = 100                     # dice per player
MAX_DIE_FACES = 120                # faces of one die (a d120 is the largest fair die made)
MAX_DIE_LABELS = 2_000             # labels one die prints: faces x per_player x sets (d20 x 100)
MAX_NUMBER = 10**9                 # any other integer written in the database
CARD_MM = (10.0, 280.0)            # card width and height (letter/A4 must hold one)
MAT_MM = (10.0, 2_000.0)           # mat width and height (tiled onto the paper)
TOKEN_MM = (5.0, 150.0)            # token diameter
DIE_LABEL_MM = (5.0, 100.0)
BLEED_MM = 10.0                    # at most
BACK_OFFSET_MM = 50.0              # |x| and |y| at most (print profile and --back-offset)
BACK_SCALE_PCT = (95.0, 105.0)     # the backs' scale correction, per axis (--back-scale)
BACK_ROTATE_DEG = 2.0              # |angle| at most: the backs' turn correction (--back-rotate)

# ── ids that become file or folder names ──────────────────────────────────────────
MAX_ID = 64
SAFE_ID = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_-]{{0,{MAX_ID - 1}}}\Z")
ID_RULE = f"letters, digits, '-' and '_', starting with a letter or digit, at most {MAX_ID}"
MAX_SLUG = 80                      # a card's file-name slug (from its name)

# ── templates (per card, mat, label or token drawn) ───────────────────────────────
TEMPLATE_OPERATIONS = 1_000_000    # loop iterations and calls
TEMPLATE_SECONDS = 5.0             # CPU time of one render (its thread's: a busy machine
                                   # must not fail a build that is fine on an idle one)
TEMPLATE_STRING = 100_000          # characters of a string a template builds
TEMPLATE_OUTPUT = 1_000_000        # characters of a template's output
TEMPLATE_INT_BITS = 256            # integers a template computes (** and *)
TEMPLATE_WIDTH = 1_000             # printf/format field widths and precisions
MAX_ELEMENTS = 10_000              # drawing elements one template outputs
TEMPLATE_TEXT = 50_000             # characters of one text element (2.5 x MAX_TEXT)
MAX_TEMPLATE_BYTES = 1024 * 1024   # one template file

# ── images and fonts ──────────────────────────────────────────────────────────────
MAX_IMAGE_PIXELS = 100_000_000     # 10,000 x 10,000 (Pillow warns at 89 M)
MAX_ASSET_BYTES = 64 * 1024 * 1024  # an image or a font file


def safe_id(value) -> bool:
    """True for an id that may become one file or folder name: `heroes-core`."""
    return isinstance(value, str) and SAFE_ID.match(value) is not None


# ── paper (pnp.layout.geometry holds the same numbers; a test keeps them equal) ──────────
PAPER_MM = {"letter": (215.9, 279.4), "a4": (210.0, 297.0)}
GUIDE_ROOM_MM = 1.1                # a cut guide's gap + shortest length beside a trim


def cards_per_sheet(size_mm, paper: str, printer_margin_mm: float) -> int:
    """How many cards `pnp build` lays on one sheet at most (pnp.layout.geometry.card_sheet: the
    most that fit abutting inside the printer margin, with room for the cut guides beside
    the outer trims; bleed may run into the unprinted band); 0: none fits."""
    pw, ph = PAPER_MM[paper]
    room = 2 * (printer_margin_mm + GUIDE_ROOM_MM)
    cols = int((pw - room + 0.001) // size_mm[0])
    rows = int((ph - room + 0.001) // size_mm[1])
    return max(cols, 0) * max(rows, 0)


