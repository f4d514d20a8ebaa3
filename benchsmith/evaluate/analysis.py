"""From scored samples to ``eval.json``: per-model results, discriminativeness, item analysis.

A *sample* is one model's result on one item: a dict with ``model``, ``item_id``,
``status`` (``answered``, ``skipped``, ``error``), ``answer``, ``correct`` (None unless
answered), ``rule`` and ``call`` (the facts of the model call: tokens, cost, latency,
sampling parameters; None for baselines and unanswered items). Accuracy is over the items
a model answered (``n``); skipped items (media the model cannot take) and errors are counted
apart and reported as warnings. Baselines are compared with real models on the
multiple-choice items only: on other items a baseline answers nothing, so "does not beat
the baseline" would mean nothing there. The statistics themselves are in
:mod:`benchsmith.statistics`.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np

from benchsmith import statistics as st
from benchsmith.evaluate.baselines import is_baseline
from benchsmith.item import Item

SATURATION = 0.8
BOOTSTRAP_ROUNDS = 1000
"""Resamples of the separability intervals (Arena-Hard uses 1000 too)."""
"""Best-model accuracy above which the benchmark is called saturated."""
FEW_ITEMS = 30


def _skills(item: Item) -> list[str]:
    skills = item.metadata.get("skills") or []
    return [str(s) for s in skills] if isinstance(skills, list) and skills else ["(none)"]


def _difficulty(item: Item) -> str:
    value = item.metadata.get("difficulty")
    return "(none)" if value is None or value == "" else str(value)


def _subtask(item: Item) -> str:
    return str(item.metadata.get("subtask") or "(none)")


def _format(item: Item) -> str:
    if item.choices:
        return "multiple_choice"
    return str(item.metadata.get("answer_format") or "short_answer")


def group_scores(
    items: Sequence[Item], correct: Mapping[str, bool], key: str
) -> dict[str, list[bool]]:
    """The scores of answered items, grouped.

    ``key`` is ``subtask``, ``skill``, ``difficulty`` or ``answer_format``; an item with
    several skills counts in each.
    """
    groups: dict[str, list[bool]] = defaultdict(list)
    for item in items:
        if item.id not in correct:
            continue
        if key == "skill":
            names = _skills(item)
        elif key == "difficulty":
            names = [_difficulty(item)]
        elif key == "answer_format":
            names = [_format(item)]
        else:
            names = [_subtask(item)]
        for name in names:
            groups[name].append(correct[item.id])
    return dict(sorted(groups.items()))


def cell(scores: Sequence[bool]) -> dict[str, Any]:
    """Accuracy, count and 95% Wilson interval of some scores."""
    ci = st.accuracy_interval(scores)
    return {
        "accuracy": st.accuracy(scores),
        "n": len(scores),
        "correct": int(sum(bool(s) for s in scores)),
        "ci95": list(ci) if ci else None,
    }


def run_facts(samples: Sequence[Mapping[str, Any]], *, baseline: bool) -> dict[str, Any]:
    """A model's run facts: tokens, cost, latency, sampling settings, and what is missing.

    The facts come from each answered sample's ``call`` (for a reply served from the run
    records, the facts of the original call, so a rerun reports the same numbers).

    Returns:
        ``usage`` (``calls``, ``input_tokens``, ``output_tokens``, ``estimated_token_calls``,
        ``cost_usd``, ``latency_s`` with ``median``/``p95``/``n``), ``settings``
        (``temperature``, ``max_tokens``; None without a call) and ``missing`` (a field to
        why it is unknown or estimated; empty when every fact is known).
    """
    calls = [s["call"] for s in samples if s.get("call")]
    missing: dict[str, str] = {}
    if not calls:
        why = (
            "a baseline answers without a model call"
            if baseline
            else "no call was answered (every item skipped or failed)"
        )
        missing = {"latency_s": why, "settings": why}
        if not baseline:
            missing |= {"tokens": why, "cost_usd": why}
        zero = 0 if baseline else None
        return {
            "usage": {
                "calls": 0,
                "input_tokens": zero,
                "output_tokens": zero,
                "estimated_token_calls": 0,
                "cost_usd": 0.0 if baseline else None,
                "latency_s": None,
            },
            "settings": None,
            "missing": missing,
        }
    estimated = sum(1 for c in calls if c.get("tokens_estimated"))
    if estimated:
        missing["tokens"] = (
            f"{estimated} of {len(calls)} call(s) reported no token usage; their tokens are "
            "estimated at 4 characters a token"
        )
    costs = [c.get("cost_usd") for c in calls]
    cost = None if any(c is None for c in costs) else round(sum(costs), 6)
    if cost is None:
        missing["cost_usd"] = (
            f"the model's price is unknown for {sum(c is None for c in costs)} of "
            f"{len(calls)} call(s); add it under [prices] in benchsmith.toml"
        )
    latencies = [float(c["latency_s"]) for c in calls if c.get("latency_s") is not None]
    if len(latencies) < len(calls):
        missing["latency_s"] = (
            f"{len(calls) - len(latencies)} of {len(calls)} call(s) were recorded without "
            "their latency"
        )
    settings: dict[str, Any] = {}
    for name in ("temperature", "max_tokens"):
        values = {(c.get("params") or {}).get(name) for c in calls}
        value = next(iter(values)) if len(values) == 1 else None
        settings[name] = value
        if len(values) > 1:
            missing[name] = f"varied between calls: {', '.join(sorted(map(str, values)))}"
        elif value is None:
            missing[name] = "not set: the endpoint's default applied"
    return {
        "usage": {
            "calls": len(calls),
            "input_tokens": sum(int(c.get("input_tokens") or 0) for c in calls),
            "output_tokens": sum(int(c.get("output_tokens") or 0) for c in calls),
            "estimated_token_calls": estimated,
            "cost_usd": cost,
            "latency_s": st.latency_summary(latencies),
        },
        "settings": settings,
        "missing": missing,
    }


def model_summary(items: Sequence[Item], samples: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One model's results: overall, per subtask, skill, difficulty and answer format.

    Also its run facts (:func:`run_facts`): ``usage``, ``settings`` and ``missing``.
    """
    correct = {s["item_id"]: bool(s["correct"]) for s in samples if s["status"] == "answered"}
    ordered = [correct[i.id] for i in items if i.id in correct]
    status = Counter(s["status"] for s in samples)
    rules = Counter(s.get("rule") or "" for s in samples if s["status"] == "answered")
    baseline = is_baseline(samples[0]["model"]) if samples else False
    out = cell(ordered)
    out.update(
        skipped=status.get("skipped", 0),
        errors=status.get("error", 0),
        baseline=baseline,
        graded_by=dict(sorted(rules.items())),
    )
    for key, name in (
        ("subtask", "by_subtask"),
        ("skill", "by_skill"),
        ("difficulty", "by_difficulty"),
        ("answer_format", "by_answer_format"),
    ):
        out[name] = {g: cell(v) for g, v in group_scores(items, correct, key).items()}
    out.update(run_facts(samples, baseline=baseline))
    return out


