"""The questions of programs whose records are shown as pictures, in seven languages.

A program with a ``media_field`` (:attr:`~benchsmith.spec.ProgramSpec.media_field`) shows
the records' own images and names none of them: a classification asks what one picture
shows ("Which digit does the image show?"), a count how many of the pictures show a value
("How many of the 6 images show the digit 7?"), a comparison which of two pictures, A or
B, shows the larger value. The label's article and gender come from
:mod:`~benchsmith.programs.grammar`; a language with no template raises
:class:`~benchsmith.programs.wording.WordsMissing`, so the program's probe drops it.
"""

from __future__ import annotations

from benchsmith.programs.grammar import GRAMMARS, German, Noun
from benchsmith.programs.wording import Words, WordsMissing, _fr_the, _fr_which

LETTERS = ("A", "B")
"""The captions of a comparison's two pictures, in the order they are shown."""

OR = {"en": "or", "fr": "ou", "de": "oder", "es": "o", "it": "o", "nl": "of", "pt": "ou"}


def _which(noun: Noun, language: str) -> str:
    """The word for "which" and the noun, agreeing with it, to start a question."""
    if language == "en":
        return f"Which {noun.text}"
    if language == "fr":
        return f"{_fr_which(noun)} {noun.text}"
    grammar = GRAMMARS[language]
    phrase = grammar.which(noun, case="nom") if isinstance(grammar, German) else grammar.which(noun)
    return phrase[:1].upper() + phrase[1:]


def _the(noun: Noun, language: str, *, accusative: bool = False) -> str:
    """The noun with its definite article ("the digit", "die Ziffer", "l'immagine")."""
    if language == "en":
        return f"the {noun.text}"
    if language == "fr":
        return _fr_the(noun)
    if language == "de" and accusative and noun.gender == "m":
        return f"den {noun.text}"  # the accusative differs from the nominative only here
    return GRAMMARS[language].the(noun)


def _larger(noun: Noun, language: str, direction: str) -> str:
    """The noun with "larger" (or "smaller") and its article: "die größere Ziffer"."""
    big = direction == "max"
    if language == "en":
        return f"the {'larger' if big else 'smaller'} {noun.text}"
    if language == "fr":
        word = ("grand" if big else "petit") + ("e" if noun.gender == "f" else "")
        article = "la" if noun.gender == "f" else "le"
        return f"{_the(noun, 'fr')} {article} plus {word}"
    if language == "de":
        stem = "größere" if big else "kleinere"
        if noun.gender == "m":
            return f"den {stem}n {noun.text}"
        return f"{'die' if noun.gender == 'f' else 'das'} {stem} {noun.text}"
    if language == "nl":
        article = "het" if noun.gender == "n" else "de"
        return f"{article} {'grotere' if big else 'kleinere'} {noun.text}"
    word = {"es": ("mayor", "menor"), "it": ("maggiore", "minore"), "pt": ("maior", "menor")}
    return f"{_the(noun, language)} {word[language][0 if big else 1]}"


def _check(language: str) -> None:
    if language not in OR:
        raise WordsMissing(f"no words for questions about pictures in language {language!r}")


def media_classify_question(words: Words, answer_field: str) -> str:
    """Which value of the label the one picture shows: "Which digit does the image show?"."""
    language = words.language
    _check(language)
    which = _which(words.label(answer_field), language)
    return {
        "en": f"{which} does the image show?",
        "fr": f"{which} montre l'image ?",
        "de": f"{which} zeigt das Bild?",
        "es": f"¿{which} muestra la imagen?",
        "it": f"{which} mostra l'immagine?",
        "nl": f"{which} toont de afbeelding?",
        "pt": f"{which} mostra a imagem?",
    }[language]


def media_count_question(words: Words, field: str, value: str, shown: int) -> str:
    """How many of the pictures show a value: "How many of the 6 images show the digit 7?"."""
    language = words.language
    _check(language)
    label = words.label(field)
    thing = f"{_the(label, language, accusative=True)} {value}"
    return {
        "en": f"How many of the {shown} images show {thing}?",
        "fr": f"Combien des {shown} images montrent {thing} ?",
        "de": f"Wie viele der {shown} Bilder zeigen {thing}?",
        "es": f"¿Cuántas de las {shown} imágenes muestran {thing}?",
        "it": f"Quante delle {shown} immagini mostrano {thing}?",
        "nl": f"Hoeveel van de {shown} afbeeldingen tonen {thing}?",
        "pt": f"Quantas das {shown} imagens mostram {thing}?",
    }[language]


def media_compare_question(words: Words, field: str, direction: str) -> str:
    """Which of two pictures shows the larger value: "... the larger digit: A or B?"."""
    language = words.language
    _check(language)
    ranked = _larger(words.label(field), language, direction)
    a, b = LETTERS
    either = f"{a} {OR[language]} {b}"
    return {
        "en": f"Which image shows {ranked}: {either}?",
        "fr": f"Quelle image montre {ranked} : {either} ?",
        "de": f"Welches Bild zeigt {ranked}: {either}?",
        "es": f"¿Qué imagen muestra {ranked}: {either}?",
        "it": f"Quale immagine mostra {ranked}: {either}?",
        "nl": f"Welke afbeelding toont {ranked}: {either}?",
        "pt": f"Que imagem mostra {ranked}: {either}?",
    }[language]
