"""The fixed words of question programs in German, Spanish, Italian, Dutch and Portuguese.

:mod:`~benchsmith.programs.wording` fills these templates with the table's words, put in
place (article, case, contraction) by :mod:`~benchsmith.programs.grammar`. A template's
slots: ``{which}`` "which" and the record noun, ``{ranked}`` the label with its comparative
or superlative, ``{names}`` the records compared, ``{many}`` "how many", ``{nouns}`` the
record noun in the plural, ``{whose}`` the conditions as relative clauses, ``{value}`` an
aggregate of the label, ``{of_nouns}`` "of the records", ``{rounding}`` the rounding note.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchsmith.programs.grammar import Noun

Ranking = tuple[str, tuple[str, str], tuple[str, str]]
"""How a language ranks a label: where the word goes ("after" the label with its article,
"postfix" before a unit in brackets, "before" the noun), then the words for ``max`` and for
``min``, each for two records and for more. "más antiguo|más antigua": masculine|feminine."""


@dataclass(frozen=True)
class Phrases:
    """The fixed words of one language's questions."""

    preamble: str
    """What an open-book prompt says before its table ("Answer using this table.")."""
    rounding: str
    """The note of a mean's rounding ("to two decimal places")."""
    ask: tuple[str, str]
    """A question about a thing and about a person: "Was ist {}?", "Wer ist {}?"."""
    following: str
    """ "following", said between "of the" and a record noun ("des folgenden Landes")."""
    of_name: str
    """ "of" before a record's name when the records have no noun ("von Frankreich")."""
    values: str
    """ "with the following values", before a classification's features."""
    conjunctions: tuple[str, str]
    """ "or" and "and"."""
    many: tuple[str, str]
    """ "how many" before a masculine and before a feminine plural."""
    count: str
    aggregate: str
    aggregates: dict[str, str]
    """The aggregate said of a label: a noun before "of the label" ("la media"), German an
    adjective before the label ("durchschnittliche"); ``min magnitude`` and ``max
    magnitude`` where a size is said otherwise ("kleinste", "größte")."""
    rank: str
    rank_open: str
    rank_rows: str
    """An open-book ranking when the records have no noun: "In welcher Zeile ..."."""
    rank_bare: str
    """A closed-book ranking when the records have no noun: "¿Cuál tiene ...: A o B?"."""
    several: tuple[str, str]
    """The records of a noun-less ranking: two ("beiden") and more ("folgenden")."""
    ranking: dict[str, Ranking]
    """By kind of label: ``date``, ``duration``, ``magnitude`` and ``other`` (the fallback)."""
    ops: dict[str, str]
    """A condition's comparison, ``{v}`` its value, in the word order of a relative clause."""
    relative: tuple[str, str]
    """ "whose" before a masculine and a feminine label (Spanish, Italian, Portuguese)."""
    rows: Noun
    """The noun of a table's rows, for records without a noun ("die Zeile")."""
    report: tuple[str, str]
    """After a ranking, what to answer with: ``{value}`` the field asked (with its article),
    then "of" the record ranked first, said with the second element: a word before the noun
    ("betreffenden": "des betreffenden Landes") or, after "|", a phrase after it ("|en
    cuestión": "del país en cuestión")."""


