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
import functools
import io
import os
import re
from pathlib import Path
from typing import Any

from carddb import limits
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
        self._letters: dict[int, str] = {}

    def pos(self, row: int, col: int) -> Pos:
        name = self._letters.get(col)
        if name is None:
            name = self._letters[col] = letter(col)
        if self.sheet is None:
            return Pos(row, col, f"{self.display}:{row}:{name}")
        return Pos(row, col, f"{self.display}[{self.sheet}]!{name}{row}")


class SheetRows:
    """A sheet deck's rows as a valid load read them, for the next load to tell which
    rows an edit changed (carddb.edits): the sheet (resolved), its name in a workbook, the
    type the deck's source gives, each row's key (`_row_key`, the header's first) and the
    YAML values each card's cells spent (the sheet's limit is on their sum). A plain
    class: a NamedTuple compiles each annotation when the module is imported."""

    __slots__ = ("file", "sheet", "fixed_type", "keys", "spent")

    def __init__(self, file: str, sheet: str | None, fixed_type: str | None, keys: tuple,
                 spent: tuple[int, ...]) -> None:
        self.file, self.sheet, self.fixed_type = file, sheet, fixed_type
        self.keys, self.spent = keys, spent

    def __reduce__(self):
        return SheetRows, (self.file, self.sheet, self.fixed_type, self.keys, self.spent)


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
        line = raw.count(b"\n", 0, exc.start) + 1
        col = raw.count(b",", start, exc.start) + raw.count(b";", start, exc.start) + 1
        raise SheetError("not UTF-8 text: save the spreadsheet as CSV UTF-8", line, col) from None
    if not text.strip():
        raise SheetError("the file is empty: it needs a header row naming the fields, then one row a card")
    head = text[:4096]                          # not the whole file split into lines
    first = head.splitlines()[0]
    if len(first) == len(head) < len(text):
        first = text.splitlines()[0]
    # The delimiter a spreadsheet program wrote: `;` where the decimal mark is a comma.
    delimiter = max((",", ";", "\t"), key=first.count) if any(d in first for d in ",;\t") else ","
    rows: list[list[Any]] = []
    cells = 0
    try:
        for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter):
            _bounded_row(len(rows) + 1, len(row))
            cells += len(row)
            if cells > limits.MAX_SHEET_CELLS:
                raise SheetError(f"more than {limits.MAX_SHEET_CELLS:,} cells (limit)",
                                 len(rows) + 1, 1)
            rows.append(row)
    except csv.Error as exc:
        raise SheetError(f"not a CSV file: {exc}", len(rows) + 1) from None
    return rows


def _bounded_row(row: int, columns: int) -> None:
    if row > limits.MAX_SHEET_ROWS:
        raise SheetError(f"more than {limits.MAX_SHEET_ROWS:,} rows (limit: a header and "
                         f"{limits.MAX_CARDS:,} cards)", row, 1)
    if columns > limits.MAX_SHEET_COLUMNS:
        raise SheetError(f"{columns:,} columns, more than {limits.MAX_SHEET_COLUMNS} (limit)",
                         row, limits.MAX_SHEET_COLUMNS + 1)


def _read_xlsx(path: Path, raw: bytes, sheet_name: str | None, report: Report, source, spath, spos):
    import zipfile

    try:
        import openpyxl
    except ImportError:
        raise SheetError("reading .xlsx needs openpyxl (pip install openpyxl)") from None
    import warnings

    check_xlsx(raw)
    try:
        with warnings.catch_warnings():         # openpyxl's "extension not supported", ...
            warnings.simplefilter("ignore")
            book = openpyxl.load_workbook(io.BytesIO(raw), data_only=False)
    except (zipfile.BadZipFile, KeyError, OSError) as exc:
        raise SheetError(f"not an XLSX workbook ({type(exc).__name__})") from None
    except Exception as exc:                    # malformed XML, values openpyxl cannot read
        detail = " ".join(str(exc).split())[:100]
        raise SheetError(f"not a readable XLSX workbook ({type(exc).__name__}"
                         f"{': ' + detail if detail else ''})") from None
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


