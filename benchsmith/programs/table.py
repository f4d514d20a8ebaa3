"""A table as question programs see it: typed columns, identifying columns, labels, the noun.

:class:`Table` is built from a dataset card and its records. Each :class:`Column` has a kind
(``number``, ``date``, ``category``, ``text``), says whether it identifies a record (every
record has a value and no two share it), and carries its label per language: the user's
label from the card (``FieldInfo.labels``), else, in English, the column name read as words
(``atomic_mass`` -> "atomic mass", ``population_millions`` -> "population (millions)").
A profile's statistics never become question words.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from types import SimpleNamespace
from typing import Any

from benchsmith.catalog.cards import get_path, value_text
from benchsmith.files import package_json
from benchsmith.programs.labels import (
    cldr_kind,
    is_place,
    language_code_column,
    singular,
    translate_value,
)

DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
UNITS = {
    "kmh": "km/h",
    "mph": "mph",
    "millions": "millions",
    "million": "millions",
    "billions": "billions",
    "thousands": "thousands",
    "km": "km",
    "km2": "km²",
    "kg": "kg",
    "g": "g",
    "m": "m",
    "cm": "cm",
    "mm": "mm",
    "min": "minutes",
    "mins": "minutes",
    "minutes": "minutes",
    "h": "hours",
    "hours": "hours",
    "s": "seconds",
    "usd": "USD",
    "eur": "EUR",
    "pct": "%",
    "percent": "%",
    "au": "AU",
    "c": "°C",
    "k": "K",
    "years": "years",
    "days": "days",
    "earths": "Earth masses",
    "mb": "MB",
    "gb": "GB",
}
DURATIONS = frozenset(
    "time duration length runtime delay wait run walk drive trip flight travel commute play "
    "playing screen cook cooking prep break lap race ride session journey".split()
)
"""Words before ``min`` that make it minutes ("runtime_min"); elsewhere it is a minimum."""
NUMBER_KEYS = frozenset(
    "season year edition id no number episode round issue volume tournament olympiad".split()
)
"""Words of a number column whose unique values name records ("season" 1990)."""
GENERIC_KEYS = {"name", "title", "label", "id", "code", "key", "names"}
NAME_HINTS = ("name", "title", "country", "city", "state", "species", "element", "word")
MAX_CATEGORIES = 40
"""A text column with at most this many distinct values is a category (a filter value)."""


def words_of(path: str) -> list[str]:
    """A column path as lower-case words (``atomicMass`` / ``atomic_mass`` -> atomic, mass)."""
    last = path.rsplit(".", 1)[-1]
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", last)
    return [w.lower() for w in re.split(r"[\W_]+", spaced) if w]


LANGUAGE_CODES = {
    "en": "English", "fr": "French", "de": "German", "es": "Spanish", "it": "Italian",
    "pt": "Portuguese", "nl": "Dutch", "ja": "Japanese", "zh": "Chinese", "ru": "Russian",
}  # fmt: skip
AREA_UNITS = {
    ("sq", "mi"): "square miles", ("sq", "km"): "km²", ("sq", "m"): "m²",
    ("g", "mol"): "g/mol", ("km", "h"): "km/h", ("m", "s"): "m/s", ("kg", "m3"): "kg/m³",
}  # fmt: skip
NOUNS = {
    "staff": "staff member",
    "people": "person",
    "personnel": "person",
    "olympic": "Olympic Games",
    "olympics": "Olympic Games",
    "game": "game",
    "series": "series",
    "species": "species",
}
"""Record nouns that a dataset's name gives as a mass noun."""
LANGUAGE_WORDS = {
    "english": "en", "french": "fr", "german": "de", "spanish": "es", "italian": "it",
    "portuguese": "pt", "dutch": "nl", "japanese": "ja", "chinese": "zh", "russian": "ru",
    "arabic": "ar", "polish": "pl", "swedish": "sv", "greek": "el", "turkish": "tr",
    "korean": "ko", "hindi": "hi",
}  # fmt: skip
"""A language's English name, as a column label's first word or an intent says it."""
CODE_WORDS = frozenset("code symbol abbreviation iso id ticker acronym callsign".split())
CODE = re.compile(r"[A-Z0-9][A-Z0-9.\-]{0,9}|[A-Z][a-z]?")
IDENTIFIER = re.compile(r"[A-Za-z]+[_-]?\d+[A-Za-z]?")
"""A value that names a class by number: "class_0", "type2", "grade-3"."""
"""A value that is a code: "JPY", "US-CA", "Fe" (an element symbol)."""
PERSON_FIELDS = frozenset(
    "author director manager writer founder president leader captain coach inventor "
    "discoverer creator composer artist painter owner ceo mayor governor king queen "
    "architect designer winner champion head chair athlete player holder scientist "
    "actor actress singer poet novelist explorer astronaut pilot founder".split()
)
"""Fields whose values are people: a lookup asks "Who is the author of ...?"."""