def pairwise(
    correct: Mapping[str, Mapping[str, bool]], models: Sequence[str]
) -> list[dict[str, Any]]:
    """Exact McNemar test for every pair of models on the items both answered."""
    pairs = []
    for a, b in combinations(models, 2):
        shared = [i for i in correct[a] if i in correct[b]]
        first = [correct[a][i] for i in shared]
        second = [correct[b][i] for i in shared]
        test = st.mcnemar_exact(first, second)
        diff = (st.accuracy(first) or 0.0) - (st.accuracy(second) or 0.0) if shared else None
        ci = st.paired_difference_interval(first, second)
        pairs.append(
            {
                "a": a,
                "b": b,
                "n": test["n"],
                "a_only": test["first_only"],
                "b_only": test["second_only"],
                "difference": diff,
                "ci95": list(ci) if ci else None,
                "p_value": test["p_value"],
                "significant": bool(shared) and test["p_value"] < st.ALPHA,
            }
        )
    return pairs


def shared_matrix(
    correct: Mapping[str, Mapping[str, bool]], models: Sequence[str], item_ids: Sequence[str]
) -> tuple[list[str], dict[str, list[bool]]]:
    """The items every model answered, and each model's scores on them (item order)."""
    shared = [i for i in item_ids if all(i in correct[m] for m in models)]
    return shared, {m: [correct[m][i] for i in shared] for m in models}


def item_analysis(
    items: Sequence[Item], correct: Mapping[str, Mapping[str, bool]], models: Sequence[str]
) -> dict[str, Any]:
    """Per-item difficulty and discrimination; the items no model and every model solves."""
    matrix = np.full((len(models), len(items)), np.nan)
    for r, model in enumerate(models):
        for c, item in enumerate(items):
            if item.id in correct[model]:
                matrix[r, c] = 1.0 if correct[model][item.id] else 0.0
    discrimination = st.item_discrimination(matrix) if models else [None] * len(items)
    rows = []
    for c, item in enumerate(items):
        scored = [bool(matrix[r, c]) for r in range(len(models)) if not math.isnan(matrix[r, c])]
        rows.append(
            {
                "id": item.id,
                "subtask": _subtask(item),
                "difficulty_label": _difficulty(item),
                "n_models": len(scored),
                "p_correct": st.item_difficulty(scored),
                "discrimination": discrimination[c],
                "solved_by": [m for r, m in enumerate(models) if matrix[r, c] == 1.0],
            }
        )
    answered = [r for r in rows if r["n_models"] > 0]
    real = [m for m in models if not is_baseline(m)]
    return {
        "difficulty_method": "share of models answering correctly (1 = every model)",
        "discrimination_method": "corrected point-biserial r across models "
        "(item score vs accuracy on the other items)",
        "per_item": rows,
        "none_solved": [r["id"] for r in answered if r["p_correct"] == 0],
        "all_solved": [r["id"] for r in answered if r["p_correct"] == 1],
        "none_solved_by_real_models": [
            r["id"] for r in answered if real and not set(r["solved_by"]) & set(real)
        ],
    }


