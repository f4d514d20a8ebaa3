"""``report.html``: one self-contained page on what a benchmark is worth.

Everything is inline (styles, and plots as base64 PNG), so the page can be mailed or
attached as it is. It explains each number in a sentence, shows the numbers in tables
and puts the warnings first.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from benchsmith.evaluate import plots
from benchsmith.item import Item
from benchsmith.spec import BenchmarkSpec

_STYLE = """
body{font-family:system-ui,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{font-size:1.6em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.8em}
table{border-collapse:collapse;margin:.6em 0;font-size:.92em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}th{background:#f3f3f3}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.warn{background:#fff4e5;border-left:4px solid #f0a020;padding:.5em 1em}
.ok{background:#eef8ee;border-left:4px solid #3a3;padding:.5em 1em}
.note{color:#555;font-size:.92em}img{max-width:100%}
"""


def _e(value: object) -> str:
    return html.escape(str(value))


def pct(value: float | None) -> str:
    """A share as a percentage with one decimal, or an em dash."""
    return "—" if value is None else f"{100 * value:.1f}%"


def _ci(ci: Sequence[float] | None) -> str:
    return "—" if not ci else f"{pct(ci[0])} – {pct(ci[1])}"


def _num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], numeric: set[int]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
            for i, c in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def _img(data: str | None, alt: str) -> str:
    if not data:
        return ""
    return f'<p><img alt="{_e(alt)}" src="data:image/png;base64,{data}"></p>'


def _overview(items: Sequence[Item], spec: BenchmarkSpec | None) -> str:
    subtasks = Counter(str(i.metadata.get("subtask") or "(none)") for i in items)
    formats = Counter(
        "multiple_choice" if i.choices else str(i.metadata.get("answer_format") or "short_answer")
        for i in items
    )
    modalities = Counter(
        k for i in items for k in {kind for kind, _ in i.media_paths()} or {"text"}
    )
    names = {s.id: (s.name, s.description) for s in spec.subtasks} if spec else {}
    rows = [
        [_e(sid), _e(names.get(sid, ("", ""))[0]), _e(names.get(sid, ("", ""))[1]), str(n)]
        for sid, n in sorted(subtasks.items())
    ]
    intent = f"<p><b>Intent:</b> {_e(spec.intent)}</p>" if spec else ""
    return (
        "<h2>The benchmark</h2>"
        + intent
        + f"<p>{len(items)} items; answer formats: "
        + ", ".join(f"{_e(k)} ({v})" for k, v in sorted(formats.items()))
        + "; inputs: "
        + ", ".join(f"{_e(k)} ({v})" for k, v in sorted(modalities.items()))
        + ".</p>"
        + _table(["subtask", "name", "description", "items"], rows, {3})
    )


def _models(evaluation: Mapping[str, Any]) -> str:
    models = evaluation["models"]
    ranked = sorted(models.items(), key=lambda kv: -(kv[1]["accuracy"] or 0))
    rows = [
        [
            _e(m) + (" <i>(baseline)</i>" if r.get("baseline") else ""),
            pct(r["accuracy"]),
            _ci(r["ci95"]),
            f"{r['correct']}/{r['n']}",
            str(r["skipped"]),
            str(r["errors"]),
        ]
        for m, r in ranked
    ]
    text = (
        "<h2>Scores</h2><p>Accuracy is the share of the items a model answered that were "
        "scored correct (letters for multiple choice, normalized exact match for short "
        "answers, a tolerance for numbers, "
        + _e(evaluation.get("open_answers", "includes match"))
        + " for open answers). The interval is a 95% percentile bootstrap: with this many "
        "items, the true accuracy could plausibly be anywhere inside it. Skipped items hold "
        "media the model cannot take.</p>"
    )
    table = _table(["model", "accuracy", "95% interval", "correct", "skipped", "errors"], rows,
                   {1, 2, 3, 4, 5})  # fmt: skip
    subtasks = sorted({s for r in models.values() for s in r["by_subtask"]})
    sub_rows = [
        [_e(s)]
        + [
            (
                f"{pct(c['accuracy'])} ({_ci(c['ci95'])}, n={c['n']})"
                if (c := r["by_subtask"].get(s))
                else "—"
            )
            for r in models.values()
        ]
        for s in subtasks
    ]
    by_subtask = "<h3>By subtask</h3>" + _table(["subtask", *models], sub_rows, set())
    extra = ""
    for key, title in (("by_skill", "By skill"), ("by_difficulty", "By difficulty label")):
        groups = sorted({g for r in models.values() for g in r.get(key, {})})
        if len(groups) > 1:
            rows2 = [
                [_e(g)]
                + [pct((r.get(key, {}).get(g) or {}).get("accuracy")) for r in models.values()]
                for g in groups
            ]
            extra += f"<h3>{title}</h3>" + _table([key[3:], *models], rows2, set(range(1, 99)))
    plot = _img(plots.subtask_scores(models), "score by subtask per model")
    return text + table + by_subtask + plot + extra


def _discriminativeness(evaluation: Mapping[str, Any]) -> str:
    pairs = evaluation.get("pairs") or []
    rows = [
        [
            _e(p["a"]),
            _e(p["b"]),
            "—" if p["difference"] is None else f"{100 * p['difference']:+.1f} pts",
            str(p["n"]),
            f"{p['a_only']} / {p['b_only']}",
            _num(p["p_value"], 3),
            "yes" if p["significant"] else "no",
        ]
        for p in pairs
    ]
    stability = evaluation.get("ranking_stability") or {}
    spread = (evaluation.get("spread") or {}).get("all_models") or {}
    tau = stability.get("kendall_tau")
    return (
        "<h2>Does it separate models?</h2>"
        f"<p>Accuracies range from {pct(spread.get('min'))} to {pct(spread.get('max'))} "
        f"(spread {pct(spread.get('range'))}). A pair of models differs significantly when "
        "the exact McNemar test on the items both answered gives p &lt; 0.05; it looks only at "
        "the items where exactly one of the two is right (columns <i>only A / only B</i>).</p>"
        + _table(
            ["model A", "model B", "A − B", "shared items", "only A / only B", "p", "significant"],
            rows,
            {2, 3, 4, 5},
        )  # fmt: skip
        + "<p><b>Ranking stability</b> (split-half Kendall tau): "
        + (
            f"{tau:.2f} over {stability.get('splits')} random halvings of "
            f"{stability.get('n_items')} shared items. 1 means every half of the items ranks the "
            "models the same way; near 0 means the ranking is noise."
            if tau is not None
            else "not computable (needs at least two models that differ on some half)."
        )
        + "</p>"
    )


def _items(evaluation: Mapping[str, Any]) -> str:
    analysis = evaluation.get("items") or {}
    per_item = analysis.get("per_item") or []
    none, every = analysis.get("none_solved") or [], analysis.get("all_solved") or []
    ranked = sorted(
        per_item, key=lambda r: -(r["discrimination"] if r["discrimination"] is not None else -9)
    )
    rows = [
        [
            _e(r["id"]),
            _e(r["subtask"]),
            _e(r["difficulty_label"]),
            pct(r["p_correct"]),
            _num(r["discrimination"]),
            _e(", ".join(r["solved_by"]) or "none"),
        ]
        for r in ranked[:50]
    ]
    return (
        "<h2>Items</h2><p><b>Difficulty</b> is the share of models that answer an item "
        "correctly (low = hard). <b>Discrimination</b> is the corrected point-biserial "
        "correlation across models: positive when the models that do well overall get the item "
        "right and the weaker ones miss it; near 0 or negative items do not help rank models. "
        f"{len(none)} item(s) no model solves and {len(every)} every model solves; both kinds "
        "add nothing to the ranking (the first may have wrong targets).</p>"
        + _img(plots.difficulty_histogram(per_item), "item difficulty histogram")
        + _table(
            ["item", "subtask", "label", "share correct", "discrimination", "solved by"],
            rows,
            {3, 4},
        )  # fmt: skip
        + (f"<p class=note>Showing 50 of {len(per_item)} items.</p>" if len(per_item) > 50 else "")
        + (f"<p>No model solves: {_e(', '.join(none[:30]))}</p>" if none else "")
    )


def _coverage(items: Sequence[Item]) -> str:
    row_name, col_name, rows, cols, counts = plots.coverage_table(items)
    table = _table([f"{row_name} \\ {col_name}", *cols],
                   [[_e(r), *map(str, c)] for r, c in zip(rows, counts, strict=True)],
                   set(range(1, len(cols) + 1)))  # fmt: skip
    return (
        f"<h2>Coverage</h2><p>How many items test each {row_name} and {col_name}: empty cells "
        "are capabilities the benchmark does not measure.</p>"
        + _img(plots.coverage_heatmap(items), "coverage heatmap")
        + table
    )


def _quality(quality: Mapping[str, Any]) -> str:
    summary = quality.get("summary") or {}
    names = quality.get("dimensions") or {}
    mean = summary.get("mean") or {}
    attribution = summary.get("attribution") or {}
    rows = [
        [_e(d.upper()), _e(names.get(d, "")), _num(mean.get(d)), str(attribution.get(d, 0))]
        for d in mean
    ]
    uia = quality.get("uia") or {}
    failing = [r for r in quality.get("items") or [] if r.get("failing")]
    fail_rows = [
        [_e(r["id"]), _e(str(r["attributed_to"]).upper()),
         _e(" ".join(f"{k.upper()}={v}" for k, v in r["scores"].items())), _e(r.get("reason", ""))]
        for r in failing[:50]
    ]  # fmt: skip
    return (
        f"<h2>Item quality (judge: {_e(quality.get('model', '?'))})</h2>"
        "<p>An LLM judge rated each item from 1 (very poor) to 5 (excellent) on the Benchmark "
        "Agent dimensions. An item fails when any score is at most "
        f"{_e(quality.get('threshold', 2))}; it is attributed to its lowest dimension (ties: "
        f"{_e(', '.join(d.upper() for d in quality.get('attribution_order', [])))}). "
        "Judge scores are only as good as the judge model.</p>"
        f"<p><b>User-intent alignment (UIA)</b>: {_e(uia.get('score', '—'))}/5 "
        f"{_e(uia.get('reason', '') or uia.get('error', ''))}</p>"
        f"<p>{summary.get('rated', 0)} items rated, {summary.get('failing', 0)} failing, "
        f"{summary.get('errors', 0)} without a valid rating.</p>"
        + _table(["metric", "meaning", "mean", "failing items attributed"], rows, {2, 3})
        + _img(plots.judge_distributions(summary), "judge score distributions")
        + (
            "<h3>Failing items</h3>"
            + _table(["item", "attributed to", "scores", "judge's reason"], fail_rows, set())
            if fail_rows
            else ""
        )
    )


def render_report(
    *,
    items: Sequence[Item],
    spec: BenchmarkSpec | None,
    evaluation: Mapping[str, Any] | None,
    quality: Mapping[str, Any] | None,
) -> str:
    """The whole page.

    Args:
        items: The benchmark's items.
        spec: Its spec (intent, subtask names), if readable.
        evaluation: The ``eval.json`` data, if any.
        quality: The ``judge.json`` data, if any.

    Returns:
        Self-contained HTML.
    """
    title = f"Benchmark report: {spec.intent}" if spec else "Benchmark report"
    parts = [f"<h1>{_e(title)}</h1>"]
    if evaluation:
        warnings = evaluation.get("warnings") or []
        if warnings:
            parts.append(
                '<div class="warn"><b>Warnings</b><ul>'
                + "".join(f"<li>{_e(w)}</li>" for w in warnings)
                + "</ul></div>"
            )
        else:
            parts.append('<div class="ok">No warnings.</div>')
    else:
        parts.append(
            '<p class="note">No evaluation yet: run <code>benchsmith eval DIR --model SPEC'
            "</code> to add scores.</p>"
        )
    parts.append(_overview(items, spec))
    if evaluation:
        parts += [_models(evaluation), _discriminativeness(evaluation), _items(evaluation)]
    parts.append(_coverage(items))
    if quality:
        parts.append(_quality(quality))
    else:
        parts.append(
            '<p class="note">No item-quality judgement yet: run <code>benchsmith judge DIR'
            "</code>.</p>"
        )
    if evaluation:
        methods = evaluation.get("methods") or {}
        parts.append(
            "<h2>Methods</h2><ul>"
            + "".join(f"<li><b>{_e(k)}</b>: {_e(v)}</li>" for k, v in methods.items())
            + "</ul>"
            + f"<p class=note>Created {_e(evaluation.get('created', ''))}.</p>"
        )
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
        f"<style>{_STYLE}</style></head><body>" + "\n".join(parts) + "</body></html>\n"
    )