# What a workbook's XML may not hold (a DTD can define entities: billion laughs, XXE),
# its cell and row references, and the places of its shared strings and merged ranges.
class _Xml:
    """The patterns `check_xlsx` looks for, compiled for the first workbook read: a deck
    read from a CSV never needs them (compiling them was a third of importing this
    module, on the way of a load after a spreadsheet edit: carddb.edits)."""

    def __init__(self) -> None:
        self.dtd = re.compile(rb"<!(?:DOCTYPE|ENTITY|ELEMENT|ATTLIST)", re.IGNORECASE)
        self.row_ref = re.compile(rb"<(?:\w+:)?row\b[^>]*?\sr=[\"'](\d+)")
        self.cell_ref = re.compile(rb"<(?:\w+:)?c\b[^>]*?\sr=[\"']([A-Za-z]+)(\d+)")
        self.range_ref = re.compile(
            rb"<(?:\w+:)?(dimension|mergeCell)\b[^>]*?\sref=[\"']([^\"']*)")
        self.cell_open = re.compile(rb"<(?:\w+:)?c[\s/>]")
        self.row_open = re.compile(rb"<(?:\w+:)?row[\s/>]")
        self.shared = re.compile(rb"<(?:\w+:)?si[\s/>]")
        self.long_number = re.compile(rb"<(?:\w+:)?v>\s*[-+]?\d{%d}" % (limits.MAX_INT_CHARS + 1))
        self.a1 = re.compile(r"\$?([A-Za-z]{1,3})\$?(\d{1,7})\Z")


@functools.cache
def _xml() -> _Xml:
    return _Xml()


def _column(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


def _bounds_of(ref: str) -> tuple[int, int] | None:
    """(last row, last column) of an A1 reference or range (`A1:XFD1048576`)."""
    rows, cols = [], []
    for part in ref.split(":"):
        m = _xml().a1.match(part.strip())
        if m is None:
            return None
        cols.append(_column(m.group(1)))
        rows.append(int(m.group(2)))
    return max(rows), max(cols)


def check_xlsx(raw: bytes) -> None:
    """Refuse a workbook that would cost more than the limits to read, before openpyxl
    reads it: its zip members (count, uncompressed sizes), XML with a DTD or entities,
    and per worksheet the rows, columns and cells it refers to (a 5 KB workbook with one
    cell at XFD1048576 makes openpyxl build 17 billion cells), merged ranges, and the
    shared strings (10 million in 418 KB)."""
    import zipfile

    where = "the workbook"
    try:
        book = zipfile.ZipFile(io.BytesIO(raw))
        infos = book.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        raise SheetError("not an XLSX workbook (not a zip file)") from None
    _check_members(infos, where)
    for info in infos:
        name = info.filename
        if not name.lower().endswith((".xml", ".rels", ".vml")):
            continue
        data = _xml_part(book, info, where)
        lower = name.lower()
        if lower.endswith("sharedstrings.xml"):
            for count, _ in enumerate(_xml().shared.finditer(data), start=1):
                if count > limits.XLSX_SHARED_STRINGS:
                    raise SheetError(f"{where} has more than {limits.XLSX_SHARED_STRINGS:,} "
                                     "shared strings (limit)")
        elif lower.startswith("xl/worksheets/"):
            _check_worksheet(name, data)


def _check_members(infos: list, where: str) -> None:
    """The zip's members: how many, and their sizes uncompressed, each and in all."""
    if len(infos) > limits.XLSX_MEMBERS:
        raise SheetError(f"{where} holds {len(infos):,} files, more than "
                         f"{limits.XLSX_MEMBERS:,} (limit)")
    total = 0
    for info in infos:
        total += info.file_size
        if info.file_size > limits.XLSX_MEMBER_BYTES:
            raise SheetError(f"{where}'s part {_shown(info.filename)} is {info.file_size:,} "
                             f"bytes uncompressed, more than {limits.XLSX_MEMBER_BYTES:,} (limit)")
    if total > limits.XLSX_TOTAL_BYTES:
        raise SheetError(f"{where} is {total:,} bytes uncompressed, more than "
                         f"{limits.XLSX_TOTAL_BYTES:,} (limit)")


def _xml_part(book: Any, info: Any, where: str) -> bytes:
    """An XML part of the workbook, read at most to its limit: UTF-8, without a DTD or entities."""
    import zipfile

    name = info.filename
    try:
        with book.open(info) as member:
            data = member.read(limits.XLSX_MEMBER_BYTES + 1)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError,
            RuntimeError) as exc:
        raise SheetError(f"not a readable XLSX workbook: part {_shown(name)} "
                         f"({type(exc).__name__})") from None
    if len(data) > limits.XLSX_MEMBER_BYTES:
        raise SheetError(f"{where}'s part {_shown(name)} is more than "
                         f"{limits.XLSX_MEMBER_BYTES:,} bytes uncompressed (limit)")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data[:512]:
        raise SheetError(f"{where}'s part {_shown(name)} is not UTF-8 XML: refused")
    if _xml().dtd.search(data):
        raise SheetError(f"{where}'s part {_shown(name)} declares a DTD or entities "
                         "(<!DOCTYPE>, <!ENTITY>): refused, a workbook needs none")
    return data


