"""A game in several languages (issue 35 item 1), the card database's half: `languages:`
declared in cards.yaml, translations written as a mapping by language, as `field@lang`
keys and as `field@lang` spreadsheet columns, taken out while validating so that the
database is validated in its default language; `carddb.languages.localised` the one
step that picks a language's values; every missing translation listed with its card
and field; located problems for what cannot be a translation."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import carddb
from carddb import languages

GAME = """\
version: 1
{languages}
card_sizes: {{poker: [63.5, 88.9]}}
games:
  orbit:
    title: Orbit Run
    players: {{min: 1, max: 4}}
    types:
      Planet:
        fields:
          gravity: number
          motto: optional text
    tokens:
      fuel: {{name: {{en: Fuel, de: Treibstoff}}, label: F, count: 10, diameter_mm: 20}}
    phases: [{{en: Launch, de: Start}}, {{en: Land, de: Landen}}]
    reference:
      title: Turn
      lines: ["**Launch**: go."]
    decks:
      planets:
        title: {{en: Planets, de: Planeten}}
        size: poker
        back: {{title: Orbit Run}}
        cards:
          - name: {{en: Vesper Prime, de: Vesper Eins}}
            type: Planet
            gravity: 1.2
            text: {{en: Heavy world., de: Schwere Welt.}}
            motto: {{en: Hold on., de: Festhalten.}}
          - {{name: Dust, type: Planet, gravity: 0.3, text: Light world., text@de: Leichte Welt.,
              name@de: Staub}}
      moons:
        title: {{en: Moons, de: Monde}}
        size: poker
        back: {{title: Orbit Run}}
        cards: {{from: moons.csv, type: Planet}}
