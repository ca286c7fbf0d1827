"""A deck's cards read from a spreadsheet: `cards: {from: heroes.csv}` or
`cards: {from: book.xlsx, sheet: Villains, type: Villain}`.

One row a card; the first row names the fields (`name`, `type` unless the source gives
it, `text`, `copies`, and the fields the card type declares). A cell's text is converted
by its field's declared type (`2` for an int, `yes`/`no` for a bool, `a; b` for a list,
YAML flow syntax like `[{draw: 1}]` for the other kinds); an empty cell is a field left
out. Every problem is located at its cell: `heroes.csv:3:B` (row 3, column B) or
`book.xlsx[Villains]!B3`.
"""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path
from typing import Any

from carddb.fields import COMMON_KINDS, CardType, FieldDecl
from carddb.schema import CellText, Report, did_you_mean, join
from carddb.yamlsource import LocatedDict, LocatedList, Pos

BOOLS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}
_INT = re.compile(r"[+-]?\d+\Z")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\Z")


def letter(col: int) -> str:
    """1 -> A, 27 -> AA."""
    out = ""
    while col:
        col, rem = divmod(col - 1, 26)
        out = chr(65 + rem) + out
    return out


class Sheet:
    """Cells of one sheet as text or typed values (XLSX), with how to name a cell."""

    def __init__(self, display: str, sheet: str | None, rows: list[list[Any]]):
        self.display, self.sheet, self.rows = display, sheet, rows

    def pos(self, row: int, col: int) -> Pos:
        if self.sheet is None:
            return Pos(row, col, f"{self.display}:{row}:{letter(col)}")
        return Pos(row, col, f"{self.display}[{self.sheet}]!{letter(col)}{row}")


class SheetError(Exception):
    def __init__(self, message: str, row: int = 1, col: int = 1):
        super().__init__(message)
        self.message, self.row, self.col = message, row, col


def _display(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def _read_csv(raw: bytes) -> list[list[Any]]:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        start = raw.rfind(b"\n", 0, exc.start) + 1
        row = raw.count(b"\n", 0, exc.start) + 1
        col = raw.count(b",", start, exc.start) + raw.count(b";", start, exc.start) + 1
        raise SheetError("not UTF-8 text: save the spreadsheet as CSV UTF-8", row, col) from None
    if not text.strip():
        raise SheetError("the file is empty: it needs a header row naming the fields, then one row a card")
    first = text.splitlines()[0]
    # The delimiter a spreadsheet program wrote: `;` where the decimal mark is a comma.
    delimiter = max((",", ";", "\t"), key=first.count) if any(d in first for d in ",;\t") else ","
    try:
        return [list(r) for r in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)]
    except csv.Error as exc:
        raise SheetError(f"not a CSV file: {exc}") from None


def _read_xlsx(path: Path, raw: bytes, sheet_name: str | None, report: Report, source, spath, spos):
    import zipfile

    try:
        import openpyxl
    except ImportError:
        raise SheetError("reading .xlsx needs openpyxl (pip install openpyxl)") from None
    try:
        book = openpyxl.load_workbook(io.BytesIO(raw), data_only=False)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError) as exc:
        raise SheetError(f"not an XLSX workbook ({type(exc).__name__})") from None
    names = book.sheetnames
    if sheet_name is None:
        ws = book[names[0]]
    elif sheet_name not in names:
        report.add(source.at("sheet") if hasattr(source, "at") else spos, join(spath, "sheet"),
                   f"no sheet '{sheet_name}' in {_display(path)}{did_you_mean(sheet_name, names)} "
                   f"(sheets: {', '.join(names)})")
        return None
    else:
        ws = book[sheet_name]
    sheet = Sheet(_display(path), ws.title, [])
    for merged in ws.merged_cells.ranges:
        raise SheetError(f"merged cells {merged.coord}: unmerge them (one value a cell)",
                         merged.min_row, merged.min_col)
    rows = []
    for r, cells in enumerate(ws.iter_rows(), start=1):
        values = []
        for c, cell in enumerate(cells, start=1):
            if cell.data_type == "f":
                raise SheetError(f"a formula ({cell.value}): formulas are not computed here; "
                                 "paste the value instead", r, c)
            values.append(cell.value)
        rows.append(values)
    sheet.rows = rows
    return sheet