def _check_worksheet(name: str, data: bytes) -> None:
    """Each reference checked as it is found (a 64 MB sheet holds millions of them: no
    list of them is made), refused at the first past a limit."""
    where = f"the workbook's sheet {_shown(name)}"
    max_row = limits.MAX_SHEET_ROWS
    for rows, _ in enumerate(_xml().row_open.finditer(data), start=1):
        if rows > max_row:
            raise _too_far(where, rows)
    last_row = 0
    for m in _xml().row_ref.finditer(data):
        row = int(m.group(1)) if len(m.group(1)) <= 7 else max_row + 1
        if row > max_row:
            raise _too_far(where, row)
        last_row = max(last_row, row)
    last_row, last_col = _cell_refs(where, data, last_row)
    cells = 0
    for cells, _ in enumerate(_xml().cell_open.finditer(data), start=1):
        if cells > limits.MAX_SHEET_CELLS:
            break
    if _xml().long_number.search(data):               # Python refuses ints of > 4,300 digits
        raise SheetError(f"{where} holds a number of more than {limits.MAX_INT_CHARS} "
                         "digits (limit)")
    last_row, last_col = _range_refs(where, data, last_row, last_col)
    last_col = max(last_col, 1 if cells else 0)
    if last_row * last_col > limits.MAX_SHEET_CELLS or cells > limits.MAX_SHEET_CELLS:
        raise SheetError(f"{where} spans {max(last_row * last_col, cells):,} cells, more than "
                         f"{limits.MAX_SHEET_CELLS:,} (limit)")


def _too_far(where: str, row: int, col: int | None = None) -> SheetError:
    column = f", column {letter(min(col, 10**6))}" if col is not None else ""
    return SheetError(f"{where} reaches row {row:,}{column}: more than {limits.MAX_SHEET_ROWS:,} rows "
                      f"or {limits.MAX_SHEET_COLUMNS} columns (limit)")


def _cell_refs(where: str, data: bytes, last_row: int) -> tuple[int, int]:
    """The cells' references (`r="B7"`): within the limits; the last row and column."""
    last_col = 0
    for m in _xml().cell_ref.finditer(data):
        letters, digits = m.group(1), m.group(2)
        if len(letters) > 3 or len(digits) > 7:
            raise SheetError(f"{where} has a cell at {_shown(letters + digits)}: not a cell "
                             "reference")
        row, col = int(digits), _column(letters.decode("ascii"))
        if row > limits.MAX_SHEET_ROWS or col > limits.MAX_SHEET_COLUMNS:
            raise _too_far(where, row, col)
        last_row, last_col = max(last_row, row), max(last_col, col)
    return last_row, last_col


def _range_refs(where: str, data: bytes, last_row: int, last_col: int) -> tuple[int, int]:
    """The ranges (merged cells, dimension): cell ranges within the limits; the last row
    and column."""
    for m in _xml().range_ref.finditer(data):
        kind, ref = m.group(1), m.group(2)
        bounds = _bounds_of(ref.decode("ascii", "replace"))
        if bounds is None:
            raise SheetError(f"{where}: {kind.decode()} {_shown(ref)} is not a cell range")
        if bounds[0] > limits.MAX_SHEET_ROWS or bounds[1] > limits.MAX_SHEET_COLUMNS:
            raise _too_far(where, *bounds)
        last_row, last_col = max(last_row, bounds[0]), max(last_col, bounds[1])
    return last_row, last_col


def _shown(value) -> str:
    from carddb.schema import shown

    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    return f"'{shown(text, 60)}'"


def read_sheet(path: Path, source, spath: str, spos: Pos, report: Report) -> Sheet | None:
    import hashlib

    suffix = path.suffix.lower()
    sheet_name = source.get("sheet")
    display = _display(path)
    try:
        raw = _read_limited(path)
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


