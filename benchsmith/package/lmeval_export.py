"""The lm-evaluation-harness export: a task for the benchmark's text-only items.

lm-eval takes text prompts only, so items with an image or audio part are left out (and
counted, by reason). ``write_lmeval_task`` writes ``BENCH/lmeval/``:

- ``<task>.yaml``: a ``generate_until`` task (API chat models such as
  ``local-chat-completions`` support nothing else) whose ``custom_dataset`` is
  ``utils.load``;
- ``utils.py``: standard library (plus ``datasets``, which lm-eval depends on) only. ``load``
  streams ``../data/test.jsonl`` (found relative to its own ``__file__``, so the folder can
  move and lm-eval can run from anywhere) into an Arrow-backed dataset of compact documents,
  one per text-only item; ``process_results`` scores an answer with the same per-format rules
  as the Inspect task (:func:`benchsmith.package.inspect_export.score_answer`, whose source is
  copied in).

Each document's ``prompt`` (the YAML's ``doc_to_text``) is the text of the one user message the
item is asked with everywhere (:func:`benchsmith.package.item_prompt.prompt_messages`, copied
in): the Inspect task and ``benchsmith eval`` send the same message. The task has no
``description``, so lm-eval sends that message alone with ``--apply_chat_template`` (no system
message) and the same text without it. Multiple-choice prompts list the lettered choices and
ask for ``ANSWER: X``; the target is the letter. The metric is ``acc``, the mean of the
per-item 0/1 scores. ``--metadata '{"subtask": "ID"}'`` restricts the task to
some subtasks (ids, comma-separated).
"""

from __future__ import annotations

import functools
import inspect
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchsmith.errors import ExportError
from benchsmith.layout import data_path
from benchsmith.package.hf_export import data_lines
from benchsmith.package.inspect_export import scoring_source, task_name
from benchsmith.package.item_prompt import media_kinds, prompt_messages, prompt_source
from benchsmith.spec import BenchmarkSpec

LMEVAL_DIR = "lmeval"
DEFAULT_MAX_GEN_TOKS = 256


@dataclass
class LmEvalExport:
    """What :func:`write_lmeval_task` wrote, or why it wrote nothing.

    Attributes:
        task_name: The lm-eval task name (``benchsmith_<slug>``).
        yaml_path: The task's YAML file; None when nothing was written.
        n_items: Text-only items the task runs.
        n_skipped: Items left out.
        skip_reasons: Why, as reason to count (``{"has image": 3, "has audio": 5}``).
        message: One line for people: what was written, or why nothing was.
    """

    task_name: str
    yaml_path: Path | None
    n_items: int
    n_skipped: int
    skip_reasons: dict[str, int] = field(default_factory=dict)
    message: str = ""

    @property
    def written(self) -> bool:
        """Whether a task was written."""
        return self.yaml_path is not None


# -- item rules (standard library only: copied into the generated utils.py) ----------------------
def skip_reason(record: dict) -> str | None:
    """Why lm-eval cannot take an item, or None when it is text-only.

    Args:
        record: One line of ``data/test.jsonl``, parsed.

    Returns:
        ``"has image"``, ``"has audio"``, ``"has image and audio"`` or None.
    """
    kinds = media_kinds(record)
    if len(kinds) > 1:
        return "has image and audio"
    return f"has {kinds[0]}" if kinds else None


def doc_prompt(record: dict) -> str:
    """The text lm-eval sends for a text-only item: its prompt message's text.

    The item's prompt (:func:`prompt_messages`) is one user message for every item
    benchsmith builds; an input of several text messages (which lm-eval cannot send as
    separate roles) gives their texts joined by blank lines.

    Args:
        record: One text-only line of ``data/test.jsonl``, parsed.

    Returns:
        The prompt.
    """
    texts = [str(m["content"]) for m in prompt_messages(record)]
    return "\n\n".join(t for t in texts if t)


def to_doc(record: dict) -> dict:
    """The compact lm-eval document of a text-only item.

    Args:
        record: One text-only line of ``data/test.jsonl``, parsed.

    Returns:
        ``id``, ``prompt``, ``target``, ``answer_format``, ``tolerance`` (None when unset),
        ``n_choices`` and ``subtask``.
    """
    meta = record.get("metadata") or {}
    choices = record.get("choices") or []
    tolerance = meta.get("tolerance")
    fmt = "multiple_choice" if choices else str(meta.get("answer_format") or "short_answer")
    return {
        "id": str(record["id"]),
        "prompt": doc_prompt(record),
        "target": str(record["target"]),
        "answer_format": fmt,
        "tolerance": float(tolerance) if isinstance(tolerance, (int, float)) else None,
        "n_choices": len(choices),
        "subtask": str(meta.get("subtask") or ""),
    }


