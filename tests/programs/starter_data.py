"""The tables of benchsmith's starter catalog, rebuilt for the reviewer from their packages.

Items built with no ``--dataset`` read benchsmith's *starter catalog*: datasets that ship inside
PyPI packages, written once as JSON Lines. Their ``program.rows`` index those records, so the
reviewer needs the same records in the same order. This module rebuilds them *without
benchsmith*, straight from the packages (scikit-learn, vega_datasets, pycountry, countryinfo,
babel + pytz), and turns them into the reviewer's :class:`~reviewer.Table`:

* ``iris``, ``wine``: scikit-learn's measurements as floats, feature names in snake case
  (``sepal length (cm)`` -> ``sepal_length_cm``), the class name last (``species``,
  ``cultivar``); ``diabetes``: ``load_diabetes(scaled=False)`` with the documented column
  names and ``progression``; ``digits``: one record per image, ``images/NNNN.png`` and its
  ``label`` (the image files themselves are not needed to judge an item).
* ``vega-cars``: the package's JSON, ``Year`` cut to its four digits, the four names spelled
  "honda Accelerationord" read "honda accord"; ``seattle-weather``
  (dates written ``2012-01-01``, not ``2012/01/01``) and ``us-airports``: the package's CSV,
  each cell read as a number (an integer without leading zero, or a float), a boolean
  (``true``/``false``), nothing (``""``, ``nan``, ``null``) or else the text as written.
* ``world-countries``: pycountry's countries by alpha-2 code, with the facts of countryinfo
  (capital, region, languages, currencies, population, area, calling codes, borders,
  demonym), English names as a sentence uses them (ISO's common name, else the name
  uninverted), names in de/es/fr/it/nl/pt from the iso-codes translations pycountry ships,
  and capitals named in those languages where CLDR (babel) names the capital as the city of
  one of its country's time zones. A few capitals are corrected or left out (see
  :data:`CAPITAL_FIXES`, :data:`NO_SINGLE_CAPITAL`).
* ``country-names-multilingual``: one record per country and translation locale that names at
  least half the countries.

In a table, a nested object becomes one column per key (``names.de``) and a list one text
cell (``"FRA, ESP"``), by :func:`reviewer.table_from_records`.

Where the data cannot be reproduced without guessing, the build raises
:class:`StarterDataError` (naming the record) rather than pick a value; a missing package
raises :class:`StarterUnavailable`.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import math
import os
import re
import struct
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from reviewer import Table, table_from_records


class StarterUnavailable(RuntimeError):
    """A package a starter table is built from is not installed."""


class StarterDataError(RuntimeError):
    """The packages' data cannot be turned into the starter records without a guess."""


# The languages world-countries names countries and capitals in (``names.<code>``).
NAME_LANGUAGES = ("de", "es", "fr", "it", "nl", "pt")
# Languages of items the reviewer gives translated names for (accepted forms of values).
ITEM_LANGUAGES = ("de", "es", "fr", "it", "nl", "pt")

# countryinfo's data dates from the mid-2010s; capitals that changed or that it leaves out.
CAPITAL_FIXES = {
    "KZ": "Astana",  # called Nur-Sultan 2019-2022, Astana again since
    "BI": "Gitega",  # political capital since 2019
    "GB": "London",  # the entry has none
}
# Places whose capital has no single undisputed answer: the record gives none.
NO_SINGLE_CAPITAL = frozenset(
    {
        "BO",  # Sucre (constitutional) / La Paz (seat of government)
        "ZA",  # Pretoria, Cape Town, Bloemfontein
        "SZ",  # Mbabane / Lobamba
        "LK",  # Sri Jayawardenepura Kotte / Colombo
        "MS",  # Plymouth abandoned; government in Brades
        "TK",  # each atoll has its own centre
        "NR",  # no official capital
        "IL",  # Jerusalem's status disputed
        "PS",  # disputed
        "EH",  # disputed territory
    }
)
# A CLDR city name that is the name of the zone's island, not of the capital.
CITY_NAME_FIXES = {("PM", "es"): "San Pedro"}
SHARE_OF_COUNTRIES = 0.5  # a translation locale is kept when it names half the countries
SCRIPT_VARIANTS = {"latin": "latn", "cyrillic": "cyrl", "iqtelif": "latn"}
DIABETES_COLUMNS = (
    "age", "sex", "bmi", "bp", "s1_tc", "s2_ldl", "s3_hdl", "s4_tch", "s5_ltg", "s6_glu",
)  # fmt: skip