def _read_limited(path: Path) -> bytes:
    from carddb.files import read_limited

    try:
        return read_limited(path, limits.MAX_SHEET_BYTES, "a spreadsheet is a .csv or .xlsx file")
    except ValueError as exc:
        raise SheetError(str(exc) if path.suffix.lower() == ".csv" else f"the workbook: {exc}"
                         ) from None


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


class CellProblem(Exception):
    """A cell's value beyond the limits of a database value (reported at the cell)."""


class Spent:
    """Values a sheet's cells hold, aliases expanded: all of them together are held to
    limits.MAX_YAML_VALUES, as one cards.yaml is."""

    def __init__(self) -> None:
        self.values = 0

    def add(self, n: int) -> None:
        self.values += n
        if self.values > limits.MAX_YAML_VALUES:
            raise SheetFull(f"the sheet's cells hold more than {limits.MAX_YAML_VALUES:,} "
                            "values once aliases are expanded (limit)")


class SheetFull(Exception):
    """The cells read so far exceed a bound of the whole sheet: reading stops."""


def convert(value: Any, decl: FieldDecl | None, kind: str, spent: Spent | None = None) -> Any:
    """A cell's value as the field's declared type; what cannot be converted is left as
    it is, for the field's check to report ("expected an integer, got text").
    CellProblem for a value beyond the limits every database value keeps."""
    value = _within_limits(value, kind)
    if kind in ("text", "image", "icon"):
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return value if isinstance(value, str) else str(value) if not isinstance(value, bool) else value
    if kind in _SCALARS:
        return _SCALARS[kind](value)
    if kind == "enum" and decl is not None:
        if all(isinstance(v, int) for v in decl.values):
            return convert(value, None, "int", spent)
        return convert(value, None, "text", spent)
    if kind == "list" and isinstance(value, str) and not value.startswith("["):
        item = decl.item if decl is not None else None
        return [convert(part, item, item.kind if item else "text", spent)
                for part in value.split(";") if part.strip()]
    if isinstance(value, str):
        return _yaml_value(value, spent)
    return value


def _within_limits(value: Any, kind: str) -> Any:
    """The cell's value (text stripped), or CellProblem past the limits of text length and
    digits every database value keeps."""
    if isinstance(value, str):
        value = value.strip()
        if len(value) > limits.MAX_TEXT:
            raise CellProblem(f"a cell of {len(value):,} characters, more than "
                              f"{limits.MAX_TEXT:,} (limit)")
        if kind in ("int", "number") and _NUMBER.match(value) and \
                len(value) > limits.MAX_INT_CHARS:
            raise CellProblem(f"a number of {len(value):,} characters is longer than the "
                              f"limit of {limits.MAX_INT_CHARS}")
    elif isinstance(value, int) and not isinstance(value, bool) and \
            value.bit_length() > 4 * limits.MAX_INT_CHARS:
        raise CellProblem(f"a number longer than {limits.MAX_INT_CHARS} digits (limit)")
    return value


def _to_int(value: Any) -> Any:
    if isinstance(value, str) and _INT.match(value):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _to_number(value: Any) -> Any:
    if isinstance(value, str) and _NUMBER.match(value):
        number = float(value)
        return int(number) if _INT.match(value) else number
    return value


def _to_bool(value: Any) -> Any:
    if isinstance(value, str) and value.lower() in BOOLS:
        return BOOLS[value.lower()]
    if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
        return bool(value)
    return value


# A cell's text or number as an int, number or bool field's value (else left as it is).
_SCALARS = {"int": _to_int, "number": _to_number, "bool": _to_bool}


class _Unparsable(CellText):
    """A cell whose YAML is broken: reported by its field's check as text."""


def _yaml_value(text: str, spent: Spent | None = None) -> Any:
    """A cell's YAML flow text, held to the bounds of cards.yaml (nesting, aliases
    expanded, integer digits: carddb.yamlsource), as plain values."""
    import yaml

    from carddb.yamlsource import YamlProblem, check_depth, check_nodes, safe_text

    try:
        safe_text(text)
        check_depth(text, limits.MAX_DEPTH)     # a cell is short: always counted
        loader = _CellLoader(text)
        try:
            node = loader.get_single_node()
            count = check_nodes(node)
            if spent is not None:
                spent.add(count)
            return loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except YamlProblem as exc:
        raise CellProblem(exc.message) from None
    except yaml.YAMLError:
        return _Unparsable(text)


