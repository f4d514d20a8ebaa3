"""Intents written in Italian, Dutch or Portuguese (and the German and Spanish gaps filled).

Each language is recognised by its function words, also next to its neighbours (Spanish
and Portuguese, Italian and Spanish, Dutch and German), and glossed into the English cue
words the planner reads: a count with a filter, an aggregate and a superlative are
planned from an intent in each language as from its English.
"""

from __future__ import annotations

import pytest

from benchsmith.catalog.cards import FieldInfo
from benchsmith.programs import Refusal, plan
from benchsmith.programs.gloss import intent_language, to_english
from benchsmith.programs.table import Table, build_table

ITALIAN = (
    "Mostra una tabella con una decina di giorni di meteo a Seattle e chiedi quanti di quei "
    "giorni sono stati di pioggia. Domande in italiano.",
    "Per la mia classe di geografia: dato un paese, chiedi qual è la sua capitale, con "
    "quattro opzioni e senza tabella.",
    "Mostra i dati di una decina di pazienti e chiedi quanti di loro hanno un indice di "
    "massa corporea superiore a 30.",
    "Fai vedere cinque giorni del registro meteo e chiedi quale giorno ha avuto le "
    "precipitazioni più alte.",
    "Domande a memoria: quale dei due paesi ha la popolazione più grande?",
    "Mostra alcune auto con i loro dati e chiedi qual è la media dei cavalli delle auto europee.",
    "Chiedi in quale continente si trova un paese dato, senza mostrare la tabella. Risposta breve.",
    "Per ogni paese chiedi qual è l'aspettativa di vita media alla nascita. Domande in italiano.",
)
DUTCH = (
    "Laat een tabel zien met tien dagen weer in Seattle en vraag hoeveel van die dagen "
    "regen hadden.",
    "Noem twee landen en vraag welk van de twee het grootste inwonertal heeft. Geen tabel "
    "tonen, uit het hoofd.",
    "Toon de gegevens van een stuk of tien patiënten en vraag hoeveel van hen een BMI hoger "
    "dan 30 hebben.",
    "Geef een land en vraag wat de hoofdstad is, met vier antwoordopties.",
    "Laat een paar auto's zien en vraag wat het gemiddelde gewicht van de Europese auto's is.",
    "Maak meerkeuzevragen in het Nederlands: in welk werelddeel ligt een gegeven land?",
    "Laat een tabel zien met een aantal landen uit Oceanië en hun inwonertal, en vraag "
    "hoeveel inwoners die landen samen hebben. Vragen in het Nederlands.",
    "Classificatietaak: geef voor één dag in Seattle de neerslag, de maximum- en "
    "minimumtemperatuur en de windsnelheid, en laat het model raden welk weertype die dag "
    "genoteerd werd. Zonder voorbeelden, vragen in het Nederlands.",
)
PORTUGUESE = (
    "Mostre uma tabela com dez dias de clima em Seattle e pergunte quantos desses dias "
    "tiveram chuva.",
    "Quero perguntas em português: dado um país, qual é a sua capital? Sem tabela, de memória.",
    "Mostre os dados de uma dezena de pacientes e pergunte quantos deles têm um IMC acima de 30.",
    "Mostre alguns carros e pergunte qual é a média de cavalos dos carros europeus.",
    "Apresente dois países e pergunte qual dos dois tem a maior população.",
    "Para cada aeroporto da lista, pergunte em que estado ele fica. Múltipla escolha com "
    "quatro alternativas.",
    "Mostre uma lista de dez aeroportos americanos com o estado de cada um e pergunte "
    "quantos deles ficam no Texas. Perguntas em português.",
    "Quero um questionário em português só com países das Américas: para cada país, "
    "perguntar qual é a moeda usada lá. Quatro alternativas por pergunta, sem mostrar tabela.",
)
CONFUSABLE = (
    # Spanish and Portuguese: "de", "cada", "para", "o" in both.
    ("Muestra una tabla con diez países y pregunta cuántos de ellos están en África.", "es"),
    ("Mostre uma tabela com dez países e pergunte quantos deles estão na África.", "pt"),
    ("Para cada país, pregunta cuál es su moneda, sin tabla.", "es"),
    ("Para cada país, pergunte qual é a sua moeda, sem tabela.", "pt"),
    # Italian and Spanish: "la", "una", "con", "del" in both.
    ("Mostra una tabella con dieci paesi e chiedi quanti di loro sono in Africa.", "it"),
    ("Muestra una tabla con diez países y pregunta cuántos de ellos son de África.", "es"),
    ("Chiedi qual è la capitale del paese, con la risposta in italiano.", "it"),
    # Dutch and German: "die", "in", "wie" in both.
    ("Laat een tabel met tien landen zien en vraag hoeveel daarvan in Afrika liggen.", "nl"),
    ("Zeig eine Tabelle mit zehn Ländern und frag, wie viele davon in Afrika liegen.", "de"),
    ("Wie van de twee landen heeft de grootste bevolking? Geen tabel.", "nl"),
    ("Welches der beiden Länder hat die größte Bevölkerung? Keine Tabelle.", "de"),
)
ENGLISH = (
    # English intents that name Italian, Dutch or Portuguese things stay English.
    "Show a table of Italian cities (Roma, Milano, Napoli) and ask which has the largest "
    "population.",
    "Ask who painted a given work: Vincent van Gogh, Leonardo da Vinci or Rembrandt van Rijn.",
    "Questions in Portuguese about Brazilian cities like Rio de Janeiro and São Paulo.",
    "Give the Dutch name of a country (e.g. Nederland, België) and ask for its capital.",
    "No table: which of the two Portuguese rivers is longer, the Douro or the Tejo?",
    "Show a few seasons and ask which team won.",
)


