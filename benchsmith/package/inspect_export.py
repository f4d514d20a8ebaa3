"""The Inspect AI export: a standalone ``inspect_task.py`` that runs every item of a folder.

The written file imports only ``inspect_ai`` and the standard library, so anyone can run the
benchmark without benchsmith installed, from any working directory:

    inspect eval BENCH/inspect_task.py --model openai/gpt-4o-mini [-T subtask=ID]
    inspect eval BENCH/inspect_task.py --model openai/gpt-4o-mini -T modality=text

It reads ``data/test.jsonl`` next to itself and turns each line into an
``inspect_ai.dataset.Sample`` whose input is already the prompt the item is asked with
(:func:`benchsmith.package.item_prompt.prompt_messages`, copied in: the same messages
``benchsmith eval`` and the lm-eval task send), media paths resolved against the task file's
folder; the solver is ``generate()``, and each sample is scored by its
``metadata["answer_format"]``. ``-T modality=...`` keeps only the items whose input needs no
other modality (``text``: no image or audio). Model calls are retried at most
:data:`MAX_RETRIES` times unless ``--max-retries`` says otherwise (Inspect's own default is to
retry an HTTP 500 forever, which is what a text-only server answers to an image).

The per-format scoring rules live here as plain, standard-library functions
(:func:`score_answer` and its helpers). Their source is copied verbatim into the generated
Inspect task file and into the lm-eval ``utils.py`` (:mod:`benchsmith.package.lmeval_export`),
so the two exports and benchsmith's own tests score an answer the same way:

- ``multiple_choice``: the answer's letter (:func:`choice_letter`) equals the target letter:
  the letter after the last ``ANSWER:`` (what the prompt asks for), else a bare leading
  letter (``B``, ``(B)``, ``B) Paris``, ``B. Paris``).
- ``short_answer``: normalized exact match (:func:`normalize_answer`) of the target with the
  whole answer, its first non-empty line, or the text after its last ``ANSWER:``.
- ``numeric``: the first number of the answer (after its last ``ANSWER:`` when there is one)
  is within the relative tolerance ``metadata["tolerance"]`` (default 0.01) of the target;
  absolute tolerance when the target is 0.
- ``open``: the normalized target occurs in the normalized answer as whole words
  (:func:`includes_match`); the Inspect task's ``-T grader=MODEL`` grades open items with
  Inspect's ``model_graded_fact()`` instead.
"""

from __future__ import annotations

import functools
import inspect
import math
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path

from benchsmith.item import NUMERIC_TOLERANCE
from benchsmith.naming import slugify
from benchsmith.package.item_prompt import prompt_source
from benchsmith.spec import BenchmarkSpec

INSPECT_TASK_FILE = "inspect_task.py"

MAX_RETRIES = 3
"""Retries of a failed model call in the Inspect task, unless ``--max-retries`` is given."""


# -- scoring rules (standard library only: copied into the generated files) ----------------------
def normalize_answer(text: str) -> str:
    """Normalize an answer for exact comparison.

    NFKC-normalizes, case-folds, collapses every run of whitespace to one space and strips
    surrounding punctuation and quotes (``.,;:!?"'`()[]{}*_`` and their typographic and CJK
    forms); inner punctuation, ``#``, ``+``, ``%`` and ``$`` are kept. ``' "Paris." '`` gives
    ``paris``.

    Args:
        text: Any text.

    Returns:
        The normalized text (possibly empty).
    """
    edge = ".,;:!?\"'`()[]{}<>*_«»“”‘’„‚¡¿。，、；：！？「」『』（）"
    text = unicodedata.normalize("NFKC", str(text)).casefold()
    text = " ".join(text.split())
    start, end = 0, len(text)
    while start < end and (text[start] in edge or text[start].isspace()):
        start += 1
    while end > start and (text[end - 1] in edge or text[end - 1].isspace()):
        end -= 1
    return text[start:end]


def answer_candidates(answer: str) -> list[str]:
    """The parts of an answer that may hold the short answer itself.

    They are: the whole answer, its first non-empty line, and the text after its last
    ``ANSWER:`` (any case) up to the end of that line.

    Args:
        answer: The model's answer.

    Returns:
        The candidates, in that order (duplicates removed).
    """
    text = str(answer)
    candidates = [text]
    lines = [line for line in text.splitlines() if line.strip()]
    if lines:
        candidates.append(lines[0])
    tails = re.findall(r"(?i)\banswer\s*:\s*([^\n]*)", text)
    if tails:
        candidates.append(tails[-1])
    return list(dict.fromkeys(candidates))