def _cell_loader():
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class CellLoader(base):                     # type: ignore[misc, valid-type]
        pass

    def construct_int(loader, node):
        if len(node.value) > limits.MAX_INT_CHARS:
            from carddb.yamlsource import YamlProblem

            raise YamlProblem(f"an integer of {len(node.value):,} characters is longer "
                              f"than the limit of {limits.MAX_INT_CHARS}")
        return yaml.SafeLoader.construct_yaml_int(loader, node)

    CellLoader.add_constructor("tag:yaml.org,2002:int", construct_int)
    return CellLoader


class _LazyLoader:
    loader = None

    def __call__(self, text: str):
        if self.loader is None:
            self.loader = _cell_loader()
        return self.loader(text)


_CellLoader = _LazyLoader()


def read_cards(path: Path, source, spath: str, spos: Pos, report: Report,
               types: dict[str, CardType], declared: Any = None):
    """The cards of a sheet as located mappings (positions are cells), per card the
    required fields already reported as empty cells (so not again as missing), and the
    sheet's remembered rows (carddb.cache.Rows) or None. `declared`: what of the game
    the validation of a row reads besides the sheet (its card types as written and as
    parsed, its rules), or None for no remembered rows."""
    sheet = read_sheet(path, source, spath, spos, report)
    if sheet is None:
        return None, {}, None
    rows = _card_rows(sheet, spath, report)
    if rows is None:
        return None, {}, None
    fixed_type = source.get("type")
    if fixed_type is not None and fixed_type not in types:
        report.add(source.at("type"), join(spath, "type"),
                   f"'{fixed_type}' is not a card type of this game{did_you_mean(fixed_type, types)}")
        return None, {}, None
    found = _header(sheet, rows, types, fixed_type, spath, report)
    if found is None:
        return None, {}, None
    header, seen = found
    cards = LocatedList()
    cards.pos, cards.item_pos = spos, []
    spent = Spent()
    exempt: dict[int, frozenset] = {}
    fixed = source.at("type") if fixed_type is not None else None
    where = (sheet, seen, {name: sheet.pos(1, c) for name, c in seen.items()})
    missing = _MissingColumns(sheet, rows, types, seen, spath, report)
    memo = None
    if declared is not None:
        from carddb import cache

        memo = cache.rows(path.resolve(), sheet.sheet, (declared, tuple(header.items()), fixed_type))
    # each column's field: `text@de` holds a translation of `text` (carddb.languages)
    columns = tuple((c, name, name.partition("@")[0]) for c, name in header.items())
    keys: list[tuple | None] = [_row_key(rows[0], sheet.sheet is not None)] if memo is not None else []
    spent_rows: list[int] = []
    for r, row in enumerate(rows[1:], start=2):
        index = len(cards.item_pos)
        row_key = _row_key(row, sheet.sheet is not None) if memo is not None else None
        entry = _remembered(memo, row_key, index, spent)
        spent_row = spent.values
        if entry is not None:
            (names, type_cell, empty, used, type_name, _), values = entry
            spent.values += used
            card = _SheetCard(zip(names, values, strict=True))
        else:
            before, spent_before = report.added, spent.values
            try:
                read = _read_row(sheet, r, row, columns, seen, types, fixed_type, spath,
                                 index, spent, report)
            except SheetFull as exc:
                report.add(exc.args[1], spath, exc.args[0])
                return None, {}, None
            if read is None:
                continue
            card, empty, type_cell, type_name = read
            if memo is not None and report.added == before:
                memo.pending[index] = (row_key, tuple(card), tuple(card.values()),
                                       (type_cell, empty, spent.values - spent_before, type_name))
        card.pos = sheet.pos(r, 1)
        card._row, card._sheet = r, where
        card._own = fixed if fixed is not None and not type_cell else None
        missing.report(type_name)
        if empty:
            exempt[index] = empty
        cards.append(card)
        cards.item_pos.append(card.pos)
        keys.append(row_key)
        spent_rows.append(spent.values - spent_row)
    if memo is not None:
        report.sheet_rows[spath] = SheetRows(str(path.resolve()), sheet.sheet, fixed_type,
                                             tuple(keys), tuple(spent_rows))
    return cards, exempt, memo


