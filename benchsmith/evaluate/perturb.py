"""A contamination check: the panel on the published items and on fresh instances of them.

    from benchsmith.evaluate.perturb import perturb_benchmark

    result = perturb_benchmark("out/capitals", ["local", "gpt@URL"], seed=1001)
    result.data["models"]["local"]["p_value"]

A model that saw the published items (in training, or in a leaked test set) answers them
better than new items of the same kind. GSM-Symbolic and Functional MATH measure this as
the gap between a published set and fresh instances; their critics showed that many such
gaps are not significant without a test. So:

1. Fresh instances: the published folder's approved plan (``spec.json``) is built again
   with a new seed into a sibling folder (``DIR-fresh-seedN``): the same subtasks,
   programs, formulas and quotas, new records, values and distractors. A fresh item has the
   id of the published item from the same slot; items only one build has are left out.
   A folder that already holds the fresh build is used as it is (a killed run resumes).
2. The panel answers both folders (``benchsmith eval``'s machinery and run records).
3. Per model, the paired scores (published item, its fresh instance) give the gap (published
   accuracy minus fresh accuracy), its 95 % interval (Newcombe) and the exact McNemar test's
   one-sided p-value for "the published items are easier for this model"; Holm's method
   adjusts the p-values over the panel. A gap is significant when the adjusted p < alpha.

The result goes to ``perturb.json`` in the published folder and a section of its
``report.md``; the fresh folder is named there by its path relative to the published one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchsmith import statistics as st
from benchsmith.api import build_benchmark
from benchsmith.config import RunConfig
from benchsmith.evaluate.api import check_models, evaluate_benchmark
from benchsmith.evaluate.folder import EvaluationError, load_items
from benchsmith.evaluate.runner import Response
from benchsmith.files import write_json
from benchsmith.item import Item
from benchsmith.layout import PERTURB_FILE, RUN_DIR, data_path, read_report, spec_path
from benchsmith.package.calibration import add_to_report

ALPHA = 0.01
SEED_STEP = 1000
"""Default fresh seed: the published build's seed plus this."""
START = "<!-- benchsmith:perturb -->"
END = "<!-- /benchsmith:perturb -->"


@dataclass
class PerturbResult:
    """What :func:`perturb_benchmark` produced."""

    bench_dir: Path
    fresh_dir: Path
    path: Path
    data: dict[str, Any]


def fresh_folder(bench_dir: Path, seed: int) -> Path:
    """Where the fresh instances of ``bench_dir`` built with ``seed`` go by default."""
    return bench_dir.parent / f"{bench_dir.name}-fresh-seed{seed}"


def _published_seed(bench_dir: Path) -> int | None:
    report = read_report(bench_dir) or {}
    seed = report.get("seed")
    return seed if isinstance(seed, int) else None


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of p-values (family-wise error over the panel)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def build_fresh(
    bench_dir: Path, fresh_dir: Path, seed: int, config: RunConfig | None
) -> dict[str, Any]:
    """Build the published plan again with ``seed`` into ``fresh_dir`` (or resume it)."""
    plan = spec_path(bench_dir)
    if not plan.is_file():
        raise EvaluationError(
            f"{bench_dir}: no {plan.name}, so there is no plan to build fresh instances from; "
            "perturb needs a folder benchsmith built"
        )
    config = (config or RunConfig()).model_copy(update={"seed": seed})
    resume = (fresh_dir / RUN_DIR).is_dir()
    result = build_benchmark(out=fresh_dir, config=config, spec=plan, resume=resume)
    return {"items": result.items, "status": result.status}


def _grounding(item: Item) -> str:
    source = item.metadata.get("source")
    if isinstance(source, dict) and source.get("grounding"):
        return str(source["grounding"])
    return item.id.rsplit("-", 1)[0]  # ids are GROUNDING-NNNNN


