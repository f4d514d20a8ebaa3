"""Execution: run a specialized plan's tools in order and assemble the item.

Each step's string parameters get their placeholders filled (``{question}``, ``{answer}``,
``{record.FIELD}``), its ranged parameters the orchestration's values (integers rounded
where the tool takes integers), and its input the record's media field or the previous
step's output. Tools write into the slot's scratch folder; the final image/audio is moved
into the benchmark's ``media/`` under the item's id, so ``media/`` holds exactly what items
refer to. Every step's provenance becomes the item's transformation trace.
"""

from __future__ import annotations

import os
import random
import shutil
from functools import cache
from pathlib import Path
from typing import Any

from benchsmith import difficulty as predicted
from benchsmith.agents.orchestration import (
    SYNTHESIS_TOOLS,
    TemplateMissingError,
    fallback_decision,
)
from benchsmith.agents.plans import PLACEHOLDER
from benchsmith.agents.templates import answer_field_for, instruction
from benchsmith.catalog.cards import field_value, value_text
from benchsmith.errors import ToolParamError
from benchsmith.files import atomic_path
from benchsmith.item import NUMERIC_TOLERANCE, AudioPart, ImagePart, Item, Message, TextPart
from benchsmith.spec import Grounding, Subtask
from benchsmith.state import Draft, SampleDecision
from benchsmith.tools.context import ToolContext, stable_seed
from benchsmith.tools.media import measure_audio, measure_image
from benchsmith.tools.registry import file_record, get_tool, run_tool

MAX_POOL = 64
"""Most distractor candidates handed to ``make_multiple_choice``: a seeded sample of the
field's values, from which the tool draws its few distractors uniformly, so a larger pool
picks from the same distribution. The pool travels in the item's tool trace (its
provenance): 500 values made every item's record and checks about ten times heavier."""

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp"}
AUDIO_SUFFIXES = {".wav", ".mp3", ".ogg", ".flac", ".m4a"}


def media_kind(path: str | os.PathLike[str]) -> str | None:
    """``image``, ``audio`` or None, from a file's suffix."""
    suffix = Path(path).suffix.lower()
    if suffix in IMAGE_SUFFIXES:
        return "image"
    if suffix in AUDIO_SUFFIXES:
        return "audio"
    return None


def fill(value: Any, question: str, answer: str, record: dict[str, Any]) -> Any:
    """Fill the placeholders of a string parameter (other values are returned as they are)."""
    if not isinstance(value, str):
        return value

    def one(match: Any) -> str:
        name = match.group(1)
        if name == "question":
            return question
        if name == "answer":
            return answer
        return value_text(field_value(record, name.removeprefix("record.")))

    return PLACEHOLDER.sub(one, value)


@cache
def _properties(tool: str) -> dict[str, Any]:
    return get_tool(tool).parameters_schema().get("properties", {})


def coerce_params(tool: str, params: dict[str, Any]) -> dict[str, Any]:
    """Round values the tool takes as integers (ranges are numbers, some tools want ints)."""
    props = _properties(tool)
    out = dict(params)
    for key, value in params.items():
        kind = props.get(key, {}).get("type")
        if kind == "integer" and isinstance(value, float):
            out[key] = int(round(value))
    return out


def distractor_pool(
    values: list[str], answer: str, seed: int, slot_id: str, limit: int = MAX_POOL
) -> list[str]:
    """Other values of the answer field (a seeded sample), the answer itself excluded.

    Args:
        values: The field's distinct values as text (see :func:`distinct_texts`).
        answer: The item's answer.
        seed: The run seed.
        slot_id: The slot (the sample differs per slot).
        limit: Most candidates returned.
    """
    key = answer.casefold()
    if len(values) > limit + 1:
        rng = random.Random(stable_seed(seed, slot_id, "pool"))
        picked = rng.sample(values, limit + 1)
    else:
        picked = list(values)
    return [v for v in picked if v.casefold() != key][:limit]


def distinct_texts(values: list[Any]) -> list[str]:
    """A field's values as distinct, non-empty texts (first occurrence order)."""
    seen: set[str] = set()
    out = []
    for value in values:
        text = value_text(value)
        if text and text.casefold() not in seen:
            seen.add(text.casefold())
            out.append(text)
    return out


def source_entry(path: Path, ctx: ToolContext) -> dict[str, Any]:
    """The trace entry of a dataset file used as it is (measured like a tool output)."""
    kind = media_kind(path)
    measured = (
        measure_image(path, ctx.limits) if kind == "image" else measure_audio(path, ctx.limits)
    )
    record = file_record(path)
    return {
        "step": -1,
        "tool": "source_file",
        "params": {},
        "inputs": [path.name],
        "outputs": [{"sha256": record.sha256, "bytes": record.bytes}],
        "measured": measured,
    }


