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

PHRASES: dict[str, dict[str, str]] = {
    "fr": {
        "combien de": "how many", "combien d'": "how many ", "le plus": "the most",
        "la plus": "the most", "les plus": "the most", "le moins": "the least",
        "la moins": "the least", "en moyenne": "on average", "au total": "in total",
        "plus de": "more than", "moins de": "less than", "au moins": "at least",
        "au plus": "at most", "lequel des deux": "which of the two",
        "laquelle des deux": "which of the two", "de mémoire": "from memory",
        "sans tableau": "without the table", "d'après le tableau": "from the table",
        "à choix multiples": "multiple choice", "réponse courte": "short answer",
        "dont on donne": "given", "étant donné": "given", "en français": "in french",
        "plus grand": "largest", "plus grande": "largest", "plus petit": "smallest",
        "plus petite": "smallest", "plus élevé": "highest", "plus élevée": "highest",
        "plus long": "longest", "plus longue": "longest", "plus ancien": "oldest",
        "plus ancienne": "oldest", "plus récent": "most recent", "plus récente": "most recent",
        "quel": "which", "quelle": "which", "quels": "which", "quelles": "which",
        "qui": "who", "est": "is", "sont": "are", "le": "the", "la": "the", "les": "the",
        "l'": "the ", "de": "of", "du": "of the", "des": "of the", "d'": "of ", "un": "a",
        "une": "a", "et": "and", "ou": "or", "dont": "whose", "chaque": "each",
        "nom": "name", "français": "french", "française": "french", "anglais": "english",
        "anglaise": "english", "allemand": "german", "espagnol": "spanish",
        "tableau": "table", "lignes": "rows", "moyenne": "average", "somme": "sum",
        "total": "total", "compte": "count", "avant": "before", "après": "after",
        "entre": "between", "pose": "ask", "posez": "ask", "demande": "ask",
        "demandez": "ask", "montre": "show", "montrez": "show", "donne": "give",
        "donnez": "give", "questions": "questions", "parmi": "among", "deux": "two",
        "trois": "three", "quatre": "four", "cinq": "five",
    },
    "de": {
        "wie viele": "how many", "am größten": "largest", "am höchsten": "highest",
        "am längsten": "longest", "am ältesten": "oldest", "im durchschnitt": "on average",
        "mehr als": "more than", "weniger als": "less than", "aus dem gedächtnis": "from memory",
        "ohne tabelle": "without the table", "auf deutsch": "in german",
        "welche": "which", "welcher": "which", "welches": "which", "welchem": "which",
        "welchen": "which", "wer": "who", "ist": "is", "liegt": "is in", "sind": "are",
        "der": "the", "die": "the", "das": "the", "den": "the", "dem": "the", "des": "of the",
        "ein": "a", "eine": "a", "einer": "a", "bestimmtes": "given", "bestimmte": "given",
        "bestimmten": "given", "gegebenes": "given", "und": "and", "oder": "or",
        "name": "name", "namen": "name", "tabelle": "table", "durchschnitt": "average",
        "summe": "sum", "vor": "before", "nach": "after", "zwischen": "between",
        "fragen": "ask", "frage": "ask", "zeige": "show", "kontinent": "continent",
        "land": "country", "länder": "countries", "hauptstadt": "capital",
        "bevölkerung": "population", "sprache": "language", "währung": "currency",
        "fläche": "area", "jahr": "year", "zwei": "two", "drei": "three", "vier": "four",
    },
    "es": {
        "cuántos": "how many", "cuántas": "how many", "el más": "the most",
        "la más": "the most", "en promedio": "on average", "más de": "more than",
        "menos de": "less than", "de memoria": "from memory", "sin tabla": "without the table",
        "en español": "in spanish", "cuál": "which", "cuáles": "which", "qué": "what",
        "quién": "who", "es": "is", "son": "are", "el": "the", "la": "the", "los": "the",
        "las": "the", "de": "of", "del": "of the", "un": "a", "una": "a", "y": "and",
        "o": "or", "nombre": "name", "tabla": "table", "promedio": "average",
        "suma": "sum", "antes": "before", "después": "after", "entre": "between",
        "pregunta": "ask", "preguntas": "questions", "muestra": "show", "dado": "given",
        "dada": "given", "país": "country", "países": "countries", "continente": "continent",
        "capital": "capital", "población": "population", "idioma": "language",
        "moneda": "currency", "año": "year", "dos": "two", "tres": "three",
    },
}  # fmt: skip


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