def baseline_comparisons(
    items: Sequence[Item], correct: Mapping[str, Mapping[str, bool]], models: Sequence[str]
) -> list[dict[str, Any]]:
    """Every real model against every baseline, on the multiple-choice items both answered.

    Items without choices are left out: a baseline gives no answer to them, so comparing
    there says nothing about the model.
    """
    choice_ids = [i.id for i in items if i.choices]
    real = [m for m in models if not is_baseline(m)]
    baselines = [m for m in models if is_baseline(m)]
    out = []
    for model in real:
        for base in baselines:
            shared = [i for i in choice_ids if i in correct[model] and i in correct[base]]
            if not shared:
                continue
            out.append(
                {
                    "model": model,
                    "baseline": base,
                    "n": len(shared),
                    "accuracy": st.accuracy([correct[model][i] for i in shared]),
                    "baseline_accuracy": st.accuracy([correct[base][i] for i in shared]),
                }
            )
    return out


def spread(summaries: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Spread of accuracies: over every model and over the non-baseline models."""

    def stats(values: list[float]) -> dict[str, float | None]:
        if not values:
            return {"min": None, "max": None, "range": None, "std": None}
        return {
            "min": min(values),
            "max": max(values),
            "range": max(values) - min(values),
            "std": float(np.std(values)),
        }

    every = [s["accuracy"] for s in summaries.values() if s["accuracy"] is not None]
    real = [
        s["accuracy"]
        for s in summaries.values()
        if s["accuracy"] is not None and not s.get("baseline")
    ]
    return {"all_models": stats(every), "real_models": stats(real)}


def warnings_for(
    summaries: Mapping[str, Mapping[str, Any]],
    pairs: Sequence[Mapping[str, Any]],
    stability: Mapping[str, Any],
    items: Mapping[str, Any],
    n_items: int,
    versus_baselines: Sequence[Mapping[str, Any]] = (),
) -> list[str]:
    """Plain-language warnings a person should read before trusting the numbers.

    ``versus_baselines`` is :func:`baseline_comparisons` (multiple-choice items only).
    """
    out: list[str] = []
    scored = {m: s for m, s in summaries.items() if s["accuracy"] is not None}
    real = {m: s for m, s in scored.items() if not s.get("baseline")}
    if scored:
        best, top = max(scored.items(), key=lambda kv: kv[1]["accuracy"])
        if top["accuracy"] > SATURATION:
            out.append(
                f"saturation: {best} scores {top['accuracy']:.0%} (> {SATURATION:.0%}); the "
                "benchmark leaves little room to separate stronger models"
            )
    for model, s in summaries.items():
        if s["skipped"]:
            out.append(
                f"{model}: {s['skipped']} item(s) skipped (media the model cannot take); its "
                "accuracy covers the other items only"
            )
        if s["errors"]:
            out.append(f"{model}: {s['errors']} item(s) failed with an error and are not scored")
        if s["n"] == 0:
            out.append(f"{model}: no item was scored")
    for row in versus_baselines:
        if row["model"] in real and row["accuracy"] <= row["baseline_accuracy"]:
            below = "is below" if row["accuracy"] < row["baseline_accuracy"] else "does not beat"
            out.append(
                f"{row['model']} ({row['accuracy']:.0%}) {below} {row['baseline']} "
                f"({row['baseline_accuracy']:.0%}) on the {row['n']} multiple-choice item(s) "
                "both answered"
            )
    if len(scored) >= 2 and pairs and not any(p["significant"] for p in pairs):
        out.append(
            "no pair of models differs significantly (exact McNemar, p < 0.05): the benchmark "
            "does not separate these models at this size"
        )
    tau = stability.get("kendall_tau")
    if tau is not None and tau < 0.5:
        out.append(
            f"unstable ranking: split-half Kendall tau {tau:.2f} (< 0.5); halves of the items "
            "often rank the models differently"
        )
    if n_items < FEW_ITEMS:
        out.append(
            f"only {n_items} items: confidence intervals are wide; build more items for "
            "firm conclusions"
        )
    if len(scored) >= 2 and items["none_solved"]:
        out.append(
            f"{len(items['none_solved'])} item(s) no model solves: check them for wrong targets "
            "(benchsmith judge) or keep them as headroom"
        )
    return out


def separability_of(
    matrix: Mapping[str, Sequence[bool]], models: Sequence[str], *, seed: int = 0
) -> dict[str, Any]:
    """Per model a bootstrap interval on the shared items, and the share of separated pairs.

    Args:
        matrix: Each model's scores on the items every model answered (same order).
        models: The models, in the order to report them.
        seed: Seeds the resamples.
    """
    if not models or not matrix.get(models[0]):
        return {"intervals": {}, "pairs": 0, "separated": 0, "share": None,
                "separated_pairs": [], "rounds": BOOTSTRAP_ROUNDS, "n_items": 0}  # fmt: skip
    scores = np.array([[float(x) for x in matrix[m]] for m in models])
    boot = st.bootstrap_intervals(scores, rounds=BOOTSTRAP_ROUNDS, seed=seed)
    intervals = boot["intervals"]
    sep = st.separability(intervals, names=list(models))
    return {
        "intervals": {
            m: None if iv is None else [round(iv[0], 4), round(iv[1], 4)]
            for m, iv in zip(models, intervals, strict=True)
        },
        **sep,
        "rounds": BOOTSTRAP_ROUNDS,
        "n_items": scores.shape[1],
    }


def summarize(
    items: Sequence[Item],
    samples: Iterable[Mapping[str, Any]],
    models: Sequence[str],
    *,
    seed: int = 0,
) -> dict[str, Any]:
    """The machine-readable evaluation (the body of ``eval.json``).

    Args:
        items: The benchmark's items (the order of the item analysis).
        samples: Every scored sample (see the module docstring).
        models: The model specs, in the order they were given.
        seed: Seed of the split-half splits.

    Returns:
        ``models``, ``pairs``, ``baseline_comparisons``, ``ranking_stability``, ``spread``,
        ``items``, ``warnings`` and ``methods``.
    """
    by_model: dict[str, list[Mapping[str, Any]]] = {m: [] for m in models}
    for sample in samples:
        by_model.setdefault(sample["model"], []).append(sample)
    summaries = {m: model_summary(items, by_model[m]) for m in models}
    correct = {
        m: {s["item_id"]: bool(s["correct"]) for s in by_model[m] if s["status"] == "answered"}
        for m in models
    }
    # Models that answered nothing (every item skipped) take no part in the comparisons.
    active = [m for m in models if correct[m]]
    pairs = pairwise(correct, active)
    shared, matrix = shared_matrix(correct, active, [i.id for i in items])
    stability = (
        st.split_half_kendall(matrix, seed=seed)
        if shared
        else {"kendall_tau": None, "splits": 0, "n_items": 0, "n_models": len(models)}
    )
    analysis = item_analysis(items, correct, models)
    versus = baseline_comparisons(items, correct, models)
    separable = separability_of(matrix, active, seed=seed)
    return {
        "models": summaries,
        "pairs": pairs,
        "baseline_comparisons": versus,
        "ranking_stability": stability,
        "separability": separable,
        "spread": spread(summaries),
        "items": analysis,
        "warnings": warnings_for(summaries, pairs, stability, analysis, len(items), versus),
        "methods": {
            "accuracy": "share of answered items scored correct; skipped and failed items "
            "are left out of n",
            "ci95": "Wilson score interval, 95% (does not collapse at 0/n or n/n)",
            "pairs": "exact McNemar test on the items both models answered, two-sided, "
            f"significant at p < {st.ALPHA}",
            "pairs_ci95": "Newcombe's square-and-add interval (1998, method 10) of the "
            "difference of two accuracies on the same items, 95%",
            "baseline_comparisons": "real models against baselines on the multiple-choice "
            "items both answered (a baseline answers nothing else)",
            "usage": "tokens and cost as the endpoint reported them (estimated when it did "
            "not); latency median and 95th percentile of the seconds per call; for replies "
            "served from the run records, the original call's facts",
            "ranking_stability": f"mean Kendall tau-b between the model rankings on two "
            f"random halves of the shared items, {st.SPLITS} seeded splits",
            "separability": f"share of model pairs whose 95% percentile-bootstrap intervals "
            f"do not overlap (Arena-Hard's measure): {BOOTSTRAP_ROUNDS} resamples of the "
            f"shared items, the same for every model, seed {seed}",
            "saturation": f"warned when the best model exceeds {SATURATION:.0%}",
            **{k: analysis[k] for k in ("difficulty_method", "discrimination_method")},
        },
    }
