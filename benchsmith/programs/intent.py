"""From an intent to candidate programs, by code: field names, values, numbers, cue words.

The intent's words are matched against the table's column labels (stems), its category
values (a value named in the intent is a filter: "the European countries" -> ``continent
== Europe``), numeric bounds ("discovered before 1800" -> ``year_discovered < 1800``), and
the cue words of each program kind ("which of the two", "the most", "how many", "average",
"which species is it", "the manager's department"). The result is a short list of
:class:`Candidate` programs, best first, or a :class:`Refusal` naming what the data lacks;
a model only ever chooses among the candidates (see :mod:`benchsmith.agents.programs`).
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from benchsmith.files import package_json
from benchsmith.programs.gloss import FUNCTION_WORDS, intent_language, to_english
from benchsmith.programs.labels import (
    CODE_VALUE,
    demonym_of,
    is_place,
    language_code_column,
    singular,
    value_names,
)
from benchsmith.programs.table import (
    CODE,
    LANGUAGE_WORDS,
    MAX_CATEGORIES,
    PERSON_FIELDS,
    Column,
    Table,
    words_of,
)
from benchsmith.programs.wording import holds_years
from benchsmith.spec import Condition, Hop, ProgramSpec
from benchsmith.stemming import stems

NUMBER_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "a few": 5, "several": 5, "a couple": 2, "pair": 2,
}  # fmt: skip
MAX_WORDS = (
    "larger", "largest", "bigger", "biggest", "higher", "highest", "greater", "greatest",
    "more", "most", "heavier", "heaviest", "longer", "longest", "taller", "tallest",
    "maximum", "max", "top", "later", "latest", "newer", "newest", "recent", "most recent",
    "older" , "oldest", "wider", "widest", "deeper", "deepest", "faster", "fastest",
    "richer", "richest", "bigger", "denser", "densest", "hotter", "hottest", "warmer",
    "warmest", "farther", "farthest", "further", "furthest", "expensive", "populous",
)  # fmt: skip
MIN_WORDS = (
    "smaller", "smallest", "lower", "lowest", "less", "least", "fewer", "fewest",
    "lighter", "lightest", "shorter", "shortest", "minimum", "min", "earlier", "earliest",
    "first", "younger", "youngest", "narrower", "shallower", "slower", "slowest",
    "cheaper", "cheapest", "colder", "coldest", "closer", "closest", "nearer", "nearest",
    "poorer", "poorest", "thinner", "lesser", "bottom",
)  # fmt: skip
RANK_WORDS = "|".join(map(re.escape, (*MAX_WORDS, *MIN_WORDS)))
"""Every rank word as one regex alternation."""
# On a date, "older" means an earlier date.
DATE_MIN = ("older", "oldest", "earlier", "earliest", "first")
BOUNDS = (
    (
        r"more than|greater than|higher than|larger than|over|above|exceed(?:s|ed|ing)?|after|"
        r"later than",
        ">",
    ),
    (r"at least|no less than|since", ">="),
    (r"less than|fewer than|lower than|smaller than|under|below|before|earlier than", "<"),
    (r"at most|no more than|up to", "<="),
)
OPEN_CUES = re.compile(
    r"\b(table|rows?|shown|reading|read off|provided|in the prompt|context|open[- ]book|"
    r"extract|look(?:ing)? up in|from the (?:\w+ ){0,2}(?:data|dataset|log)|with their|"
    r"together with|along with|"
    r"labell?ed|paste|given (?:these|those|the following|a few|some|several|\d+)|"
    r"show (?:a few|some|several|a handful of|a list of|a number of|\d+|them|all|about|"
    r"around|roughly|up to|a dozen|"
    r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)|"
    r"show\b[^.;:]{0,40}\bwith (?:the|their|its)\b|"
    r"show(?:s|n)? (?:\w+ ){0,3}(?:data|series|sample|selection|list|details|specs|"
    r"specifications|sheets?|records|values|figures|measurements|entries|stats|statistics)|"
    r"tableau|tabelle|tabla|tabella)\b"
)
CLOSED_CUES = re.compile(
    r"\b(knowledge|know|recall|quiz|trivia|memor\w*|closed[- ]book|without (?:the )?table|"
    r"from memory|general knowledge)\b"
)
COMPARE_CUES = re.compile(
    r"\b(which of (?:the )?two|of the two|two (?:of|records|rows)|both|versus|vs\.?|compare|"
    r"comparison|between two|pairs? of|pairs|(?!rather\b|other\b)\w+er than|or the other|"
    # "between the datsun 510 and the toyota corolla, which ...": two records named
    r"between (?!\d)[^,.;:?!]{2,40}? and (?!\d)[^,.;:?!]{2,40}?,\s*(?:which|who)"
    r")\b"
)
SUPERLATIVE_CUES = re.compile(r"\b(most|least|\w{2,}est|maximum|minimum|top|bottom)\b")
NOT_SUPERLATIVE = {
    "interest", "test", "west", "forest", "honest", "request", "harvest", "suggest",
    "latest" , "contest", "protest", "rest", "best", "guest", "quest", "nest",
}  # fmt: skip
COUNT_CUES = re.compile(
    r"\b(how many|count|number of (?:the )?(?:rows|records|entries|items|\w+s))\b"
)
AGG_CUES = (
    (re.compile(r"\b(average|mean)\b"), "mean"),
    (re.compile(r"\b(median|middle value)\b"), "median"),
    (re.compile(r"\b(total|sum|combined|altogether)\b"), "sum"),
    (
        re.compile(
            r"\b(?:what(?: is| was)?|ask for|how (?:long|high|tall|heavy|big|large|much|wide|"
            r"old|far|deep|fast) (?:is|was|are|were)) the (?:maximum|highest|largest|biggest|"
            r"heaviest|longest|tallest|greatest|most|latest|widest|oldest|deepest|fastest)\b|"
            r"\bmaximum value\b"
        ),
        "max",
    ),
    (
        re.compile(
            r"\b(?:what(?: is| was)?|ask for|how (?:long|high|tall|heavy|big|large|much|wide|"
            r"old|far|deep|fast|short|small|light|low) (?:is|was|are|were)) the (?:minimum|lowest|"
            r"smallest|lightest|shortest|least|earliest|narrowest|youngest|slowest)\b|"
            r"\bminimum value\b"
        ),
        "min",
    ),
    # "the smallest proline value among these wines": the value, not the record that has it.
    (
        re.compile(
            r"\bthe (?:maximum|highest|largest|biggest|greatest) (?:[a-z]+[ -]+){1,3}?"
            r"(?:value|reading|figure|amount)\b"
        ),
        "max",
    ),
    (
        re.compile(
            r"\bthe (?:minimum|lowest|smallest|least) (?:[a-z]+[ -]+){1,3}?"
            r"(?:value|reading|figure|amount)\b"
        ),
        "min",
    ),
)
ONE_RECORD = re.compile(
    r"\b(?:on|for|of|in) (?:one|a|an)(?: given| particular| specific| single)?\b"
)
"""After "what the lowest X was", words that make it one record's value ("on one date")."""
STRONG_CLASSIFY = re.compile(
    r"\b(classif\w*|diagnos(?:e|is|ing)|withheld|nearest[- ]neighbou?rs?|"
    r"(?:which|what) \w+[- ]type|label (?:is )?(?:withheld|hidden)|guess(?:es)? (?:whether|if))\b"
)
"""Cues that ask for a class and nothing else (ranked above a stray "mean" or "nearest")."""
CLASSIFY_CUES = re.compile(
    r"\b(classif\w*|which (?:class|species|type|kind|category|label|variety|group)|"
    r"what (?:class|species|type|kind|category|label)|measurements|features|predict|"
    r"describe[sd]?|whether it is|is it (?:a|an)|identify|diagnos\w*|withheld|hidden)\b"
)
FORMAT_CUES = (
    (re.compile(r"multiple[- ]choice|options|choices|\bmcq\b"), "multiple_choice"),
    (
        re.compile(
            r"(?:short|brief|one[- ]word)[- ](?:answer|response|reply)|free[- ](?:text|form|"
            r"response)|open[- ]ended|write the answer"
        ),
        "short_answer",
    ),
    # the answer named as a thing's name or code: "answer = the name of the model", "the
    # answer is the code", "answered with the country name", "respond with the car's name"
    (
        re.compile(
            r"\b(?:answer(?:ed|s)?|respon(?:d|ds|se|ses)|repl(?:y|ies))\s*(?:is|are|=|:|with|by|"
            r"will be|should be|must be|gives?)\s+(?:only\s+|just\s+)?(?:the|a|an|its|their)\s+"
            r"(?:[\w'-]+\s+){0,2}?\w*(?:names?|namen|codes?|abbreviations?)\b"
        ),
        "short_answer",
    ),
    (
        re.compile(
            r"\bnumeric(?:al)?\b|\ba (?:plain |single |whole |bare )?number\b|the number\b|"
            r"\b(?:an|one|a whole) integer\b"
        ),
        "numeric",
    ),
)


@dataclass
class Candidate:
    """A program the code built from the intent, with its score and why."""

    spec: ProgramSpec
    score: float
    why: str


@dataclass
class Refusal:
    """Why no program over the data serves the intent: what is missing."""

    missing: str
    details: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Hints:
    """Slots read by the reader model and checked by code, which the rules' reading takes.

    The code still decides the program's kind from the intent's words; a hint only fills a
    slot the rules were unsure of (see :mod:`benchsmith.programs.slots`).
    """

    asked: str | None = None
    """The column the questions are about: a lookup's answer, the field ranked or
    aggregated, the label classified."""


@dataclass
class Mention:
    """A column named in the intent: where and how fully."""

    column: Column
    table: str
    position: int
    strength: float
    positions: tuple[int, ...] = ()
    """Every token position that names the column (``position`` is the first)."""


SYNONYMS: dict[str, tuple[str, ...]] = {
    # What people say -> words of the field they mean (``intent_words.json``; "world":
    # "came into the world").
    word: tuple(fields)
    for word, fields in package_json("benchsmith.programs", "intent_words.json")["synonyms"].items()
}


def _tokens(text: str) -> list[str]:
    """Lower-case words, accents dropped ("Califórnia" -> "california")."""
    return re.findall(r"[a-z0-9]+(?:'s)?", _unaccented(text.lower()))


