"""Intents written in French, German, Spanish, Italian, Dutch or Portuguese, glossed into English.

The planner (:mod:`~benchsmith.programs.intent`) reads English: column names, cue words,
numbers. An intent in another language is first recognised by its function words and
then glossed phrase by phrase (longest first) into the English words the planner knows:
question and cue words ("combien de" -> "how many", "le plus" -> "the most", "de
mémoire" -> "from memory", "quanti" -> "how many", "gemiddelde" -> "average", "sem
tabela" -> "without the table"), and nouns: the label lexicon read backwards ("pays" ->
"country") and the nouns of ``gloss_phrases.json`` ("pioggia" -> "rain", "inwonertal" ->
"population"). A phrase is glossed once: its English words are not glossed again by a
shorter phrase (Dutch "van" -> "of" does not become "or" by Dutch "of"). Words without a
gloss stay as they are: names of records and values ("Tokyo", "Red Bull") are the same in
every language. The gloss only chooses a program; the items' language is what the intent
asks for, by default its own.
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
        "avec chaque dont sur pose posez donne donnez questions combien en lequel laquelle "
        "lesquels lesquelles rien pas ne au aux ce cette ces il elle nous vous par mais".split()
    ),
    "de": frozenset(
        "der die das den dem des ein eine einer und oder welche welcher welches welchem wer "
        "ist sind in mit für jede jeder bitte auf fragen frage wie viele".split()
    ),
    "es": frozenset(
        "el la los las de del un una y o cuál cuáles qué quién es son en con para cada "
        "pregunta preguntas cuántos cuántas".split()
    ),
    # Italian, Dutch and Portuguese share words with Spanish, German and each other ("la",
    # "de", "con", "die", "in"): each set holds enough words of its own ("il", "di", "che";
    # "het", "een", "van"; "os", "um", "uma", "com", "não") to tell it from its neighbours.
    # Words that are also English and not English function words ("i", "e", "per", "non",
    # "was", "is", "op", "no", "as", "do") are left out: "No such option" is not Portuguese.
    "it": frozenset(
        "il lo la gli le di del dello della dei degli delle un uno una o è sono in con che "
        "chi quale quali quanti quante ogni nel nella nei negli nelle al allo alla ai agli "
        "dal dalla dai dagli dalle sul sulla sui sulle sugli tra fra domanda domande chiedi "
        "mostra anche questo questa questi queste quel quella quei loro suo mio mia miei "
        "ciascun ciascuno ciascuna senza più".split()
    ),
    "nl": frozenset(
        "de het een en of van in met voor welk welke wie wat zijn waren elk elke ieder "
        "iedere hoeveel vraag vragen laat geef toon die dat deze dit uit niet geen naar bij "
        "ook te aan hun hoe tussen zonder".split()
    ),
    "pt": frozenset(
        "o os a de da dos das um uma uns umas ou em na nos nas com para por pelo pela qual "
        "quais quem quantos quantas cada é são não ao aos às sem seu sua seus suas mostre "
        "pergunte perguntas pergunta deles delas".split()
    ),
}
OWN_WORDS = {
    code: vocabulary.difference(
        *(other for other_code, other in FUNCTION_WORDS.items() if other_code != code)
    )
    for code, vocabulary in FUNCTION_WORDS.items()
}
"""Each language's function words no other language's set holds ("het", "di", "não")."""

PHRASES: dict[str, dict[str, str]] = package_json("benchsmith.programs", "gloss_phrases.json")
"""Phrases and words per language and their English gloss (``gloss_phrases.json``)."""


def intent_language(text: str) -> str:
    """The language an intent is written in, by its function words (``en`` when unsure).

    The language whose function words make the largest share of the intent's words wins;
    on a tie, the one with more words of its own (:data:`OWN_WORDS`): Spanish and
    Portuguese share "de", "cada" and "para", but "os", "um" and "não" are Portuguese.
    """
    words = re.findall(r"[^\W\d_]+", text.lower())
    if not words:
        return "en"
    share = {
        code: sum(w in vocabulary for w in words) / len(words)
        for code, vocabulary in FUNCTION_WORDS.items()
    }
    own = {code: sum(w in vocabulary for w in words) for code, vocabulary in OWN_WORDS.items()}
    best = max(share, key=lambda code: (share[code], own[code]))
    if best != "en" and share[best] >= 0.15 and share[best] > share["en"] * 1.5:
        return best
    if share["en"] >= UNSURE_ENGLISH:
        return "en"
    # Few function words of any language ("Zeig jeweils einen Ausschnitt von etwa zehn
    # Tagen aus den Seattle-Wetterdaten und frag: An wie vielen dieser Tage ..."): lingua
    # reads the whole text's letters and words.
    return _lingua_language(text) or "en"


UNSURE_ENGLISH = 0.12
"""Below this share of English function words an intent the words did not place is given
to lingua (English intents run from about 0.15 up)."""


def _lingua_language(text: str) -> str | None:
    """Lingua's language of ``text`` among the glossed ones, when it is confident of one."""
    from benchsmith.langid import confidences

    try:
        ranked = sorted(confidences(FUNCTION_WORDS, text), key=lambda cv: -cv[1])
    except (ImportError, ValueError, OSError):
        return None
    if ranked and ranked[0][1] >= 0.6:
        return ranked[0][0]
    return None


