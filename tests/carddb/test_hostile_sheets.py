"""Spreadsheets from a stranger's project (issue 25 items 2, 3, 5): bounded before they
are parsed (bytes, zip members, cell references, shared strings, rows and columns), every
cell held to the value limits of cards.yaml, malformed workbooks one line, problems
capped per sheet. Each hostile file is made in the test (small on disk) and run through
`pnp validate` / `pnp build` under memory and CPU limits, watched by an audit hook: all
the validations in one bounded process, all the builds in another (tests/carddb/bounded.py),
each command measured and audited on its own."""

from __future__ import annotations

import functools
import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.carddb.bounded import Command, run_bounded
from tests.pnp.hostile_support import Run, one_line_error, stayed_inside

CARDS = """\
version: 1
card_sizes: {poker: [63.5, 88.9]}
games:
  orbit:
    title: Orbit Run
    players: {min: 1, max: 4}
    types:
      Pilot:
        fields:
          skill: {type: int, min: 1, max: 5}
          gear: {type: list, of: text, default: []}
    decks:
      pilots:
        title: Pilots
        size: poker
        back: {title: Orbit Run}
        cards: {from: pilots.csv, type: Pilot}
      ships:
        title: Ships
        size: poker
        back: {title: Orbit Run}
        cards: {from: fleet.xlsx, sheet: Ships, type: Pilot}
"""
PILOTS = "name,skill,gear\nMara,4,rope\n"
TEMPLATE = '- text: {box: [5, 5, 50, 10], text: {{ card.name }}, markup: false}\n'