def _unaccented(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def variants(token: str) -> set[str]:
    """Words a token may stand for in a field's name or a value, by English morphology.

    ``windiest``/``windy`` -> wind, ``sunny`` -> sun, ``painted`` -> painter, ``composed`` ->
    composer, ``directed`` -> director.
    """
    t = token.removesuffix("'s")
    out: set[str] = set()
    for suffix in ("iest", "ier"):
        if t.endswith(suffix) and len(t) > len(suffix) + 2:
            out.add(t[: -len(suffix)] + "y")
    for word in [t, *out]:
        if word.endswith("y") and len(word) > 4 and word[-2] not in "aeiou":
            base = word[:-1]
            out.add(base)
            if base[-1] == base[-2]:
                out.add(base[:-1])  # sunny -> sun
    if t.endswith("ed") and len(t) > 5:
        for base in (t[:-2], t[:-1]):  # painted -> paint, composed -> compose
            out |= {base, base + "er", base + "or", base + "r"}
    out.discard(t)
    return out


def _stem_list(words: Sequence[str]) -> list[str]:
    """One stem per word, so that positions stay the words'.

    The stemmer drops numbers ("510", "1970-1982"), which shifted every later position.
    """
    out = stems(" ".join(w.removesuffix("'s") for w in words))
    if len(out) == len(words):
        return out
    return [(stems(w.removesuffix("'s")) or [w])[0] for w in words]


NAME_VERB_OBJECTS = frozenset("a an the two three four five six some one each any several".split())
LABEL_STOPWORDS = frozenset("in of the a an per and to at by on for with".split())


def _mentions(intent: str, table: Table) -> list[Mention]:
    tokens = _tokens(intent)
    # "name a country": the verb, not the field "name" (positions stay as they were).
    tokens = [
        "_" if t == "name" and i + 1 < len(tokens) and tokens[i + 1] in NAME_VERB_OBJECTS else t
        for i, t in enumerate(tokens)
    ]
    # "what is Finland called": a name, never the calling codes ("called" stems to "call").
    tokens = ["_" if t == "called" else t for t in tokens]
    # "questions of the type «which of these days ...»": a sort of question, not a field.
    tokens = [
        "_"
        if t in ("type", "kind", "sort")
        and tokens[max(0, i - 2) : i] in (["of", "the"], ["of", "this"])
        and i + 1 < len(tokens)
        and tokens[i + 1] in ("which", "what", "how", "who", "where", "when", "like", "e", "eg")
        else t
        for i, t in enumerate(tokens)
    ]
    # "questions in Italian" asks for the items' language, not the field names.it.
    low = intent.lower()
    for request in LANGUAGE_REQUEST.finditer(low):
        first = len(_tokens(low[: request.start()]))
        for k in range(first, min(len(tokens), first + len(_tokens(request.group(0))))):
            if tokens[k] in LANGUAGE_WORDS:
                tokens[k] = "_"
    intent_stems = _stem_list(tokens)
    out = []
    for column in table.columns.values():
        path_words = [w for w in words_of(column.path) if not w.isdigit()]
        # A unit in brackets ("precipitation (mm)") is no word the intent must say.
        given = re.sub(r"\([^()]*\)", " ", column.labels.get("en", "")).strip()
        given_words = re.findall(r"[a-z]+", given.lower()) if given else []
        # The card's label ("body mass index") and the field's own name ("bmi") both name it.
        # (A path's short words are codes, "names.it": no word of the intent names them; a
        # path whose words the label holds, "name_fr" for "French name", adds nothing.)
        alias = tuple(w for w in path_words if len(w) >= 3) if given_words else ()
        if set(alias) <= set(given_words):
            alias = ()
        found = [
            m
            for words in dict.fromkeys((tuple(given_words or path_words), alias))
            if words
            if (m := _mention(column, table, list(words), tokens, intent_stems)) is not None
        ]
        best = max(found, key=lambda m: m.strength) if found else None
        if best is not None and alias and best.strength == 1.0:
            label = _mention(column, table, list(given_words or path_words), tokens, intent_stems)
            if label is None or label.strength < 1.0:
                # Named by the field's name alone ("currencies"), not by its label ("currency
                # code"): a field whose label is said ("currency") comes first.
                found = [dataclasses.replace(best, strength=0.95)]
        if found:
            out.append(max(found, key=lambda m: (m.strength, -m.position)))
    return sorted(out, key=lambda m: (-m.strength, m.position))


def _mention(
    column: Column, table: Table, label_words: list[str], tokens: list[str], intent_stems: list[str]
) -> Mention | None:
    """How the intent names a column by one of its names (None: it does not)."""
    # "decided in": "in" names nothing.
    label_words = [w for w in label_words if w not in LABEL_STOPWORDS] or label_words
    label_stems = _stem_list(label_words)
    if not label_stems:
        return None
    hits = [i for i, s in enumerate(intent_stems) if s in label_stems]
    said = set(label_words)
    loose = [
        i
        for i, t in enumerate(tokens)
        if (set(SYNONYMS.get(t.removesuffix("'s"), ())) | variants(t)) & said
    ]
    loose += [
        i
        for i, t in enumerate(tokens)
        if LANGUAGE_WORDS.get(t) and LANGUAGE_WORDS[t] in said and len(label_words) > 1
    ]  # "German" names the field name_de
    # A longer field word that holds an intent word ("outflow" holds "flow").
    loose += [
        i
        for i, t in enumerate(tokens)
        if len(t) >= 4
        and t not in FUNCTION_WORDS["en"]
        and any(len(w) >= len(t) + 2 and (w.startswith(t) or w.endswith(t)) for w in said)
    ]
    if not hits and not loose:
        return None
    matched = {intent_stems[i] for i in hits}
    strength = len(matched & set(label_stems)) / len(set(label_stems))
    every = tuple(sorted(set(hits) | set(loose)))
    if loose and strength < 0.75:
        strength, hits = 0.75, sorted(loose)
    return Mention(column, table.id, hits[0], round(strength, 3), every)


def _without_columns_listed(intent: str, table: Table) -> str:
    """The intent without its lists of the columns shown ("(date, rain, temperatures, wind)").

    Their words name columns, not values to keep: "rain" there is the precipitation shown,
    not weather == rain.
    """

    def listed(m: re.Match[str]) -> str:
        parts = m.group(1).split(",")
        named = sum(any(x.strength >= 0.75 for x in _mentions(p, table)) for p in parts)
        return " " if named >= 2 else m.group(0)

    return re.sub(r"\(([^()]*,[^()]*)\)", listed, intent)


def _value_conditions(
    intent: str, table: Table, exclude: set[str], mentions: Sequence[Mention]
) -> list[Condition]:
    """Category values the intent names ("European" names ``Europe``)."""
    tokens = _tokens(_without_columns_listed(_without_language_request(intent), table))
    text = " ".join(tokens)
    ranked_words = set(re.findall(r"\b(?:most|least|more|less) (\w+)", text))
    # "the day it rained most": the verb before the rank names the quantity too.
    ranked_verbs = set(re.findall(r"\b(\w+ed) (?:the )?(?:most|more|least|less)\b", text))
    aggregated = bool(re.search(r"\b(?:sum|total|average|mean|accumulated)\b", text))
    said_numbers = {
        w
        for m in mentions
        if m.column.kind == "number" and m.strength >= 0.75
        for w in words_of(m.column.path)
    }
    out: list[Condition] = []
    spans: dict[int, tuple[int, int]] = {}  # a condition's words in the text
    labels = {" ".join(_tokens(c.labels.get("en", ""))) for c in table.columns.values()}
    label_spans = [
        m.span()
        for label in labels
        if " " in label
        for m in re.finditer(rf"\b{re.escape(label)}\b", text)
    ]
    for column in table.columns.values():
        if column.unique or column.path in exclude:
            continue
        # "Alaska", "Texas" name the codes AK, TX of a column of region codes.
        for name, code in _region_codes(table, column.path).items():
            if re.search(rf"\b{re.escape(_unaccented(name))}\b", text):  # "Califórnia" too
                out.append(Condition(field=column.path, op="==", value=code))
        if column.kind != "category":
            continue
        # A column of codes ("fi", "or", "it") is named by its name column, not by words
        # that happen to spell a code.
        codes = all(CODE_VALUE.fullmatch(v) for v in column.values)
        if codes and len(column.values) > 3:
            continue
        for value in column.values:
            words = re.findall(r"[a-z0-9]+", _unaccented(value.lower()))
            if not words or all(w.isdigit() for w in words):
                continue
            phrase = " ".join(words)
            if phrase in ranked_words:
                continue  # "the most rain fell": the quantity ranked, not a filter
            if aggregated and set(SYNONYMS.get(phrase, ())) & said_numbers:
                continue  # "sum questions about the rain" over the precipitation: the quantity
            # The value, or its CLDR name in a language ("Southeast Asia", "Südostasien").
            names = [" ".join(_tokens(n)) for n in value_names(value)]
            # ... or its adjective: "Southeast Asian", "sub-Saharan African".
            adjectives = [f"{n}n" for n in names if n.endswith("a") and " " in n]
            # ... or glossed from a language that puts the adjective after its noun
            # ("Afrique subsaharienne" -> "africa sub saharan").
            adjectives += [" ".join([n.split()[-1], *n.split()[:-1]]) for n in names if " " in n]
            plurals = "|".join(
                re.escape(p) for n in dict.fromkeys([phrase, *names]) if n for p in _plurals(n)
            )
            plurals += "".join(f"|{re.escape(a)}" for a in adjectives)
            # ... or its singular: "the countries of America" (the Americas).
            plurals += "".join(
                f"|{re.escape(n[:-1])}"
                for n in dict.fromkeys([phrase, *names])
                if len(n) >= 6 and n.endswith("s") and not n.endswith("ss")
            )
            found = re.search(rf"\b(?:{plurals})\b", text)
            if found and any(a <= found.start() and found.end() <= b for a, b in label_spans):
                found = None  # "the English name": a field's label, not the value English
            if found:
                op = _value_op(text, found.start(), found.end())
                spans[len(out)] = found.span()
                out.append(Condition(field=column.path, op=op, value=value))
                continue
            # "American-born painters", "Dutch painters": a country by its demonym.
            # ("American models", "Japanese makes": the records by another noun)
            people = {*PERSON_FIELDS, *table.entity.get("en", "").split(), "model", "make"}
            demonym = next(
                (
                    t
                    for i, t in enumerate(tokens)
                    if demonym_of(t, value)
                    and i + 1 < len(tokens)
                    and (tokens[i + 1] == "born" or singular(tokens[i + 1]) in people)
                ),
                None,
            )
            if demonym is not None:
                where = re.search(rf"\b{re.escape(demonym)}\b", text)
                if where:
                    spans[len(out)] = where.span()
                out.append(Condition(field=column.path, op="==", value=value))
                continue
            if len(words) == 1 and any(
                words[0] in variants(t) for t in tokens if t not in ranked_verbs
            ):
                # "rainy days", "sunny days": weather == rain, sun
                out.append(Condition(field=column.path, op="==", value=value))
                continue
            if len(words) == 1 and len(words[0]) >= 4:
                # An adjective or plural of the value: Europe -> European, Asia -> Asian.
                stem = words[0]
                said = [
                    t
                    for t in tokens
                    if t.startswith(stem) and 0 < len(t) - len(stem) <= 4 and t not in ranked_verbs
                ]
                if said:
                    where = re.search(rf"\b{re.escape(said[0])}\b", text)
                    if where:
                        spans[len(out)] = where.span()
                    out.append(Condition(field=column.path, op="==", value=value))
    # "Sub-Saharan Africa" names the subregion, not also the region "Africa" within it.
    inside = {
        i
        for i, (a, b) in spans.items()
        for j, (c, d) in spans.items()
        if i != j and c <= a and b <= d and (b - a) < (d - c)
    }
    # "the average of only the American cars (ignore the European and Japanese)": the value
    # said after "only" is the filter, whatever other values of its field are named.
    only = {
        out[i].field: out[i]
        for i, (a, _b) in spans.items()
        if i not in inside and re.search(r"\bonly\s+(?:the\s+|those\s+|these\s+)?$", text[:a])
    }
    out = [c for i, c in enumerate(out) if i not in inside and only.get(c.field, c) is c]
    # "is it an Adelie, a Gentoo or a Chinstrap": values listed as options are what is
    # asked, not a filter.
    named: dict[str, int] = {}
    for c in out:
        named[c.field] = named.get(c.field, 0) + 1
    # "not settled in normal time (so extra time or penalties)": the exclusion stands.
    excluded = {c.field for c in out if c.op == "!="}
    return [c for c in out if named[c.field] < 2 or (c.field in excluded and c.op == "!=")]


@cache
def _subdivisions() -> dict[str, dict[str, str]]:
    """ISO 3166-2 subdivision names by country: {"us": {"alaska": "AK", ...}} (pycountry)."""
    import pycountry

    out: dict[str, dict[str, str]] = {}
    for sub in pycountry.subdivisions:
        country, _, code = sub.code.partition("-")
        out.setdefault(country, {})[" ".join(_tokens(sub.name))] = code
    return out


def _region_codes(table: Table, path: str) -> dict[str, str]:
    """A column of one country's region codes (US states: AK, TX): its codes by name."""
    codes = {table.text(r, path) for r in table.rows()} - {""}
    if (
        not codes
        or len(codes) > 120
        or not all(re.fullmatch(r"[A-Z][A-Z0-9]{1,2}", c) for c in codes)
    ):
        return {}
    best = max(_subdivisions().values(), key=lambda names: len(codes & set(names.values())))
    if len(codes & set(best.values())) < 0.8 * len(codes):
        return {}
    return {name: code for name, code in best.items() if code in codes and len(name) > 3}


NEGATION = re.compile(
    r"\b(?:not|non|except|excluding|exclude|other than|outside(?: of)?|leave out|leaving out|"
    r"without|but not|apart from|besides|no)\b(?:\s+\w+){0,4}\s*$"
)
"""Words before a value that make it an exclusion: "not held in Europe" -> ``!= Europe``."""
LEFT_OUT = re.compile(
    r"\b(?:leave|leaving|left|leaves) out|\b(?:exclude[ds]?|excluding|ignored?|ignoring|"
    r"omit(?:ted)?|drop(?:ped)?|remove[ds]?|skip(?:ped)?)\b"
)
"""Verbs that leave records out: with "outside", a double negation ("leave out everything
outside Europe": Europe is kept)."""


def _value_op(text: str, start: int, end: int) -> str:
    """How a value said at ``text[start:end]`` filters: kept (``==``) or left out (``!=``)."""
    negation = NEGATION.search(text[:start][-40:])
    if negation is None:
        return "=="
    if re.search(r"\boutside\b", negation.group(0)):
        around = text[max(0, start - 60) : start] + " " + text[end : end + 40]
        if LEFT_OUT.search(around):
            return "=="  # "leave out every country outside Europe", "alles außerhalb weglassen"
    return "!="


_NOT_IN = (
    r"(?:\s*\(?\s*(?:so |thus |dus |i\.e\. )?(?:not|rather than|instead of) (?:in )?[a-z]+\s*\)?)?"
)
"""What may follow a language asked for: "in English (so not in Dutch)"."""
LANGUAGE_REQUEST = re.compile(
    r"\b(?:questions?|items?|prompts?|answers?|quiz|benchmark|version|wording|write|asked|"
    r"posed|phrased|worded)"
    rf"\b[^.;:]{{0,30}}?\bin [a-z]+\b{_NOT_IN}|"
    r"\b(?!(?:the|a|an|these|those|some|of|and|or|with|for|ask|write)\b)[a-z]+"
    r"(?:[- ]language)?\s+(?:multiple[- ]choice\s+)?"
    rf"(?:questions?|items?|version|quiz)\b(?:\s+in [a-z]+\b{_NOT_IN})?|"
    # "... habitantes. En español.": a sentence of its own that names a language.
    r"(?:^|(?<=[.;:!?\n]))\s*(?:(?:all|everything|please|and|answers?|questions?|language)\s*:?\s+)*"
    r"in (?:the )?[a-z]+(?:,? please)?\s*(?=[.;!?\n]|$)"
)


def _without_language_request(intent: str) -> str:
    """The intent less the phrase that asks for the items' language ("questions in French")."""
    low = intent.lower()

    def drop(m: re.Match[str]) -> str:
        words = m.group(0).split()
        from_names = {w.strip(",.") for w in words} & LANGUAGE_WORDS.keys()
        return " " if from_names else m.group(0)

    return LANGUAGE_REQUEST.sub(drop, low)


def _plurals(phrase: str) -> list[str]:
    """A phrase and its plural forms ("noble gas" -> "noble gases")."""
    head, _, last = phrase.rpartition(" ")
    forms = [last, last + "s", last + "es"]
    if last.endswith("y"):
        forms.append(last[:-1] + "ies")
    return [f"{head} {f}".strip() for f in forms]


def _listed_column(intent: str, table: Table) -> Column | None:
    """A category column two or more of whose values the intent lists (the asked one)."""
    text = " ".join(_tokens(intent))
    for column in table.columns.values():
        if column.kind != "category" or column.unique:
            continue
        said = [
            v
            for v in column.values
            if re.search(rf"\b{re.escape(' '.join(re.findall(r'[a-z0-9]+', v.lower())))}\b", text)
        ]
        if len(said) >= 2:
            return column
    return None


SPELLED = {w: n for w, n in NUMBER_WORDS.items() if " " not in w and w != "pair"}
SPELLED.update(one=1, eleven=11, twelve=12, twenty=20, thirty=30, fifty=50, hundred=100)
# "under two hours" over a field in minutes: the bound in the field's unit.
UNIT_FACTORS = {("hours", "minutes"): 60, ("hour", "minutes"): 60, ("minutes", "hours"): 1 / 60}


COMPARATIVE = r"(?!other\b|rather\b)([a-z]{3,}er) than"
"""A generic bound: "longer than 150", "bigger than 50,000 square miles"."""


def _bound_matches(low: str) -> list[tuple[Any, str, str]]:
    """Every bound in the text: (match, op, the comparative word or "")."""
    spelled = "|".join(SPELLED)
    number = rf"(-?\d[\d,]*(?:\.\d+)?|{spelled})\b(?:\s+([a-z]+)(?:\s+([a-z]+))?)?"
    out: list[tuple[Any, str, str]] = []
    taken: set[int] = set()
    for pattern, op in BOUNDS:
        # "superó los 25 °C" glosses "exceeded the 25 °c": an article before the number.
        for m in re.finditer(rf"\b(?:{pattern})\s+(?:the\s+)?{number}", low):
            if re.search(rf"\b(?:\d+|{spelled})\s*$", low[: m.start()]):
                continue  # "5 up to 6 models", "five to six rows": how many, not a bound
            out.append((m, op, ""))
            taken.add(m.start())
    # "no more than two hours" holds "more than two hours": the longer match stands.
    out = [
        b
        for b in out
        if not any(
            o is not b
            and o[0].start() <= b[0].start()
            and b[0].end() <= o[0].end()
            and (o[0].end() - o[0].start()) > (b[0].end() - b[0].start())
            for o in out
        )
    ]
    for m in re.finditer(rf"\b{COMPARATIVE}\s+{number}", low):
        word = m.group(1)
        if m.start() in taken or word in ("more", "greater", "higher", "larger", "fewer", "less"):
            continue
        if word in ("later", "earlier", "smaller", "lower"):
            continue  # in BOUNDS already
        op = "<" if word in MIN_WORDS else ">"
        # The number and unit groups sit one later than in BOUNDS' matches.
        out.append((m, op, word))
    # "born in 1980 or later", "5 million or more": the bound after the number.
    value = r"(-?\d[\d,]*(?:\.\d+)?)"
    for m in re.finditer(rf"\b{value}\s*(?:([a-z%]+)\s+)?(?:or|and)\s+({POSTFIX})\b", low):
        if any(m.start() <= f.start() < m.end() for f, _op, _w in out):
            continue
        op = ">=" if m.group(3) in POSTFIX_UP else "<="
        parts = (m.group(1), m.group(2), None)
        ageing = m.group(3) in ("older", "younger") and m.group(2) in (None, "year", "years")
        if ageing and float(m.group(1).replace(",", "")) < 150:
            # "60 years and older", "patients of 60 or older": an age ("1990 or older" is
            # a year, the earlier ones)
            op = ">=" if m.group(3) == "older" else "<="
            parts = (m.group(1), "years", "old")
        out.append((_Span(m.start(), m.end(), parts), op, ""))
    # "founded between 1800 and 1899": both ends, inclusive.
    either = rf"(-?\d[\d,]*(?:\.\d+)?|{spelled})"
    scale = r"(?:\s+(thousand|million|billion))?"
    for m in re.finditer(
        rf"\bbetween\s+{either}{scale}\s+and\s+{either}{scale}(?:\s+([a-z]+))?\b", low
    ):
        # "between two and three thousand pounds": the scale of the second end holds for both.
        factor = SCALES.get(m.group(4) or "", 1)
        first = _number_text(m.group(1), SCALES.get(m.group(2) or "", factor))
        second = _number_text(m.group(3), factor)
        unit = m.group(5)
        out.append((_Span(m.start(), m.end(), (first, unit, None)), ">=", ""))
        out.append((_Span(m.start(), m.end(), (second, unit, None)), "<=", ""))
    return out


SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}


def _number_text(raw: str, factor: float) -> str:
    """A spelled or written number times a scale, as text ("two", 1000 -> "2000")."""
    number = float(SPELLED[raw]) if raw in SPELLED else float(raw.replace(",", ""))
    value = number * factor
    return str(int(value)) if value.is_integer() else str(value)


POSTFIX_UP = ("later", "after", "more", "above", "higher", "over", "greater", "onwards",
              "onward", "beyond", "up", "newer", "since")  # fmt: skip
POSTFIX = "|".join(
    (
        *POSTFIX_UP,
        "earlier",
        "before",
        "less",
        "fewer",
        "below",
        "lower",
        "under",
        "older",
        "younger",
    )
)