@pytest.mark.parametrize(
    ("texts", "code"), [(ITALIAN, "it"), (DUTCH, "nl"), (PORTUGUESE, "pt")], ids=str
)
def test_italian_dutch_and_portuguese_intents_are_recognised(texts, code):
    assert [intent_language(t) for t in texts] == [code] * len(texts)


@pytest.mark.parametrize(("text", "code"), CONFUSABLE)
def test_neighbouring_languages_are_told_apart(text, code):
    assert intent_language(text) == code


@pytest.mark.parametrize("text", ENGLISH)
def test_english_intents_with_foreign_names_stay_english(text):
    assert intent_language(text) == "en"
    assert to_english(text, "en") == text


@pytest.mark.parametrize(
    ("text", "code", "cues"),
    [
        (ITALIAN[0], "it", ["show a table", "how many", "rain", "questions in italian"]),
        (ITALIAN[1], "it", ["given a country", "capital", "four options", "without the table"]),
        (ITALIAN[2], "it", ["how many of them", "bmi greater than 30"]),
        (ITALIAN[3], "it", ["show", "five days", "precipitation highest"]),
        (ITALIAN[4], "it", ["from memory", "which of the two", "population largest"]),
        (ITALIAN[5], "it", ["average", "horsepower", "european"]),
        (
            "Chiedi quale paese ha il maggior numero di abitanti, a scelta multipla.",
            "it",
            ["the most", "inhabitants", "multiple choice"],
        ),
        (
            "Quanti giorni hanno avuto neve o più di 10 mm di precipitazioni prima del 2013?",
            "it",
            ["how many", "snow", "more than 10", "precipitation", "before 2013"],
        ),
        (
            "Chiedi la somma totale della popolazione, o il valore minimo, senza tabella.",
            "it",
            ["sum", "total", "population", "minimum value", "without the table"],
        ),
        (DUTCH[0], "nl", ["show a table", "ten days", "how many of", "rain"]),
        (DUTCH[1], "nl", ["which of the two", "largest population", "no table", "from memory"]),
        (DUTCH[2], "nl", ["how many of them", "bmi higher than 30"]),
        (DUTCH[4], "nl", ["show", "average weight", "european cars"]),
        (DUTCH[6], "nl", ["show a table", "oceania", "population", "combined"]),
        (DUTCH[7], "nl", ["precipitation", "maximum temperature", "minimum temperature"]),
        (
            "Vraag welke luchthaven de meeste passagiers heeft, of de minste; in totaal "
            "minder dan twaalf vragen, zonder tabel.",
            "nl",
            ["airport", "the most", "the least", "in total", "less than twelve"],
        ),
        (
            "Hoeveel dagen met sneeuw of meer dan 5 mm neerslag waren er vóór 2013?",
            "nl",
            ["how many", "snow", "more than 5", "precipitation", "before 2013"],
        ),
        (PORTUGUESE[0], "pt", ["show a table", "ten days", "how many of these", "rain"]),
        (PORTUGUESE[1], "pt", ["questions in portuguese", "capital", "from memory"]),
        (PORTUGUESE[2], "pt", ["how many of them", "bmi above 30"]),
        (PORTUGUESE[3], "pt", ["average", "horsepower", "european"]),
        (PORTUGUESE[4], "pt", ["which of the two", "largest population"]),
        (
            "Mostre uma semana e pergunte quantos dias tiveram mais de 5 mm de precipitação "
            "depois de 2012, ou o total de neve.",
            "pt",
            ["show a week", "how many", "more than 5", "after 2012", "total", "snow"],
        ),
        (
            "Pergunte qual é a população do país com a menor área, de memória, sem tabela.",
            "pt",
            ["what is", "population", "smallest area", "from memory", "without the table"],
        ),
        # German and Spanish gaps filled.
        (
            "Zeig ein paar Tage und frag, an welchem Tag es am meisten geregnet hat, wie "
            "viele Tage Schnee hatten und den Durchschnitt der Höchsttemperatur. Keine "
            "Tabelle.",
            "de",
            [
                "show a few",
                "the most",
                "how many",
                "snow",
                "average",
                "maximum temperature",
                "no table",
            ],
        ),
        (
            "Muestra unos diez días del registro meteorológico de Seattle y pregunta cuántos "
            "de esos días fueron de lluvia.",
            "es",
            ["show about ten days", "weather log", "how many of those days", "rain"],
        ),
    ],
)
def test_the_gloss_holds_the_planners_cue_words(text, code, cues):
    assert intent_language(text) == code
    english = to_english(text, code)
    for cue in cues:
        assert cue in english, (cue, english)


