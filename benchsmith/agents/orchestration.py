"""Orchestration agent: specialize a grounding's plan to one raw record.

The model writes the question for this record and picks every ranged tool parameter of the
plan. The schema is built at run time from the plan: a choice list becomes a ``Literal``
and an interval a bounded number, so no value outside the plan's ranges validates. The
answer is never the model's: it is the record's ``answer_field`` value, so the ground truth
comes from the data. When the model gives no valid decision, a deterministic fallback
(seeded parameters and a template question) is used and marked as such on the item.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from benchsmith.agents.templates import answer_field_for, question_slot, template_for
from benchsmith.agents.templates import fill as fill_template
from benchsmith.catalog.cards import field_value, value_text
from benchsmith.errors import BenchsmithError, StructuredOutputError
from benchsmith.llm.client import RoleModel
from benchsmith.prompts import render, untrusted
from benchsmith.spec import Grounding, ParamRange, Subtask
from benchsmith.state import SampleDecision
from benchsmith.tools.context import stable_seed
from benchsmith.verify.wording import failure_reasons, wording_verdicts

QUESTION_MAX_CHARS = 200
GRID_POINTS = 5
RECORD_VALUE_CHARS = 160

#: Tools that turn the question itself into media (the question is then heard or seen).
SYNTHESIS_TOOLS = {
    "tts_speak": "spoken aloud by a speech synthesizer",
    "image_text": "rendered as text in an image",
}


class TemplateMissingError(BenchsmithError):
    """The grounding has no question template for a slot's language (or it cannot fill)."""


def record_for_prompt(record: dict[str, Any], media_fields: set[str]) -> str:
    """The record as compact text for a prompt: long values cut, media paths as file names."""
    shown = {}
    for key, value in record.items():
        if key in media_fields and isinstance(value, str):
            shown[key] = f"<{key} file>"
            continue
        text = value_text(value)
        shown[key] = (
            text if len(text) <= RECORD_VALUE_CHARS else text[: RECORD_VALUE_CHARS - 1] + "…"
        )
    return "\n".join(f"{k}: {v}" for k, v in shown.items())


def _param_key(index: int, name: str) -> str:
    return f"s{index}_{name}"


def slot_ranges(
    grounding: Grounding, language: str | None, voices: dict[str, str] | None = None
) -> dict[tuple[int, str], ParamRange]:
    """The ranged parameters of a grounding's plan for a slot, keyed by (step, name).

    A ``voice`` choice is narrowed to the voices of the slot's language when it has any, so
    a French question is not read by an English voice.
    """
    out: dict[tuple[int, str], ParamRange] = {}
    for index, step in enumerate(grounding.plan):
        for name, rng in step.ranges.items():
            if name == "voice" and rng.choices and language and voices is not None:
                fitting = [v for v in rng.choices if _voice_fits(str(v), language, voices)]
                if fitting:
                    rng = ParamRange(choices=fitting)
            out[(index, name)] = rng
    return out


def _voice_fits(voice: str, language: str, voices: dict[str, str]) -> bool:
    lang = language.lower().split("-")[0]
    voice_lang = voices.get(voice, voice).lower()
    return voice_lang == lang or voice_lang.startswith(lang + "-") or voice.lower() == lang


def decision_schema(
    ranges: dict[tuple[int, str], ParamRange], *, reword: bool = True
) -> type[BaseModel]:
    """The pydantic model of the orchestration decision for these ranges (cached).

    Without ``reword`` it has no ``question`` field: the parameters only.
    """
    key = tuple((index, name, tuple(allowed_values(rng))) for (index, name), rng in ranges.items())
    return _decision_schema(key, reword)


@lru_cache(maxsize=256)
def _decision_schema(
    key: tuple[tuple[int, str, tuple[Any, ...]], ...], reword: bool
) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    if reword:
        fields["question"] = (
            str,
            Field(
                min_length=8,
                max_length=QUESTION_MAX_CHARS,
                description="The question the test-taker gets; it must not contain the answer.",
            ),
        )
    for index, name, values in key:
        fields[_param_key(index, name)] = (
            Literal[tuple(values)],  # type: ignore[valid-type]
            Field(description=f"{name}: one of {', '.join(map(str, values))}."),
        )
    return create_model("SampleDecision", **fields)


def allowed_values(rng: ParamRange) -> list[Any]:
    """The values a model may pick for a range: its choices, or an interval's grid.

    An interval becomes :data:`GRID_POINTS` evenly spaced values from min to max: a choice
    list is something every structured-output backend enforces (a server grammar obeys an
    enum but not a numeric minimum), so no value outside the plan can come back.
    """
    if rng.choices is not None:
        return list(dict.fromkeys(rng.choices))
    assert rng.min is not None and rng.max is not None
    if rng.min == rng.max:
        return [_tidy(rng.min)]
    step = (rng.max - rng.min) / (GRID_POINTS - 1)
    return list(dict.fromkeys(_tidy(rng.min + i * step) for i in range(GRID_POINTS)))


def _tidy(value: float) -> int | float:
    rounded = round(value, 3)
    return int(rounded) if float(rounded).is_integer() else rounded