def short_answer_match(answer: str, target: str) -> bool:
    """Whether a short answer matches its target (normalized exact match).

    Args:
        answer: The model's answer.
        target: The expected answer.

    Returns:
        True when the normalized target is not empty and equals one of the normalized
        :func:`answer_candidates`.
    """
    expected = normalize_answer(target)
    if not expected:
        return False
    return any(normalize_answer(c) == expected for c in answer_candidates(answer))


def first_number(text: str) -> float | None:
    """The first number written in ``text``, or None.

    Reads an optional sign (``-``, ``+`` or ``−``), digits with optional thousands commas
    (``1,234``), an optional decimal part and exponent (``-2.5e3``); NFKC-normalizes first so
    full-width digits count. Fractions (``1/2``) read as their numerator.

    Args:
        text: Any text.

    Returns:
        The number, or None when the text holds none.
    """
    text = unicodedata.normalize("NFKC", str(text)).replace("\u2212", "-")
    found = re.search(
        r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+]?\.\d+(?:[eE][-+]?\d+)?",
        text,
    )
    if found is None:
        return None
    try:
        value = float(found.group(0).replace(",", ""))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def numeric_match(answer: str, target: str, tolerance: float | None = None) -> bool:
    """Whether a numeric answer is within relative tolerance of the target.

    The answer's number is :func:`first_number` of the text after its last ``ANSWER:`` when
    there is one, else of the whole answer. It matches when ``|a - t| <= tolerance * |t|``, or
    ``|a| <= tolerance`` when the target is 0. A target that holds no number falls back to
    :func:`short_answer_match`.

    Args:
        answer: The model's answer.
        target: The expected number, as text.
        tolerance: Relative tolerance; None, a negative value or one that is not a number
            means ``NUMERIC_TOLERANCE``.

    Returns:
        Whether the answer matches.
    """
    try:
        tol = NUMERIC_TOLERANCE if tolerance is None else float(tolerance)
    except (TypeError, ValueError):
        tol = NUMERIC_TOLERANCE
    if not tol >= 0:  # negative or NaN
        tol = NUMERIC_TOLERANCE
    expected = first_number(target)
    if expected is None:
        return short_answer_match(answer, target)
    tails = re.findall(r"(?i)\banswer\s*:\s*([^\n]*)", str(answer))
    got = first_number(tails[-1]) if tails else None
    if got is None:
        got = first_number(answer)
    if got is None:
        return False
    if expected == 0:
        return abs(got) <= tol
    return abs(got - expected) <= tol * abs(expected)


def choice_letter(answer: str, n_choices: int) -> str | None:
    """The choice letter an answer gives, or None.

    Takes the letter after the last ``ANSWER:`` (``ANSWER: B``, ``answer: (b)``) when there is
    one; otherwise a capital letter opening the answer and followed by ``)``, ``]``, ``.``,
    ``:``, ``,`` or the end of its line (``B``, ``(B)``, ``B) Paris``, ``B. Paris``); otherwise
    a lone lower-case letter (``b``). ``**B**`` and ``$B$`` wrappers are removed first. A
    letter beyond the choices gives None; ``A cat`` is not a letter answer.

    Args:
        answer: The model's answer.
        n_choices: How many choices the item has.

    Returns:
        The upper-case letter, or None.
    """
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: max(0, int(n_choices))]
    text = str(answer).replace("**", "").replace("$", "").strip()
    found = re.findall(r"(?i)\banswer\s*:\s*[(\[]?([a-z])(?![a-z0-9])", text)
    if found:
        letter = found[-1].upper()
    else:
        lead = re.match(r"[(\[]?([A-Z])(?:[)\].:,]|[ \t]*(?:\n|$))", text)
        lone = re.fullmatch(r"[(\[]?([a-z])[)\].]?", text)
        letter = lead.group(1) if lead else lone.group(1).upper() if lone else ""
    return letter if letter and letter in letters else None