def read_sheet(path: Path, source, spath: str, spos: Pos, report: Report) -> Sheet | None:
    import hashlib

    suffix = path.suffix.lower()
    sheet_name = source.get("sheet")
    display = _display(path)
    try:
        raw = path.read_bytes()
        # What the database was read from, byte for byte (the cache and incremental
        # builds compare against it).
        report.files_read.append((path, hashlib.sha256(raw).hexdigest()))
        if suffix == ".csv":
            if sheet_name is not None:
                report.add(source.at("sheet"), join(spath, "sheet"), "a CSV file has no sheets")
                return None
            return Sheet(display, None, _read_csv(raw))
        if suffix in (".xlsx", ".xlsm"):
            return _read_xlsx(path, raw, sheet_name, report, source, spath, spos)
    except SheetError as exc:
        where = Sheet(display, None if suffix == ".csv" else (sheet_name or "?"), [])
        if suffix != ".csv" and exc.row == 1 and exc.col == 1 and "workbook" in exc.message:
            report.add(source.at("from"), join(spath, "from"), f"{display}: {exc.message}")
        else:
            if suffix != ".csv" and where.sheet == "?":
                where.sheet = None
            report.add(where.pos(exc.row, exc.col), spath, exc.message)
        return None
    except OSError as exc:
        report.add(source.at("from"), join(spath, "from"), f"cannot read {display}: {exc.strerror or exc}")
        return None
    report.add(source.at("from"), join(spath, "from"),
               f"'{path.name}' is not a spreadsheet: use a .csv or .xlsx file")
    return None


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def convert(value: Any, decl: FieldDecl | None, kind: str) -> Any:
    """A cell's value as the field's declared type; what cannot be converted is left as
    it is, for the field's check to report ("expected an integer, got text")."""
    if isinstance(value, str):
        value = value.strip()
    if kind in ("text", "image", "icon"):
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return value if isinstance(value, str) else str(value) if not isinstance(value, bool) else value
    if kind == "int":
        if isinstance(value, str) and _INT.match(value):
            return int(value)
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value
    if kind == "number":
        if isinstance(value, str) and _NUMBER.match(value):
            number = float(value)
            return int(number) if _INT.match(value) else number
        return value
    if kind == "bool":
        if isinstance(value, str) and value.lower() in BOOLS:
            return BOOLS[value.lower()]
        if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
            return bool(value)
        return value
    if kind == "enum" and decl is not None:
        if all(isinstance(v, int) for v in decl.values):
            return convert(value, None, "int")
        return convert(value, None, "text")
    if kind == "list" and isinstance(value, str) and not value.startswith("["):
        item = decl.item if decl is not None else None
        return [convert(part, item, item.kind if item else "text")
                for part in value.split(";") if part.strip()]
    if isinstance(value, str):
        return _yaml_value(value)
    return value


class _Unparsable(CellText):
    """A cell whose YAML is broken: reported by its field's check as text."""


def _yaml_value(text: str) -> Any:
    import yaml

    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return _Unparsable(text)