ABBREVIATIONS: dict[str, str] = package_json("benchsmith.programs", "table_abbreviations.json")
"""Abbreviated words of column names, read as the words people write."""
QUALIFIERS = frozenset("maximum minimum average mean total median".split())


def noun_phrase(words: Sequence[str]) -> str:
    """Column words as an English noun phrase: abbreviations spelled out, a qualifier first.

    ``temp max`` -> "maximum temperature", ``avg price`` -> "average price".
    """
    spelled = [ABBREVIATIONS.get(w, w) for w in words]
    if len(spelled) > 1 and spelled[-1] in QUALIFIERS:
        spelled = [spelled[-1], *spelled[:-1]]
    if len(spelled) > 1 and spelled[0] == "number" and spelled[1] != "of":
        spelled = ["number", "of", *spelled[1:]]  # num_employees -> "number of employees"
    return " ".join(spelled)


def english_label(path: str) -> str:
    """The column name read as an English noun phrase, with a trailing unit in parentheses.

    ``population_millions`` -> "population (millions)", ``area_sq_mi`` -> "area (square
    miles)", ``name_de`` -> "German name", ``temp_max_c`` -> "maximum temperature (°C)".
    """
    words = words_of(path)
    if len(words) > 2 and words[-1].isdigit() and len(words[-1]) == 4 and words[-2] in UNITS:
        # population_millions_2020 -> "population (millions, 2020)"
        return f"{noun_phrase(words[:-2])} ({UNITS[words[-2]]}, {words[-1]})"
    if len(words) > 2 and tuple(words[-2:]) in AREA_UNITS:
        return f"{noun_phrase(words[:-2])} ({AREA_UNITS[(words[-2], words[-1])]})"
    if len(words) > 1 and words[-1] in LANGUAGE_CODES:
        return f"{LANGUAGE_CODES[words[-1]]} {' '.join(words[:-1])}"
    if words[-1:] == ["min"] and not DURATIONS & set(words[:-1]):
        return noun_phrase(words)  # temp_min: the minimum temperature, not minutes
    if len(words) > 1 and words[-1] in UNITS:
        return f"{noun_phrase(words[:-1])} ({UNITS[words[-1]]})"
    return noun_phrase(words) or path


def plural(noun: str) -> str:
    """An English noun made plural by the common rules (country -> countries)."""
    if noun.endswith("y") and len(noun) > 2 and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def article(noun: str) -> str:
    """``a`` or ``an`` before an English noun phrase."""
    return "an" if noun[:1].lower() in "aeiou" else "a"


