"""The Python API of evaluation: run models on a benchmark, judge its items, write the report.

    from benchsmith.evaluate.api import evaluate_benchmark, judge_benchmark, write_report

    result = evaluate_benchmark("out/capitals", ["baseline:random", "local"])
    result.data["models"]["local"]["accuracy"]

Results land in the benchmark folder: ``eval.json`` (machines), ``eval_samples.jsonl`` (every
answer and its score), ``judge.json`` (item quality) and ``report.html`` (people). Model
calls are recorded under ``BENCH/eval_runs/`` unless the configuration names a run folder;
a rerun is served from those records (resume).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchsmith.config import RunConfig
from benchsmith.errors import ModelSpecError
from benchsmith.evaluate.analysis import summarize
from benchsmith.evaluate.baselines import BASELINES, is_baseline
from benchsmith.evaluate.folder import EvaluationError, load_items
from benchsmith.evaluate.html import render_report
from benchsmith.evaluate.quality import judge_benchmark_items
from benchsmith.evaluate.runner import Response, run_models
from benchsmith.evaluate.scoring import answer_format, score_item
from benchsmith.files import write_json
from benchsmith.item import Item
from benchsmith.layout import (
    EVAL_FILE,
    EVAL_RUNS_DIR,
    HTML_REPORT,
    JUDGE_FILE,
    SAMPLES_FILE,
    read_json,
    read_spec,
)
from benchsmith.llm.client import LLMRuntime, RoleModel
from benchsmith.llm.registry import runtime_for
from benchsmith.llm.specs import parse_model_spec
from benchsmith.package.calibration import (
    SEPARABILITY_END,
    SEPARABILITY_START,
    add_to_report,
    current_calibration,
)
from benchsmith.package.portable import portable_path


@dataclass
class EvalResult:
    """What :func:`evaluate_benchmark` produced."""

    bench_dir: Path
    eval_path: Path
    report_path: Path
    data: dict[str, Any]
    samples: list[dict[str, Any]] = field(default_factory=list)
    new_calls: int = 0
    """Model calls made by this run (0 when every reply came from the run records)."""

    def accuracy(self, model: str) -> float | None:
        """A model's accuracy over its answered items."""
        return self.data["models"][model]["accuracy"]


@dataclass
class JudgeResult:
    """What :func:`judge_benchmark` produced."""

    bench_dir: Path
    judge_path: Path
    report_path: Path
    data: dict[str, Any]


def _config(bench_dir: Path, config: RunConfig | None) -> RunConfig:
    config = config or RunConfig()
    if config.paths.run_dir is None:
        config = config.with_paths(run_dir=str(bench_dir / EVAL_RUNS_DIR))
    return config


def check_models(models: Sequence[str]) -> list[str]:
    """The model specs, stripped and de-duplicated, each checked.

    Raises:
        EvaluationError: No model was given.
        ModelSpecError: A spec is neither a baseline nor a model spec.
    """
    specs = list(dict.fromkeys(m.strip() for m in models if m and m.strip()))
    if not specs:
        raise EvaluationError(
            "no model to evaluate; give --model SPEC (local, openai:MODEL, MODEL@URL, "
            f"{', '.join(BASELINES)})"
        )
    for spec in specs:
        if is_baseline(spec):
            if spec not in BASELINES:
                raise ModelSpecError(f"unknown baseline {spec!r}; use {', '.join(BASELINES)}")
        else:
            parse_model_spec(spec)
    return specs


def judge_configured(runtime: LLMRuntime) -> bool:
    """Whether the judge role was set on purpose (not the built-in ``local`` default)."""
    resolved = runtime.models.get("judge")
    return resolved is not None and resolved.source != "default"


def _score_all(
    items: Sequence[Item],
    responses: dict[str, list[Response]],
    judge: RoleModel | None,
    concurrency: int,
) -> list[dict[str, Any]]:
    by_id = {i.id: i for i in items}

    def one(response: Response) -> dict[str, Any]:
        item = by_id[response.item_id]
        sample = response.as_dict() | {
            "answer_format": answer_format(item),
            "target": item.target,
            "correct": None,
            "rule": "",
        }
        if response.status == "answered":
            score = score_item(response.answer, item, judge=judge)
            sample.update(correct=score.correct, rule=score.rule)
        return sample

    flat = [r for rs in responses.values() for r in rs]
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        return list(pool.map(one, flat))


