"""Does a dataset fit the intent? Checked in code, on the intent's topic words.

The *topic words* are the intent's content words (English Snowball stems) minus function
words and the words every benchmark intent shares ("questions", "spoken", "images",
"multiple choice", ...). So "spoken questions about world capitals" has the topic
{world, capit}, and a catalog whose cards mention neither does not cover it. Also: the
languages an intent asks its items in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from benchsmith.programs.gloss import intent_language, to_english
from benchsmith.stemming import stems

_FUNCTION_WORDS = """
a an the of in on at to for from by with about into over under and or not no nor but if
then than as is are was were be been being it its this that these those which who whom
whose what when where why how whether each every any all some many much more most few
one two three four five six seven eight nine ten there their they them we our you your
he she his her i me my do does did done can could should would may might must will shall
per via also only just very such same other another own so up down out off again further
once here both either neither between among across within without through during before
after above below against
"""

#: Words every benchmark intent may use; they name a form, not a topic.
_GENERIC_WORDS = """
question questions ask asking asked answer answers answering item items test tests testing
benchmark benchmarks evaluation evaluate evaluating measure measuring model models llm
spoken speech audio voice voices listen listening hear hearing sound sounds recording
recordings noise noisy background image images photo photos picture pictures visual
visually see seen shown show showing read reading text texts written write writing
rendered render multiple choice choices short long open free form numeric number numbers
numerical value values give given identify identifying recognize recognizing recognition
name names naming pick choose select problem problems task tasks subtask subtasks skill
skills language languages english french german spanish italian portuguese dutch
multilingual easy medium hard difficult difficulty various different several
"""

FUNCTION_STEMS = frozenset(stems(_FUNCTION_WORDS))
GENERIC_STEMS = frozenset(stems(_GENERIC_WORDS))


def topic_stems(text: str) -> set[str]:
    """The topic words of a text: content stems that are neither function nor form words."""
    return {
        s for s in stems(text) if len(s) > 1 and s not in FUNCTION_STEMS and s not in GENERIC_STEMS
    }


def content_stems(text: str) -> set[str]:
    """The content stems of a text (function words removed, form words kept)."""
    return {s for s in stems(text) if len(s) > 1 and s not in FUNCTION_STEMS}


def card_text(card: Any) -> str:
    """Everything a card says about its data (name, description, fields, tasks, domain)."""
    parts = [str(card.id).replace("-", " "), card.name, card.description]
    for f in card.fields:
        parts += [f.path, getattr(f, "semantics", "")]
    parts += list(getattr(card, "tasks", []) or []) + [str(getattr(card, "domain", ""))]
    return " ".join(p for p in parts if p)


def coverage(topics: set[str], card: Any) -> float:
    """Share of the topic stems that the card mentions anywhere (0 when there is no topic)."""
    if not topics:
        return 0.0
    found = topics & set(stems(card_text(card)))
    return round(len(found) / len(topics), 4)


def _language_names() -> dict[str, str]:
    """English language name (lowercase, no qualifier) to ISO 639-1 code, from pycountry.

    A name that is also a country's ("Tonga") is left out: "in Tonga" names a place.
    """
    import pycountry

    countries = {
        n.lower()
        for c in pycountry.countries
        for n in (c.name, getattr(c, "common_name", None))
        if n
    }
    names: dict[str, str] = {}
    for lang in pycountry.languages:
        code = getattr(lang, "alpha_2", None)
        if not code:
            continue
        for name in (lang.name, getattr(lang, "common_name", None)):
            for part in re.sub(r"\s*\([^)]*\)", "", name or "").split(";"):
                plain = part.strip().lower()
                if plain and plain not in countries:
                    names.setdefault(plain, code)
                    # "Modern Greek" is asked for as "Greek".
                    if plain.startswith("modern "):
                        names.setdefault(plain.removeprefix("modern "), code)
    return names


_NATIVE = (
    (r"\ben fran[cç]ais\b", "fr"),
    (r"\bauf deutsch\b", "de"),
    (r"\ben espa[nñ]ol\b", "es"),
    (r"\bin italiano\b", "it"),
    (r"\bem portugu[eê]s\b", "pt"),
    (r"\bin het nederlands\b", "nl"),
)


NAMED_IN = frozenset("called named said spelled spelt written known name names".split())
"""Words before "in <language>" that name a thing in that language, not the items' language."""