ITEM_FUNCTIONS: tuple[Callable[..., object], ...] = (skip_reason, doc_prompt, to_doc)
"""The item rules, as copied into the generated ``utils.py``."""


# -- the generated files ----------------------------------------------------------------------
_UTILS_HEADER = '''\
"""lm-evaluation-harness helpers of the benchsmith benchmark in the parent folder (generated).

load() streams ../data/test.jsonl (relative to this file) into the task's documents, keeping
only text-only items (lm-eval takes no image or audio). A document's prompt is the text of the
one user message the item is asked with (prompt_messages below), the same message the Inspect
task (inspect_task.py) and benchsmith eval send. process_results() scores an answer
with the same per-format rules as the Inspect task (inspect_task.py):
multiple_choice: the answer's letter; short_answer: normalized exact match; numeric: first
number within relative tolerance (default 0.01); open: normalized target found in the answer.
Restrict to some subtasks with: --metadata '{"subtask": "ID1,ID2"}'.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data" / "test.jsonl"

'''

_UTILS_BODY = '''

def iter_docs(path: str, subtask: str = "", stamp: str = "") -> Iterator[dict]:
    """The documents of the text-only items of a test.jsonl, one line at a time.

    ``stamp`` (the file's size and modification time) only keys the datasets cache.
    """
    wanted = {s.strip() for s in subtask.split(",") if s.strip()}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            record = json.loads(line)
            if skip_reason(record) is not None:
                continue
            doc = to_doc(record)
            if wanted and doc["subtask"] not in wanted:
                continue
            yield doc


def load(**kwargs: Any) -> dict:
    """The task's dataset: {"test": the documents}, for custom_dataset in the YAML.

    lm-eval passes the YAML's metadata (and --metadata) as keyword arguments; "subtask"
    keeps only those subtasks.
    """
    import datasets

    stat = DATA.stat()
    features = datasets.Features(
        {
            "id": datasets.Value("string"),
            "prompt": datasets.Value("string"),
            "target": datasets.Value("string"),
            "answer_format": datasets.Value("string"),
            "tolerance": datasets.Value("float64"),
            "n_choices": datasets.Value("int64"),
            "subtask": datasets.Value("string"),
        }
    )
    docs = datasets.Dataset.from_generator(
        iter_docs,
        features=features,
        gen_kwargs={
            "path": str(DATA),
            "subtask": str(kwargs.get("subtask") or ""),
            "stamp": f"{stat.st_size}-{stat.st_mtime_ns}",
        },
    )
    if len(docs) == 0:
        raise ValueError(f"no text-only item in {DATA} (subtask={kwargs.get('subtask')!r})")
    return {"test": docs}


def process_results(doc: dict, results: list[str]) -> dict[str, float]:
    """acc: 1.0 when the answer is right by its format's rule, else 0.0."""
    answer = results[0] if results else ""
    right = score_answer(
        answer,
        doc["target"],
        doc["answer_format"],
        n_choices=int(doc["n_choices"] or 0),
        tolerance=doc["tolerance"],
    )
    return {"acc": 1.0 if right else 0.0}
'''

_YAML = """\
# lm-evaluation-harness task of a benchsmith benchmark (generated by benchsmith).
# The __N__ text-only items of ../data/test.jsonl (__SKIPPED__ items with image or audio input
# are left out: lm-eval has no image or audio input). Run from anywhere with:
#   lm_eval --include_path path/to/BENCH/lmeval --tasks __TASK__ --model local-chat-completions \\
#     --model_args model=NAME,base_url=URL/v1/chat/completions,num_concurrent=1,\\
#       tokenized_requests=False,tokenizer_backend=None --apply_chat_template
# doc_to_text is the item's whole prompt, sent as one user message (no description, so no
# system message): the same message inspect_task.py and `benchsmith eval` send.
task: __TASK__
dataset_path: ""
dataset_name: null
custom_dataset: !function utils.load
test_split: test
output_type: generate_until
doc_to_text: prompt
doc_to_target: target
process_results: !function utils.process_results
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
generation_kwargs:
  until: []
  do_sample: false
  temperature: 0.0
  max_gen_toks: __MAX__
metadata:
  version: 1.0
  n_items: __N__
"""


