"""Transformation plans: ordered tool steps with parameter ranges, checked against the registry.

No model picks a plan's tools: a question program's media plan
(:func:`benchsmith.agents.programs.media_plan`) takes them from the subtask's modality and
the intent's words ("spoken" reads the prompt aloud, "noisy" adds noise, "blurred" blurs a
record's picture). The steps' order, inputs and parameter ranges come from the table below,
whose ranges lie within what each tool accepts. :func:`validate_step` checks a step against
the tool's own parameter model, but no build or plan calls it now (the retired grounding
did): a step is checked when its tool runs (:func:`benchsmith.tools.registry.run_tool`).

String parameters may hold placeholders the executor fills per item: ``{question}`` (the
item's text). ``{answer}`` and ``{record.FIELD}`` still validate, but a media plan runs over
a computed item's text alone and fills them empty.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from benchsmith.errors import describe_validation_error
from benchsmith.spec import ParamRange, PlanStep, Subtask
from benchsmith.tools.registry import registry
from benchsmith.tools.tts import available_voices

PLACEHOLDER = re.compile(r"\{(question|answer|record\.[A-Za-z0-9_.]+)\}")

#: Degradation tools per media type, with their default parameter ranges.
DEGRADATIONS: dict[str, dict[str, dict[str, Any]]] = {
    "audio": {
        "audio_add_noise": {
            "ranges": {
                "snr_db": {"min": 0, "max": 20},
                "kind": {"choices": ["white", "pink", "babble"]},
            }
        },
        "audio_tempo": {"ranges": {"factor": {"min": 0.8, "max": 1.3}}},
        "audio_speed": {"ranges": {"factor": {"min": 0.85, "max": 1.2}}},
        "audio_gain": {"ranges": {"gain_db": {"min": -20, "max": 6}}},
    },
    "image": {
        "image_blur": {"ranges": {"radius": {"min": 1, "max": 4}}},
        "image_noise": {"ranges": {"sigma": {"min": 5, "max": 30}}},
        "image_jpeg": {"ranges": {"quality": {"min": 10, "max": 60}}},
        "image_rotate": {"ranges": {"degrees": {"min": -30, "max": 30}}},
        "image_occlude": {
            "params": {"position": "random"},
            "ranges": {"width": {"min": 0.1, "max": 0.3}, "height": {"min": 0.1, "max": 0.3}},
        },
        "image_grayscale": {},
        "image_resize": {
            "params": {"keep_aspect": True},
            "ranges": {
                "width": {"choices": [128, 224, 320]},
                "height": {"choices": [128, 224, 320]},
            },
        },
    },
}


#: The usual voice of a language whose espeak-ng voices are all regional.
PREFERRED_VOICES = {"en": "en-us", "zh": "cmn", "pt": "pt-br"}


def voices_for(languages: list[str]) -> list[str]:
    """espeak-ng voices for the requested languages (English when none is requested)."""
    known = sorted(available_voices().items())
    out = []
    for lang in languages or ["en"]:
        match = _best_voice(lang.lower(), known)
        if match:
            out.append(match)
    return out or ["en-us"]


def _best_voice(lang: str, known: list[tuple[str, str]]) -> str | None:
    """The voice named ``lang``, else one whose language is it, else a regional variant."""
    doubled = f"{lang}-{lang}"
    preferred = PREFERRED_VOICES.get(lang)
    for test in (
        lambda v, vl: v == preferred,
        lambda v, vl: v == lang,
        lambda v, vl: vl == lang,
        lambda v, vl: doubled in (v, vl),
        lambda v, vl: vl.startswith(lang + "-"),
    ):
        for voice, voice_lang in known:
            if test(voice, voice_lang):
                return voice
    return None


def build_plan(
    subtask: Subtask,
    *,
    dataset_modalities: list[str],
    media_field: str | None,
    answer_field: str,
    chosen_tools: list[str],
) -> list[PlanStep]:
    """Turn the chosen degradation tools into an ordered, parameterized plan.

    Args:
        subtask: The subtask the plan serves.
        dataset_modalities: What the dataset has (``text``, ``table``, ``image``, ``audio``).
        media_field: The record field holding the image/audio file, if any.
        answer_field: The record field holding the answer.
        chosen_tools: Degradation tools chosen from the intent's words (unknown ones are
            ignored).

    Returns:
        The steps: synthesis first (speech from text, text rendered on an image), then the
        chosen degradations, then multiple-choice construction when the format needs it (a
        media plan drops it: a program makes its own choices).
    """
    steps: list[PlanStep] = []
    for modality in subtask.input_modalities:
        if modality == "audio" and "audio" not in dataset_modalities:
            steps.append(
                PlanStep(
                    tool="tts_speak",
                    params={"text": "{question}"},
                    ranges={
                        "voice": ParamRange(choices=voices_for(subtask.languages)),
                        "rate": ParamRange(min=140, max=200),
                    },
                    purpose="speak the question",
                )
            )
        elif modality == "image" and "image" not in dataset_modalities:
            steps.append(
                PlanStep(
                    tool="image_text",
                    params={"text": "{question}"},
                    ranges={"font_size": ParamRange(min=20, max=36)},
                    purpose="render the question as an image",
                )
            )
        first_media_step = True
        for name in chosen_tools:
            spec = DEGRADATIONS.get(modality, {}).get(name)
            if spec is None:
                continue
            has_media = modality in dataset_modalities
            steps.append(
                PlanStep(
                    tool=name,
                    params=dict(spec.get("params", {})),
                    ranges={k: ParamRange(**v) for k, v in spec.get("ranges", {}).items()},
                    input_field=media_field if (has_media and first_media_step) else None,
                    purpose=f"degrade the {modality}",
                )
            )
            first_media_step = False
    if subtask.answer_format == "multiple_choice":
        steps.append(
            PlanStep(
                tool="make_multiple_choice",
                params={"question": "{question}", "answer": "{answer}", "n_choices": 4},
                purpose=f"distractors from the dataset's own {answer_field} values",
            )
        )
    return steps


def _sample_value(rng: ParamRange) -> Any:
    if rng.choices is not None:
        return rng.choices[0]
    return rng.min


def validate_step(step: PlanStep) -> list[str]:
    """Problems with a step: unknown tool, or parameters/ranges its tool would refuse."""
    tools = registry()
    if step.tool not in tools:
        return [f"unknown tool {step.tool!r}"]
    spec = tools[step.tool]
    props = spec.parameters_schema().get("properties", {})
    problems = []
    for key in [*step.params, *step.ranges]:
        if key not in props:
            problems.append(f"{step.tool}: no parameter {key!r}")
    if problems:
        return problems
    for key, rng in step.ranges.items():
        prop = props[key]
        lo, hi = prop.get("minimum"), prop.get("maximum")
        if rng.min is not None and (
            (lo is not None and rng.min < lo) or (hi is not None and rng.max > hi)
        ):
            problems.append(f"{step.tool}.{key}: range {rng.min}..{rng.max} outside {lo}..{hi}")
    # Check every end of every range (and the placeholders) with the tool's own model.
    trials: list[dict[str, Any]] = []
    base = {
        k: (PLACEHOLDER.sub("x", v) if isinstance(v, str) else v) for k, v in step.params.items()
    }
    base.update({k: _sample_value(r) for k, r in step.ranges.items()})
    trials.append(base)
    for key, rng in step.ranges.items():
        values = rng.choices if rng.choices is not None else [rng.min, rng.max]
        trials.extend({**base, key: v} for v in values)
    for trial in trials:
        try:
            spec.params.model_validate(trial)
        except ValidationError as exc:
            first = describe_validation_error(exc, limit=1)
            problems.append(f"{step.tool}: {first} (with {trial})")
            break
    return problems
