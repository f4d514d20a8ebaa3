"""Question programs worded in German, Spanish, Italian, Dutch and Portuguese.

Each language words every program kind over the same small table, whose card gives the
column labels with their articles and the record noun; the questions are pinned word for
word (the record names and feature values come from the instance, the rest is fixed). Then
the grammar underneath: articles and their contractions, German cases, plurals, the lexicon's
composed words, closed values, and the refusal that names a missing label.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from benchsmith.programs import WordsMissing, build_table, generate
from benchsmith.programs.grammar import GRAMMARS, Noun, read_noun
from benchsmith.programs.labels import lexicon_noun, translate_value
from benchsmith.programs.wording import LANGUAGES, PREAMBLE, ROUND_NOTE, _list
from benchsmith.spec import Condition, Hop, ProgramSpec

COUNTRIES = [
    ("France", "Paris", "Europe", 68.2, 551695, 1958, "FRA"),
    ("Japan", "Tokyo", "Asia", 125.1, 377975, 1947, "JPN"),
    ("Kenya", "Nairobi", "Africa", 55.1, 580367, 2010, "KEN"),
    ("Peru", "Lima", "South America", 34.4, 1285216, 1993, "PER"),
    ("Spain", "Madrid", "Europe", 48.3, 505990, 1978, "ESP"),
    ("Australia", "Canberra", "Oceania", 26.0, 7692024, 1901, "AUS"),
]
CITIES = [("Paris", 35), ("Tokyo", 40), ("Nairobi", 1795), ("Lima", 154), ("Madrid", 657),
          ("Canberra", 578)]  # fmt: skip

# The card's labels and record nouns, each with its article (a plural after a slash).
LABELS = {
    "de": {
        "capital": "die Hauptstadt", "continent": "der Kontinent",
        "population": "die Einwohnerzahl (in Millionen)", "area": "die Fläche (km²)",
        "constitution": "das Verfassungsjahr", "elevation": "die Höhe (m)",
        "country": "das Land/die Länder", "city": "die Stadt/die Städte",
    },
    "es": {
        "capital": "la capital", "continent": "el continente",
        "population": "la población (en millones)", "area": "el área (km²)/las áreas (km²)",
        "constitution": "el año de la constitución", "elevation": "la altitud (m)",
        "country": "el país", "city": "la ciudad",
    },
    "it": {
        "capital": "la capitale", "continent": "il continente",
        "population": "la popolazione (in milioni)", "area": "la superficie (km²)",
        "constitution": "l'anno della costituzione",
        "elevation": "l'altitudine (m)/le altitudini (m)", "country": "lo stato",
        "city": "la città",
    },
    "nl": {
        "capital": "de hoofdstad", "continent": "het continent",
        "population": "het inwonertal (in miljoenen)", "area": "de oppervlakte (km²)",
        "constitution": "het jaar van de grondwet", "elevation": "de hoogte (m)",
        "country": "het land/de landen", "city": "de stad/de steden",
    },
    "pt": {
        "capital": "a capital", "continent": "o continente",
        "population": "a população (em milhões)", "area": "a área (km²)",
        "constitution": "o ano da constituição", "elevation": "a altitude (m)",
        "country": "o país", "city": "a cidade",
    },
}  # fmt: skip

SPECS = {
    "lookup": ProgramSpec(kind="lookup", table="countries", key_field="country",
                          answer_field="capital"),
    "lookup_by_code": ProgramSpec(kind="lookup", table="countries", key_field="code",
                                  answer_field="capital"),
    "filtered_lookup": ProgramSpec(
        kind="filtered_lookup", table="countries", key_field="country",
        answer_field="continent", conditions=[Condition(field="population", op=">", value="50")],
    ),
    "compare": ProgramSpec(kind="compare", table="countries", key_field="country", field="area",
                           direction="max"),
    "superlative": ProgramSpec(kind="superlative", table="countries", key_field="country",
                               field="population", direction="min", k=3),
    "superlative_open": ProgramSpec(
        kind="superlative", table="countries", key_field="country", field="constitution",
        direction="min", k=4, book="open", rows_shown=4,
    ),
    "count": ProgramSpec(
        kind="count", table="countries", book="open", rows_shown=5,
        conditions=[Condition(field="continent", op="==", value="Europe"),
                    Condition(field="area", op="<=", value="600000")],
    ),
    "aggregate": ProgramSpec(
        kind="aggregate", table="countries", book="open", rows_shown=5, field="population",
        aggregate="mean", conditions=[Condition(field="constitution", op=">", value="1950")],
    ),
    "classify": ProgramSpec(kind="classify", table="countries", answer_field="continent",
                            features=["population", "constitution"]),
    "multihop": ProgramSpec(
        kind="multihop", table="countries", key_field="country", answer_field="elevation",
        hops=[Hop(via="capital", table="cities", key_field="city")],
    ),
}  # fmt: skip

# Per language and kind: the question, with {0}, {1}, ... for the records it names (in the
# instance's order) and {population}, {constitution} for a classification's features.
EXPECTED = {
    "de": {
        "lookup": "Was ist die Hauptstadt des folgenden Landes: Spanien?",
        "lookup_by_code": "Was ist die Hauptstadt des Landes, dessen Code ESP ist?",
        "filtered_lookup": "Was ist der Kontinent des folgenden Landes: Frankreich?",
        "compare": "Bei welchem Land ist die Fläche (km²) größer: {0} oder {1}?",
        "superlative": "Bei welchem Land ist die Einwohnerzahl (in Millionen) am kleinsten: "
        "{0}, {1} oder {2}?",
        "superlative_open": "Bei welchem Land ist laut der Tabelle das Verfassungsjahr am "
        "frühesten?",
        "count": "Wie viele Länder gibt es laut der Tabelle, deren Kontinent Europa ist und "
        "deren Fläche (km²) höchstens 600000 ist?",
        "aggregate": "Was ist laut der Tabelle die durchschnittliche Einwohnerzahl (in "
        "Millionen) der Länder, deren Verfassungsjahr größer als 1950 ist, auf zwei "
        "Dezimalstellen gerundet?",
        "classify": "Was ist der Kontinent eines Landes mit den folgenden Werten: Einwohnerzahl "
        "(in Millionen) {population} und Verfassungsjahr {constitution}?",
        "multihop": "Was ist die Höhe (m) der Hauptstadt des folgenden Landes: Spanien?",
    },
    "es": {
        "lookup": "¿Cuál es la capital del siguiente país: España?",
        "lookup_by_code": "¿Cuál es la capital del país cuyo código es ESP?",
        "filtered_lookup": "¿Cuál es el continente del siguiente país: Francia?",
        "compare": "¿Qué país tiene mayor área (km²): {0} o {1}?",
        "superlative": "¿Qué país tiene la menor población (en millones): {0}, {1} o {2}?",
        "superlative_open": "Según la tabla, ¿qué país tiene el año de la constitución más "
        "antiguo?",
        "count": "Según la tabla, ¿cuántos países hay cuyo continente es Europa y cuya área "
        "(km²) es como máximo 600000?",
        "aggregate": "Según la tabla, ¿cuál es la media de la población (en millones) de los "
        "países cuyo año de la constitución es superior a 1950, redondeada a dos decimales?",
        "classify": "¿Cuál es el continente de un país con los siguientes valores: población (en "
        "millones) {population} y año de la constitución {constitution}?",
        "multihop": "¿Cuál es la altitud (m) de la capital del siguiente país: España?",
    },
    "it": {
        "lookup": "Qual è la capitale del seguente stato: Spagna?",
        "lookup_by_code": "Qual è la capitale dello stato il cui codice è ESP?",
        "filtered_lookup": "Qual è il continente del seguente stato: Francia?",
        "compare": "Quale stato ha la superficie maggiore (km²): {0} o {1}?",
        "superlative": "Quale stato ha la popolazione minore (in milioni): {0}, {1} o {2}?",
        "superlative_open": "Secondo la tabella, quale stato ha l'anno della costituzione più "
        "antico?",
        "count": "Secondo la tabella, quanti stati ci sono il cui continente è Europa e la cui "
        "superficie (km²) è al massimo 600000?",
        "aggregate": "Secondo la tabella, qual è la media della popolazione (in milioni) degli "
        "stati il cui anno della costituzione è superiore a 1950, arrotondata a due decimali?",
        "classify": "Qual è il continente di uno stato con i seguenti valori: popolazione (in "
        "milioni) {population} e anno della costituzione {constitution}?",
        "multihop": "Qual è l'altitudine (m) della capitale del seguente stato: Spagna?",
    },
    "nl": {
        "lookup": "Wat is de hoofdstad van het volgende land: Spanje?",
        "lookup_by_code": "Wat is de hoofdstad van het land waarvan de code ESP is?",
        "filtered_lookup": "Wat is het continent van het volgende land: Frankrijk?",
        "compare": "Bij welk land is de oppervlakte (km²) groter: {0} of {1}?",
        "superlative": "Bij welk land is het inwonertal (in miljoenen) het kleinst: {0}, {1} "
        "of {2}?",
        "superlative_open": "Bij welk land is volgens de tabel het jaar van de grondwet het "
        "vroegst?",
        "count": "Hoeveel landen zijn er volgens de tabel waarvan het continent Europa is en "
        "waarvan de oppervlakte (km²) hoogstens 600000 is?",
        "aggregate": "Wat is volgens de tabel het gemiddelde van het inwonertal (in miljoenen) "
        "van de landen waarvan het jaar van de grondwet groter is dan 1950, afgerond op twee "
        "decimalen?",
        "classify": "Wat is het continent van een land met de volgende waarden: inwonertal (in "
        "miljoenen) {population} en jaar van de grondwet {constitution}?",
        "multihop": "Wat is de hoogte (m) van de hoofdstad van het volgende land: Spanje?",
    },
    "pt": {
        "lookup": "Qual é a capital do seguinte país: Espanha?",
        "lookup_by_code": "Qual é a capital do país cujo código é ESP?",
        "filtered_lookup": "Qual é o continente do seguinte país: França?",
        "compare": "Qual país tem maior área (km²): {0} ou {1}?",
        "superlative": "Qual país tem a menor população (em milhões): {0}, {1} ou {2}?",
        "superlative_open": "De acordo com a tabela, qual país tem o ano da constituição mais "
        "antigo?",
        "count": "De acordo com a tabela, quantos países há cujo continente é Europa e cuja "
        "área (km²) é no máximo 600000?",
        "aggregate": "De acordo com a tabela, qual é a média da população (em milhões) dos "
        "países cujo ano da constituição é superior a 1950, arredondada a duas casas decimais?",
        "classify": "Qual é o continente de um país com os seguintes valores: população (em "
        "milhões) {population} e ano da constituição {constitution}?",
        "multihop": "Qual é a altitude (m) da capital do seguinte país: Espanha?",
    },
}
NAMED = {"lookup": "Spain", "lookup_by_code": "ESP", "filtered_lookup": "France",
         "multihop": "Spain"}  # fmt: skip
"""The record a lookup's question is checked on (by its English name)."""


