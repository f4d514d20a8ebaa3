"""``report.html``: one page on what a benchmark is worth, readable offline.

Styles, the small filter script and the plots (base64 PNG) are inline; item media are
linked by their paths relative to the benchmark folder, where the page is written, so the
page works from the folder as it is (``file://``, a static server, an archive), with no CDN
or network. It explains each number in a sentence, shows the numbers in tables, puts the
warnings first, and ends with every item: its question, media, choices, target and each
model's answer and score, filterable by subtask and by who solves it.

Every piece of item and answer text is untrusted (dataset rows, model output): it is
HTML-escaped wherever it goes, and the script reads only ``data-`` attributes the page
itself wrote, never item text.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from benchsmith.evaluate import plots
from benchsmith.item import LETTERS, Item
from benchsmith.spec import BenchmarkSpec

ANSWER_CHARS = 1500
"""Longest answer shown in the item table (the whole answer is in eval_samples.jsonl)."""

_STYLE = """
body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{font-size:1.6em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.8em}
table{border-collapse:collapse;margin:.6em 0;font-size:.92em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f3f3f3}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.warn{background:#fff4e5;border-left:4px solid #f0a020;padding:.5em 1em}
.ok{background:#eef8ee;border-left:4px solid #3a3;padding:.5em 1em}
.note{color:#555;font-size:.92em}img{max-width:100%}
.scroll{overflow-x:auto}
.filters{display:flex;gap:1.2em;align-items:center;flex-wrap:wrap;margin:.6em 0;
padding:.5em .8em;background:#f6f6f6;border:1px solid #ddd}
td.num{white-space:nowrap}
#item-table{font-size:.88em}
#item-table th{overflow-wrap:anywhere;max-width:14em}
#item-table td{max-width:26em}
#item-table td.item{min-width:9em}
#item-table td.answer{min-width:7em;max-width:16em}
details.why summary{cursor:pointer;font-weight:700}
details.why div{font-size:.9em;overflow-wrap:anywhere}
.q,.reply{white-space:pre-wrap;overflow-wrap:anywhere;max-height:10em;overflow:auto}
.reply{font-family:ui-monospace,monospace;font-size:.92em;color:#333}
.choices{margin:0;padding-left:1.6em}.choices li.target{font-weight:600}
img.thumb{max-width:160px;max-height:120px;display:block;margin-top:.3em;
border:1px solid #ccc;background:#fff}
audio{display:block;margin-top:.3em;max-width:240px}
td.right{background:#eef8ee}td.wrong{background:#fdeeee}
td.skipped,td.error{background:#f4f4f4;color:#666}
.mark{font-weight:700}.meta{color:#666;font-size:.9em}
"""

_FILTER_SCRIPT = """
(function () {
  var subtask = document.getElementById("filter-subtask");
  var solved = document.getElementById("filter-solved");
  var count = document.getElementById("filter-count");
  var rows = document.querySelectorAll("#item-table tbody tr");
  function apply() {
    var shown = 0;
    rows.forEach(function (row) {
      var keep = (!subtask.value || row.dataset.subtask === subtask.value) &&
        (!solved.value || row.dataset.solved === solved.value ||
         (solved.value === "real-none" && row.dataset.real === "none"));
      row.hidden = !keep;
      if (keep) { shown += 1; }
    });
    count.textContent = shown + " of " + rows.length + " items shown";
  }
  subtask.addEventListener("change", apply);
  solved.addEventListener("change", apply);
  apply();
})();
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def pct(value: float | None) -> str:
    """A share as a percentage with one decimal, or an em dash."""
    return "—" if value is None else f"{100 * value:.1f}%"


def _ci(ci: Sequence[float] | None) -> str:
    return "—" if not ci else f"{pct(ci[0])} – {pct(ci[1])}"


def _num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    numeric: set[int],
    *,
    attrs: str = "",
) -> str:
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
    return f"<table{attrs}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _plot(plot: plots.Plot, alt: str) -> str:
    """The figure, or one line saying why it was left out."""
    if plot.png:
        return f'<p><img alt="{_e(alt)}" src="data:image/png;base64,{plot.png}"></p>'
    return f'<p class="note no-plot">No {_e(alt)} plot: {_e(plot.skipped)}.</p>'


def media_src(path: str) -> str | None:
    """A media path of an item as a URL relative to the report, or None when unsafe.

    The report sits in the benchmark folder and items name their media relative to it
    (``media/x.png``), so the path is the URL. Only plain relative paths inside the folder
    pass: no scheme (``javascript:``), no absolute path, no ``..``.
    """
    pure = PurePosixPath(path.replace("\\", "/"))
    if not pure.parts or pure.is_absolute() or ".." in pure.parts or ":" in pure.parts[0]:
        return None
    return quote(pure.as_posix())


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


def _model_name(name: str, result: Mapping[str, Any]) -> str:
    return _e(name) + (" <i>(baseline)</i>" if result.get("baseline") else "")


def _models(evaluation: Mapping[str, Any]) -> str:
    models = evaluation["models"]
    ranked = sorted(models.items(), key=lambda kv: -(kv[1]["accuracy"] or 0))
    rows = [
        [
            _model_name(m, r),
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
        + " for open answers). The interval is the 95% Wilson score interval: with this many "
        "items, the true accuracy could plausibly be anywhere inside it. It stays honest at "
        "the edges: a model that gets none of 12 items right is shown as 0.0% – 24.2%, not "
        "as a certain 0%. Skipped items hold media the model cannot take.</p>"
    )
    table = _table(["model", "accuracy", "95% interval", "correct", "skipped", "errors"], rows,
                   {1, 2, 3, 4, 5})  # fmt: skip
    versus = evaluation.get("baseline_comparisons") or []
    baselines = ""
    if any(r.get("baseline") for r in models.values()):
        baselines = (
            '<p class="note">Baselines answer multiple-choice items only (a random or the '
            "first letter) and score 0 on every other item, so a model is compared with them "
            "on the multiple-choice items both answered.</p>"
        )
        if versus:
            baselines += _table(
                ["model", "baseline", "multiple-choice items", "model accuracy",
                 "baseline accuracy"],
                [
                    [_e(v["model"]), _e(v["baseline"]), str(v["n"]), pct(v["accuracy"]),
                     pct(v["baseline_accuracy"])]
                    for v in versus
                ],
                {2, 3, 4},
            )  # fmt: skip
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
    for key, title in (
        ("by_answer_format", "By answer format"),
        ("by_skill", "By skill"),
        ("by_difficulty", "By difficulty label"),
    ):
        groups = sorted({g for r in models.values() for g in r.get(key, {})})
        if len(groups) > 1:
            rows2 = [
                [_e(g)]
                + [pct((r.get(key, {}).get(g) or {}).get("accuracy")) for r in models.values()]
                for g in groups
            ]
            extra += f"<h3>{title}</h3>" + _table([key[3:], *models], rows2, set(range(1, 99)))
    plot = _plot(plots.subtask_scores(models), "score by subtask")
    return text + table + baselines + by_subtask + plot + extra


def _tokens(usage: Mapping[str, Any], key: str) -> str:
    value = usage.get(key)
    if value is None:
        return "—"
    return ("~" if usage.get("estimated_token_calls") else "") + f"{value:,}"


def _cost(value: float | None) -> str:
    if value is None:
        return "—"
    return "$0" if value == 0 else f"${value:.4f}"


def _setting(settings: Mapping[str, Any], name: str) -> str:
    if not settings:
        return "—"
    value = settings.get(name)
    return "default" if value is None else _e(value)


def _run_facts(evaluation: Mapping[str, Any]) -> str:
    models = evaluation["models"]
    new_calls = (evaluation.get("run") or {}).get("new_calls_by_model") or {}
    rows = []
    for name, r in models.items():
        usage = r.get("usage") or {}
        latency = usage.get("latency_s") or {}
        settings = r.get("settings") or {}
        missing = r.get("missing") or {}
        calls = str(usage.get("calls", "—"))
        if name in new_calls:
            calls += f" ({new_calls[name]} new)"
        by_reason: dict[str, list[str]] = {}
        for key, why in missing.items():
            by_reason.setdefault(str(why), []).append(str(key))
        notes = "<br>".join(f"{_e(', '.join(k))}: {_e(why)}" for why, k in by_reason.items())
        rows.append(
            [
                _model_name(name, r),
                calls,
                _tokens(usage, "input_tokens"),
                _tokens(usage, "output_tokens"),
                _cost(usage.get("cost_usd")),
                _num(latency.get("median")),
                _num(latency.get("p95")),
                _setting(settings, "temperature"),
                _setting(settings, "max_tokens"),
                notes or "—",
            ]
        )
    return (
        "<h2>Runs</h2><p>What answering cost each model: the calls that got a reply, tokens "
        "in and out as the endpoint reported them (<b>~</b> marks estimates where it reported "
        "none), cost from the price table, the median and 95th-percentile seconds per call, "
        "and the sampling settings sent. For replies served again from the run records these "
        "are the original call's facts, so a rerun reports the same numbers. What is not "
        "known is said in the last column.</p>"
        + _table(
            [
                "model",
                "calls",
                "tokens in",
                "tokens out",
                "cost",
                "latency median (s)",
                "latency p95 (s)",
                "temperature",
                "max tokens",
                "missing or estimated",
            ],
            rows,
            {1, 2, 3, 4, 5, 6, 7, 8},
        )  # fmt: skip
    )


def _discriminativeness(evaluation: Mapping[str, Any]) -> str:
    pairs = evaluation.get("pairs") or []
    rows = [
        [
            _e(p["a"]),
            _e(p["b"]),
            "—" if p["difference"] is None else f"{100 * p['difference']:+.1f} pts",
            (
                "—"
                if not p.get("ci95")
                else f"{100 * p['ci95'][0]:+.1f} to {100 * p['ci95'][1]:+.1f}"
            ),
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
    separability = evaluation.get("separability") or {}
    accuracy = {m: r.get("accuracy") for m, r in (evaluation.get("models") or {}).items()}
    share = separability.get("share")
    separable = (
        "<p><b>Separability</b>: "
        + (
            f"{separability.get('separated')} of {separability.get('pairs')} model pairs "
            f"({pct(share)}) have 95% bootstrap intervals that do not overlap "
            f"({separability.get('rounds')} resamples of {separability.get('n_items')} shared "
            "items). Arena-Hard reports 87% for its benchmark and 23% for MT-Bench."
            if share is not None
            else "not computable (needs two models that answered the same items)."
        )
        + "</p>"
        + (
            _plot(
                plots.separability_intervals(separability, accuracy),
                "accuracy of each model with its bootstrap interval",
            )
            if share is not None
            else ""
        )
    )
    return (
        "<h2>Does it separate models?</h2>" + separable + "<p>"
        f"Accuracies range from {pct(spread.get('min'))} to {pct(spread.get('max'))} "
        f"(spread {pct(spread.get('range'))}). A pair of models differs significantly when "
        "the exact McNemar test on the items both answered gives p &lt; 0.05; it looks only at "
        "the items where exactly one of the two is right (columns <i>only A / only B</i>). "
        "The interval of the difference is Newcombe's square-and-add interval for paired "
        "scores: differences it holds are all plausible.</p>"
        + _table(
            [
                "model A",
                "model B",
                "A − B",
                "95% interval (pts)",
                "shared items",
                "only A / only B",
                "p",
                "significant",
            ],
            rows,
            {2, 3, 4, 5, 6},
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


def _media_cell(item: Item) -> str:
    out = []
    for kind, path in item.media_paths():
        src = media_src(path)
        if src is None:
            out.append(
                f'<span class="note">{_e(kind)} path not inside the folder: {_e(path)}</span>'
            )
        elif kind == "image":
            out.append(
                f'<a href="{_e(src)}"><img class="thumb" loading="lazy" src="{_e(src)}" '
                f'alt="{_e(kind)} of item {_e(item.id)}"></a>'
            )
        else:
            out.append(f'<audio controls preload="none" src="{_e(src)}"></audio>')
    return "".join(out)


def _target(item: Item) -> str:
    if item.choices and item.target in LETTERS[: len(item.choices)]:
        return f"<b>{_e(item.target)}</b> · {_e(item.answer_text())}"
    return _e(item.target)


def _choices(item: Item) -> str:
    if not item.choices:
        return '<span class="meta">—</span>'
    cells = "".join(
        f"<li{' class=target' if LETTERS[i] == item.target else ''}>{_e(c)}</li>"
        for i, c in enumerate(item.choices)
    )
    return f'<ol class="choices" type="A">{cells}</ol>'


def _answer_cell(sample: Mapping[str, Any] | None) -> str:
    if sample is None:
        return '<td class="answer meta">—</td>'
    answer = str(sample.get("answer") or "")
    if len(answer) > ANSWER_CHARS:
        answer = answer[:ANSWER_CHARS] + f"… ({len(answer) - ANSWER_CHARS} more characters)"
    status = sample.get("status")
    if status == "answered":
        right = bool(sample.get("correct"))
        mark = "✓ right" if right else "✗ wrong"
        rule = _e(sample.get("rule") or "")
        return (
            f'<td class="answer {"right" if right else "wrong"}" title="scored by: {rule}">'
            f'<span class="mark">{mark}</span><div class="reply">{_e(answer) or "(empty)"}'
            "</div></td>"
        )
    label = "skipped" if status == "skipped" else "error"
    return (
        f'<td class="answer {label}"><details class="why"><summary>{label}</summary>'
        f"<div>{_e(sample.get('reason') or '')}</div></details></td>"
    )


def _solved(row: Mapping[str, Any] | None) -> str:
    """``none``, ``some`` or ``every`` of the models that scored the item, or ``unscored``."""
    if not row or not row.get("n_models"):
        return "unscored"
    solvers = len(row.get("solved_by") or [])
    if solvers == 0:
        return "none"
    return "every" if solvers >= row["n_models"] else "some"


def _solved_by_real(row: Mapping[str, Any] | None, real: Sequence[str]) -> str:
    """``none`` when no real (non-baseline) model solves a scored item, else ``some``.

    As ``eval.json``'s ``none_solved_by_real_models`` counts it; ``unscored`` when no model
    scored the item or every model is a baseline.
    """
    if not real or not row or not row.get("n_models"):
        return "unscored"
    return "some" if set(row.get("solved_by") or []) & set(real) else "none"


def _item_table(
    items: Sequence[Item],
    evaluation: Mapping[str, Any] | None,
    samples: Sequence[Mapping[str, Any]],
) -> str:
    results = (evaluation or {}).get("models") or {}
    models = list(results)
    real = [m for m in models if not results[m].get("baseline")]
    per_item = {r["id"]: r for r in ((evaluation or {}).get("items") or {}).get("per_item") or []}
    answers = {(s.get("model"), s.get("item_id")): s for s in samples}
    subtasks = sorted({str(i.metadata.get("subtask") or "(none)") for i in items})
    rows = []
    for item in items:
        subtask = str(item.metadata.get("subtask") or "(none)")
        analysis = per_item.get(item.id)
        solved = _solved(analysis)
        solved_real = _solved_by_real(analysis, real)
        meta = f'<div class="meta">{_e(subtask)}'
        if item.metadata.get("difficulty") not in (None, ""):
            meta += f" · {_e(item.metadata['difficulty'])}"
        meta += "</div>"
        if analysis and analysis.get("n_models"):
            right = len(analysis.get("solved_by") or [])
            meta += f'<div class="meta">{right} of {analysis["n_models"]} models right'
            if analysis.get("discrimination") is not None:
                meta += f"<br>discrimination {analysis['discrimination']:.2f}"
            meta += "</div>"
        rows.append(
            f'<tr data-id="{_e(item.id)}" data-subtask="{_e(subtask)}" '
            f'data-solved="{solved}" data-real="{solved_real}">'
            f'<td class="item"><code>{_e(item.id)}</code>{meta}</td>'
            f'<td><div class="q">{_e(item.input_text())}</div>{_media_cell(item)}</td>'
            f"<td>{_choices(item)}</td><td>{_target(item)}</td>"
            + "".join(_answer_cell(answers.get((m, item.id))) for m in models)
            + "</tr>"
        )
    head = "".join(f"<th>{_e(h)}</th>" for h in ["item", "question", "choices", "target", *models])
    options = "".join(f'<option value="{_e(s)}">{_e(s)}</option>' for s in subtasks)
    solved_options = ""
    if models:
        solved_options = (
            '<option value="none">no model solves</option>'
            '<option value="some">some models solve</option>'
            '<option value="every">every model solves</option>'
        )
        if real and len(real) < len(models):
            solved_options += '<option value="real-none">no real model solves</option>'
        solved_options += '<option value="unscored">no model scored</option>'
    filters = (
        '<div class="filters">'
        f'<label>Subtask <select id="filter-subtask"><option value="">all subtasks</option>'
        f"{options}</select></label>"
        f'<label>Show <select id="filter-solved"><option value="">all items</option>'
        f"{solved_options}</select></label>"
        f'<span id="filter-count">{len(items)} of {len(items)} items shown</span></div>'
    )
    return (
        "<h3>Every item</h3><p>Each item as the models got it: the question, its image or "
        "recording (media files are read from the <code>media/</code> folder next to this "
        "page), the choices (the target in bold), and each model's answer and score. Use "
        "the filters to look at one subtask, or at the items no model solves (check their "
        "targets first).</p>"
        + filters
        + f'<div class="scroll"><table id="item-table"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>" + f"<script>{_FILTER_SCRIPT}</script>"
    )


def _items(
    items: Sequence[Item], evaluation: Mapping[str, Any], samples: Sequence[Mapping[str, Any]]
) -> str:
    analysis = evaluation.get("items") or {}
    per_item = analysis.get("per_item") or []
    none, every = analysis.get("none_solved") or [], analysis.get("all_solved") or []
    return (
        "<h2>Items</h2><p><b>Difficulty</b> is the share of models that answer an item "
        "correctly (low = hard). <b>Discrimination</b> is the corrected point-biserial "
        "correlation across models: positive when the models that do well overall get the item "
        "right and the weaker ones miss it; near 0 or negative items do not help rank models. "
        f"{len(none)} item(s) no model solves and {len(every)} every model solves; both kinds "
        "add nothing to the ranking (the first may have wrong targets).</p>"
        + _plot(plots.difficulty_histogram(per_item), "item difficulty")
        + _item_table(items, evaluation, samples)
    )


def _coverage(items: Sequence[Item]) -> str:
    row_name, col_name, rows, cols, counts = plots.coverage_table(items)
    table = _table([f"{row_name} \\ {col_name}", *cols],
                   [[_e(r), *map(str, c)] for r, c in zip(rows, counts, strict=True)],
                   set(range(1, len(cols) + 1)))  # fmt: skip
    return (
        f"<h2>Coverage</h2><p>How many items test each {row_name} and {col_name}: empty cells "
        "are capabilities the benchmark does not measure.</p>"
        + _plot(plots.coverage_heatmap(items), "coverage heatmap")
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
        + _plot(plots.judge_distributions(summary), "judge score distribution")
        + (
            "<h3>Failing items</h3>"
            + _table(["item", "attributed to", "scores", "judge's reason"], fail_rows, set())
            if fail_rows
            else ""
        )
    )


def _calibration(data: Mapping[str, Any]) -> str:
    """The panel's calibration: separability, fitted item parameters, the subset."""
    panel = data.get("panel") or []
    sep = data.get("separability") or {}
    subset = data.get("subset") or {}
    intervals = {m["model"]: m.get("ci95") for m in panel}
    accuracy = {m["model"]: m.get("accuracy") for m in panel}
    rows = [
        [_e(m["model"]), pct(m.get("accuracy")), _ci(m.get("ci95")), _num(m.get("ability"))]
        for m in sorted(panel, key=lambda m: -(m.get("accuracy") or 0))
    ]
    flagged = sorted((data.get("flags") or {}).items())
    flags = ", ".join(f"{len(ids)} {flag.replace('_', ' ')}" for flag, ids in flagged)
    agreement = (data.get("predicted_vs_fitted") or {}).get("spearman")
    return (
        "<h2>Calibration (benchsmith calibrate)</h2>"
        f"<p>A panel of {len(panel)} models answered every item {data.get('epochs', 1)} "
        f"time(s); a 2PL IRT model was fitted. Separability: {sep.get('separated')} of "
        f"{sep.get('pairs')} pairs ({pct(sep.get('share'))}) have 95% bootstrap intervals "
        "that do not overlap.</p>"
        + _table(["model", "accuracy", "95% bootstrap interval", "ability (IRT)"], rows, {1, 3})
        + _plot(
            plots.separability_intervals({**sep, "intervals": intervals}, accuracy),
            "accuracy of each panel model with its bootstrap interval",
        )
        + _plot(plots.item_parameters(data.get("items") or []), "fitted item parameters")
        + f"<p>Flagged: {_e(flags or 'none')}. A subset of {subset.get('size')} items "
        f"{'keeps' if subset.get('ranking_kept') else 'does not keep'} the panel's ranking "
        f"(mean absolute error {pct(subset.get('mean_abs_error'))})"
        + (
            f"; the generators' predicted difficulty ranks items as the fit does with "
            f"Spearman {agreement:.2f}"
            if agreement is not None
            else ""
        )
        + ". Per item values are in <code>calibration.json</code> and each item's "
        "<code>metadata.calibration</code>.</p>"
    )


def render_report(
    *,
    items: Sequence[Item],
    spec: BenchmarkSpec | None,
    evaluation: Mapping[str, Any] | None,
    quality: Mapping[str, Any] | None,
    samples: Sequence[Mapping[str, Any]] = (),
    calibration: Mapping[str, Any] | None = None,
) -> str:
    """The whole page.

    Args:
        items: The benchmark's items.
        spec: Its spec (intent, subtask names), if readable.
        evaluation: The ``eval.json`` data, if any.
        quality: The ``judge.json`` data, if any.
        samples: The answers (``eval_samples.jsonl``), for the item table.
        calibration: The ``calibration.json`` data (``benchsmith calibrate``), if any.

    Returns:
        The HTML page, to be written in the benchmark folder (media links are relative to it).
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
        parts += [
            _models(evaluation),
            _run_facts(evaluation),
            _discriminativeness(evaluation),
            _items(items, evaluation, samples),
        ]
    else:
        parts.append("<h2>Items</h2>" + _item_table(items, None, ()))
    if calibration:
        parts.append(_calibration(calibration))
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
