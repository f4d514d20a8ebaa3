"""Intents written in French, German or Spanish, glossed into English words for the planner.

The planner (:mod:`~benchsmith.programs.intent`) reads English: column names, cue words,
numbers. An intent in another language is first recognised by its function words and
then glossed phrase by phrase (longest first) into the English words the planner knows:
question and cue words ("combien de" -> "how many", "le plus" -> "the most", "de
mémoire" -> "from memory"), and the nouns of the label lexicon read backwards ("pays" ->
"country"). Words without a gloss stay as they are: names of records and values ("Tokyo",
"Red Bull") are the same in every language. The gloss only chooses a program; the items'
language is what the intent asks for, by default its own.
"""

from __future__ import annotations

import re
from functools import cache

from benchsmith.files import package_json
from benchsmith.programs.labels import LEXICON

FUNCTION_WORDS = {
    "en": frozenset(
        "the a an of and or which what who how is are in on to for with from each their its "
        "ask give show questions question".split()
    ),
    "fr": frozenset(
        "le la les de des du un une et ou quel quelle quels quelles qui est sont dans pour "
        "avec chaque dont sur pose posez donne donnez questions combien".split()
    ),
    "de": frozenset(
        "der die das den dem des ein eine einer und oder welche welcher welches welchem wer "
        "ist sind in mit für jede jeder bitte auf fragen frage wie viele".split()
    ),
    "es": frozenset(
        "el la los las de del un una y o cuál cuáles qué quién es son en con para cada "
        "pregunta preguntas cuántos cuántas".split()
    ),
}

PHRASES: dict[str, dict[str, str]] = package_json("benchsmith.programs", "gloss_phrases.json")
"""Phrases and words per language and their English gloss (``gloss_phrases.json``)."""


def intent_language(text: str) -> str:
    """The language an intent is written in, by its function words (``en`` when unsure)."""
    words = re.findall(r"[^\W\d_]+", text.lower())
    if not words:
        return "en"
    share = {
        code: sum(w in vocabulary for w in words) / len(words)
        for code, vocabulary in FUNCTION_WORDS.items()
    }
    best = max(share, key=lambda code: share[code])
    if best != "en" and share[best] >= 0.15 and share[best] > share["en"] * 1.5:
        return best
    return "en"


@cache
def _phrases(language: str) -> tuple[tuple[str, str], ...]:
    table = dict(PHRASES.get(language, {}))
    # The label lexicon read backwards: "pays" -> "country", "nom" -> "name".
    for english, noun in LEXICON.get(language, {}).items():
        if "(" not in english:
            table.setdefault(noun.text.lower(), english)
    return tuple(sorted(table.items(), key=lambda kv: -len(kv[0])))


def to_english(text: str, language: str) -> str:
    """The intent glossed into English words, phrase by phrase (longest first)."""
    if language == "en":
        return text
    out = " " + text.lower().replace("’", "'") + " "
    for phrase, english in _phrases(language):
        edge = r"(?<![\w'])" + re.escape(phrase) + (r"(?!\w)" if phrase[-1].isalnum() else "")
        out = re.sub(edge, f" {english} ", out)
    return re.sub(r"\s+", " ", out).strip()