def includes_match(answer: str, target: str) -> bool:
    """Whether the normalized target occurs in the normalized answer as whole words.

    Args:
        answer: The model's answer.
        target: The expected answer.

    Returns:
        True when the normalized target is not empty and is found in the answer, not as
        part of a longer word (``cat`` is not in ``concatenate``).
    """
    expected = normalize_answer(target)
    if not expected:
        return False
    pattern = r"(?<!\w)" + re.escape(expected) + r"(?!\w)"
    return re.search(pattern, normalize_answer(answer)) is not None


def score_answer(
    answer: str,
    target: str,
    answer_format: str | None,
    *,
    n_choices: int = 0,
    tolerance: float | None = None,
) -> bool:
    """Whether an answer is right, by the rule of its item's answer format.

    Args:
        answer: The model's answer.
        target: The item's target (a letter when the item has choices).
        answer_format: ``multiple_choice``, ``short_answer``, ``numeric`` or ``open``; None
            or anything else is scored as ``short_answer``.
        n_choices: How many choices the item has (0 when none); items with choices are
            scored by letter whatever their format says.
        tolerance: Relative tolerance of numeric items (None: 0.01).

    Returns:
        Whether the answer is right.
    """
    if n_choices > 0 or answer_format == "multiple_choice":
        return choice_letter(answer, n_choices) == str(target).strip().upper()
    if answer_format == "numeric":
        return numeric_match(answer, target, tolerance)
    if answer_format == "open":
        return includes_match(answer, target)
    return short_answer_match(answer, target)


SCORING_FUNCTIONS: tuple[Callable[..., object], ...] = (
    normalize_answer,
    answer_candidates,
    short_answer_match,
    first_number,
    numeric_match,
    choice_letter,
    includes_match,
    score_answer,
)
"""The scoring rules, in dependency order, as copied into the generated files."""


@functools.cache
def scoring_source() -> str:
    """The source of the scoring rules, to paste into a generated standalone file (read once).

    The functions need only ``math``, ``re`` and ``unicodedata``.
    """
    constants = f"NUMERIC_TOLERANCE = {NUMERIC_TOLERANCE!r}\n\n\n"
    return constants + "\n\n".join(
        inspect.getsource(fn).rstrip() + "\n" for fn in SCORING_FUNCTIONS
    )


# -- names ------------------------------------------------------------------------------------
_GENERIC_FOLDER_NAMES = {"", "bench", "benchmark", "out", "output", "build", "dist", "tmp"}


def _identifier_slug(text: str, max_words: int = 8) -> str:
    return slugify(text, sep="_", max_len=48, max_words=max_words)


def task_name(bench_dir: Path, spec: BenchmarkSpec) -> str:
    """The benchmark's task name in both exports: ``benchsmith_<slug>``.

    The slug comes from the folder's name, or from the first words of the intent when the
    folder's name is empty or generic (``bench``, ``out``...). The result is a valid Python
    identifier of lower-case letters, digits and underscores.

    Args:
        bench_dir: The benchmark folder.
        spec: Its specification.

    Returns:
        For example ``benchsmith_chart_reading`` for a folder called ``chart-reading``.
    """
    slug = _identifier_slug(Path(bench_dir).resolve().name)
    if slug in _GENERIC_FOLDER_NAMES:
        slug = _identifier_slug(spec.intent, max_words=6) or slug
    return f"benchsmith_{slug}" if slug else "benchsmith_benchmark"