NEGATED = re.compile(r"\b(?:not|never|pas|nicht|non|niet|não|nao|no)\s+(?:\w+\s+)?$")
"""Words before "in <language>" that refuse it ("in English, not in French")."""


def languages_from_intent(intent: str) -> tuple[str, ...]:
    """Languages an intent asks its items in ("... in German and Spanish" -> de, es).

    Only a list of language names after "in" counts ("in English, French or Italian",
    "in German"), so "questions about French cities" asks for no language; one said after
    "not" is refused ("en anglais, pas en français"). An intent in another language is read
    through its gloss too, so that it may ask for items in a language other than its own.
    """
    names = _language_names()
    low = intent.lower()
    # Named in the language itself ("Écris les questions en français", "auf Deutsch").
    native = [
        code
        for pattern, code in _NATIVE
        for m in re.finditer(pattern, low)
        if not NEGATED.search(low[: m.start()][-24:])
    ]
    if native:
        return tuple(dict.fromkeys(native))
    written = intent_language(intent)
    if written != "en":
        # ("auf Englisch" glosses to "on english")
        asked = _languages_after_in(to_english(intent, written).lower(), names, "in|on")
        if asked:
            return asked
    found = list(_languages_after_in(low, names))
    # "French multiple-choice items", "a French-language version", "Spanish questions".
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    name = rf"(?:{alternatives})"
    before_noun = (
        rf"\b({name})(?:[- ]language)?\s+(?:(?:multiple[- ]choice|short[- ]answer|trivia|quiz)"
        r"\s+)?(?:items?|questions?|prompts?|version|quiz(?:zes)?|benchmark|wording)\b"
        # "French please.", "French-language multiple choice", "Spanish only"
        rf"|\b({name})(?:[- ]language\s+(?:multiple|short|items?|questions?|version|quiz|"
        r"prompts?|wording)\b|\s+(?:please|only)\b)"
    )
    for match in re.finditer(before_noun, low):
        code = names[match.group(1) or match.group(2)]
        if code not in found:
            found.append(code)
    if not found and written != "en":
        # An intent written in French asks for French items unless it names another.
        found.append(written)
    return tuple(found)


def _languages_after_in(low: str, names: dict[str, str], before: str = "in") -> tuple[str, ...]:
    """The languages named after "in" ("in English, French or Italian"), less refused ones."""
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    name = rf"(?:{alternatives})"
    listed = rf"{name}(?:\s*(?:,|\band\b|\bor\b|&)\s*(?:and\s+|or\s+)?{name})*"
    pattern = rf"\b(?:{before})\s+({listed})\b"
    found: list[str] = []
    for match in re.finditer(pattern, low):
        # (words of the same sentence: "..., not the airport name. Ask in German")
        before = re.findall(r"[a-z]+", re.split(r"[.;!?\n]", low[: match.start()])[-1])[-4:]
        items = {"questions", "question", "items", "prompts", "benchmark"} & set(before)
        if before and not items and (before[-1] in NAMED_IN or "name" in before[:-1]):
            # "what it is called in Welsh", "the name of a country in Swedish": the
            # answer's language, not the items'
            continue
        if NEGATED.search(low[: match.start()][-24:]):
            continue  # "in English, not in French"
        for word in re.findall(name, match.group(1)):
            code = names[word]
            if code not in found:
                found.append(code)
    return tuple(found)


def uncovered_message(intent: str, topics: Iterable[str], searched: Sequence[str]) -> str:
    """The error of an intent no dataset or reference covers: what is missing, how to add it."""
    shown = ", ".join(sorted(topics)) or intent
    listed = ", ".join(searched[:12]) + (" ..." if len(searched) > 12 else "")
    return (
        f"no dataset or reference in the catalog covers the intent {intent!r} "
        f"(topic words: {shown}; searched: {listed or 'an empty catalog'}). Add data about it "
        "with --dataset FILE, a document with --reference FILE, or `benchsmith catalog add "
        "PATH`, then plan again"
    )