def _generator(item: Item) -> tuple[str, str, str]:
    """What made the item: its grounding, its program or chain, its predicted label."""
    meta = item.metadata
    program = meta.get("program")
    kind = str(program.get("kind", "")) if isinstance(program, dict) else ""
    steps = str(meta.get("steps", "")) if not kind else ""
    model = meta.get("difficulty_model")
    label = str(model.get("label", "")) if isinstance(model, dict) else ""
    return _grounding(item), kind or steps, label


def pair_items(published: Sequence[Item], fresh: Sequence[Item]) -> list[tuple[str, str]]:
    """Each published item with a fresh instance from the same generator.

    Fresh items are new draws (other records, values, distractors), so ids differ; an item
    is paired with a fresh one of the same grounding, program (or chain length) and predicted
    label, in id order; what is left is paired within the grounding; the rest is unpaired.
    """
    pairs: list[tuple[str, str]] = []
    left_pub, left_fresh = list(published), list(fresh)
    for key in (_generator, lambda i: (_grounding(i),)):
        groups: dict[tuple, tuple[list[Item], list[Item]]] = {}
        for side, items in enumerate((left_pub, left_fresh)):
            for item in sorted(items, key=lambda i: i.id):
                groups.setdefault(key(item), ([], []))[side].append(item)
        left_pub, left_fresh = [], []
        for pub, new in groups.values():
            pairs += [(a.id, b.id) for a, b in zip(pub, new, strict=False)]
            left_pub += pub[len(new) :]
            left_fresh += new[len(pub) :]
    return pairs


def paired_scores(
    published: list[dict[str, Any]],
    fresh: list[dict[str, Any]],
    model: str,
    pairs: Sequence[tuple[str, str]],
) -> tuple[list[tuple[str, str]], list[bool], list[bool]]:
    """The pairs both of whose items ``model`` answered, and its scores on each side."""

    def scores(samples: list[dict[str, Any]]) -> dict[str, bool]:
        return {
            s["item_id"]: bool(s["correct"])
            for s in samples
            if s["model"] == model and s["status"] == "answered"
        }

    first, second = scores(published), scores(fresh)
    kept = [(a, b) for a, b in pairs if a in first and b in second]
    return kept, [first[a] for a, _ in kept], [second[b] for _, b in kept]