def field(path: str, modality: str, labels: dict[str, str]) -> SimpleNamespace:
    return SimpleNamespace(path=path, modality=modality, translations={}, labels=labels)


def tables(language: str, *, nouns: bool = True) -> dict:
    said = LABELS[language]

    def label(path: str) -> dict[str, str]:
        return {language: said[path]}

    columns = ("country", "capital", "continent", "population", "area", "constitution", "code")
    countries = build_table(
        "countries",
        [dict(zip(columns, row, strict=True)) for row in COUNTRIES],
        [
            field("country", "text", {}),
            field("capital", "text", label("capital")),
            field("continent", "category", label("continent")),
            field("population", "number", label("population")),
            field("area", "number", label("area")),
            field("constitution", "number", label("constitution")),
            field("code", "text", {}),  # labelled by the lexicon ("der Code", "el código")
        ],
        card_entity={"en": "country", language: said["country"]}
        if nouns
        else {"en": "sovereign polity"},  # a noun the lexicon does not have
    )
    cities = build_table(
        "cities",
        [{"city": c, "elevation": e} for c, e in CITIES],
        [field("city", "text", {}), field("elevation", "number", label("elevation"))],
        card_entity={"en": "city", language: said["city"]},
    )
    return {"countries": countries, "cities": cities}