@functools.cache
def render_utils() -> str:
    """The text of the generated ``utils.py`` (standard library and ``datasets`` only).

    Read once per process: reading the functions' source took about 15 ms of a build's
    packaging, after its last model reply (:meth:`Workspace.warm_packaging` reads it
    earlier).
    """
    items = "\n\n".join(inspect.getsource(fn).rstrip() + "\n" for fn in ITEM_FUNCTIONS)
    return (
        _UTILS_HEADER
        + "\n"
        + prompt_source()
        + "\n\n"
        + scoring_source()
        + "\n\n"
        + items
        + _UTILS_BODY
    )


def render_yaml(name: str, n_items: int, n_skipped: int) -> str:
    """The text of the task's YAML file.

    Args:
        name: The task name (a Python identifier).
        n_items: Text-only items (recorded in the metadata and a comment).
        n_skipped: Items left out (a comment).

    Raises:
        ValueError: ``name`` is not an identifier.
    """
    if not name.isidentifier():
        raise ValueError(f"task name {name!r} is not a Python identifier")
    return (
        _YAML.replace("__TASK__", name)
        .replace("__N__", str(n_items))
        .replace("__SKIPPED__", str(n_skipped))
        .replace("__MAX__", str(DEFAULT_MAX_GEN_TOKS))
    )


@dataclass
class TextOnlyCount:
    """Text-only items and the skip reasons of the others, counted one record at a time."""

    n_text: int = 0
    reasons: Counter[str] = field(default_factory=Counter)

    def add(self, record: dict[str, Any]) -> None:
        """Count one item's line of ``data/test.jsonl``, parsed."""
        reason = skip_reason(record)
        if reason is None:
            self.n_text += 1
        else:
            self.reasons[reason] += 1


def count_items(path: Path) -> tuple[int, Counter[str]]:
    """Text-only items of a ``test.jsonl`` and the skip reasons of the others, streamed.

    Args:
        path: The ``data/test.jsonl`` file.

    Returns:
        ``(n_text_only, reasons)``.

    Raises:
        ExportError: The file is missing or a line is not a JSON item.
    """
    tally = TextOnlyCount()
    for number, record in data_lines(path):
        if not isinstance(record, dict) or "id" not in record or "input" not in record:
            raise ExportError(f"{path}:{number}: not an item (needs id and input)")
        tally.add(record)
    return tally.n_text, tally.reasons


def write_lmeval_task(
    bench_dir: Path, spec: BenchmarkSpec, counts: TextOnlyCount | None = None
) -> LmEvalExport:
    """Write ``BENCH/lmeval/`` (task YAML and ``utils.py``) for the text-only items.

    Reads ``data/test.jsonl`` one line at a time to count them (unless ``counts`` are
    given). When no item is text-only, writes nothing (and removes a stale ``lmeval/`` task
    from an earlier export).

    Args:
        bench_dir: The benchmark folder.
        spec: Its specification (names the task).
        counts: The items already counted, when the caller read the file for several
            exports at once.

    Returns:
        What was written: the YAML's path, the task name, the item and skip counts.

    Raises:
        ExportError: ``data/test.jsonl`` is missing or malformed.
    """
    bench_dir = Path(bench_dir)
    name = task_name(bench_dir, spec)
    if counts is None:
        n_items, reasons = count_items(data_path(bench_dir))
    else:
        n_items, reasons = counts.n_text, counts.reasons
    n_skipped = sum(reasons.values())
    out_dir = bench_dir / LMEVAL_DIR
    yaml_path = out_dir / f"{name}.yaml"
    if n_items == 0:
        for stale in (yaml_path, out_dir / "utils.py"):
            stale.unlink(missing_ok=True)
        return LmEvalExport(
            task_name=name,
            yaml_path=None,
            n_items=0,
            n_skipped=n_skipped,
            skip_reasons=dict(sorted(reasons.items())),
            message=f"no lm-eval task: none of the {n_skipped} items is text-only "
            "(lm-eval has no image or audio input)",
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    yaml_path.write_text(render_yaml(name, n_items, n_skipped), encoding="utf-8")
    (out_dir / "utils.py").write_text(render_utils(), encoding="utf-8")
    return LmEvalExport(
        task_name=name,
        yaml_path=yaml_path,
        n_items=n_items,
        n_skipped=n_skipped,
        skip_reasons=dict(sorted(reasons.items())),
        message=f"lm-eval task {name}: {n_items} of {n_items + n_skipped} items (text only)",
    )