def perturb_benchmark(
    bench_dir: str | Path,
    models: list[str],
    *,
    seed: int | None = None,
    fresh_dir: str | Path | None = None,
    config: RunConfig | None = None,
    alpha: float = ALPHA,
    concurrency: int = 4,
    on_done: Callable[[Response], None] | None = None,
) -> PerturbResult:
    """Build fresh instances, run the panel on both sets, test each model's gap.

    Args:
        bench_dir: The published benchmark folder.
        models: The panel (model specs and baselines).
        seed: The fresh build's seed (default: the published seed + 1000); it must differ
            from the published one.
        fresh_dir: Where the fresh build goes (default :func:`fresh_folder`).
        config: Run configuration of the fresh build and of the panel's runs.
        alpha: Significance level of the Holm-adjusted p-values.
        concurrency: Answers in flight at once.
        on_done: Called after each answer (progress bars).

    Returns:
        The result, with the ``perturb.json`` data.

    Raises:
        EvaluationError: No plan, the fresh seed equals the published one, or the two folders
            share no item.
    """
    folder = Path(bench_dir)
    specs = check_models(models)
    load_items(folder)  # a clear error before any build when the folder has no items
    published_seed = _published_seed(folder)
    if seed is None:
        seed = (published_seed or 0) + SEED_STEP
    if published_seed is not None and seed == published_seed:
        raise EvaluationError(
            f"--seed {seed} is the seed the published items were built with; fresh instances "
            "need another"
        )
    fresh = Path(fresh_dir) if fresh_dir is not None else fresh_folder(folder, seed)
    if not data_path(fresh).is_file() or (fresh / RUN_DIR).is_dir():
        build_fresh(folder, fresh, seed, config)
    started = time.monotonic()
    runs = {}
    for name, where in (("published", folder), ("fresh", fresh)):
        runs[name] = evaluate_benchmark(
            where, specs, config=config, concurrency=concurrency, on_done=on_done, report=False
        )
    pairs = pair_items(load_items(folder), load_items(fresh))
    per_model: dict[str, dict[str, Any]] = {}
    for model in specs:
        ids, first, second = paired_scores(
            runs["published"].samples, runs["fresh"].samples, model, pairs
        )
        if not ids:
            per_model[model] = {"n": 0, "note": "no item answered in both sets"}
            continue
        test = st.paired_gap_test(first, second, alternative="greater")
        per_model[model] = {
            "n": len(ids),
            "published_accuracy": round(sum(first) / len(ids), 4),
            "fresh_accuracy": round(sum(second) / len(ids), 4),
            **{k: v for k, v in test.items() if k not in ("n",)},
        }
    tested = [m for m in specs if per_model[m]["n"]]
    if not tested:
        raise EvaluationError(
            f"{folder} and {fresh} have no pair of answered items from the same generator "
            "(grounding); was the fresh folder built from this plan?"
        )
    adjusted = holm([per_model[m]["p_value"] for m in tested])
    for model, p in zip(tested, adjusted, strict=True):
        per_model[model]["p_holm"] = p
        per_model[model]["significant"] = p < alpha
    data = {
        "published": {"folder": ".", "seed": published_seed},
        "fresh": {"folder": os.path.relpath(fresh, folder), "seed": seed},
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "alpha": alpha,
        "pairs": len(pairs),
        "models": per_model,
        "methods": {
            "pairs": "each published item with a fresh item of the same grounding, program "
            "(or chain length) and predicted label, in id order; then within the grounding",
            "gap": "published accuracy minus fresh accuracy on the paired items",
            "ci95": "Newcombe's square-and-add interval of a paired difference, 95 %",
            "p_value": "exact McNemar test on the discordant pairs, one-sided (published "
            "right and fresh wrong more often than the reverse)",
            "p_holm": "Holm's step-down adjustment over the panel",
        },
        "seconds": round(time.monotonic() - started, 2),
    }
    path = write_json(folder / PERTURB_FILE, data)
    _write_sections(folder, data)
    return PerturbResult(folder, fresh, path, data)


def section(data: dict[str, Any]) -> str:
    """The contamination section of ``report.md`` (Markdown)."""
    lines = [
        START,
        "## Contamination check",
        "",
        f"The plan was built again with seed {data['fresh']['seed']} "
        f"(`{data['fresh']['folder']}`); each model answered both sets. A gap is significant "
        f"when its Holm-adjusted one-sided p-value is below {data['alpha']}.",
        "",
        "| Model | Pairs | Published | Fresh | Gap (95 % CI) | p | p (Holm) | Significant |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for model, row in data["models"].items():
        if not row["n"]:
            lines.append(f"| `{model}` | 0 | | | | | | {row['note']} |")
            continue
        low, high = row.get("ci95") or (None, None)
        ci = "" if low is None else f" ({100 * low:+.1f} to {100 * high:+.1f})"
        lines.append(
            f"| `{model}` | {row['n']} | {100 * row['published_accuracy']:.1f}% "
            f"| {100 * row['fresh_accuracy']:.1f}% | {100 * row['gap']:+.1f}{ci} "
            f"| {row['p_value']:.3g} | {row['p_holm']:.3g} "
            f"| {'yes' if row['significant'] else 'no'} |"
        )
    return "\n".join([*lines, END]) + "\n"


def _write_sections(folder: Path, data: dict[str, Any]) -> None:
    summary = {k: v for k, v in data.items() if k != "methods"}
    add_to_report(folder, "contamination", summary, section(data), (START, END))