def test_glosses_are_whole_phrases_and_read_once():
    # A phrase inside a longer word is no phrase: "sem" in "semana", "meer" in "meerkeuze".
    assert to_english("Mostre uma semana", "pt") == "show a week"
    assert "more" not in to_english("Meerkeuzevragen, vier opties", "nl")
    assert "average" not in to_english("la classe di multimedia", "it")
    # English words of a glossed phrase are not glossed again ("of" is Dutch for "or").
    assert to_english("welke van de twee", "nl") == "which of the two"
    assert to_english("twee of drie", "nl") == "two or three"
    assert to_english("il paese e la capitale", "it") == "the country and the capital"
    # Letters of answer options are no words: Portuguese "a", Spanish "a".
    assert to_english("A resposta é sempre A", "pt") == "a answer is sempre a"
    assert to_english("La respuesta es siempre A", "es") == "the answer is siempre a"


# -- planned end to end over small tables


def make(name: str, columns: dict[str, str], rows: list[tuple]) -> Table:
    records = [dict(zip(columns, row, strict=True)) for row in rows]
    fields = [FieldInfo(path=c, modality=m) for c, m in columns.items()]  # type: ignore[arg-type]
    return build_table(name, records, fields)


def weather() -> Table:
    columns = {"date": "text", "precipitation": "number", "temp_max": "number"}
    columns |= {"temp_min": "number", "wind": "number", "weather": "category"}
    rows = [
        ("2012-01-01", 0.0, 12.8, 5.0, 4.7, "drizzle"),
        ("2012-01-02", 10.9, 10.6, 2.8, 4.5, "rain"),
        ("2012-01-03", 0.8, 11.7, 7.2, 2.3, "rain"),
        ("2012-01-04", 20.3, 12.2, 5.6, 4.7, "rain"),
        ("2012-01-05", 1.3, 8.9, 2.8, 6.1, "rain"),
        ("2012-01-06", 0.0, 6.1, -1.1, 5.1, "sun"),
        ("2012-01-07", 0.0, 6.1, -1.7, 1.9, "sun"),
        ("2012-01-08", 4.1, 4.4, 0.6, 5.3, "snow"),
        ("2012-01-09", 5.3, 1.1, -3.3, 3.2, "snow"),
        ("2012-01-10", 0.0, 8.3, 1.7, 2.6, "sun"),
        ("2012-01-11", 2.5, 11.1, 7.8, 2.4, "fog"),
        ("2012-01-12", 3.0, 8.3, 3.3, 8.2, "rain"),
    ]
    return make("seattle_weather", columns, rows)