@dataclass
class _Span:
    """A bound found by a pattern whose groups differ from BOUNDS' (match-like)."""

    begin: int
    finish: int
    parts: tuple[str | None, str | None, str | None]

    def start(self) -> int:
        return self.begin

    def end(self) -> int:
        return self.finish

    def groups(self) -> tuple[str | None, str | None, str | None]:
        return self.parts


UNIT_NAMES = {
    "gram": "g", "grams": "g", "kilogram": "kg", "kilograms": "kg", "kilo": "kg",
    "metre": "m", "metres": "m", "meter": "m", "meters": "m", "kilometre": "km",
    "kilometres": "km", "kilometer": "km", "kilometers": "km", "second": "s",
    "seconds": "s", "millimetre": "mm", "millimetres": "mm", "millimeter": "mm",
    "millimeters": "mm", "centimetres": "cm", "centimeters": "cm", "minute": "minute",
    "hour": "hour", "dollars": "usd", "dollar": "usd", "euros": "eur", "percent": "%",
}  # fmt: skip


def _unit_words(column: Column) -> set[str]:
    label = column.labels.get("en", "")
    inner = re.findall(r"\(([^)]*)\)", label)
    return {w.rstrip("s") for part in inner for w in re.findall(r"[a-z²%]+", part.lower())}


def _year_columns(table: Table) -> list[Column]:
    """The fields that hold years or dates."""
    return [c for c in table.columns.values() if c.orderable and holds_years(table, c.path)]


EXTREMES = {"max": "min", "min": "max", "maximum": "minimum", "minimum": "maximum"}


def _bound_side(column: Column, op: str, low: str, columns: Sequence[Column]) -> Column:
    """Of a maximum and a minimum, the one a bound on their quantity tests.

    "a temperature below 0" over a day's maximum and minimum: it fell below, the minimum;
    "above 30": the maximum. A bound on the one the intent names ("a maximum temperature
    below 5") stays on it.
    """
    words = words_of(column.path)
    swapped = [EXTREMES.get(w, w) for w in words]
    if swapped == words:
        return column
    want = "min" if op in ("<", "<=") else "max"
    if any(w.startswith(want) for w in words):
        return column
    quantity = [w for w in words if w not in EXTREMES]
    if quantity and re.search(rf"\b(?:max|min)\w*\s+{re.escape(quantity[-1])}", low):
        return column  # named with its extreme
    sibling = next((c for c in columns if words_of(c.path) == swapped), None)
    return sibling or column


def _bound_conditions(intent: str, table: Table, mentions: list[Mention]) -> list[Condition]:
    low = intent.lower()
    out = []
    orderable_columns = [c for c in table.columns.values() if c.orderable]
    for m, op, word in _bound_matches(low):
        groups = m.groups()[1:] if word else m.groups()
        raw, unit1, unit2 = groups[0], groups[1] or "", groups[2] or ""
        # "more than 10 million people": the scale multiplies, the word after it is the unit.
        scale = SCALES.get(unit1, 1)
        if scale != 1:
            unit1, unit2 = unit2, ""
        number = str(SPELLED[raw]) if raw in SPELLED else raw.replace(",", "")
        before = len(_tokens(low[: m.start()]))
        said_units = {UNIT_NAMES.get(u, u).rstrip("s") for u in (unit1, unit2) if u}
        said_units &= {w for c in orderable_columns for w in _unit_words(c)} or said_units
        # The field whose unit the bound states ("50,000 square miles"), else the field
        # the comparative names ("longer" -> length, runtime), else the nearest named.
        by_unit = [c for c in orderable_columns if said_units and said_units <= _unit_words(c)]
        by_unit = by_unit or [c for c in orderable_columns if said_units & _unit_words(c)]
        # "over 60 years old", "patients with more than 50 years": an age (a count of
        # years below 150, where no field counts years otherwise).
        aged = unit1 in ("year", "years", "yr", "yrs") and (
            unit2 == "old"
            or re.match(r"\s*(?:old|of age)\b", low[m.end() :])
            or (
                float(number) < 150 and not any("year" in _unit_words(c) for c in orderable_columns)
            )
        )
        if aged or re.search(r"\baged?\s*$", low[: m.start()]):
            # "over 60 years old", "aged over 60": the age, whatever else is named nearby
            by_unit = [c for c in orderable_columns if "age" in words_of(c.path)] or by_unit
        by_word = [
            c for c in orderable_columns if set(SYNONYMS.get(word, ())) & set(words_of(c.path))
        ]
        # "older than 60": the quantity the adjective measures (old -> age, heavy -> weight).
        measured = _measured(word)
        by_word = by_word or [c for c in orderable_columns if measured & set(words_of(c.path))]
        # "at least six cylinders", "under 5 million residents": the word after the number.
        for said in (unit1, unit2):
            if said and not by_word:
                by_word = [
                    x.column
                    for x in _mentions(said, table)
                    if x.column.orderable and x.strength >= 0.5
                ]
        orderable = [x for x in mentions if x.column.orderable and x.table == table.id]
        # Named before the bound, nearest first ("... blood pressure ... bmi above 30").
        last_said = {
            id(x): max((p for p in (x.positions or (x.position,)) if p < before), default=-1)
            for x in orderable
        }
        prior = [x for x in orderable if last_said[id(x)] >= 0]
        for several in (by_unit, by_word):
            # "the petal longer than 5 cm" over sepal and petal lengths in cm: the one named
            # nearest before the bound.
            named = [x for x in prior if x.column in several]
            if len(several) > 1 and named:
                nearest = max(named, key=lambda x: last_said[id(x)]).column
                several[:] = [nearest, *(c for c in several if c is not nearest)]
        if by_unit:
            column = by_unit[0]
        elif by_word:
            column = by_word[0]
        elif prior:
            column = max(prior, key=lambda x: last_said[id(x)]).column
        elif orderable:
            column = orderable[0].column
        elif re.fullmatch(r"\d{4}", number) and len(years := _year_columns(table)) == 1:
            column = years[0]  # "set before 2000": the table's one year field
        else:
            continue
        column = _bound_side(column, op, low, orderable_columns)
        value: str | float = float(number)
        if scale != 1:
            # "10 million" over a field counted in millions ("population_millions") is 10.
            named = [*words_of(column.path), *column.labels.get("en", "").lower().split()]
            unit = next((SCALES[w.rstrip("s")] for w in named if w.rstrip("s") in SCALES), 1)
            value = float(number) * scale / unit
        field_unit = column.labels.get("en", "")
        for (said, has), factor in UNIT_FACTORS.items():
            if unit1 == said and f"({has})" in field_unit:
                value = float(value) * factor
        if column.kind == "date" and re.fullmatch(r"\d{4}", number):
            value = f"{number}-01-01"
        out.append(Condition(field=column.path, op=op, value=value))  # type: ignore[arg-type]
    return out


NUMBER_ADJECTIVE = re.compile(
    r"\b(\d{1,3}|two|three|four|five|six|seven|eight|nine|ten|twelve)[- ]([a-z]+)\b"
)
"""A number before a noun: "8-cylinder cars", "four-door models", "cars with six cylinders"
(a value of that field, when a record has it)."""
YEAR_WORD = re.compile(r"(?<![\d.,])\b(1[89]\d\d|20\d\d)\b(?!\d|[.,]\d)")


def _equal_conditions(intent: str, table: Table, bounds: list[Condition]) -> list[Condition]:
    """Values of number fields the intent says as adjectives or alone.

    "8-cylinder" is ``Cylinders == 8``; a year said alone ("the 1970 model-year cars") is the
    value of the table's one year field.
    """
    low = _without_bounds(intent.lower())
    bounded = {c.field for c in bounds}
    out: list[Condition] = []
    numbers = [c for c in table.columns.values() if c.kind == "number"]
    for m in NUMBER_ADJECTIVE.finditer(low):
        word = singular(m.group(2))
        raw = m.group(1)
        value = float(raw) if raw.isdigit() else float(SPELLED.get(raw, NUMBER_WORDS.get(raw, 0)))
        for column in numbers:
            said = {singular(w) for w in words_of(column.path)}
            known = {table.order_value(r, column.path) for r in table.rows()}
            spaced = m.group(0)[len(raw)] == " "  # "six cylinders", not "six-cylinder"
            if spaced and (column.unique or word in table.entity.get("en", "").split()):
                continue  # "ten patients": how many, not the patient numbered 10
            if word in said and column.path not in bounded and value in known:
                out.append(Condition(field=column.path, op="==", value=value))
    years = _year_columns(table)
    if len(years) == 1 and years[0].kind == "number" and years[0].path not in bounded:
        # "cars 1970-1982": a span of years (the data's own), not one year.
        # ("1970-82": the second year may be written with two digits)
        spanless = re.sub(r"\b\d{4}\s*(?:-|–|to|through|until)\s*(?:\d{4}|\d{2})\b", " ", low)
        found = {float(y) for y in YEAR_WORD.findall(spanless)}
        known = {table.order_value(r, years[0].path) for r in table.rows()}
        if len(found) == 1 and found <= known:
            out.append(Condition(field=years[0].path, op="==", value=found.pop()))
    return out


def _without_bounds(text: str) -> str:
    """The text with its bounds taken out ("more than 10 million" ranks nothing)."""
    spans = {(m.start(), m.end()) for m, _op, _word in _bound_matches(text)}
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + " " + text[end:]
    return text


def _direction(intent: str, column: Column | None, table: Table | None = None) -> str:
    tokens = _tokens(intent)
    text = " ".join(tokens)
    # On a date or a year ("first appeared" 1991), "older" means the smaller value.
    is_date = column is not None and (
        column.kind == "date" or (table is not None and holds_years(table, column.path))
    )
    found_max = [text.find(w) for w in MAX_WORDS if re.search(rf"\b{w}\b", text)]
    found_min = [text.find(w) for w in MIN_WORDS if re.search(rf"\b{w}\b", text)]
    if is_date:
        for w in DATE_MIN:
            if re.search(rf"\b{w}\b", text):
                return "min"
    if column is not None and _timed(column):
        # "accelerates faster": a shorter time (the field holds how long something takes).
        quick = re.search(r"\b(?:fast|quick|rapid|swift)(?:er|est|ly)?\b", text)
        slow = re.search(r"\b(?:slow|slug)(?:er|est|ly|gish)?\b", text)
        if quick and not slow:
            return "min"
        if slow and not quick:
            return "max"
    if found_min and (not found_max or min(found_min) < min(found_max)):
        return "min"
    return "max"


def _measured(word: str) -> set[str]:
    """The quantity a comparative or superlative measures: older -> age, heaviest -> weight."""
    for end in ("est", "er"):
        if word.endswith(end):
            stem = word[: -len(end)]
            bases = (stem, stem[:-1], stem[:-1] + "y", stem + "e")
            return {HOW_ADJECTIVE[b] for b in bases if b in HOW_ADJECTIVE}
    return set()


def _timed(column: Column) -> bool:
    """Whether a column holds how long something takes ("acceleration time", "lap (s)")."""
    label = column.labels.get("en", "").lower()
    words = {*re.findall(r"[a-z]+", label), *words_of(column.path)}
    units = _unit_words(column)
    return bool(words & {"time", "duration", "seconds"} or units & {"s", "sec", "second", "min"})


def _k(intent: str, default: int) -> int:
    low = intent.lower()
    m = re.search(r"\b(\d{1,2})\s+(?:rows|records|items|entries|of them|options|\w+s)\b", low)
    if m and 2 <= int(m.group(1)) <= 12:
        return int(m.group(1))
    for word, n in NUMBER_WORDS.items():
        if re.search(rf"\b{word}\b", low) and n >= 2:
            return n
    return default


def shown_rows(table: Table, wanted: int) -> int:
    """Rows an open-book prompt shows: as asked, but fewer than the table has.

    Fewer rows than the table has let the rows shown vary from item to item.
    """
    return max(2, min(wanted, len(table.records) - 2))


NO_CHOICES = re.compile(
    r"\b(?:no|not|without|never|rather than|instead of)\s+(?:any\s+)?(?:answer\s+)?"
    r"(?:options|choices|multiple[- ]choice|mcq)\b"
)


def _format(intent: str, default: str) -> str:
    low = intent.lower()
    if NO_CHOICES.search(low):
        # "open-ended answers please, no answer options"
        low = NO_CHOICES.sub(" ", low)
        default = "short_answer" if default == "multiple_choice" else default
    for pattern, fmt in FORMAT_CUES:
        if pattern.search(low):
            return fmt
    return default


NO_TABLE = re.compile(
    r"\b(no (?:(?!text\b)\w+ )?table|"
    r"without (?:seeing |looking at |being shown |showing |having )?(?:a |the |any )?"
    r"(?:tables?|rows|data)|"
    r"not (?:from|in) (?:a |the )?table|"
    r"no rows|no data|nothing (?:is )?shown|not shown|from memory|general knowledge|"
    r"closed[- ]book|trivia|should (?:just )?know|(?:just|simply) know|"
    r"nothing (?:else )?(?:is )?(?:in|on) the prompt|no reference|zero[- ]shot|"
    r"no (?:labell?ed )?examples|"
    r"(?:won't|will not|don't|do not|does not|doesn't|cannot|can't|never) (?:have|get|see) "
    r"(?:any )?"
    r"(?:notes|tables?|data|rows)|"
    r"no (?:\w+ ){0,3}(?:(?:should|must|will|may|can|are|is) (?:be )?)?(?:shown|given|displayed)|"
    r"(?:the )?model knows|"
    r"(?:do not|don't|never|without|not) (?:show|display|give|provide|include|use)(?:ing)? "
    r"(?:any |a |the )?(?:tables?|rows|data))\b"
)


def _book(intent: str, default: str) -> str:
    low = intent.lower().replace("periodic table", "periodic system")
    if NO_TABLE.search(low):
        return "closed"
    if OPEN_CUES.search(low):
        return "open"
    if CLOSED_CUES.search(low):
        return "closed"
    return default


def joins(tables: Mapping[str, Table]) -> list[tuple[str, str, str, str]]:
    """Fields whose values are another (or the same) table's unique values.

    Returns ``(table, via, other_table, key_field)`` tuples: ``staff.manager`` keys
    ``staff.name``, ``countries.currency_code`` keys ``currencies.currency_code``.
    """
    out = []
    for a in tables.values():
        for column in a.columns.values():
            if column.kind not in ("text", "category"):
                continue
            values = {a.text(r, column.path).casefold() for r in a.rows()} - {""}
            if len(values) < 2:
                continue
            for b in tables.values():
                for target in b.unique_columns():
                    if b.id == a.id and target.path == column.path:
                        continue
                    keys = {b.text(r, target.path).casefold() for r in b.rows()}
                    if values <= keys:
                        out.append((a.id, column.path, b.id, target.path))
    return out


RANK_TOKENS = frozenset((*MAX_WORDS, *MIN_WORDS, "most", "least"))


def _verb_measured(low: str) -> set[str]:
    """The quantity a verb ranks: "the day it rained (the) most" -> precipitation."""
    return {
        HOW_ADJECTIVE[verb]
        for verb in re.findall(r"\b(\w+?)ed\s+(?:the\s+)?(?:most|least)\b", low)
        if verb in HOW_ADJECTIVE
    }


def measures(column: Column, quantities: Collection[str]) -> bool:
    """Whether a column holds one of ``quantities`` by its name or label (width, weight)."""
    return bool(set(quantities) & {*words_of(column.path), *_tokens(column.labels.get("en", ""))})


