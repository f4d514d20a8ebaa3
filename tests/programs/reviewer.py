"""An independent, strict reviewer of benchmark items built from the test corpus.

It shares no code with ``benchsmith``: it reads the corpus tables itself with the standard
library and recomputes, for one item of a benchmark's ``data/test.jsonl``, what the item's
program claims (the looked-up value, the winner of a comparison, a count or an aggregate, a
classification, a chain of hops), then checks the prompt against the data (no record missing
from an open-book table, no answer given away in a closed-book question), the choices, the
intent the item was built for, and the language.

``review_item(item, intent, corpus_dir)`` returns the problems found; an empty list means the
item is accepted. Every problem starts with a short tag (``rows:``, ``winner:``, ``intent:`` ...)
so that tests can tell which check fired.

The item contract assumed beyond the brief:

* ``metadata.program.rows`` index the data rows of the item's primary table: ``program.table``
  when given, else the first hop's table for a multihop, else the intent's first table.
* For a lookup the subject is the shown record whose key value the question names; for a
  classify it is the record in ``rows`` whose values equal ``features`` (an open-book classify
  may show other labelled records, but not the subject with its label).
* ``kind == "count"`` means ``aggregate == "count"`` when ``aggregate`` is null.
* For a multihop, ``key_field`` is the first hop's key column and ``answer_field`` the last hop's
  ``field``. A condition on a column that only a hop's table has (``language == "pl"`` of
  ``country-names-multilingual``) selects that hop's record.
* A multihop with ``direction`` (and ``field``) set ranks first, then reports: ``rows`` are the
  ``k`` compared records of ``program.table``, the winner is recomputed from the data (a tie for
  the top, or a compared record without the value, is a problem), the first of its one or more
  hops starts from the winner, and each compared record is named in a closed-book question or
  has its line, with its ranked value, in an open-book table. A multihop without ``direction``
  needs at least two hops.

Starter tables. An intent over benchsmith's starter catalog (no ``--dataset``) names tables
such as ``world-countries`` or ``vega-cars``; :mod:`starter_data` (a sibling module that does
not use benchsmith either) rebuilds them from the packages that ship them, in the catalog's
record order. ``review_item(..., starter=None)`` reads them when the intent names a starter
table that is not a corpus table, or, for an id both have (``iris``), when the program names
a column only the starter table has; ``starter=True``/``False`` decides instead. Their nested
objects are columns of their own (``names.de``) and their lists one cell (``"FRA, ESP"``).

Languages. Values are accepted in an item's language by their CLDR names (:data:`CLDR`,
then babel's territory names when babel is installed, then the names a starter table gives
its values: ``names.de``, ``capital_names.fr``, CLDR currency names), and the question's
language is read from stopwords and, when ``lingua-language-detector`` is installed, its
detector, for en, fr, de, es, it, nl and pt.

Drawn questions. A question drawn as a picture carries the lines drawn in
``metadata.rendered_text``; the row checks read those lines, so they are not taken on trust:
given the benchmark folder (``review_item(..., bench_dir=...)``) and the ``tesseract`` program
(Debian ``tesseract-ocr``; Pillow, when importable, only upscales the picture 2x first), the
reviewer reads the picture and rejects with ``ocr:`` a picture that is missing or unreadable,
or whose text disagrees with ``rendered_text`` (the rule: :func:`ocr_problems`). Without
``bench_dir`` or ``tesseract`` the picture is not read and ``rendered_text`` is still taken
on trust, as before: that is a skipped check, not a passed one, and :func:`ocr_skipped` names
the reason for a caller to count such items apart.
"""

from __future__ import annotations

import csv
import dataclasses
import difflib
import json
import math
import re
import shutil
import subprocess
import tempfile
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

KINDS = frozenset(
    {
        "lookup",
        "filtered_lookup",
        "compare",
        "superlative",
        "count",
        "aggregate",
        "classify",
        "multihop",
    }
)
BOOKS = frozenset({"closed", "open"})
OPS = frozenset({"==", "!=", "<", "<=", ">", ">="})
AGGREGATES = frozenset({"count", "mean", "median", "sum", "min", "max"})
DIRECTIONS = frozenset({"max", "min"})

# CLDR display names (English -> language) of the continents/regions and the countries used in
# the corpus. A set holds every accepted spelling; the first listed is CLDR's own.
CLDR: dict[str, dict[str, tuple[str, ...]]] = {
    "fr": {
        "Europe": ("Europe",),
        "Asia": ("Asie",),
        "Africa": ("Afrique",),
        "Oceania": ("Océanie",),
        "Americas": ("Amériques",),
        "North America": ("Amérique du Nord",),
        "South America": ("Amérique du Sud",),
        "France": ("France",),
        "Germany": ("Allemagne",),
        "Italy": ("Italie",),
        "Spain": ("Espagne",),
        "United Kingdom": ("Royaume-Uni",),
        "Switzerland": ("Suisse",),
        "Sweden": ("Suède",),
        "Poland": ("Pologne",),
        "Austria": ("Autriche",),
        "Russia": ("Russie",),
        "Finland": ("Finlande",),
        "Netherlands": ("Pays-Bas",),
        "Japan": ("Japon",),
        "China": ("Chine",),
        "India": ("Inde",),
        "South Korea": ("Corée du Sud",),
        "Indonesia": ("Indonésie",),
        "Thailand": ("Thaïlande",),
        "Nigeria": ("Nigeria", "Nigéria"),
        "Egypt": ("Égypte",),
        "South Africa": ("Afrique du Sud",),
        "Kenya": ("Kenya",),
        "Morocco": ("Maroc",),
        "United States": ("États-Unis",),
        "Canada": ("Canada",),
        "Mexico": ("Mexique",),
        "Brazil": ("Brésil",),
        "Argentina": ("Argentine",),
        "Chile": ("Chili",),
        "Australia": ("Australie",),
        "New Zealand": ("Nouvelle-Zélande",),
    },
    "de": {
        "Europe": ("Europa",),
        "Asia": ("Asien",),
        "Africa": ("Afrika",),
        "Oceania": ("Ozeanien",),
        "Americas": ("Amerika",),
        "North America": ("Nordamerika",),
        "South America": ("Südamerika",),
        "France": ("Frankreich",),
        "Germany": ("Deutschland",),
        "Italy": ("Italien",),
        "Spain": ("Spanien",),
        "United Kingdom": ("Vereinigtes Königreich",),
        "Switzerland": ("Schweiz",),
        "Sweden": ("Schweden",),
        "Poland": ("Polen",),
        "Austria": ("Österreich",),
        "Russia": ("Russland",),
        "Finland": ("Finnland",),
        "Netherlands": ("Niederlande",),
        "Japan": ("Japan",),
        "China": ("China",),
        "India": ("Indien",),
        "South Korea": ("Südkorea",),
        "Indonesia": ("Indonesien",),
        "Thailand": ("Thailand",),
        "Nigeria": ("Nigeria",),
        "Egypt": ("Ägypten",),
        "South Africa": ("Südafrika",),
        "Kenya": ("Kenia",),
        "Morocco": ("Marokko",),
        "United States": ("Vereinigte Staaten",),
        "Canada": ("Kanada",),
        "Mexico": ("Mexiko",),
        "Brazil": ("Brasilien",),
        "Argentina": ("Argentinien",),
        "Chile": ("Chile",),
        "Australia": ("Australien",),
        "New Zealand": ("Neuseeland",),
    },
    "es": {
        "Europe": ("Europa",),
        "Asia": ("Asia",),
        "Africa": ("África",),
        "Oceania": ("Oceanía",),
        "Americas": ("América",),
        "North America": ("América del Norte", "Norteamérica"),
        "South America": ("Sudamérica", "América del Sur", "Suramérica"),
        "France": ("Francia",),
        "Germany": ("Alemania",),
        "Italy": ("Italia",),
        "Spain": ("España",),
        "United Kingdom": ("Reino Unido",),
        "Switzerland": ("Suiza",),
        "Sweden": ("Suecia",),
        "Poland": ("Polonia",),
        "Austria": ("Austria",),
        "Russia": ("Rusia",),
        "Finland": ("Finlandia",),
        "Netherlands": ("Países Bajos",),
        "Japan": ("Japón",),
        "China": ("China",),
        "India": ("India",),
        "South Korea": ("Corea del Sur",),
        "Indonesia": ("Indonesia",),
        "Thailand": ("Tailandia",),
        "Nigeria": ("Nigeria",),
        "Egypt": ("Egipto",),
        "South Africa": ("Sudáfrica",),
        "Kenya": ("Kenia",),
        "Morocco": ("Marruecos",),
        "United States": ("Estados Unidos",),
        "Canada": ("Canadá",),
        "Mexico": ("México",),
        "Brazil": ("Brasil",),
        "Argentina": ("Argentina",),
        "Chile": ("Chile",),
        "Australia": ("Australia",),
        "New Zealand": ("Nueva Zelanda",),
    },
    "it": {
        "Europe": ("Europa",),
        "Asia": ("Asia",),
        "Africa": ("Africa",),
        "Oceania": ("Oceania",),
        "Americas": ("Americhe", "America"),
        "North America": ("Nord America", "America del Nord", "Nordamerica"),
        "South America": ("America del Sud", "Sudamerica", "Sud America"),
        "France": ("Francia",),
        "Germany": ("Germania",),
        "Italy": ("Italia",),
        "Spain": ("Spagna",),
        "United Kingdom": ("Regno Unito",),
        "Switzerland": ("Svizzera",),
        "Sweden": ("Svezia",),
        "Poland": ("Polonia",),
        "Austria": ("Austria",),
        "Russia": ("Russia",),
        "Finland": ("Finlandia",),
        "Netherlands": ("Paesi Bassi", "Olanda"),
        "Japan": ("Giappone",),
        "China": ("Cina",),
        "India": ("India",),
        "South Korea": ("Corea del Sud",),
        "Indonesia": ("Indonesia",),
        "Thailand": ("Thailandia", "Tailandia"),
        "Nigeria": ("Nigeria",),
        "Egypt": ("Egitto",),
        "South Africa": ("Sudafrica",),
        "Kenya": ("Kenya",),
        "Morocco": ("Marocco",),
        "United States": ("Stati Uniti",),
        "Canada": ("Canada",),
        "Mexico": ("Messico",),
        "Brazil": ("Brasile",),
        "Argentina": ("Argentina",),
        "Chile": ("Cile",),
        "Australia": ("Australia",),
        "New Zealand": ("Nuova Zelanda",),
    },
    "nl": {
        "Europe": ("Europa",),
        "Asia": ("Azië",),
        "Africa": ("Afrika",),
        "Oceania": ("Oceanië",),
        "Americas": ("Amerika",),
        "North America": ("Noord-Amerika",),
        "South America": ("Zuid-Amerika",),
        "France": ("Frankrijk",),
        "Germany": ("Duitsland",),
        "Italy": ("Italië",),
        "Spain": ("Spanje",),
        "United Kingdom": ("Verenigd Koninkrijk",),
        "Switzerland": ("Zwitserland",),
        "Sweden": ("Zweden",),
        "Poland": ("Polen",),
        "Austria": ("Oostenrijk",),
        "Russia": ("Rusland",),
        "Finland": ("Finland",),
        "Netherlands": ("Nederland",),
        "Japan": ("Japan",),
        "China": ("China",),
        "India": ("India",),
        "South Korea": ("Zuid-Korea",),
        "Indonesia": ("Indonesië",),
        "Thailand": ("Thailand",),
        "Nigeria": ("Nigeria",),
        "Egypt": ("Egypte",),
        "South Africa": ("Zuid-Afrika",),
        "Kenya": ("Kenia",),
        "Morocco": ("Marokko",),
        "United States": ("Verenigde Staten",),
        "Canada": ("Canada",),
        "Mexico": ("Mexico",),
        "Brazil": ("Brazilië",),
        "Argentina": ("Argentinië",),
        "Chile": ("Chili",),
        "Australia": ("Australië",),
        "New Zealand": ("Nieuw-Zeeland",),
    },
    # Brazilian Portuguese (CLDR's "pt") first, then the European spelling where it differs.
    "pt": {
        "Europe": ("Europa",),
        "Asia": ("Ásia",),
        "Africa": ("África",),
        "Oceania": ("Oceania", "Oceânia"),
        "Americas": ("Américas", "América"),
        "North America": ("América do Norte",),
        "South America": ("América do Sul",),
        "France": ("França",),
        "Germany": ("Alemanha",),
        "Italy": ("Itália",),
        "Spain": ("Espanha",),
        "United Kingdom": ("Reino Unido",),
        "Switzerland": ("Suíça",),
        "Sweden": ("Suécia",),
        "Poland": ("Polônia", "Polónia"),
        "Austria": ("Áustria",),
        "Russia": ("Rússia",),
        "Finland": ("Finlândia",),
        "Netherlands": ("Países Baixos", "Holanda"),
        "Japan": ("Japão",),
        "China": ("China",),
        "India": ("Índia",),
        "South Korea": ("Coreia do Sul",),
        "Indonesia": ("Indonésia",),
        "Thailand": ("Tailândia",),
        "Nigeria": ("Nigéria",),
        "Egypt": ("Egito", "Egipto"),
        "South Africa": ("África do Sul",),
        "Kenya": ("Quênia", "Quénia"),
        "Morocco": ("Marrocos",),
        "United States": ("Estados Unidos",),
        "Canada": ("Canadá",),
        "Mexico": ("México",),
        "Brazil": ("Brasil",),
        "Argentina": ("Argentina",),
        "Chile": ("Chile",),
        "Australia": ("Austrália",),
        "New Zealand": ("Nova Zelândia",),
    },
}