def countries() -> Table:
    columns = {"name": "text", "capital": "text", "region": "category"}
    columns |= {"population": "number", "area_km2": "number"}
    rows = [
        ("Italy", "Rome", "Europe", 59_000_000, 301_340),
        ("Netherlands", "Amsterdam", "Europe", 17_800_000, 41_850),
        ("Portugal", "Lisbon", "Europe", 10_300_000, 92_212),
        ("Brazil", "Brasília", "Americas", 214_000_000, 8_515_767),
        ("Canada", "Ottawa", "Americas", 38_000_000, 9_984_670),
        ("Kenya", "Nairobi", "Africa", 54_000_000, 580_367),
        ("Egypt", "Cairo", "Africa", 104_000_000, 1_002_450),
        ("Japan", "Tokyo", "Asia", 125_000_000, 377_975),
        ("Australia", "Canberra", "Oceania", 25_700_000, 7_692_024),
        ("Fiji", "Suva", "Oceania", 900_000, 18_274),
    ]
    return make("countries", columns, rows)


def patients() -> Table:
    columns = {"patient_id": "number", "age": "number", "glucose": "number", "bmi": "number"}
    rows = [
        (1, 50, 148, 33.6), (2, 31, 85, 26.6), (3, 32, 183, 23.3), (4, 21, 89, 28.1),
        (5, 33, 137, 43.1), (6, 30, 116, 25.6), (7, 26, 78, 31.0), (8, 29, 115, 35.3),
        (9, 53, 197, 30.5), (10, 54, 125, 37.6),
    ]  # fmt: skip
    outcomes = [(*row, "yes" if row[0] % 2 else "no") for row in rows]
    return make("patients", {**columns, "outcome": "category"}, outcomes)


def cars() -> Table:
    columns = {"Name": "text", "Miles_per_Gallon": "number", "Cylinders": "number"}
    columns |= {"Horsepower": "number", "Weight_in_lbs": "number", "Origin": "category"}
    rows = [
        ("chevrolet chevelle malibu", 18, 8, 130, 3504, "USA"),
        ("buick skylark 320", 15, 8, 165, 3693, "USA"),
        ("toyota corona mark ii", 24, 4, 95, 2372, "Japan"),
        ("plymouth duster", 22, 6, 95, 2833, "USA"),
        ("datsun pl510", 27, 4, 88, 2130, "Japan"),
        ("volkswagen 1131 deluxe sedan", 26, 4, 46, 1835, "Europe"),
        ("peugeot 504", 25, 4, 87, 2672, "Europe"),
        ("audi 100 ls", 24, 4, 90, 2430, "Europe"),
    ]
    return make("cars", columns, rows)


TABLES = {"weather": weather, "countries": countries, "patients": patients, "cars": cars}


def top(intent: str, table: Table):
    found = plan(intent, {table.id: table}, table.id)
    assert not isinstance(found, Refusal), found
    return found[0].spec


def conditions(spec) -> list[tuple[str, str, str]]:
    return [(c.field, c.op, str(c.value)) for c in spec.conditions]


COUNTS = [
    # (language, table, intent, conditions)
    ("it", "weather", ITALIAN[0], [("weather", "==", "rain")]),
    ("it", "patients", ITALIAN[2], [("bmi", ">", "30.0")]),
    ("nl", "weather", DUTCH[0], [("weather", "==", "rain")]),
    ("nl", "patients", DUTCH[2], [("bmi", ">", "30.0")]),
    ("pt", "weather", PORTUGUESE[0], [("weather", "==", "rain")]),
    ("pt", "patients", PORTUGUESE[2], [("bmi", ">", "30.0")]),
    (
        "pt",
        "countries",
        "Mostre uma tabela com dez países e pergunte quantos deles ficam na África.",
        [("region", "==", "Africa")],
    ),
    (
        "es",
        "weather",
        "Muestra unos diez días del registro meteorológico de Seattle (fecha, precipitación, "
        "temperaturas, viento y tipo de tiempo) y pregunta cuántos de esos días fueron de "
        "lluvia. Todo en español, por favor.",
        [("weather", "==", "rain")],
    ),
]