def _nearest_ranked(low: str, ranked: list[Mention], table: Table) -> list[Mention]:
    """The ranked fields in order: the one named nearest before the rank word first.

    "how many races the champion won, and ... in which season the champion won the
    most" ranks by wins, not races; the record's own key (a season's year) comes last.
    """
    tokens = _tokens(low)
    at = [
        i
        for i, t in enumerate(tokens)
        if t in RANK_TOKENS or (t.endswith("est") and len(t) > 4 and t not in NOT_SUPERLATIVE)
    ]
    if not at:
        return ranked
    where = at[-1]
    measured = {word for i in at for word in _measured(tokens[i])} | _verb_measured(low)
    # "the biggest population": the field named right after the rank word is the one ranked,
    # whatever "biggest" measures alone.
    after = [m for m in ranked if m.strength >= 0.5 and where + 1 in (m.positions or (m.position,))]
    # "wider petals": of the fields the word after names (petal length, petal width), the
    # one the rank word measures (its mention may come from the measured word alone).
    if where + 1 < len(tokens):
        named_after = {m.column.path for m in _mentions(tokens[where + 1], table)}
        after += [m for m in ranked if m.column.path in named_after and m not in after]
    fits = [m for m in after if measures(m.column, measured)]
    after = fits + [m for m in after if m not in fits]
    if after and after[0].column.path != table.key:
        return after[:1] + [m for m in ranked if m is not after[0]]
    if measured:
        # "which is the heaviest": the weight, wherever the fields are listed.
        said = [m for m in ranked if measures(m.column, measured)]
        if said:
            said = _extreme(said, low)  # "the coldest": the minimum temperature
            ranked = said + [m for m in ranked if m not in said]
            return said[:1] + sorted(ranked[1:], key=lambda m: m.column.path == table.key)

    def distance(m: Mention) -> float:
        spots = m.positions or (m.position,)
        before = [where - p for p in spots if p <= where]
        # "score more goals": the field named just after the rank word is nearest of all.
        after = [0.5 * (p - where) for p in spots if 0 < p - where <= 3]
        near = before + after
        return min(near) if near else 1000 + min(abs(p - where) for p in spots)

    return sorted(
        ranked,
        key=lambda m: (
            m.column.path == table.key,
            m.strength < 0.75,
            distance(m),
        ),
    )


def _how_many_field(intent: str, mentions: list[Mention], table: Table) -> Mention | None:
    """The number field a "how many" asks for ("how many world titles"), or None."""
    tokens = _tokens(intent)
    for i, t in enumerate(tokens):
        # "how many of them run longer than ..." counts the records.
        following = tokens[i + 1] if i + 1 < len(tokens) else ""
        if t == "many" and i and tokens[i - 1] == "how" and following != "of":
            window = range(i + 1, i + 4)
            for m in mentions:
                if (
                    m.column.kind == "number"
                    and m.column.path != table.key
                    and m.strength >= 0.5
                    and any(p in window for p in (m.positions or (m.position,)))
                ):
                    return m
    return None


QUESTION_WORD = re.compile(r"\b(?:wh?ich|what)\s+(?:(?:us|uk|eu)\s+)?([a-z][a-z-]+)")
"""The word a question word asks for ("which US state": state, past a short qualifier)."""
WHAT_IS = re.compile(
    r"\b(?:(?:what|which) (?:is|was|are|were)|ask(?:s|ing)? for) (?:the |a |an |its |their )?"
    r"([a-z][a-z-]+)"
)
"""The word a question asks for after "what is the" ("what is the GDP": gdp)."""
AGG_WORDS = frozenset(
    "average mean total sum median minimum maximum min max count number difference ratio "
    "share percentage proportion same".split()
)
"""Words after "what is the" that ask for a number made of the rows, not a field."""
NAMED_WORD = re.compile(
    r"\b(?:name|identify|predict|determine|guess|ask(?:s|ing)? for) the\s+([a-z][a-z-]+)"
)
"""A field asked without a question word ("have the model name the species")."""
HOW_ADJECTIVE = {"old": "age", "tall": "height", "heavy": "weight", "far": "distance",
                 "deep": "depth", "fast": "speed", "big": "size", "wide": "width",
                 "high": "height", "warm": "temperature", "hot": "temperature",
                 "cold": "temperature", "wet": "precipitation", "rain": "precipitation",
                 "snow": "precipitation", "cheap": "price"}  # fmt: skip
""""how old was he" asks an age: the field that holds it, or none."""
NOT_ASKED = frozenset(
    "one ones is are was were do does did has have had the a an it its they he she his her "
    "of kind sort type would will can could should number value way percentage share about "
    "else if to in on for each this that these those their them model models table rows "
    "record records data answer answers right correct one".split()
)
WHO_WORD = re.compile(
    r"\bwho\s+(?:finished|came|was|is|were|placed|became|ended up)\s+(?:as\s+)?"
    r"(?:the\s+|a\s+|an\s+)?([a-z][a-z-]+)"
)
"""A role asked with "who" ("who finished runner-up")."""
WHO_VERB = re.compile(r"\bwho\s+([a-z]{3,}ed)\b")
"""An agent asked with "who" and a verb ("who painted it": the painter)."""
WHEN_WORDS = frozenset("year years date day month century decade time era".split())


PLACE_WORDS = frozenset("country nation team state territory".split())


def _places(table: Table, column: Column) -> bool:
    """Whether most values of a text column are countries or territories (CLDR names)."""
    if column.orderable:
        return False
    values = {table.text(r, column.path) for r in table.rows()} - {""}
    named = sum(1 for v in values if is_place(v))
    return bool(values) and named * 2 > len(values)


CODE_LIKE_WORDS = frozenset("and can not per all one are has was but may".split())
"""Short English words that are also codes (Andorra's AND, Canada's CAN, Peru's PER)."""


def _example_column(intent: str, table: Table, *, least: int = 1) -> Column | None:
    """The record-naming column two or more of whose values the intent quotes as examples.

    Written as in the data ("SEA or DEN", "DEU, BRA, JPN"), in parentheses or after "like",
    "e.g." or "such as", or each in quotes ("'SEA' or 'DEN'"); the column with most of them
    (None: fewer than two, or than ``least``; one when the intent names its column).
    """
    spans = re.findall(r"\(([^()]{2,80})\)|\b(?:like|e\.g\.|such as)\s+([^.;:()]{2,60})", intent)
    said = {w for span in spans for part in span for w in re.findall(r"[\w-]+", part)}
    # ... or each quoted whole ("Type 'SEA' or 'DEN'"; not the words of a quoted question)
    quoted = r"(?<!\w)['\"«„“‘]\s*([^'\"«»„“”‘’\n]{1,40}?)\s*['\"»“”’](?!\w)"
    said |= {q.strip() for q in re.findall(quoted, intent)}
    if not said:
        return None
    words = {w.casefold() for w in said}
    loose = {w for w in words if len(w) >= 3 and w not in FUNCTION_WORDS["en"] | CODE_LIKE_WORDS}
    named = {m.column.path for m in _mentions(intent, table) if m.strength >= 0.5}
    best: tuple[int, Column | None] = (0, None)
    for column in table.unique_columns():
        texts = {table.text(r, column.path) for r in table.rows()}
        # A code ("AS", "IN") is quoted in capitals, or in small letters when it is no short
        # English word: "e.g. how many live in Portugal? as answer ..." quotes no code,
        # "like sea or den" does.
        hits = len(
            {
                t
                for t in texts
                if ((t in said or t.casefold() in loose) if t.isupper() else t.casefold() in words)
            }
        )
        # One example counts when the intent also names its column ("the code, e.g. LAX").
        if hits > best[0] and hits >= least and (hits >= 2 or column.path in named):
            best = (hits, column)
    return best[1]


def _asked_column(
    intent: str, tables: Mapping[str, Table], table: Table, mentions: Sequence[Mention]
) -> tuple[Column | None, str | None]:
    """The field a question word names, and a word it names that no field holds.

    "which team" -> constructor; "what vintage" over a table with no such field ->
    ``(None, "vintage")``; each is None when there is none.
    """
    unknown: str | None = None
    low = intent.lower()
    asked = [*QUESTION_WORD.finditer(low), *WHO_WORD.finditer(low), *NAMED_WORD.finditer(low)]
    # "what is the GDP of Portugal": the word after "what is the" (a rank or an aggregate
    # word there asks no field: "what is the largest", "what is the average").
    what_is = [
        m
        for m in WHAT_IS.finditer(low)
        if m.group(1) not in RANK_TOKENS
        and not m.group(1).endswith("est")
        and not any(p.fullmatch(m.group(1)) for p, _agg in AGG_CUES)
        and m.group(1) not in AGG_WORDS
    ]
    asked += what_is
    for how in re.finditer(r"\bhow (" + "|".join(HOW_ADJECTIVE) + r")\b", low):
        # "how high was the temperature": the quantity named after it is asked.
        after = re.match(
            r"\s+(?:(?:is|was|were|are|did|does|do|it|got|gets|get|the|its|their)\s+){1,3}"
            r"([a-z]+(?: [a-z]+)?)",
            low[how.end() :],
        )
        named = [
            m
            for m in (_mentions(after.group(1), table) if after else [])
            if m.strength >= 0.5 and m.column.orderable
        ]
        if named:
            return _extreme(named, low)[0].column, None
        quantity = HOW_ADJECTIVE[how.group(1)]
        found = _extreme([m for m in _mentions(quantity, table) if m.strength >= 0.5], low)
        synonyms = [m for m in _mentions(how.group(1) + "est", table) if m.strength >= 0.5]
        if found or synonyms:
            return (found or synonyms)[0].column, None
        # "how old was he": an age is asked outright; none held is a refusal.
        return None, f"{quantity}!"
    noun = table.entity.get("en", "")
    for match in asked:
        word = match.group(1).removesuffix("'s")
        if word in NOT_ASKED:
            continue
        if noun and singular(word) == noun and match.group(0).startswith(("which", "wich")):
            continue  # "which country it is": the record itself (its name) is asked
        found = [m for m in _mentions(word, table) if m.strength >= 0.5]
        # "the currency code", "the ISO 4217 code of the currency": the column the words
        # name together, in full.
        rest = low[match.end(1) :]
        phrases = [f"{word} {a.group(1)}"] if (a := re.match(r"\s+([a-z]+)", rest)) else []
        of = re.match(r"\s+(?:\d+\s+)?([a-z]+) of (?:the |its |their |a |an )?([a-z]+)", rest)
        if of:
            phrases.append(f"{of.group(2)} {of.group(1)}")
        if phrases:
            fuller = [
                m
                for phrase in phrases
                for m in _mentions(phrase, table)
                if m.strength >= 1.0 and len(m.positions) >= 2
            ]
            taken = {f.column.path for f in fuller[:1]}
            found = fuller[:1] + [m for m in found if m.column.path not in taken]
        if match.group(0).startswith("which"):
            # "which team" asks a thing, not the count column "teams".
            found = [
                m for m in found if not m.column.orderable or holds_years(table, m.column.path)
            ]
        if found:
            return found[0].column, None
        if singular(word) in PLACE_WORDS:
            # "which country won": a column whose values are countries (CLDR territories).
            places = [c for c in table.columns.values() if _places(table, c)]
            said = {m.column.path for m in mentions if m.strength >= 0.5}
            if len(places) > 1:
                # "which nation won": the place column the verb names (winner).
                places = [c for c in places if c.path in said] or places
            if places:
                return (places[0] if len(places) == 1 else None), None
        others = [m for t in tables.values() if t.id != table.id for m in _mentions(word, t)]
        # "what is Finland called in Swedish": a record's value, not a field asked.
        said_value = word in table.value_words
        if (
            others
            or said_value
            or singular(word) in noun.split()
            or (word in WHEN_WORDS and _year_columns(table))
            or singular(word) in words_of(table.id)
        ):
            continue
        if match in what_is and re.match(r"\s+(?:[a-z]+\s+)?of\b", low[match.end(1) :]):
            # "what was the price of the ford pinto": a field of one record, asked outright
            unknown = unknown or f"{word}!"
        unknown = unknown or word
    for verb in WHO_VERB.finditer(low):
        # The agent noun of the verb (painted -> painter), not the work (painting).
        agent = {v for v in variants(verb.group(1)) if v.endswith(("er", "or"))}
        agents = [c for c in table.columns.values() if agent & set(words_of(c.path))]
        if agents and not agents[0].orderable and unknown is None:
            return agents[0], None
    if unknown is None:
        # "what was the maximum temperature", "what the maximum temperature was": the field
        # named in full after "what (was) the".
        asked = r"\bwhat (?:(?:is|was|were|are) )?the ((?:[a-z]+ ){0,2}[a-z]+)"
        for said in re.finditer(asked, low):
            full = [m for m in _mentions(said.group(1), table) if m.strength >= 1.0]
            if len(full) == 1:
                return full[0].column, None
    return None, unknown


GIVEN_RECORD = re.compile(
    r"\b(?:on|for|of|in|at) (?:a|an|one)(?: of the)?"
    r"(?: (?:given|particular|specific|certain|chosen|single|shown))?(?: [a-z]+)? ([a-z]+)"
)
"""A lookup's record, named by the intent's own noun ("on a given date", "for a particular car")."""


def _record_named(text: str, table: Table) -> bool:
    """Whether the text names one record by its key's value ("on 2012-01-15", "of DEN")."""
    if table.key is None:
        return False
    key = table.columns[table.key]
    if key.kind == "date":
        # "on 2012-01-15", "on 4 july 2014", "on July 4, 2014"
        month = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
        return bool(
            re.search(r"\b\d{4}-\d{2}-\d{2}\b", text)
            or re.search(rf"\b\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{month},? \d{{4}}\b", text)
            or re.search(rf"\b{month} \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}\b", text)
        )
    said = set(_tokens(text))
    return any(v.casefold() in said for r in table.rows() if len(v := table.text(r, key.path)) >= 3)


def _given_record(low: str, table: Table) -> re.Match[str] | None:
    """Where the intent names one of its records by their own noun, or None.

    "On a given date", "in one of the days shown".
    """
    if table.key is None:
        return None
    key = table.columns[table.key]
    own = {table.entity.get("en", ""), *words_of(key.path)}
    if key.kind == "date":
        own |= {"date", "day"}
    for given in GIVEN_RECORD.finditer(low):
        if singular(given.group(1)) in own:
            return given
    return None


def _one_record_asked(low: str, table: Table, asked: Column | None) -> bool:
    """Whether the intent asks one given record's value.

    "On a given date" names the records' own noun (or the date of a table keyed by dates),
    and a field is asked of it (by a question word, or a rank word right before the field's
    name: "the highest temperature").
    """
    given = _given_record(low, table)
    if given is None:
        return False
    if asked is not None and asked.orderable and asked.path != table.key:
        return True
    for match in re.finditer(rf"\b(?:{RANK_WORDS})\s+([a-z]+(?: [a-z]+)?)", low[: given.start()]):
        if any(
            m.strength >= 0.5 and m.column.orderable and m.column.path != table.key
            for m in _mentions(match.group(1), table)
        ):
            return True
    return False


CUE_SPELLINGS = (
    "average", "maximum", "minimum", "highest", "lowest", "largest", "smallest", "compare",
    "biggest", "greatest", "heaviest", "lightest", "longest", "shortest",
)  # fmt: skip
"""Cue words a typo must not hide ("avergae", "maximun", "comapre")."""


def _split_compounds(intent: str, table: Table) -> str:
    """German and Dutch compounds that start with a field's word, split.

    "cultivarklasse" -> "cultivar klasse"; a word the field's own words hold stays whole.
    """
    words = sorted(
        {
            w
            for c in table.columns.values()
            for w in (*words_of(c.path), *re.findall(r"[a-z]+", c.labels.get("en", "").lower()))
            if len(w) >= 5
        },
        key=len,
        reverse=True,
    )

    def split(match: re.Match[str]) -> str:
        token = match.group(0)
        low = token.lower()
        for w in words:
            if low.startswith(w) and len(low) - len(w) >= 4 and low not in words:
                return f"{token[: len(w)]} {token[len(w) :]}"
        return token

    return re.sub(r"\b[^\W\d_]{9,}\b", split, intent) if words else intent


def _share(table: Table, condition: Condition) -> float:
    """The share of the table's records an equality condition selects."""
    rows = list(table.rows())
    value = str(condition.value).casefold()
    held = sum(1 for r in rows if table.text(r, condition.field).casefold() == value)
    return held / len(rows) if rows else 0.0


def _cue_typos(intent: str) -> str:
    """The intent with misspelt cue words spelt right ("the avergae bmi" -> "average").

    Only a word of six letters or more that is no cue word itself and lies close to one
    (difflib ratio 0.85: a swapped or missing letter) is replaced.
    """
    known = {*CUE_SPELLINGS, *MAX_WORDS, *MIN_WORDS}

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        if word.lower() in known:
            return word
        close = difflib.get_close_matches(word.lower(), CUE_SPELLINGS, n=1, cutoff=0.85)
        return close[0] if close else word

    return re.sub(r"\b[A-Za-z]{6,}\b", fix, intent)