def _card_rows(sheet: Sheet, spath: str, report: Report) -> list | None:
    """The sheet's rows without the trailing empty ones (no cards); None when none is left."""
    rows = sheet.rows
    while rows and all(_blank(v) for v in rows[-1]):
        rows.pop()                              # trailing empty rows are no cards
    if not rows:
        report.add(sheet.pos(1, 1), spath, "the sheet is empty: it needs a header row naming the "
                                           "fields, then one row a card")
        return None
    return rows


def _header(sheet: Sheet, rows: list, types: dict[str, CardType], fixed_type: Any, spath: str,
            report: Report) -> tuple[dict[int, str], dict[str, int]] | None:
    """The header row: the field of each column (by column number) and the column of each
    field; None after reporting a column without a header, a duplicate or unknown field, or
    no 'name' or 'type' column (unless the source fixes the type)."""
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
        if name.partition("@")[0] not in all_fields:    # `text@de`: carddb.languages
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
    return (header, seen) if ok else None


def _row_key(row: list, typed: bool) -> tuple:
    """A row as the remembered rows know it: XLSX cells are typed values, CSV's text."""
    return tuple(row) if not typed else tuple(
        v if type(v) is str else (type(v).__name__, repr(v)) for v in row)


def _remembered(memo: Any, row_key: tuple | None, index: int, spent: Spent) -> Any:
    """The row as checked before (carddb.cache.Rows), or None to read it afresh: also when
    it would pass the limit of values, so that the limit's message names the cell."""
    if memo is None:
        return None
    entry = memo.get(row_key, index)
    if entry is not None and spent.values + entry[0][3] > limits.MAX_YAML_VALUES:
        del memo.reused[index]          # read afresh: the limit's message names the cell
        entry = None
    return entry


class _MissingColumns:
    """Per card type, its required fields no column gives: reported once, at the header,
    on the first row of that type."""

    def __init__(self, sheet: Sheet, rows: list, types: dict[str, CardType], seen: dict[str, int],
                 spath: str, report: Report) -> None:
        self.no_column = {t: tuple(f for f, d in ct.fields.items() if d.required and f not in seen)
                          for t, ct in types.items()}
        self.lacking = any(self.no_column.values())
        self.reported: set[tuple[str, str]] = set()
        self.at, self.spath, self.report_ = sheet.pos(1, len(rows[0]) + 1), spath, report

    def report(self, type_name: Any) -> None:
        if not (self.lacking and isinstance(type_name, str)):
            return
        for fname in self.no_column.get(type_name, ()):
            if (type_name, fname) not in self.reported:
                self.reported.add((type_name, fname))
                self.report_.add(self.at, self.spath,
                                 f"missing column '{fname}' (a required field of {type_name})")


def _read_row(sheet: Sheet, r: int, row: list, columns: tuple, seen: dict[str, int],
              types: dict[str, CardType], fixed_type, spath: str, index: int, spent: Spent,
              report: Report):
    """One row read afresh: (the card's values, the fields exempt from "missing", whether
    its type is its cell's, the type its fields were read as), or None for an empty row (reported). SheetFull(message, pos)
    when the sheet's values pass their limit."""
    if all(_blank(v) for v in row):
        report.add(sheet.pos(r, 1), spath, "an empty row: delete it (one row a card)")
        return None
    card = _SheetCard()
    if fixed_type is not None:
        card["type"] = fixed_type
    type_name = card.get("type")
    if "type" in seen and seen["type"] <= len(row) and not _blank(row[seen["type"] - 1]):
        type_name = str(row[seen["type"] - 1]).strip()
    ctype = types.get(type_name) if isinstance(type_name, str) else None
    empty: set[str] = set()
    type_cell = False
    for c, column, name in columns:             # name: the field (`text` of `text@de`)
        value = row[c - 1] if c <= len(row) else None
        decl = ctype.fields.get(name) if ctype is not None else None
        if _blank(value):
            if decl is not None and decl.required and name == column:
                empty.add(name)
                report.add(sheet.pos(r, c), join(join(spath, index), name),
                           f"missing value: '{name}' is required for a {type_name}")
            continue
        if ctype is not None and decl is None and name not in COMMON_KINDS:
            report.add(sheet.pos(r, c), join(join(spath, index), name),
                       f"'{name}' is not a field of {type_name}{did_you_mean(name, ctype.fields)}")
            continue
        kind = COMMON_KINDS.get(name) or (decl.kind if decl is not None else "text")
        try:
            converted = convert(value, decl, kind, spent)
        except CellProblem as exc:
            report.add(sheet.pos(r, c), join(join(spath, index), name), str(exc))
            if name == column:
                empty.add(name)                 # reported: not "missing" again
            continue
        except SheetFull as exc:
            raise SheetFull(str(exc), sheet.pos(r, c)) from None
        if isinstance(converted, str) and kind in ("int", "number", "bool"):
            converted = CellText(converted)     # not read: its message shows the cell
        card[column] = converted
        type_cell = type_cell or column == "type"
    if ctype is not None:
        empty.update(f for f, d in ctype.fields.items() if d.required and f not in seen)
    return card, frozenset(empty), type_cell, type_name