@pytest.mark.parametrize(("code", "table", "intent", "expected"), COUNTS)
def test_a_count_with_a_filter(code, table, intent, expected):
    assert intent_language(intent) == code
    spec = top(intent, TABLES[table]())
    assert (spec.kind, spec.book) == ("count", "open")
    assert conditions(spec) == expected


AGGREGATES = [
    # (language, table, intent, field, aggregate, conditions)
    (
        "it",
        "weather",
        "Mostra una settimana di dati meteo con la temperatura massima di ciascun giorno e "
        "chiedi qual è stata la media delle temperature massime. Risposta numerica.",
        "temp_max",
        "mean",
        [],
    ),
    (
        "it",
        "countries",
        "Mostra alcuni paesi dell'Oceania con la loro popolazione e chiedi quanti abitanti "
        "hanno in totale.",
        "population",
        "sum",
        [("region", "==", "Oceania")],
    ),
    ("it", "cars", ITALIAN[5], "Horsepower", "mean", [("Origin", "==", "Europe")]),
    ("nl", "countries", DUTCH[6], "population", "sum", [("region", "==", "Oceania")]),
    ("nl", "cars", DUTCH[4], "Weight_in_lbs", "mean", [("Origin", "==", "Europe")]),
    ("pt", "cars", PORTUGUESE[3], "Horsepower", "mean", [("Origin", "==", "Europe")]),
    (
        "pt",
        "countries",
        "Mostre uma tabela de países da Europa com a sua população e pergunte qual é a "
        "população total desses países.",
        "population",
        "sum",
        [("region", "==", "Europe")],
    ),
]


@pytest.mark.parametrize(("code", "table", "intent", "field", "aggregate", "expected"), AGGREGATES)
def test_an_aggregate(code, table, intent, field, aggregate, expected):
    assert intent_language(intent) == code
    spec = top(intent, TABLES[table]())
    assert (spec.kind, spec.field, spec.aggregate, spec.book) == (
        "aggregate",
        field,
        aggregate,
        "open",
    )
    assert conditions(spec) == expected


RANKS = [
    # (language, table, intent, kind, field, direction, book)
    (
        "it",
        "countries",
        "Mostra una tabella con cinque paesi e chiedi quale paese è il più popoloso.",
        "superlative",
        "population",
        "max",
        "open",
    ),
    (
        "it",
        "cars",
        "Mostra due auto della tabella e chiedi quale delle due ha più cavalli.",
        "compare",
        "Horsepower",
        "max",
        "open",
    ),
    (
        "nl",
        "weather",
        "Toon vijf dagen uit de tabel en vraag op welke dag de meeste neerslag viel.",
        "superlative",
        "precipitation",
        "max",
        "open",
    ),
    ("nl", "countries", DUTCH[1], "compare", "population", "max", "closed"),
    (
        "pt",
        "weather",
        "Mostre cinco dias da tabela e pergunte qual dia teve a maior precipitação.",
        "superlative",
        "precipitation",
        "max",
        "open",
    ),
    (
        "pt",
        "cars",
        "Mostre dois carros e pergunte qual dos dois é o mais leve, sem tabela.",
        "compare",
        "Weight_in_lbs",
        "min",
        "closed",
    ),
    (
        "pt",
        "countries",
        "Mostre uma lista de países da África com a sua população e pergunte qual deles é o "
        "mais populoso.",
        "superlative",
        "population",
        "max",
        "open",
    ),
]


@pytest.mark.parametrize(("code", "table", "intent", "kind", "field", "direction", "book"), RANKS)
def test_a_superlative_or_a_comparison(code, table, intent, kind, field, direction, book):
    assert intent_language(intent) == code
    spec = top(intent, TABLES[table]())
    assert (spec.kind, spec.field, spec.direction, spec.book) == (kind, field, direction, book)


def test_a_lookup_from_memory_in_each_language():
    table = countries()
    for intent in (ITALIAN[1], DUTCH[3], PORTUGUESE[1]):
        spec = top(intent, table)
        assert (spec.kind, spec.key_field, spec.answer_field) == ("lookup", "name", "capital")
    assert top(PORTUGUESE[1], table).book == "closed"
    assert top(DUTCH[3], table).answer_format == "multiple_choice"


def test_a_classification_in_dutch():
    spec = top(DUTCH[7], weather())
    assert (spec.kind, spec.answer_field, spec.book) == ("classify", "weather", "closed")