def template_difficulty(
    design_label: str, answer: str, choices: list[str] | None
) -> dict[str, Any]:
    """The ``difficulty_model`` of a template item (:mod:`benchsmith.difficulty`).

    What is known of a record's item is its number of options and, when the answer and
    the choices are numbers, how close the nearest wrong one is: then both are scored.
    Otherwise the subtask's design label is kept (``source: "design label"``), with the
    number of options recorded.
    """
    params: dict[str, Any] = {"options": len(choices) if choices else 0}
    value = predicted.number(answer)
    if choices and value is not None:
        wrong = [predicted.number(c) for c in choices if c.casefold() != answer.casefold()]
        numbers = [w for w in wrong if w is not None]
        if numbers and len(numbers) == len(wrong):
            params["gap"] = predicted.relative_gap(value, numbers)
            return predicted.model(params)
    return predicted.from_design_label(design_label, params)


def execute(
    slot: dict[str, Any],
    subtask: Subtask,
    grounding: Grounding,
    record: dict[str, Any],
    decision: SampleDecision,
    *,
    bench_dir: Path,
    work_dir: Path,
    seed: int,
    answer_values: list[str],
    tool_context: ToolContext,
) -> Draft:
    """Run the plan for one slot and build its item.

    Args:
        slot: The slot (``id``, ``item_id``, ``language``, ...).
        subtask: Its subtask.
        grounding: Its grounding.
        record: The raw record (media fields as absolute paths).
        decision: The orchestration's question and parameter values.
        bench_dir: The benchmark folder (final media go to ``bench_dir/media``).
        work_dir: Scratch folder of this slot (tools write here).
        seed: The run seed.
        answer_values: Distinct texts of the answer field across the dataset (the
            distractor pool, from :func:`distinct_texts`).
        tool_context: Context with the run's limits, allowed roots and records.

    Returns:
        The draft item.

    Raises:
        ToolError: A tool refused its parameters or input, or missed its post-condition.
    """
    # The answer in the item's language, where the dataset translates it ("Wien" in German).
    answer_field = answer_field_for(grounding, slot.get("language"))
    answer = value_text(field_value(record, answer_field))
    if not answer:
        raise ToolParamError(f"record has no value in the answer field {answer_field!r}")
    question = decision.question
    ctx = slot_context(tool_context, work_dir, seed, slot["id"])
    current: Path | None = None
    currents: dict[str, Path] = {}  # the latest image and audio file
    trace: list[dict[str, Any]] = []
    choices: list[str] | None = None
    target = answer
    spoken_or_rendered = False
    clean_speech: Path | None = None
    rendered_image: Path | None = None
    spoken_text: str | None = None
    for index, step in enumerate(grounding.plan):
        spec = get_tool(step.tool)
        params = {k: fill(v, question, answer, record) for k, v in step.params.items()}
        params.update(decision.params.get(index, {}))
        if step.tool == "make_multiple_choice" and "pool" not in params:
            params["pool"] = distractor_pool(answer_values, answer, seed, slot["id"])
        params = coerce_params(step.tool, params)
        inputs: list[Path] = []
        if step.input_field:
            media = field_value(record, step.input_field)
            if not isinstance(media, str) or not media:
                raise ToolParamError(f"record has no file in field {step.input_field!r}")
            inputs = [Path(media)]
        elif spec.inputs.max >= 1 and spec.inputs.kind in currents:
            # The latest file of the kind this tool takes (an omni item keeps its image
            # while its question is spoken, and the reverse).
            inputs = [currents[spec.inputs.kind]]
        elif spec.inputs.max >= 1 and spec.inputs.kind == "any" and current is not None:
            inputs = [current]
        result = run_tool(step.tool, params, inputs, ctx)
        entry = trace_entry(index, step.tool, result)
        if "pool" in result.provenance.params:
            entry["params"]["pool_size"] = len(result.provenance.params["pool"] or [])
        trace.append(entry)
        synthesis = step.tool in SYNTHESIS_TOOLS and "{question}" in str(
            step.params.get("text", "")
        )
        if synthesis:
            spoken_or_rendered = True
        if result.outputs:
            current = work_dir / result.outputs[0]
            produced = media_kind(current)
            if produced is not None:
                currents[produced] = current
            if synthesis and step.tool == "tts_speak":
                clean_speech, spoken_text = current, str(params.get("text", ""))
            elif synthesis and step.tool == "image_text":
                rendered_image = current
        if step.tool == "make_multiple_choice":
            choices = list(result.values["choices"])
            target = str(result.values["target"])
    # A dataset image/audio no tool touched is used as it is.
    for wanted in (m for m in subtask.input_modalities if m in ("image", "audio")):
        if wanted in currents:
            continue
        for value in record.values():
            if isinstance(value, str) and media_kind(value) == wanted and Path(value).is_file():
                currents[wanted] = Path(value)
                trace.append(source_entry(currents[wanted], tool_context))
                break
    item_id = slot["item_id"]
    kinds = [k for k in ("image", "audio") if k in currents]
    if kinds:
        parts: list[TextPart | ImagePart | AudioPart] = []
        spoken = spoken_or_rendered and "audio" in kinds
        text = question
        if spoken_or_rendered:
            delivery = "audio" if spoken else kinds[0]
            found = instruction(delivery, slot.get("language"))
            if found is None:
                raise TemplateMissingError(
                    f"no {delivery} instruction in language {slot.get('language')}; "
                    "items in it cannot be shown next to their media"
                )
            text = found
        parts.append(TextPart(text=text))
        parts += place_media(currents, kinds, bench_dir, item_id)
        item_input: str | list[Message] = [Message(role="user", content=parts)]
    else:
        item_input = question
    modalities = ["text", *kinds]
    difficulty = template_difficulty(subtask.difficulty, answer, choices)
    metadata = {
        "subtask": subtask.id,
        "subtask_name": subtask.name,
        "answer_format": subtask.answer_format,
        "modalities": modalities,
        "difficulty": difficulty["label"],
        "skills": list(subtask.skills),
        # A slot without a language is worded from the English template (``template_for``).
        "language": slot.get("language") or "en",
        "question": question,
        "answer": answer,
        "wording": decision.wording,
        "template": decision.template,
        **(
            {"rewording_rejected": decision.rewording_rejected}
            if decision.rewording_rejected
            else {}
        ),
        **({"spoken_text": spoken_text} if spoken_text is not None else {}),
        "source": {
            "dataset": grounding.dataset_id,
            "record_index": slot["record_index"],
            "grounding": grounding.id,
            "question_field": grounding.question_field,
            "answer_field": answer_field,
        },
        "trace": trace,
        "orchestration": {"source": decision.source, "note": decision.note[:300]},
        predicted.KEY: difficulty,
    }
    if subtask.answer_format == "numeric":
        metadata["tolerance"] = NUMERIC_TOLERANCE
    item = Item(id=item_id, input=item_input, choices=choices, target=target, metadata=metadata)
    shown = item.input_text()
    return Draft(
        item=item,
        question=question,
        answer=answer,
        trace=trace,
        clean_speech=clean_speech,
        rendered_image=rendered_image,
        shown_text=shown,
    )


