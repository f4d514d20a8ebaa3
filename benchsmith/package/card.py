"""The benchmark's Hugging Face dataset card (``BENCH/README.md``).

:func:`render_card` writes YAML front matter and a Markdown body. The front matter holds
``configs:`` (the ``default`` config, which ``load_dataset(BENCH)`` loads, is the Hugging
Face split ``data/hf/test-DIGEST.parquet``; the ``inspect`` config is the items of
``data/test.jsonl`` in ``data/inspect/test-DIGEST.parquet``; see
:mod:`benchsmith.package.hf_export`), ``dataset_info`` (the ``default`` config's features),
``pretty_name``, ``language``, ``size_categories``, ``task_categories``, ``license`` and
``tags``. The body: the intent, a subtask table, counts, the acceptance rate with the
checks that ran and those that did not (:mod:`benchsmith.package.checks`), human acceptance
once the items are reviewed, the source datasets with their licenses and provenance (a local
file by its name, never its path), the exports and how to run them (audio decoding
included), and the columns and item format.

Free text (the intent, subtask and source descriptions, licenses) comes from users, models
and dataset files, so it is treated as untrusted: the front matter is written by
``yaml.safe_dump`` with every string folded to one line, table cells have ``|`` escaped and
newlines folded, and ``<``/``>`` are escaped everywhere in the body.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import yaml

from benchsmith.catalog.cards import DatasetCard
from benchsmith.item import NUMERIC_TOLERANCE, Item
from benchsmith.layout import DATA_FILE, MEDIA_DIR, REJECTS_FILE, REPORT_FILE, SPEC_FILE
from benchsmith.package.checks import describe
from benchsmith.package.hf_export import (
    HF_COLUMNS,
    HF_CONFIG,
    INSPECT_CONFIG,
    SPLIT,
    SPLIT_GLOBS,
    features_yaml,
)
from benchsmith.package.inspect_export import INSPECT_TASK_FILE, MAX_RETRIES
from benchsmith.package.portable import portable_source
from benchsmith.spec import BenchmarkSpec
from benchsmith.statistics import wilson_interval

if TYPE_CHECKING:
    from benchsmith.package.lmeval_export import LmEvalExport

_DATA_NAME = DATA_FILE.as_posix()
"""The items' file as the card names it (with ``/`` on every system)."""
_JSONL_NOTE = (
    "(`datasets` reads every config of a folder with the file format of its first config, "
    "huggingface/datasets#7101, so the jsonl itself cannot be a config beside the Parquet "
    "default: the `inspect` config holds its items, row for row, in Parquet.)"
)

# License identifiers the Hub knows (a subset: the ones datasets mostly carry).
HUB_LICENSES = frozenset(
    """
    afl-3.0 agpl-3.0 apache-2.0 artistic-2.0 bsd bsd-2-clause bsd-3-clause bsd-3-clause-clear
    bsl-1.0 c-uda cc cc-by-2.0 cc-by-2.5 cc-by-3.0 cc-by-4.0 cc-by-nc-2.0 cc-by-nc-3.0
    cc-by-nc-4.0 cc-by-nc-nd-3.0 cc-by-nc-nd-4.0 cc-by-nc-sa-2.0 cc-by-nc-sa-3.0
    cc-by-nc-sa-4.0 cc-by-nd-4.0 cc-by-sa-3.0 cc-by-sa-4.0 cc0-1.0 cdla-permissive-1.0
    cdla-permissive-2.0 cdla-sharing-1.0 ecl-2.0 epl-1.0 epl-2.0 eupl-1.1 gfdl gpl gpl-2.0
    gpl-3.0 isc lgpl-2.1 lgpl-3.0 lgpl-lr mit mpl-2.0 ms-pl ncsa odbl odc-by ofl-1.1 openrail
    osl-3.0 pddl postgresql unlicense unknown wtfpl zlib other
    """.split()
)

