"""Question templates: every item's default wording, built from the dataset card.

A template is a sentence in one language whose slots (``{name}``, ``{meta.title}``) name
record fields; filling it with a record gives the item's question, so the entity asked
about comes from the data, never from a model. The answer field is never a slot.

Candidates are made deterministically from the card and the chosen fields:

- a *concept* template when the answer field is a concept this module knows (a capital, a
  currency, a handwritten digit, ...), written by hand in several languages;
- a *generic* English template made from the answer field's semantics ("What is the
  capital city of {name}?").

The grounding role picks one candidate (an enum) or proposes its own text, which is kept
only when it passes the reviewer checks (:func:`template_problems`). A language that has no
template passing them is reported and dropped, never filled with another language's text.

The text shown next to media that carry the question (a recording, a rendered question)
is an instruction in the item's language (:data:`INSTRUCTIONS`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from benchsmith.catalog.cards import get_path, value_text
from benchsmith.files import package_json
from benchsmith.stemming import stems

STAND_IN = "Atlantis"
"""A proper name standing in for a slot value when a template is checked without data."""

SLOT = re.compile(r"\{([A-Za-z0-9_][A-Za-z0-9_.-]*)\}")
"""A template slot: ``{field}`` or ``{dotted.field}``."""

#: The text shown next to media that carry the question, per delivery and language.
INSTRUCTIONS: dict[str, dict[str, str]] = {
    "audio": {
        "en": "Listen to the recording and answer the question it asks.",
        "fr": "Écoutez l'enregistrement et répondez à la question posée.",
        "de": "Hören Sie sich die Aufnahme an und beantworten Sie die gestellte Frage.",
        "es": "Escuche la grabación y responda a la pregunta que se plantea.",
        "it": "Ascolta la registrazione e rispondi alla domanda che pone.",
        "pt": "Ouça a gravação e responda à pergunta que ela faz.",
        "nl": "Luister naar de opname en beantwoord de vraag die erin wordt gesteld.",
    },
    "image": {
        "en": "Read the question in the image and answer it.",
        "fr": "Lisez la question écrite dans l'image et répondez-y.",
        "de": "Lesen Sie die Frage im Bild und beantworten Sie sie.",
        "es": "Lea la pregunta escrita en la imagen y respóndala.",
        "it": "Leggi la domanda scritta nell'immagine e rispondi.",
        "pt": "Leia a pergunta escrita na imagem e responda a ela.",
        "nl": "Lees de vraag in de afbeelding en beantwoord die.",
    },
}


@dataclass(frozen=True)
class Concept:
    """A kind of answer this module can ask about in several languages.

    ``words`` are stems that identify the answer field (in its path or semantics);
    ``media`` is True for questions about the item's image or recording (no entity slot);
    templates use ``{q}`` for the question field's slot. The entity stands alone after a
    colon ("... of the following country: {q}?"), so no name needs an article ("the
    Netherlands") or a case ending the data cannot give.
    """

    name: str
    words: frozenset[str]
    templates: Mapping[str, str]
    media: bool = False
    forbid: frozenset[str] = field(default_factory=frozenset)
    subject: frozenset[str] = field(default_factory=frozenset)
    """Words one of which names the records (``country``): a template that says "the
    following country" never fires on states or films. Empty: any records."""


_DATA: dict[str, Any] = package_json("benchsmith.agents", "template_concepts.json")
"""The concepts' words and hand-written templates (``template_concepts.json``)."""

COUNTRY: str = _DATA["subjects"]["country"]
OTHER_RECORDS: str = _DATA["other_records"]
"""Words that name records other than countries (a country template does not fit them)."""


def _concept(entry: Mapping[str, Any]) -> Concept:
    """A concept from its data entry.

    Words are space-separated text; ``subject`` names one of the data's ``subjects``.
    """
    subject = _DATA["subjects"][entry["subject"]] if "subject" in entry else ""
    return Concept(
        entry["name"],
        frozenset(entry["words"].split()),
        entry["templates"],
        entry.get("media", False),
        frozenset(entry.get("forbid", "").split()),
        frozenset(subject.split()),
    )


#: Concepts, most specific first (the first whose words match the answer field wins).
CONCEPTS: tuple[Concept, ...] = tuple(_concept(entry) for entry in _DATA["concepts"])


# -- words ----------------------------------------------------------------------------------
def field_words(path: str, semantics: str = "") -> set[str]:
    """Stems that describe a field: its path's words and its semantics (before any example)."""
    sem = re.split(r"\b(?:e\.g\.|for example|such as)\b|:", semantics or "", maxsplit=1)[0]
    return set(stems(f"{path} {sem}"))


def concept_for(path: str, semantics: str = "") -> Concept | None:
    """The first concept whose words name the answer field (and whose forbidden words don't)."""
    words = field_words(path, semantics)
    path_words = set(stems(path))
    for concept in CONCEPTS:
        wanted = set(stems(" ".join(concept.words)))
        if wanted & words and not set(stems(" ".join(concept.forbid))) & path_words:
            return concept
    return None


# -- templates ------------------------------------------------------------------------------
def slots(template: str) -> list[str]:
    """The field paths a template's slots name, in order."""
    return SLOT.findall(template)


def fill(template: str, record: Mapping[str, Any]) -> str | None:
    """The template with every slot replaced by the record's value; None if one is empty."""
    missing = False

    def one(match: re.Match[str]) -> str:
        nonlocal missing
        text = value_text(get_path(dict(record), match.group(1)))
        if not text:
            missing = True
        return text

    out = SLOT.sub(one, template)
    return None if missing else " ".join(out.split())


def noun_phrase(path: str, semantics: str) -> str:
    """A short noun phrase for a field, from its semantics (else its name)."""
    sem = re.sub(r"\([^)]*\)", "", semantics or "")
    sem = re.split(r"[:;,]|\be\.g\.|\bfor example\b", sem, maxsplit=1)[0].strip(" .")
    sem = re.sub(r"^(the|a|an)\s+", "", sem, flags=re.I)
    words = sem.split()
    if not words or len(words) > 6:
        words = path.rsplit(".", 1)[-1].replace("_", " ").split()
    return " ".join(words).strip()


def _plural(noun: str) -> bool:
    """Whether an English noun phrase is plural (its last word: countries, codes, languages)."""
    last = (noun.split() or [""])[-1].lower()
    if last in {"data", "people", "children", "media", "criteria"}:
        return True
    return last.endswith("s") and not last.endswith(("ss", "us", "is", "ous"))


@dataclass
class Candidate:
    """One candidate template set (per language) for a grounding."""

    label: str
    templates: dict[str, str]
    source: str  # concept:<name> | generic | model

    def summary(self) -> str:
        """The English text (or the first language's) for prompts and reports."""
        return self.templates.get("en") or next(iter(self.templates.values()), "")


def candidates(
    *,
    question_field: str | None,
    answer_field: str,
    answer_semantics: str = "",
    has_media: bool = False,
    translations: Mapping[str, str] | None = None,
    records_about: str = "",
) -> list[Candidate]:
    """Template candidates for a (question field, answer field) pair, best first.

    Args:
        question_field: The record field the question names (None: the media carry it).
        answer_field: The field holding the answer (never a slot).
        answer_semantics: The answer field's semantics from the card.
        has_media: The dataset's own image or recording is shown with the question.
        translations: The question field's value in other languages (language code to
            the field holding it, from the card): a template in such a language names
            the entity in it ("Sahara occidental", not "Western Sahara").
        records_about: What names the records (the dataset's id and name, the question
            field): a concept whose subject none of its words name is not offered.
    """
    translations = translations or {}
    out: list[Candidate] = []
    concept = concept_for(answer_field, answer_semantics)
    if concept is not None and concept.subject and records_about:
        about = set(stems(records_about))
        named = about & set(stems(" ".join(concept.subject)))
        if not named and about & set(stems(OTHER_RECORDS)):
            concept = None  # "the following country" about states, films, ...
    if concept is not None and (concept.media == (question_field is None)):
        if concept.media and not has_media:
            concept = None
    elif concept is not None:
        concept = None
    if concept is not None:

        def slot(lang: str) -> str:
            if not question_field:
                return ""
            path = translations.get(lang) or translations.get(base_language(lang))
            return f"{{{path or question_field}}}"

        out.append(
            Candidate(
                label=f"concept-{concept.name}",
                templates={
                    lang: t.replace("{q}", slot(lang)) for lang, t in concept.templates.items()
                },
                source=f"concept:{concept.name}",
            )
        )
    noun = noun_phrase(answer_field, answer_semantics)
    # "bordering countries as ISO alpha-3 codes": the head noun takes the verb ("What are
    # the bordering countries"), the qualifier goes to the end of the sentence.
    parts = re.split(r"\s+(?=(?:as|in)\s)", noun, maxsplit=1)
    head, qualifier = parts[0], (parts[1] if len(parts) > 1 else "")
    verb = "are" if _plural(head) else "is"
    tail = f", {qualifier.strip()}" if qualifier.strip() else ""
    if question_field:
        generic = f"What {verb} the {head} of {{{question_field}}}{tail}?"
    elif has_media:
        generic = f"What {verb} the {head} in the image{tail}?"
    else:
        generic = ""
    # A concept's curated sentence is better than the generic one in every language it has:
    # the generic one only stands in where no concept fits.
    if generic and not any(c.templates.get("en") for c in out):
        out.append(Candidate(label="generic", templates={"en": generic}, source="generic"))
    return out


def template_problems(
    template: str,
    *,
    language: str,
    answer_field: str,
    fields: Iterable[str],
    check: Any = None,
    translations: Mapping[str, Mapping[str, str]] | None = None,
    data_language: str = "en",
) -> list[str]:
    """Why a template cannot be used (empty when it can).

    Its slots must name record fields other than the answer field, and a field the card
    translates (``translations``: field to language to the translating field) in the
    template's language, not its ``data_language`` value ("Quelle est la capitale du pays
    suivant : Western Sahara ?" mixes two languages). Filled with a stand-in
    proper name in every slot (so the template's own words are judged, not one record's
    values, which the executor checks item by item), it must pass the reviewer checks
    (``check(text, language, entity)`` returns the failure reasons; see
    :func:`benchsmith.verify.wording.wording_verdicts`).
    """
    problems = []
    known = set(fields)
    names = slots(template)
    for name in names:
        if name == answer_field:
            problems.append(f"slot {{{name}}} is the answer field")
        elif name not in known:
            problems.append(f"slot {{{name}}} names no field of the dataset")
        elif (translations or {}).get(name) and base_language(language) != base_language(
            data_language
        ):
            own = template_for(translations[name], language)  # type: ignore[index]
            problems.append(
                f"slot {{{name}}} holds {data_language} text in a {language} template"
                + (f"; use {{{own}}}" if own else f"; the dataset has no {language} {name}")
            )
    stray = SLOT.sub("", template)
    if "{" in stray or "}" in stray:
        problems.append("stray brace outside a slot")
    if problems or check is None:
        return problems
    text = " ".join(SLOT.sub(STAND_IN, template).split())
    return list(check(text, language, STAND_IN if names else None))


def base_language(code: str | None) -> str:
    """``pt-br`` -> ``pt``; None or empty -> ``en``."""
    return re.split(r"[-_]", (code or "en").strip().lower(), maxsplit=1)[0] or "en"


def template_for(templates: Mapping[str, str], language: str | None) -> str | None:
    """The template of a language (exact code first, then its base language)."""
    if not templates:
        return None
    lang = (language or "en").lower()
    return templates.get(lang) or templates.get(base_language(lang))


def instruction(delivery: str, language: str | None) -> str | None:
    """The instruction shown next to media carrying the question, in the item's language."""
    table = INSTRUCTIONS.get(delivery, {})
    return table.get((language or "en").lower()) or table.get(base_language(language))


def question_slot(
    templates: Mapping[str, str], language: str | None, question_field: str | None
) -> str | None:
    """The field whose value a language's question names (the entity the checks look for).

    The question field itself, or the field translating it that the language's template
    uses (``names.fr`` for French); None when the media carry the question.
    """
    if not question_field:
        return None
    names = slots(template_for(templates, language) or "")
    if not names or question_field in names:
        return question_field
    return names[0]


def answer_field_for(grounding: Any, language: str | None) -> str:
    """The field holding a grounding's answer in a language (``capital_names.fr``)."""
    fields = getattr(grounding, "answer_fields", None) or {}
    return template_for(fields, language) or grounding.answer_field


def language_bearing(info: Any) -> bool:
    """Whether a card field's values are words of a language (not numbers or codes only).

    Text, category and list fields are, unless every example the card shows is free of
    letters (digit labels "0" to "9").
    """
    if getattr(info, "modality", "text") not in ("text", "category", "json"):
        return False
    examples = list(getattr(info, "examples", None) or [])
    return not examples or any(re.search(r"[^\W\d_]", str(e)) for e in examples)