@cache
def _phrases(language: str) -> tuple[tuple[str, str], ...]:
    table = dict(PHRASES.get(language, {}))
    # The label lexicon read backwards: "pays" -> "country", "nom" -> "name".
    for english, noun in LEXICON.get(language, {}).items():
        if "(" not in english:
            table.setdefault(noun.text.lower(), english)
    # Languages by their CLDR names: "giapponese" -> "japanese", "Zweeds" -> "swedish",
    # and as the adjectives Dutch and German inflect them ("de Zweedse naam", "den
    # schwedischen Namen").
    endings = {"nl": ("e",), "de": ("e", "en", "er", "es", "em")}.get(language, ())
    for local, english in _language_names(language).items():
        table.setdefault(local, english)
        for ending in endings:
            table.setdefault(local + ending, english)
    if language == "nl":  # "in het Fins": a short name, safe after its article
        for local, english in _language_names(language, shortest=3).items():
            table.setdefault(f"in het {local}", f"in {english}")
    return tuple(sorted(table.items(), key=lambda kv: -len(kv[0])))


def _language_names(language: str, shortest: int = 5) -> dict[str, str]:
    """CLDR's names of the languages in ``language``, each to its English name (lower case)."""
    try:
        from babel import Locale
    except ImportError:  # pragma: no cover - babel is a dependency
        return {}
    english = Locale.parse("en").languages
    names: dict[str, str] = {}
    for code, local in Locale.parse(language).languages.items():
        one_word = "_" not in code and " " not in local.strip()
        if code in english and one_word and len(local) >= shortest:
            names.setdefault(local.lower(), english[code].lower())
    return names


@cache
def _patterns(language: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each phrase of a language as a pattern bounded by word edges, and its English."""
    return tuple(
        (
            re.compile(
                # (not inside a word, nor after an elided "l'"; after an opening quote, yes)
                r"(?<!\w)(?<!\w')"
                + re.escape(_elided(phrase, language))
                + (r"(?!\w)" if phrase[-1].isalnum() else "")
            ),
            english,
        )
        for phrase, english in _phrases(language)
    )


ELISION = re.compile(r"\b(l|d|qu|j|n|s|c|m|t|un|dell|all|nell|sull|dall|quell)'(?=\w)")
"""An elided article or pronoun of French and Italian ("l'indicatif", "dell'aeroporto")."""


def _elided(text: str, language: str) -> str:
    """French and Italian elisions apart from their word ("l'indicatif" -> "l' indicatif").

    Phrases and text alike, so that "indicatif" is found after "l'" as after "le", and
    "l'année" still matches as one phrase.
    """
    return ELISION.sub(r"\1' ", text) if language in ("fr", "it") else text


def _prepared(text: str, language: str = "") -> str:
    """The text as the phrases are looked for in it: lower case, one apostrophe, padded."""
    return " " + _elided(_MARKS.sub(" ", text.lower().replace("’", "'")), language) + " "


def to_english(text: str, language: str) -> str:
    """The intent glossed into English words, phrase by phrase (longest first).

    Each phrase found is held by a mark until every phrase is done, so that the English
    of a longer phrase is never read again as a shorter phrase of the language (Dutch
    "welke van de twee" -> "which of the two" keeps its "of"; French "course" -> "race" is
    not then read as French "race" -> "breed").
    """
    if language == "en":
        return text
    out = _prepared(text, language)
    patterns = _patterns(language)
    for i, (pattern, _english) in enumerate(patterns):
        out = pattern.sub(f" {chr(_MARK + i)} ", out)
    out = _MARKS.sub(lambda m: f" {patterns[ord(m.group(0)) - _MARK][1]} ", out)
    return re.sub(r"\s+", " ", out).strip()


def glossed_words(text: str, language: str) -> list[str]:
    """The English of each phrase the gloss found in ``text`` ("how many", "maximum")."""
    if language == "en":
        return []
    low = _prepared(text, language)
    found = []
    for pattern, english in _patterns(language):
        if pattern.search(low):
            found.append(english)
            low = pattern.sub(" ", low)
    return found


_MARK = 0xF0000
"""The first of the marks (Unicode private use, neither a letter nor a digit) that hold
glossed phrases until the end."""
_MARKS = re.compile("[\U000f0000-\U000ffffd]")
