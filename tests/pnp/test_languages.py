"""A game in several languages (issue 35 item 1), the printer's half: the `pnp init`
starter declares `languages: [en, de]` and translates its ships in `name@de` and
`text@de` columns. `pnp build --lang all` prints each language into its own folder (the
PDFs' text read back with pypdf), templates see `lang`, `pnp validate` lists every
missing translation and checks the fit of each language's text apart, and a card keeps
its identity across languages in the build record, `pnp diff` and `--changed-only`."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.harness import run_cli
from tests.pdftext import words
from tests.pnp.starter_copies import fresh_copy, make_starter

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def starter(tmp_path_factory) -> Path:
    return make_starter(tmp_path_factory.mktemp("starter") / "game")


@pytest.fixture(scope="module")
def playground(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("languages")


@pytest.fixture
def game(starter, playground, monkeypatch) -> Path:
    """A fresh copy of the starter, at one path for every test (tests/pnp/starter_copies),
    and the working folder."""
    folder = fresh_copy(starter, playground)
    monkeypatch.chdir(folder)
    return folder


def pnp(*args: str, code: int = 0):
    """`pnp ARGS` in the game's folder (the fixture's working directory), exiting `code`."""
    result = run_cli("pnp", *args, cwd=Path.cwd())
    assert result.returncode == code, (args, printed(result))
    return result


def printed(result) -> str:
    """What the command printed, stdout then stderr."""
    return result.stdout + result.stderr


def text_of(pdf: Path) -> str:
    """The PDF's text, its lines joined (a wrapped sentence reads whole)."""
    return words(pdf)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_lang_all_prints_each_language_into_its_own_folder(game):
    pnp("build", "--lang", "all", "--out", "out", "--jobs", "1")
    english = text_of(game / "out" / "en" / "harbour" / "ships.pdf")
    german = text_of(game / "out" / "de" / "harbour" / "ships.pdf")
    assert "The Gull" in english and "Moves 1 extra in calm weather." in english
    assert "Die Möwe" not in english and "Zieht bei Flaute" not in english
    assert "Die Möwe" in german and "Zieht bei Flaute 1 weiter." in german
    assert "Eiserne Jungfrau" in german and "The Gull" not in german
    # what nobody translated prints as written: the storms
    assert "Squall" in text_of(game / "out" / "de" / "harbour" / "storms.pdf")
    # the default language alone (no --lang) prints into OUT itself, as it always did
    pnp("build", "--out", "plain", "--jobs", "1")
    assert "The Gull" in text_of(game / "plain" / "harbour" / "ships.pdf")
    assert not (game / "plain" / "de").exists()


def test_json_of_lang_all_reports_each_language(game):
    done = pnp("build", "--lang", "all", "--out", "out", "--jobs", "1", "--json",
               "--only", "ships")
    report = json.loads(done.stdout)["languages"]
    assert list(report) == ["en", "de"]
    assert [a["path"] for a in report["de"]["artefacts"]] == ["harbour/ships.pdf"]


def test_templates_see_the_language_code(game):
    storm = game / "templates" / "harbour" / "storm.j2"
    storm.write_text(storm.read_text() + '- text: {box: [6, 80, 40, 5], size: 7, markup: false, '
                     'text: {{ ("Sprache " if lang == "de" else "Language ") ~ lang }}}\n')
    pnp("build", "--lang", "de", "--out", "out", "--only", "storms", "--jobs", "1")
    pnp("build", "--lang", "en", "--out", "out", "--only", "storms", "--jobs", "1")
    assert "Sprache de" in text_of(game / "out" / "de" / "harbour" / "storms.pdf")
    assert "Language en" in text_of(game / "out" / "en" / "harbour" / "storms.pdf")


def test_a_language_not_declared_is_refused_in_one_line(game):
    done = pnp("build", "--lang", "fr", "--out", "out", code=2)
    assert printed(done).strip().splitlines()[-1].endswith(
        "--lang fr: not a language of cards.yaml (it declares en, de; or all)")
    # a game in one language: no `languages`, no German columns
    edit(game / "cards.yaml", "languages: [en, de]", "")
    with (game / "ships.csv").open(newline="", encoding="utf-8") as fh:
        rows = [row[:-2] for row in csv.reader(fh)]
    with (game / "ships.csv").open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    pnp("validate")
    done = pnp("build", "--lang", "all", "--out", "out", code=2)
    assert "cards.yaml declares no languages" in printed(done)
    assert not (game / "out").exists()


def test_validate_lists_each_missing_translation_and_strict_refuses(game, monkeypatch):
    """...and measures the contrast of the German text on the frames rasterised for
    English: a translation changes the text, not what is behind it (pnp.draw.contrast)."""
    from pnp.cli import validate
    from pnp.draw import contrast

    passes: list[list[tuple]] = []      # the faces rasterised in each language's pass
    background, drawn = contrast.background, validate._drawn

    def counted(ops, target, *args):
        passes[-1].append((target.W, target.H, tuple(repr(op.as_tuple()) for op in ops)))
        return background(ops, target, *args)

    def language(*args):
        passes.append([])
        return drawn(*args)

    monkeypatch.setattr(contrast, "background", counted)
    monkeypatch.setattr(validate, "_drawn", language)
    sheet = game / "ships.csv"
    edit(sheet, ",Eiserne Jungfrau,Ignoriert den ersten Squall.", ",Eiserne Jungfrau,")
    done = pnp("validate", code=0)
    assert len(passes) == 2 and passes[0] and passes[1] == [], passes
    assert ("warning: ships.csv:3:I: games.harbour.decks.ships.cards[1].text: no 'de' "
            "translation (card 'Iron Maiden')") in printed(done)
    assert "1 warning" in printed(done)
    refused = pnp("validate", "--strict", code=1)
    assert "1 problem found [--strict]" in printed(refused)


