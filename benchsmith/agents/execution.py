"""Execution: run a grounding's media plan over an item's text, and place its media.

A computed item (a question program's or a reference's) is text; its grounding's plan may
speak it (``tts_speak``), render it (``image_text``) or show its records' own files, then
degrade what it made (noise, blur, ...). Each step's string parameters get their
placeholders filled (``{question}``), its ranged parameters a value drawn with the slot's
seed (a voice of the item's language), and its input the previous step's output or the
records' files. Tools write into the slot's scratch folder; the final image/audio is moved
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

from benchsmith.agents.instructions import instruction
from benchsmith.agents.plans import PLACEHOLDER
from benchsmith.errors import BenchsmithError, ToolParamError
from benchsmith.files import atomic_path
from benchsmith.item import AudioPart, ImagePart, TextPart
from benchsmith.spec import Grounding, ParamRange
from benchsmith.tools.context import ToolContext, stable_seed
from benchsmith.tools.media import measure_audio, measure_image
from benchsmith.tools.registry import file_record, get_tool, run_tool

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp"}
AUDIO_SUFFIXES = {".wav", ".mp3", ".ogg", ".flac", ".m4a"}


class InstructionMissingError(BenchsmithError):
    """No instruction is known for an item's language, so its media cannot be introduced."""


def media_kind(path: str | os.PathLike[str]) -> str | None:
    """``image``, ``audio`` or None, from a file's suffix."""
    suffix = Path(path).suffix.lower()
    if suffix in IMAGE_SUFFIXES:
        return "image"
    if suffix in AUDIO_SUFFIXES:
        return "audio"
    return None


def fill(value: Any, question: str) -> Any:
    """Fill the ``{question}`` placeholder of a string parameter (other values as they are).

    A computed item has no record of its own to quote: ``{answer}`` and ``{record.FIELD}``
    in a hand-written plan are left empty, never filled with the answer.
    """
    if not isinstance(value, str):
        return value
    return PLACEHOLDER.sub(lambda m: question if m.group(1) == "question" else "", value)


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


def draw_params(
    ranges: dict[tuple[int, str], ParamRange], seed: int, slot_id: str
) -> dict[int, dict[str, Any]]:
    """Every ranged parameter drawn with the slot's seed: a choice, or a point of the interval."""
    rng = random.Random(stable_seed(seed, slot_id, "fallback"))
    params: dict[int, dict[str, Any]] = {}
    for (index, name), prange in ranges.items():
        if prange.choices is not None:
            value: Any = rng.choice(prange.choices)
        else:
            assert prange.min is not None and prange.max is not None
            value = round(rng.uniform(prange.min, prange.max), 3)
        params.setdefault(index, {})[name] = value
    return params


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
    :func:`slot_ranges`: a voice of the item's language).
    ``media``: the records' own files the item shows (a program over pictures); the steps
    that read a record field take them, a lone file no step reads is shown as it is, and the
    text stays written next to them.

    Returns:
        The item's content parts (the instruction in the item's language, then the media,
        moved into ``bench_dir/media``), the trace, the clean speech and the rendered image.

    Raises:
        ToolError: A tool refused its parameters or input.
        InstructionMissingError: No instruction is known for the item's language.
    """
    ctx = slot_context(tool_context, work_dir, seed, slot_id)
    drawn = draw_params(ranges, seed, slot_id)
    currents: dict[str, Path] = {}
    trace: list[dict[str, Any]] = []
    clean_speech: Path | None = None
    rendered: Path | None = None
    for index, step in enumerate(grounding.plan):
        params = {k: fill(v, text) for k, v in step.params.items()}
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
        raise InstructionMissingError(
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