@dataclass(frozen=True)
class StarterTable:
    """How to build one starter table and what the reviewer needs to know about it."""

    id: str
    packages: tuple[str, ...]  # import names the records cannot be built without
    key: str | None
    entity: str
    build: Callable[[], list[dict[str, Any]]]
    joins: tuple[dict[str, str], ...] = ()


# -- values ------------------------------------------------------------------------------------
def _require(*modules: str) -> None:
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise StarterUnavailable(f"package(s) not installed: {', '.join(missing)}")


def _clean(value: Any) -> Any:
    """A top-level record value as the catalog stores it: a missing value, blank text or a
    non-finite float is None; a numpy scalar is a Python one; lists and objects unchanged."""
    if isinstance(value, (list, dict)):
        return value
    if type(value).__module__ == "numpy":
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, str) and not value.strip():
        return None
    return value


def _cleaned(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = [{k: _clean(v) for k, v in r.items()} for r in records]
    if not out:
        raise StarterDataError("the source gave no records")
    return out


_CSV_MISSING = frozenset({"", "NaN", "nan", "null", "NULL"})
_CSV_INT = re.compile(r"[+-]?(?:0|[1-9]\d*)")
_CSV_FLOAT = re.compile(r"[+-]?(?:(?:0|[1-9]\d*)(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def csv_cell(text: str) -> Any:
    """A CSV cell read as a value: None, an int, a finite float, a bool or the text itself.

    ``"007"`` (a leading zero) and ``"inf"`` stay text; an integer outside 64 bits too.
    """
    if text in _CSV_MISSING:
        return None
    if _CSV_INT.fullmatch(text):
        number = int(text)
        return number if -(2**63) <= number < 2**63 else text
    if _CSV_FLOAT.fullmatch(text):
        value = float(text)
        return value if math.isfinite(value) else text
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    return text


def read_csv(path: Path) -> list[dict[str, Any]]:
    """Every data row of a comma-separated file (header names stripped, blank lines skipped)."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = [row for row in csv.reader(handle, strict=True) if row]
    header = [h.strip() for h in rows[0]]
    out = []
    for number, row in enumerate(rows[1:], 1):
        if len(row) != len(header):
            raise StarterDataError(f"{path.name}: row {number} has {len(row)} cells")
        out.append({h: csv_cell(cell) for h, cell in zip(header, row, strict=True)})
    return out


def snake_case(name: str) -> str:
    """``"sepal length (cm)"`` -> ``"sepal_length_cm"``: accents folded, other runs -> ``_``."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    return "_".join(w for w in re.split(r"[^a-z0-9]+", folded.lower()) if w)


# -- scikit-learn ------------------------------------------------------------------------------
def _sklearn_rows(bunch: Any, names: list[str], target: str, label: Callable[[Any], Any]) -> Any:
    for features, value in zip(bunch.data, bunch.target, strict=True):
        record = {n: float(x) for n, x in zip(names, features, strict=True)}
        record[target] = label(value)
        yield record


def _classes(loader: str, target: str) -> list[dict[str, Any]]:
    _require("sklearn")
    import sklearn.datasets

    bunch = getattr(sklearn.datasets, loader)()
    names = [snake_case(n) for n in bunch.feature_names]
    return _cleaned(_sklearn_rows(bunch, names, target, lambda t: str(bunch.target_names[t])))


def build_iris() -> list[dict[str, Any]]:
    return _classes("load_iris", "species")


def build_wine() -> list[dict[str, Any]]:
    return _classes("load_wine", "cultivar")


def build_diabetes() -> list[dict[str, Any]]:
    _require("sklearn")
    from sklearn.datasets import load_diabetes

    bunch = load_diabetes(scaled=False)
    if len(bunch.feature_names) != len(DIABETES_COLUMNS):
        raise StarterDataError(f"load_diabetes has features {bunch.feature_names}")
    return _cleaned(_sklearn_rows(bunch, list(DIABETES_COLUMNS), "progression", float))


def build_digits() -> list[dict[str, Any]]:
    _require("sklearn")
    from sklearn.datasets import load_digits

    labels = load_digits().target
    return _cleaned({"image": f"images/{i:04d}.png", "label": int(t)} for i, t in enumerate(labels))


# -- vega_datasets -----------------------------------------------------------------------------
def _vega_path(name: str) -> Path:
    _require("vega_datasets")
    from vega_datasets import local_data

    path = Path(getattr(local_data, name.replace("-", "_")).filepath)
    if not path.is_file():
        raise StarterUnavailable(f"vega_datasets does not ship {name} locally")
    return path


def build_vega_cars() -> list[dict[str, Any]]:
    raw = json.loads(_vega_path("cars").read_text(encoding="utf-8"))
    return _cleaned(
        {
            **r,
            # The package's slip: "honda accord" spelled "honda Accelerationord".
            "Name": re.sub("Accelerationord", "accord", r["Name"]) if r.get("Name") else None,
            "Year": str(r.get("Year", ""))[:4] or None,
        }
        for r in raw
    )


def build_seattle_weather() -> list[dict[str, Any]]:
    rows = read_csv(_vega_path("seattle-weather"))
    return _cleaned({**r, "date": str(r["date"]).replace("/", "-")} for r in rows)


def build_us_airports() -> list[dict[str, Any]]:
    return _cleaned(read_csv(_vega_path("airports")))


# -- pycountry, countryinfo, babel -------------------------------------------------------------
def read_mo(path: Path) -> dict[str, str]:
    """The messages of a GNU ``.mo`` file (msgid -> msgstr), the header entry left out."""
    data = path.read_bytes()
    magic = struct.unpack("<I", data[:4])[0]
    order = {0x950412DE: "<", 0xDE120495: ">"}.get(magic)
    if order is None:
        raise StarterDataError(f"{path}: not a .mo file")
    _, count, originals, translations = struct.unpack(order + "4I", data[4:20])

    def entry(table: int, index: int) -> bytes:
        length, offset = struct.unpack(
            order + "2I", data[table + 8 * index : table + 8 * index + 8]
        )
        return data[offset : offset + length]

    pairs = [(entry(originals, i), entry(translations, i)) for i in range(count)]
    header = dict(pairs).get(b"", b"").decode("ascii", "replace")
    match = re.search(r"charset=([-\w]+)", header)
    charset = match.group(1) if match else "utf-8"
    out: dict[str, str] = {}
    for msgid, msgstr in pairs:
        if not msgid:
            continue
        if b"\x00" in msgid:  # a plural entry: the singular and the first form
            msgid, msgstr = msgid.split(b"\x00")[0], msgstr.split(b"\x00")[0]
        out[msgid.decode(charset)] = msgstr.decode(charset)
    return out


def _country_names_table(pycountry: Any, locale: str) -> dict[str, str] | None:
    mo = Path(pycountry.LOCALES_DIR) / locale / "LC_MESSAGES" / "iso3166-1.mo"
    return read_mo(mo) if mo.is_file() else None


def _get(database: Any, **key: str) -> Any:
    try:
        return database.get(**key)
    except (KeyError, LookupError):  # older pycountry raised on a missing key
        return None


def _language_name(pycountry: Any, code: str) -> str | None:
    found = _get(pycountry.languages, alpha_2=code) or _get(pycountry.languages, alpha_3=code)
    return str(found.name) if found is not None else None


def sentence_name(country: Any) -> str:
    """The English name a sentence uses: ISO's common name, else its name read in order.

    ``"Congo, The Democratic Republic of the"`` -> ``"Democratic Republic of the Congo"``
    (its official name has no comma, else the two parts swapped), ``"Virgin Islands,
    British"`` -> ``"British Virgin Islands"``; a name with no such inversion is kept.
    """
    if getattr(country, "common_name", None):
        return str(country.common_name)
    name = str(country.name)
    if ", " not in name:
        return name
    head, tail = name.split(", ", 1)
    adjective = tail in ("British", "U.S.")
    if not (adjective or re.search(r"\bof$|\bof the$", tail)):
        return name
    official = re.sub(r"^the\s+", "", str(getattr(country, "official_name", "") or ""))
    if official and "," not in official:
        return official
    if adjective:
        return f"{tail} {head}"
    return re.sub(r"^The\s+", "", f"{tail} {head}")


def _translated_names(country: Any, tables: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """Per language, the translation of the country's sentence name (else of its ISO name,
    else of its official name); a translation written inverted ("X, Y of") is not taken
    unless the English name has a comma too."""
    english = sentence_name(country)
    sources = [
        english,
        getattr(country, "common_name", None),
        country.name,
        getattr(country, "official_name", None),
    ]
    names: dict[str, str] = {}
    for language, table in tables.items():
        for source in sources:
            text = table.get(source, "").strip() if source else ""
            if text and ("," not in text or "," in english):
                names[language] = text
                break
    return names


def _facts(pycountry: Any) -> dict[str, dict[str, Any]]:
    """countryinfo's facts by alpha-2 code ({} when countryinfo is not installed).

    countryinfo has several entries for a few codes (GB: United Kingdom and Wales; MM: Myanmar
    and Burma...): the one whose name is the country's ISO, common or official name is taken;
    when none or several are, the build fails rather than choose.
    """
    if importlib.util.find_spec("countryinfo") is None:
        return {}
    import countryinfo

    entries: dict[str, list[dict[str, Any]]] = {}
    for item in countryinfo.all_countries():
        info = item.info()
        iso = info.get("ISO")
        code = iso.get("alpha2") if isinstance(iso, dict) else None
        if isinstance(code, str):
            entries.setdefault(code.upper(), []).append(info)
    facts: dict[str, dict[str, Any]] = {}
    for code, found in entries.items():
        if len(found) == 1:
            facts[code] = found[0]
            continue
        country = _get(pycountry.countries, alpha_2=code)
        names = {
            str(n)
            for n in (
                getattr(country, "name", None),
                getattr(country, "common_name", None),
                getattr(country, "official_name", None),
            )
            if n
        }
        named = [info for info in found if info.get("name") in names]
        if len(named) != 1:
            raise StarterDataError(
                f"countryinfo has {len(found)} entries for {code} "
                f"({[info.get('name') for info in found]}) and {len(named)} of them carry "
                f"the country's name {sorted(names)}"
            )
        facts[code] = named[0]
    return facts


def _city(zone: str, language: str) -> str:
    from babel.dates import get_timezone_location

    name = get_timezone_location(zone, locale=language, return_city=True)
    name = re.sub(r"\s*\([^)]*\)", "", name.replace("\u00ad", ""))  # "Tripoli (Libye)"
    return " ".join(name.split())


def capital_names(alpha_2: str, capital: str | None) -> dict[str, str]:
    """The capital's name per language when it is the CLDR city of one of its country's time
    zones ({} otherwise, or without babel and pytz)."""
    if not capital or importlib.util.find_spec("babel") is None:
        return {}
    if importlib.util.find_spec("pytz") is None:
        return {}
    import pytz

    for zone in pytz.country_timezones.get(alpha_2, []):
        if _city(zone, "en") == capital:
            return {
                lang: CITY_NAME_FIXES.get((alpha_2, lang)) or _city(zone, lang)
                for lang in NAME_LANGUAGES
            }
    return {}


def build_world_countries() -> list[dict[str, Any]]:
    _require("pycountry")
    import pycountry

    tables = {
        lang: table
        for lang in NAME_LANGUAGES
        if (table := _country_names_table(pycountry, lang)) is not None
    }
    facts = _facts(pycountry)

    _, local_currency = _cldr_names()

    def currency_name(code: str) -> str | None:
        found = _get(pycountry.currencies, alpha_3=code)
        return str(found.name) if found is not None else None

    def texts(value: Any) -> list[str]:
        return [str(x) for x in value or []]

    records = []
    for country in sorted(pycountry.countries, key=lambda c: c.alpha_2):
        code = country.alpha_2
        info = facts.get(code, {})
        capital = (
            None
            if code in NO_SINGLE_CAPITAL
            else CAPITAL_FIXES.get(code) or info.get("capital") or None
        )
        languages = texts(info.get("languages"))
        currencies = texts(info.get("currencies"))
        records.append(
            {
                "alpha_2": code,
                "alpha_3": country.alpha_3,
                "numeric": country.numeric,
                "name": sentence_name(country),
                "iso_name": country.name,
                "names": _translated_names(country, tables),
                "official_name": getattr(country, "official_name", None),
                "capital": capital,
                "capital_names": capital_names(code, capital),
                "region": info.get("region") or None,
                "subregion": info.get("subregion") or None,
                "languages": languages,
                "language_names": [
                    n for n in (_language_name(pycountry, c) for c in languages) if n
                ],
                "currencies": currencies,
                "currency_names": [n for n in map(currency_name, currencies) if n],
                # CLDR's names of the currencies (a code CLDR does not name stays a code).
                "currency_names_in": {
                    lang: [local_currency.get((c, lang), c) for c in currencies]
                    for lang in NAME_LANGUAGES
                }
                if local_currency
                else {},
                "population": info.get("population") or None,
                "area_km2": info.get("area") or None,
                "calling_codes": texts(info.get("callingCodes")),
                "borders": texts(info.get("borders")),
                "demonym": info.get("demonym") or None,
            }
        )
    return _cleaned(records)


def bcp47(locale: str) -> str | None:
    """A gettext locale folder as a BCP 47 tag (``pt_BR`` -> ``pt-br``, ``sr@latin`` ->
    ``sr-latn``), None when it does not read as one."""
    base, _, variant = locale.partition("@")
    tag = base.replace("_", "-").lower()
    if variant:
        tag += "-" + SCRIPT_VARIANTS.get(variant.lower(), variant.lower())
    return tag if re.fullmatch(r"[a-z]{2,3}(?:-[a-z0-9]{2,8})*", tag) else None


def build_country_names() -> list[dict[str, Any]]:
    _require("pycountry")
    import pycountry

    countries = sorted(pycountry.countries, key=lambda c: c.alpha_2)
    kept: list[tuple[str, dict[str, str]]] = []
    for locale in sorted(os.listdir(pycountry.LOCALES_DIR)):
        tag = bcp47(locale)
        table = _country_names_table(pycountry, locale) if tag not in (None, "en") else None
        if table is None:
            continue
        named = {c.name: table.get(c.name, "") for c in countries}
        if sum(1 for text in named.values() if text) >= SHARE_OF_COUNTRIES * len(countries):
            kept.append((str(tag), named))
    if not kept:
        raise StarterDataError("pycountry ships no country-name translations")
    records = [
        {
            "alpha_2": country.alpha_2,
            "name_en": country.name,
            "language": tag,
            "language_name": _language_name(pycountry, tag.split("-")[0]) or tag,
            "name": named[country.name],
        }
        for country in countries
        for tag, named in kept
        if named.get(country.name)
    ]
    return _cleaned(records)


# -- the tables --------------------------------------------------------------------------------
STARTER_TABLES: dict[str, StarterTable] = {
    t.id: t
    for t in (
        StarterTable(
            "world-countries",
            ("pycountry",),
            "name",
            "country",
            build_world_countries,
            joins=({"field": "borders", "table": "world-countries", "key": "alpha_3"},),
        ),
        StarterTable(
            "country-names-multilingual",
            ("pycountry",),
            None,
            "country name",
            build_country_names,
            joins=({"field": "alpha_2", "table": "world-countries", "key": "alpha_2"},),
        ),
        StarterTable("iris", ("sklearn",), None, "iris flower", build_iris),
        StarterTable("wine", ("sklearn",), None, "wine", build_wine),
        StarterTable("diabetes", ("sklearn",), None, "diabetes patient", build_diabetes),
        StarterTable("digits", ("sklearn",), None, "handwritten digit", build_digits),
        StarterTable("vega-cars", ("vega_datasets",), "Name", "car", build_vega_cars),
        StarterTable("seattle-weather", ("vega_datasets",), "date", "day", build_seattle_weather),
        StarterTable("us-airports", ("vega_datasets",), "name", "airport", build_us_airports),
    )
}
STARTER_IDS = frozenset(STARTER_TABLES)


def starter_records(table_id: str) -> list[dict[str, Any]]:
    """The records of a starter table, as benchsmith's starter catalog stores them."""
    spec = STARTER_TABLES[table_id]
    _require(*spec.packages)
    return spec.build()


@cache
def starter_table(table_id: str) -> Table:
    """A starter table in the reviewer's form (built once per process).

    Raises:
        KeyError: Not a starter table id.
        StarterUnavailable: A package it is built from is missing.
        StarterDataError: The data cannot be reproduced without a guess.
    """
    spec = STARTER_TABLES[table_id]
    records = starter_records(table_id)
    return table_from_records(
        table_id,
        records,
        key=spec.key,
        entity=spec.entity,
        joins=spec.joins,
        aliases=_aliases(table_id, records),
    )


# -- names of values in other languages --------------------------------------------------------
def _without_parentheses(name: str) -> list[str]:
    """``"Myanmar (Birmanie)"`` -> the name, ``"Myanmar"`` and ``"Birmanie"``."""
    out = [name]
    match = re.fullmatch(r"(.+?)\s*\(([^)]+)\)", name)
    if match:
        out += [match.group(1).strip(), match.group(2).strip()]
    return out


def _aliases(table_id: str, records: list[dict[str, Any]]) -> dict[str, dict[str, tuple[str, ...]]]:
    """Per item language, the names of a table's values in it (English value -> names).

    world-countries: a country's name -> its ``names.<code>`` and CLDR's name of its
    territory; a capital -> its ``capital_names.<code>``; currency names -> CLDR's names of
    the currencies (babel). Other tables have none (their values are codes, numbers, proper
    names, or labels the reviewer itself knows).
    """
    if table_id != "world-countries":
        return {}
    territory, currency = _cldr_names()
    aliases: dict[str, dict[str, list[str]]] = {lang: {} for lang in ITEM_LANGUAGES}
    for record in records:
        for lang in ITEM_LANGUAGES:
            names = aliases[lang]
            country = record.get("name")
            if country:
                forms = [(record.get("names") or {}).get(lang)]
                forms += _without_parentheses(territory.get((record["alpha_2"], lang), ""))
                names.setdefault(country, []).extend(f for f in forms if f)
            capital = record.get("capital")
            local = (record.get("capital_names") or {}).get(lang)
            if capital and local:
                names.setdefault(capital, []).append(local)
            codes, english = record.get("currencies") or [], record.get("currency_names") or []
            if len(codes) == len(english) and english:
                local_names = [currency.get((c, lang)) for c in codes]
                for code_name, local_name in zip(english, local_names, strict=True):
                    if local_name:
                        names.setdefault(code_name, []).append(local_name)
                if all(local_names):
                    names.setdefault(", ".join(english), []).append(", ".join(local_names))
    return {
        lang: {value: tuple(dict.fromkeys(forms)) for value, forms in names.items()}
        for lang, names in aliases.items()
    }


def _cldr_names() -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], str]]:
    """CLDR's names of territories and currencies by (code, language), {} without babel."""
    if importlib.util.find_spec("babel") is None:
        return {}, {}
    from babel import Locale

    territory: dict[tuple[str, str], str] = {}
    currency: dict[tuple[str, str], str] = {}
    for lang in ITEM_LANGUAGES:
        locale = Locale.parse(lang)
        territory.update({(code, lang): name for code, name in locale.territories.items()})
        currency.update({(code, lang): name for code, name in locale.currencies.items()})
    return territory, currency