@pytest.mark.parametrize("language", ["de", "es", "it", "nl", "pt"])
@pytest.mark.parametrize("kind", list(SPECS))
def test_every_program_kind_is_worded_in_the_language(language, kind):
    made = generate(SPECS[kind], tables(language), n=6, seed=0, language=language)
    assert made
    inst = made[0]
    if kind in NAMED:
        inst = {i.records[0]: i for i in made}[NAMED[kind]]
    expected = EXPECTED[language][kind].format(*inst.named, **inst.features)
    assert inst.question == expected


@pytest.mark.parametrize(
    ("language", "lookup", "ranking", "count"),
    [
        (
            "de",
            "Was ist die Hauptstadt von Spanien?",
            "Bei welchem der beiden ist die Fläche (km²) größer: {0} oder {1}?",
            "Wie viele Zeilen gibt es laut der Tabelle, deren Kontinent Europa ist und deren "
            "Fläche (km²) höchstens 600000 ist?",
        ),
        (
            "es",
            "¿Cuál es la capital de España?",
            "¿Cuál tiene mayor área (km²): {0} o {1}?",
            "Según la tabla, ¿cuántas filas hay cuyo continente es Europa y cuya área (km²) es "
            "como máximo 600000?",
        ),
        (
            "it",
            "Qual è la capitale di Spagna?",
            "Quale ha la superficie maggiore (km²): {0} o {1}?",
            "Secondo la tabella, quante righe ci sono il cui continente è Europa e la cui "
            "superficie (km²) è al massimo 600000?",
        ),
        (
            "nl",
            "Wat is de hoofdstad van Spanje?",
            "Bij welke van de twee is de oppervlakte (km²) groter: {0} of {1}?",
            "Hoeveel rijen zijn er volgens de tabel waarvan het continent Europa is en waarvan "
            "de oppervlakte (km²) hoogstens 600000 is?",
        ),
        (
            "pt",
            "Qual é a capital de Espanha?",
            "Qual tem maior área (km²): {0} ou {1}?",
            "De acordo com a tabela, quantas linhas há cujo continente é Europa e cuja área "
            "(km²) é no máximo 600000?",
        ),
    ],
)
def test_records_without_a_noun_are_named_or_counted_as_rows(language, lookup, ranking, count):
    given = tables(language, nouns=False)
    made = generate(SPECS["lookup"], given, n=6, seed=0, language=language)
    assert {i.records[0]: i for i in made}["Spain"].question == lookup
    compared = generate(SPECS["compare"], given, n=1, seed=0, language=language)[0]
    assert compared.question == ranking.format(*compared.named)
    assert generate(SPECS["count"], given, n=1, seed=0, language=language)[0].question == count
    # A classification must say what the record is: without a noun it is refused.
    with pytest.raises(WordsMissing, match=f"no {language} noun for the records of countries"):
        generate(SPECS["classify"], given, n=1, seed=0, language=language)