"""
MOONS = ("name,gravity,text,name@de,text@de\n"
         "Io,0.2,Volcanic.,Io,Vulkanisch.\n"
         "Europa,0.1,Icy.,Europa,Eisig.\n")


@pytest.fixture(autouse=True)
def _here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)         # messages name files as seen from here


def project(tmp_path: Path, languages: str = "languages: [en, de]", moons: str = MOONS,
            game: str = GAME) -> Path:
    (tmp_path / "moons.csv").write_text(moons, encoding="utf-8")
    path = tmp_path / "cards.yaml"
    path.write_text(game.format(languages=languages), encoding="utf-8")
    return path


def problems(path: Path) -> list[str]:
    with pytest.raises(carddb.DatabaseError) as err:
        carddb.load(path)
    return [str(p) for p in err.value.problems]


def test_the_default_language_is_the_database_and_localised_picks_another(tmp_path):
    db = carddb.load(project(tmp_path))
    planets = db.games["orbit"].decks["planets"]
    assert [c.name for c in planets.cards] == ["Vesper Prime", "Dust"]
    assert planets.cards[0].text == "Heavy world." and planets.cards[0]["motto"] == "Hold on."
    assert planets.title == "Planets" and db.games["orbit"].extras["phases"] == ["Launch", "Land"]
    assert db.languages.codes == ("en", "de") and db.language is None

    de = languages.localised(db, "de")
    game = de.games["orbit"]
    vesper, dust = game.decks["planets"].cards
    assert (vesper.name, vesper.text, vesper["motto"]) == ("Vesper Eins", "Schwere Welt.",
                                                           "Festhalten.")
    assert (dust.name, dust.text) == ("Staub", "Leichte Welt.")     # the `field@de` keys
    assert [c.text for c in game.decks["moons"].cards] == ["Vulkanisch.", "Eisig."]  # columns
    assert game.decks["planets"].title == "Planeten"
    assert game.extras["tokens"]["fuel"]["name"] == "Treibstoff"
    assert game.extras["phases"] == ["Start", "Landen"]
    assert de.language == "de"
    # one identity across languages: the default-language names
    assert game.decks["planets"].card_ids() == ("Vesper Prime", "Dust")
    # pure: the database it was made from is as it was
    assert db.games["orbit"].decks["planets"].cards[0].name == "Vesper Prime"
    assert db.games["orbit"].extras["tokens"]["fuel"]["name"] == "Fuel"
    assert languages.localised(db, "en").games["orbit"].decks["planets"].cards == planets.cards


def test_a_card_name_in_any_language_names_its_identity(tmp_path):
    db = carddb.load(project(tmp_path))
    assert languages.card_identity(db, "orbit", "vesper eins") == "Vesper Prime"
    assert languages.card_identity(db, "orbit", "Vesper Prime") == "Vesper Prime"
    assert languages.card_identity(db, "orbit", "Nowhere") is None


def test_each_missing_translation_is_listed_with_its_card_and_field(tmp_path):
    moons = MOONS.replace("Europa,0.1,Icy.,Europa,Eisig.", "Europa,0.1,Icy.,Europa,")
    game = GAME.replace("text: Light world., text@de: Leichte Welt.,", "motto: Float.,")
    db = carddb.load(project(tmp_path, moons=moons, game=game))
    missing = sorted(str(m) for m in db.languages.missing)
    assert missing == [
        "cards.yaml:30:61: games.orbit.decks.planets.cards[1].motto: no 'de' translation "
        "(card 'Dust')",
        "moons.csv:3:E: games.orbit.decks.moons.cards[1].text: no 'de' translation "
        "(card 'Europa')",
    ]
    # what nobody translates is not missing: it prints as written in every language
    # (the turn summary, the back titles, the gravity)
    assert not any("reference" in m or "back" in m for m in missing)


@pytest.mark.parametrize("edit, says", [
    (("text: {{en: Heavy world., de: Schwere Welt.}}", "text: {{en: Heavy., fr: Lourd.}}"),
     "cards.yaml:28:36: games.orbit.decks.planets.cards[0].text.fr: 'fr' is not a declared "
     "language"),
    (("text: {{en: Heavy world., de: Schwere Welt.}}", "text: {{de: Schwere Welt.}}"),
     "games.orbit.decks.planets.cards[0].text: no 'en' text: the default language's text "
     "is required"),
    (("text@de: Leichte Welt.", "text@it: Mondo."), "cards[1].text@it: 'it' is not a "
                                                    "declared language"),
    (("gravity: 0.3,", "gravity: 0.3, gravity@de: 3,"),
     "'gravity' is not a text field of this card: only text is translated"),
    (("name@de: Staub", "name@de: Vesper Eins"),
     "the translated name 'Vesper Eins' is also the name of card 'Vesper Prime'"),
    (("de: Festhalten.", "de: [1, 2]"), "motto.de: expected text, got a list"),
    (("de: Treibstoff", "de: \"Treib\\u00adstoff\""), "tokens.fuel.name.de: a name may not "
                                                      "hold U+00AD SOFT HYPHEN"),
])
def test_what_cannot_be_a_translation_is_one_located_problem(tmp_path, edit, says):
    game = GAME.replace(*edit)
    assert game != GAME
    found = problems(project(tmp_path, game=game))
    assert any(says in line for line in found), found


@pytest.mark.parametrize("declared, says", [
    ("languages: [EN, de]", "languages.EN: 'EN' is not a language code"),
    ("languages: [en, en]", "language 'en' is declared twice"),
    ("languages: []", "no language: list at least one"),
    ("languages: en", "expected a list of language codes"),
    ("languages: {en: {}, de: {fonts: {regular: fonts/none.ttf}}}",
     "languages.de.fonts.regular: font file 'fonts/none.ttf' not found"),
    ("languages: {en: {}, de: {font: x}}", "languages.de.font: unknown field 'font'"),
])
def test_a_wrong_declaration_is_located(tmp_path, declared, says):
    found = problems(project(tmp_path, languages=declared))
    assert any(says in line for line in found), found


def test_a_language_declares_its_own_fonts(tmp_path):
    fonts = Path(__file__).resolve().parents[2] / "pnp" / "draw" / "fallback-fonts"
    font = next(iter(sorted(fonts.glob("*.ttf"))))
    (tmp_path / "fonts").mkdir()
    (tmp_path / "fonts" / "own.ttf").write_bytes(font.read_bytes())
    db = carddb.load(project(tmp_path, languages="languages: {en: {}, de: {fonts: "
                                                 "{regular: fonts/own.ttf}}}"))
    assert db.print.fonts == {}
    assert languages.localised(db, "de").print.fonts == {"regular": "fonts/own.ttf"}
    assert languages.localised(db, "en").print.fonts == {}


def test_without_languages_a_mapping_is_no_text_and_nothing_is_kept(tmp_path):
    found = problems(project(tmp_path, languages=""))
    assert any("cards[0].text: expected text, got a mapping" in line for line in found), found
    plain = textwrap.dedent("""\
        version: 1
        games:
          g:
            title: G
            players: {min: 1, max: 2}
            types: {T: {}}
            decks:
              d: {title: D, size: [63.5, 88.9], back: {title: G}, cards: [{name: A, type: T}]}
        """)
    (tmp_path / "cards.yaml").write_text(plain)
    db = carddb.load(tmp_path / "cards.yaml")
    assert db.languages is None and languages.codes_of(db) == ()
    assert languages.chosen(db, None) == []
    with pytest.raises(ValueError, match="declares no languages"):
        languages.chosen(db, "de")


def test_a_localised_game_finds_a_card_by_its_name_there_or_its_identity(tmp_path):
    game = languages.localised(carddb.load(project(tmp_path)), "de").games["orbit"]
    assert game.card("Vesper Eins").text == "Schwere Welt."
    assert game.card("Vesper Prime").name == "Vesper Eins"   # a reference written in en
    with pytest.raises(KeyError):
        game.card("Nowhere")