# -- the generated task file -------------------------------------------------------------------
_HEADER = '''\
"""Inspect AI task of a benchsmith benchmark (generated by benchsmith).

Benchmark: __TITLE__
Runs every item of data/test.jsonl next to this file, as it is; needs only inspect_ai:

    inspect eval path/to/inspect_task.py --model openai/gpt-4o-mini
    inspect eval path/to/inspect_task.py --model openai/gpt-4o-mini -T modality=text

Task options (-T NAME=VALUE):
    subtask: only the items of these subtasks (ids, comma-separated).
    answer_format: only the items of these answer formats (comma-separated).
    modality: only the items whose input needs no other modality than these
        (comma-separated): text (no image or audio), image, audio. For a text-only
        model, modality=text; for one that reads text and images, modality=text,image.
    grader: grade open-ended items with model_graded_fact() using this model (default:
        the normalized target must occur in the answer as whole words).

Each sample's input is the prompt the item is asked with (prompt_messages below), the
same messages benchsmith eval and the lm-eval task send: one user message holding the
question and its format instruction (multiple choice: answer as "ANSWER: X", choices as
"A) ..." lines). The solver is generate(). A failed model call is retried at most
__RETRIES__ times unless --max-retries says otherwise.

Scoring, by metadata["answer_format"]:
    multiple_choice: the letter after the last "ANSWER:" (else a bare leading letter)
        equals the target letter.
    short_answer: normalized exact match (NFKC, case-folded, whitespace collapsed,
        surrounding punctuation stripped) with the whole answer, its first line, or the
        text after its last "ANSWER:".
    numeric: the first number of the answer (after its last "ANSWER:" if any) within
        the relative tolerance metadata["tolerance"] (default 0.01) of the target.
    open: see grader above.
Metrics: accuracy and its standard error.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    Content,
    ContentAudio,
    ContentImage,
    ContentText,
    GenerateConfig,
)
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Score,
    Scorer,
    Target,
    accuracy,
    model_graded_fact,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState, generate

TASK_NAME = "__TASK__"
HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "test.jsonl"
MODALITIES = ("text", "image", "audio")
MAX_RETRIES = __RETRIES__

'''

_BODY = '''

# -- reading the items ---------------------------------------------------------------------------
def _media_path(value: str, item_id: str) -> str:
    """The absolute path of a media file of an item; it must lie inside this folder."""
    path = (HERE / value).resolve()
    if not path.is_relative_to(HERE):
        raise ValueError(f"item {item_id}: media path {value!r} leads outside {HERE}")
    if not path.is_file():
        raise FileNotFoundError(f"item {item_id}: media file {path} is missing")
    return str(path)


def _content(part: dict[str, Any], item_id: str) -> Content:
    """One content part of an item as Inspect content."""
    kind = part.get("type")
    if kind == "text":
        return ContentText(text=part["text"])
    if kind == "image":
        return ContentImage(image=_media_path(part["image"], item_id))
    if kind == "audio":
        path = _media_path(part["audio"], item_id)
        fmt = part.get("format") or Path(path).suffix.lstrip(".").lower()
        return ContentAudio(audio=path, format=fmt)
    raise ValueError(f"item {item_id}: unknown content part type {kind!r}")


def _message(message: dict[str, Any], item_id: str) -> ChatMessage:
    """One chat message of an item; text-only content becomes a plain string."""
    content = message.get("content", "")
    if isinstance(content, list):
        parts = [_content(p, item_id) for p in content]
        if all(isinstance(p, ContentText) for p in parts):
            content = "\\n".join(p.text for p in parts if isinstance(p, ContentText))
        else:
            content = parts
    role = message.get("role", "user")
    if role == "system":
        return ChatMessageSystem(content=content)
    if role == "assistant":
        return ChatMessageAssistant(content=content)
    return ChatMessageUser(content=content)


def record_to_sample(record: dict[str, Any]) -> Sample:
    """One line of data/test.jsonl as an Inspect sample: its input is the item's prompt."""
    item_id = str(record["id"])
    messages = [_message(m, item_id) for m in prompt_messages(record)]
    value: str | list[ChatMessage] = messages
    if len(messages) == 1 and messages[0].role == "user" and isinstance(messages[0].content, str):
        value = messages[0].content
    return Sample(
        id=item_id,
        input=value,
        choices=record.get("choices") or None,
        target=record["target"],
        metadata=record.get("metadata") or {},
    )


def _wanted(value: str | list[str] | None) -> set[str] | None:
    """The values of a task option: "a,b" or a list (how -T a,b arrives), None for all."""
    if not value:
        return None
    values = value.split(",") if isinstance(value, str) else [str(v) for v in value]
    return {v.strip() for v in values if v.strip()} or None


def input_modalities(record: dict[str, Any]) -> set[str]:
    """What an item's input needs: its media kinds, or {"text"} when it has none."""
    return set(media_kinds(record)) or {"text"}


def load_samples(
    subtask: str | list[str] | None = None,
    answer_format: str | list[str] | None = None,
    modality: str | list[str] | None = None,
) -> list[Sample]:
    """The samples of data/test.jsonl, optionally only some subtasks, formats or modalities."""
    subtasks, formats, modalities = _wanted(subtask), _wanted(answer_format), _wanted(modality)
    unknown = sorted((modalities or set()) - set(MODALITIES))
    if unknown:
        raise ValueError(
            f"modality={modality!r}: unknown modality {', '.join(unknown)}; "
            f"use {', '.join(MODALITIES)} (comma-separated)"
        )
    samples: list[Sample] = []
    seen: set[str] = set()
    seen_modalities: set[str] = set()
    with DATA.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{DATA}:{number}: not a JSON line ({exc})") from exc
            meta = record.get("metadata") or {}
            needs = input_modalities(record)
            seen.add(str(meta.get("subtask")))
            seen_modalities.add("+".join(sorted(needs)))
            if subtasks is not None and meta.get("subtask") not in subtasks:
                continue
            if formats is not None and meta.get("answer_format") not in formats:
                continue
            if modalities is not None and not needs <= modalities:
                continue
            samples.append(record_to_sample(record))
    if not samples:
        raise ValueError(
            f"no item of {DATA} matches subtask={subtask!r} answer_format={answer_format!r} "
            f"modality={modality!r}; subtasks: {', '.join(sorted(seen))}; "
            f"modalities: {', '.join(sorted(seen_modalities))}"
        )
    return samples


# -- scoring -------------------------------------------------------------------------------------
@scorer(metrics=[accuracy(), stderr()])
def benchsmith_scorer(grader: str | None = None) -> Scorer:
    """Score each sample by the rule of its metadata["answer_format"] (see the docstring)."""
    by_grader = model_graded_fact(model=grader) if grader else None

    async def score(state: TaskState, target: Target) -> Score:
        n_choices = len(state.choices)
        fmt = "multiple_choice" if n_choices else state.metadata.get("answer_format")
        fmt = str(fmt or "short_answer")
        if fmt == "open" and by_grader is not None:
            return await by_grader(state, target)
        answer = state.output.completion
        right = score_answer(
            answer,
            target.text,
            fmt,
            n_choices=n_choices,
            tolerance=state.metadata.get("tolerance"),
        )
        return Score(
            value=CORRECT if right else INCORRECT,
            answer=answer,
            explanation=f"{fmt} rule: expected {target.text!r}",
        )

    return score


@task
def __TASK__(
    subtask: str | list[str] | None = None,
    answer_format: str | list[str] | None = None,
    modality: str | list[str] | None = None,
    grader: str | None = None,
) -> Task:
    """Every item of this benchmark (or those of some subtasks, formats or modalities)."""
    return Task(
        dataset=MemoryDataset(load_samples(subtask, answer_format, modality), name=TASK_NAME),
        solver=generate(),
        scorer=benchsmith_scorer(grader=grader),
        config=GenerateConfig(max_retries=MAX_RETRIES),
    )
'''