def describe_range(index: int, name: str, rng: ParamRange) -> str:
    """A range as prompt text: ``s2_snr_db: one of 0, 5, 10, 15, 20``."""
    return f"{_param_key(index, name)}: one of {', '.join(map(str, allowed_values(rng)))}"


def delivery_note(grounding: Grounding) -> str:
    """How the question reaches the test-taker (spoken, rendered), for the prompt."""
    for step in grounding.plan:
        if step.tool in SYNTHESIS_TOOLS and "{question}" in str(step.params.get("text", "")):
            return f"The question will be {SYNTHESIS_TOOLS[step.tool]}."
    return ""


def template_question(
    grounding: Grounding, record: dict[str, Any], language: str | None
) -> str | None:
    """The grounding's template for the slot's language, filled with the record (or None)."""
    text = template_for(grounding.question_templates, language)
    return fill_template(text, record) if text else None


def fallback_decision(
    slot: dict[str, Any],
    grounding: Grounding,
    record: dict[str, Any],
    ranges: dict[tuple[int, str], ParamRange],
    seed: int,
    note: str,
    question: str,
) -> SampleDecision:
    """Seeded parameters and the template question (when the model gives nothing valid)."""
    rng = random.Random(stable_seed(seed, slot["id"], "fallback"))
    params: dict[int, dict[str, Any]] = {}
    for (index, name), prange in ranges.items():
        if prange.choices is not None:
            value: Any = rng.choice(prange.choices)
        else:
            assert prange.min is not None and prange.max is not None
            value = round(rng.uniform(prange.min, prange.max), 3)
        params.setdefault(index, {})[name] = value
    return SampleDecision(
        question=question, params=params, source="fallback", note=note, template=question
    )


def orchestrate(
    model: RoleModel | None,
    slot: dict[str, Any],
    subtask: Subtask,
    grounding: Grounding,
    record: dict[str, Any],
    *,
    seed: int,
    media_fields: set[str],
    voices: dict[str, str] | None = None,
    feedback: list[str] | None = None,
    reword: bool = True,
) -> SampleDecision:
    """Specialize the grounding's plan to one record.

    Args:
        model: The orchestration role's model (None: the deterministic fallback only).
        slot: The sample slot (``id``, ``language``, ...).
        subtask: Its subtask.
        grounding: Its grounding (dataset fields and plan).
        record: The raw record.
        seed: The run seed (for the fallback).
        media_fields: Record fields holding media paths (hidden from the prompt).
        voices: Voice name to language, to narrow voice choices to the slot's language.
        feedback: Reasons earlier attempts failed, given to the model to fix.
        reword: Ask the model for a rewording of the template question. Without it the
            model only chooses the parameters, and a plan with none makes no call.

    Returns:
        The question and the parameter values of every ranged step.
    """
    ranges = slot_ranges(grounding, slot.get("language"), voices)
    language = slot.get("language")
    template = template_question(grounding, record, language)
    if template is None:
        raise TemplateMissingError(
            f"no question template for language {language or 'en'} fills from this record "
            f"(templates: {', '.join(grounding.question_templates) or 'none'})"
        )
    if model is None:
        return fallback_decision(slot, grounding, record, ranges, seed, "no model", template)
    if not reword and not ranges:
        return SampleDecision(
            question=template,
            source="template",
            note="worded from the template; no parameter to choose",
            template=template,
        )
    schema = decision_schema(ranges, reword=reword)
    answer = value_text(field_value(record, answer_field_for(grounding, language)))
    prompt = render(
        "orchestrate",
        subtask_name=subtask.name,
        subtask_description=subtask.description,
        answer_format=subtask.answer_format,
        language=language or "",
        delivery=delivery_note(grounding),
        record=untrusted(record_for_prompt(record, media_fields), "dataset record"),
        answer_field=grounding.answer_field,
        answer=untrusted(answer, "answer"),
        template=template,
        params=[describe_range(i, n, r) for (i, n), r in ranges.items()],
        feedback=list(feedback or []),
        reword=reword,
    )
    try:
        decision: Any = model.structured(schema, [("user", prompt)])
    except StructuredOutputError as exc:
        return fallback_decision(
            slot, grounding, record, ranges, seed, f"model gave no valid decision: {exc}", template
        )
    params: dict[int, dict[str, Any]] = {}
    for index, name in ranges:
        params.setdefault(index, {})[name] = getattr(decision, _param_key(index, name))
    if not reword:
        return SampleDecision(question=template, params=params, source="model", template=template)
    reworded = re.sub(r"\s+", " ", decision.question).strip()
    # The entity as the language's template names it (a translated name, where the card
    # gives one).
    entity_field = question_slot(grounding.question_templates, language, grounding.question_field)
    entity = value_text(field_value(record, entity_field)) or None
    # The record's text too: a rewording may not echo an instruction a row carried.
    source = record_for_prompt(record, media_fields)
    problems = (
        failure_reasons(
            wording_verdicts(reworded, language, entity, answer=answer, source_text=source)
        )
        if reworded
        else ["empty"]
    )
    if reworded and reworded != template and not problems:
        return SampleDecision(
            question=reworded, params=params, source="model", wording="model", template=template
        )
    return SampleDecision(
        question=template,
        params=params,
        source="model",
        wording="template",
        template=template,
        rewording_rejected="" if reworded == template else "; ".join(problems)[:300],
    )