# Common closed label values and their French names (a French item must give these).
_COMMON_FR = {
    "benign": ("bénin", "bénigne"),
    "malignant": ("malin", "maligne"),
    "yes": ("oui",),
    "no": ("non",),
    "true": ("vrai",),
    "false": ("faux",),
    "positive": ("positif", "positive"),
    "negative": ("négatif", "négative"),
    # Weather types (the held-out-5 daily log).
    "rain": ("pluie",),
    "sun": ("soleil",),
    "snow": ("neige",),
    "fog": ("brouillard",),
    "drizzle": ("bruine",),
}
# Languages as values of the data (CLDR's French names).
_COMMON_FR.update(
    {
        "English": ("anglais",),
        "French": ("français",),
        "German": ("allemand",),
        "Italian": ("italien",),
        "Spanish": ("espagnol",),
        "Russian": ("russe",),
        "Czech": ("tchèque",),
        "Japanese": ("japonais",),
        "Portuguese": ("portugais",),
    }
)
for _english, _names in _COMMON_FR.items():
    CLDR["fr"].setdefault(_english, _names)
    CLDR["fr"].setdefault(_english.capitalize(), tuple(n.capitalize() for n in _names))

# The same labels in the other languages items are written in (the usual words; a label
# with two usual names lists both).
_COMMON: dict[str, dict[str, tuple[str, ...]]] = {
    "de": {
        "benign": ("gutartig",),
        "malignant": ("bösartig",),
        "yes": ("ja",),
        "no": ("nein",),
        "true": ("wahr",),
        "false": ("falsch",),
        "positive": ("positiv",),
        "negative": ("negativ",),
        "rain": ("Regen",),
        "sun": ("Sonne", "sonnig", "Sonnenschein"),
        "snow": ("Schnee",),
        "fog": ("Nebel",),
        "drizzle": ("Nieselregen", "Sprühregen"),
        "English": ("Englisch",),
        "French": ("Französisch",),
        "German": ("Deutsch",),
        "Italian": ("Italienisch",),
        "Spanish": ("Spanisch",),
        "Russian": ("Russisch",),
        "Czech": ("Tschechisch",),
        "Japanese": ("Japanisch",),
        "Portuguese": ("Portugiesisch",),
    },
    "es": {
        "benign": ("benigno", "benigna"),
        "malignant": ("maligno", "maligna"),
        "yes": ("sí",),
        "no": ("no",),
        "true": ("verdadero",),
        "false": ("falso",),
        "positive": ("positivo", "positiva"),
        "negative": ("negativo", "negativa"),
        "rain": ("lluvia",),
        "sun": ("sol", "soleado"),
        "snow": ("nieve",),
        "fog": ("niebla",),
        "drizzle": ("llovizna",),
        "English": ("inglés",),
        "French": ("francés",),
        "German": ("alemán",),
        "Italian": ("italiano",),
        "Spanish": ("español",),
        "Russian": ("ruso",),
        "Czech": ("checo",),
        "Japanese": ("japonés",),
        "Portuguese": ("portugués",),
    },
    "it": {
        "benign": ("benigno", "benigna"),
        "malignant": ("maligno", "maligna"),
        "yes": ("sì",),
        "no": ("no",),
        "true": ("vero",),
        "false": ("falso",),
        "positive": ("positivo", "positiva"),
        "negative": ("negativo", "negativa"),
        "rain": ("pioggia",),
        "sun": ("sole", "soleggiato"),
        "snow": ("neve",),
        "fog": ("nebbia",),
        "drizzle": ("pioviggine", "pioggerella"),
        "English": ("inglese",),
        "French": ("francese",),
        "German": ("tedesco",),
        "Italian": ("italiano",),
        "Spanish": ("spagnolo",),
        "Russian": ("russo",),
        "Czech": ("ceco",),
        "Japanese": ("giapponese",),
        "Portuguese": ("portoghese",),
    },
    "nl": {
        "benign": ("goedaardig",),
        "malignant": ("kwaadaardig",),
        "yes": ("ja",),
        "no": ("nee",),
        "true": ("waar",),
        "false": ("onwaar",),
        "positive": ("positief",),
        "negative": ("negatief",),
        "rain": ("regen",),
        "sun": ("zon", "zonnig"),
        "snow": ("sneeuw",),
        "fog": ("mist",),
        "drizzle": ("motregen",),
        "English": ("Engels",),
        "French": ("Frans",),
        "German": ("Duits",),
        "Italian": ("Italiaans",),
        "Spanish": ("Spaans",),
        "Russian": ("Russisch",),
        "Czech": ("Tsjechisch",),
        "Japanese": ("Japans",),
        "Portuguese": ("Portugees",),
    },
    "pt": {
        "benign": ("benigno", "benigna"),
        "malignant": ("maligno", "maligna"),
        "yes": ("sim",),
        "no": ("não",),
        "true": ("verdadeiro",),
        "false": ("falso",),
        "positive": ("positivo", "positiva"),
        "negative": ("negativo", "negativa"),
        "rain": ("chuva",),
        "sun": ("sol", "ensolarado", "soalheiro"),
        "snow": ("neve",),
        "fog": ("nevoeiro", "neblina"),
        "drizzle": ("garoa", "chuvisco"),
        "English": ("inglês",),
        "French": ("francês",),
        "German": ("alemão",),
        "Italian": ("italiano",),
        "Spanish": ("espanhol",),
        "Russian": ("russo",),
        "Czech": ("tcheco", "checo"),
        "Japanese": ("japonês",),
        "Portuguese": ("português",),
    },
}
for _language, _labels in _COMMON.items():
    for _english, _names in _labels.items():
        CLDR[_language].setdefault(_english, _names)
        CLDR[_language].setdefault(_english.capitalize(), tuple(n.capitalize() for n in _names))

STOPWORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        "the is of which what and in to a an does did this that was were has have are with for "
        "from its it on by how many who whom whose these those following be do answer choose "
        "given or than one most least more less larger smaller higher lower among each per "
        "according table shown listed".split()
    ),
    "fr": frozenset(
        "le la les de des du un une est sont quel quelle quels quelles et en dans sur pour qui "
        "que ce cette ces à au aux se d l nom pays réponse parmi lequel laquelle lesquels où "
        "il elle ont a été plus moins selon tableau continent se trouve".split()
    ),
    "de": frozenset(
        "der die das den dem des ein eine einer eines ist sind welche welcher welches welchen "
        "und auf zu mit von für wie viele liegt land antwort im am es nicht wird wurde hat "
        "haben nach gemäß tabelle kontinent befindet sich dieses diese dieser".split()
    ),
    "es": frozenset(
        "el la los las de del un una es son cuál cuáles qué y en por para con que se su sus al "
        "país respuesta según tabla continente está encuentra".split()
    ),
    # Words an English sentence also uses ("in", "is", "a") are left out of these three.
    "it": frozenset(
        "il lo la i gli le di del della dei delle degli un una uno è sono qual quale quali che "
        "e con per da dal dalla tra fra su sul sulla quanti quante quanto quanta si trova "
        "paese risposta secondo tabella continente questi queste questo questa ha hanno più "
        "nel nella nei ed seguenti tra cui quale dove chi media".split()
    ),
    "nl": frozenset(
        "de het een van welk welke is zijn en op te met voor hoeveel hebben heeft deze dit "
        "die dat land landen antwoord volgens tabel werelddeel ligt wat wie waar dan meer "
        "minder grootste kleinste twee samen inwoners er hoe welken".split()
    ),
    "pt": frozenset(
        "o os as de do da dos das um uma é são qual quais que e em no na nos nas por para "
        "com se seu sua ao aos país resposta segundo tabela continente fica ficam quantos "
        "quantas estes estas este esta deste destes desta destas mais menos moeda usada "
        "onde".split()
    ),
}
for _language in ("it", "nl", "pt"):
    STOPWORDS[_language] = STOPWORDS[_language] - STOPWORDS["en"]