@pytest.mark.parametrize(
    ("language", "example"),
    [("de", "die Hauptstadt"), ("es", "la capital"), ("it", "la capitale"),
     ("nl", "de hoofdstad"), ("pt", "a capital")],
)  # fmt: skip
def test_a_field_without_words_is_refused_naming_it_and_how_to_label_it(language, example):
    odd = build_table(
        "things",
        [{"name": "Zorbix", "zorp": 3}, {"name": "Quendle", "zorp": 5}],
        [field("name", "text", {}), field("zorp", "number", {})],
        card_entity={"en": "gadget"},
    )
    spec = ProgramSpec(kind="lookup", table="things", key_field="name", answer_field="zorp")
    with pytest.raises(WordsMissing) as refused:
        generate(spec, {"things": odd}, n=1, seed=0, language=language)
    message = str(refused.value)
    assert f"no {language} label for the field 'zorp' of things" in message
    assert f"--label zorp:{language}=TEXT" in message
    assert f"with its article, which gives the gender: '{example}'" in message


def test_the_languages_have_a_preamble_a_rounding_note_and_lists():
    assert LANGUAGES == ("en", "fr", "de", "es", "it", "nl", "pt")
    assert set(PREAMBLE) == set(ROUND_NOTE) == set(LANGUAGES)
    assert PREAMBLE["de"] == "Antworten Sie anhand dieser Tabelle."
    assert PREAMBLE["nl"] == "Beantwoord de vraag met behulp van deze tabel."
    names = ["Rom", "Oslo", "Lima"]
    assert _list(names, "de", both=True) == "Rom, Oslo und Lima"
    assert _list(names, "es", both=True) == "Rom, Oslo y Lima"
    assert _list(names, "it", both=True) == "Rom, Oslo e Lima"
    assert _list(names, "nl", both=True) == "Rom, Oslo en Lima"
    assert _list(names, "pt", both=True) == "Rom, Oslo e Lima"
    assert _list(["Francia", "Italia"], "es", both=True) == "Francia e Italia"
    assert _list(["Bélgica", "Holanda"], "es") == "Bélgica u Holanda"
    assert _list(["Rom", "Oslo"], "en") == "Rom or Oslo"  # English and French as before
    assert _list(["Rom", "Oslo", "Lima"], "fr") == "Rom, Oslo ou Lima"