class _SheetCard(LocatedDict):
    """A card read from a row. Where its values are (their cells) and its keys (their
    header cells) is worked out only when asked, for a message (issue 24: 8,000 rows of
    positions cost more than reading the rows). `_own`: the position of a type the
    deck's source gives, not a cell; `_sheet`: (Sheet, column of each field, header
    cells), shared by the rows of the sheet."""

    pos: Pos
    _row: int
    _own: Pos | None
    _sheet: tuple

    def at(self, key) -> Pos:
        if key not in self:
            return self.pos
        if self._own is not None and key == "type":
            return self._own
        sheet, cols, _ = self._sheet
        return sheet.pos(self._row, cols[key])

    def key_at(self, key) -> Pos:
        if key not in self:
            return self.pos
        if self._own is not None and key == "type":
            return self._own
        return self._sheet[2][key]

    @property
    def value_pos(self):
        return _Positions(self, self.at)

    @property
    def key_pos(self):
        return _Positions(self, self.key_at)


class _Positions:
    """`value_pos` / `key_pos` of a _SheetCard, for code that reads them as a mapping."""

    def __init__(self, card: dict, where):
        self.card, self.where = card, where

    def get(self, key, default=None):
        return self.where(key) if key in self.card else default


class _Source(dict):
    """A deck's `cards: {from, sheet}` for reading its sheet again (carddb.edits): a
    problem makes that load validate afresh, so no position is needed."""

    def at(self, key) -> Pos:
        return Pos(1, 1)


def edited_rows(before: SheetRows, spath: str, types: dict[str, CardType], report: Report
                ) -> tuple[SheetRows, dict[int, LocatedDict]] | None:
    """The sheet `before` was read from, read again after an edit: its rows now and each
    card whose row changed, read as `read_cards` reads it (keyed by card index). None when
    it is not the same sheet with rows changed in place (another header, rows added,
    removed or left empty, the sheet's limits passed) or a row read with a problem (in
    `report`): only validating it whole tells those apart (carddb.edits)."""
    source = _Source({"sheet": before.sheet} if before.sheet is not None else {})
    sheet = read_sheet(Path(before.file), source, spath, Pos(1, 1), report)
    if sheet is None:
        return None
    rows = _card_rows(sheet, spath, report)
    if rows is None or len(rows) != len(before.keys):
        return None
    typed = sheet.sheet is not None
    keys = tuple(_row_key(row, typed) for row in rows)
    found = _header(sheet, rows, types, before.fixed_type, spath, report) \
        if keys[0] == before.keys[0] else None
    if found is None:
        return None
    header, seen = found
    columns = tuple((c, name, name.partition("@")[0]) for c, name in header.items())
    where = (sheet, seen, {name: sheet.pos(1, c) for name, c in seen.items()})
    changed = [i for i in range(1, len(keys)) if keys[i] != before.keys[i]]
    spent = Spent()
    spent.values = sum(before.spent) - sum(before.spent[i - 1] for i in changed)
    counts, cards = list(before.spent), {}
    for i in changed:
        start = spent.values
        try:
            read = _read_row(sheet, i + 1, rows[i], columns, seen, types, before.fixed_type,
                             spath, i - 1, spent, report)
        except SheetFull:
            return None
        if read is None or report.added:
            return None
        card, empty, type_cell, _type_name = read
        if empty:                               # a required field without its column
            return None
        card.pos, card._row, card._sheet = sheet.pos(i + 1, 1), i + 1, where
        card._own = Pos(1, 1) if before.fixed_type is not None and not type_cell else None
        counts[i - 1], cards[i - 1] = spent.values - start, card
    return SheetRows(before.file, before.sheet, before.fixed_type, keys, tuple(counts)), cards