def render_inspect_task(name: str, title: str) -> str:
    """The text of a standalone Inspect task file.

    Args:
        name: The ``@task`` function's name (a Python identifier).
        title: A human title for the module docstring (folded to one line, cut to 80
            characters).

    Returns:
        Python source needing only ``inspect_ai`` and the standard library.

    Raises:
        ValueError: ``name`` is not an identifier.
    """
    if not name.isidentifier():
        raise ValueError(f"task name {name!r} is not a Python identifier")
    printable = "".join(c if c.isprintable() else " " for c in title)
    safe_title = " ".join(printable.split()).replace("\\", "/").replace('"', "'")[:80]
    header = (
        _HEADER.replace("__TITLE__", safe_title or name)
        .replace("__RETRIES__", str(MAX_RETRIES))
        .replace("__TASK__", name)
    )
    body = _BODY.replace("__TASK__", name)
    return header + "\n" + prompt_source() + "\n\n" + scoring_source() + body


def write_inspect_task(bench_dir: Path, spec: BenchmarkSpec) -> Path:
    """Write ``BENCH/inspect_task.py``, the Inspect AI task that runs every item as it is.

    Args:
        bench_dir: The benchmark folder (``data/test.jsonl`` is read at eval time, not now).
        spec: Its specification (names the task).

    Returns:
        The path of the written file.
    """
    bench_dir = Path(bench_dir)
    name = task_name(bench_dir, spec)
    path = bench_dir / INSPECT_TASK_FILE
    path.write_text(render_inspect_task(name, spec.intent), encoding="utf-8")
    return path