@pytest.mark.parametrize(
    ("text", "language", "noun"),
    [
        ("die Hauptstadt", "de", Noun("Hauptstadt", "f")),
        ("der Planet", "de", Noun("Planet", "m")),
        ("das Land/die Länder", "de", Noun("Land", "n", "Länder")),
        ("el área/las áreas", "es", Noun("área", "f", "áreas")),
        ("la ciudad", "es", Noun("ciudad", "f", "ciudades")),
        ("l'isola", "it", Noun("isola", "f", "isole")),
        ("l'anno", "it", Noun("anno", "m", "anni")),
        ("l'ospite/gli ospiti", "it", Noun("ospite", "m", "ospiti")),
        ("lo stato", "it", Noun("stato", "m", "stati")),
        ("het land", "nl", Noun("land", "n")),
        ("de stad/de steden", "nl", Noun("stad", "c", "steden")),
        ("a cidade", "pt", Noun("cidade", "f", "cidades")),
        ("o vulcão", "pt", Noun("vulcão", "m", "vulcões")),
    ],
)
def test_a_label_is_read_with_its_article(text, language, noun):
    assert read_noun(text, language) == noun


def test_articles_contract_and_agree():
    es, it, pt, nl, de = (GRAMMARS[code] for code in ("es", "it", "pt", "nl", "de"))
    area = Noun("área", "f", "áreas")
    assert (es.the(area), es.the(area, "mayor"), es.of_the(area)) == (
        "el área", "la mayor área", "del área"
    )  # fmt: skip
    assert (es.of_a(area), es.of_the_plural(area)) == ("de un área", "de las áreas")
    stato, isola, paese = Noun("stato", "m", "stati"), Noun("isola", "f"), Noun("paese", "m")
    assert (it.the(stato), it.of_the(stato), it.of_the_plural(stato), it.of_a(stato)) == (
        "lo stato", "dello stato", "degli stati", "di uno stato"
    )  # fmt: skip
    assert (it.the(isola), it.of_the(isola), it.of_a(isola), it.of_the_plural(isola)) == (
        "l'isola", "dell'isola", "di un'isola", "delle isole"
    )  # fmt: skip
    assert (it.of_the(paese), it.of_the_plural(paese), it.of_the(paese, "seguente")) == (
        "del paese", "dei paesi", "del seguente paese"
    )  # fmt: skip
    pais, cidade = Noun("país", "m", "países"), Noun("cidade", "f")
    assert (pt.of_the(pais), pt.of_the(cidade), pt.of_the_plural(pais)) == (
        "do país", "da cidade", "dos países"
    )  # fmt: skip
    assert pt.of_the_plural(cidade) == "das cidades"
    land, stad = Noun("land", "n", "landen"), Noun("stad", "c", "steden")
    assert (nl.of_the(land), nl.of_the(stad), nl.which(land), nl.which(stad)) == (
        "van het land", "van de stad", "welk land", "welke stad"
    )  # fmt: skip
    assert nl.of_the_plural(land) == "van de landen"


def test_german_nouns_take_their_case_endings():
    de = GRAMMARS["de"]
    assert de.of_the(Noun("Land", "n"), "folgenden") == "des folgenden Landes"
    assert de.of_the(Noun("Stadt", "f"), "folgenden") == "der folgenden Stadt"
    assert de.of_the(Noun("Element", "n")) == "des Elements"
    assert de.of_the(Noun("Fluss", "m")) == "des Flusses"
    assert de.of_the(Noun("Radius", "m")) == "des Radius"
    assert de.of_the(Noun("Planet", "m")) == "des Planeten"  # weak nouns
    assert de.of_the(Noun("Zwergplanet", "m")) == "des Zwergplaneten"
    assert de.of_the(Noun("Name", "m")) == "des Namens"
    assert de.of_the(Noun("Vorgesetzte", "m")) == "des Vorgesetzten"
    assert de.of_the(Noun("See", "m")) == "des Sees"
    assert de.of_the(Noun("BIP", "n")) == "des BIP"
    assert de.which(Noun("Planet", "m")) == "welchem Planeten"  # dative
    assert de.which(Noun("Name", "m")) == "welchem Namen"
    assert de.which(Noun("Stadt", "f")) == "welcher Stadt"
    assert de.of_a(Noun("Auto", "n")) == "eines Autos"
    assert de.of_a(Noun("Probe", "f")) == "einer Probe"
    assert de.the(Noun("Einwohnerzahl", "f"), "durchschnittliche") == (
        "die durchschnittliche Einwohnerzahl"
    )
    assert de.of_the(Noun("maximale Wert", "m")) == "des maximalen Wertes"
    assert de.form(Noun("maximale Wert", "m"), "strong") == "maximaler Wert"  # dessen ...


