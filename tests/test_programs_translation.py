"""An intent not in English, read through the reader's English translation, checked by code.

The reader is scripted (``Scripted``: a translation, or no valid reply); the real model's
figures are ``benchmarks/intent_slots.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_programs_reader_values import cars

from benchsmith.errors import StructuredOutputError
from benchsmith.programs.slots import read
from benchsmith.programs.translation import check, translate

SPANISH = (
    "Muestra siete coches y pregunta en cuántos de ellos la potencia rebasó los 150 caballos. "
    "En español."
)
ENGLISH = "Show seven cars and ask how many of them have more than 150 horsepower. In Spanish."


class Scripted:
    """A reader that translates as scripted (None: no valid reply) and answers the column."""

    def __init__(
        self, english: str | None, asked: str = "Horsepower", again: str | None = None
    ) -> None:
        self.english = english
        self.again = again
        self.asked = asked
        self.prompts: list[tuple[str, str]] = []

    def __call__(self, schema: Any, prompt: str) -> Any:
        self.prompts.append((schema.__name__, prompt))
        if schema.__name__ == "IntentInEnglish":
            second = sum(name == "IntentInEnglish" for name, _ in self.prompts) > 1
            english = self.again if second else self.english
            if english is None:
                raise StructuredOutputError("the reader gave no valid IntentInEnglish")
            return schema(english=english)
        return schema(answer=self.asked)


def read_cars(intent: str, reader: Scripted):
    table = cars()
    return read(intent, {table.id: table}, table.id, reader)


def test_a_checked_translation_is_what_the_rules_read():
    reader = Scripted(ENGLISH)
    reading = read_cars(SPANISH, reader)
    spec = reading.candidates[0].spec
    assert spec.kind == "count"
    assert [(c.field, c.op, c.value) for c in spec.conditions] == [("Horsepower", ">", 150.0)]
    assert reading.english == ENGLISH
    assert any("read through the reader's translation" in n for n in reading.notes)
    name, prompt = reader.prompts[0]
    assert name == "IntentInEnglish" and "<<<" in prompt and SPANISH in prompt  # fenced data


def test_without_a_translation_the_gloss_reads_the_intent():
    # The gloss cannot read "rebasó los 150": the bound is lost, and the rules read a lookup.
    reading = read_cars(SPANISH, Scripted(None))
    assert reading.english is None
    assert reading.candidates[0].spec.kind != "count"
    assert any("the reader gave no translation" in n for n in reading.notes)


def test_an_english_intent_is_not_translated():
    reader = Scripted("unused")
    reading = read_cars(ENGLISH, reader)
    assert [name for name, _ in reader.prompts if name == "IntentInEnglish"] == []
    assert reading.candidates[0].spec.kind == "count" and reading.english is None


def test_a_translation_keeps_the_names_the_intent_quotes_and_no_prompt_example():
    swedish = (
        "Ideia para um teste em duas etapas: o país aparece com o nome em sueco (por exemplo "
        '"Tyskland" ou "Förenade Arabemiraten") e o modelo tem de descobrir a capital. '
        "Pergunta tipo „Welcher Flughafen?“ e l'Europa."
    )
    faithful = (
        'A two-step test: the country appears with its Swedish name (for example "Tyskland" '
        'or "Förenade Arabemiraten") and the model must find its capital. A question like '
        '"Which airport?" and Europe.'
    )
    assert check(swedish, "pt", faithful) is None  # the quoted question may be translated
    dropped = faithful.replace('"Förenade Arabemiraten"', "the Emirates")
    assert check(swedish, "pt", dropped).startswith("it drops the quoted names ['Förenade")
    # the prompt's example with another number is still the prompt's
    example = "Show two countries and ask which one has the largest population."
    assert check(swedish, "pt", example) == "it repeats the prompt"


@pytest.mark.parametrize(
    ("english", "why"),
    [
        ("", "it is empty"),
        ("Translate the whole request into plain English.", "it repeats the prompt"),
        (SPANISH, "it is not English"),  # the intent echoed
        (ENGLISH.replace("150", "15"), "its numbers"),
        (ENGLISH.replace("seven", "7"), "its numbers"),  # a number the intent did not write
        # the prompt's own example given back
        (
            "Show five countries and ask which one has the largest population. In French.",
            "it repeats the prompt",
        ),
        (
            "Please provide a benchmark of 150 questions over a table. Do not carry it out.",
            "it leaves out what the gloss read",
        ),
    ],
)
def test_a_translation_that_fails_a_check_is_set_aside(english, why):
    reason = check(SPANISH, "es", english)
    assert reason is not None and reason.startswith(why), reason
    reading = read_cars(SPANISH, Scripted(english))
    assert reading.english is None
    assert any("translation set aside" in n for n in reading.notes), reading.notes


def test_digits_the_translation_writes_as_english_words_are_kept():
    # "Show five wines": the intent's 5 as a word; "which one" is no number added.
    intent = SPANISH.replace("siete", "7")
    english = ENGLISH.replace("seven cars", "seven cars, and ask which one")
    assert check(intent, "es", english) is None
    assert check(intent, "es", english.replace("seven", "six")).startswith("its numbers")
    assert check(intent, "es", english.replace("seven", "seven or 8")).startswith("its numbers")


def test_the_fence_lines_the_reader_copies_are_taken_off():
    copied = f"<<<UNTRUSTED request>>>\n{ENGLISH}\n<<<END UNTRUSTED>>"
    found = translate(SPANISH, Scripted(copied))
    assert found.english == ENGLISH


def test_a_dropped_acronym_sets_the_translation_aside():
    intent = "Zeig fünf Flughäfen mit ihrem IATA-Code und frag nach der Stadt. Auf Deutsch."
    assert check(intent, "de", "Show five airports and ask for the city. In German.")
    assert check(intent, "de", "Show five airports with their IATA code and ask for the city. "
                 "In German.") is None  # fmt: skip


def test_a_translation_whose_reading_finds_nothing_leaves_the_glossed_reading():
    # The translation keeps the Dutch "pk", which names no field: its reading is a refusal,
    # and the gloss ("pk" -> horsepower) reads the intent instead.
    intent = "Laat zeven auto's zien en vraag hoeveel daarvan meer dan 150 pk hebben. Nederlands."
    english = "Show seven cars and ask how many of them have more than 150 pk. Dutch."
    assert check(intent, "nl", english) is None
    reading = read_cars(intent, Scripted(english))
    spec = reading.candidates[0].spec
    assert reading.english is None
    assert spec.kind == "count" and spec.conditions[0].field == "Horsepower"
    # (set aside as it loses the horsepower the gloss names, or read and found wanting)
    assert any("the gloss reads the intent" in n or "set aside" in n for n in reading.notes)


LOOKUP = "Show seven cars and ask for the horsepower of one of them, of 150. In Spanish."
"""A translation that reads as the gloss does (a lookup of the horsepower)."""


@pytest.mark.parametrize(
    ("again", "kind"),
    [
        (LOOKUP, "lookup"),  # the second reads as the gloss: two of three, the second stands
        (ENGLISH, "count"),  # the second reads as the first: the translation stands
        (None, "count"),  # no second: the first translation stands
    ],
)
def test_a_second_translation_settles_a_disagreement_with_the_gloss(again, kind):
    reader = Scripted(ENGLISH, again=again)
    reading = read_cars(SPANISH, reader)
    prompts = [prompt for name, prompt in reader.prompts if name == "IntentInEnglish"]
    assert len(prompts) == 2 and prompts[0] != prompts[1]  # two wordings of the request
    assert reading.candidates[0].spec.kind == kind
    assert reading.english == (LOOKUP if kind == "lookup" else ENGLISH)


def test_a_translation_that_reads_as_the_gloss_asks_no_second():
    reader = Scripted(LOOKUP, again=ENGLISH)
    reading = read_cars(SPANISH, reader)
    assert [name for name, _ in reader.prompts].count("IntentInEnglish") == 1
    assert reading.english == LOOKUP and reading.candidates[0].spec.kind == "lookup"


PORTUGUESE_MEAN = (
    "Mostre sete carros e pergunte qual é a média da potência dos carros. Em português."
)


def test_a_translation_that_loses_the_mean_is_set_aside():
    # "a média da potência" read as "the highest horsepower": another program, set aside
    # twice, and the gloss (the mean) reads the intent.
    lost = "Show seven cars and ask which one has the highest horsepower. In Portuguese."
    reading = read_cars(PORTUGUESE_MEAN, Scripted(lost, again=lost))
    spec = reading.candidates[0].spec
    assert (spec.kind, spec.aggregate, spec.field) == ("aggregate", "mean", "Horsepower")
    assert reading.english is None
    assert any("leaves out ['averag']" in n or "leaves out ['mean']" in n for n in reading.notes)


def test_a_translation_that_loses_a_field_the_gloss_names_is_set_aside():
    intent = "Mostre sete carros e pergunte qual é a potência de um deles. Em português."
    lost = "Show seven cars and ask about the size of one of them. In Portuguese."
    kept = "Show seven cars and ask for the horsepower of one of them. In Portuguese."
    reader = Scripted(lost, again=kept)
    reading = read_cars(intent, reader)
    assert reading.english == kept
    assert any("leaves out ['Horsepower']" in n for n in reading.notes), reading.notes
    # The second wording is asked once, whatever the readings then disagree on.
    assert [name for name, _ in reader.prompts].count("IntentInEnglish") == 2


def test_a_gloss_that_ranks_then_reports_stands_over_a_translation_that_only_ranks():
    intent = (
        "Mostre cinco carros com a sua potência e pergunte qual é a origem do mais potente. "
        "Em português."
    )
    ranks = (
        "Show five cars with their horsepower and origin and ask which is the most powerful. "
        "In Portuguese."
    )
    reading = read_cars(intent, Scripted(ranks))
    spec = reading.candidates[0].spec
    assert (spec.kind, spec.field, spec.answer_field) == ("multihop", "Horsepower", "Origin")
    assert any("the gloss's stands" in n for n in reading.notes), reading.notes


def test_a_translation_that_loses_the_answers_form_is_set_aside():
    intent = (
        "Mostre sete carros e pergunte a potência de um deles. Resposta numérica, em português."
    )
    lost = "Show seven cars and ask for the horsepower of one of them. In Portuguese."
    kept = "Show seven cars and ask for the horsepower of one of them. Numeric answer, Portuguese."
    reading = read_cars(intent, Scripted(lost, again=kept))
    assert reading.english == kept
    assert reading.candidates[0].spec.answer_format == "numeric"
    assert any("numeric answer the gloss reads" in n for n in reading.notes), reading.notes