def test_german_text_that_overflows_is_reported_for_german_only(game):
    long = " ".join(["Die Möwe zieht bei Flaute weiter, so weit der Wind sie trägt."] * 8)
    edit(game / "ships.csv", "Zieht bei Flaute 1 weiter.", f'"{long}"'.replace(",", ";"))
    done = pnp("validate")
    lines = [line for line in printed(done).splitlines() if "does not fit" in line]
    assert lines and all(line.startswith("warning: [de] harbour/ships: Die Möwe: rules:")
                         for line in lines), printed(done)
    assert "[en]" not in printed(done)
    # the build of each language warns for its own text alone
    built = pnp("build", "--lang", "all", "--out", "out", "--jobs", "1")
    fits = [line for line in printed(built).splitlines() if "does not fit" in line]
    assert len(fits) == 1 and "Die Möwe" in fits[0]


def test_a_character_no_font_has_is_checked_in_its_language(game):
    edit(game / "ships.csv", "Zieht bei Flaute 1 weiter.", "Zieht bei Flaute 1 weiter. 嵐")
    done = pnp("validate")
    glyphs = [line for line in printed(done).splitlines() if "嵐" in line or "U+5D50" in line]
    assert glyphs and all("[de]" in line for line in glyphs), printed(done)


def test_a_card_keeps_its_identity_in_the_record_diff_and_changed_only(game):
    pnp("build", "--lang", "de", "--out", "out", "--jobs", "1")
    records = sorted((game / "out" / "de" / ".pnp-builds").glob("[0-9]*.json"))
    record = json.loads(records[-1].read_text())
    assert record["lang"] == "de"
    assert "harbour/ships/The Gull" in record["cards"]           # its identity, not Die Möwe
    assert not any("Möwe" in key for key in record["cards"])
    edit(game / "ships.csv", "Zieht bei Flaute 1 weiter.", "Zieht bei Flaute 2 weiter.")
    edit(game / "ships.csv", "Die Möwe,", "Die Silbermöwe,")
    found = json.loads(pnp("diff", "--out", "out/de", "--json").stdout)
    assert found["changed"] == [{"card": "harbour/ships/The Gull", "what": ["front"]}]
    assert found["added"] == found["removed"] == []
    done = pnp("build", "--lang", "de", "--out", "out", "--changed-only", "--jobs", "1")
    assert "(1 card, 2 pages" in printed(done)
    reprint = text_of(game / "out" / "de" / "changed.pdf")
    assert "Die Silbermöwe" in reprint and "Zieht bei Flaute 2 weiter." in reprint
    assert "Eiserne Jungfrau" not in reprint
    # English was not touched: its own folder, its own record
    assert not (game / "out" / "en").exists()


def test_exports_and_diff_work_per_language(game):
    pnp("export", "pdf-single", "--lang", "de", "--deck", "ships", "--out", "exp")
    pdfs = sorted((game / "exp" / "de").rglob("*.pdf"))
    assert pdfs and not (game / "exp" / "harbour").exists()
    german = " ".join(text_of(p) for p in pdfs)
    assert "Die Möwe" in german and "The Gull" not in german
    pnp("build", "--lang", "de", "--out", "out", "--jobs", "1")
    # `--lang de` names OUT/de, as the build wrote it
    found = json.loads(pnp("diff", "--out", "out", "--lang", "de", "--json").stdout)
    assert found["since"] == "build 1" and found["changed"] == []
    done = pnp("diff", "--out", "out", "--lang", "../x", code=2)
    assert "--lang ../x: not a language code" in printed(done)


def test_a_build_in_a_language_warns_of_its_missing_translations(game):
    edit(game / "ships.csv", ",Eiserne Jungfrau,Ignoriert den ersten Squall.", ",Eiserne Jungfrau,")
    done = pnp("build", "--lang", "de", "--out", "out", "--jobs", "1")
    said = [line for line in printed(done).splitlines() if "translation" in line]
    assert said == ["warning: harbour/ships: Iron Maiden: text: no 'de' translation: printed "
                    "in 'en' (ships.csv:3:I)"]
    assert "Ignores the first Squall." in text_of(game / "out" / "de" / "harbour" / "ships.pdf")
    # the default language misses nothing; --strict refuses the German, even up to date
    assert "translation" not in printed(pnp("build", "--out", "out", "--jobs", "1"))
    refused = pnp("build", "--lang", "de", "--out", "out", "--strict", code=1)
    assert "a warning above with --strict" in printed(refused)


def test_a_language_prints_with_its_own_fonts(game):
    fonts = ROOT / "pnp" / "draw" / "fallback-fonts"
    (game / "fonts").mkdir()
    shutil.copy(fonts / "DejaVuSans.ttf", game / "fonts" / "own.ttf")
    edit(game / "cards.yaml", "languages: [en, de]",
         "languages: {en: {}, de: {fonts: {regular: fonts/own.ttf}}}")
    pnp("build", "--lang", "all", "--out", "out", "--only", "ships", "--jobs", "1")

    def fonts_of(pdf: Path) -> set[str]:
        page = PdfReader(pdf).pages[0]
        return {str(f.get_object()["/BaseFont"]) for f in page["/Resources"]["/Font"].values()}

    german = fonts_of(game / "out" / "de" / "harbour" / "ships.pdf")
    english = fonts_of(game / "out" / "en" / "harbour" / "ships.pdf")
    assert any("DejaVuSans" in f and "Bold" not in f for f in german), german
    assert not any("DejaVuSans" in f and "Bold" not in f for f in english), english