class AnswerRun:
    """Models answering a folder's items under one run configuration, and what it cost.

    ``eval`` asks once, ``calibrate`` once per epoch (:meth:`answer`); each answer is
    scored. Open answers are graded by the judge role when one was configured on purpose,
    else by an includes match (see :func:`judge_configured`). The model calls and the time
    are counted from the run's start.
    """

    def __init__(
        self,
        folder: Path,
        config: RunConfig | None,
        *,
        concurrency: int,
        on_done: Callable[[Response], None] | None,
    ) -> None:
        """Start the run: its configuration (records under ``BENCH/eval_runs`` by default)."""
        self.folder = folder
        self.config = _config(folder, config)
        self.runtime = runtime_for(self.config)
        self.concurrency = concurrency
        self.on_done = on_done
        self.judge: RoleModel | None = None
        """The judge that graded the latest answers' open ones (None: an includes match)."""
        self._calls_before = len(self.runtime.records)
        self._started = time.monotonic()

    def answer(
        self, items: Sequence[Item], specs: Sequence[str], epoch: int = 0
    ) -> tuple[dict[str, list[Response]], list[dict[str, Any]]]:
        """Every model's answers to every item (one epoch), and the answers scored."""
        responses = run_models(
            items,
            specs,
            bench_dir=self.folder,
            runtime=self.runtime,
            seed=self.config.seed,
            concurrency=self.concurrency,
            on_done=self.on_done,
            epoch=epoch,
        )
        needs_judge = any(answer_format(i) == "open" for i in items)
        configured = needs_judge and judge_configured(self.runtime)
        self.judge = self.runtime.for_role("judge") if configured else None
        return responses, _score_all(items, responses, self.judge, self.concurrency)

    @property
    def open_answers(self) -> str:
        """How open answers were graded, in the words of ``eval.json``."""
        return "judge role " + self.judge.spec.text if self.judge else "includes match"

    @property
    def new_calls(self) -> int:
        """Model calls made since the run started (not served from the run records)."""
        return len(self.runtime.records) - self._calls_before

    def seconds(self) -> float:
        """Seconds since the run started, to the hundredth."""
        return round(time.monotonic() - self._started, 2)


def evaluate_benchmark(
    bench_dir: str | Path,
    models: list[str],
    *,
    config: RunConfig | None = None,
    concurrency: int = 4,
    limit: int | None = None,
    on_done: Callable[[Response], None] | None = None,
    report: bool = True,
) -> EvalResult:
    """Run models on every item of a benchmark, score them and write ``eval.json``.

    Args:
        bench_dir: The benchmark folder.
        models: Model specs (``local``, ``openai:MODEL``, ``MODEL@URL``...) and baselines
            (``baseline:random``, ``baseline:first``).
        config: Run configuration (judge role, run folder, seed, budget); the run records
            go to ``BENCH/eval_runs`` when it names no run folder.
        concurrency: (model, item) pairs in flight at once.
        limit: Only the first ``limit`` items.
        on_done: Called after each (model, item) pair (progress bars).
        report: Also write ``report.html``.

    Returns:
        The result, with the ``eval.json`` data.

    Raises:
        EvaluationError: The folder has no readable items, or no model was given.
        ModelSpecError: A model spec is malformed.
        BudgetExceededError: The budget ran out.
    """
    folder = Path(bench_dir)
    specs = check_models(models)
    items = load_items(folder)
    if limit is not None:
        if limit < 1:
            raise EvaluationError(f"--limit must be at least 1, got {limit}")
        items = items[:limit]
    run = AnswerRun(folder, config, concurrency=concurrency, on_done=on_done)
    responses, samples = run.answer(items, specs)
    seed = run.config.seed
    data = summarize(items, samples, specs, seed=seed)
    spec = read_spec(folder)
    # Paths as the folder records them: its name, and the run folder relative to it (or
    # by its name), never the evaluating machine's absolute paths.
    run_dir = run.config.paths.run_dir
    data = {
        "benchmark": {
            "path": folder.resolve().name,
            "intent": spec.intent if spec else None,
            "n_items": len(items),
            "limit": limit,
        },
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "open_answers": run.open_answers,
        **data,
        "run": {
            "run_dir": portable_path(run_dir, folder) if run_dir else None,
            "new_calls": run.new_calls,
            # Per model: calls this run made (the rest came from the run records).
            "new_calls_by_model": {
                m: sum(1 for r in responses[m] if r.call and not r.call["cached"]) for m in specs
            },
            "seconds": run.seconds(),
            "seed": seed,
        },
    }
    eval_path = write_json(folder / EVAL_FILE, data)
    lines = "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in samples)
    (folder / SAMPLES_FILE).write_text(lines, encoding="utf-8")
    if report:
        write_separability(folder, data)
    report_path = write_report(folder) if report else folder / HTML_REPORT
    return EvalResult(
        bench_dir=folder,
        eval_path=eval_path,
        report_path=report_path,
        data=data,
        samples=samples,
        new_calls=data["run"]["new_calls"],
    )


