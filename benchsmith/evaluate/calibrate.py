"""Calibrate a benchmark on a panel of models: fitted item difficulty and discrimination.

    from benchsmith.evaluate.calibrate import calibrate_benchmark

    result = calibrate_benchmark("out/capitals", ["baseline:random", "local", "gpt@URL"])
    result.data["separability"]["share"]

The panel answers every item (the machinery of ``benchsmith eval``: run records under
``BENCH/eval_runs``, so a killed run resumes without asking again, and the budget applies),
``epochs`` times when asked (see :class:`~benchsmith.evaluate.runner.ModelRunner`: the
first sample is ``eval``'s reproducible answer, each further one a sampled answer of its own).
A two-parameter logistic IRT model (:mod:`benchsmith.evaluate.irt`) is fitted to the
answers; what comes out:

- ``calibration.json``: per item its fitted difficulty ``b`` and discrimination ``a``, the
  share of the panel's answers that were right, and a flag for items every model or no
  model solves; per model its ability, accuracy and bootstrap interval; the separability
  of the panel (the share of model pairs whose intervals do not overlap); and a subset of
  items that keeps the panel's ranking, with its score error against the full set.
- every item's ``metadata.calibration`` in ``data/test.jsonl`` (and the Hugging Face split),
  and a calibration section in the card (``README.md``) and in ``report.md``/``report.json``.

Six models answering once each tell little about one item: with one answer per model the
fitted difficulty follows the true one only roughly (see ``tests/test_irt.py``); several
epochs, or a larger panel, give each item more answers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchsmith import statistics as st
from benchsmith.config import RunConfig
from benchsmith.evaluate import irt
from benchsmith.evaluate.api import AnswerRun, check_models, write_report
from benchsmith.evaluate.folder import EvaluationError, load_items
from benchsmith.evaluate.runner import Response
from benchsmith.files import write_json
from benchsmith.item import Item
from benchsmith.layout import CALIBRATION_FILE, SAMPLES_FILE
from benchsmith.package.calibration import write_calibration

MIN_PANEL = 3
"""Fewer models cannot rank anything worth fitting."""
DEFAULT_SUBSET = 100
BOOTSTRAP_ROUNDS = 1000
LOW_DISCRIMINATION = 0.3
"""Items whose fitted discrimination is below this separate the panel little (flagged)."""


@dataclass
class CalibrationResult:
    """What :func:`calibrate_benchmark` produced."""

    bench_dir: Path
    path: Path
    data: dict[str, Any]
    new_calls: int = 0


def panel_matrix(
    items: Sequence[Item], models: Sequence[str], samples: Sequence[dict[str, Any]]
) -> tuple[np.ndarray, np.ndarray]:
    """Right answers and answers per (model, item) from scored samples of any epochs.

    Skipped and failed answers count in neither (missing, not wrong).
    """
    row = {m: r for r, m in enumerate(models)}
    col = {item.id: c for c, item in enumerate(items)}
    correct = np.zeros((len(models), len(items)))
    attempts = np.zeros((len(models), len(items)))
    for sample in samples:
        r, c = row.get(sample["model"]), col.get(sample["item_id"])
        if r is None or c is None or sample["status"] != "answered":
            continue
        attempts[r, c] += 1
        correct[r, c] += 1 if sample["correct"] else 0
    return correct, attempts


def _flag(item_correct: np.ndarray, item_attempts: np.ndarray, a: float) -> str | None:
    answered = item_attempts > 0
    if not answered.any():
        return "unanswered"
    if item_correct[answered].sum() == item_attempts[answered].sum():
        return "solved_by_all"
    if item_correct[answered].sum() == 0:
        return "solved_by_none"
    if a < LOW_DISCRIMINATION:
        return "low_discrimination"
    return None


def calibrate_benchmark(
    bench_dir: str | Path,
    models: list[str],
    *,
    config: RunConfig | None = None,
    epochs: int = 1,
    subset_size: int | None = None,
    concurrency: int = 4,
    on_done: Callable[[Response], None] | None = None,
    write: bool = True,
) -> CalibrationResult:
    """Run a panel on every item, fit a 2PL IRT model and write what it found.

    Args:
        bench_dir: The benchmark folder.
        models: The panel: model specs and baselines (at least :data:`MIN_PANEL`).
        config: Run configuration (run folder, seed, budget, judge for open answers).
        epochs: Answers per model per item (see the module docstring).
        subset_size: Items in the ranking-preserving subset (default: 100, or a quarter of
            the items when that is more than the items).
        concurrency: (model, item) pairs in flight at once.
        on_done: Called after each answer (progress bars).
        write: Write ``calibration.json``, the items' metadata, the card and the report.

    Returns:
        The result, with the ``calibration.json`` data.

    Raises:
        EvaluationError: Fewer than three models, no readable items, a bad epoch or subset
            count, or fewer than two items any model answered.
        ModelSpecError: A model spec is malformed.
        BudgetExceededError: The budget ran out (the answers so far are in the records).
    """
    folder = Path(bench_dir)
    if epochs < 1:
        raise EvaluationError(f"--epochs must be at least 1, got {epochs}")
    specs = check_models(models)
    if len(specs) < MIN_PANEL:
        raise EvaluationError(
            f"calibrate needs a panel of at least {MIN_PANEL} models (baselines count), "
            f"got {len(specs)}: add --model SPEC"
        )
    items = load_items(folder)
    if subset_size is not None and subset_size < 1:
        raise EvaluationError(f"--subset must be at least 1, got {subset_size}")
    run = AnswerRun(folder, config, concurrency=concurrency, on_done=on_done)
    samples: list[dict[str, Any]] = []
    for epoch in range(epochs):
        _responses, scored = run.answer(items, specs, epoch)
        samples += [s | {"epoch": epoch} for s in scored]
    seed = run.config.seed
    correct, attempts = panel_matrix(items, specs, samples)
    data = analyse(items, specs, correct, attempts, seed=seed, subset_size=subset_size)
    data = {
        "benchmark": {"name": folder.name, "n_items": len(items)},
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "epochs": epochs,
        "open_answers": run.open_answers,
        **data,
        "run": {"new_calls": run.new_calls, "seconds": run.seconds(), "seed": seed},
    }
    path = folder / CALIBRATION_FILE
    if write:
        write_json(path, data)
        write_calibration(folder, data)
        write_report(folder)
    return CalibrationResult(folder, path, data, data["run"]["new_calls"])


def _predicted(item: Item) -> float | None:
    """The generator's predicted difficulty of an item (``metadata.difficulty_model.score``)."""
    model = item.metadata.get("difficulty_model")
    return model.get("score") if isinstance(model, dict) else None