def as_date(value: Any) -> date | None:
    """An ISO date (``YYYY-MM-DD``) as a date, else None."""
    if not isinstance(value, str):
        return None
    m = DATE.match(value.strip())
    if not m:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def as_number(value: Any) -> float | None:
    """A finite number from a record value (booleans and text are not numbers)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            number = float(value.strip().replace(",", ""))
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


@dataclass
class Column:
    """One column of a table, as a question program uses it.

    Attributes:
        path: The record field (dotted path).
        kind: ``number``, ``date``, ``category`` (few distinct values) or ``text``.
        unique: Every record has a value and no two records share it (it names a record).
        labels: The column's label per language (English from the name unless given).
        values: The distinct values as text, for categories (the filter vocabulary).
        translations: Per language, the field holding this column's value in it.
    """

    path: str
    kind: str
    unique: bool
    labels: dict[str, str]
    values: list[str] = field(default_factory=list)
    translations: dict[str, str] = field(default_factory=dict)
    names: bool = False
    """Whether its value names a record: unique text, or a unique year or number ("season")."""
    ambiguous: frozenset[str] = frozenset()
    """Of a unique column, the case-folded values two records share ("" when some record has
    none): a record with one of them is never the record a question names."""
    listed: bool = False
    """A field of lists read as the one value each holds (:func:`single_values`)."""

    def names_row(self, text: str) -> bool:
        """Whether a record with this value can be named by it (not shared, not empty)."""
        return text.casefold() not in self.ambiguous

    def label(self, language: str = "en") -> str | None:
        """The label in ``language`` (None: none known)."""
        return self.labels.get(language)

    @property
    def orderable(self) -> bool:
        """Whether records can be ranked by this column (numbers and dates)."""
        return self.kind in ("number", "date")


@dataclass
class Table:
    """The records of one dataset with typed, labelled columns.

    Attributes:
        id: The dataset id.
        records: Every record, in file order (row index = position).
        columns: The usable columns by path (media and nested lists are left out).
        key: The column that names a record in questions (None: records have no name).
        entity: The noun for one record, per language (``planet``).
        media: The record fields holding a file the item can show, by path, with their
            modality (``image`` or ``audio``): the digit's picture a classification asks
            about.
    """

    id: str
    records: list[dict[str, Any]]
    columns: dict[str, Column]
    key: str | None
    entity: dict[str, str]
    media: dict[str, str] = field(default_factory=dict)
    subset_of: int = 0
    """Of a :meth:`subset`, how many records the whole table has (0: the whole table)."""

    def media_file(self, row: int, path: str) -> str:
        """The file a record's media field holds ("" when it has none)."""
        value = get_path(self.records[row], path)
        return value if isinstance(value, str) else ""

    def written_in(self, path: str, language: str) -> bool:
        """Whether a column holds text in ``language`` by its name (``name_fr``, "French name")."""
        if path.lower().endswith(f"_{language}"):
            return True
        words = self.columns[path].labels.get("en", "").lower().split()
        return bool(words) and LANGUAGE_WORDS.get(words[0]) == language

    def language_of(self, path: str) -> str | None:
        """The language a column is written in, by its name or label ("names.fr", "in French")."""
        match = re.search(r"[._]([a-z]{2})$", path.lower())
        if match and match.group(1) in set(LANGUAGE_WORDS.values()):
            return match.group(1)  # "name_en", "names.fr"
        words = self.columns[path].labels.get("en", "").lower().split()
        if len(words) >= 2 and words[-2] == "in" and words[-1] in LANGUAGE_WORDS:
            return LANGUAGE_WORDS[words[-1]]  # "the country's name in French"
        return LANGUAGE_WORDS.get(words[0]) if words else None

    def neutral(self, path: str) -> bool:
        """Whether a column's values read the same in every language.

        Codes ("JPY", "Fe", "ORD"), people's names ("Usain Bolt") and other proper names
        ("Hermitage Museum") are not translated; places, languages, currencies and common
        category words need a name in the item's language.
        """
        column = self.columns[path]
        words = column.labels.get("en", "").split()
        if column.kind == "text" and self._translations_table and not self.written_in(path, "en"):
            return True  # a table of translations: each record's text is in its own language
        if column.kind == "text" and self._translations_table and self.language_of(path):
            return True  # ... and its column of names in one language ("name_en") stays so
        values = [self.text(r, path) for r in self.rows()]
        present = [v for v in values if v]
        if words and words[-1] in CODE_WORDS:
            return True
        if present and all(CODE.fullmatch(v) for v in present):
            return True
        if present and all(IDENTIFIER.fullmatch(v) for v in present):
            return True  # "class_0", "type-2b": names of classes, not words of a language
        # A "winner" column of countries translates; one of people's names does not.
        places = sum(1 for v in present if is_place(v))
        if bool(words) and words[-1] in PERSON_FIELDS and places * 2 < len(present):
            return True
        # Proper names (museums, titles, brands) are written the same in a French item:
        # many distinct capitalised values, none a CLDR name or a common category word.
        # A few homonyms of a CLDR name among many ("Lebanon", a town of New Hampshire, among
        # 3,000 airport cities) do not make the column one of places to translate.
        distinct = set(present)
        named = sum(1 for v in distinct if cldr_kind(v) or translate_value(v, "fr"))
        return (
            len(distinct) >= 5
            and all(v[:1].isupper() for v in distinct)
            and (named == 0 or (len(distinct) >= 100 and named * 20 < len(distinct)))
        )

    def value(self, row: int, path: str) -> Any:
        """The raw value of a column in a row (of a list column, its one value or None)."""
        raw = get_path(self.records[row], path)
        column = self.columns.get(path)
        if column is not None and column.listed:
            return raw[0] if isinstance(raw, list) and len(raw) == 1 else None
        return raw

    def text(self, row: int, path: str, language: str = "en") -> str:
        """A value as shown to a test-taker (in ``language`` where the data translates it)."""
        column = self.columns.get(path)
        if column is not None and language in column.translations:
            raw = get_path(self.records[row], column.translations[language])
            if column.listed:  # the one value of the list, as the column's own
                raw = raw[0] if isinstance(raw, list) and len(raw) == 1 else None
            translated = value_text(raw)
            if translated:
                return translated
        return value_text(self.value(row, path))

    def order_value(self, row: int, path: str) -> float | None:
        """A number to rank by: the number, or a date's ordinal (None: missing)."""
        raw = self.value(row, path)
        if self.columns[path].kind == "date":
            day = as_date(raw)
            return float(day.toordinal()) if day else None
        return as_number(raw)

    def rows(self) -> range:
        """Every row index."""
        return range(len(self.records))

    def subset(self, rows: Sequence[int]) -> Table:
        """The table of some of its records, its columns typed and its key chosen anew.

        Names repeat across a table of translations (a country's name in 125 languages),
        but not among the records of one language: there, a name names its record.
        """
        kinds = {"number": "number", "date": "date", "category": "category", "text": "text"}
        fields = [
            SimpleNamespace(
                path=c.path,
                modality="json" if c.listed else kinds.get(c.kind, "text"),
                labels=dict(c.labels),
                translations=dict(c.translations),
            )
            for c in self.columns.values()
        ]
        records = [self.records[r] for r in rows]
        view = build_table(self.id, records, fields, card_entity=self.entity)
        view.subset_of = len(self.records)
        return view

    @cached_property
    def _translations_table(self) -> bool:
        """Whether a "language" column gives each record's language (ISO 639 codes)."""
        return any(
            "language" in words_of(c.path) and language_code_column(self, c.path)
            for c in self.columns.values()
            if c.kind == "category"
        )

    @cached_property
    def value_words(self) -> frozenset[str]:
        """Every word (lower case) of the records' text values: "finland" of "Finland"."""
        found: set[str] = set()
        for column in self.columns.values():
            if column.kind in ("text", "category"):
                for row in self.rows():
                    found.update(
                        re.findall(r"\w+", value_text(self.value(row, column.path)).lower())
                    )
        return frozenset(found)

    def unique_columns(self) -> list[Column]:
        """The columns that name a record, the key first."""
        cols = [c for c in self.columns.values() if c.names]
        return sorted(cols, key=lambda c: (c.path != self.key, list(self.columns).index(c.path)))

    def noun(self, language: str = "en") -> str | None:
        """The noun for one record in ``language`` (None: none known)."""
        return self.entity.get(language)