def separability_section(data: dict[str, Any]) -> str:
    """The separability section of ``report.md`` from ``eval.json``'s data (Markdown)."""
    sep = data.get("separability") or {}
    lines = [SEPARABILITY_START, "## Separability (benchsmith eval)", ""]
    if sep.get("share") is None:
        lines.append("Not computable: fewer than two models answered the same items.")
    else:
        lines += [
            f"{sep['separated']} of {sep['pairs']} model pairs ({100 * sep['share']:.1f}%) "
            f"have 95% bootstrap intervals that do not overlap ({sep['rounds']} resamples of "
            f"{sep['n_items']} shared items). Arena-Hard reports 87.4% for its benchmark and "
            "22.6% for MT-Bench.",
            "",
            "| Model | Accuracy | 95% bootstrap interval |",
            "|---|---|---|",
        ]
        for model, interval in sep["intervals"].items():
            acc = data["models"][model]["accuracy"]
            shown = (
                "n/a" if interval is None else f"{100 * interval[0]:.1f}-{100 * interval[1]:.1f}%"
            )
            lines.append(
                f"| `{model}` | {'n/a' if acc is None else f'{100 * acc:.1f}%'} | {shown} |"
            )
    return "\n".join([*lines, SEPARABILITY_END]) + "\n"


def write_separability(folder: Path, data: dict[str, Any]) -> None:
    """Put an evaluation's separability into the folder's ``report.md`` and ``report.json``."""
    sep = data.get("separability") or {}
    value = {"source": EVAL_FILE, "models": list(data["models"]), **sep}
    marks = (SEPARABILITY_START, SEPARABILITY_END)
    add_to_report(folder, "separability", value, separability_section(data), marks)


def judge_benchmark(
    bench_dir: str | Path,
    *,
    config: RunConfig | None = None,
    concurrency: int = 4,
    limit: int | None = None,
    on_done: Callable[[str], None] | None = None,
    report: bool = True,
) -> JudgeResult:
    """Rate every item (FSQ, QAC, CQC, TSD, SSC) and the benchmark (UIA) with the judge role.

    Args:
        bench_dir: The benchmark folder.
        config: Run configuration; its judge role rates (``--model``/``role_models``).
        concurrency: Items rated at once.
        limit: Only the first ``limit`` items.
        on_done: Called with each item id when it is rated.
        report: Also (re)write ``report.html``.

    Returns:
        The result, with the ``judge.json`` data.
    """
    folder = Path(bench_dir)
    items = load_items(folder)
    if limit is not None:
        items = items[: max(1, limit)]
    runtime = runtime_for(_config(folder, config))
    data = judge_benchmark_items(
        items,
        runtime.for_role("judge"),
        read_spec(folder),
        concurrency=concurrency,
        on_done=on_done,
    )
    data["created"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    judge_path = write_json(folder / JUDGE_FILE, data)
    report_path = write_report(folder) if report else folder / HTML_REPORT
    return JudgeResult(folder, judge_path, report_path, data)


def read_samples(bench_dir: str | Path) -> list[dict[str, Any]]:
    """The answers of ``BENCH/eval_samples.jsonl`` (empty when there are none).

    A line that is not a JSON object (a file cut short) is left out.
    """
    path = Path(bench_dir) / SAMPLES_FILE
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            sample = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(sample, dict):
            out.append(sample)
    return out


def write_report(bench_dir: str | Path) -> Path:
    """Write ``BENCH/report.html`` from ``eval.json``, the answers, ``judge.json`` and the items.

    Any result file may be missing; the page shows what exists.

    Returns:
        The path of the page.
    """
    folder = Path(bench_dir)
    items = load_items(folder)
    page = render_report(
        items=items,
        spec=read_spec(folder),
        evaluation=read_json(folder / EVAL_FILE),
        quality=read_json(folder / JUDGE_FILE),
        samples=read_samples(folder),
        # only a calibration of these very items (a refilled folder's is stale)
        calibration=current_calibration(folder),
    )
    path = folder / HTML_REPORT
    path.write_text(page, encoding="utf-8")
    return path