def slot_context(tool_context: ToolContext, work_dir: Path, seed: int, slot_id: str) -> ToolContext:
    """The run's tool context for one slot: its scratch folder and its own seed."""
    return ToolContext(
        media_dir=work_dir,
        seed=stable_seed(seed, slot_id),
        limits=tool_context.limits,
        run_dir=tool_context.run_dir,
        offline=tool_context.offline,
        allowed_roots=tool_context.allowed_roots,
    )


def trace_entry(index: int, tool: str, result: Any) -> dict[str, Any]:
    """One step of an item's trace: the tool, its parameters and seed, files in and out."""
    return {
        "step": index,
        "tool": tool,
        "params": {k: v for k, v in result.provenance.params.items() if k != "pool"},
        "seed": result.provenance.seed,
        "inputs": [Path(r.path).name for r in result.provenance.inputs],
        "outputs": [{"sha256": r.sha256, "bytes": r.bytes} for r in result.provenance.outputs],
        "measured": result.provenance.measured,
    }


def speakable(prompt: str) -> str:
    """A program's prompt as it is read aloud: each table row a sentence of label and value.

    ``| Name | Population |`` over ``| France | 68000000 |`` is read "Name: France,
    Population: 68000000."; lines that are not a table are read as they are, one per line
    (a pause for the voice, a line for whoever reads the record of what was said).
    """
    out: list[str] = []
    header: list[str] | None = None
    for line in prompt.splitlines():
        text = line.strip()
        if not (text.startswith("|") and text.endswith("|")):
            header = None
            if text:
                out.append(text)
            continue
        cells = [c.strip() for c in text.strip("|").split("|")]
        if all(set(c) <= set("-: ") for c in cells):
            continue  # the rule under the header
        if header is None:
            header = cells
            continue
        pairs = [f"{h}: {c}" for h, c in zip(header, cells, strict=False) if c]
        out.append(", ".join(pairs) + ".")
    return "\n".join(out)


