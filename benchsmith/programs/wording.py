"""The template grammar of question programs, per language.

English and French are worded by code of their own; German, Spanish, Italian, Dutch and
Portuguese fill the templates of :mod:`~benchsmith.programs.phrases` with nouns put in place
by :mod:`~benchsmith.programs.grammar` (case, contraction, agreement).

Every question is built from the table's words: column labels (the card's per-language
labels, else the column name read as words in English, else the lexicon of
:mod:`~benchsmith.programs.labels`),
the record noun, and values from the data. Each language but English needs a noun's gender
for its article ("la capitale du pays", "des Landes", "dell'anno"); a user label given with
its article ("la masse atomique", "die Hauptstadt", "l'isola/le isole") carries it. A
language whose words are missing for a program's fields raises :class:`WordsMissing`,
naming the field and how to give a label.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from benchsmith.programs.grammar import ARTICLES, GRAMMARS, German, guess_gender, read_noun
from benchsmith.programs.labels import LEXICON, Noun, fr_de, fr_plural, lexicon_noun
from benchsmith.programs.phrases import PHRASES
from benchsmith.programs.table import PERSON_FIELDS, Table, article, plural

LANGUAGES = ("en", "fr", "de", "es", "it", "nl", "pt")
PREAMBLE = {
    "en": "Answer using this table.",
    "fr": "Répondez à l'aide de ce tableau.",
    **{language: phrases.preamble for language, phrases in PHRASES.items()},
}
ROUND_NOTE = {
    "en": "to two decimal places",
    "fr": "arrondie à deux décimales",
    **{language: phrases.rounding for language, phrases in PHRASES.items()},
}


class WordsMissing(ValueError):
    """A program cannot be worded in a language: a label or the record noun is missing."""


def _user_noun(text: str) -> Noun:
    """A French label as the user wrote it, the article giving the gender."""
    low = text.strip()
    for prefix, gender in (("la ", "f"), ("le ", "m"), ("les ", "m")):
        if low.lower().startswith(prefix):
            return Noun(low[len(prefix) :], gender)
    if low.lower().startswith(("l'", "l’")):
        return Noun(low[2:], elided_gender(low[2:], "fr"))
    return Noun(low, "m")


def elided_gender(text: str, language: str) -> str:
    """The gender of a noun written after an elided article (French ``l'``).

    The lexicon's gender of its head word when it knows it ("année" -> f), else the one its
    ending gives (:func:`~benchsmith.programs.grammar.guess_gender`: "-tion", "-té" -> f).
    """
    head = text.split()[0].casefold() if text.split() else ""
    known = _known_nouns(language).get(head)
    return known.gender if known is not None else guess_gender(text, language)


@cache
def _known_nouns(language: str) -> dict[str, Noun]:
    """The lexicon's nouns of a language by their text (case-folded)."""
    out: dict[str, Noun] = {}
    for noun in LEXICON.get(language, {}).values():
        out.setdefault(noun.text.casefold(), noun)
    return out


def _given_noun(text: str, language: str) -> Noun:
    """A label or record noun the card gives in German, Spanish, Italian, Dutch or Portuguese.

    The article gives the gender ("die Hauptstadt", "l'isola/le isole"); a noun the lexicon
    knows takes its plural (and its gender, when written without an article).
    """
    noun = read_noun(text, language)
    known = _known_nouns(language).get(noun.text.casefold())
    if known is None:
        return noun  # read_noun guessed the gender of an elided article from the ending
    first = text.split()[0].lower() if text.split() else ""
    if first not in ARTICLES[language] or first.startswith(("l'", "l’")):
        noun = noun._replace(gender=known.gender)  # no article, or one that hides the gender
    if "/" not in text and known.gender == noun.gender and known.plural:
        noun = noun._replace(plural=known.plural)
    return noun


def _how_to_say(language: str) -> str:
    """How a label in a language is best written: with its article ("die Hauptstadt")."""
    if language not in GRAMMARS:
        return ""
    example = GRAMMARS[language].the(LEXICON[language]["capital"])
    return f" (with its article, which gives the gender: '{example}')"


@dataclass
class Words:
    """The words of one table in one language."""

    table: Table
    language: str

    def label(self, path: str) -> Noun:
        """A column's label in this language (raises :class:`WordsMissing`)."""
        column = self.table.columns[path]
        given = column.labels.get(self.language)
        if self.language == "en":
            return Noun(given or column.labels["en"], "n")
        if given and given != column.labels.get("en"):
            return self._given(given)
        found = lexicon_noun(column.labels["en"], self.language)
        if found is None:
            raise WordsMissing(
                f"no {self.language} label for the field {path!r} of {self.table.id}; give one "
                f"with `benchsmith catalog add ... --label {path}:{self.language}=TEXT` or in "
                f"the card's field labels{_how_to_say(self.language)}"
            )
        return found

    def _given(self, text: str) -> Noun:
        if self.language in GRAMMARS:
            return _given_noun(text, self.language)
        return _user_noun(text)

    def rows(self) -> Noun:
        """The noun of the table's rows, for records without a noun in this language."""
        return PHRASES[self.language].rows if self.language in PHRASES else ROWS_FR

    def noun_or(self, fallback: Noun | None) -> Noun | None:
        """The record noun, or ``fallback`` when this language has none."""
        try:
            return self.noun()
        except WordsMissing:
            return fallback

    def noun(self) -> Noun:
        """The record noun in this language (raises :class:`WordsMissing`)."""
        given = self.table.entity.get(self.language)
        if self.language == "en":
            return Noun(given or "item", "n")
        if given:
            return self._given(given)
        found = lexicon_noun(self.table.entity.get("en", ""), self.language)
        if found is None:
            raise WordsMissing(
                f"no {self.language} noun for the records of {self.table.id}; give one with "
                f"`benchsmith catalog add ... --entity {self.language}=NOUN` or in the "
                f"card{_how_to_say(self.language)}"
            )
        return found


# ----------------------------------------------------------------------------- French


def _fr_the(noun: Noun) -> str:
    if noun.text[:1].lower() in "aeiouéèêàâîôûh":
        return f"l'{noun.text}"
    return f"{'la' if noun.gender == 'f' else 'le'} {noun.text}"


def _fr_of_the(noun: Noun) -> str:
    if noun.text[:1].lower() in "aeiouéèêàâîôûh":
        return f"de l'{noun.text}"
    return f"{'de la' if noun.gender == 'f' else 'du'} {noun.text}"


ROWS_FR = Noun("ligne", "f")
"""The noun of a record shown in a table when the language has none for it."""


def _fr_which(noun: Noun) -> str:
    return "Quelle" if noun.gender == "f" else "Quel"


def _extreme(direction: str, first: bool, high: tuple[str, str], low: tuple[str, str]) -> str:
    """The word of a ranking: ``high`` for ``max``, else ``low``; its first form if ``first``.

    The two forms are a comparative and a superlative (of two records or more), or a
    feminine and a masculine.
    """
    forms = high if direction == "max" else low
    return forms[0] if first else forms[1]


def _fr_most(noun: Noun, direction: str, kind: str) -> str:
    f = noun.gender == "f"
    if kind == "date":
        word = _extreme(
            direction,
            f,
            ("la plus récente", "le plus récent"),
            ("la plus ancienne", "le plus ancien"),
        )
    else:
        word = _extreme(
            direction, f, ("la plus élevée", "le plus élevé"), ("la plus faible", "le plus faible")
        )
    return f"{_fr_the(noun)} {word}"


CONJUNCTIONS = {
    "en": ("or", "and"),
    "fr": ("ou", "et"),
    **{language: phrases.conjunctions for language, phrases in PHRASES.items()},
}
"""The words joining the last two items of a list: "or" (a choice) and "and"."""


def _list(names: Sequence[str], language: str, *, both: bool = False) -> str:
    """A list ending in "or" ("A, B or C"), or in "and" when ``both``, in a language."""
    if len(names) == 1:
        return names[0]
    last = CONJUNCTIONS[language][both]
    if language == "es":  # "y" is "e" before an i sound, "o" is "u" before an o sound
        sound = names[-1].lower()
        if (
            last == "y"
            and sound.startswith(("i", "hi", "í", "hí"))
            and not sound.startswith(("hia", "hie", "hio", "hiu"))
        ):
            last = "e"
        elif last == "o" and sound.startswith(("o", "ho", "ó", "hó")):
            last = "u"
    if len(names) == 2:
        return f"{names[0]} {last} {names[1]}"
    return f"{', '.join(names[:-1])} {last} {names[-1]}"


# ----------------------------------------------------------------------------- questions


def _person(label: str) -> bool:
    words = label.split()
    return bool(words) and words[-1] in PERSON_FIELDS


def yearly(label: str) -> bool:
    """Whether a number field is a year by its name (ranked as earlier / later)."""
    return "year" in label.split()


def holds_years(table: Table, field: str) -> bool:
    """Whether a field is a date, or a number field named as a year or holding only years."""
    column = table.columns[field]
    if column.kind == "date" or yearly(column.labels.get("en", "")):
        return True
    values = [table.order_value(r, field) for r in table.rows()]
    present = [v for v in values if v is not None]
    return (
        column.kind == "number"
        and bool(present)
        and all(v.is_integer() and 1000 <= v <= 2100 for v in present)
    )


# A year or date field named by what happened then ("first_appeared", "opened",
# "year_discovered"): questions say the event, not "the first appeared".
INTRANSITIVE = {"appeared": "appear", "opened": "open", "began": "begin", "started": "start",
                "ended": "end", "died": "die", "closed": "close", "debuted": "debut"}  # fmt: skip
TRANSITIVE = frozenset(
    "born discovered founded built completed published released launched established invented "
    "created introduced designed constructed signed elected crowned".split()
)


def event(label: str) -> tuple[str, str] | None:
    """``(active, passive_or_base)`` phrases of an event field, or None.

    "first appeared" -> ("first appeared", "did ... first appear"); "year discovered" ->
    ("was discovered", "was ... discovered").
    """
    words = [w for w in label.split() if w != "year"]
    if not words or "(" in label:
        return None
    last = words[-1]
    rest = " ".join(words[:-1])
    if last in INTRANSITIVE:
        base = f"{rest} {INTRANSITIVE[last]}".strip()
        return (" ".join(words), f"did|{base}")
    if last in TRANSITIVE:
        return (f"was {' '.join(words)}", f"was|{' '.join(words)}")
    return None


def counted(table: Table, field: str, label: str) -> bool:
    """Whether a number field counts things by its plural name ("titles", "moons")."""
    words = label.split()
    if table.columns[field].kind != "number" or not words or "(" in label:
        return False
    values = [table.order_value(r, field) for r in table.rows()]
    whole = all(v.is_integer() for v in values if v is not None)
    return whole and words[-1].endswith("s") and not words[-1].endswith(("ss", "us", "is"))


def lookup_question(
    words: Words,
    key_field: str,
    key: str,
    answer_field: str,
    conditions: Sequence[tuple[str, str, str]] = (),
) -> str:
    """What is the answer field of the record named ``key``.

    ``conditions`` are stated when the key names a record only among the records they
    select (a country's English name, among the names in one language): "What is the
    translated name of the country name whose English name is Finland and whose language
    code is fi?".
    """
    if conditions:
        return _lookup_where(words, key_field, key, answer_field, conditions)
    if words.language in PHRASES:
        return _lookup_in(words, key_field, key, answer_field)
    table = words.table
    label = words.label(answer_field)
    if words.language == "fr":
        noun = words.noun_or(None)
        if noun is None and key_field == table.key and not table.columns[key_field].orderable:
            # A record named by a proper name needs no noun: "Quel est le pays de Nigel Mansell ?"
            return f"{_fr_which(label)} est {_fr_the(label)} {fr_de(key)} ?"
        noun = words.noun()
        if key_field == table.key:
            return f"{_fr_which(label)} est {_fr_the(label)} {_fr_of_the(noun)} {key} ?"
        key_label = words.label(key_field)
        return (
            f"{_fr_which(label)} est {_fr_the(label)} {_fr_of_the(noun)} dont "
            f"{_fr_the(key_label)} est {key} ?"
        )
    noun = words.noun()
    asks = "Who" if _person(label.text) else "What"
    happened = event(label.text) if words.language == "en" else None
    column = table.columns[answer_field]
    if happened and key_field == table.key and holds_years(table, answer_field):
        aux, verb = happened[1].split("|")
        when = "On which date" if column.kind == "date" else "In which year"
        return f"{when} {aux} the {noun.text} {key} {verb}?"
    if counted(table, answer_field, label.text):
        # "How many titles does the driver Max Verstappen have?"
        if key_field == table.key:
            return f"How many {label.text} does the {noun.text} {key} have?"
        key_label = words.label(key_field).text
        return f"How many {label.text} does the {noun.text} whose {key_label} is {key} have?"
    if key_field == table.key:
        return f"{asks} is the {label.text} of the {noun.text} {key}?"
    key_label = words.label(key_field).text
    if answer_field == table.key:
        return f"Which {noun.text} has the {key_label} {key}?"
    return f"{asks} is the {label.text} of the {noun.text} whose {key_label} is {key}?"


def _lookup_where(
    words: Words,
    key_field: str,
    key: str,
    answer_field: str,
    conditions: Sequence[tuple[str, str, str]],
) -> str:
    """A lookup whose record is named by ``key`` together with the ``conditions``."""
    every = [(key_field, "==", key), *conditions]
    label = words.label(answer_field)
    english = words.table.columns[answer_field].labels["en"]
    if words.language in PHRASES:
        grammar = GRAMMARS[words.language]
        noun = words.noun()
        record = grammar.of_the(noun) + _whose(words, every, noun)
        return _sentence(_ask(words, english, f"{grammar.the(label)} {record}"))
    noun = words.noun()
    if words.language == "fr":
        return (
            f"{_fr_which(label)} est {_fr_the(label)} {_fr_of_the(noun)} "
            f"{condition_phrase(words, every)} ?"
        )
    asks = "Who" if _person(label.text) else "What"
    return f"{asks} is the {label.text} of the {noun.text} {condition_phrase(words, every)}?"


def rank_question(
    words: Words, field: str, direction: str, names: Sequence[str], *, open_book: bool
) -> str:
    """Which of these records has the larger/smaller value (two or more records)."""
    if words.language in PHRASES:
        return _rank_in(words, field, direction, names, open_book=open_book)
    noun = words.noun() if words.language == "en" else words.noun_or(None)
    column = words.table.columns[field]
    label = words.label(field)
    two = len(names) == 2
    happened = event(label.text) if words.language == "en" else None
    if happened and holds_years(words.table, field):
        # "Which language first appeared earlier: Swift or Perl?"
        when = _extreme(direction, two, ("later", "most recently"), ("earlier", "first"))
        done = happened[0]
        if open_book:
            return f"According to the table, which {noun.text} {done} {when}?"
        if two:
            return f"Which {noun.text} {done} {when}: {_list(names, 'en')}?"
        return f"Which of these {plural(noun.text)} {done} {when}: {_list(names, 'en')}?"
    if words.language == "fr":
        dated = "date" if holds_years(words.table, field) else column.kind
        most = _fr_most(label, direction, dated)
        who = "Laquelle" if noun is not None and noun.gender == "f" else "Lequel"
        if open_book and noun is None:
            return f"D'après le tableau, quelle ligne a {most} ?"
        if open_book:
            return f"D'après le tableau, {_fr_which(noun).lower()} {noun.text} a {most} ?"
        if two:
            return f"{who} a {most} : {_list(names, 'fr')} ?"
        return f"Parmi {_list(names, 'fr').replace(' ou ', ' et ')}, {who.lower()} a {most} ?"
    if holds_years(words.table, field):
        adjective = _extreme(direction, two, ("later", "latest"), ("earlier", "earliest"))
    elif label.text.split()[0] in ("runtime", "duration"):
        adjective = _extreme(direction, two, ("longer", "longest"), ("shorter", "shortest"))
    elif label.text.split()[0] in MAGNITUDES:
        adjective = _extreme(direction, two, ("greater", "greatest"), ("smaller", "smallest"))
    else:
        adjective = _extreme(direction, two, ("higher", "highest"), ("lower", "lowest"))
    last = label.text.split()[-1] if label.text.split() else ""
    integers = all(
        v.is_integer()
        for v in (words.table.order_value(r, field) for r in words.table.rows())
        if v is not None
    )
    first = label.text.split()[0]
    # A quantity of things ("units sold (millions)"): "fewer units sold"; or a count
    # ("moons", "legs"): "more moons", "the most moons".
    things = first.endswith("s") and not first.endswith(("ss", "us", "is"))
    count = (
        integers
        and "(" not in label.text
        and last.endswith("s")
        and not last.endswith(("ss", "us", "is"))
    )
    if column.kind == "number" and (things or count):
        adjective = _extreme(direction, two, ("more", "most"), ("fewer", "fewest"))
        phrase = f"{adjective} {label.text}" if two else f"the {adjective} {label.text}"
    else:
        phrase = f"the {adjective} {label.text}"
    if open_book:
        return f"According to the table, which {noun.text} has {phrase}?"
    if two:
        listed = _list(names, "en")
        return f"Which {noun.text} has {phrase}: {listed}?"
    listed = _list(names, "en")
    return f"Which of these {plural(noun.text)} has {phrase}: {listed}?"


MAGNITUDES = frozenset(
    "height length mass weight area population size distance depth width radius diameter "
    "volume elevation altitude prominence discharge capacity".split()
)
"""Quantities compared as greater / smaller (other numbers as higher / lower)."""
OPS_YEAR = {
    "<": "is before {v}",
    "<=": "is {v} or earlier",
    ">": "is after {v}",
    ">=": "is {v} or later",
}
OPS_EVENT = {
    "==": "in {v}",
    "!=": "in a year other than {v}",
    "<": "before {v}",
    "<=": "in {v} or earlier",
    ">": "after {v}",
    ">=": "in {v} or later",
}
OPS_EN = {
    "==": "is {v}",
    "!=": "is not {v}",
    "<": "is below {v}",
    "<=": "is at most {v}",
    ">": "is above {v}",
    ">=": "is at least {v}",
}
OPS_FR = {
    "==": "est {v}",
    "!=": "n'est pas {v}",
    "<": "est inférieur à {v}",
    "<=": "est au plus {v}",
    ">": "est supérieur à {v}",
    ">=": "est au moins {v}",
}


def condition_phrase(words: Words, conditions: Sequence[tuple[str, str, str]]) -> str:
    """``whose population is above 50 and whose continent is Europe`` (empty: none)."""
    if words.language in PHRASES:
        return _whose(words, conditions, None).removeprefix(",").strip()
    parts = []
    for field, op, value in conditions:
        label = words.label(field)
        if words.language == "fr":
            phrase = OPS_FR[op].format(v=value)
            if label.gender == "f":  # "la population est supérieure à 50"
                phrase = phrase.replace("érieur ", "érieure ")
            parts.append(f"dont {_fr_the(label)} {phrase}")
        elif (happened := event(label.text)) and holds_years(words.table, field):
            # "that opened in 2000 or later", "that was discovered before 1800"
            parts.append(f"that {happened[0]} {OPS_EVENT[op].format(v=value)}")
        else:
            ops = OPS_YEAR if yearly(label.text) and op in OPS_YEAR else OPS_EN
            phrase = ops[op].format(v=value)
            if counted(words.table, field, label.text):
                phrase = "are" + phrase.removeprefix("is")  # "whose cylinders are at least 6"
            parts.append(f"whose {label.text} {phrase}")
    joiner = " et " if words.language == "fr" else " and "
    return joiner.join(parts)


LISTED = {
    "en": ("According to the table", "In the list"),
    "fr": ("D'après le tableau", "Dans la liste"),
    "de": ("laut der Tabelle", "in der Liste"),
    "es": ("Según la tabla", "En la lista"),
    "it": ("Secondo la tabella", "Nella lista"),
    "nl": ("volgens de tabel", "in de lijst"),
    "pt": ("De acordo com a tabela", "Na lista"),
}
"""A count over records named in a list (closed book: their values are not shown) says
"in the list" where a count over a table says "according to the table"."""


def listed_records(words: Words, names: Sequence[str]) -> str:
    """The records a closed-book count names: "Countries: France, Peru and Chad."."""
    noun = words.noun()
    if words.language == "en":
        many = plural(noun.text)
    elif words.language == "fr":
        many = fr_plural(noun.text)
    else:
        many = GRAMMARS[words.language].plural(noun)
    return f"{many[:1].upper()}{many[1:]}: {_list(names, words.language, both=True)}."


def count_question(
    words: Words, conditions: Sequence[tuple[str, str, str]], *, listed: bool = False
) -> str:
    """How many of the records shown satisfy the conditions (``listed``: of those named)."""
    if listed:
        if words.language not in LISTED:
            raise WordsMissing(f"no words for a count over a list in {words.language!r}")
        table_words, list_words = LISTED[words.language]
        question = count_question(words, conditions)
        if table_words not in question:
            raise WordsMissing(f"no words for a count over a list in {words.language!r}")
        return question.replace(table_words, list_words, 1)
    if words.language in PHRASES:
        return _count_in(words, conditions)
    noun = words.noun() if words.language == "en" else words.noun_or(ROWS_FR)
    phrase = condition_phrase(words, conditions)
    if words.language == "fr":
        return (
            f"D'après le tableau, combien {fr_de(fr_plural(noun.text))} y a-t-il"
            + (f" {phrase}" if phrase else "")
            + " ?"
        )
    return f"According to the table, how many {plural(noun.text)} are there {phrase}?"


AGG_EN = {
    "mean": "average",
    "median": "median",
    "sum": "total",
    "min": "smallest",
    "max": "largest",
}
AGG_FR = {
    "mean": "moyenne",
    "median": "médiane",
    "sum": "somme",
    "min": "valeur minimale",
    "max": "valeur maximale",
}


def aggregate_question(
    words: Words, aggregate: str, field: str, conditions: Sequence[tuple[str, str, str]]
) -> str:
    """The mean / total / smallest / largest value of a field over the rows shown."""
    if words.language in PHRASES:
        return _aggregate_in(words, aggregate, field, conditions)
    noun = words.noun() if words.language == "en" else words.noun_or(ROWS_FR)
    label = words.label(field)
    phrase = condition_phrase(words, conditions)
    rounding = f", {ROUND_NOTE[words.language]}" if aggregate in ("mean", "median") else ""
    if words.language == "fr":
        subject = f"des {fr_plural(noun.text)}" + (f" {phrase}" if phrase else "")
        return (
            f"D'après le tableau, quelle est la {AGG_FR[aggregate]} {_fr_of_the(label)} "
            f"{subject}{rounding} ?"
        )
    subject = f"the {plural(noun.text)}" + (f" {phrase}" if phrase else "")
    first = label.text.split()[0]
    what = label.text
    if first.endswith("s") and not first.endswith(("ss", "us", "is")):
        what = f"number of {label.text}"  # "the smallest number of events"
    if first.lower() in (AGG_EN[aggregate], "mean", "average", "total"):
        # A field named by an aggregate ("average blood pressure"): "the largest of the ..."
        what = f"of the {label.text}"
    return f"According to the table, what is the {AGG_EN[aggregate]} {what} of {subject}{rounding}?"


def classify_question(words: Words, answer_field: str, features: Sequence[tuple[str, str]]) -> str:
    """Which label has the record whose stated features are these."""
    if words.language in PHRASES:
        return _classify_in(words, answer_field, features)
    noun = words.noun()
    label = words.label(answer_field)
    if words.language == "fr":
        stated = [f"{_fr_the(words.label(f))} vaut {v}" for f, v in features]
        listed = ", ".join(stated[:-1]) + f" et {stated[-1]}" if len(stated) > 1 else stated[0]
        one = "d'une" if noun.gender == "f" else "d'un"
        return f"{_fr_which(label)} est {_fr_the(label)} {one} {noun.text} dont {listed} ?"
    stated = [f"{words.label(f).text} {v}" for f, v in features]
    listed = ", ".join(stated[:-1]) + f" and {stated[-1]}" if len(stated) > 1 else stated[0]
    return f"What is the {label.text} of {article(noun.text)} {noun.text} with {listed}?"


def via_noun(words: Words, field: str) -> Noun:
    """The noun a followed field names: "currency_code" names a currency.

    Raises :class:`WordsMissing` when the language has no word for it.
    """
    english = words.table.columns[field].labels["en"].split()
    if len(english) > 1 and english[-1] in ("code", "id", "key", "iso"):
        english = english[:-1]
    if words.language == "en":
        return Noun(" ".join(english), "n")
    try:
        return words.label(field)
    except WordsMissing:
        found = lexicon_noun(" ".join(english), words.language)
        if found is None:
            raise
        return found


def hop_question(
    words: Words, vias: Sequence[Noun], answer: Noun, key: str, *, counts: bool = False
) -> str:
    """What is the answer of the record the ``vias`` lead to from the record ``key``.

    ``vias`` are the nouns of the fields followed, first to last: "What is the name of
    the currency of the country of the bridge Tower Bridge?" ("Quel est le nom de la
    monnaie du pays du pont Tower Bridge ?").
    """
    if words.language in PHRASES:
        return _hop_in(words, vias, answer, key)
    noun = words.noun()
    if words.language == "fr":
        said = list(vias)
        if said and said[-1].text in answer.text:  # "le code de la monnaie" says the currency
            said = said[:-1]
        chain = "".join(f" {_fr_of_the(v)}" for v in reversed(said))
        return f"{_fr_which(answer)} est {_fr_the(answer)}{chain} {_fr_of_the(noun)} {key} ?"
    phrases = [v.text for v in vias]
    # "currency name" of "the currency" -> "the name of the currency".
    answer_label = answer.text
    answer_words = answer_label.split()
    if len(answer_words) > 1 and answer_words[0] == phrases[-1].split()[0]:
        answer_label = " ".join(answer_words[1:])
    asks = "Who" if _person(answer_label) else "What"
    chain = " of the ".join(reversed(phrases))
    if counts:
        return f"How many {answer_label} does the {chain} of the {noun.text} {key} have?"
    return f"{asks} is the {answer_label} of the {chain} of the {noun.text} {key}?"


NAME_IN = {
    "de": "Name auf {}",
    "es": "nombre en {}",
    "it": "nome in {}",
    "nl": "naam in het {}",
    "pt": "nome em {}",
}
"""A record's name in a language, said after the record ("nombre en sueco")."""


def named_in_question(words: Words, answer: Noun, noun: Noun, key: str, language_name: str) -> str:
    """What is the answer of the record (``noun``) whose name in a language is ``key``.

    The first step of a chain from a table of names in many languages: "What is the capital
    of the country whose Swedish name is Tyskland?" ("Quelle est la capitale du pays dont le
    nom en suédois est Tyskland ?", "¿Cuál es la capital del siguiente país (nombre en
    sueco): Tyskland?"). ``language_name`` is the name's language in the item's language.
    """
    if words.language == "fr":
        return (
            f"{_fr_which(answer)} est {_fr_the(answer)} {_fr_of_the(noun)} dont le nom en "
            f"{language_name} est {key} ?"
        )
    if words.language in PHRASES and words.language in NAME_IN:
        grammar = GRAMMARS[words.language]
        record = grammar.of_the(noun, PHRASES[words.language].following)
        said = NAME_IN[words.language].format(language_name)
        phrase = f"{grammar.the(answer)} {record} ({said}): {key}"
        return _sentence(_ask(words, _english_of(answer, words.language), phrase))
    asks = "Who" if _person(answer.text) else "What"
    return f"{asks} is the {answer.text} of the {noun.text} whose {language_name} name is {key}?"


CALLED_IN = {
    "de": "Wie heißt {record}, auf {language}?",
    "es": "¿Cómo se llama en {language} {record}?",
    "it": "Come si chiama in {language} {record}?",
    "nl": "Hoe heet in het {language} {record}?",
    "pt": "Como se chama em {language} {record}?",
}
"""What a record described by a clause is called in a language."""


def called_in_question(words: Words, noun: Noun, key_field: str, key: str, language: str) -> str:
    """What is the record (``noun``) whose ``key_field`` is ``key`` called in a language.

    The end of a chain to a table of names in many languages: "What is the country whose
    capital is Warsaw called in Polish?" ("Comment s'appelle en polonais le pays dont la
    capitale est Varsovie ?", "Wie heißt das Land, dessen Hauptstadt Warschau ist, auf
    Polnisch?"). ``language`` is that language's name in the item's language.
    """
    every = [(key_field, "==", key)]
    if words.language in CALLED_IN and words.language in PHRASES:
        record = GRAMMARS[words.language].the(noun) + _whose(words, every, noun)
        return CALLED_IN[words.language].format(record=record, language=language)
    if words.language == "fr":
        return f"Comment s'appelle en {language} {_fr_the(noun)} {condition_phrase(words, every)} ?"
    return f"What is the {noun.text} {condition_phrase(words, every)} called in {language}?"


def report_question(
    words: Words,
    field: str,
    direction: str,
    names: Sequence[str],
    vias: Sequence[Noun],
    answer: Noun,
    *,
    open_book: bool,
) -> str:
    """A ranking, then what to answer with: a field of the record ranked first.

    "Which of these countries has the largest area: Thailand, Vietnam or Indonesia? Answer
    with the capital of that country." ("Gesucht ist die Hauptstadt des betreffenden
    Landes.", "Responda con la capital del país en cuestión."). ``vias`` are the nouns of
    the joins followed from that record, first to last ("the name of the currency of that
    country").
    """
    ranked = rank_question(words, field, direction, names, open_book=open_book)
    said = list(vias)
    language = words.language
    if language in PHRASES:
        phrases = PHRASES[language]
        grammar = GRAMMARS[language]
        if said and said[-1].text in answer.text:  # "el código de la moneda" says the currency
            said = said[:-1]
        noun = words.noun_or(None) or words.rows()
        before, _, after = phrases.report[1].partition("|")
        record = grammar.of_the(noun, before) + (f" {after}" if after else "")
        chain = "".join(f" {grammar.of_the(v)}" for v in reversed(said))
        value = f"{grammar.the(answer)}{chain} {record}"
        return f"{ranked} {phrases.report[0].format(value=value)}"
    if language == "fr":
        if said and said[-1].text in answer.text:
            said = said[:-1]
        noun = words.noun_or(None) or ROWS_FR
        vowel = noun.text[:1].lower() in "aeiouéèêàâîôûh"
        this = "cette" if noun.gender == "f" else ("cet" if vowel else "ce")
        chain = "".join(f" {_fr_of_the(v)}" for v in reversed(said))
        return f"{ranked} Répondez par {_fr_the(answer)}{chain} de {this} {noun.text}."
    phrases_en = [v.text for v in said]
    label = answer.text
    label_words = label.split()
    if phrases_en and len(label_words) > 1 and label_words[0] == phrases_en[-1].split()[0]:
        label = " ".join(label_words[1:])  # "currency name" of "the currency": "the name"
    chain = "".join(f" of the {p}" for p in reversed(phrases_en))
    return f"{ranked} Answer with the {label}{chain} of that {words.noun().text}."


# ----------------------------------------------------------- German, Spanish, Italian, Dutch,
# Portuguese: the templates of :mod:`~benchsmith.programs.phrases`, nouns put in place by
# :mod:`~benchsmith.programs.grammar`.


def _sentence(text: str) -> str:
    """The question with its first letter capitalised ("¿qué país ..." -> "¿Qué país ...")."""
    first = next((i for i, c in enumerate(text) if c.isalpha()), 0)
    return text[:first] + text[first : first + 1].upper() + text[first + 1 :]


def _ask(words: Words, english: str, phrase: str) -> str:
    """What is ...? or, of a person field ("director"), Who is ...?."""
    return PHRASES[words.language].ask[_person(english)].format(phrase)


def _english_of(noun: Noun, language: str) -> str:
    """The English word the lexicon gives for a noun ("" when it has none)."""
    for english, known in LEXICON.get(language, {}).items():
        if known.text == noun.text:
            return english
    return ""


def _whose(words: Words, conditions: Sequence[tuple[str, str, str]], noun: Noun | None) -> str:
    """The conditions as relative clauses of one record (``noun``) or of several (None).

    "cuya población es superior a 50", ", deren Einwohnerzahl größer als 50 ist",
    "waarvan het continent Europa is"; empty when there are none.
    """
    phrases = PHRASES[words.language]
    grammar = GRAMMARS[words.language]
    parts = []
    for field, op, value in conditions:
        label = words.label(field)
        said = phrases.ops[op].format(v=value)
        if isinstance(grammar, German):  # the pronoun agrees with the records, the label is strong
            pronoun = phrases.relative[noun is None or noun.gender == "f"]
            parts.append(f"{pronoun} {grammar.form(label, 'strong')} {said}")
        elif words.language == "nl":
            parts.append(f"{phrases.relative[0]} {grammar.the(label)} {said}")
        else:  # cuyo / cuya, il cui / la cui agree with the label
            parts.append(f"{phrases.relative[label.gender == 'f']} {label.text} {said}")
    if not parts:
        return ""
    joined = _list(parts, words.language, both=True)
    return f", {joined}" if words.language == "de" else f" {joined}"


def _lookup_in(words: Words, key_field: str, key: str, answer_field: str) -> str:
    """A lookup: "Was ist die Hauptstadt des folgenden Landes: Frankreich?".

    The record's name stands after a colon, so no name needs an article or a case ending
    ("del siguiente país: Francia"); records without a noun are named after "of" ("von
    Nigel Mansell"), and a record named by another field is described ("del país cuyo
    código es FR").
    """
    table = words.table
    phrases = PHRASES[words.language]
    grammar = GRAMMARS[words.language]
    label = grammar.the(words.label(answer_field))
    english = table.columns[answer_field].labels["en"]
    named = key_field == table.key
    noun = words.noun_or(None)
    if noun is None and named and not table.columns[key_field].orderable:
        return _sentence(_ask(words, english, f"{label} {phrases.of_name} {key}"))
    noun = words.noun()
    if named:
        record = f"{grammar.of_the(noun, phrases.following)}: {key}"
    else:
        record = grammar.of_the(noun) + _whose(words, [(key_field, "==", key)], noun)
    return _sentence(_ask(words, english, f"{label} {record}"))


def _rank_kind(words: Words, field: str) -> str:
    """How a field is ranked: as a ``date``, a ``duration``, a ``magnitude`` or ``other``."""
    if holds_years(words.table, field):
        return "date"
    first = (words.table.columns[field].labels["en"].split() or [""])[0]
    if first in ("runtime", "duration"):
        return "duration"
    return "magnitude" if first in MAGNITUDES else "other"


def _ranked(words: Words, field: str, direction: str, two: bool) -> str:
    """The label with its comparative (two records) or superlative.

    "die Fläche am größten", "la mayor superficie", "la superficie maggiore (in km²)".
    """
    phrases = PHRASES[words.language]
    grammar = GRAMMARS[words.language]
    label = words.label(field)
    style, high, low = phrases.ranking.get(_rank_kind(words, field), phrases.ranking["other"])
    forms = (high if direction == "max" else low)[0 if two else 1].split("|")
    word = forms[-1] if label.gender == "f" else forms[0]
    if style == "after":
        return f"{grammar.the(label)} {word}"
    if style == "postfix":  # before a unit in brackets: "la popolazione maggiore (in milioni)"
        head, bracket, unit = grammar.the(label).partition(" (")
        return f"{head} {word}{bracket}{unit}"
    return f"{word} {label.text}" if two else grammar.the(label, word)


def _rank_in(
    words: Words, field: str, direction: str, names: Sequence[str], *, open_book: bool
) -> str:
    """A ranking: "Bei welchem Land ist die Fläche am größten: A, B oder C?".

    "¿Qué país tiene mayor población: A o B?"; without a record noun, the table's rows
    ("In welcher Zeile ...") or "which one" ("¿Cuál tiene ...?").
    """
    phrases = PHRASES[words.language]
    noun = words.noun_or(None)
    two = len(names) == 2
    if open_book:
        template = phrases.rank_open if noun is not None else phrases.rank_rows
    else:
        template = phrases.rank if noun is not None else phrases.rank_bare
    which = GRAMMARS[words.language].which(noun) if noun is not None else ""
    return _sentence(
        template.format(
            which=which,
            ranked=_ranked(words, field, direction, two),
            names=_list(names, words.language),
            several=phrases.several[not two],
        )
    )


def _many(words: Words) -> Noun:
    """The record noun for counting: the rows of the table when its plural is not known."""
    noun = words.noun_or(None)
    if noun is None or not GRAMMARS[words.language].plural(noun):
        return words.rows()
    return noun


def _count_in(words: Words, conditions: Sequence[tuple[str, str, str]]) -> str:
    """A count: "Wie viele Länder gibt es laut der Tabelle, deren Einwohnerzahl ... ist?"."""
    phrases = PHRASES[words.language]
    noun = _many(words)
    return _sentence(
        phrases.count.format(
            many=phrases.many[noun.gender == "f"],
            nouns=GRAMMARS[words.language].plural(noun),
            whose=_whose(words, conditions, None),
        )
    )


def _aggregate_in(
    words: Words, aggregate: str, field: str, conditions: Sequence[tuple[str, str, str]]
) -> str:
    """An aggregate: "Según la tabla, ¿cuál es la media de la población de los países ...?".

    German says the aggregate as an adjective ("die durchschnittliche Einwohnerzahl").
    """
    phrases = PHRASES[words.language]
    grammar = GRAMMARS[words.language]
    label = words.label(field)
    if words.language == "de":
        kind = "magnitude" if _rank_kind(words, field) == "magnitude" else ""
        said = phrases.aggregates.get(f"{aggregate} {kind}", phrases.aggregates[aggregate])
        value = grammar.the(label, said)
    else:
        value = f"{phrases.aggregates[aggregate]} {grammar.of_the(label)}"
    return _sentence(
        phrases.aggregate.format(
            value=value,
            of_nouns=grammar.of_the_plural(_many(words)),
            whose=_whose(words, conditions, None),
            rounding=f", {phrases.rounding}" if aggregate in ("mean", "median") else "",
        )
    )


def _classify_in(words: Words, answer_field: str, features: Sequence[tuple[str, str]]) -> str:
    """A classification: "Was ist die Herkunft eines Autos mit den folgenden Werten: ...?"."""
    phrases = PHRASES[words.language]
    grammar = GRAMMARS[words.language]
    stated = [f"{words.label(f).text} {v}" for f, v in features]
    phrase = (
        f"{grammar.the(words.label(answer_field))} {grammar.of_a(words.noun())} "
        f"{phrases.values}: {_list(stated, words.language, both=True)}"
    )
    return _sentence(_ask(words, words.table.columns[answer_field].labels["en"], phrase))


def _hop_in(words: Words, vias: Sequence[Noun], answer: Noun, key: str) -> str:
    """A chain of records: "¿Cuál es el nombre de la moneda del país del siguiente puente: X?"."""
    grammar = GRAMMARS[words.language]
    said = list(vias)
    if said and said[-1].text in answer.text:  # "el código de la moneda" says the currency
        said = said[:-1]
    chain = "".join(f" {grammar.of_the(v)}" for v in reversed(said))
    record = grammar.of_the(words.noun(), PHRASES[words.language].following)
    phrase = f"{grammar.the(answer)}{chain} {record}: {key}"
    return _sentence(_ask(words, _english_of(answer, words.language), phrase))