_PLACEHOLDER = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{[A-Za-z_][A-Za-z0-9_.]*\}")
_MISSING_TEXT = re.compile(r"\bNone\b(?! of)|\bnan\b|\bNaN\b|\bundefined\b")
_CHOICE_LINE = re.compile(r"^\s*(?:[-*•]\s*)?(?:\(([A-Z])\)|([A-Z])[.):])\s+\S")
_SEPARATOR_CELL = re.compile(r"^:?-{2,}:?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_NUMBER_TOKEN = re.compile(r"(?<![\w.])[-+\u2212]?\d+(?:[.,]\d+)*")
_MONTHS = (
    "January February March April May June July August September October November December"
).split()


# --------------------------------------------------------------------------------------------
# The corpus


@dataclass(frozen=True)
class Table:
    """One corpus table: its rows as text, its identifying column and declared joins."""

    id: str
    columns: tuple[str, ...]
    rows: tuple[dict[str, str], ...]
    key: str | None
    entity: str
    joins: tuple[dict[str, str], ...]
    file: str = ""
    # Per language, the names of this table's values in it (value -> names), from the data's
    # own translated columns; a starter table's (corpus tables have none).
    aliases: Mapping[str, Mapping[str, tuple[str, ...]]] = dataclasses.field(default_factory=dict)
    # Columns whose cells join a list of values ("FRA, ESP").
    list_columns: frozenset[str] = frozenset()

    def cell_values(self, index: int, column: str) -> tuple[str, ...]:
        """The values of a cell: the items of a list column's list, else the cell itself."""
        text = self.rows[index][column]
        if column in self.list_columns:
            return tuple(v for v in text.split(LIST_SEPARATOR) if v)
        return (text,)


LIST_SEPARATOR = ", "


def _cell_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def record_cell_text(value: Any) -> str:
    """A record value as a table cell: a list's items joined with ``", "`` (missing items left
    out), an object as sorted JSON, anything else as :func:`_cell_text`."""
    if isinstance(value, (list, tuple)):
        return LIST_SEPARATOR.join(record_cell_text(v) for v in value if v is not None)
    if isinstance(value, Mapping):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return _cell_text(value)


def _flatten(value: Any, path: str, out: dict[str, Any]) -> None:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            _flatten(inner, f"{path}.{key}", out)
    else:
        out[path] = value


def record_rows(
    records: Sequence[Mapping[str, Any]],
) -> tuple[list[str], list[dict[str, str]], frozenset[str]]:
    """Records with nested objects and lists as table rows: (columns, rows, list columns).

    An object's keys become columns of their own (``{"names": {"de": ...}}`` -> ``names.de``),
    grouped where the object's field first stands, in order of first appearance; a list is
    one cell (:func:`record_cell_text`). A field that is an object in one record and a value
    other than null in another is refused.
    """
    nested = {k for r in records for k, v in r.items() if isinstance(v, Mapping)}
    lists = {k for r in records for k, v in r.items() if isinstance(v, (list, tuple))}
    fields: dict[str, dict[str, None]] = {}  # field -> its columns, in order
    flat_records: list[dict[str, Any]] = []
    for record in records:
        flat: dict[str, Any] = {}
        for key, value in record.items():
            columns_of = fields.setdefault(key, {})
            if key in nested:
                if value is not None and not isinstance(value, Mapping):
                    raise ValueError(f"field {key!r} is an object in one record, {value!r} here")
                inner: dict[str, Any] = {}
                _flatten(value or {}, key, inner)
                flat.update(inner)
                columns_of.update(dict.fromkeys(inner))
            else:
                flat[key] = value
                columns_of[key] = None
        flat_records.append(flat)
    columns = [c for columns_of in fields.values() for c in columns_of]
    rows = [{c: record_cell_text(flat.get(c)) for c in columns} for flat in flat_records]
    return columns, rows, frozenset(c for c in columns if c in lists)


def table_from_records(
    table_id: str,
    records: Sequence[Mapping[str, Any]],
    *,
    key: str | None,
    entity: str,
    joins: Iterable[Mapping[str, str]] = (),
    aliases: Mapping[str, Mapping[str, tuple[str, ...]]] | None = None,
) -> Table:
    """A :class:`Table` of records (a starter table), by :func:`record_rows`."""
    columns, rows, lists = record_rows(records)
    if key is not None and key not in columns:
        raise ValueError(f"{table_id}: the key {key!r} is not a column")
    return Table(
        id=table_id,
        columns=tuple(columns),
        rows=tuple(rows),
        key=key,
        entity=entity,
        joins=tuple(dict(j) for j in joins),
        aliases=aliases or {},
        list_columns=lists,
    )


def _read_rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    if path.suffix == ".jsonl":
        records = [
            json.loads(line)
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        columns: list[str] = []
        for record in records:
            columns.extend(c for c in record if c not in columns)
        return columns, [{c: _cell_text(r.get(c)) for c in columns} for r in records]
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        columns = list(reader.fieldnames or [])
        return columns, [{c: _cell_text(r.get(c)) for c in columns} for r in reader]


@lru_cache(maxsize=8)
def _load_corpus_cached(corpus_dir: str) -> dict[str, Table]:
    base = Path(corpus_dir)
    tables: dict[str, Table] = {}
    specs = [
        spec
        for listing in sorted(base.glob("tables*.json"))
        for spec in json.loads(listing.read_text(encoding="utf-8"))
    ]
    for spec in specs:
        columns, rows = _read_rows(base / spec["file"])
        tables[spec["id"]] = Table(
            id=spec["id"],
            columns=tuple(columns),
            rows=tuple(rows),
            key=spec.get("key"),
            entity=spec.get("entity", ""),
            joins=tuple(spec.get("joins") or ()),
            file=spec["file"],
        )
    return tables


def load_corpus(corpus_dir: Path) -> dict[str, Table]:
    """Read every table of ``tables*.json`` (cached per folder)."""
    return _load_corpus_cached(str(Path(corpus_dir).resolve()))


def find_table(corpus: Mapping[str, Table], name: Any) -> Table | None:
    """A table named by its id, its file name or its file's stem (a build may use either)."""
    if not name:
        return None
    text = str(name).strip()
    if text in corpus:
        return corpus[text]
    base = Path(text).name
    for table in corpus.values():
        if base in (table.file, Path(table.file).stem):
            return table
    return None


# --------------------------------------------------------------------------------------------
# Values


def norm_text(text: str) -> str:
    """Case-, space- and punctuation-insensitive form of a short text."""
    text = unicodedata.normalize("NFC", text)
    for dash in ("\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2212"):
        text = text.replace(dash, "-")
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u00a0", " ")
    text = re.sub(r"\s+", " ", text).strip().strip("\"'“”«»*`").strip()
    return text.rstrip(".").strip().casefold()


def parse_number(text: str) -> float | None:
    """The number a short text is, or None (thousands separators and a decimal comma allowed)."""
    s = str(text).strip().replace("\u2212", "-").replace("\u00a0", " ").replace("\u202f", " ")
    if re.fullmatch(r"[-+]?\d{1,3}(?:[, ]\d{3})+(?:\.\d+)?", s):
        s = s.replace(",", "").replace(" ", "")
    elif re.fullmatch(r"[-+]?\d+,\d+", s):
        s = s.replace(",", ".")
    elif not re.fullmatch(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?", s):
        return None
    try:
        value = float(s)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def numbers_in_text(text: str) -> list[float]:
    """Every number written in a text, read generously (each separator reading is kept)."""
    found: list[float] = []
    for match in _NUMBER_TOKEN.finditer(text.replace("\u00a0", " ").replace("\u202f", " ")):
        token = match.group(0)
        for candidate in {token, *re.split(r"(?<=\d),(?=\d)", token)}:
            value = parse_number(candidate)
            if value is not None:
                found.append(value)
    # Thousands written with spaces ("8 611").
    for match in re.finditer(r"(?<![\d.,])\d{1,3}(?: \d{3})+(?![\d])", text.replace("\u00a0", " ")):
        value = parse_number(match.group(0))
        if value is not None:
            found.append(value)
    return found


def numbers_close(a: float, b: float) -> bool:
    """Equality of two numbers read from text (tiny float noise only)."""
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def shown_close(value: float, shown: float) -> bool:
    """A data value as a prompt shows it: exactly, or rounded to 6 significant digits (a
    latitude of -74.81346833 shown as -74.8135)."""
    return numbers_close(value, shown) or abs(value - shown) <= 5e-6 * abs(value)


def aggregate_close(a: float, b: float) -> bool:
    """Equality of an aggregate and its rounded statement: 0.01 absolute or 1e-3 relative."""
    return abs(a - b) <= 0.01 or abs(a - b) <= 1e-3 * max(abs(a), abs(b))


def values_equal(a: Any, b: Any) -> bool:
    """Two cell or answer texts are the same value (numbers compared numerically)."""
    sa, sb = _cell_text(a), _cell_text(b)
    na, nb = parse_number(sa), parse_number(sb)
    if na is not None and nb is not None:
        return numbers_close(na, nb)
    return norm_text(sa) == norm_text(sb)


def is_date(text: str) -> bool:
    """An ISO calendar date YYYY-MM-DD."""
    return bool(_DATE.match(text.strip()))


def order_key(text: str) -> tuple[int, float | str] | None:
    """A sortable key of a numeric or ISO-date cell, or None when it is neither."""
    if is_date(text):
        return (1, text.strip())
    number = parse_number(text)
    if number is not None:
        return (0, number)
    return None


def phrase_in(text: str, phrase: str) -> bool:
    """``phrase`` occurs in ``text`` as a whole word sequence (normalized)."""
    needle = norm_text(phrase)
    if not needle:
        return False
    haystack = norm_text(text)
    # An elided article or a possessive may touch a name ("l'Égypte", "Egypt's"), but a one-
    # or two-letter answer must not match inside one ("element's").
    edges = (r"(?<!\w)", r"(?!\w)") if len(needle) >= 3 else (r"(?<![\w'])", r"(?![\w'])")
    pattern = edges[0] + re.escape(needle) + edges[1]
    return re.search(pattern, haystack) is not None


def date_renderings(value: str) -> list[str]:
    """An ISO date and the usual English ways of writing it."""
    year, month, day = value.strip().split("-")
    name = _MONTHS[int(month) - 1]
    d = str(int(day))
    return [value.strip(), f"{name} {d}, {year}", f"{d} {name} {year}", f"{name} {d} {year}"]


def value_in_text(value: str, text: str) -> bool:
    """A cell value is written somewhere in a text (numbers in any usual format)."""
    if not value.strip():
        return False
    number = parse_number(value)
    if number is not None:
        return any(shown_close(number, n) for n in numbers_in_text(text))
    if is_date(value):
        return any(phrase_in(text, r) for r in date_renderings(value))
    return phrase_in(text, value)


def cell_matches(cell: str, value: str) -> bool:
    """A rendered table cell shows a data value (a number may carry a unit)."""
    if values_equal(cell, value):
        return True
    number = parse_number(value)
    if number is not None:
        numbers = numbers_in_text(cell)
        return bool(numbers) and all(shown_close(number, n) for n in numbers[:1])
    if is_date(value):
        return any(values_equal(cell, r) for r in date_renderings(value))
    return False


# Languages babel's CLDR territory names are read for (a value that is an English territory
# name, "Croatia", is then named in them: "Croatie", "Kroatien").
BABEL_LANGUAGES = ("de", "es", "fr", "it", "nl", "pt")
# English territory names that also name something else the data holds (the US state of
# Georgia keeps its English name in German): the English name stays accepted.
AMBIGUOUS_TERRITORY_NAMES = frozenset({"Georgia"})

Aliases = Mapping[str, Sequence[str]]


def _name_variants(name: str) -> list[str]:
    """A CLDR name and, for ``"Myanmar (Birmanie)"``, its two parts."""
    match = re.fullmatch(r"(.+?)\s*\(([^)]+)\)", name)
    return [name, match.group(1).strip(), match.group(2).strip()] if match else [name]


@lru_cache(maxsize=1)
def _babel_territories() -> dict[str, dict[str, tuple[str, ...]]]:
    """Per language of :data:`BABEL_LANGUAGES`, English territory name -> CLDR names ({}
    without babel)."""
    try:
        from babel import Locale
    except ImportError:
        return {}
    english = Locale.parse("en").territories
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for language in BABEL_LANGUAGES:
        local = Locale.parse(language).territories
        names: dict[str, tuple[str, ...]] = {}
        for code, name in english.items():
            if code in local and code != "ZZ":
                variants = _name_variants(local[code])
                if name in AMBIGUOUS_TERRITORY_NAMES:
                    variants.append(name)
                names[name] = tuple(dict.fromkeys(variants))
        out[language] = names
    return out


@lru_cache(maxsize=256)
def _alpha3_territory(code: str) -> str:
    """The English CLDR name of an ISO alpha-3 country code ("USA": "United States"), or ""."""
    if not re.fullmatch(r"[A-Z]{3}", code):
        return ""
    try:
        import pycountry
        from babel import Locale
    except ImportError:
        return ""
    country = pycountry.countries.get(alpha_3=code)
    return Locale.parse("en").territories.get(country.alpha_2, "") if country else ""


def translations(value: str, language: str, extra: Aliases | None = None) -> tuple[str, ...]:
    """Names of an English label in ``language`` (empty when there is none).

    :data:`CLDR` first, then babel's CLDR territory names, then ``extra`` (the names the
    data gives its own values).
    """
    key = value.strip()
    names = [
        *CLDR.get(language, {}).get(key, ()),
        *CLDR.get(language, {}).get(_alpha3_territory(key), ()),
        *_babel_territories().get(language, {}).get(_alpha3_territory(key), ()),
        *_babel_territories().get(language, {}).get(key, ()),
        *((extra or {}).get(key, ())),
    ]
    return tuple(dict.fromkeys(n for n in names if n.strip()))


def accepted_forms(value: str, language: str, extra: Aliases | None = None) -> tuple[str, ...]:
    """The answer texts that state ``value`` in ``language``.

    A label that CLDR names differently in that language must be given in that language.
    """
    names = translations(value, language, extra)
    if names and any(not values_equal(n, value) for n in names):
        return names
    return (value, *names)


def mentioned_forms(value: str, language: str, extra: Aliases | None = None) -> tuple[str, ...]:
    """The ways a question may name a record's key: as in the data or translated."""
    return (value, *translations(value, language, extra))


def condition_holds(cell: str, op: str, target: Any) -> bool:
    """A data cell satisfies ``op target`` (numbers numerically, dates and texts as text)."""
    target_text = _cell_text(target)
    cell_number, target_number = parse_number(cell), parse_number(target_text)
    if cell_number is not None and target_number is not None:
        a: Any = cell_number
        b: Any = target_number
    elif op in ("==", "!="):
        a, b = norm_text(cell), norm_text(target_text)
    else:
        a, b = cell.strip(), target_text.strip()
    if op == "==":
        return bool(a == b)
    if op == "!=":
        return bool(a != b)
    if op == "<":
        return bool(a < b)
    if op == "<=":
        return bool(a <= b)
    if op == ">":
        return bool(a > b)
    if op == ">=":
        return bool(a >= b)
    return False


def conditions_equal(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Two stated conditions are the same (integer bounds: ``< 1800`` equals ``<= 1799``)."""
    if a.get("field") != b.get("field"):
        return False
    op_a, op_b = a.get("op"), b.get("op")
    va, vb = _cell_text(a.get("value")), _cell_text(b.get("value"))
    if op_a == op_b and values_equal(va, vb):
        return True
    na, nb = parse_number(va), parse_number(vb)
    if na is None or nb is None or not (na.is_integer() and nb.is_integer()):
        return False
    strict = {"<": ("<=", -1), ">": (">=", 1), "<=": ("<", 1), ">=": (">", -1)}
    if op_a in strict and strict[op_a][0] == op_b:
        return numbers_close(na + strict[op_a][1], nb)
    return False


def language_scores(text: str) -> dict[str, float]:
    """The share of each known language's stopwords among the words of ``text``."""
    words = re.findall(r"[^\W\d_]+", text.casefold())
    if not words:
        return {language: 0.0 for language in STOPWORDS}
    return {
        language: sum(word in stop for word in words) / len(words)
        for language, stop in STOPWORDS.items()
    }


# The languages lingua tells apart for the reviewer (ISO 639-1 -> lingua's name).
LINGUA_LANGUAGES = {
    "en": "ENGLISH",
    "fr": "FRENCH",
    "de": "GERMAN",
    "es": "SPANISH",
    "it": "ITALIAN",
    "nl": "DUTCH",
    "pt": "PORTUGUESE",
}
# A question reads as another language when lingua gives that language at least this
# confidence and LINGUA_MARGIN times the expected one's (and the stopwords agree).
LINGUA_CONFIDENT = 0.5
LINGUA_MARGIN = 3.0


@lru_cache(maxsize=1)
def _lingua_detector() -> Any:
    try:
        from lingua import Language, LanguageDetectorBuilder
    except ImportError:
        return None
    languages = [getattr(Language, name) for name in LINGUA_LANGUAGES.values()]
    return LanguageDetectorBuilder.from_languages(*languages).build()


def detected_languages(text: str) -> dict[str, float] | None:
    """lingua's confidence in each language of :data:`LINGUA_LANGUAGES` (None without lingua)."""
    detector = _lingua_detector()
    if detector is None:
        return None
    codes = {name: code for code, name in LINGUA_LANGUAGES.items()}
    return {
        codes[c.language.name]: float(c.value)
        for c in detector.compute_language_confidence_values(text)
        if c.language.name in codes
    }


# --------------------------------------------------------------------------------------------
# The prompt


@dataclass(frozen=True)
class Prompt:
    """An item's input split into its Markdown table lines and its question text."""

    text: str
    header: tuple[str, ...]
    table_rows: tuple[tuple[str, ...], ...]
    question: str
    before_choices: str


def _split_cells(line: str) -> tuple[str, ...]:
    inner = line.strip()
    if inner.startswith("|"):
        inner = inner[1:]
    if inner.endswith("|") and not inner.endswith("\\|"):
        inner = inner[:-1]
    cells = re.split(r"(?<!\\)\|", inner)
    return tuple(c.replace("\\|", "|").strip() for c in cells)


def parse_prompt(text: str, has_choices: bool) -> Prompt:
    """Split the input into table lines, question text and the text before the choices."""
    header: tuple[str, ...] = ()
    table_rows: list[tuple[str, ...]] = []
    question_lines: list[str] = []
    before: list[str] = []
    seen_choice = False
    previous_was_table = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("|"):
            cells = _split_cells(stripped)
            if all(_SEPARATOR_CELL.match(c) for c in cells if c) and any(cells):
                previous_was_table = True
                continue
            if not previous_was_table:
                header = cells
            else:
                table_rows.append(cells)
            previous_was_table = True
            continue
        previous_was_table = False
        if has_choices and _CHOICE_LINE.match(line):
            seen_choice = True
            continue
        question_lines.append(line)
        if not seen_choice:
            before.append(line)
    return Prompt(
        text=text,
        header=header,
        table_rows=tuple(table_rows),
        question="\n".join(question_lines).strip(),
        before_choices="\n".join(before).strip(),
    )


def ends_with_question(question: str) -> bool:
    """The question ends with '?', or a '?' is followed by one short final instruction."""
    text = question.strip().rstrip("\"'”»)*_ ")
    if not text:
        return False
    if text.endswith(("?", "？", "؟")):
        return True
    last = max(text.rfind("?"), text.rfind("？"))
    if last < 0:
        return False
    tail = text[last + 1 :].strip()
    sentences = [s for s in re.split(r"(?<=[.!])\s+", tail) if s.strip()]
    return 1 <= len(sentences) <= 2 and len(tail) <= 240


# --------------------------------------------------------------------------------------------
# The review


SPOKEN_ROW = re.compile(r"^(?:[^:,]+: [^,]*)(?:, [^:,]+: [^,]*)*\.$")


def pictured_prompt(item: Mapping[str, Any]) -> tuple[str, int]:
    """The written text of an item that shows pictures, and how many pictures it shows."""
    parts = [
        p for m in item.get("input") or [] if isinstance(m, Mapping) for p in m.get("content") or []
    ]
    images = sum(1 for p in parts if isinstance(p, Mapping) and p.get("type") == "image")
    text = "\n".join(
        str(p.get("text") or "")
        for p in parts
        if isinstance(p, Mapping) and p.get("type") == "text"
    )
    return (text, images) if images else ("", 0)


def spoken_prompt(item: Mapping[str, Any]) -> tuple[str, bool]:
    """A spoken or drawn item's words as a written prompt, and whether it is one.

    The item's input is a message of an instruction and an audio part; what the audio says
    is ``metadata.spoken_text``, one line per sentence, a shown row read as ``Label: value,
    Label: value.``. Those row lines are turned back into a Markdown table (the header from
    the first row's labels), so the row checks read a spoken open-book item as a written one.
    A question drawn as a picture (an image part and ``metadata.rendered_text``, the lines
    drawn; the build read them back by OCR) is read the same way. An input with neither is
    empty: nothing to review.
    """
    parts = [
        p for m in item.get("input") or [] if isinstance(m, Mapping) for p in m.get("content") or []
    ]
    types = {p.get("type") for p in parts if isinstance(p, Mapping)}
    meta = item.get("metadata") or {}
    if "audio" in types:
        spoken = str(meta.get("spoken_text") or "")
    elif "image" in types and meta.get("rendered_text"):
        spoken = str(meta["rendered_text"])
    else:
        return "", False
    lines, table, header = [], [], None
    for line in spoken.splitlines():
        if SPOKEN_ROW.match(line.strip()):
            pairs = [pair.split(": ", 1) for pair in line.strip()[:-1].split(", ")]
            labels = [label for label, _ in pairs]
            if header is None:
                header = labels
                table += [
                    "| " + " | ".join(header) + " |",
                    "| " + " | ".join("---" for _ in header) + " |",
                ]
            table.append("| " + " | ".join(value for _, value in pairs) + " |")
            continue
        if table:
            lines += ["", *table, ""]
            table = []
        lines.append(line)
    if table:
        lines += ["", *table]
    return "\n".join(lines), True


# --------------------------------------------------------------------------------------------
# Drawn questions, read back from their pictures

OCR_TIMEOUT = 30.0
"""Seconds one ``tesseract`` run may take."""
OCR_PSMS = (6, 11)
"""tesseract's page segmentation modes, tried in turn until a reading agrees: 6, one uniform
block of text, the lines of a drawn question (the default, 3, took a drawn table's aligned
labels for columns and read them apart); then 11, sparse text, which keeps the short
continuation lines of wrapped rows that 6 sometimes drops. Each is a reading of the same
picture: a value the picture does not show is not in either."""
OCR_UPSCALE_BELOW = 2000
"""An image at most this many pixels a side is upscaled 2x before OCR (when Pillow is there):
tesseract misread more small text without it (4 of 40 drawn tables against 9)."""
OCR_MAX_CER = 0.25
"""The largest character error rate of the OCR text against ``rendered_text`` accepted."""
TESSERACT_LANGUAGES = {
    "en": "eng",
    "fr": "fra",
    "de": "deu",
    "es": "spa",
    "it": "ita",
    "nl": "nld",
    "pt": "por",
}
"""An item's language and the tesseract data that reads it (``eng`` is always added)."""
_OCR_LOOKALIKE_DIGITS = str.maketrans({"o": "0", "O": "0", "l": "1", "I": "1", "|": "1",
                                       "S": "5", "s": "5", "B": "8"})  # fmt: skip
_OCR_LOOKALIKE_LETTERS = str.maketrans({"0": "o", "1": "l", "i": "l", "5": "s", "8": "b"})


def _fold(text: str) -> str:
    """A name with OCR's look-alikes made one (``0``/``o``, ``1``/``l``/``i``, ``5``/``s``,
    ``8``/``b``, ``rn``/``m``, ``vv``/``w``)."""
    return text.translate(_OCR_LOOKALIKE_LETTERS).replace("rn", "m").replace("vv", "w")


def name_slips(name: str) -> int:
    """The OCR slips (edits) a name of this length may have: none below five characters, then
    one, and one more per twelve characters."""
    return 0 if len(name) < 5 else 1 + len(name) // 12


def drawn_images(item: Mapping[str, Any]) -> list[str]:
    """The image paths of a drawn item (image parts and ``metadata.rendered_text``), else []."""
    if not (item.get("metadata") or {}).get("rendered_text"):
        return []
    inputs = item.get("input")
    parts = [
        p
        for m in (inputs if isinstance(inputs, list) else [])
        if isinstance(m, Mapping)
        for p in m.get("content") or []
        if isinstance(p, Mapping)
    ]
    if any(p.get("type") == "audio" for p in parts):
        return []  # a spoken item: spoken_prompt reads its spoken_text instead
    return [str(p.get("image") or "") for p in parts if p.get("type") == "image"]


@lru_cache(maxsize=1)
def _tesseract_languages() -> frozenset[str]:
    """The language data the installed ``tesseract`` has (empty when it cannot say)."""
    program = shutil.which("tesseract")
    if program is None:
        return frozenset()
    try:
        done = subprocess.run(
            [program, "--list-langs"], capture_output=True, text=True, timeout=OCR_TIMEOUT
        )
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    lines = (done.stdout + "\n" + done.stderr).splitlines()
    return frozenset(line.strip() for line in lines if re.fullmatch(r"[a-z_]{3,}", line.strip()))


def _ocr_language(item: Mapping[str, Any]) -> str | None:
    """``-l`` for tesseract, or None when no installed data reads the drawn script."""
    language = str((item.get("metadata") or {}).get("language") or "en")
    code = TESSERACT_LANGUAGES.get(language)
    if code and code != "eng" and code in _tesseract_languages():
        return f"eng+{code}"
    rendered = str((item.get("metadata") or {}).get("rendered_text") or "")
    latin = all(not c.isalpha() or unicodedata.name(c, "").startswith("LATIN") for c in rendered)
    return "eng" if latin else None


def ocr_skipped(item: Mapping[str, Any], bench_dir: Path | None) -> str | None:
    """Why the OCR check of a drawn item does not run (None: it runs, or the item is not drawn).

    A skipped check is not a pass: the reviewer then reads ``rendered_text`` on trust, as it
    did before it could read pictures, and a caller that counts checked items must count
    these apart.
    """
    if not drawn_images(item):
        return None
    if bench_dir is None:
        return "no bench_dir: the item's media paths cannot be resolved"
    if shutil.which("tesseract") is None:
        return "tesseract is not on PATH"
    if _ocr_language(item) is None:
        return "no tesseract language data reads the drawn script"
    return None


def ocr_image(path: Path, language: str = "eng", psm: int = OCR_PSMS[0]) -> str:
    """The text ``tesseract`` reads in an image, upscaled 2x first when Pillow is importable
    and the image is not already large (at most :data:`OCR_UPSCALE_BELOW` pixels a side).

    Raises OSError when tesseract fails or times out (the message says why).
    """
    program = shutil.which("tesseract")
    if program is None:
        raise OSError("tesseract is not on PATH")
    with tempfile.TemporaryDirectory(prefix="reviewer-ocr-") as scratch:
        source = path
        try:
            from PIL import Image  # optional: only to upscale small text before OCR

            with Image.open(path) as image:
                if max(image.size) <= OCR_UPSCALE_BELOW:
                    image.load()
                    bigger = image.resize((image.width * 2, image.height * 2), Image.LANCZOS)
                    source = Path(scratch) / "upscaled.png"
                    bigger.save(source)
        except Exception:  # no Pillow, or it cannot read the file: tesseract reads it as is
            source = path
        try:
            done = subprocess.run(
                [program, str(source), "stdout", "-l", language, "--psm", str(psm)],
                capture_output=True,
                text=True,
                timeout=OCR_TIMEOUT,
            )
        except subprocess.TimeoutExpired as error:
            raise OSError(f"tesseract took more than {OCR_TIMEOUT:g} s") from error
        except (OSError, subprocess.SubprocessError) as error:
            raise OSError(f"tesseract did not run: {error}") from error
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [""])[-1]
        raise OSError(f"tesseract failed ({done.returncode}): {last[:200]}")
    return done.stdout


def ocr_normal(text: str) -> str:
    """The form OCR text is compared in: no accents or case, punctuation and spacing as one space.

    ``|``, ``:``, ``,``, ``.``, brackets, dashes and symbols (``$``) go; what is left is
    letters and digits separated by single spaces.
    """
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    return " ".join(re.sub(r"[^\w]|_", " ", text).split())


def levenshtein(a: str, b: str, limit: int | None = None) -> int:
    """The edit distance of ``a`` and ``b``; past ``limit``, ``limit + 1`` (a banded search)."""
    if len(a) < len(b):
        a, b = b, a
    if limit is None:
        limit = len(a)
    over = limit + 1
    if len(a) - len(b) > limit:
        return over
    previous = [j if j <= limit else over for j in range(len(b) + 1)]
    for i, ca in enumerate(a, 1):
        current = [over] * (len(b) + 1)
        current[0] = i if i <= limit else over
        for j in range(max(1, i - limit), min(len(b), i + limit) + 1):
            current[j] = min(
                previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != b[j - 1]), over
            )
        if min(current) > limit:
            return over
        previous = current
    return min(previous[-1], over)


def fuzzy_contains(text: str, pattern: str, slips: int) -> bool:
    """Whether some stretch of ``text`` is within ``slips`` edits of ``pattern``."""
    if slips <= 0 or not pattern:
        return pattern in text
    previous = [0] * (len(text) + 1)  # the stretch may start anywhere
    for i, cp in enumerate(pattern, 1):
        current = [i] + [0] * len(text)
        for j, ct in enumerate(text, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (cp != ct))
        previous = current
    return min(previous) <= slips


def _ocr_digits(text: str) -> str:
    """OCR text with a word that is mostly digits read as digits (``15O`` is ``150``)."""
    words = []
    for word in unicodedata.normalize("NFKC", text).split():
        core = word.strip("()[]:;,.!?'\"")
        digits = sum(c.isdigit() for c in core)
        if (
            digits
            and re.fullmatch(r"[\d.,oOlI|SsB]+", core)
            and digits * 2 >= len(re.sub(r"[.,]", "", core))
        ):
            word = word.replace(core, core.translate(_OCR_LOOKALIKE_DIGITS))
        words.append(word)
    return " ".join(words)


_DRAWN_PAIR_SPLIT = re.compile(r",\s+(?=[^,:]+:\s)")
"""Where a drawn row line (``Label: value, Label: value.``) parts: a comma before the next
label (a value may hold a comma, ``1,234``)."""


def _drawn_tokens(rendered: str, records: Iterable[str]) -> list[tuple[str, str]]:
    """``rendered_text`` as :func:`ocr_normal` words, each with what it is: ``"number"`` (a
    word of digits), ``"name"`` (a word of a row's value, or of a record name the lines
    mention) or ``""`` (a label or question word)."""
    forms = [f for f in (ocr_normal(str(r)).split() for r in records) if f]
    out: list[tuple[str, str]] = []
    for line in rendered.splitlines():
        stripped = line.strip()
        pairs = _DRAWN_PAIR_SPLIT.split(stripped[:-1]) if stripped.endswith(".") else []
        if pairs and all(": " in pair for pair in pairs):
            for pair in pairs:
                label, value = pair.split(": ", 1)
                out += [(t, "number" if t.isdigit() else "") for t in ocr_normal(label).split()]
                out += [(t, "number" if t.isdigit() else "name") for t in ocr_normal(value).split()]
            continue
        words = ocr_normal(line).split()
        kinds = ["number" if t.isdigit() else "" for t in words]
        for form in forms:
            for start in range(len(words) - len(form) + 1):
                if words[start : start + len(form)] == form:
                    for k in range(start, start + len(form)):
                        kinds[k] = kinds[k] or "name"
        out += list(zip(words, kinds, strict=True))
    return out


def _as_digits(word: str) -> str:
    """An OCR word (:func:`ocr_normal` form) made only of digits and their look-alikes, as
    digits (``o`` is ``0``); any other word as it is."""
    if re.fullmatch(r"[0-9oilsb]+", word) and not word.isdigit():
        return word.translate(str.maketrans("oilsb", "01158"))
    return word


def _unread(drawn: Sequence[tuple[str, str]], read: Sequence[str]) -> tuple[list[str], list[str]]:
    """The numbers and the names of ``drawn`` that ``read`` does not show where they stand."""
    numbers: list[str] = []
    names: list[str] = []
    matcher = difflib.SequenceMatcher(None, [t for t, _ in drawn], list(read), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("equal", "insert"):
            continue
        block, seen = drawn[i1:i2], read[j1:j2]
        wanted = [t for t, kind in block if kind == "number"]
        # A word read where numbers stand, all look-alikes of digits, is digits: "Neerslag:
        # 0." is read "Neerslag: O." (the lone word escapes _ocr_digits, having no digit).
        got = [d for d in (_as_digits(t) for t in seen) if d.isdigit()]
        missing = Counter(wanted) - Counter(got)
        if missing and "".join(wanted) != "".join(got):
            numbers += sorted(missing.elements())
        shown = f" {_fold(' '.join(seen))} "
        runs: list[list[str]] = [[]]
        for token, kind in block:
            if kind == "name":
                runs[-1].append(token)
            elif runs[-1]:
                runs.append([])
        for run in filter(None, runs):
            name = " ".join(run)
            if not fuzzy_contains(shown, f" {_fold(name)} ", name_slips(name)):
                names.append(name)
    return numbers, names


def ocr_problems(rendered: str, ocr: str, records: Iterable[str] = ()) -> list[str]:
    """Where the text read from a drawn item's picture disagrees with its ``rendered_text``.

    Both are put in :func:`ocr_normal` form (no case or accents; ``|``, ``:``, ``,``, ``.``,
    brackets, symbols and other punctuation are spaces) and split in words; first, in the OCR
    text, a word that is mostly digits has its look-alike letters read as digits (``15O`` is
    ``150``), and a ``|`` is read as ``l`` unless ``rendered_text`` has one (a bar the picture
    should not show is a misread ``I``). The picture agrees when:

    * the character error rate, the :func:`levenshtein` distance of the two texts over the
      length of ``rendered_text``'s, is at most :data:`OCR_MAX_CER` (0.25); and
    * aligned word by word (:class:`difflib.SequenceMatcher`, no junk heuristic), every number
      and every record name ``rendered_text`` shows is read in its place. The names are the
      values of its ``Label: value, ...`` row lines that are not digits, and each of
      ``records`` its lines mention. A word the alignment does not pair exactly is looked for
      in the stretch of OCR text paired with it. A number must be there digit for digit,
      since a changed digit is a changed value (a number split or joined at a separator,
      ``1,234`` read as ``1.234`` or ``1 234``, still counts). A name must be there as whole
      words, its look-alikes folded together on both sides (:func:`_fold`), with at most
      :func:`name_slips` edits: none in a name shorter than five characters, one from five,
      one more per twelve characters. Most records swapped for another differ by more (a
      record swapped for one a single letter away, ``Marlo`` for ``Marla``, is missed unless
      its row's numbers differ too).

    Binding each value to its place rejects values moved between rows, not only values
    changed or records swapped. Words the picture shows beyond ``rendered_text`` count only
    through the error rate; a value made only of symbols (``$``, ``€``) only through it too.
    """
    problems: list[str] = []
    ocr = _ocr_digits(ocr)
    if "|" not in rendered:  # a bar the picture should not show is a misread I or l
        ocr = ocr.replace("|", "l")
    want, got = ocr_normal(rendered), ocr_normal(ocr)
    limit = int(OCR_MAX_CER * max(1, len(want)))
    if levenshtein(want, got, limit) > limit:
        problems.append(
            f"ocr: the picture reads {got[:80]!r}, not the rendered_text "
            f"(character error rate over {OCR_MAX_CER:g})"
        )
    numbers, names = _unread(_drawn_tokens(rendered, records), got.split())
    if numbers:
        problems.append(f"ocr: the picture does not show the number(s) {numbers} where drawn")
    if names:
        problems.append(f"ocr: the picture does not show {names} where drawn")
    return problems


def drawn_problems(item: Mapping[str, Any], bench_dir: Path | None) -> list[str]:
    """The ``ocr:`` problems of a drawn item, its pictures read with tesseract.

    Empty when the item is not drawn or the check is skipped (see :func:`ocr_skipped`). A
    picture missing from ``bench_dir``, or one tesseract cannot read, is a problem. The
    pictures are read once per mode of :data:`OCR_PSMS` until a reading agrees with
    ``rendered_text`` (:func:`ocr_problems`); when none does, the first reading's problems are
    reported.
    """
    metadata = item.get("metadata") or {}
    if not metadata.get("rendered_text"):
        return []  # the record's own picture (a digit), not lines drawn: nothing to read back
    if bench_dir is None or ocr_skipped(item, bench_dir) is not None:
        return []
    language = _ocr_language(item) or "eng"
    paths, problems = [], []
    for image in drawn_images(item):
        path = Path(bench_dir) / image
        if not image or not path.is_file():
            problems.append(f"ocr: the picture {image!r} is missing from the benchmark")
        paths.append(path)
    if problems:
        return problems
    program = metadata.get("program")
    records = program.get("records") if isinstance(program, Mapping) else None
    names = [str(r) for r in records if isinstance(r, str)] if isinstance(records, list) else []
    first: list[str] | None = None
    for psm in OCR_PSMS:
        try:
            text = "\n".join(ocr_image(path, language, psm) for path in paths)
        except OSError as error:
            return [f"ocr: a picture of the item cannot be read: {error}"]
        problems = ocr_problems(str(metadata["rendered_text"]), text, names)
        if not problems:
            return []
        first = problems if first is None else first
    return first or []


class _Review:
    """One item under review; the checks append to ``problems``."""

    def __init__(
        self,
        item: Mapping[str, Any],
        intent: Mapping[str, Any],
        corpus_dir: Path,
        starter: bool | None = None,
        bench_dir: Path | None = None,
    ):
        self.item = item
        self.bench_dir = bench_dir
        # Why a drawn item's picture is not read (None: it is, or the item is not drawn).
        self.ocr_skipped = ocr_skipped(item, bench_dir)
        self.intent = intent
        self.problems: list[str] = []
        self.expect: Mapping[str, Any] = intent.get("expect") or {}
        self.metadata: Mapping[str, Any] = item.get("metadata") or {}
        program = self.metadata.get("program")
        self.program: Mapping[str, Any] = program if isinstance(program, Mapping) else {}
        self.corpus: Mapping[str, Table] = load_corpus(corpus_dir)
        self.starter_problems: list[str] = []
        starter_tables = self._starter_tables(starter)
        if starter_tables:
            self.corpus = {**self.corpus, **starter_tables}
        self._aliases: dict[str, dict[str, tuple[str, ...]]] = {}
        answer = self.metadata.get("answer")
        self.answer = _cell_text(answer).strip()
        self.language = str(self.metadata.get("language") or "")
        self.expected_language = str(self.expect.get("language") or "en")
        choices = item.get("choices")
        self.choices: list[str] | None = (
            [_cell_text(c) for c in choices] if isinstance(choices, list) else None
        )
        self.text = item.get("input") if isinstance(item.get("input"), str) else ""
        self.spoken = False
        self.pictures = 0
        if not self.text and isinstance(item.get("input"), list):
            self.text, self.spoken = spoken_prompt(item)
            if not self.text:
                self.text, self.pictures = pictured_prompt(item)
        self.prompt = parse_prompt(self.text, bool(self.choices))
        self.kind = str(self.program.get("kind") or "")
        self.book = str(self.program.get("book") or "")
        self.table = self._primary_table()
        rows = self.program.get("rows")
        self.rows: list[int] = (
            [r for r in rows if isinstance(r, int) and not isinstance(r, bool)]
            if isinstance(rows, list)
            else []
        )
        self.conditions: list[Mapping[str, Any]] = [
            c for c in (self.program.get("conditions") or []) if isinstance(c, Mapping)
        ]
        # A join step's conditions select the record it lands on (the names in one
        # language): conditions on that joined table's columns.
        joins = self.program.get("joins")
        for join in joins if isinstance(joins, list) else []:
            said = join.get("conditions") if isinstance(join, Mapping) else None
            self.conditions += [c for c in said or [] if isinstance(c, Mapping)]
        self.subject: int | None = None  # the data row the answer is about
        self.translated_answer: str | None = None  # the key's field of the answer, translated
        self.hop_conditions: list[Mapping[str, Any]] = []  # conditions on a joined table

    def add(self, problem: str) -> None:
        if problem not in self.problems:
            self.problems.append(problem)

    # -- the starter catalog ----------------------------------------------------------------

    def _named_tables(self) -> list[str]:
        """Every table id the intent and the program name."""
        names = [str(t) for t in self.intent.get("tables") or []]
        names.append(str(self.program.get("table") or ""))
        hops = self.program.get("hops")
        for hop in hops if isinstance(hops, list) else []:
            if isinstance(hop, Mapping):
                names.append(str(hop.get("table") or ""))
        return list(dict.fromkeys(n.strip() for n in names if n and n.strip()))

    def _program_fields(self) -> set[str]:
        """Every column the program names (keys, answers, conditions, features, hops)."""
        program = self.program
        fields = {program.get(n) for n in ("key_field", "answer_field", "field")}
        fields |= {
            c.get("field") for c in program.get("conditions") or [] if isinstance(c, Mapping)
        }
        fields |= set(self.features())
        fields |= set(self.shown_fields())
        hops = program.get("hops")
        for hop in hops if isinstance(hops, list) else []:
            if isinstance(hop, Mapping):
                fields |= {hop.get("key_field"), hop.get("field")}
        return {str(f) for f in fields if f}

    def _starter_tables(self, starter: bool | None) -> dict[str, Table]:
        """The starter tables this review reads (none for a corpus item).

        ``starter=None`` decides: yes when a starter id the item names is not a corpus table,
        or when the program names a column that the starter tables have and the corpus
        tables of the same ids do not.
        """
        if starter is False:
            return {}
        try:
            from starter_data import (
                STARTER_IDS,
                StarterDataError,
                StarterUnavailable,
                starter_table,
            )
        except ModuleNotFoundError as exc:
            if exc.name != "starter_data":
                raise
            return {}
        ids = [t for t in self._named_tables() if t in STARTER_IDS]
        if not ids:
            return {}
        # An id that is a corpus table too: the corpus's, unless the program names columns
        # it lacks (and then only if the starter table has them).
        unknown: set[str] = set()
        shared = starter is None and all(t in self.corpus for t in ids)
        if shared:
            corpus_columns = {c for t in ids for c in self.corpus[t].columns}
            unknown = {f for f in self._program_fields() if f not in corpus_columns}
            if not unknown:
                return {}
        tables: dict[str, Table] = {}
        problems: list[str] = []
        for table_id in ids:
            try:
                tables[table_id] = starter_table(table_id)
            except (StarterUnavailable, StarterDataError) as exc:
                problems.append(
                    f"program: the starter table {table_id!r} cannot be rebuilt ({exc})"
                )
        if shared and tables and not any(f in t.columns for t in tables.values() for f in unknown):
            return {}
        self.starter_problems = problems
        return tables

    def aliases(self, language: str) -> dict[str, tuple[str, ...]]:
        """The names the review's tables give their values in ``language``."""
        if language not in self._aliases:
            merged: dict[str, tuple[str, ...]] = {}
            for table in self.corpus.values():
                for value, names in (table.aliases.get(language) or {}).items():
                    merged[value] = tuple(dict.fromkeys((*merged.get(value, ()), *names)))
            self._aliases[language] = merged
        return self._aliases[language]

    # -- helpers ----------------------------------------------------------------------------

    def _primary_table(self) -> Table | None:
        table_id = self.program.get("table")
        if not table_id:
            hops = self.program.get("hops") or []
            if self.program.get("kind") == "multihop" and hops and isinstance(hops[0], Mapping):
                table_id = hops[0].get("table")
        if not table_id:
            tables = self.intent.get("tables") or []
            table_id = tables[0] if tables else None
        return find_table(self.corpus, table_id)

    def hop_tables(self) -> list[Table]:
        """The tables a multihop's hops read (none for other kinds)."""
        hops = self.program.get("hops")
        if self.kind != "multihop" or not isinstance(hops, list):
            return []
        found = [find_table(self.corpus, h.get("table")) for h in hops if isinstance(h, Mapping)]
        return [t for t in found if t is not None]

    def row(self, index: int) -> dict[str, str]:
        assert self.table is not None
        return self.table.rows[index]

    def key_field(self) -> str | None:
        key = self.program.get("key_field")
        return str(key) if key else None

    def column(self, name: Any, what: str, table: Table | None = None) -> str | None:
        """``name`` if it is a column of ``table`` (default: the primary one), else a problem."""
        table = table or self.table
        if table is None:
            return None
        if not name:
            self.add(f"program: {what} is not set")
            return None
        if name not in table.columns:
            self.add(f"program: {what} {name!r} is not a column of table {table.id!r}")
            return None
        return str(name)

    def valid_rows(self) -> list[int]:
        assert self.table is not None
        return [r for r in self.rows if 0 <= r < len(self.table.rows)]

    def languages(self) -> tuple[str, ...]:
        """The intent's language first, then the item's own if it differs."""
        return tuple(dict.fromkeys(x for x in (self.expected_language, self.language) if x))

    def mentioned(self, value: str, language: str) -> tuple[str, ...]:
        return mentioned_forms(value, language, self.aliases(language))

    def accepted(self, value: str) -> tuple[str, ...]:
        language = self.expected_language
        return accepted_forms(value, language, self.aliases(language))

    def named(self, value: str, text: str) -> bool:
        """A record's value is named in ``text``, as in the data or translated."""
        forms = {f for language in self.languages() for f in self.mentioned(value, language)}
        return any(value_in_text(form, text) for form in forms)

    def states(self, text: str, value: str) -> bool:
        """``text`` states the data value ``value`` in the intent's language."""
        forms = self.accepted(value)
        return any(values_equal(text, form) for form in forms)

    def names_record(self, text: str, key: str) -> bool:
        """``text`` is a record's key, as in the data or as named in the item's language."""
        return values_equal(text, key) or self.states(text, key)

    def answer_states(self, value: str) -> bool:
        return self.states(self.answer, value)

    def english_label(self, value: str) -> bool:
        """The answer is a label left in English where the intent's language names it."""
        forms = self.accepted(value)
        return values_equal(self.answer, value) and not any(values_equal(value, f) for f in forms)

    def cell_shows(self, cell: str, value: str) -> bool:
        """A prompt table cell shows a data value, as in the data or translated."""
        forms = {f for language in self.languages() for f in self.mentioned(value, language)}
        return any(cell_matches(cell, form) for form in forms)

    def line_of(self, index: int) -> tuple[str, ...] | None:
        """The prompt table line that shows data row ``index``: its key and shown values."""
        assert self.table is not None
        record = self.row(index)
        fields = [f for f in self.shown_fields() if f in record]
        key = self.table.key
        named_by = self.program.get("key_field")
        if named_by in fields and named_by in self.table.columns:
            # The records named by another column the line shows ("the airport code").
            key = str(named_by)
        if key and key not in fields:
            fields.insert(0, key)
        fields = [f for f in fields or self.table.columns if record[f].strip()]
        for cells in self.prompt.table_rows:
            if all(any(self.cell_shows(c, record[f]) for c in cells) for f in fields):
                return cells
        return None

    def features(self) -> dict[str, Any]:
        """``program.features`` as {column: value}; a list of {field, value} pairs is read too."""
        raw = self.program.get("features")
        if isinstance(raw, Mapping):
            return {str(k): v for k, v in raw.items()}
        out: dict[str, Any] = {}
        for entry in raw if isinstance(raw, list) else []:
            if isinstance(entry, Mapping):
                column = entry.get("field", entry.get("column", entry.get("name")))
                if column is not None and "value" in entry:
                    out[str(column)] = entry["value"]
            elif isinstance(entry, (list, tuple)) and len(entry) == 2:
                out[str(entry[0])] = entry[1]
        return out

    def shown_fields(self) -> list[str]:
        fields = self.program.get("shown_fields") or []
        return [str(f) for f in fields] if isinstance(fields, list) else []

    def label(self, index: int) -> str:
        assert self.table is not None
        key = self.table.key
        if key:
            return f"row {index} ({self.row(index)[key]})"
        return f"row {index}"

    # -- checks -----------------------------------------------------------------------------

    def run(self) -> list[str]:
        if not self.intent.get("servable", True):
            missing = self.expect.get("missing", "the data cannot serve it")
            self.add(
                f"intent: {self.intent.get('id')} is not servable ({missing}); "
                "no item should have been built"
            )
            return self.problems
        if not self.text.strip():
            self.add("generic: input is empty or not a string")
            return self.problems
        for problem in drawn_problems(self.item, self.bench_dir):
            self.add(problem)
        if not self.program:
            self.add("program: metadata.program is missing")
            return self.problems
        if self.starter_problems:
            for problem in self.starter_problems:
                self.add(problem)
            return self.problems
        if not self.answer:
            self.add("generic: metadata.answer is empty")
        self.check_generic()
        self.check_intent()
        if self.kind not in KINDS or self.book not in BOOKS:
            self.add(f"program: unknown kind {self.kind!r} or book {self.book!r}")
            return self.problems
        if self.table is None:
            self.add("program: the item's table is not a corpus table")
            return self.problems
        if self.program.get("media_field"):
            # A program over pictures: the records are the files the item shows.
            self.check_pictures()
            self.check_choices()
            self.check_language()
            return self.problems
        self.check_rows()
        self.check_conditions()
        getattr(self, f"check_{self.kind}")()
        self.check_translated_answer()
        self.check_book()
        self.check_choices()
        self.check_language()
        return self.problems

    def check_generic(self) -> None:
        texts = [self.text, self.answer, *(self.choices or [])]
        for text in texts:
            if _PLACEHOLDER.search(text):
                self.add(f"generic: leftover placeholder in {text[:60]!r}")
            if _MISSING_TEXT.search(text):
                self.add(f"generic: missing-value text (None/nan) in {text[:60]!r}")
        if not ends_with_question(self.prompt.question):
            self.add("generic: the question does not end with '?' (or '?' and a final instruction)")
        target = self.item.get("target")
        if self.choices is None and target is not None and not values_equal(target, self.answer):
            self.add(f"choices: target {target!r} differs from the answer {self.answer!r}")

    def check_intent(self) -> None:
        expect = self.expect
        kinds = expect.get("kinds") or []
        # A superlative that answers with another field of the record ranked first ("which
        # airport is northernmost? give its city") is a ranking then a report: a multihop
        # that ranks by the key's field.
        reports = (
            self.kind == "multihop"
            and "superlative" in kinds
            and self.program.get("field") is not None
            and expect.get("answer_field") not in (None, expect.get("key_field"))
        )
        # A lookup the key restricts by a condition (the names in Swedish) is a filtered one.
        filtered = (
            self.kind == "filtered_lookup" and "lookup" in kinds and bool(expect.get("conditions"))
        )
        if kinds and self.kind not in kinds and not reports and not filtered:
            self.add(f"intent: kind {self.kind!r} is not one of {kinds}")
        # A classify over one record's picture shows the picture and no reference rows: the
        # key may call that "open" (the evidence is shown) or "closed" (no rows), while
        # check_pictures requires "closed" of it; the key's word decides nothing there.
        pictured_class = self.kind == "classify" and bool(self.program.get("media_field"))
        if expect.get("book") and self.book != expect["book"] and not pictured_class:
            self.add(f"intent: book {self.book!r} but the intent asks for {expect['book']!r}")
        for name in ("answer_field", "key_field", "field", "direction"):
            wanted = expect.get(name)
            got = self.program.get(name)
            if name == "answer_field" and wanted in (
                f"{got}_names.{self.language}",
                f"{got}s.{self.language}",
            ):
                continue  # the field's own translation in the item's language: the same answer
            if (
                name == "answer_field"
                and wanted
                and got
                and wanted.startswith(str(got))
                and wanted.endswith(f".{self.language}")
            ):
                # "currency_names" answered in Dutch where the key asks currency_names_in.nl:
                # the answer must be the record's value of the asked field (checked once the
                # record is known, in check_translated_answer).
                self.translated_answer = wanted
                continue
            if name == "key_field" and wanted and got != wanted and self.shown_by(wanted):
                # No key set, or another column whose values in the item's language are the
                # ones asked ("name" worded in German is names.de): every record the item
                # shows or names is named by its value of the asked column, as asked.
                continue
            if (
                name == "field"
                and got is None
                and self.kind == "multihop"
                and any(
                    isinstance(h, Mapping) and wanted in (h.get("via"), h.get("field"))
                    for h in (self.program.get("hops") or [])[:1]
                )
            ):
                # A chain's join column (the key's "field") is the field its first step
                # follows (the hop's "via", or the "field" its first record gives).
                continue
            if (
                name == "field"
                and got is None
                and self.kind == "count"
                and any(c.get("field") == wanted for c in self.conditions)
            ):
                continue  # a count's field is the one its condition tests
            if wanted is not None and got != wanted:
                self.add(
                    f"intent: {name} {self.program.get(name)!r} but the intent asks for {wanted!r}"
                )
        if (
            self.ranks()
            and "direction" in expect
            and expect.get("direction") is None
            and expect.get("field") is None
        ):
            self.add(
                f"intent: the item ranks by {self.program.get('field')!r} "
                f"({self.program.get('direction')}) before it reports, but the intent's "
                "multihop ranks nothing"
            )
        wanted_aggregate = expect.get("aggregate")
        aggregate = self.program.get("aggregate") or ("count" if self.kind == "count" else None)
        if wanted_aggregate is not None and aggregate != wanted_aggregate:
            self.add(
                f"intent: aggregate {aggregate!r} but the intent asks for {wanted_aggregate!r}"
            )
        for wanted in expect.get("conditions") or []:
            if not any(
                conditions_equal(wanted, c) for c in [*self.conditions, *self.hop_conditions]
            ):
                self.add(
                    f"intent: the condition {wanted['field']} {wanted['op']} "
                    f"{wanted['value']!r} is missing from the item's conditions"
                )
        if self.language != self.expected_language:
            self.add(
                f"intent: language {self.language!r} but the intent asks for "
                f"{self.expected_language!r}"
            )
        if expect.get("answer_format") == "multiple_choice" and not self.choices:
            self.add("intent: the intent asks for multiple choice but the item has no choices")
        table_id = self.program.get("table")
        if table_id:
            table = find_table(self.corpus, table_id)
            if table is None:
                self.add(f"program: table {table_id!r} is not a corpus table")
            elif table.id not in (self.intent.get("tables") or []):
                self.add(f"intent: table {table_id!r} is not one of the intent's tables")

    def shown_by(self, column: str) -> bool:
        """Whether every row the item shows is named in it by its value of ``column``."""
        if self.table is None or not self.rows or column not in self.table.columns:
            return False
        shown = self.text.casefold()
        # The column itself, or its translation in the item's language ("names.de").
        named = [column] + [
            c
            for c in self.table.columns
            if c.startswith(column) and c.endswith(f".{self.language}")
        ]
        rows = [r for r in self.rows if 0 <= r < len(self.table.rows)]
        return bool(rows) and any(
            all(self.row(r)[c] and str(self.row(r)[c]).casefold() in shown for r in rows)
            for c in named
        )

    def check_rows(self) -> None:
        assert self.table is not None
        raw = self.program.get("rows")
        if not isinstance(raw, list) or not raw:
            self.add("rows: program.rows is missing or empty")
            return
        if len(self.rows) != len(raw):
            self.add("rows: program.rows holds something other than integers")
        for index in self.rows:
            if not 0 <= index < len(self.table.rows):
                self.add(
                    f"rows: {index} is not a data row of {self.table.id!r} "
                    f"({len(self.table.rows)} rows)"
                )
        if len(set(self.rows)) != len(self.rows):
            self.add("rows: a record appears twice in program.rows")
        key = self.key_field()
        if key is None or self.kind == "classify":
            return
        named_by = key if key in self.table.columns else None
        if self.kind == "multihop":
            key = self.table.key or key
        if key not in self.table.columns:
            self.add(f"program: key_field {key!r} is not a column of {self.table.id!r}")
            return
        records = self.program.get("records")
        if not isinstance(records, list) or len(records) != len(raw):
            self.add("rows: program.records does not list one key per row")
            return
        for index, record in zip(raw, records, strict=True):
            if isinstance(index, int) and 0 <= index < len(self.table.rows):
                # (a chain's first record is named by its key field: a country by its capital)
                if not values_equal(self.row(index)[key], _cell_text(record)) and not (
                    named_by and values_equal(self.row(index)[named_by], _cell_text(record))
                ):
                    self.add(
                        f"rows: row {index} has {key} {self.row(index)[key]!r}, "
                        f"not the record {record!r}"
                    )

    def check_conditions(self) -> None:
        assert self.table is not None
        valid: list[Mapping[str, Any]] = []
        hop_columns = {c for t in self.hop_tables() if t.id != self.table.id for c in t.columns}
        for condition in self.conditions:
            field, op = condition.get("field"), condition.get("op")
            if field not in self.table.columns and field in hop_columns:
                # A multihop's condition on a joined table's column selects that hop's record.
                if op in OPS and "value" in condition:
                    self.hop_conditions.append(condition)
                else:
                    self.add(f"condition: {field} {op!r} is not a valid condition")
            elif field not in self.table.columns:
                self.add(f"condition: field {field!r} is not a column of {self.table.id!r}")
            elif op not in OPS:
                self.add(f"condition: unknown operator {op!r}")
            elif "value" not in condition:
                self.add(f"condition: {field} {op} has no value")
            else:
                valid.append(condition)
        self.conditions = valid
        if self.kind in ("count", "aggregate"):
            return
        for index in self.valid_rows():
            for c in valid:
                if not condition_holds(self.row(index)[c["field"]], c["op"], c["value"]):
                    self.add(
                        f"condition: {self.label(index)} has {c['field']} "
                        f"{self.row(index)[c['field']]!r}, outside the filter "
                        f"{c['field']} {c['op']} {c['value']!r}"
                    )

    # -- kinds ------------------------------------------------------------------------------

    def check_lookup(self) -> None:
        assert self.table is not None
        key = self.column(self.key_field(), "key_field")
        answer_field = self.column(self.program.get("answer_field"), "answer_field")
        if key is None or answer_field is None:
            return
        rows = self.valid_rows()
        named = [r for r in rows if self.named(self.row(r)[key], self.prompt.question)]
        # "Game Boy" is inside "Game Boy Advance": keep the longest of nested mentions.
        named = [
            r
            for r in named
            if not any(
                o != r
                and len(self.row(o)[key]) > len(self.row(r)[key])
                and phrase_in(self.row(o)[key], self.row(r)[key])
                for o in named
            )
        ]
        if not named:
            self.add(f"lookup: the question names none of the item's records by {key}")
            return
        distinct = {norm_text(self.row(r)[key]) for r in named}
        if len(distinct) > 1:
            self.add(
                f"lookup: the question names several records: "
                f"{sorted(self.row(r)[key] for r in named)}"
            )
        subject = named[0]
        self.subject = subject
        value = self.row(subject)[answer_field]
        if not value.strip():
            self.add(f"lookup: {self.label(subject)} has no {answer_field}")
        elif self.english_label(value) and not re.search(r"[._]en$", answer_field):
            # (a field of English names, "name_en", is asked in English by its name)
            self.add(
                f"language: the answer {self.answer!r} is left in English; in "
                f"{self.expected_language!r} it is "
                f"{self.accepted(value)[0]!r}"
            )
        elif not self.answer_states(value):
            self.add(
                f"lookup: the answer {self.answer!r} is not the {answer_field} of "
                f"{self.row(subject)[key]!r}, which is {value!r}"
            )
        pool = rows if self.book == "open" else range(len(self.table.rows))
        # Only the records the conditions select can be meant (a country's English name,
        # among the names in the one language the question states).
        pool = [
            r
            for r in pool
            if all(
                condition_holds(self.row(r)[c["field"]], c["op"], c["value"])
                for c in self.conditions
            )
        ]
        for other in pool:
            if other != subject and values_equal(self.row(other)[key], self.row(subject)[key]):
                if not values_equal(self.row(other)[answer_field], value):
                    self.add(
                        f"lookup: {key} {self.row(subject)[key]!r} is ambiguous: "
                        f"{self.label(other)} has {answer_field} "
                        f"{self.row(other)[answer_field]!r}"
                    )
        if self.book == "open":
            line = self.line_of(subject)
            if line is not None and not any(self.cell_shows(c, value) for c in line):
                self.add(
                    f"shown: the table line of {self.label(subject)} does not show "
                    f"its {answer_field}"
                )
            self.require_shown_fields([key, answer_field])

    def check_translated_answer(self) -> None:
        """The answer is the record's value of the key's field in the item's language."""
        wanted = self.translated_answer
        if wanted is None or self.subject is None or self.table is None:
            return
        value = self.row(self.subject).get(wanted, "")
        if not value.strip() or not self.answer_states(value):
            self.add(
                f"intent: the answer {self.answer!r} is not {self.label(self.subject)}'s "
                f"{wanted} ({value!r}), which the intent asks for"
            )

    def check_filtered_lookup(self) -> None:
        if not self.conditions:
            self.add("condition: a filtered lookup without conditions")
        self.check_lookup()

    def _ranked(self, minimum: int, exact: bool) -> None:
        assert self.table is not None
        # Records no column names (a wine, a flower) are shown lettered A, B, ... in a first
        # column: the letters are their names.
        records = self.program.get("records")
        lettered = (
            self.key_field() is None
            and self.table.key is None
            and self.book == "open"
            and isinstance(records, list)
            and records == [chr(65 + i) for i in range(len(records))]
        )
        key = None if lettered else self.column(self.key_field(), "key_field")
        field = self.column(self.program.get("field"), "field")
        direction = self.program.get("direction")
        rows = self.valid_rows()
        what = self.kind
        if exact and len(rows) != minimum:
            self.add(f"{what}: needs exactly {minimum} records, has {len(rows)}")
        elif len(rows) < minimum:
            self.add(f"{what}: needs at least {minimum} records, has {len(rows)}")
        if direction not in DIRECTIONS:
            self.add(f"{what}: direction {direction!r} is not max or min")
            return
        if (key is None and not lettered) or field is None or not rows:
            return
        if lettered and len(records) != len(self.rows):
            self.add(f"{what}: program.records does not letter each row")
            return

        def name(index: int) -> str:
            return str(records[self.rows.index(index)]) if lettered else self.row(index)[key]

        keyed: list[tuple[tuple[int, float | str], int]] = []
        for index in rows:
            order = order_key(self.row(index)[field])
            if order is None:
                self.add(
                    f"{what}: {self.label(index)} has no comparable {field} "
                    f"({self.row(index)[field]!r})"
                )
                return
            keyed.append((order, index))
        best = max(k for k, _ in keyed) if direction == "max" else min(k for k, _ in keyed)
        winners = [i for k, i in keyed if k == best]
        if len(winners) > 1:
            self.add(f"winner: tie on {field} between {[name(i) for i in winners]}")
        winner = winners[0]
        self.subject = winner
        right = (
            values_equal(self.answer, name(winner))
            if lettered
            else self.names_record(self.answer, name(winner))
        )
        if not right:
            self.add(
                f"winner: the answer {self.answer!r} is wrong: {name(winner)!r} "
                f"has the {'largest' if direction == 'max' else 'smallest'} {field}"
            )
        text = "\n".join([self.text, *(self.choices or [])])
        for index in rows:
            if lettered:
                line = self.line_of(index)
                if line is None or not any(values_equal(c, name(index)) for c in line):
                    self.add(f"shown: {self.label(index)} is not shown lettered {name(index)!r}")
            elif not self.named(name(index), text):
                self.add(f"shown: {self.label(index)} is not named in the prompt")
        if self.choices:
            keys = [name(i) for i in rows]
            for choice in self.choices:
                known = (
                    any(values_equal(choice, k) for k in keys)
                    if lettered
                    else any(self.names_record(choice, k) for k in keys)
                )
                if not known:
                    self.add(f"choices: {choice!r} is not one of the compared records")
        if self.book == "open":
            self.require_line_values(rows, [field])
            self.require_shown_fields([field] if lettered else [key, field])

    def check_compare(self) -> None:
        self._ranked(2, exact=True)

    def check_superlative(self) -> None:
        self._ranked(3, exact=False)

    def _aggregate_value(self) -> float | None:
        assert self.table is not None
        aggregate = self.program.get("aggregate") or ("count" if self.kind == "count" else None)
        if self.kind == "count" and aggregate != "count":
            self.add(f"count: a count item with aggregate {aggregate!r}")
        if aggregate not in AGGREGATES:
            self.add(f"aggregate: unknown aggregate {aggregate!r}")
            return None
        rows = self.valid_rows()
        selected = [
            r
            for r in rows
            if all(
                condition_holds(self.row(r)[c["field"]], c["op"], c["value"])
                for c in self.conditions
            )
        ]
        if aggregate == "count":
            return float(len(selected))
        field = self.column(self.program.get("field"), "field")
        if field is None:
            return None
        values: list[float] = []
        for index in selected:
            number = parse_number(self.row(index)[field])
            if number is None:
                self.add(f"aggregate: {self.label(index)} has no number in {field}")
                return None
            values.append(number)
        if not values:
            self.add("aggregate: no shown row satisfies the conditions")
            return None
        if aggregate == "sum":
            return math.fsum(values)
        if aggregate == "mean":
            return math.fsum(values) / len(values)
        if aggregate == "median":
            ordered = sorted(values)
            middle = len(ordered) // 2
            if len(ordered) % 2:
                return ordered[middle]
            return (ordered[middle - 1] + ordered[middle]) / 2
        return max(values) if aggregate == "max" else min(values)

    def _check_counted(self, tag: str) -> None:
        expected = self._aggregate_value()
        rows = self.valid_rows()
        if expected is not None:
            stated = parse_number(self.answer)
            if stated is None:
                self.add(f"{tag}: the answer {self.answer!r} is not a number")
            elif not aggregate_close(stated, expected):
                self.add(
                    f"{tag}: the answer {self.answer!r} is wrong; recomputed "
                    f"{round(expected, 4)!r} over the rows shown"
                )
            elif tag == "count" and not stated.is_integer():
                self.add(f"count: the answer {self.answer!r} is not a whole number")
            if self.choices:
                for choice in self.choices:
                    number = parse_number(choice)
                    if (
                        number is not None
                        and not values_equal(choice, self.answer)
                        and aggregate_close(number, expected)
                    ):
                        self.add(f"choices: {choice!r} is also correct")
        if self.book == "open":
            fields = [c["field"] for c in self.conditions]
            field = self.program.get("field")
            aggregate = self.program.get("aggregate") or "count"
            if field and aggregate != "count":
                fields.append(str(field))
            self.require_line_values(rows, fields)
            self.require_shown_fields(fields)

    def check_count(self) -> None:
        self._check_counted("count")

    def check_aggregate(self) -> None:
        self._check_counted("aggregate")

    def check_classify(self) -> None:
        assert self.table is not None
        label = self.column(self.program.get("answer_field"), "answer_field")
        features = self.features()
        if not features:
            self.add("feature: a classify item states no features")
            return
        if label is None:
            return
        columns = []
        for column, value in features.items():
            if column not in self.table.columns:
                self.add(f"feature: {column!r} is not a column of {self.table.id!r}")
                return
            if column == label:
                self.add(f"feature: the label {label!r} is given as a feature")
                return
            if not value_in_text(_cell_text(value), self.text):
                self.add(f"feature: {column} = {value!r} is not stated in the prompt")
            columns.append(column)

        def matches(index: int) -> bool:
            return all(values_equal(self.row(index)[c], _cell_text(features[c])) for c in columns)

        subjects = [r for r in self.valid_rows() if matches(r)]
        if not subjects:
            self.add("feature: no record of the item has the stated feature values")
            return
        subject = subjects[0]
        self.subject = subject
        true_label = self.row(subject)[label]
        if self.english_label(true_label):
            self.add(f"language: the answer {self.answer!r} is left in English")
        elif not self.answer_states(true_label):
            self.add(
                f"classify: the answer {self.answer!r} is not the record's {label} {true_label!r}"
            )
        clashes = {
            self.row(r)[label]
            for r in range(len(self.table.rows))
            if matches(r) and not values_equal(self.row(r)[label], true_label)
        }
        if clashes:
            self.add(f"classify: other rows with the same features are {sorted(clashes)}")
        if self.choices:
            for choice in self.choices:
                if not values_equal(choice, self.answer) and (
                    any(values_equal(choice, c) for c in clashes)
                    or values_equal(choice, true_label)
                ):
                    self.add(f"choices: {choice!r} is also correct")
        if self.book == "open":
            for cells in self.prompt.table_rows:
                shows_features = all(
                    any(cell_matches(c, self.row(subject)[f]) for c in cells) for f in columns
                )
                if shows_features and any(values_equal(c, true_label) for c in cells):
                    self.add("giveaway: the classified record is shown with its label")
            others = [r for r in self.valid_rows() if r != subject]
            self.require_line_values(others, [*columns, label])

    def check_pictures(self) -> None:
        """A classify, count or compare item over a table's pictures, reviewed from the files.

        The records are the dataset files the item's first tool step read (its trace), found
        by name in the reviewer's own rebuild of the table; the label comes from there, never
        from the item's metadata.
        """
        assert self.table is not None
        media = str(self.program.get("media_field"))
        if media not in self.table.columns:
            self.add(f"pictures: {media!r} is not a column of {self.table.id!r}")
            return
        if self.pictures != 1:
            self.add(f"pictures: the item shows {self.pictures} images, not one")
        trace = self.metadata.get("trace") or []
        files = next(
            (list(e.get("inputs")) for e in trace if isinstance(e, Mapping) and e.get("inputs")),
            [],
        )
        by_name = {Path(row[media]).name: i for i, row in enumerate(self.table.rows)}
        shown = [by_name.get(str(f)) for f in files]
        if not files or any(r is None for r in shown):
            self.add(f"pictures: the item shows {files}, which are not all records' {media}")
            return
        rows: list[int] = [r for r in shown if r is not None]
        if self.rows != rows:
            self.add(f"rows: program.rows {self.rows} are not the records pictured {rows}")
        self.rows = rows
        if self.book != ("open" if self.kind == "count" else "closed"):
            self.add(f"pictures: a {self.kind} over pictures is not {self.book}-book")
        if self.kind == "classify":
            self._pictured_classify(rows)
        elif self.kind == "count":
            self._pictured_count(rows)
        elif self.kind == "compare":
            self._pictured_compare(rows)
        else:
            self.add(f"pictures: a {self.kind} program cannot be asked over pictures")

    def _pictured_classify(self, rows: list[int]) -> None:
        label = self.column(self.program.get("answer_field"), "answer_field")
        if label is None:
            return
        if len(rows) != 1:
            self.add(f"pictures: a classification shows one record, not {len(rows)}")
            return
        true = self.row(rows[0])[label]
        self.subject = rows[0]
        if not self.answer_states(true):
            self.add(f"classify: the answer {self.answer!r} is not the pictured {label} {true!r}")
        for c in self.conditions:
            field = str(c.get("field"))
            if field in self.table.columns and not condition_holds(
                self.row(rows[0])[field], str(c.get("op")), c.get("value")
            ):
                self.add(
                    f"condition: the pictured record breaks {field} {c.get('op')} "
                    f"{c.get('value')!r}"
                )
        if self.choices and sum(self.states(c, true) for c in self.choices) != 1:
            self.add(f"choices: not exactly one choice is the pictured {label} {true!r}")

    def _pictured_count(self, rows: list[int]) -> None:
        if len(self.conditions) != 1:
            self.add("count: a count over pictures needs one condition")
            return
        (c,) = self.conditions
        field = str(c.get("field"))
        if field not in self.table.columns:
            self.add(f"condition: {field!r} is not a column of {self.table.id!r}")
            return
        n = sum(condition_holds(self.row(r)[field], str(c.get("op")), c.get("value")) for r in rows)
        if parse_number(self.answer) != n:
            self.add(
                f"count: {n} of the {len(rows)} pictures have {field} {c.get('op')} "
                f"{c.get('value')!r}, not {self.answer!r}"
            )
        question = self.prompt.question
        if not value_in_text(_cell_text(c.get("value")), question):
            self.add(f"count: the question does not say the value {c.get('value')!r}")
        if not value_in_text(str(len(rows)), question):
            self.add(f"count: the question does not say how many pictures ({len(rows)})")

    def _pictured_compare(self, rows: list[int]) -> None:
        field = self.column(self.program.get("field"), "field")
        if field is None:
            return
        if len(rows) != 2:
            self.add(f"pictures: a comparison shows two records, not {len(rows)}")
            return
        values = [parse_number(self.row(r)[field]) for r in rows]
        if None in values or values[0] == values[1]:
            self.add(f"compare: the two pictures' {field} values {values} have no single answer")
            return
        bigger = 0 if values[0] > values[1] else 1  # type: ignore[operator]
        best = bigger if self.program.get("direction", "max") == "max" else 1 - bigger
        if self.answer != "AB"[best]:
            self.add(
                f"compare: picture {'AB'[best]} (the first is A) has the "
                f"{self.program.get('direction')} {field}, not {self.answer!r}"
            )
        question = self.prompt.question
        if not (re.search(r"\bA\b", question) and re.search(r"\bB\b", question)):
            self.add("compare: the question does not name the pictures A and B")
        if self.expected_language == "en":
            word = "larger" if self.program.get("direction", "max") == "max" else "smaller"
            if word not in question:
                self.add(f"compare: the question does not ask for the {word} {field}")

    def ranks(self) -> bool:
        """A multihop that ranks first: ``direction`` (and ``field``) set, "rank then report"."""
        return self.kind == "multihop" and self.program.get("direction") not in (None, "")

    def _rank_winner(self, hops: Sequence[Any]) -> int | None:
        """A rank-then-report's winner among ``program.rows``, recomputed from the data, or
        None (with the problem) when the ranking has no single answer or the first hop does
        not start from the winner."""
        assert self.table is not None
        key = self.column(self.key_field(), "key_field")
        field = self.column(self.program.get("field"), "field")
        direction = self.program.get("direction")
        rows = self.valid_rows()
        if direction not in DIRECTIONS:
            self.add(f"winner: direction {direction!r} is not max or min")
            return None
        count = self.program.get("k")
        if count is not None and (isinstance(count, bool) or count != len(rows)):
            self.add(f"rows: k is {count!r} but program.rows lists {len(rows)} compared records")
        if key is None or field is None:
            return None
        if len(rows) < 2:
            self.add(f"winner: a rank-then-report compares at least two records, has {len(rows)}")
            return None
        keyed: list[tuple[tuple[int, float | str], int]] = []
        for index in rows:
            order = order_key(self.row(index)[field])
            if order is None:
                self.add(
                    f"winner: {self.label(index)} has no comparable {field} "
                    f"({self.row(index)[field]!r})"
                )
                return None
            keyed.append((order, index))
        if len({order[0] for order, _ in keyed}) > 1:
            self.add(f"winner: {field} mixes numbers and dates among the compared records")
            return None
        best = max(k for k, _ in keyed) if direction == "max" else min(k for k, _ in keyed)
        winners = [i for k, i in keyed if k == best]
        if len(winners) > 1:
            self.add(
                f"winner: tie on {field} ({self.row(winners[0])[field]!r}) between "
                f"{[self.row(i)[key] for i in winners]}"
            )
            return None
        winner = winners[0]
        self.subject = winner
        first = hops[0] if isinstance(hops[0], Mapping) else {}
        table = find_table(self.corpus, first.get("table"))
        if table is not None and table.id != self.table.id:
            self.add(
                f"hop: the first hop reads {table.id!r}, not the ranked table {self.table.id!r}"
            )
        first_key = _cell_text(first.get("key"))
        winner_key = self.row(winner)[key]
        extreme = "largest" if direction == "max" else "smallest"
        if not values_equal(first_key, winner_key):
            self.add(
                f"winner: the first hop starts from {first_key!r}, but {winner_key!r} has the "
                f"{extreme} {field} ({self.row(winner)[field]}) of the compared records"
            )
            return None
        row = first.get("row")
        if row is not None and row != winner:
            self.add(f"winner: the first hop's row {row!r} is not the winner's row {winner}")
        joins = self.program.get("joins")
        if isinstance(joins, list) and len(joins) != len(hops) - 1:
            self.add(
                f"hop: program.joins lists {len(joins)} join steps but the hops after the "
                f"winner are {len(hops) - 1}"
            )
        return winner

    def _rank_named(self, field: str) -> None:
        """Every compared record of a rank-then-report is before the test-taker: named in a
        closed-book question, or on its line of an open-book table with its ranked value."""
        assert self.table is not None
        key = self.key_field()
        if key is None or key not in self.table.columns:
            return
        rows = self.valid_rows()
        if self.book == "open":
            self.require_line_values(rows, [field])  # a missing line: check_book
            self.require_shown_fields([key, field])
            return
        for index in rows:
            if not self.named(self.row(index)[key], self.prompt.question):
                self.add(f"shown: {self.label(index)} is not named in the question")

    def check_multihop(self) -> None:
        hops = self.program.get("hops")
        ranked = self.ranks()
        if ranked:
            if not isinstance(hops, list) or not hops:
                self.add("hop: a rank-then-report multihop needs a hop from the winner")
                return
            winner = self._rank_winner(hops)
            ranked_field = self.program.get("field")
            if self.table is not None and ranked_field in self.table.columns:
                self._rank_named(str(ranked_field))
            if winner is None:
                return  # no single winner, or the hops do not start from it: reported
        elif not isinstance(hops, list) or len(hops) < 2:
            self.add("hop: a multihop item needs at least two hops")
            return
        value: str | None = None
        first_record: tuple[Table, int] | None = None
        records: list[tuple[Table, int, str]] = []  # each hop's record and the field read
        for number, hop in enumerate(hops, 1):
            if not isinstance(hop, Mapping):
                self.add(f"hop: hop {number} is not an object")
                return
            table = find_table(self.corpus, hop.get("table"))
            if table is None:
                self.add(f"hop: hop {number} names an unknown table {hop.get('table')!r}")
                return
            if table.id not in (self.intent.get("tables") or []):
                self.add(
                    f"intent: hop {number} uses table {table.id!r}, not one of the intent's tables"
                )
            key_field = self.column(hop.get("key_field"), f"hop {number} key_field", table)
            field = self.column(hop.get("field"), f"hop {number} field", table)
            if key_field is None or field is None:
                return
            key = _cell_text(hop.get("key"))
            if value is not None and not values_equal(key, value):
                self.add(
                    f"hop: hop {number} starts from {key!r}, but the previous hop led to {value!r}"
                )
                return
            filters = [c for c in self.hop_conditions if c["field"] in table.columns]
            if number == 1 and self.table is not None and table.id == self.table.id:
                # The first record is one of those the program's conditions select: among a
                # table of names in many languages, "Afganistan" in Turkish, not in Bosnian.
                filters += [
                    c
                    for c in self.conditions
                    if isinstance(c, Mapping)
                    and c.get("field") in table.columns
                    and c.get("op") in OPS
                    and "value" in c
                ]
            found = [
                i
                for i, r in enumerate(table.rows)
                if any(values_equal(v, key) for v in table.cell_values(i, key_field))
                and all(condition_holds(r[c["field"]], c["op"], c["value"]) for c in filters)
            ]
            if not found:
                self.add(f"hop: no {table.entity or table.id} has {key_field} {key!r}")
                return
            if len({norm_text(table.rows[i][field]) for i in found}) > 1:
                self.add(f"hop: {key_field} {key!r} matches several records of {table.id!r}")
                return
            if first_record is None:
                first_record = (table, found[0])
            records.append((table, found[0], field))
            value = table.rows[found[0]][field]
            if not value.strip():
                self.add(f"hop: {key!r} has no {field} in {table.id!r}")
                return
        assert value is not None and first_record is not None
        last_field = hops[-1].get("field")
        answer_field = self.program.get("answer_field")
        if answer_field and answer_field != last_field:
            self.add(
                f"hop: answer_field {answer_field!r} is not the last hop's field {last_field!r}"
            )
        first = hops[0]
        key_field = self.key_field()
        if key_field and key_field != first.get("key_field"):
            self.add(
                f"hop: key_field {key_field!r} is not the first hop's key field "
                f"{first.get('key_field')!r}"
            )
        first_key = _cell_text(first.get("key"))
        # (a name the chain reaches among one language's names is in that language: the
        # Finnish name of Namibia is Namibia)
        in_its_language = any(
            isinstance(c, Mapping) and "language" in str(c.get("field"))
            for c in self.hop_conditions
        )
        if self.english_label(value) and not in_its_language:
            self.add(f"language: the answer {self.answer!r} is left in English")
        elif not self.answer_states(value) and not (
            in_its_language and values_equal(self.answer, value)
        ):
            if ranked and self.names_record(self.answer, first_key):
                self.add(
                    f"hop: the answer {self.answer!r} names the winner; the question asks "
                    f"for its {answer_field or last_field}, {value!r}"
                )
            else:
                self.add(
                    f"hop: the answer {self.answer!r} is wrong; following the hops gives {value!r}"
                )
        if not ranked and not self.named(first_key, self.prompt.question):
            self.add(f"hop: the question does not name the starting record {first_key!r}")
        table, index = first_record
        if self.table is not None and table.id == self.table.id and index not in self.rows:
            self.add(
                f"rows: the first hop's record {first_key!r} (row {index}) is not in program.rows"
            )
        if self.choices:
            for choice in self.choices:
                if not values_equal(choice, self.answer) and self.states(choice, value):
                    self.add(f"choices: {choice!r} is also correct")
        if self.book == "open":
            for number, (table, index, field) in enumerate(records, 1):
                record = table.rows[index]
                if self.table is not None and table.id == self.table.id:
                    line = self.line_of(index)
                else:  # a joined table's record: a line showing its key (and, best, the field)
                    lines = [
                        cells
                        for cells in self.prompt.table_rows
                        if any(self.cell_shows(c, record[table.key or field]) for c in cells)
                    ]
                    line = next(
                        (c for c in lines if any(self.cell_shows(x, record[field]) for x in c)),
                        lines[0] if lines else None,
                    )
                if line is None:
                    self.add(f"shown: hop {number}'s record is not in the prompt table")
                elif ranked and number == 1 and field not in self.shown_fields():
                    continue  # the winner's line: its key and ranked value (checked) suffice
                elif not any(self.cell_shows(c, record[field]) for c in line):
                    self.add(f"shown: the prompt table does not show hop {number}'s {field}")

    # -- book, choices, language -------------------------------------------------------------

    def require_shown_fields(self, fields: Iterable[str]) -> None:
        shown = self.shown_fields()
        for field in fields:
            if field and field not in shown:
                self.add(f"shown: {field!r} is needed but not in shown_fields")

    def require_line_values(self, rows: Sequence[int], fields: Sequence[str]) -> None:
        for index in rows:
            line = self.line_of(index)
            if line is None:
                continue  # reported by check_book
            for field in fields:
                value = self.row(index)[field]
                if not any(self.cell_shows(c, value) for c in line):
                    self.add(
                        f"shown: the table line of {self.label(index)} does not show "
                        f"{field} = {value!r}"
                    )

    def check_book(self) -> None:
        assert self.table is not None
        if self.book == "open":
            if not self.prompt.table_rows:
                self.add("shown: an open-book item without a Markdown table of rows")
                return
            shown = self.shown_fields()
            if not shown:
                self.add("shown: an open-book item with no shown_fields")
            columns = {c for t in self.corpus.values() for c in t.columns}
            for field in shown:
                if field not in columns:
                    self.add(f"shown: shown_fields names an unknown column {field!r}")
            rows = self.valid_rows()
            hidden = {self.subject} if self.kind == "classify" else set()
            for index in rows:
                if index not in hidden and self.line_of(index) is None:
                    self.add(f"shown: {self.label(index)} is not shown in the prompt table")
            lines = len(self.prompt.table_rows)
            single = len(self.intent.get("tables") or []) <= 1
            allowed = {len(rows), len(rows) - len(hidden)}
            if single and lines not in allowed:
                self.add(
                    f"shown: the prompt table has {lines} data lines but program.rows "
                    f"lists {len(rows)} records"
                )
            return
        if self.prompt.table_rows:
            self.add("giveaway: a closed-book item shows a table of rows")
        self.check_giveaway()

    def check_giveaway(self) -> None:
        if self.kind in ("compare", "superlative") or not self.answer:
            return  # the question must name the candidates, the answer among them
        text = self.prompt.before_choices
        language = self.language or self.expected_language
        names: list[str] = []
        key = self.key_field()
        if self.table is not None and key in self.table.columns:
            names += [self.row(r)[key] for r in self.valid_rows()]
        names += [
            _cell_text(h.get("key"))
            for h in self.program.get("hops") or []
            if isinstance(h, Mapping)
        ]
        names += [_cell_text(v) for v in self.features().values()]
        for name in sorted({n for n in names if n}, key=len, reverse=True):
            for form in self.mentioned(name, language):
                if not norm_text(form):
                    continue
                pattern = r"(?<!\w)" + re.escape(form) + r"(?!\w)"
                text = re.sub(pattern, " ", text, flags=re.IGNORECASE)
        if value_in_text(self.answer, text):
            self.add(f"giveaway: the answer {self.answer!r} appears in the question")

    def check_choices(self) -> None:
        if self.choices is None:
            if self.item.get("choices") not in (None, []):
                self.add("choices: choices is not a list")
            return
        if self.expect.get("answer_format") not in (None, "multiple_choice"):
            self.add(
                f"intent: the intent asks for {self.expect.get('answer_format')!r}, not choices"
            )
        if len(self.choices) < 2:
            self.add("choices: fewer than two choices")
            return
        target = self.item.get("target")
        if not isinstance(target, str) or not re.fullmatch(r"[A-Z]", target):
            self.add(f"choices: target {target!r} is not a letter")
            return
        position = ord(target) - ord("A")
        if position >= len(self.choices):
            self.add(f"choices: target {target} is past the {len(self.choices)} choices")
            return
        if not values_equal(self.choices[position], self.answer):
            self.add(
                f"choices: choice {target} is {self.choices[position]!r}, not the answer "
                f"{self.answer!r}"
            )
        normalized = [norm_text(c) for c in self.choices]
        if len(set(normalized)) != len(normalized) or any(not c for c in normalized):
            self.add("choices: choices are not distinct and non-empty")
        if sum(values_equal(c, self.answer) for c in self.choices) > 1:
            self.add("choices: the answer appears in more than one choice")

    def check_language(self) -> None:
        expected = self.expected_language
        question = self.prompt.question
        scores = language_scores(question)
        words = len(re.findall(r"[^\W\d_]+", question))
        if words < 4:
            return
        english = scores["en"]
        if expected != "en":
            own = scores.get(expected)
            if (own is not None and english > own) or (own is None and english >= 0.2):
                self.add(f"language: the question reads as English, not {expected!r}")
                return
        else:
            others = {k: v for k, v in scores.items() if k != "en"}
            best = max(others, key=lambda k: others[k])
            if others[best] > english and others[best] >= 0.15:
                self.add(f"language: the question reads as {best!r}, not English")
                return
        self.check_detected_language(scores)

    def check_detected_language(self, scores: Mapping[str, float]) -> None:
        """lingua reads the question as another language, and the stopwords do not say
        otherwise (names alone, "Deutschland", do not make a question German)."""
        expected = self.expected_language
        confidence = detected_languages(self.prompt.question)
        if not confidence or expected not in confidence:
            return
        best = max(confidence, key=lambda k: confidence[k])
        if (
            best != expected
            and confidence[best] >= LINGUA_CONFIDENT
            and confidence[best] >= LINGUA_MARGIN * confidence[expected]
            and scores.get(best, 0.0) > scores.get(expected, 0.0)
        ):
            name = "English" if best == "en" else repr(best)
            self.add(f"language: the question reads as {name}, not {expected!r}")


def review_item(
    item: dict[str, Any],
    intent: dict[str, Any],
    corpus_dir: Path,
    *,
    starter: bool | None = None,
    bench_dir: Path | None = None,
) -> list[str]:
    """Return the problems a strict reviewer finds in one item (empty: accepted).

    ``starter``: read the item's tables from the starter catalog (True), from the corpus only
    (False), or decide from the item (None; see the module docstring).
    ``bench_dir``: the benchmark folder the item's media paths resolve against; with it (and
    ``tesseract`` on PATH) a drawn item's picture is read and compared with its
    ``rendered_text`` (:func:`drawn_problems`). Without it that check is skipped, not passed:
    :func:`ocr_skipped` says so and why.
    """
    bench = Path(bench_dir) if bench_dir is not None else None
    return _Review(item, intent, Path(corpus_dir), starter, bench).run()