@functools.cache     # bytes: the same well-formed workbook is in every project, made once
def _workbook(rows=(("name", "skill"), ("Wren", 2)), edit=None) -> bytes:
    import openpyxl

    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "Ships"
    for row in rows:
        ws.append(list(row))
    if edit is not None:
        edit(ws)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _replace_member(raw: bytes, name: str, data: bytes | None = None, stream=None) -> bytes:
    """The workbook with one member's content replaced (or added, streamed by `stream`).
    Deflate's fastest level: the bombs (70 MB of zeros, 10 million shared strings) are
    still a few hundred KB on disk, in a third of level 6's time."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw)) as src, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as dst:
        for info in src.infolist():
            if info.filename != name:
                dst.writestr(info, src.read(info))
        if stream is not None:
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            info._compresslevel = 1     # open(info, "w") takes the level from here (3.11+)
            with dst.open(info, "w", force_zip64=True) as member:
                stream(member)
        else:
            dst.writestr(name, data)
    return out.getvalue()


def _orbit(folder: Path) -> Path:
    """The Orbit Run project in `folder`: a CSV deck and an XLSX deck, both well-formed."""
    folder.mkdir(parents=True)
    (folder / "cards.yaml").write_text(CARDS, encoding="utf-8")
    (folder / "pilots.csv").write_text(PILOTS, encoding="utf-8")
    (folder / "fleet.xlsx").write_bytes(_workbook())
    (folder / "templates" / "orbit").mkdir(parents=True)
    for name in ("pilot.j2", "back.j2"):
        (folder / "templates" / "orbit" / name).write_text(TEMPLATE, encoding="utf-8")
    return folder


@pytest.fixture
def orbit(tmp_path) -> Path:
    return _orbit(tmp_path / "project")


def _billion_laughs() -> bytes:
    entities = '<!ENTITY l0 "lol">' + "".join(
        f'<!ENTITY l{i} "' + f"&l{i - 1};" * 10 + '">' for i in range(1, 10))
    return (f'<?xml version="1.0"?><!DOCTYPE sst [{entities}]>'
            '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
            '<si><t>&l9;</t></si></sst>').encode()


def _sheet_xml(body: str) -> bytes:
    return ('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.'
            'openxmlformats.org/spreadsheetml/2006/main">' + body + "</worksheet>").encode()


def _zeros(member) -> None:
    chunk = b"\0" * (1 << 20)
    for _ in range(70):                            # 70 MB uncompressed, ~70 KB on disk
        member.write(chunk)


WORKBOOKS = {
    "cell-at-XFD1048576": (lambda: _workbook(edit=lambda ws: ws.__setitem__("XFD1048576", "x")),
                           "reaches row 1,048,576: more than 20,001 rows"),
    "column-JA": (lambda: _workbook(edit=lambda ws: ws.__setitem__("JA1", "x")),
                  "reaches row 1, column JA: more than 20,001 rows or 256 columns"),
    "row-150000": (lambda: _replace_member(_workbook(), "xl/worksheets/sheet1.xml", _sheet_xml(
        '<sheetData><row r="150000"><c r="A150000" t="inlineStr"><is><t>x</t></is></c>'
        "</row></sheetData>")), "more than 20,001 rows"),
    "merged-everything": (lambda: _replace_member(_workbook(), "xl/worksheets/sheet1.xml",
                                                  _sheet_xml('<sheetData/><mergeCells count="1">'
                                                             '<mergeCell ref="A1:IV20000"/>'
                                                             "</mergeCells>")),
                          "spans 5,120,000 cells"),
    "shared-strings": (lambda: _replace_member(_workbook(), "xl/sharedStrings.xml", (
        '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        + "<si/>" * 10_000_000 + "</sst>").encode()), "more than 500,000 shared strings"),
    "billion-laughs": (lambda: _replace_member(_workbook(), "xl/sharedStrings.xml",
                                               _billion_laughs()), "declares a DTD or entities"),
    "xxe": (lambda: _replace_member(_workbook(), "xl/sharedStrings.xml", (
        b'<?xml version="1.0"?><!DOCTYPE sst [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>&x;</t>'
        b"</si></sst>")), "declares a DTD or entities"),
    "malformed-xml": (lambda: _replace_member(_workbook(), "xl/worksheets/sheet1.xml",
                                              b"<worksheet><sheetData><row"),
                      "not a readable XLSX workbook"),
    "huge-member": (lambda: _replace_member(_workbook(), "xl/media/blob.bin", stream=_zeros),
                    "more than 67,108,864 (limit)"),
    "not-a-zip": (lambda: b"PK\x03\x04 certainly not a workbook", "not an XLSX workbook"),
    "digits": (lambda: _replace_member(_workbook(), "xl/worksheets/sheet1.xml", _sheet_xml(
        '<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>name</t></is></c>'
        '<c r="B1" t="inlineStr"><is><t>skill</t></is></c></row><row r="2"><c r="A2" '
        f't="inlineStr"><is><t>Wren</t></is></c><c r="B2"><v>{"7" * 5000}</v></c></row>'
        "</sheetData>")), "holds a number of more than 40 digits (limit)"),
}


def _problems(run) -> list[str]:
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    return [ln for ln in run.stderr.splitlines() if not ln.startswith("reading ")]


def _bounded(run, seconds: float = 20, mb: float = 500) -> None:   # CPU seconds
    assert run.cpu < seconds, run.cpu
    assert run.max_rss_mb < mb, run.max_rss_mb


@pytest.mark.parametrize("name", WORKBOOKS)
def test_a_hostile_workbook_is_one_line_before_it_is_parsed(runs, name):
    case = runs[f"xlsx:{name}"]
    message = WORKBOOKS[name][1]
    assert (case.project / "fleet.xlsx").stat().st_size < 2_000_000        # small on disk
    run = case.validate
    assert run.returncode == 1, run.stderr[-2000:]
    lines = _problems(run)
    assert lines[-1] == "1 problem found", lines
    assert message in lines[0] and "fleet.xlsx" in lines[0], lines
    _bounded(run)
    stayed_inside(run, case.project, case.folder / "cache")
    one_line_error(case.build, 1, "fleet.xlsx", message)
    assert not (case.project / "out").exists()
    _bounded(case.build)
    stayed_inside(case.build, case.project, case.folder / "cache")


def _alias_bomb(levels: int) -> str:
    parts = ["&a0 [1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    for i in range(1, levels):
        parts.append(f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return '"[' + ", ".join(parts) + ']"'


CSVS = {
    "5000-digit-int": (lambda: f"name,skill\nOx,{'9' * 5000}\n",
                       "pilots.csv:2:B: games.orbit.decks.pilots.cards[0].skill: a number of "
                       "5,000 characters is longer than the limit of 40"),
    "5000-digit-in-a-list": (lambda: f"name,skill,gear\nOx,2,\"[{'9' * 5000}]\"\n",
                             "pilots.csv:2:C: games.orbit.decks.pilots.cards[0].gear: an integer "
                             "of 5,000 characters"),
    "alias-bomb": (lambda: f"name,skill,gear\nOx,2,{_alias_bomb(9)}\n",
                   "pilots.csv:2:C: games.orbit.decks.pilots.cards[0].gear: more than 500,000 "
                   "values once aliases are expanded"),
    "many-small-bombs": (lambda: "name,skill,gear\n" + "".join(
        f"Ox{i},2,{_alias_bomb(5)}\n" for i in range(40)),
        "more than 500,000 values once aliases are expanded (limit)"),
    "deep-nesting": (lambda: f"name,skill,gear\nOx,2,\"{'[' * 5000}{']' * 5000}\"\n",
                     "pilots.csv:2:C: games.orbit.decks.pilots.cards[0].gear: values nested "
                     "more than 64 levels deep"),
    "rows": (lambda: "name,skill\n" + "".join(f"Ox{i},2\n" for i in range(25_000)),
             "pilots.csv:20002:A: games.orbit.decks.pilots.cards: more than 20,001 rows"),
    "columns": (lambda: ",".join(["name"] + [f"c{i}" for i in range(300)]) + "\n",
                "more than 256 (limit)"),
    "long-cell": (lambda: f"name,skill,gear\nOx,2,{'x' * 30_000}\n",
                  "pilots.csv:2:C: games.orbit.decks.pilots.cards[0].gear: a cell of 30,000 "
                  "characters, more than 20,000 (limit)"),
}


def _sparse_csv(path: Path) -> None:
    with open(path, "wb") as f:
        f.write(b"name,skill\n")
        f.seek(17 * 1024 * 1024)
        f.write(b"Ox,2\n")                      # sparse: 17 MB that take no room


def _capped_csv(path: Path) -> None:
    path.write_text("name,skill\n" + "".join(f"Ox{i},lots\n" for i in range(1000)),
                    encoding="utf-8")


@dataclass(frozen=True)
class Case:
    folder: Path            # watched; the project is in it, and the cache folder
    validate: Run | None
    build: Run | None

    @property
    def project(self) -> Path:
        return self.folder / "project"


def _in_one_process(args: tuple[str, ...], keys: list[str], folders: dict[str, Path],
                    scratch: Path) -> dict[str, Run]:
    """`pnp ARGS` in the project of each of `keys`, all in one bounded process."""
    commands = [Command(args, folders[key] / "project", folders[key]) for key in keys]
    return dict(zip(keys, run_bounded(commands, scratch), strict=True))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Case]:
    """Every hostile project of this file, each in a folder of its own, validated (one
    bounded process) and, where a test says so, built (another): a process each cost
    more than the commands. Tests read the results; nothing here is changed after."""
    edits = {f"xlsx:{name}": lambda p, make=make: (p / "fleet.xlsx").write_bytes(make())
             for name, (make, _) in WORKBOOKS.items()}
    edits |= {f"csv:{name}": lambda p, make=make: (p / "pilots.csv").write_text(
        make(), encoding="utf-8") for name, (make, _) in CSVS.items()}
    edits |= {"byte-limit": lambda p: _sparse_csv(p / "pilots.csv"),
              "capped": lambda p: _capped_csv(p / "pilots.csv")}
    folders = {}
    for key, edit in edits.items():
        folder = tmp_path_factory.mktemp(key.replace(":", "-"))
        edit(_orbit(folder / "project"))
        folders[key] = folder
    validated = [key for key in folders if key != "byte-limit"]
    built = [key for key in folders if key.startswith("xlsx:") or key == "byte-limit"]
    scratch = tmp_path_factory.mktemp("bounded")
    validations = _in_one_process(("validate",), validated, folders, scratch / "validate")
    builds = _in_one_process(("build", "--out", "out"), built, folders, scratch / "build")
    return {key: Case(folder, validations.get(key), builds.get(key))
            for key, folder in folders.items()}


@pytest.mark.parametrize("name", CSVS)
def test_a_hostile_csv_cell_is_held_to_the_value_limits(runs, name):
    case = runs[f"csv:{name}"]
    message = CSVS[name][1]
    run = case.validate
    assert run.returncode == 1, run.stderr[-2000:]
    lines = _problems(run)
    assert lines[-1] == "1 problem found", lines[:5]
    assert message in lines[0], lines[0]
    _bounded(run)
    stayed_inside(run, case.project, case.folder / "cache")


def test_a_csv_larger_than_the_byte_limit_is_refused_unread(runs):
    run = runs["byte-limit"].build
    one_line_error(run, 1, "pilots.csv", "more than the limit of 16,777,216")
    _bounded(run, mb=300)


def test_a_spreadsheets_problems_are_capped(runs):
    run = runs["capped"].validate
    assert run.returncode == 1
    lines = _problems(run)
    cells = [ln for ln in lines if ln.startswith("pilots.csv:") and "(sheet)" not in ln]
    assert len(cells) == 100, len(cells)
    assert "pilots.csv: (sheet): and 900 more problems in pilots.csv (the first 100 are shown)" \
        in lines, lines[-3:]
    _bounded(run)


def test_ordinary_sheets_still_load(tmp_path, orbit):
    import carddb

    (orbit / "pilots.csv").write_text('name,skill,gear\nMara,4,"[rope, &k knife, *k]"\nOx,2,a; b\n',
                                      encoding="utf-8")
    db = carddb.load(orbit / "cards.yaml")
    pilots = {c.name: c for c in db.games["orbit"].decks["pilots"].cards}
    assert pilots["Mara"]["gear"] == ["rope", "knife", "knife"] and pilots["Ox"]["gear"] == ["a", "b"]
    assert [c.name for c in db.games["orbit"].decks["ships"].cards] == ["Wren"]