PHRASES: dict[str, Phrases] = {
    "de": Phrases(
        preamble="Antworten Sie anhand dieser Tabelle.",
        rounding="auf zwei Dezimalstellen gerundet",
        ask=("Was ist {}?", "Wer ist {}?"),
        following="folgenden",
        of_name="von",
        values="mit den folgenden Werten",
        conjunctions=("oder", "und"),
        many=("Wie viele", "Wie viele"),
        count="{many} {nouns} gibt es laut der Tabelle{whose}?",
        aggregate="Was ist laut der Tabelle {value} {of_nouns}{whose}{rounding}?",
        aggregates={
            "mean": "durchschnittliche",
            "median": "mediane",
            "sum": "gesamte",
            "min": "niedrigste",
            "max": "höchste",
            "min magnitude": "kleinste",
            "max magnitude": "größte",
        },  # fmt: skip
        rank="Bei {which} ist {ranked}: {names}?",
        rank_open="Bei {which} ist laut der Tabelle {ranked}?",
        rank_rows="In welcher Zeile ist laut der Tabelle {ranked}?",
        rank_bare="Bei welchem der {several} ist {ranked}: {names}?",
        several=("beiden", "folgenden"),
        ranking={
            "date": ("after", ("später", "am spätesten"), ("früher", "am frühesten")),
            "duration": ("after", ("länger", "am längsten"), ("kürzer", "am kürzesten")),
            "magnitude": ("after", ("größer", "am größten"), ("kleiner", "am kleinsten")),
            "other": ("after", ("höher", "am höchsten"), ("niedriger", "am niedrigsten")),
        },
        ops={
            "==": "{v} ist",
            "!=": "nicht {v} ist",
            "<": "kleiner als {v} ist",
            "<=": "höchstens {v} ist",
            ">": "größer als {v} ist",
            ">=": "mindestens {v} ist",
        },  # fmt: skip
        relative=("dessen", "deren"),
        rows=Noun("Zeile", "f", "Zeilen"),
        report=("Gesucht ist {value}.", "betreffenden"),
    ),
    "es": Phrases(
        preamble="Responda usando esta tabla.",
        rounding="redondeada a dos decimales",
        ask=("¿Cuál es {}?", "¿Quién es {}?"),
        following="siguiente",
        of_name="de",
        values="con los siguientes valores",
        conjunctions=("o", "y"),
        many=("cuántos", "cuántas"),
        count="Según la tabla, ¿{many} {nouns} hay{whose}?",
        aggregate="Según la tabla, ¿cuál es {value} {of_nouns}{whose}{rounding}?",
        aggregates={
            "mean": "la media",
            "median": "la mediana",
            "sum": "la suma",
            "min": "el valor mínimo",
            "max": "el valor máximo",
        },  # fmt: skip
        rank="¿{which} tiene {ranked}: {names}?",
        rank_open="Según la tabla, ¿{which} tiene {ranked}?",
        rank_rows="Según la tabla, ¿qué fila tiene {ranked}?",
        rank_bare="¿Cuál tiene {ranked}: {names}?",
        several=("", ""),
        ranking={
            "date": ("postfix", ("más reciente",) * 2, ("más antiguo|más antigua",) * 2),
            "other": ("before", ("mayor",) * 2, ("menor",) * 2),
        },
        ops={
            "==": "es {v}",
            "!=": "no es {v}",
            "<": "es inferior a {v}",
            "<=": "es como máximo {v}",
            ">": "es superior a {v}",
            ">=": "es como mínimo {v}",
        },  # fmt: skip
        relative=("cuyo", "cuya"),
        rows=Noun("fila", "f", "filas"),
        report=("Responda con {value}.", "|en cuestión"),
    ),
    "it": Phrases(
        preamble="Rispondi usando questa tabella.",
        rounding="arrotondata a due decimali",
        ask=("Qual è {}?", "Chi è {}?"),
        following="seguente",
        of_name="di",
        values="con i seguenti valori",
        conjunctions=("o", "e"),
        many=("quanti", "quante"),
        count="Secondo la tabella, {many} {nouns} ci sono{whose}?",
        aggregate="Secondo la tabella, qual è {value} {of_nouns}{whose}{rounding}?",
        aggregates={
            "mean": "la media",
            "median": "la mediana",
            "sum": "la somma",
            "min": "il valore minimo",
            "max": "il valore massimo",
        },  # fmt: skip
        rank="{which} ha {ranked}: {names}?",
        rank_open="Secondo la tabella, {which} ha {ranked}?",
        rank_rows="Secondo la tabella, quale riga ha {ranked}?",
        rank_bare="Quale ha {ranked}: {names}?",
        several=("", ""),
        ranking={
            "date": ("postfix", ("più recente",) * 2, ("più antico|più antica",) * 2),
            "other": ("postfix", ("maggiore",) * 2, ("minore",) * 2),
        },
        ops={
            "==": "è {v}",
            "!=": "non è {v}",
            "<": "è inferiore a {v}",
            "<=": "è al massimo {v}",
            ">": "è superiore a {v}",
            ">=": "è almeno {v}",
        },  # fmt: skip
        relative=("il cui", "la cui"),
        rows=Noun("riga", "f", "righe"),
        report=("Rispondi con {value}.", "|in questione"),
    ),
    "nl": Phrases(
        preamble="Beantwoord de vraag met behulp van deze tabel.",
        rounding="afgerond op twee decimalen",
        ask=("Wat is {}?", "Wie is {}?"),
        following="volgende",
        of_name="van",
        values="met de volgende waarden",
        conjunctions=("of", "en"),
        many=("Hoeveel", "Hoeveel"),
        count="{many} {nouns} zijn er volgens de tabel{whose}?",
        aggregate="Wat is volgens de tabel {value} {of_nouns}{whose}{rounding}?",
        aggregates={
            "mean": "het gemiddelde",
            "median": "de mediaan",
            "sum": "de som",
            "min": "de kleinste waarde",
            "max": "de grootste waarde",
        },  # fmt: skip
        rank="Bij {which} is {ranked}: {names}?",
        rank_open="Bij {which} is volgens de tabel {ranked}?",
        rank_rows="In welke rij is volgens de tabel {ranked}?",
        rank_bare="Bij welke van de {several} is {ranked}: {names}?",
        several=("twee", "volgende"),
        ranking={
            "date": ("after", ("later", "het meest recent"), ("eerder", "het vroegst")),
            "duration": ("after", ("langer", "het langst"), ("korter", "het kortst")),
            "magnitude": ("after", ("groter", "het grootst"), ("kleiner", "het kleinst")),
            "other": ("after", ("hoger", "het hoogst"), ("lager", "het laagst")),
        },
        ops={
            "==": "{v} is",
            "!=": "niet {v} is",
            "<": "kleiner is dan {v}",
            "<=": "hoogstens {v} is",
            ">": "groter is dan {v}",
            ">=": "minstens {v} is",
        },  # fmt: skip
        relative=("waarvan", "waarvan"),
        rows=Noun("rij", "c", "rijen"),
        report=("Antwoord met {value}.", "betreffende"),
    ),
    "pt": Phrases(
        preamble="Responda usando esta tabela.",
        rounding="arredondada a duas casas decimais",
        ask=("Qual é {}?", "Quem é {}?"),
        following="seguinte",
        of_name="de",
        values="com os seguintes valores",
        conjunctions=("ou", "e"),
        many=("quantos", "quantas"),
        count="De acordo com a tabela, {many} {nouns} há{whose}?",
        aggregate="De acordo com a tabela, qual é {value} {of_nouns}{whose}{rounding}?",
        aggregates={
            "mean": "a média",
            "median": "a mediana",
            "sum": "a soma",
            "min": "o valor mínimo",
            "max": "o valor máximo",
        },  # fmt: skip
        rank="{which} tem {ranked}: {names}?",
        rank_open="De acordo com a tabela, {which} tem {ranked}?",
        rank_rows="De acordo com a tabela, qual linha tem {ranked}?",
        rank_bare="Qual tem {ranked}: {names}?",
        several=("", ""),
        ranking={
            "date": ("postfix", ("mais recente",) * 2, ("mais antigo|mais antiga",) * 2),
            "other": ("before", ("maior",) * 2, ("menor",) * 2),
        },
        ops={
            "==": "é {v}",
            "!=": "não é {v}",
            "<": "é inferior a {v}",
            "<=": "é no máximo {v}",
            ">": "é superior a {v}",
            ">=": "é no mínimo {v}",
        },  # fmt: skip
        relative=("cujo", "cuja"),
        rows=Noun("linha", "f", "linhas"),
        report=("Responda com {value}.", "|em questão"),
    ),
}
"""The phrases of each language worded by template (English and French have their own code)."""