def read_cards(path: Path, source, spath: str, spos: Pos, report: Report,
               types: dict[str, CardType]) -> tuple[LocatedList | None, dict[int, frozenset]]:
    """The cards of a sheet as located mappings (positions are cells), and per card the
    required fields already reported as empty cells (so not again as missing)."""
    sheet = read_sheet(path, source, spath, spos, report)
    if sheet is None:
        return None, {}
    rows = sheet.rows
    while rows and all(_blank(v) for v in rows[-1]):
        rows.pop()                              # trailing empty rows are no cards
    if not rows:
        report.add(sheet.pos(1, 1), spath, "the sheet is empty: it needs a header row naming the "
                                           "fields, then one row a card")
        return None, {}
    fixed_type = source.get("type")
    if fixed_type is not None and fixed_type not in types:
        report.add(source.at("type"), join(spath, "type"),
                   f"'{fixed_type}' is not a card type of this game{did_you_mean(fixed_type, types)}")
        return None, {}
    header: dict[int, str] = {}
    seen: dict[str, int] = {}
    all_fields = {k for t in types.values() for k in t.fields} | set(COMMON_KINDS)
    ok = True
    for c, cell in enumerate(rows[0], start=1):
        if _blank(cell):
            if any(len(r) >= c and not _blank(r[c - 1]) for r in rows[1:]):
                report.add(sheet.pos(1, c), spath, f"column {letter(c)} has values but no header")
                ok = False
            continue
        name = str(cell).strip()
        if name in seen:
            report.add(sheet.pos(1, c), spath, f"duplicate column '{name}' (first in column "
                                               f"{letter(seen[name])})")
            ok = False
            continue
        if name not in all_fields:
            report.add(sheet.pos(1, c), spath, f"unknown field '{name}'{did_you_mean(name, all_fields)} "
                                               f"(not a field of any card type)")
            ok = False
            continue
        seen[name] = c
        header[c] = name
    if "name" not in seen:
        report.add(sheet.pos(1, len(rows[0]) + 1), spath, "missing column 'name'")
        ok = False
    if "type" not in seen and fixed_type is None:
        report.add(sheet.pos(1, len(rows[0]) + 1), spath,
                   "missing column 'type' (or give the deck's source a type: {from: ..., type: T})")
        ok = False
    if not ok:
        return None, {}
    cards = LocatedList()
    cards.pos, cards.item_pos = spos, []
    exempt: dict[int, frozenset] = {}
    missing_reported: set[tuple[str, str]] = set()
    for r, row in enumerate(rows[1:], start=2):
        if all(_blank(v) for v in row):
            report.add(sheet.pos(r, 1), spath, "an empty row: delete it (one row a card)")
            continue
        card = LocatedDict()
        card.pos, card.value_pos, card.key_pos = sheet.pos(r, 1), {}, {}
        if fixed_type is not None:
            card["type"] = fixed_type
            card.value_pos["type"] = card.key_pos["type"] = source.at("type")
        type_name = card.get("type")
        if "type" in seen and seen["type"] <= len(row) and not _blank(row[seen["type"] - 1]):
            type_name = str(row[seen["type"] - 1]).strip()
        ctype = types.get(type_name) if isinstance(type_name, str) else None
        empty: set[str] = set()
        for c, name in header.items():
            value = row[c - 1] if c <= len(row) else None
            decl = ctype.fields.get(name) if ctype is not None else None
            if _blank(value):
                if decl is not None and decl.required:
                    empty.add(name)
                    if name in {f for f in seen}:
                        report.add(sheet.pos(r, c), join(join(spath, len(cards.item_pos)), name),
                                   f"missing value: '{name}' is required for a {type_name}")
                continue
            if ctype is not None and decl is None and name not in COMMON_KINDS:
                report.add(sheet.pos(r, c), join(join(spath, len(cards.item_pos)), name),
                           f"'{name}' is not a field of {type_name}{did_you_mean(name, ctype.fields)}")
                continue
            kind = COMMON_KINDS.get(name) or (decl.kind if decl is not None else "text")
            converted = convert(value, decl, kind)
            if isinstance(converted, str) and kind in ("int", "number", "bool"):
                converted = CellText(converted)     # not read: its message shows the cell
            card[name] = converted
            card.value_pos[name] = sheet.pos(r, c)
            card.key_pos[name] = sheet.pos(1, c)
        if ctype is not None:
            for fname, decl in ctype.fields.items():
                if decl.required and fname not in seen:
                    empty.add(fname)
                    if (type_name, fname) not in missing_reported:
                        missing_reported.add((type_name, fname))
                        report.add(sheet.pos(1, len(rows[0]) + 1), spath,
                                   f"missing column '{fname}' (a required field of {type_name})")
        exempt[len(cards.item_pos)] = frozenset(empty)
        cards.append(card)
        cards.item_pos.append(card.pos)
    return cards, exempt