def _named_key(intent: str, table: Table) -> tuple[Column | None, str]:
    """The column the intent says names its records, and the intent without that phrase.

    "The country designated by its French name" -> ``names.fr``; of "name" and "French
    name", both named in full, the longer label says more.
    """
    said = KEY_NAMED_BY.search(intent.lower())
    if said is None:
        return None, intent
    by = [g for g in _mentions(said.group(1), table) if g.column.unique and g.strength >= 0.75]
    by.sort(key=lambda g: (-g.strength, -len(words_of(g.column.labels.get("en", "")))))
    if not by:
        return None, intent
    return by[0].column, intent[: said.start()] + " " + intent[said.end() :]


def _extreme(found: list[Mention], low: str) -> list[Mention]:
    """Columns a quantity names alike, the one the intent's rank words pick first.

    Maximum and minimum temperature: "at most" or "highest" picks the maximum.
    """
    if len(found) < 2:
        return found
    said = set(re.findall(r"[a-z]+", low))
    wants_max = bool(said & {"most", "highest", "maximum", "max", "warmest", "hottest", "top",
                             "warmer", "hotter"})  # fmt: skip
    wants_min = bool(said & {"least", "lowest", "minimum", "min", "coldest", "coolest",
                             "colder", "cooler"})  # fmt: skip
    if wants_max == wants_min:
        return found

    def rank(m: Mention) -> int:
        words = {*words_of(m.column.path), *re.findall(r"[a-z]+", m.column.labels.get("en", ""))}
        high = bool(words & {"max", "maximum", "high", "highest"})
        low_ = bool(words & {"min", "minimum", "low", "lowest"})
        return 0 if (high if wants_max else low_) else 1

    return sorted(found, key=rank)


def _said_noun(intent: str, table: Table) -> bool:
    noun = table.entity.get("en", "")
    return bool(noun) and any(singular(t.removesuffix("'s")) == noun for t in _tokens(intent))


COMPASS = (
    ("north", "highest latitude"),
    ("south", "lowest latitude"),
    ("east", "highest longitude"),
    ("west", "lowest longitude"),
)
"""A direction on the map is a rank of a coordinate (in the northern and eastern sense of
latitude and longitude, as every coordinate table writes them)."""


FUEL_USE = re.compile(
    r"\b(?:uses?|using|consumes?|consuming|burns?|burning|needs?|guzzles?|drinks?)\s+"
    r"(less|more|the least|the most)\s+(?:fuel|gas|gasoline|petrol)"
    r"(?:\s+(?:per|a|each|every)\s+(?:mile|kilometre|kilometer|km|gallon))?\b",
    re.IGNORECASE,
)
"""Fuel used, the inverse of fuel efficiency: "uses less fuel" has a higher efficiency."""


def _idioms(intent: str) -> str:
    """Phrases that rank a quantity by its inverse, said as the quantity ranked."""

    def inverse(m: re.Match[str]) -> str:
        said = m.group(1).lower()
        other = {
            "less": "a higher",
            "more": "a lower",
            "the least": "the highest",
            "the most": "the lowest",
        }
        return f"has {other[said]} fuel efficiency"

    # "three and a half thousand pounds" -> "3.5 thousand pounds"; "half a million" -> 0.5
    def half(m: re.Match[str]) -> str:
        word = m.group(1).lower()
        number = SPELLED[word] if word in SPELLED else float(word)
        return f"{number + 0.5:g} {m.group(2)}"

    spelled = "|".join(w for w in SPELLED if " " not in w)
    intent = re.sub(
        rf"\b({spelled}|\d+) and a half (hundred|thousand|million|billion)\b",
        half,
        intent,
        flags=re.I,
    )
    intent = re.sub(r"\bhalf a (thousand|million|billion)\b", r"0.5 \1", intent, flags=re.I)
    # "below freezing": below 0 degrees
    intent = re.sub(r"\b(below|under|above|over) freezing\b", r"\1 0 degrees", intent, flags=re.I)
    # "north of the 45th parallel": a bound on the latitude
    intent = re.sub(
        r"\b(north|south) of (?:the )?(\d{1,2})(?:st|nd|rd|th|\.|°)?\s*"
        r"(?:parallel|degrees?(?: (?:of )?latitude)?|latitude)\b",
        lambda m: f"latitude {'above' if m.group(1).lower() == 'north' else 'below'} {m.group(2)}",
        intent,
        flags=re.I,
    )
    # "what do you call a person from Peru": the demonym
    intent = re.sub(
        r"\bwhat (?:do you|do we|does one|is) call(?:ed)? (?:a person|someone|a native|an "
        r"inhabitant|people|the people|natives|inhabitants) (?:from|of)\b",
        "what is the demonym of",
        intent,
        flags=re.I,
    )
    # "the biggest head count": the most people
    intent = re.sub(r"\bhead[- ]?counts?\b", "population", intent, flags=re.I)
    # "i mean ...", "what I mean is": the writer restating, not the average
    intent = re.sub(r"\b(?:what i mean is|i mean|i meant)\b", "that is", intent, flags=re.I)
    intent = FUEL_USE.sub(inverse, intent)
    # "the thirstiest", "which is more thirsty": the most fuel used
    intent = re.sub(
        r"\b(?:more thirsty|thirstier)\b", "has a lower fuel efficiency", intent, flags=re.I
    )
    intent = re.sub(
        r"\b(?:the most thirsty|the thirstiest|thirstiest)\b",
        "has the lowest fuel efficiency",
        intent,
        flags=re.I,
    )
    intent = re.sub(r"\b(?:less thirsty)\b", "has a higher fuel efficiency", intent, flags=re.I)
    # "only the V8s": an engine of that many cylinders
    return re.sub(r"\b[vV](4|6|8|10|12)s?\b", r"\1 cylinders", intent)


def compass(intent: str) -> str:
    """A direction said in words ("furthest north", "westernmost") as the coordinate ranked."""
    for point, rank in COMPASS:
        intent = re.sub(compass_phrase(point), rank, intent, flags=re.IGNORECASE)
    return intent


def compass_column(intent: str, table: Table) -> str | None:
    """The coordinate a direction on the map ranks ("le plus à l'ouest": longitude), if any."""
    for point, rank in COMPASS:
        said = compass_phrase(point)
        if re.search(said, intent, re.IGNORECASE):
            coordinate = rank.split()[-1]
            found = [c.path for c in table.columns.values() if coordinate in words_of(c.path)]
            return found[0] if len(found) == 1 else None
    return None


def compass_phrase(point: str) -> str:
    """The words that say a direction on the map ("furthest north", "westernmost")."""
    return (
        rf"\b(?:(?:the )?(?:furthest|farthest|further|farther|most|more)(?: to the)? {point}"
        rf"(?:wards?|ern)?|{point}ernmost)\b"
    )


PICTURE_WORDS = re.compile(
    r"\b(images?|pictures?|photos?|photographs?|scans?|drawings?|handwritten|shown in it|"
    r"bild(?:er)?|imagen(?:es)?|imágenes|immagin[ei]|afbeelding(?:en)?|imagens?|fotos?|"
    r"sounds?|recordings?|clips?|audio)\b"
)
"""Words that say the items show the records' own pictures (or sounds)."""
DIGIT_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9,
}  # fmt: skip
RANGE = re.compile(r"\b(\d{1,4})\s*(?:to|through|thru|up to|until|-|–)\s*(\d{1,4})\b")
CHOICES_SAID = re.compile(
    r"\b(two|three|four|five|six|[2-6])\s+(?:options|choices|possibilities)\b"
)


def _label_column(table: Table, asked: Column | None, mentions: list[Mention]) -> Column | None:
    """The column whose value a picture shows: the one asked, named, else the only label."""
    few = [
        c
        for c in table.columns.values()
        if not c.unique
        and (c.kind == "category" or (c.kind == "number" and _few_integers(table, c)))
    ]
    for column in (asked, *(m.column for m in mentions)):
        if column is not None and column in few:
            return column
    labels = [c for c in few if words_of(c.path)[-1] in ("label", "class", "digit", "category")]
    return (labels or few or [None])[0]


def _few_integers(table: Table, column: Column) -> bool:
    values = {table.order_value(r, column.path) for r in table.rows()} - {None}
    return 1 < len(values) <= MAX_CATEGORIES and all(float(v).is_integer() for v in values)  # type: ignore[arg-type]


def _said_values(low: str, table: Table, column: Column) -> list[float]:
    """The values of a number label the intent names alone ("show a seven", "the digit 7").

    A number that counts something ("six of the images", "6 pictures") is not one.
    """
    known = {table.order_value(r, column.path) for r in table.rows()}
    found = []
    for value, counts in _numbers(low):
        if not counts and value in known and value not in found:
            found.append(value)
    return found


def _numbers(low: str) -> list[tuple[float, bool]]:
    """The numbers an intent says, each with whether it counts records.

    "six of the images", "two pictures", "(say six)" count records; "a seven", "the digit 7"
    name a value.
    """
    out = []
    digits = r"zero|one|two|three|four|five|six|seven|eight|nine"
    for m in re.finditer(rf"\b({digits}|\d{{1,3}})(s|es|'s)?\b", low):
        word = m.group(1)
        value = float(int(word) if word.isdigit() else DIGIT_WORDS[word])
        if m.group(2):  # "how many are sevens", "the 3s": the value, plural
            out.append((value, False))
            continue
        after = low[m.end() :].split()[:1]
        before = re.findall(r"[a-z]+", low[: m.start()])[-1:]
        counts = bool(after) and (after[0] in ("of", "out") or after[0].endswith("s"))
        # "six handwritten digit images": the things counted a few words on
        counts = counts or bool(
            re.match(rf"(?:\s+[a-z0-9-]+){{0,3}}?\s+{COUNTED}\b", low[m.end() :])
        )
        # "(say six)", "about 6": an estimate of how many are shown, never a value.
        counts = counts or before in (["say"], ["about"], ["around"], ["maybe"], ["roughly"])
        out.append((value, counts))
    return out


COUNTED = r"(?:images|pictures|photos|scans|digits|drawings|rows|records|examples|samples|items)"
"""Nouns of the things an intent shows, after a number that counts them."""


def _media_plan(
    intent: str, low: str, table: Table, asked: Column | None, mentions: list[Mention]
) -> list[Candidate]:
    """Programs whose items show the records' pictures.

    What one shows, which of two shows the larger value (closed-book: the pictures are the
    records), how many of those shown show a value (open-book, as a count of rows shown).
    """
    media = next(iter(table.media))
    label = _label_column(table, asked, mentions)
    if label is None:
        return []
    out: list[Candidate] = []
    ranged = [(float(a), float(b)) for a, b in RANGE.findall(low)]
    values = sorted({table.order_value(r, label.path) for r in table.rows()} - {None})
    conditions: list[Condition] = []
    for a, b in ranged:
        if label.kind == "number" and a in values and b in values and a < b:
            if a > values[0]:
                conditions.append(Condition(field=label.path, op=">=", value=_plain(a)))
            if b < values[-1]:
                conditions.append(Condition(field=label.path, op="<=", value=_plain(b)))
    fmt = _format(intent, "multiple_choice")
    if COMPARE_CUES.search(low) and label.orderable:
        spec = ProgramSpec(
            kind="compare",
            table=table.id,
            field=label.path,
            direction=_direction(low, label, table),  # type: ignore[arg-type]
            media_field=media,
            conditions=conditions,
            answer_format="short_answer" if fmt == "numeric" else fmt,  # type: ignore[arg-type]
            n_choices=2,
        )
        out.append(Candidate(spec, 3.2, f"which of two {media}s shows the larger {label.path}"))
    said = _said_values(RANGE.sub(" ", low), table, label) if label.kind == "number" else []
    if COUNT_CUES.search(low) and len(said) == 1:
        spec = ProgramSpec(
            kind="count",
            book="open",  # the records counted are shown, as pictures
            table=table.id,
            media_field=media,
            conditions=[Condition(field=label.path, op="==", value=_plain(said[0]))],
            rows_shown=int(min(12, max(2, next((v for v, c in _numbers(low) if c), 6)))),
            answer_format=_format(intent, "numeric"),  # type: ignore[arg-type]
        )
        out.append(Candidate(spec, 3.1, f"how many {media}s show {label.path} {said[0]:g}"))
    chosen = CHOICES_SAID.search(low)
    n_choices = 4
    if chosen:
        word = chosen.group(1)
        n_choices = int(word) if word.isdigit() else DIGIT_WORDS[word]
    spec = ProgramSpec(
        kind="classify",
        table=table.id,
        answer_field=label.path,
        media_field=media,
        conditions=conditions,
        answer_format="short_answer" if fmt == "numeric" else fmt,  # type: ignore[arg-type]
        n_choices=n_choices,
    )
    out.append(Candidate(spec, 3.0 if not out else 2.0, f"the {label.path} its {media} shows"))
    return sorted(out, key=lambda c: -c.score)


LANGUAGE_VARIANTS = {
    "br": ("brazil", "brazilian", "brasil", "brasileiro", "brasileño", "brésilien"),
    "pt": ("portugal", "european portuguese"),
    "tw": ("taiwan", "traditional"),
    "hk": ("hong kong",),
    "cn": ("simplified", "mainland"),
    "latn": ("latin",),
    "in": ("india", "indian"),
}
"""Words that pick a variant of a language by its code's second part ("pt-br": Brazilian)."""


def _one_language(low: str, table: Table, rows: list[int]) -> list[int]:
    """Of ``rows`` in several variants of one language, those of one variant.

    The variant the intent's words name ("Brazilian Portuguese", "as written in Portugal"),
    else the plain language ("pt" over "pt-br"), else the variant first in order.
    """
    codes = [c for c in table.columns.values() if language_code_column(table, c.path)]
    if len(codes) != 1:
        return rows
    path = codes[0].path
    found = sorted({table.text(r, path) for r in rows})
    if len(found) < 2:
        return rows

    def named(code: str) -> bool:
        parts = code.lower().split("-")
        parts = parts[1:] or parts  # "pt-br" by its Brazil, "pt" by its Portugal
        words = [w for p in parts for w in LANGUAGE_VARIANTS.get(p, ())]
        return any(re.search(rf"\b{re.escape(w)}\b", low) for w in words)

    chosen = next((c for c in found if "-" in c and named(c)), None)
    chosen = chosen or next((c for c in found if named(c)), None)
    chosen = chosen or min(found, key=lambda c: (c.count("-"), c))
    return [r for r in rows if table.text(r, path) == chosen]