@pytest.mark.parametrize(
    ("language", "singular", "gender", "plural"),
    [
        ("es", "canción", "f", "canciones"), ("es", "país", "m", "países"),
        ("es", "origen", "m", "orígenes"), ("es", "luz", "f", "luces"),
        ("es", "análisis", "m", "análisis"), ("es", "nave espacial", "f", "naves espaciales"),
        ("es", "raza de perro", "f", "razas de perro"), ("it", "lago", "m", "laghi"),
        ("it", "banca", "f", "banche"), ("it", "pianeta", "m", "pianeti"),
        ("it", "stadio", "m", "stadi"), ("it", "città", "f", "città"),
        ("it", "numero atomico", "m", "numeri atomici"), ("it", "arancia", "f", "arance"),
        ("pt", "animal", "m", "animais"), ("pt", "papel", "m", "papéis"),
        ("pt", "nível", "m", "níveis"), ("pt", "mês", "m", "meses"),
        ("pt", "país-sede", "m", "países-sede"), ("pt", "vice-campeão", "m", "vice-campeões"),
    ],
)  # fmt: skip
def test_romance_plurals_follow_the_rules(language, singular, gender, plural):
    assert GRAMMARS[language].plural(Noun(singular, gender)) == plural


@pytest.mark.parametrize(
    ("english", "words"),
    [
        ("country", {"de": "Land", "es": "país", "it": "paese", "nl": "land", "pt": "país"}),
        ("number of moons", {"de": "Anzahl der Monde", "es": "número de lunas",
                             "it": "numero di lune", "nl": "aantal manen",
                             "pt": "número de luas"}),
        ("titles", {"de": "Anzahl der Titel", "es": "número de títulos",
                    "it": "numero di titoli", "nl": "aantal titels", "pt": "número de títulos"}),
        ("maximum temperature (°C)", {"de": "Maximaltemperatur (°C)",
                                      "es": "temperatura máxima (°C)",
                                      "it": "temperatura massima (°C)",
                                      "nl": "maximale temperatuur (°C)",
                                      "pt": "temperatura máxima (°C)"}),
        ("average wind speed", {"de": "Durchschnittswindgeschwindigkeit",
                                "es": "velocidad media del viento",
                                "it": "velocità media del vento",
                                "nl": "gemiddelde windsnelheid",
                                "pt": "velocidade média do vento"}),
        ("birth date", {"de": "Geburtsdatum", "es": "fecha de nacimiento",
                        "it": "data di nascita", "nl": "geboortedatum",
                        "pt": "data de nascimento"}),
        ("premiere date", {"de": "Datum der Uraufführung", "es": "fecha de estreno",
                           "it": "data di prima rappresentazione", "nl": "datum van de première",
                           "pt": "data de estreia"}),
        ("french name", {"de": "Name auf Französisch", "es": "nombre en francés",
                         "it": "nome in francese", "nl": "naam in het Frans",
                         "pt": "nome em francês"}),
        ("weight in lbs", {"de": "Gewicht (lbs)", "es": "peso (lbs)", "it": "peso (lbs)",
                           "nl": "gewicht (lbs)", "pt": "peso (lbs)"}),
    ],
)  # fmt: skip
def test_the_lexicon_names_and_composes_column_words(english, words):
    assert {code: lexicon_noun(english, code).text for code in words} == words
    assert lexicon_noun("champion wins", "de") is None  # a plural head is not guessed


def test_closed_values_are_translated():
    assert [translate_value(v, "de") for v in ("yes", "Rain", "north", "benign")] == [
        "ja", "Regen", "Norden", "gutartig"
    ]  # fmt: skip
    assert [translate_value(v, "es") for v in ("Yes", "drizzle", "autumn")] == [
        "Sí", "llovizna", "otoño"
    ]  # fmt: skip
    assert [translate_value(v, "it") for v in ("fog", "summer", "false")] == [
        "nebbia", "estate", "falso"
    ]  # fmt: skip
    assert [translate_value(v, "nl") for v in ("snow", "Sun", "malignant")] == [
        "sneeuw", "Zon", "kwaadaardig"
    ]  # fmt: skip
    assert [translate_value(v, "pt") for v in ("no", "east", "Sunny")] == [
        "não", "leste", "Ensolarado"
    ]  # fmt: skip