def media_for_text(
    text: str,
    grounding: Grounding,
    ranges: dict[tuple[int, str], Any],
    *,
    slot_id: str,
    item_id: str,
    language: str,
    bench_dir: Path,
    work_dir: Path,
    seed: int,
    tool_context: ToolContext,
    media: list[Path] | None = None,
) -> tuple[list[TextPart | ImagePart | AudioPart], list[dict[str, Any]], Path | None, Path | None]:
    """Run a grounding's media plan over a text: speak it or render it, then degrade it.

    Every ranged parameter is drawn with the slot's seed (``ranges`` from
    :func:`~benchsmith.agents.orchestration.slot_ranges`: a voice of the item's language).
    ``media``: the records' own files the item shows (a program over pictures); the steps
    that read a record field take them, a lone file no step reads is shown as it is, and the
    text stays written next to them.

    Returns:
        The item's content parts (the instruction in the item's language, then the media,
        moved into ``bench_dir/media``), the trace, the clean speech and the rendered image.

    Raises:
        ToolError: A tool refused its parameters or input.
        TemplateMissingError: No instruction is known for the item's language.
    """
    ctx = slot_context(tool_context, work_dir, seed, slot_id)
    # Every ranged parameter drawn with the slot's seed, as when no model chooses them.
    drawn = fallback_decision({"id": slot_id}, grounding, {}, ranges, seed, "", text).params
    currents: dict[str, Path] = {}
    trace: list[dict[str, Any]] = []
    clean_speech: Path | None = None
    rendered: Path | None = None
    for index, step in enumerate(grounding.plan):
        params = {k: fill(v, text, "", {}) for k, v in step.params.items()}
        params.update(drawn.get(index, {}))
        spec = get_tool(step.tool)
        if step.input_field:
            inputs = list(media or [])[: spec.inputs.max]
            if not inputs:
                raise ToolParamError(f"no record file in field {step.input_field!r} to show")
        else:
            inputs = [currents[spec.inputs.kind]] if spec.inputs.kind in currents else []
        result = run_tool(step.tool, coerce_params(step.tool, params), inputs, ctx)
        trace.append(trace_entry(index, step.tool, result))
        if result.outputs:
            current = work_dir / result.outputs[0]
            produced = media_kind(current)
            if produced is not None:
                currents[produced] = current
            if step.tool == "tts_speak":
                clean_speech = current
            elif step.tool == "image_text":
                rendered = current
    if media and not currents:  # the record's picture, shown as it is
        kind = media_kind(media[0])
        if kind is None or len(media) > 1:
            raise ToolParamError(f"the records' files {[m.name for m in media]} need a step")
        currents[kind] = media[0]
        trace.append(source_entry(media[0], tool_context))
    kinds = [k for k in ("image", "audio") if k in currents]
    if media:  # the question stays written; the pictures are the records
        parts: list[TextPart | ImagePart | AudioPart] = [TextPart(text=text)]
        return parts + place_media(currents, kinds, bench_dir, item_id), trace, None, None
    delivery = "audio" if "audio" in kinds else kinds[0]
    found = instruction(delivery, language)
    if found is None:
        raise TemplateMissingError(
            f"no {delivery} instruction in language {language}; items in it cannot be shown "
            "next to their media"
        )
    parts = [TextPart(text=found)]
    parts += place_media(currents, kinds, bench_dir, item_id)
    return parts, trace, clean_speech, rendered


def place_media(
    currents: dict[str, Path], kinds: list[str], bench_dir: Path, item_id: str
) -> list[TextPart | ImagePart | AudioPart]:
    """The item's media moved into ``bench_dir/media`` (named after the item), as parts."""
    parts: list[TextPart | ImagePart | AudioPart] = []
    for kind in kinds:
        source = currents[kind]
        final = bench_dir / "media" / f"{item_id}{source.suffix.lower()}"
        final.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(final) as tmp:
            shutil.copyfile(source, tmp)
        relative = final.relative_to(bench_dir).as_posix()
        if kind == "image":
            parts.append(ImagePart(image=relative))
        else:
            fmt = "mp3" if final.suffix == ".mp3" else "wav"
            parts.append(AudioPart(audio=relative, format=fmt))
    return parts