def _integer(value: Any) -> bool:
    number = as_number(value)
    return number is not None and number.is_integer()


def _kind(values: list[Any], modality: str) -> str:
    present = [v for v in values if v not in (None, "")]
    if not present:
        return "text"
    if modality == "number" or all(as_number(v) is not None for v in present):
        if all(not isinstance(v, str) or as_number(v) is not None for v in present):
            return "number"
    if all(as_date(v) for v in present):
        return "date"
    distinct = {value_text(v).casefold() for v in present}
    if modality == "category" or modality == "boolean" or len(distinct) <= MAX_CATEGORIES:
        return "category"
    return "text"


def entity_nouns(
    dataset_id: str, key: str | None, card_entity: Mapping[str, str], intent: str = ""
) -> dict[str, str]:
    """The noun for one record: the card's, a specific key column, or the dataset's name.

    The dataset's name gives candidates (``countries_small`` -> country, small); one the
    intent uses wins, else the first.
    """
    nouns = dict(card_entity)
    if "en" in nouns:
        return nouns
    if key and words_of(key) and words_of(key)[-1] in ("date", "day"):
        nouns["en"] = "day"  # the rows of a daily log are days
        return nouns
    if key and words_of(key) and words_of(key)[-1] not in (*GENERIC_KEYS, "year", "no", "number"):
        nouns["en"] = " ".join(words_of(key))
        return nouns
    stem = re.sub(r"\.(csv|jsonl?|parquet|tsv)$", "", dataset_id)
    options = [singular(w) for w in re.split(r"[\W_]+", stem) if w.isalpha() and len(w) > 2]
    said = {singular(w) for w in re.findall(r"[a-z]+", intent.lower())}
    chosen = next((o for o in options if o in said), options[0] if options else "item")
    nouns["en"] = NOUNS.get(chosen, chosen)
    return nouns