_TASK_BY_FORMAT = {
    "multiple_choice": "multiple-choice",
    "short_answer": "question-answering",
    "numeric": "question-answering",
    "open": "text-generation",
}
_TASK_BY_MODALITY = {
    "image": ["visual-question-answering", "image-text-to-text"],
    "audio": ["audio-text-to-text"],
}
_SIZE_BOUNDS = [
    (1_000, "n<1K"),
    (10_000, "1K<n<10K"),
    (100_000, "10K<n<100K"),
    (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"),
]


@dataclass
class CardStats:
    """The figures the card shows, computed from the items and the exports.

    Attributes:
        n_items: Items in ``data/test.jsonl``.
        by_subtask: Items per subtask id.
        by_modality: Items per input-modality combination (``text``, ``text+image``...).
        by_language: Items per language code (``unknown`` when an item has none).
        n_lmeval_items: Items the lm-eval task runs (the text-only ones).
        lmeval_task: The lm-eval task name, or None when there is no lm-eval task.
        inspect_task: The Inspect task's name (``inspect eval FILE@NAME``), if known.
        bench_name: The folder's name, used in the how-to commands.
        title: A human title (``pretty_name``); None derives one from the intent.
        acceptance_rate: Share of candidates that passed verification, if known.
        acceptance_checks: Which checks ran behind ``acceptance_rate`` and which did not
            (:meth:`benchsmith.package.checks.CheckTally.summary`); None when unknown.
        human_review: Items a human reviewer accepted and items reviewed, if reviewed.
        summary: Other figures worth a line each (``{"LLM calls": 412}``).
        extra_media: Items with more than one image or more than one audio clip (the
            Hugging Face split's columns hold the first of each kind).
        hf_files: The file of each config (``default``, ``inspect``) as written by
            :func:`benchsmith.package.hf_export.write_hf_split`; a config missing here is
            shown as a pattern.
    """

    n_items: int
    by_subtask: dict[str, int] = field(default_factory=dict)
    by_modality: dict[str, int] = field(default_factory=dict)
    by_language: dict[str, int] = field(default_factory=dict)
    n_lmeval_items: int = 0
    lmeval_task: str | None = None
    inspect_task: str | None = None
    bench_name: str = "BENCH"
    title: str | None = None
    acceptance_rate: float | None = None
    acceptance_checks: dict[str, Any] | None = None
    human_review: tuple[int, int] | None = None
    summary: dict[str, str | int | float] = field(default_factory=dict)
    extra_media: int = 0
    hf_files: dict[str, str] = field(default_factory=dict)

    def data_file(self, config: str) -> str:
        """The file of a Hugging Face config (its pattern when it is not written yet)."""
        return self.hf_files.get(config) or SPLIT_GLOBS[config]


@dataclass
class ItemCounts:
    """The card's counts of items (per subtask, modality and language), one item at a time."""

    n: int = 0
    by_subtask: Counter[str] = field(default_factory=Counter)
    by_modality: Counter[str] = field(default_factory=Counter)
    by_language: Counter[str] = field(default_factory=Counter)
    extra_media: int = 0

    def add(self, item: Item) -> None:
        """Count one item."""
        self.n += 1
        self.by_subtask[str(item.metadata.get("subtask") or "unknown")] += 1
        self.by_modality["+".join(item.modalities())] += 1
        self.by_language[str(item.metadata.get("language") or "unknown")] += 1
        kinds = [kind for kind, _ in item.media_paths()]
        self.extra_media += kinds.count("image") > 1 or kinds.count("audio") > 1


def card_stats(
    items: Iterable[Item | Mapping[str, Any]] | ItemCounts,
    *,
    lmeval: LmEvalExport | None = None,
    inspect_task: str | None = None,
    bench_name: str = "BENCH",
    title: str | None = None,
    acceptance_rate: float | None = None,
    acceptance_checks: Mapping[str, Any] | None = None,
    human_review: tuple[int, int] | None = None,
    summary: Mapping[str, str | int | float] | None = None,
    hf_files: Mapping[str, str] | None = None,
) -> CardStats:
    """Count the items for the card (one pass; items may be a generator).

    Args:
        items: The items, as :class:`~benchsmith.item.Item` or their JSON dicts, or their
            counts already made (when the caller read them for several exports at once).
        lmeval: What the lm-eval export wrote (None: no lm-eval task).
        inspect_task: The Inspect task's name (see
            :func:`benchsmith.package.inspect_export.task_name`); defaults to the lm-eval
            export's task name, which is the same.
        bench_name: The benchmark folder's name.
        title: A human title.
        acceptance_rate: Share of candidates that passed verification.
        acceptance_checks: The checks that ran behind it and those that did not.
        human_review: ``(accepted, reviewed)`` items of a human review, if any.
        summary: Other figures to show.
        hf_files: The file of each Hugging Face config, as written.

    Returns:
        The card's figures.
    """
    if isinstance(items, ItemCounts):
        counts = items
    else:
        counts = ItemCounts()
        for raw in items:
            counts.add(raw if isinstance(raw, Item) else Item.model_validate(raw))
    written = lmeval is not None and lmeval.yaml_path is not None
    return CardStats(
        n_items=counts.n,
        by_subtask=dict(counts.by_subtask),
        by_modality=dict(counts.by_modality),
        by_language=dict(counts.by_language),
        n_lmeval_items=lmeval.n_items if lmeval is not None and written else 0,
        lmeval_task=lmeval.task_name if lmeval is not None and written else None,
        inspect_task=inspect_task or (lmeval.task_name if lmeval is not None else None),
        bench_name=bench_name,
        title=title,
        acceptance_rate=acceptance_rate,
        acceptance_checks=dict(acceptance_checks) if acceptance_checks is not None else None,
        human_review=human_review,
        summary=dict(summary or {}),
        extra_media=counts.extra_media,
        hf_files=dict(hf_files or {}),
    )


# -- escaping ---------------------------------------------------------------------------------
def one_line(text: object, limit: int | None = None) -> str:
    """Untrusted text folded to one line (every whitespace run becomes one space).

    Args:
        text: Any value.
        limit: Cut to this many characters (ending with ``…``) when given.
    """
    out = " ".join(str(text).split())
    if limit is not None and len(out) > limit:
        out = out[: max(limit - 1, 0)].rstrip() + "…"
    return out


def md_text(text: object) -> str:
    """Untrusted text for a Markdown paragraph: ``<``, ``>`` and ``&`` escaped as entities."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def md_cell(text: object, limit: int | None = 300) -> str:
    """Untrusted text for a Markdown table cell: one line, pipes and backslashes escaped."""
    return md_text(one_line(text, limit)).replace("\\", "\\\\").replace("|", "\\|")


def md_code(text: object) -> str:
    """Untrusted text as inline code (backticks and line breaks removed)."""
    return "`" + one_line(text, 120).replace("`", "'") + "`"


def _quote(text: str) -> str:
    """Text as a Markdown block quote, each line prefixed (keeps it one block)."""
    lines = [line.rstrip() for line in md_text(text).strip().splitlines()] or [""]
    return "\n".join(f"> {line}" if line else ">" for line in lines)


# -- front matter ------------------------------------------------------------------------------
def normalize_license(text: str) -> str:
    """A source's license as a Hub license id when it is one (``CC BY 4.0`` → ``cc-by-4.0``).

    Returns the lower-cased, hyphenated form; callers check it against :data:`HUB_LICENSES`.
    """
    norm = re.sub(r"[\s_]+", "-", one_line(text).lower()).strip("-")
    return norm or "unknown"


def card_license(sources: Sequence[DatasetCard]) -> tuple[str, str]:
    """The card's ``license`` value and a sentence explaining it.

    One license shared by every source is used when the Hub knows it; several licenses, or
    one the Hub does not know, give ``other``; no sources give ``unknown``.
    """
    if not sources:
        return "unknown", "No source dataset is recorded, so the license is unknown."
    licenses = sorted({normalize_license(s.license) for s in sources})
    if len(licenses) == 1:
        (only,) = licenses
        if only in HUB_LICENSES:
            return only, f"All source datasets are under `{only}`."
        return "other", (
            f"All source datasets are under the license {md_code(sources[0].license)}, which "
            "has no Hub identifier, so the card says `other`."
        )
    originals = {normalize_license(s.license): s.license for s in reversed(sources)}
    names = ", ".join(md_code(originals[x]) for x in licenses)
    return "other", (
        f"The source datasets have different licenses ({names}), so the card says `other`: "
        "each item carries the license of the dataset it was made from "
        "(`metadata.source`), and the most restrictive one applies to the benchmark as a whole."
    )


def size_category(n: int) -> str:
    """The Hub's ``size_categories`` value for ``n`` items."""
    for bound, label in _SIZE_BOUNDS:
        if n < bound:
            return label
    return "n>10M"


def task_categories(spec: BenchmarkSpec, stats: CardStats) -> list[str]:
    """Hub task categories from the subtasks' answer formats and input modalities."""
    out: list[str] = []
    for subtask in spec.subtasks:
        out.append(_TASK_BY_FORMAT.get(subtask.answer_format, "question-answering"))
        for modality in subtask.input_modalities:
            out.extend(_TASK_BY_MODALITY.get(modality, []))
    for combo in stats.by_modality:
        for modality in combo.split("+"):
            out.extend(_TASK_BY_MODALITY.get(modality, []))
    return list(dict.fromkeys(out)) or ["question-answering"]


def languages(spec: BenchmarkSpec, stats: CardStats) -> list[str]:
    """Language codes of the subtasks and the items (``unknown`` and bad codes left out)."""
    codes = [code for s in spec.subtasks for code in s.languages] + list(stats.by_language)
    clean = [one_line(c).lower() for c in codes]
    return sorted({c for c in clean if re.fullmatch(r"[a-z]{2,3}(-[a-z0-9]{2,8})*", c)})


def pretty_name(spec: BenchmarkSpec, stats: CardStats) -> str:
    """The card's ``pretty_name``: the title, or the intent's first sentence, on one line."""
    if stats.title:
        return one_line(stats.title, 80)
    first = re.split(r"(?<=[.!?])\s", one_line(spec.intent), maxsplit=1)[0]
    return one_line(first.rstrip("."), 80) or stats.bench_name


def front_matter(
    spec: BenchmarkSpec, stats: CardStats, sources: Sequence[DatasetCard]
) -> dict[str, Any]:
    """The card's YAML metadata, as a dict."""
    license_id, _ = card_license(sources)
    meta: dict[str, Any] = {
        # `default` comes first: datasets picks one builder for every config from the first
        # config's files (both are Parquet), and loads `default` when no name is given.
        "configs": [
            {
                "config_name": config,
                "data_files": [{"split": SPLIT, "path": stats.data_file(config)}],
            }
            for config in (HF_CONFIG, INSPECT_CONFIG)
        ],
        # Features of the default config only: the inspect config's Json() columns are
        # described by its Parquet file, so a datasets without Json() can still read the card.
        "dataset_info": [
            {
                "config_name": HF_CONFIG,
                "features": features_yaml(),
            }
        ],
        "pretty_name": pretty_name(spec, stats),
    }
    langs = languages(spec, stats)
    if langs:
        meta["language"] = langs
    meta["license"] = license_id
    if license_id == "other":
        meta["license_name"] = "mixed-source-licenses" if len(sources) > 1 else "source-license"
    meta["size_categories"] = [size_category(stats.n_items)]
    meta["task_categories"] = task_categories(spec, stats)
    modality_tags = sorted({m for combo in stats.by_modality for m in combo.split("+")})
    meta["tags"] = ["benchsmith", "evaluation", "benchmark", *modality_tags]
    return meta


# -- body --------------------------------------------------------------------------------------
def _table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{md_cell(k)}: {v}" for k, v in sorted(counts.items())) or "none"


def _subtask_section(spec: BenchmarkSpec, stats: CardStats) -> str:
    rows = [
        (
            s.id,
            s.name,
            s.description,
            s.answer_format.replace("_", " "),
            ", ".join(s.input_modalities),
            stats.by_subtask.get(s.id, 0),
        )
        for s in spec.subtasks
    ]
    known = {s.id for s in spec.subtasks}
    rows += [
        (k, "", f"(not in {SPEC_FILE})", "", "", v)
        for k, v in stats.by_subtask.items()
        if k not in known
    ]
    table = _table(["id", "name", "description", "answer format", "modalities", "items"], rows)
    dropped = ""
    if spec.dropped:
        dropped = "\n\nSubtasks dropped while planning:\n\n" + "\n".join(
            f"- {md_code(d.subtask_id)}: {md_text(one_line(d.reason, 300))}" for d in spec.dropped
        )
    return f"## Subtasks\n\n{table}{dropped}"


def _size_section(stats: CardStats) -> str:
    lines = [
        f"- Items: **{stats.n_items}** (one split, `test`)",
        f"- By input modality: {_counts(stats.by_modality)}",
        f"- By language: {_counts(stats.by_language)}",
    ]
    if stats.acceptance_rate is not None:
        lines.append(f"- {acceptance_line(stats)}")
    if stats.human_review is not None:
        lines.append(f"- {human_line(*stats.human_review)}")
    lines += [f"- {md_cell(k)}: {md_cell(v)}" for k, v in stats.summary.items()]
    return "## Size\n\n" + "\n".join(lines)


def acceptance_line(stats: CardStats) -> str:
    """The acceptance rate and the checks behind it: those that ran and those that did not.

    ``Acceptance: 87.5% of generated candidates passed the checks that ran (structural,
    ...); not run: LLM judge (no judge model configured), ...``.
    """
    rate = stats.acceptance_rate or 0.0
    checks = md_text(one_line(describe(stats.acceptance_checks)))
    return (
        f"Acceptance: {rate:.1%} of generated candidates {checks}. The rejected ones are in "
        f"`{REJECTS_FILE}`."
    )


def human_line(accepted: int, reviewed: int) -> str:
    """Human acceptance of the reviewed items, with its 95 % Wilson interval."""
    if not reviewed:
        return "Human review: no item reviewed yet."
    low, high = wilson_interval(accepted, reviewed)
    return (
        f"Human review: {accepted} of {reviewed} reviewed items accepted "
        f"({accepted / reviewed:.1%}, Wilson 95% interval {low:.1%}-{high:.1%})"
    )


def _sources_section(spec: BenchmarkSpec, sources: Sequence[DatasetCard]) -> str:
    _, explanation = card_license(sources)
    if not sources:
        return f"## Source datasets\n\n{explanation}"
    used = {g.dataset_id for g in spec.groundings}
    rows = []
    for card in sources:
        prov = card.provenance
        origin = "; ".join(
            part
            for part in (
                # A local file by its name: never the building machine's path.
                portable_source(prov.source) if prov.source else None,
                f"{prov.package} {prov.version or ''}".strip() if prov.package else None,
                f"recipe {prov.recipe}" if prov.recipe else None,
                prov.notes or None,
            )
            if part
        )
        rows.append(
            (
                card.id,
                card.name,
                card.license,
                origin or "unknown",
                "yes" if card.id in used or not used else "no",
            )
        )
    table = _table(["id", "name", "license", "provenance", "grounds a subtask"], rows)
    details = "\n".join(
        f"- {md_code(c.id)}: {md_text(one_line(c.description, 400)) or '(no description)'}"
        for c in sources
    )
    return f"## Source datasets\n\n{table}\n\n{details}\n\n**License.** {explanation}"


def _exports_section(stats: CardStats) -> str:
    bench = stats.bench_name if re.fullmatch(r"[\w.\-/]+", stats.bench_name) else "BENCH"
    task_ref = stats.inspect_task if (stats.inspect_task or "").isidentifier() else "TASK"
    lmeval_task = stats.lmeval_task if (stats.lmeval_task or "").isidentifier() else None
    lines = [
        "## Exports",
        "",
        f"- **Hugging Face datasets**: all {stats.n_items} items, in one schema for every "
        "benchsmith benchmark with the images and audio embedded (config `default`), and as "
        "Inspect-style items (config `inspect`).",
        f"- **Inspect AI task** (`{INSPECT_TASK_FILE}`): all {stats.n_items} items, as they "
        "are (text, image and audio input), scored per answer format.",
    ]
    if lmeval_task:
        lines.append(
            f"- **lm-evaluation-harness task** (`lmeval/`, task `{lmeval_task}`): the "
            f"text-only items, {stats.n_lmeval_items} of {stats.n_items}. lm-eval has no image "
            "or audio input, so items with an image or audio part are left out."
        )
    else:
        lines.append(
            "- **lm-evaluation-harness**: no task, because no item is text-only (lm-eval has "
            "no image or audio input)."
        )
    lines += [
        "",
        *_load_section(stats, bench),
        "",
        "### Run with Inspect AI",
        "",
        "Needs only `inspect_ai`; runs from any directory:",
        "",
        "```bash",
        f"inspect eval {bench}/{INSPECT_TASK_FILE} --model openai/gpt-4o-mini",
        f"inspect eval {bench}/{INSPECT_TASK_FILE} --model openai/gpt-4o-mini -T subtask=ID",
        f"inspect eval {bench}/{INSPECT_TASK_FILE} --model openai/gpt-4o-mini -T modality=text",
        "```",
        "",
        "`-T modality=text` runs only the items with no image or audio (for a text-only "
        "model); `-T modality=text,image` adds the image items. A failed model call is "
        f"retried at most {MAX_RETRIES} times unless `--max-retries` says otherwise.",
        "",
        "Inspect takes a task file by a path relative to the current directory; to give an "
        f"absolute path, name the task: `/abs/path/{INSPECT_TASK_FILE}@{task_ref}`.",
        "",
        "Every item is asked with one user message, the same in Inspect, lm-eval and "
        "`benchsmith eval`: the question and its answer-format instruction (multiple choice: "
        "lettered choices, answer as `ANSWER: X`). Multiple-choice answers are scored by "
        "their letter; short answers by normalized exact match (NFKC, case-folded, "
        "whitespace collapsed, surrounding punctuation stripped), numeric answers by their "
        "first number "
        f"within a relative tolerance (`metadata.tolerance`, default {NUMERIC_TOLERANCE}), "
        "open answers by "
        "finding the normalized target in the answer (or with `-T grader=MODEL`, by "
        "`model_graded_fact()`). Metrics: accuracy and its standard error.",
    ]
    if lmeval_task:
        lines += [
            "",
            "### Run with lm-evaluation-harness",
            "",
            "```bash",
            f"lm_eval --include_path {bench}/lmeval --tasks {lmeval_task} \\",
            "  --model local-chat-completions \\",
            "  --model_args model=MODEL,base_url=http://localhost:8000/v1/chat/completions,"
            "num_concurrent=1,tokenized_requests=False,tokenizer_backend=None \\",
            "  --apply_chat_template",
            "```",
            "",
            "Every item is a `generate_until` request (API chat models support nothing else). "
            "The prompt is the Inspect task's, sent as one user message; the "
            "metric `acc` applies the same per-format rules as the Inspect scorer.",
        ]
    return "\n".join(lines)


def _load_section(stats: CardStats, bench: str) -> list[str]:
    """How to load the folder with ``datasets``, media and audio decoding included."""
    audio = any("audio" in combo.split("+") for combo in stats.by_modality)
    imports = (
        "from datasets import Audio, load_dataset" if audio else "from datasets import load_dataset"
    )
    cast = (
        ['ds = ds.cast_column("audio", Audio(decode=False))  # see "Audio" below'] if audio else []
    )
    lines = [
        "### Load with datasets",
        "",
        f"`load_dataset` reads the `{HF_CONFIG}` config (`{stats.data_file(HF_CONFIG)}`): the "
        "columns below, the same for every benchsmith benchmark (so `concatenate_datasets` "
        "joins two of them), with each item's image and audio embedded:",
        "",
        "```python",
        imports,
        "",
        f'ds = load_dataset("{bench}", split="test")  # a local folder or a Hub repo id',
        *cast,
        'ds[0]["image"]  # a PIL.Image.Image, or None for an item without an image',
        "```",
        "",
        f'The Inspect-style items are the `{INSPECT_CONFIG}` config: `load_dataset("{bench}", '
        f'"{INSPECT_CONFIG}", split="test")` gives the fields of `{_DATA_NAME}` (`input` and '
        f"`metadata` decoded from JSON). {_JSONL_NOTE} To read the jsonl itself: "
        f'`load_dataset("json", data_files="{bench}/{_DATA_NAME}", split="train")`.',
        "",
        "### Audio",
        "",
    ]
    if not audio:
        lines.append(
            "No item has audio: the `audio` column is null throughout, so no audio decoder is "
            "needed."
        )
        return lines
    return [
        *lines,
        "`datasets` 4.0 and later (checked with 5.2.0) decode an `Audio` column with "
        "`torchcodec`, which needs PyTorch and FFmpeg's shared libraries "
        '(`pip install torch torchcodec`). With them, `ds[0]["audio"]` (without the cast above) '
        'is a torchcodec `AudioDecoder`: `["array"]` and `["sampling_rate"]` give the samples '
        "(mixed down to mono) and their rate, `.get_all_samples()` every channel. Without "
        "torchcodec, reading a row whose audio is set raises `ImportError: To support decoding "
        "audio data, please install 'torchcodec'.`, so cast the column as above and decode the "
        f"embedded bytes (the file as it is in `{MEDIA_DIR}/`) yourself, for instance with "
        "`soundfile` "
        "(`pip install soundfile`; its wheels bundle libsndfile, which reads WAV, FLAC, OGG and "
        "MP3):",
        "",
        "```python",
        "import io",
        "",
        "import soundfile",
        "",
        "row = ds[0]",
        'if row["audio"] is not None:',
        '    samples, sampling_rate = soundfile.read(io.BytesIO(row["audio"]["bytes"]))',
        "```",
    ]


_FEATURE_NAMES = {
    "string": "string",
    "strings": "list of string",
    "image": "`Image()`",
    "audio": "`Audio()`",
    "json": "`Json()`",
}

_JSONL_FORMAT = f"""\
### `{_DATA_NAME}` (Inspect-style)

One JSON object a line (Inspect AI, lm-evaluation-harness and `benchsmith eval` read it):

- `id`: unique item id.
- `input`: the prompt, a string or chat messages
  (`{{"role": "user", "content": [parts]}}`) whose parts are `{{"type": "text", "text": ...}}`,
  `{{"type": "image", "image": "media/x.png"}}` or
  `{{"type": "audio", "audio": "media/x.wav", "format": "wav"}}`; media paths are relative to
  this folder and every file is in `{MEDIA_DIR}/`.
- `choices`: the options of a multiple-choice item, else null.
- `target`: the letter of the right choice (`A`, `B`, ...) when there are choices, else the
  answer.
- `metadata`: `subtask`, `answer_format` (`multiple_choice`, `short_answer`, `numeric`,
  `open`), `modalities`, `difficulty`, `skills`, `language`, `tolerance` (numeric items), the
  source record, the transformation trace (tool names and parameters) and the verification
  verdicts.

`{SPEC_FILE}` is the plan the items were built from (subtasks, groundings, quotas), and
`{REPORT_FILE}` tells how the build went."""


def _format_section(stats: CardStats) -> str:
    """The data files, the ``default`` config's columns and the jsonl's item format."""
    columns = _table(
        ["column", "feature", "holds"],
        [(f"`{c.name}`", _FEATURE_NAMES[c.kind], c.doc) for c in HF_COLUMNS],
    )
    files = _table(
        ["config", "file", "holds"],
        [
            (
                f"`{HF_CONFIG}`",
                f"`{stats.data_file(HF_CONFIG)}`",
                "the Hugging Face split (columns below)",
            ),
            (
                f"`{INSPECT_CONFIG}`",
                f"`{stats.data_file(INSPECT_CONFIG)}`",
                f"the items of `{_DATA_NAME}`, row for row, in its own fields",
            ),
            ("", f"`{_DATA_NAME}`", "the items, Inspect-style (the source of both)"),
            ("", f"`{MEDIA_DIR}/`", "every image and audio file an item refers to"),
        ],
    )
    media = (
        "An item without an image or without audio has null in that column. benchsmith gives "
        "an item at most one image and one audio clip (one per input modality); an item with "
        "more (only a hand-written one can have them) keeps its first of each kind in these "
        f"columns, and all of them in `input` (the `{INSPECT_CONFIG}` config and `{_DATA_NAME}`)."
    )
    if stats.extra_media:
        media += (
            f" {stats.extra_media} item(s) here have more than one image or audio clip: "
            f"their other media are only in `input`."
        )
    return "\n\n".join(
        [
            "## Data files and item format",
            files,
            f"### Columns of the `{HF_CONFIG}` config",
            columns,
            media,
            _JSONL_FORMAT,
        ]
    )


def render_card(spec: BenchmarkSpec, stats: CardStats, sources: Sequence[DatasetCard]) -> str:
    """The benchmark's ``README.md``: a Hugging Face dataset card.

    Args:
        spec: The benchmark's plan (``spec.json``).
        stats: Its figures (see :func:`card_stats`).
        sources: The cards of the source datasets.

    Returns:
        The card: YAML front matter then Markdown.
    """
    meta = yaml.safe_dump(
        front_matter(spec, stats, sources),
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=10_000,
    )
    title = md_text(pretty_name(spec, stats)).replace("#", "\\#")
    sections = [
        f"# {title}",
        "A benchmark built by benchsmith for this intent:",
        _quote(spec.intent),
        _subtask_section(spec, stats),
        _size_section(stats),
        _sources_section(spec, sources),
        _exports_section(stats),
        _format_section(stats),
    ]
    return f"---\n{meta}---\n\n" + "\n\n".join(sections) + "\n"