def _plain(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def plan(
    intent: str, tables: Mapping[str, Table], main: str, hints: Hints | None = None
) -> list[Candidate] | Refusal:
    """Candidate programs over ``tables[main]`` for an intent, best first, or why none.

    Args:
        intent: The user's intent.
        tables: Every table of the run (joins are looked for across them).
        main: The table whose records the questions are about.
        hints: Slots the reader model read (checked by code); each replaces the rules'
            reading of its slot (the column the questions are about).
    """
    hints = hints or Hints()
    written = intent
    # An intent in French, German or Spanish is read through its English gloss.
    intent = to_english(intent, intent_language(intent))
    # "pre-1850 works", "post-war" years: a bound said as a prefix.
    intent = re.sub(r"\bpre-(\d{3,4})s?\b", r"before \1", intent, flags=re.IGNORECASE)
    intent = re.sub(r"\bpost-(\d{3,4})s?\b", r"after \1", intent, flags=re.IGNORECASE)
    intent = compass(intent)
    intent = _idioms(intent)
    intent = _cue_typos(intent)
    table = tables[main]
    if intent_language(written) in ("de", "nl"):
        intent = _split_compounds(intent, table)
    # "the countries called by their Portuguese names": the column that names the records,
    # said once; the rest of the intent is read without it.
    named_key, intent = _named_key(intent, table)
    low = intent.lower()
    mentions = _mentions(intent, table)
    hinted = table.columns.get(hints.asked) if hints.asked else None
    if hinted is not None:
        # The reader's column is named, whatever the words matched.
        first = next((m.position for m in mentions if m.column is hinted), len(_tokens(intent)))
        mentions = [
            Mention(hinted, main, first, 1.0),
            *(m for m in mentions if m.column is not hinted),
        ]

    other_mentions = [m for t in tables.values() if t.id != main for m in _mentions(intent, t)]
    bounds = _bound_conditions(intent, table, mentions)
    bounded = {c.field for c in bounds}
    values = _value_conditions(intent, table, bounded, mentions)
    equal = _equal_conditions(intent, table, bounds)
    values += [c for c in equal if c.field not in {v.field for v in values}]
    bounded |= {c.field for c in equal}  # a field filtered on is not the one ranked
    values = [_as_code(table, c) for c in values]
    # "American airports" over a table of US airports selects (nearly) all: no filter.
    if not table.subset_of:  # a subset view holds the records its conditions select
        values = [c for c in values if c.op != "==" or _share(table, c) < 0.99]
    conditions = bounds + values
    if table.key is None:
        # Names that repeat across the table (a country's name in every language) may name
        # one record among those the conditions select (the names in one language).
        equal = [c for c in conditions if c.op == "=="]
        rows = [
            r
            for r in table.rows()
            if equal
            and all(table.text(r, c.field).casefold() == str(c.value).casefold() for c in equal)
        ]
        if len(rows) >= 4:
            view = table.subset(rows)
            if view.key is None:
                # "Portuguese" names two languages (pt, pt-br): the one the intent's words
                # pick, else the language itself rather than a variant.
                rows = _one_language(low, table, rows)
                view = table.subset(rows)
            if view.key is not None:
                return plan(written, {**tables, main: view}, main, hints)
    orderable = [m for m in mentions if m.column.orderable]
    categories = [m for m in mentions if m.column.kind in ("category", "text")]
    cands: list[Candidate] = []
    asked, unknown = _asked_column(intent, tables, table, mentions)
    if hinted is not None:
        asked, unknown = hinted, None
    if table.media and (PICTURE_WORDS.search(low) or table.key is None):
        # The records are pictures (or sounds): the items show them.
        pictured = _media_plan(intent, low, table, asked, mentions)
        if pictured:
            return pictured
    # Numbers compared or ranked: the named orderable fields not used as a bound.
    ranked = [m for m in orderable if m.column.path not in bounded] or orderable

    def hinted_first(found: list[Mention]) -> list[Mention]:
        if hinted is None or not hinted.orderable:
            return found
        lead = [m for m in mentions if m.column is hinted]
        return lead + [m for m in found if m.column is not hinted]

    ranked = hinted_first(ranked)
    # ("first" is left out: "first climbed", "first written in" name an event, not a rank)
    temporal = re.search(
        r"\b(most recent(?:ly)?|recently|latest|newest|oldest|earliest|earlier|later|older|"
        r"newer)\b",
        low,
    )
    if not ranked and temporal and len(years := _year_columns(table)) == 1:
        # "which record was set most recently": the table's one year or date field.
        ranked = [Mention(years[0], main, len(_tokens(intent)), 0.75)]
    # "on which day it was warmest": the quantity the rank word measures (temperature),
    # and of its columns the one the word's direction picks (the maximum temperature),
    # first among the fields the intent names (which it may list only to show them).
    quantities = {q for t in _tokens(low) for q in _measured(t)} | _verb_measured(low)
    measured = [
        m
        for q in sorted(quantities)
        for m in _mentions(q, table)
        if m.strength >= 0.5 and m.column.orderable and m.column.path not in (table.key, *bounded)
    ]
    if measured:
        # "wider petals": of the widths, the one the intent's other words name (the petal's).
        named = {m.column.path: m.strength for m in mentions}
        measured.sort(key=lambda m: -named.get(m.column.path, 0.0))
        lead = _extreme(list({m.column.path: m for m in measured}.values()), low)[:2]
        paths = {m.column.path for m in lead}
        ranked = lead + [m for m in ranked if m.column.path not in paths]

    def add(spec: ProgramSpec, score: float, why: str) -> None:
        cands.append(Candidate(spec, round(score, 3), why))

    def multihop(answer: str, hops: list[Hop]) -> ProgramSpec:
        """A multi-hop program from a record of the main table along ``hops`` to ``answer``.

        Closed-book and multiple-choice unless the intent says otherwise.
        """
        return ProgramSpec(
            kind="multihop",
            book=_book(intent, "closed"),  # type: ignore[arg-type]
            table=main,
            key_field=table.key,
            answer_field=answer,
            hops=hops,
            # The records the intent selects are where the chain starts ("as written in
            # Swedish": a name in one language).
            conditions=conditions,
            answer_format=_format(intent, "multiple_choice"),  # type: ignore[arg-type]
        )

    # -- multi-hop: a join field named with a field of the table it leads to, or of the
    # table a second join leads to from there (a bridge's country, then its currency)
    # (From a table none of whose fields names a record, no question can name its first one.)
    links = joins(tables) if table.key else []
    for a, via, b, key_field in links:
        if a != main or b == main:
            continue
        for b2, via2, c, key2 in links:
            if b2 != b or c in (main, b):
                continue
            far = [
                m
                for m in other_mentions
                if m.table == c
                and m.column.path != key2
                and m.strength >= 0.75
                and not _held_by(table, m.column)
            ]
            if far:
                answer = far[0].column.path
                spec = multihop(
                    answer,
                    [
                        Hop(via=via, table=b, key_field=key_field),
                        Hop(via=via2, table=c, key_field=key2),
                    ],
                )
                add(
                    spec,
                    3.2 + far[0].strength,
                    f"{via} of a {table.entity['en']} keys {b}, whose {via2} keys {c}; "
                    f"answer {c}.{answer}",
                )
    for a, via, b, key_field in links:
        if a != main:
            continue
        target = tables[b]
        via_named = any(m.column.path == via for m in mentions)
        wanted = [
            m
            for m in (other_mentions if b != main else mentions)
            if m.table == b
            and m.column.path != key_field
            and m.strength >= (0.5 if b == main else 0.75)
            and (m.column.path != via or len(re.findall(rf"\b{re.escape(via)}", low)) > 1)
        ]
        there = [m for m in other_mentions if m.table == b]
        asked_there = _asked_column(intent, tables, target, there)[0] if b != main else None

        if asked_there is not None:
            # "in which country the painter was born": the field the question word names.
            wanted.sort(key=lambda m: m.column is not asked_there)
        possessive = re.search(r"'s\b", low) or re.search(r"\bof (?:the|their|its|a)\b", low)
        wanted = [
            m
            for m in wanted
            if b == main
            or not (
                _held_by(table, m.column) or (table.subset_of and _named_alike(table, m.column))
            )
        ]
        if wanted and (via_named or b != main) and (b != main or possessive):
            answer = wanted[0].column.path
            spec = multihop(answer, [Hop(via=via, table=b, key_field=key_field)])
            add(
                spec,
                3.0 + wanted[0].strength,
                f"{via} of a {table.entity['en']} keys {b}.{key_field}; answer {b}.{answer}",
            )
            del target
    # -- classification from stated features
    listed = _listed_column(intent, table)
    asked_label = asked if asked is not None and asked.kind == "category" else None
    label_col = (
        asked_label
        or listed
        or next(
            (m.column for m in categories if not m.column.unique),
            None,
        )
    )
    strong = STRONG_CLASSIFY.search(low)
    if CLASSIFY_CUES.search(low) or strong or (table.key is None and label_col is not None):
        label = label_col or next(
            (
                c
                for c in table.columns.values()
                if c.kind == "category"
                and not c.unique
                and words_of(c.path)[-1]
                in (
                    "class",
                    "species",
                    "label",
                    "type",
                    "category",
                    "target",
                    "variety",
                    "diagnosis",
                    "outcome",
                    "result",
                    "status",
                    "grade",
                    "kind",
                )
            ),
            None,
        )
        if label is not None:
            features = [
                c.path
                for c in table.columns.values()
                if c.path != label.path and c.kind == "number" and not c.unique
            ][:6]
            if features:
                book = _book(intent, "closed")
                if book == "open" and FEATURES_PICTURED.search(low) and not FEW_SHOT.search(low):
                    # "the four measurements rendered as a picture of a small table": the
                    # record's own values are the table; no labelled rows are shown.
                    book = "closed"
                spec = ProgramSpec(
                    kind="classify",
                    book=book,  # type: ignore[arg-type]
                    rows_shown=shown_rows(table, min(10, max(4, _k(intent, 6)))),
                    table=main,
                    answer_field=label.path,
                    features=features,
                    answer_format=_format(intent, "multiple_choice"),  # type: ignore[arg-type]
                )
                strength = 2.5 if CLASSIFY_CUES.search(low) else 1.5
                strength = 3.6 if STRONG_CLASSIFY.search(low) else strength
                add(spec, strength, f"{label.path} from {', '.join(features)}")
    # "how many people in total", "how many world titles a given one has": a number
    # field is asked (an aggregate or a lookup), not a count of rows.
    quantity = _how_many_field(intent, [m for m in mentions if m.column.path not in bounded], table)
    # -- count over rows shown
    if COUNT_CUES.search(low):
        # "how many" counts; "the highest number of units" asks for an aggregate.
        strong = bool(re.search(r"\bhow many\b|\bcount\b", low)) and quantity is None
        if conditions:
            # Closed book ("no table"): the records are named and their values known.
            spec = ProgramSpec(
                kind="count",
                book=_book(intent, "open") if table.key else "open",  # type: ignore[arg-type]
                table=main,
                conditions=conditions[:2],
                rows_shown=shown_rows(table, min(10, max(5, _k(intent, 8)))),
                answer_format=_format(intent, "numeric"),  # type: ignore[arg-type]
            )
            add(
                spec,
                3.0 if strong else 2.0,
                "count of the rows shown " + " and ".join(c.describe() for c in conditions),
            )
    # -- "in what year was the oldest of the records shown set?": an aggregate of a year
    when = re.search(r"\b(?:in )?(?:what|which) (?:year|date)\b", low)
    if (
        when
        and temporal
        and len(years := _year_columns(table)) == 1
        and _book(intent, "open") == "open"
    ):
        agg_word = temporal.group(1)
        agg = "min" if agg_word in ("oldest", "earliest", "earlier", "older") else "max"
        spec = ProgramSpec(
            kind="aggregate",
            book="open",
            table=main,
            field=years[0].path,
            aggregate=agg,  # type: ignore[arg-type]
            conditions=[c for c in conditions if c.field != years[0].path][:2],
            rows_shown=shown_rows(table, min(10, max(4, _k(intent, 6)))),
            answer_format=_format(intent, "numeric"),  # type: ignore[arg-type]
        )
        add(spec, 3.3, f"{agg} of {years[0].path} over the rows shown")
    # -- aggregates over rows shown
    # A cue word inside a field's own name is not the aggregate asked: in "the highest
    # average blood pressure" the field is "average blood pressure", the aggregate max.
    cue_low = low
    for m in mentions:
        label = m.column.labels.get("en", "").lower()
        if m.strength >= 0.5 and label and any(p.search(label) for p, _agg in AGG_CUES):
            cue_low = re.sub(rf"\b{re.escape(label)}\b", " quantity ", cue_low)
    # The cue said first leads: "the median of the progression, among patients with an
    # average blood pressure of 100 or more" asks a median.
    said_at = {p: (m.start() if (m := p.search(cue_low)) else len(cue_low)) for p, _ in AGG_CUES}
    noun = table.entity.get("en", "")
    for pattern, agg in sorted(AGG_CUES, key=lambda cue: said_at[cue[0]]):
        said = pattern.search(cue_low)
        if (
            said
            and (
                (said.group(0).startswith("what the") and ONE_RECORD.search(cue_low, said.end()))
                or _given_record(cue_low[said.end() :], table)
                or _record_named(cue_low[said.end() : said.end() + 60], table)
                # "ask for the lowest longitude airport" (the westernmost): a record, ranked
                or (
                    noun
                    and re.match(rf"\s+(?:[a-z]+\s+)?{re.escape(noun)}s?\b", cue_low[said.end() :])
                )
            )
        ):
            # "what the minimum temperature was on one date", "what was the maximum
            # temperature on 2012-01-15": one record's value
            said = None
        if said and ranked:
            if quantity is not None:
                ranked = [quantity, *(m for m in ranked if m is not quantity)]
            # "the mean blood sugar": the field named without the aggregate's own word
            # ("mean" is not a mention of "average blood pressure").
            plain = {
                m.column.path: m.strength
                for m in _mentions(pattern.sub(" ", low), table)
                if m.strength >= 0.5
            }
            named_plainly = [m for m in ranked if m.column.path in plain]
            named_plainly.sort(key=lambda m: (m is not quantity, -plain[m.column.path]))
            ranked = hinted_first(named_plainly or ranked)
            # "the average body mass index": the field named right after the cue leads.
            after = cue_low[said.end() : said.end() + 40]
            right_after = [
                m
                for m in ranked
                if any(
                    name and re.search(rf"\b{re.escape(name)}\b", after)
                    for name in (m.column.labels.get("en", "").lower(), m.column.path.lower())
                )
            ]
            # ... or by a word that means it ("the average power" -> horsepower).
            near = {w for t in _tokens(after)[:3] for w in SYNONYMS.get(t, ())}
            right_after += [
                m
                for m in ranked
                if m not in right_after
                and near & set(_tokens(m.column.labels.get("en", "") or m.column.path))
            ]
            ranked = right_after + [m for m in ranked if m not in right_after]
            if agg in ("sum", "mean"):
                # Dates are ranked (the latest day) but never added up or averaged.
                ranked = [m for m in ranked if m.column.kind != "date"]
            for m in ranked[:2]:
                spec = ProgramSpec(
                    kind="aggregate",
                    book="open",
                    table=main,
                    field=m.column.path,
                    aggregate=agg,  # type: ignore[arg-type]
                    conditions=[c for c in conditions if c.field != m.column.path][:2],
                    rows_shown=shown_rows(table, min(10, max(4, _k(intent, 6)))),
                    answer_format=_format(intent, "numeric"),  # type: ignore[arg-type]
                )
                bonus = (0.6 if m is quantity else 0.0) + (0.05 if m in right_after else 0.0)
                add(spec, 2.8 + m.strength * 0.1 + bonus, f"{agg} of {m.column.path}")
            break
    # -- comparison of two / superlative among k (a bound's "more than 10" ranks nothing,
    # nor a word of a field's name: "first" in "first ascent year")
    low = _without_bounds(low)
    # "had its first performance": an ordinal adjective, not a rank.
    low = re.sub(r"\b(?:its|their|his|her|the very)\s+(?:first|last)\b", " ", low)
    # "nearest-neighbour flavour": a way to classify, not a rank.
    low = re.sub(r"\bnearest[- ]neighbou?rs?\b", _blank, low)
    # "show the first 12 lines": which rows, not a rank.
    low = re.sub(r"\b(?:the )?(?:first|last) (?:\d+|few|several)\b", _blank, low)
    # "which record has stood (for) longer" / "held the longest": the earlier date.
    stood = re.search(
        r"\b(?:stood|lasted|held|standing|survived|existed)\b[^.;]{0,15}\blong(?:er|est)\b", low
    )
    if stood:
        low = low[: stood.start()] + " earliest " + low[stood.end() :]
    # "describe one more bird", "a few more rows": more of something, not a rank.
    low = re.sub(r"\b(?:one|some|a few|any|no|once|two|a couple|several)\s+more\b", " ", low)
    for m in mentions:
        if m.strength >= 0.5:
            label = re.findall(r"[a-z]+", m.column.labels.get("en", "").lower())
            for word in {*words_of(m.column.path), *label}:
                if word in (*MAX_WORDS, *MIN_WORDS):
                    low = re.sub(rf"\b{word}\b", " ", low)
    # "the model first has to find ...": an adverb, not a rank; "two-step items": steps,
    # not two records.
    low = re.sub(
        r"\bfirst\b(?=(?:,)?(?: has to| have to| must| needs? to| should)? (?:find|locate|"
        r"identify|determine|pick|work out|figure out|look up|rank|spot))",
        _blank,
        low,
    )
    steps = TWO_STEPS.search(low)
    low = TWO_STEPS.sub(_blank, low)
    # "how warm it got at most": an adverb without a number, not a rank nor a bound.
    low = re.sub(r"\bat (?:most|least)\b(?![^.;,]{0,12}\d)", _blank, low)
    if _one_record_asked(low, table, asked):
        # "how warm it was on a given date", "the highest temperature on a particular day":
        # one record's value is asked; the rank word belongs to the field's name.
        low = re.sub(rf"\b(?:{RANK_WORDS})\b", _blank, low)
        low = SUPERLATIVE_CUES.sub(_blank, low)
    superlative_words = [w for w in SUPERLATIVE_CUES.findall(low) if w not in NOT_SUPERLATIVE]
    compare = bool(COMPARE_CUES.search(low))
    rank_words = (
        compare
        or superlative_words
        or any(re.search(rf"\b{w}\b", low) for w in (*MAX_WORDS, *MIN_WORDS))
    )
    if rank_words and ranked:
        ranked = _nearest_ranked(low, ranked, table)
    ranked = hinted_first(ranked)
    # A comparison names the records it compares, or shows them (lettered A, B, ... when no
    # field names them: "two wines side by side, which is the more alcoholic").
    named_records = table.key is not None or _book(intent, "closed") == "open"
    if (
        rank_words
        and ranked
        and named_records
        and not any(c.spec.kind == "aggregate" for c in cands)
    ):
        two = (compare or _k(low, 0) == 2) and not (
            superlative_words and not re.search(r"\btwo\b", low)
        )
        # The records named as the intent names them ("by its French name"), or as its
        # examples are written ("'SEA' or 'DEN'": by the IATA code).
        example = _example_column(intent, table, least=2) if named_key is None else None
        rank_key = (named_key or example).path if (named_key or example) else table.key
        for rank, m in enumerate(ranked[:2]):
            kind = "compare" if two else "superlative"
            k = 2 if two else max(3, min(6, _k(TWO_STEPS.sub(_blank, intent.lower()), 4)))
            spec = ProgramSpec(
                kind=kind,  # type: ignore[arg-type]
                book=_book(intent, "closed"),
                table=main,
                key_field=rank_key,
                field=m.column.path,
                direction=_direction(low, m.column, table),  # type: ignore[arg-type]
                conditions=[c for c in conditions if c.field != m.column.path],
                k=k,
                rows_shown=k,
                answer_format=_format(intent, "multiple_choice"),  # type: ignore[arg-type]
            )
            # The field named nearest the rank word leads (see _nearest_ranked).
            add(spec, 2.5 + ranked[0].strength - 0.3 * rank, f"{kind} by {m.column.path}")
        lead = ranked[0]
        taken = bounded | {c.field for c in conditions}
        reported = _reported_column(intent, table, mentions, lead.column.path, asked, taken)
        if reported is not None and table.key is not None:
            # Two steps: the record ranked first, then another of its fields.
            first = next(
                c.spec
                for c in cands
                if c.spec.kind in ("compare", "superlative") and c.spec.field == lead.column.path
            )
            code_words = {"code", "id", "identifier", "abbreviation", "symbol", "iata", "icao"}
            said = {*words_of(reported.path), *words_of(reported.labels.get("en", ""))}
            if reported.unique and not steps and said & code_words:
                # "answer: the airport code": a code of each record names the winner; the
                # ranking is asked with its records named by it.
                spec = first.model_copy(update={"key_field": reported.path})
                add(
                    spec,
                    3.1 + lead.strength,
                    f"{first.kind} by {lead.column.path}, records named by {reported.path}",
                )
            else:
                spec = first.model_copy(update={"kind": "multihop", "answer_field": reported.path})
                add(
                    spec,
                    3.1 + lead.strength + (0.2 if steps else 0.0),
                    f"the {reported.path} of the record ranked first by {lead.column.path}",
                )
    # -- lookups
    if table.unique_columns():
        given = re.search(
            r"\b(?:given|give|from|by|using|with|show(?: just| only)?) "
            r"(?:(?:a|an|the|its|their|each)\s+)?([a-z0-9' ]+?)"
            r"(?:[,.?!)]|\bwhich\b|\bwhat\b|\bask\b|$)",
            low,
        )
        key_col = None
        arrow = re.search(r"^(.*?)(?:->|→|=>)(.*)$", low)
        if arrow:
            # "postal abbreviation -> full state name": the left names the key.
            left = [g for g in _mentions(arrow.group(1), table) if g.column.unique]
            right = [g for g in _mentions(arrow.group(2), table) if g.strength >= 0.5]
            if left and right:
                key_col = left[0].column
                asked = right[0].column
        if key_col is None:
            # "a three-letter code (like SEA or DEN)": the column the examples are values of.
            key_col = _example_column(intent, table)
        if named_key is not None and key_col is None:
            key_col = named_key
        if given and key_col is None:
            # "given the name of a capital": the capital names the record, not "name".
            said = re.sub(r"^(?:the )?name of (?:a |an |the |its |their )?", "", given.group(1))
            given_mentions = _mentions(said, table)
            uniq = [g for g in given_mentions if g.column.unique]
            if re.match(rf"(?:\d+|{'|'.join(NUMBER_WORDS)})\b", said):
                uniq = []  # "with four candidate years": how many choices, not the key
            noun = table.entity.get("en", "")
            if noun and singular((said.split() or [""])[0]) == noun:
                uniq = []  # "give the name of an airport": the record's own name
            if uniq:
                key_col = uniq[0].column
        key_field = key_col.path if key_col else table.key
        answers = [
            m
            for m in mentions
            if m.column.path != key_field
            and m.column.path not in bounded
            and m.strength >= 0.5
            and not any(c.field == m.column.path for c in values)
        ]
        people = [
            c
            for c in table.columns.values()
            if c.path != key_field and words_of(c.path) and words_of(c.path)[-1] in PERSON_FIELDS
        ]
        if re.search(r"\bwho\b", low) and len(people) == 1:
            # "who set the record": the one field whose values are people.
            if not any(m.column.path == people[0].path for m in answers):
                answers.insert(0, Mention(people[0], main, 0, 0.9))
        noun = table.entity.get("en", "")
        asks_record = bool(noun) and re.search(
            rf"\b(?:wh?ich|what)(?: [a-z]+)? {re.escape(noun)}", low
        )
        if table.key and (asks_record or not answers) and _said_noun(intent, table):
            # "Show a symbol and ask which element it stands for": the record's name is asked.
            keyed = [m for m in mentions if m.column.unique and m.column.path != table.key]
            if key_col is not None and key_col.path != table.key:
                keyed = [Mention(key_col, main, 0, 1.0)]  # the column of the examples
            if keyed and (asks_record or not answers):
                key_field = keyed[0].column.path
                answers = [Mention(table.columns[table.key], main, 0, 1.0)]
        if asked is not None and asked.path != key_field:
            # "which team the champion drove for": the field the question word names.
            answers = [Mention(asked, main, 0, 1.0), *(m for m in answers if m.column is not asked)]
        said_in = _name_in_column(low, table)
        if said_in is not None:
            # "ask what each country is called in French": the French name is the answer,
            # the record is named otherwise.
            if key_field == said_in.path:
                # Named by another column: one the intent's words give a value of ("what
                # is Finland called"), else one in English, else the first.
                others = [c for c in table.unique_columns() if c.path != said_in.path]
                said_words = set(_tokens(low))
                others.sort(
                    key=lambda c: (
                        not any(
                            w in said_words
                            for r in table.rows()
                            for w in _tokens(table.text(r, c.path))
                            if len(w) > 3
                        ),
                        table.language_of(c.path) != "en",
                    )
                )
                key_field = others[0].path if others else None
            answers = [
                Mention(said_in, main, 0, 1.0),
                *(m for m in answers if m.column is not said_in),
            ]
        asked_number = (
            quantity is not None and not any(p.search(low) for p, _ in AGG_CUES) and not rank_words
        )
        if asked_number:
            answers = [quantity, *(m for m in answers if m is not quantity)]
        # A field every record selected shares ("the language", among the Welsh names)
        # asks nothing.
        answers = [
            a for a in answers if len({table.text(r, a.column.path) for r in table.rows()}) > 1
        ]
        for m in [a for a in answers if a.column.path != key_field][:2]:
            kind = "filtered_lookup" if conditions else "lookup"
            spec = ProgramSpec(
                kind=kind,  # type: ignore[arg-type]
                book=_book(intent, "closed"),
                table=main,
                key_field=key_field,
                answer_field=m.column.path,
                conditions=conditions,
                rows_shown=shown_rows(table, min(8, max(3, _k(intent, 5)))),
                answer_format=_format(intent, "multiple_choice"),  # type: ignore[arg-type]
            )
            score = 1.0 + m.strength + (2.2 if asked_number and m is quantity else 0.0)
            score += 0.4 if asked is not None and m.column is asked else 0.0
            add(spec, score, f"{m.column.path} of a {table.entity['en']} by {key_field}")
    below_top = re.search(
        r"\b(second|third|fourth|fifth|2nd|3rd|4th|5th)[- ](?:\w+est|most|least|highest|lowest)\b",
        low,
    )
    if below_top:
        return Refusal(
            f"no program asks for a record ranked below the top ({below_top.group(0)!r}); "
            "superlatives ask for the top or the bottom of the records shown",
            [],
        )
    unranked = _unknown_rank(low, tables, table, mentions)
    if unranked and not any(c.spec.kind == "classify" for c in cands):
        fields = ", ".join(f"{c.path} ({c.kind})" for c in table.columns.values())
        return Refusal(
            f"the intent ranks the records by {unranked!r}, which no field of {table.id} holds",
            [f"fields: {fields}"],
        )
    # (a second step into another table that holds the language may reach it)
    unheld_language = _name_in_unheld_language(low, table)
    written = {table.language_of(c.path) for c in table.columns.values()}
    unheld = any(code not in written for _said, code in _names_asked_in(low))
    if unheld and not any(c.spec.hops for c in cands):
        for spec in _called_in_hops(intent, low, tables, table, mentions, conditions):
            # (below a chain that starts from the names, which the intent may ask instead)
            add(spec, 3.9, f"{table.entity.get('en', 'record')}'s name in another language")
            if unknown and unknown.rstrip("!") in dict(_names_asked_in(low)):
                unknown = None  # "the Finnish name": the language the chain's step selects
    if unheld_language and not any(c.spec.hops for c in cands):
        fields = ", ".join(f"{c.path} ({c.kind})" for c in table.columns.values())
        return Refusal(
            f"the intent asks for names in {unheld_language}, which no field of {table.id} holds",
            [f"fields: {fields}"],
        )
    if not cands and unknown:
        fields = ", ".join(f"{c.path} ({c.kind})" for c in table.columns.values())
        return Refusal(
            f"the intent asks for {unknown.rstrip('!')!r}, which no field of {table.id} holds",
            [f"fields: {fields}"],
        )
    if not cands:
        return _refusal(intent, table, mentions, conditions)
    if unknown and unknown.endswith("!"):
        fields = ", ".join(f"{c.path} ({c.kind})" for c in table.columns.values())
        return Refusal(
            f"the intent asks for {unknown[:-1]!r}, which no field of {table.id} holds",
            [f"fields: {fields}"],
        )
    if (
        unknown
        and not any(
            m.strength >= 0.75
            and m.column.path in (cands[0].spec.answer_field, cands[0].spec.field)
            for m in mentions
        )
        and cands[0].spec.kind in ("lookup", "filtered_lookup", "classify")
    ):
        fields = ", ".join(f"{c.path} ({c.kind})" for c in table.columns.values())
        return Refusal(
            f"the intent asks for {unknown!r}, which no field of {table.id} holds",
            [f"fields: {fields}"],
        )
    if _said_noun(intent, table):
        # Records the intent names by their noun ("a given bridge") are the ones asked about.
        for c in cands:
            c.score = round(c.score + 0.3, 3)
    _show_listed(cands, mentions, table, low)
    cands.sort(key=lambda c: -c.score)
    best = cands[0].score
    # Only near-ties go to the model: it chooses, the code has already ranked.
    return [c for c in cands if c.score >= best - 0.25][:4]


NAME_IN = re.compile(
    r"\b(?:called|named|names?|say|said|written|spelled|spelt|translated|translation)"
    r" (?:in|into) (?:the )?([a-z]+)\b|"
    r"\bin (?:the )?([a-z]+) (?:is |are )?(?:called|named|said|written|spelled|spelt)\b|"
    # "how do you say Greece in Swedish"
    r"\b(?:say|said|write|spell) (?:[^\s.?!]+ ){1,3}in (?:the )?([a-z]+)\b|"
    # "what is the Japanese name of the country" (not "give the English name of a country")
    r"\b(?:what is|what's|ask(?:s|ing)? for|asks?) the ([a-z]+) names? (?:of|for)\b"
)
"""A name asked in a language: "what is Finland called in Swedish", "its name in Welsh"."""


@cache
def _language_codes() -> dict[str, str]:
    """Languages by their English names (lower case), CLDR's and ours: "welsh" -> "cy"."""
    from babel import Locale

    names = {
        name.lower(): code
        for code, name in Locale.parse("en").languages.items()
        if "_" not in code and " " not in name
    }
    return {**names, **LANGUAGE_WORDS}


def _names_asked_in(low: str) -> list[tuple[str, str]]:
    """The languages names are asked in, as said and as codes ("swedish", "sv")."""
    out = []
    for match in NAME_IN.finditer(_without_language_request(low)):
        said = next(g for g in match.groups() if g)
        code = _language_codes().get(said)
        if code is not None:
            out.append((said, code))
    return out


def _name_in_column(low: str, table: Table) -> Column | None:
    """The one column of names in the language a name is asked in ("called in French")."""
    for _said, code in _names_asked_in(low):
        found = _column_of_names(table, code)
        if found is not None:
            return found
    return None


def _column_of_names(table: Table, code: str) -> Column | None:
    """The one column of names in language ``code`` (None: none, or several)."""
    found = [c for c in table.unique_columns() if table.language_of(c.path) == code]
    if not found and _records_language(table) == code:
        # The records of one language (the Swedish names among all): its names are the
        # text column written in no other language.
        found = [
            c
            for c in table.unique_columns()
            if c.kind == "text"
            and table.language_of(c.path) is None
            and not all(CODE.fullmatch(table.text(r, c.path)) for r in table.rows())
        ]
    return found[0] if len(found) == 1 else None


def _called_in_hops(
    intent: str,
    low: str,
    tables: Mapping[str, Table],
    table: Table,
    mentions: Sequence[Mention],
    conditions: list[Condition],
) -> list[ProgramSpec]:
    """Chains from a record to its name in a language another table holds ("in Polish").

    The record is named by the field the intent gives (a country by its capital), a code
    it shares with a table of names in many languages (``alpha_2``) leads to that table's
    records in the language asked, and the answer is their name column.
    """
    out: list[ProgramSpec] = []
    languages = dict(_names_asked_in(low))
    said = set(_tokens(low))
    given = [
        m.column.path
        for m in mentions
        if m.column.unique and m.strength >= 0.5 and table.language_of(m.column.path) is None
    ]
    # (a record named by its own name, or by another of its names ("the ISO name"), is
    # asked of the table of names itself: "what is Finland called in Welsh" needs no chain)
    key_field = next(
        (g for g in given if g != table.key and "name" not in words_of(g)),
        None,
    )
    if key_field is None:
        return out
    for other in tables.values():
        if other.id == table.id:
            continue
        code_columns = [c for c in other.columns.values() if language_code_column(other, c.path)]
        if len(code_columns) != 1:
            continue
        column = code_columns[0]
        for code in languages.values():
            rows = [r for r in other.rows() if other.text(r, column.path).split("-")[0] == code]
            rows = _one_language(low, other, rows)
            if len(rows) < 4:
                continue
            view = other.subset(rows)
            language = other.text(rows[0], column.path)
            answer = _column_of_names(view, code)
            if answer is None:
                continue
            if any(
                (words := set(_tokens(view.text(r, answer.path)))) and words <= said
                for r in view.rows()
                if len(view.text(r, answer.path)) > 3
                and all(
                    view.text(r, answer.path).casefold() != view.text(r, c).casefold()
                    for c in view.columns
                    if c != answer.path
                )
            ):
                continue  # "given its Swedish name (e.g. Tyskland)": the chain starts there
            for a, via, b, key in joins({table.id: table, other.id: view}):
                if a != table.id or b != other.id or key == answer.path:
                    continue
                out.append(
                    ProgramSpec(
                        kind="multihop",
                        book=_book(intent, "closed"),  # type: ignore[arg-type]
                        table=table.id,
                        key_field=key_field,
                        answer_field=answer.path,
                        hops=[
                            Hop(
                                via=via,
                                table=other.id,
                                key_field=key,
                                conditions=[Condition(field=column.path, op="==", value=language)],
                            )
                        ],
                        conditions=conditions,
                        answer_format=_format(intent, "multiple_choice"),  # type: ignore[arg-type]
                    )
                )
                return out
    return out


def _records_language(table: Table) -> str | None:
    """The one language every record is in, by a "language" column of one code (or None)."""
    for column in table.columns.values():
        if column.kind != "category" or "language" not in words_of(column.path):
            continue
        said = {table.text(r, column.path) for r in table.rows()}
        if len(said) == 1:
            code = said.pop()
            if CODE_VALUE.fullmatch(code):
                return code.split("-")[0].lower()
    return None


def _name_in_unheld_language(low: str, table: Table) -> str | None:
    """The language a name is asked in that no field of the table gives (None: held).

    "what is Finland called in Swedish" over a table with names in seven languages, none
    Swedish, asks for what it does not hold; a table whose records say their language
    (a column of language codes) holds every language it lists.
    """
    written = {table.language_of(c.path) for c in table.columns.values()} - {None}
    if not written:
        return None  # the table gives names in no language by name: nothing to tell
    for said, code in _names_asked_in(low):
        if code in written:
            continue
        if any(
            code in c.values
            for c in table.columns.values()
            if c.kind == "category"
            and ("language" in words_of(c.path) or language_code_column(table, c.path))
        ):
            continue  # (of a table's records in one language, the column has one value)
        return said.capitalize()
    return None


SHOWN_KINDS = frozenset(
    {"lookup", "filtered_lookup", "compare", "superlative", "count", "aggregate"}
)
"""Kinds whose open-book table shows the columns the intent lists."""


ALL_COLUMNS = re.compile(
    r"\ball (?:the |its |their )?(?:columns|fields)\b|\bevery (?:column|field)\b"
)
"""The intent asks the table shown with every column ("toutes les colonnes")."""


def _show_listed(
    cands: list[Candidate], mentions: Sequence[Mention], table: Table, low: str
) -> None:
    """An open-book table shows the columns the intent names besides the question's own.

    "Show a few days (date, precipitation, maximum and minimum temperature, wind) and ask
    how warm it got on one of them": the table shows all five, not the date and the maximum
    alone; "(all the columns)": every column, as many as a table shows.
    """
    named = [m.column.path for m in sorted(mentions, key=lambda m: m.position)
             if m.strength >= 0.75 and m.column.path != table.key]  # fmt: skip
    if ALL_COLUMNS.search(low):
        named = [p for p in table.columns if p != table.key]
    for c in cands:
        spec = c.spec
        if spec.book != "open" or spec.kind not in SHOWN_KINDS or spec.media_field:
            continue
        used = set(spec.fields_used())
        extra = [p for p in dict.fromkeys(named) if p not in used]
        if extra:
            c.spec = spec.model_copy(update={"shown": extra})


RANKED_BY = re.compile(
    r"\b(?:the )?(?:most|fewest|least|greatest number of) ([a-z]{3,})((?: [a-z]+){0,2})"
)
FEATURES_PICTURED = re.compile(
    r"\b(?:measurements|features|values|numbers|readings)\b[^.]{0,60}\b(?:picture|image|"
    r"rendered|drawn)\b|\b(?:picture|image|rendering) of (?:a |the |its |their )?(?:small |"
    r"little |tiny )?table\b"
)
"""A record's own values shown as a picture of a table (not rows of other records)."""
FEW_SHOT = re.compile(
    r"\b(?:label+ed|examples?|reference|few[- ]shot|filled in|already|known species|other "
    r"(?:flowers|records|rows|samples))\b"
)
"""Rows shown with their class, as examples for the one asked about."""
SORTED_BY = re.compile(
    r"\b(?:rank|ranks|ranked|ranking|sort|sorts|sorted|order|ordered) (?:the )?(?:[a-z]+ ){0,3}?"
    r"by (?:their |its |the )?((?:[a-z]+ ){0,2}[a-z]{4,})"
)
"""A quantity records are ranked by, said after "by" ("ranked by annual traffic")."""
RANKED_AFTER = re.compile(
    r"\b([a-z]{4,}) (?:was|is|were|are|got|gets) (?:the )?(?:highest|lowest|largest|"
    r"smallest|greatest|biggest|most|least)\b"
)
"""A quantity said before its superlative ("the humidity was highest")."""
KEY_NAMED_BY = re.compile(
    r"\b(?:designated|called|named|referred to|identified|denoted|given) (?:only )?(?:by|with) "
    r"(?:its|their|the|a|an) ([a-z' ]{3,40}?)(?=\s*(?:[.,;:()«»\"]|$|\band\b|\bor\b))"
)
"""The column an intent names its records by ("the country designated by its French name")."""
RANKED_ADJECTIVE = re.compile(
    r"\b(?:the|a|more|less) (?:longest|shortest|largest|biggest|highest|lowest|greatest|"
    r"smallest|busiest|longer|shorter|larger|bigger|higher|lower|busier) ([a-z]{4,})"
    r"((?: [a-z]+){0,2})"
)
"""A quantity named after its rank adjective ("the longest runway")."""
NOT_QUANTITIES = frozenset(
    "common frequent frequently often likely popular important recent recently of one ones "
    "records rows entries items the a an".split()
)


TWO_STEPS = re.compile(
    r"\b(?:two|2)[- ](?:steps?|stages?|hops?|parts?|pasos|passos|passaggi|schritte|"
    r"[ée]tapes|temps|stappen)\b|\bboth steps\b|\bin two (?:steps|times?)\b"
)
"""Words that say a question takes two steps ("two-step reasoning", "in two steps")."""
WHERE_FROM = re.compile(
    r"\bwhere (?:\w+ ){0,3}(?:comes?|came|is|are|was|were) (?:\w+ )?from\b|"
    r"\b(?:from )?(?:which|what) (?:region|country|place|part of the world)\b"
    r"(?: of origin)?[^.;:?]{0,60}?\b(?:comes?|came|is|are|was|were)(?: \w+)? from\b|"
    r"\b(?:from )?(?:which|what) (?:region|country|place) of origin\b"
)
"""Words that ask where a record comes from (its origin)."""
REPORT_WORDS = frozenset(
    "report say give tell return provide answer answers answered respond responds reply ask".split()
)
"""Verbs before the field a two-step question reports ("then report the city")."""


def _as_code(table: Table, condition: Condition) -> Condition:
    """A condition on a name stated on the code the table gives each name, if one does.

    "in Finnish" selects ``language_name == Finnish``; where a column of codes stands for
    the names one for one (``language == fi``), the code is the condition (the canonical
    value; the names column may spell a language two ways).
    """
    if condition.op != "==":
        return condition
    rows = [r for r in table.rows() if table.text(r, condition.field) == str(condition.value)]
    for column in table.columns.values():
        if column.kind != "category" or column.path == condition.field:
            continue
        if not all(CODE_VALUE.fullmatch(v) for v in column.values):
            continue
        codes = {table.text(r, column.path) for r in rows}
        if len(codes) == 1:
            (code,) = codes
            named = {
                table.text(r, condition.field)
                for r in table.rows()
                if table.text(r, column.path) == code
            }
            if named == {str(condition.value)}:
                return Condition(field=column.path, op="==", value=code)
    return condition


def _held_by(table: Table, column: Column) -> bool:
    """Whether the main table holds what another table's column names.

    "name" is in "English name": no join is needed to ask it.
    """
    words = set(re.findall(r"[a-z]+", column.labels.get("en", "").lower())) or set(
        words_of(column.path)
    )
    return any(
        words and words <= set(re.findall(r"[a-z]+", c.labels.get("en", "").lower()))
        for c in table.columns.values()
    )


def _named_alike(table: Table, column: Column) -> bool:
    """Whether a column of the table is the same kind of thing as another table's.

    "Dutch name" and "translated name": within the records a condition selects, the table
    answers it itself.
    """
    last = (column.labels.get("en", "").lower().split() or [""])[-1]
    if last in ("code", "codes", "id", "number"):
        return False  # a currency code is no kind of country code
    return any(
        (c.labels.get("en", "").lower().split() or [""])[-1] == last for c in table.columns.values()
    )


def _blank(match: re.Match[str]) -> str:
    """Words taken out of the intent, token for token (the mentions' positions stay true)."""
    return " ".join("nil" for _ in _tokens(match.group(0)))


def _reported_column(
    intent: str,
    table: Table,
    mentions: Sequence[Mention],
    ranked: str,
    asked: Column | None,
    taken: set[str],
) -> Column | None:
    """The field a two-step question reports of the record ranked first (None: the record).

    "the capital of the most populous of them", "the currency of the smallest", "find the
    northernmost airport, then report the city it serves", "what year is the most powerful
    car from". Not the field ranked, the field naming the record (nor its translations), a
    field filtered on, or a picture; a translation of a field (``capital_names.pt``) is
    reported as the field itself.
    """
    base = {p: c.path for c in table.columns.values() for p in c.translations.values()}
    key = table.columns.get(table.key or "")
    skip = {ranked, *taken, *table.media}
    if key is not None:
        skip |= {key.path, *key.translations.values()}
    found: list[tuple[Mention, Column]] = []
    for m in mentions:
        column = table.columns[base.get(m.column.path, m.column.path)]
        if m.strength >= 0.5 and column.path not in skip:
            found.append((m, column))
    if WHERE_FROM.search(intent.lower()) and not any(
        "origin" in words_of(c.path) for _m, c in found
    ):
        # "which region the car ... comes from": the record's origin, named or not.
        origins = [
            c for c in table.columns.values() if "origin" in words_of(c.path) and c.path not in skip
        ]
        if len(origins) == 1:
            return origins[0]
    if not found:
        return None
    if asked is not None:
        wanted = base.get(asked.path, asked.path)
        for _m, column in found:
            if column.path == wanted:
                return column  # "what year ...": the field the question word names
    if WHERE_FROM.search(intent.lower()):
        # "then ask where it comes from": the record's origin.
        for _m, column in found:
            if "origin" in words_of(column.path):
                return column
    tokens = _tokens(intent)
    # (not a word of a field's name: "the weather of Seattle (maximum temperature)")
    named = {p for m in mentions if m.strength >= 0.75 for p in m.positions}
    ranks = [
        i
        for i, t in enumerate(tokens)
        if (
            t in MAX_WORDS
            or t in MIN_WORDS
            or (SUPERLATIVE_CUES.fullmatch(t) and t not in NOT_SUPERLATIVE)
        )
        and i not in named
    ]
    reported: list[tuple[int, Column]] = []
    for m, column in found:
        for at in m.positions or (m.position,):
            # "the capital of the most populous": of, then the rank word, close after.
            if "of" in tokens[at + 1 : at + 3] and any(at < r <= at + 9 for r in ranks):
                return column
            # "find the northernmost ..., then report the city": a verb just before it.
            verbs = [i for i in range(max(0, at - 4), at) if tokens[i] in REPORT_WORDS]
            if verbs and m.strength >= 0.75 and any(r < at for r in ranks):
                reported.append((at - verbs[-1], column))
    # ("the answer is its state (abbreviation)": the field said first after the verb)
    return min(reported, key=lambda found: found[0])[1] if reported else None


MEASURED_ONLY = frozenset({"height", "depth", "temperature", "precipitation", "distance", "price"})
"""Quantities a comparative names that no other field stands for (unlike size or age)."""


def _unheld(low: str, table: Table, quantities: Collection[str]) -> list[str]:
    """The quantities of ``quantities`` a comparative of the text measures, no field holds."""
    return [
        quantity
        for token in _tokens(low)
        for quantity in sorted(_measured(token) & set(quantities))
        if not any(m.strength >= 0.5 for m in _mentions(quantity, table))
    ]


def _unknown_rank(
    low: str, tables: Mapping[str, Table], table: Table, mentions: Sequence[Mention]
) -> str | None:
    """A quantity the intent ranks by that no field holds ("the most passengers").

    None when the intent names a number field anywhere ("won the most Grands Prix" names
    the wins) or the words after the first name one ("the most medal events").
    """
    for match in SORTED_BY.finditer(low):
        # "rank the airports by annual passenger traffic": the quantity said after "by".
        said = match.group(1)
        if any(m.strength >= 0.5 for t in tables.values() for m in _mentions(said, t)):
            continue
        if any(w in FUNCTION_WORDS["en"] for w in said.split()[-1:]):
            continue
        return said
    for match in RANKED_AFTER.finditer(low):
        # "on which day the relative humidity was highest": the quantity is said outright.
        word = match.group(1)
        if word in NOT_QUANTITIES or word in (*MAX_WORDS, *MIN_WORDS):
            continue
        if word in FUNCTION_WORDS["en"] or word in ("which", "what", "who", "them", "those"):
            continue  # "which of them is the most populous": the record, not a quantity
        if any(m.strength >= 0.5 for t in tables.values() for m in _mentions(word, t)):
            continue
        if any(m.strength >= 0.5 for m in _mentions(match.group(0), table)):
            continue
        if singular(word) in table.entity.get("en", "").split():
            continue
        return word
    # "which was cheaper (in the 1970s table)": a price, which no field holds, whatever
    # other number field is named ("higher" may rank a latitude or an efficiency said).
    for quantity in _unheld(low, table, {"price"}):
        return quantity
    if any(m.column.orderable and m.strength >= 0.5 for m in mentions):
        return None
    # "which airport lies higher": a height, which no field holds (a word whose quantity
    # other fields may stand for, "bigger" or "older", is left to the rules that rank).
    for quantity in _unheld(low, table, MEASURED_ONLY):
        return quantity
    for match in [*RANKED_BY.finditer(low), *RANKED_ADJECTIVE.finditer(low)]:
        word = match.group(1)
        after = match.group(2).split()
        if any(m.strength >= 0.5 for w in after for m in _mentions(w, table)):
            continue
        if word in NOT_QUANTITIES or word in (*MAX_WORDS, *MIN_WORDS):
            continue
        if any(m.strength >= 0.5 for t in tables.values() for m in _mentions(word, t)):
            continue
        if any(word in v.lower().split() for c in table.columns.values() for v in c.values):
            continue
        if singular(word) in table.entity.get("en", "").split():
            continue  # "the most countries": a count of records
        return word
    return None


def _refusal(
    intent: str, table: Table, mentions: list[Mention], conditions: list[Condition]
) -> Refusal:
    low = intent.lower()
    words = re.findall(r"[^\W\d_]+", low)
    if words and sum(w in FUNCTION_WORDS["en"] for w in words) / len(words) < 0.15:
        return Refusal(
            "the intent does not read as English, and intents over tables are read in "
            "English: write it in English and name the items' language (for example "
            "'... questions in French')",
            [],
        )
    fields = ", ".join(f"{c.path} ({c.kind})" for c in table.columns.values())
    named = ", ".join(m.column.path for m in mentions) or "none"
    if COUNT_CUES.search(low) and not conditions:
        return Refusal(
            f"a count needs a condition the data can check (a value of a category field or a "
            f"bound on a number field); the intent names none of {table.id}'s values",
            [f"fields: {fields}"],
        )
    wants_number = bool(
        COMPARE_CUES.search(low)
        or SUPERLATIVE_CUES.search(low)
        or any(p.search(low) for p, _ in AGG_CUES)
    )
    if wants_number and not any(m.column.orderable for m in mentions):
        return Refusal(
            f"no number or date field of {table.id} matches the quantity the intent ranks or "
            f"aggregates (fields named: {named})",
            [f"fields: {fields}"],
        )
    if table.key is None:
        return Refusal(
            f"no field of {table.id} names a record (no column with a distinct value in every "
            "row), and the intent asks for no classification from stated features",
            [f"fields: {fields}"],
        )
    return Refusal(
        f"no field of {table.id} matches what the intent asks for (fields named: {named})",
        [f"fields: {fields}"],
    )