def _agreement(pairs: Sequence[tuple[float, float]]) -> dict[str, Any]:
    """How the generators' predicted difficulty ranks items against the fitted one."""
    if len(pairs) < 3 or len({p for p, _ in pairs}) < 2 or len({b for _, b in pairs}) < 2:
        return {"items": len(pairs), "spearman": None}
    from scipy.stats import spearmanr

    rho = float(spearmanr([p for p, _ in pairs], [b for _, b in pairs])[0])
    return {"items": len(pairs), "spearman": round(rho, 4)}


def analyse(
    items: Sequence[Item],
    models: Sequence[str],
    correct: np.ndarray,
    attempts: np.ndarray,
    *,
    seed: int = 0,
    subset_size: int | None = None,
    rounds: int = BOOTSTRAP_ROUNDS,
) -> dict[str, Any]:
    """The calibration of a panel's answers (the body of ``calibration.json``).

    Args:
        items: The items (columns of the matrices).
        models: The panel (rows).
        correct: Right answers per (model, item).
        attempts: Answers per (model, item); 0 is missing.
        seed: Seeds the bootstrap and the subset choice.
        subset_size: Items in the subset (see :func:`calibrate_benchmark`).
        rounds: Bootstrap rounds.

    Raises:
        EvaluationError: Fewer than two items were answered by anyone.
    """
    answered = attempts.sum(axis=0) > 0
    if answered.sum() < 2:
        raise EvaluationError(
            "the panel answered fewer than two items (every answer skipped or failed); "
            f"see {SAMPLES_FILE} after 'benchsmith eval' for why"
        )
    fit = irt.fit_2pl(correct, attempts)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(attempts > 0, correct / np.maximum(attempts, 1), np.nan)
    boot = st.bootstrap_intervals(share, rounds=rounds, seed=seed)
    accuracy, intervals = boot["accuracy"], boot["intervals"]
    separability = st.separability(intervals, names=list(models))
    n_items = int(answered.sum())
    k = subset_size or (DEFAULT_SUBSET if n_items >= 2 * DEFAULT_SUBSET else max(2, n_items // 4))
    k = min(k, n_items)
    subset = irt.select_subset(correct, attempts, fit, k, seed=seed)
    chosen = {int(i) for i in subset.indices}
    per_item = []
    for c, item in enumerate(items):
        flag = _flag(correct[:, c], attempts[:, c], float(fit.discrimination[c]))
        n = attempts[:, c].sum()
        per_item.append(
            {
                "id": item.id,
                "subtask": item.metadata.get("subtask"),
                "difficulty": round(float(fit.difficulty[c]), 4),
                "discrimination": round(float(fit.discrimination[c]), 4),
                "p_correct": round(float(correct[:, c].sum() / n), 4) if n else None,
                "answers": int(n),
                "flag": flag,
                "in_subset": c in chosen,
                "predicted": _predicted(item),
            }
        )
    predicted = [(r["predicted"], r["difficulty"]) for r in per_item if r["predicted"] is not None]
    flags: dict[str, list[str]] = {}
    for row in per_item:
        if row["flag"]:
            flags.setdefault(row["flag"], []).append(row["id"])
    panel = [
        {
            "model": m,
            "ability": round(float(fit.ability[r]), 4),
            "accuracy": None if accuracy[r] is None else round(float(accuracy[r]), 4),
            "ci95": None if intervals[r] is None else [round(float(x), 4) for x in intervals[r]],
            "answers": int(attempts[r].sum()),
            "subset_estimate": round(float(subset.estimated[r]), 4),
        }
        for r, m in enumerate(models)
    ]
    return {
        "panel": panel,
        "irt": {
            "model": "2PL",
            "method": fit.method,
            "converged": bool(fit.converged),
            "log_likelihood": round(float(fit.log_likelihood), 4),
        },
        "items": per_item,
        "flags": flags,
        "subset": {
            "size": len(chosen),
            "ids": [items[i].id for i in sorted(chosen)],
            "mean_abs_error": round(float(subset.mean_absolute_error), 4),
            "kendall_tau": None if subset.kendall_tau is None else round(subset.kendall_tau, 4),
            "ranking_kept": bool(subset.ranking_kept),
        },
        "separability": separability,
        "predicted_vs_fitted": _agreement(predicted),
        "methods": {
            "irt": "two-parameter logistic model P(right) = 1 / (1 + exp(-a (theta - b))), "
            + fit.method,
            "ci95": f"percentile bootstrap over items, {rounds} rounds, seed {seed}, the same "
            "resample for every model",
            "separability": "share of model pairs whose 95 % bootstrap intervals do not overlap "
            "(Arena-Hard's measure)",
            "subset": subset.method,
            "flags": f"solved_by_all / solved_by_none from the answers; low_discrimination "
            f"when the fitted a < {LOW_DISCRIMINATION}",
            "predicted_vs_fitted": "Spearman rho between the generator's predicted difficulty "
            "(metadata.difficulty_model.score) and the fitted b, over items that have one",
        },
    }