def build_table(
    dataset_id: str,
    records: Sequence[dict[str, Any]],
    fields: Iterable[Any],
    *,
    card_entity: Mapping[str, str] | None = None,
    intent: str = "",
) -> Table:
    """A :class:`Table` from a dataset's records and its card's fields.

    Args:
        dataset_id: The dataset id.
        records: Every record.
        fields: The card's :class:`~benchsmith.catalog.cards.FieldInfo` objects.
        card_entity: The card's noun for one record per language (may be empty).
        intent: The intent, to choose the record noun among the dataset name's words.
    """
    records = list(records)
    fields = list(fields)
    columns: dict[str, Column] = {}
    media: dict[str, str] = {}
    for info in fields:
        if info.modality in ("image", "audio"):
            media[info.path] = info.modality
            continue
        values = [get_path(r, info.path) for r in records]
        listed = single_values(values)
        if listed is not None:
            values = listed  # ["Euro"]: the one value most records' lists hold
        elif info.modality in ("json", "other") or any(isinstance(v, dict | list) for v in values):
            continue
        kind = _kind(values, info.modality)
        label_words = english_label(info.path).split()
        if (
            kind == "number"
            and label_words[-1:] in (["code"], ["codes"])
            and all(isinstance(v, str) for v in values if v not in (None, ""))
        ):
            kind = "text"  # calling codes "376", "44": written as text, never ranked
        texts = [value_text(v) for v in values]
        present = [t for t in texts if t]
        # A column names records when nearly every record has a value of its own (a
        # real table has a few namesakes: two airports called "Municipal", a car model
        # sold twice); the records whose value is shared or empty are never drawn as the
        # one a question names (:attr:`Column.ambiguous`).
        seen = counts(present)
        shared = frozenset(t for t, n in seen.items() if n > 1)
        single = sum(1 for t in present if t.casefold() not in shared)
        unique = len(records) > 1 and (
            (kind in ("text", "date") and single >= NAMES_SHARE * len(records))
            or (single == len(records) and (kind == "category" or all(_integer(v) for v in values)))
        )
        numbers = [as_number(v) for v in values]
        # A unique date names its record: a day of a daily log ("on 2012-01-10").
        names = unique and (
            kind in ("text", "category", "date")
            or (
                kind == "number"
                and (
                    bool(NUMBER_KEYS & set(words_of(info.path)))
                    or all(n is not None and 1000 <= n <= 2100 for n in numbers)
                )
            )
        )
        labels = {"en": english_label(info.path)}
        labels.update(getattr(info, "labels", {}) or {})
        distinct = list(dict.fromkeys(present)) if kind == "category" else []
        columns[info.path] = Column(
            path=info.path,
            kind=kind,
            unique=unique,
            labels=labels,
            values=distinct,
            translations=dict(getattr(info, "translations", {}) or {}),
            names=names,
            ambiguous=(shared | ({""} if len(present) < len(records) else set()))
            if unique
            else frozenset(),
            listed=listed is not None,
        )
    key = _pick_key(columns)
    return Table(
        id=dataset_id,
        records=records,
        columns=columns,
        key=key,
        entity=entity_nouns(dataset_id, key, card_entity or {}, intent),
        media=media,
    )


SINGLE_SHARE = 0.8
"""Share of a list column's filled records that hold one value, for it to be a column."""


def single_values(values: Sequence[Any]) -> list[Any] | None:
    """A list column read as the one value each record's list holds, or None (not one).

    A record's currencies ``["EUR"]`` or calling codes ``["33"]``: most records hold one
    value, and the column is a column of those values; a record whose list holds several
    (or none) has no value in it, so no question asks about it. Lists of objects, or lists
    that hold several values in many records (a country's borders), are not columns.
    """
    lists = [v for v in values if isinstance(v, list)]
    if not lists or len(lists) + sum(v is None for v in values) < len(values):
        return None
    filled = [v for v in lists if v]
    if any(isinstance(x, dict | list) for v in filled for x in v):
        return None
    if not filled or sum(len(v) == 1 for v in filled) < SINGLE_SHARE * len(filled):
        return None
    return [v[0] if isinstance(v, list) and len(v) == 1 else None for v in values]


NAMES_SHARE = 0.6
"""Share of records whose value in a column is theirs alone, for the column to name records."""


def _pick_key(columns: Mapping[str, Column]) -> str | None:
    """The column that names records: a unique text column, name-like first."""
    unique = [c for c in columns.values() if c.names]
    if not unique:
        return None

    order = list(columns)

    def rank(c: Column) -> tuple[int, int, int]:
        words = words_of(c.path)
        exact = words in (["name"], ["title"])
        hint = any(h in words for h in NAME_HINTS) or (
            # A first column "season" / "year" names the rows ("1998" of a finals table).
            c.kind == "number" and order.index(c.path) == 0 and bool(NUMBER_KEYS & set(words))
        )
        kind = {"text": 0, "category": 1}.get(c.kind, 2)
        return (0 if exact else 1 if hint else 2, kind, order.index(c.path))

    return sorted(unique, key=rank)[0].path


def counts(texts: Iterable[str]) -> Counter[str]:
    """Case-folded counts of texts."""
    return Counter(t.casefold() for t in texts)
