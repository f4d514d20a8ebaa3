"""report.html and its numbers, read by parsing the page: intervals, plots, items, run facts."""

import json

import pytest
from eval_helpers import HOSTILE_QUESTION, free, install_fake, mc, write_bench
from lxml import html as lxml_html

from benchsmith.config import RunConfig, RunPaths
from benchsmith.evaluate import plots
from benchsmith.evaluate.api import evaluate_benchmark, write_report
from benchsmith.evaluate.html import _FILTER_SCRIPT, media_src
from benchsmith.item import Item
from benchsmith.llm.registry import register_runtime


def parse(path):
    return lxml_html.fromstring(path.read_text(encoding="utf-8"))


def score_row(page, model):
    """The cells of a model's row in the Scores table (the first table under "Scores")."""
    (table,) = page.xpath("//h2[.='Scores']/following-sibling::table[1]")
    for row in table.xpath(".//tbody/tr"):
        cells = [c.text_content().strip() for c in row.xpath("./td")]
        if cells[0].startswith(model):
            return cells
    raise AssertionError(f"no row for {model}")


# -- intervals ---------------------------------------------------------------------------
def twelve(target):
    return [mc(f"q{k}", f"Question {k}?", ["yes", "no"], target) for k in range(12)]


@pytest.mark.parametrize(
    ("target", "correct", "shown"),
    [("B", 0, "0.0% – 24.2%"), ("A", 12, "75.8% – 100.0%")],
)
def test_intervals_at_none_and_all_right_are_not_degenerate(tmp_path, target, correct, shown):
    bench = write_bench(tmp_path, twelve(target))
    result = evaluate_benchmark(bench, ["baseline:first"])  # always answers A
    model = json.loads((bench / "eval.json").read_text())["models"]["baseline:first"]
    assert model["correct"] == correct and model["n"] == 12
    low, high = model["ci95"]
    assert high - low > 0.2  # not [0, 0] or [1, 1]
    assert low <= model["accuracy"] <= high
    assert model["by_subtask"]["capitals"]["ci95"] == model["ci95"]
    cells = score_row(parse(result.report_path), "baseline:first")
    assert cells[2] == shown and "0.0% – 0.0%" not in cells[2]
    assert "Wilson" in result.data["methods"]["ci95"]


def test_pairs_have_a_difference_interval(evaluated_report):
    _bench, result, _models = evaluated_report
    for pair in result.data["pairs"]:
        low, high = pair["ci95"]
        assert -1 <= low <= pair["difference"] <= high <= 1 and high > low


# -- plots only when they carry information -------------------------------------------------
def test_skip_reason():
    assert plots.skip_reason([], []) == "no group to show"
    assert plots.skip_reason(["a"], [0.5], min_labels=2, label_name="subtask") == (
        "only 1 subtask; the table says it all"
    )
    assert plots.skip_reason(["a", "b"], [None, None]) == "no scored items"
    assert plots.skip_reason(["a", "b"], [0.0, 0.0, None]) == "every bar is zero"
    assert plots.skip_reason(["a", "b"], [0.0, 0.25]) is None
    assert plots.skip_reason(["a"], [1.0]) is None


def cell(accuracy):
    return {"accuracy": accuracy, "n": 3, "correct": 0, "ci95": [0.0, 0.5]}


def test_plot_decisions():
    one = {"m": {"by_subtask": {"s1": cell(0.5)}}}
    assert plots.subtask_scores(one) == plots.Plot(None, "only 1 subtask; the table says it all")
    zeros = {"m": {"by_subtask": {"s1": cell(0.0), "s2": cell(0.0)}}}
    assert plots.subtask_scores(zeros).skipped == "every bar is zero"
    unscored = {"m": {"by_subtask": {"s1": cell(None), "s2": cell(None)}}}
    assert plots.subtask_scores(unscored).skipped == "no scored items"
    two = {"m": {"by_subtask": {"s1": cell(0.0), "s2": cell(1 / 3)}}}
    drawn = plots.subtask_scores(two)
    assert drawn.png and not drawn.skipped
    single = [{"p_correct": 1.0, "n_models": 1}, {"p_correct": 0.0, "n_models": 1}]
    assert plots.difficulty_histogram(single).png is None
    assert plots.difficulty_histogram([{"p_correct": None, "n_models": 0}]).png is None
    assert plots.difficulty_histogram([{"p_correct": 0.5, "n_models": 2}]).png
    one_cell = [Item.model_validate(mc("q", "q?", ["a", "b"], "A"))]
    assert plots.coverage_heatmap(one_cell).skipped == (
        "one subtask and one skill only; the table says it all"
    )
    two_cells = [*one_cell, Item.model_validate(mc("r", "r?", ["a", "b"], "A", skills=["x"]))]
    assert plots.coverage_heatmap(two_cells).png


def test_the_report_leaves_out_an_all_zero_subtask_plot(tmp_path):
    rows = [mc(f"a{k}", f"A {k}?", ["x", "y"], "B", subtask="alpha") for k in range(3)]
    rows += [mc(f"b{k}", f"B {k}?", ["x", "y"], "B", subtask="beta") for k in range(3)]
    bench = write_bench(tmp_path, rows)
    page = evaluate_benchmark(bench, ["baseline:first"]).report_path.read_text()
    assert "No score by subtask plot: every bar is zero." in page
    assert 'alt="score by subtask"' not in page
    # One model: the difficulty histogram would repeat its accuracy.
    assert "No item difficulty plot: one model only" in page


def test_the_report_draws_the_subtask_plot_when_it_informs(evaluated_report):
    bench, _result, _models = evaluated_report
    page = parse(bench / "report.html")
    assert page.xpath('//img[@alt="score by subtask"]')
    assert page.xpath('//img[@alt="item difficulty"]')
    assert not page.xpath('//p[contains(@class, "no-plot")]')


# -- the item table ----------------------------------------------------------------------
def test_every_item_has_a_row_with_question_choices_target_and_answers(evaluated_report):
    bench, result, models = evaluated_report
    page = parse(bench / "report.html")
    header = [th.text_content() for th in page.xpath('//table[@id="item-table"]/thead/tr/th')]
    assert header == ["item", "question", "choices", "target", *models]
    rows = page.xpath('//table[@id="item-table"]/tbody/tr')
    by_id = {r.get("data-id"): r for r in rows}
    assert list(by_id) == [i["id"] for i in map(json.loads, open(bench / "data/test.jsonl"))]
    samples = {(s["model"], s["item_id"]): s for s in result.samples}

    australia = by_id["cap-4"]
    cells = australia.xpath("./td")
    assert "Which city is the capital of Australia?" in cells[1].text_content()
    assert [li.text_content() for li in cells[2].xpath(".//li")] == [
        "Sydney", "Melbourne", "Perth", "Canberra"
    ]  # fmt: skip
    assert australia.xpath(".//li[@class='target']")[0].text_content() == "Canberra"
    assert cells[3].text_content() == "D · Canberra"
    for model, answer_cell in zip(models, cells[4:], strict=True):
        sample = samples[(model, "cap-4")]
        assert "✗ wrong" in answer_cell.text_content()
        assert sample["answer"] in answer_cell.xpath(".//div[@class='reply']")[0].text_content()
    assert australia.get("data-solved") == "none" and australia.get("data-subtask") == "capitals"

    peru = by_id["cap-5"].xpath("./td")
    assert peru[3].text_content() == "Lima" and "✓ right" in peru[6].text_content()
    skipped = by_id["say-1"].xpath("./td")[6]
    assert skipped.xpath(".//summary")[0].text_content() == "skipped"
    assert "model cannot take audio" in skipped.text_content()


def test_media_are_linked_relative_to_the_report(evaluated_report):
    bench, _result, _models = evaluated_report
    page = parse(bench / "report.html")
    images = page.xpath('//table[@id="item-table"]//img[@class="thumb"]')
    assert [i.get("src") for i in images] == [f"media/dig-{k}.png" for k in range(1, 5)]
    assert all((bench / i.get("src")).is_file() for i in images)
    audio = page.xpath('//table[@id="item-table"]//audio')
    assert [a.get("src") for a in audio] == ["media/say-1.wav", "media/say-2.wav"]
    assert all(a.get("controls") is not None for a in audio)
    assert media_src("media/a b.png") == "media/a%20b.png"
    for unsafe in ("javascript:alert(1)", "/etc/passwd", "../secret.png", "media/../../x", ""):
        assert media_src(unsafe) is None, unsafe


def test_filters_are_there_and_match_the_analysis(evaluated_report):
    bench, result, _models = evaluated_report
    page = parse(bench / "report.html")
    subtasks = page.xpath('//select[@id="filter-subtask"]/option/@value')
    assert subtasks == ["", "capitals", "digits", "spoken"]
    solved = page.xpath('//select[@id="filter-solved"]/option/@value')
    assert {"", "none", "every", "real-none"} <= set(solved)
    none = page.xpath('//table[@id="item-table"]/tbody/tr[@data-solved="none"]/@data-id')
    assert none == result.data["items"]["none_solved"] and none
    every = page.xpath('//table[@id="item-table"]/tbody/tr[@data-solved="every"]/@data-id')
    assert every == result.data["items"]["all_solved"]
    real_none = page.xpath('//table[@id="item-table"]/tbody/tr[@data-real="none"]/@data-id')
    assert real_none == result.data["items"]["none_solved_by_real_models"]
    assert page.xpath('//*[@id="filter-count"]')[0].text_content() == "11 of 11 items shown"


def test_item_text_is_shown_as_text_never_run(evaluated_report):
    bench, _result, _models = evaluated_report
    text = (bench / "report.html").read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    page = parse(bench / "report.html")
    (row,) = page.xpath('//tr[@data-id="cap-2"]')
    assert row.xpath("./td[2]")[0].text_content() == HOSTILE_QUESTION
    # The page's only script is its own filter.
    scripts = page.xpath("//script")
    assert len(scripts) == 1 and scripts[0].text == _FILTER_SCRIPT


def test_hostile_names_and_answers_are_escaped(tmp_path):
    rows = [mc("x<b>1", 'What is "<img src=x onerror=alert(1)>"?', ["<i>a</i>", "b"], "A",
               subtask="<svg onload=alert(2)>")]  # fmt: skip
    bench = write_bench(tmp_path, [mc("q", "q?", ["a", "b"], "A")])  # a valid spec.json
    (bench / "data" / "test.jsonl").write_text(json.dumps(rows[0]) + "\n")  # a hostile subtask
    config = RunConfig(paths=RunPaths(run_dir=str(tmp_path / "runs")))
    install_fake(config, "<script>alert(3)</script> ANSWER: A")
    evaluate_benchmark(bench, ["local"], config=config)
    register_runtime(config, None)
    page = parse(bench / "report.html")
    assert not page.xpath("//img[@src='x'] | //svg | //i[.='a'] | //b[.='1']")
    assert len(page.xpath("//script")) == 1
    (row,) = page.xpath("//table[@id='item-table']/tbody/tr")
    assert row.get("data-id") == "x<b>1" and row.get("data-subtask") == "<svg onload=alert(2)>"
    assert "<script>alert(3)</script> ANSWER: A" in row.text_content()


# -- run facts and baselines -----------------------------------------------------------------
def test_eval_json_records_tokens_cost_latency_and_settings(evaluated_report):
    bench, result, models = evaluated_report
    data = json.loads((bench / "eval.json").read_text())
    random, first, vision, text_only = (data["models"][m] for m in models)
    for model in (random, first, vision, text_only):  # the contract holds
        assert {"accuracy", "n", "usage", "settings", "missing"} <= set(model)
    usage = vision["usage"]
    assert usage["calls"] == vision["n"] == 9  # the two audio items were refused
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert usage["estimated_token_calls"] == 0
    assert usage["cost_usd"] == pytest.approx(
        (usage["input_tokens"] * 0.15 + usage["output_tokens"] * 0.6) / 1e6, abs=1e-6
    )
    latency = usage["latency_s"]
    assert latency["n"] == 9 and 0.02 <= latency["median"] <= latency["p95"]
    assert vision["settings"] == {"temperature": 0.0, "max_tokens": None}
    assert set(vision["missing"]) == {"max_tokens"}
    assert text_only["usage"]["cost_usd"] is None and "price" in text_only["missing"]["cost_usd"]
    assert random["usage"]["calls"] == 0 and random["settings"] is None
    assert "baseline" in random["missing"]["latency_s"]
    assert data["run"]["new_calls_by_model"] == {
        models[0]: 0, models[1]: 0, models[2]: 9, models[3]: 5
    }  # fmt: skip
    samples = [json.loads(x) for x in (bench / "eval_samples.jsonl").read_text().splitlines()]
    answered = [s for s in samples if s["model"] == models[2] and s["status"] == "answered"]
    assert all(s["call"]["latency_s"] > 0 and not s["call"]["cached"] for s in answered)


def test_the_report_shows_run_facts(evaluated_report):
    bench, result, models = evaluated_report
    page = parse(bench / "report.html")
    (table,) = page.xpath("//h2[.='Runs']/following-sibling::table[1]")
    rows = {
        r.xpath("./td[1]")[0].text_content(): [c.text_content() for c in r.xpath("./td")]
        for r in table.xpath("./tbody/tr")
    }
    usage = result.data["models"][models[2]]["usage"]
    vision = rows[models[2]]
    assert vision[1] == "9 (9 new)" and vision[2] == f"{usage['input_tokens']:,}"
    assert vision[4] == f"${usage['cost_usd']:.4f}"
    assert vision[5] == f"{usage['latency_s']['median']:.2f}"
    assert vision[7] == "0.0" and vision[8] == "default"
    assert rows[models[3]][4] == "—" and "price" in rows[models[3]][9]
    assert "baseline answers without a model call" in rows["baseline:random (baseline)"][9]


def test_baselines_are_compared_on_multiple_choice_items_only(evaluated_report, tmp_path):
    _bench, result, models = evaluated_report
    versus = result.data["baseline_comparisons"]
    vision = [v for v in versus if v["model"] == models[2]]
    assert {v["n"] for v in vision} == {8}  # 4 text and 4 image items; not cap-5 (short answer)
    assert all("multiple-choice" in w for w in result.data["warnings"] if "beat" in w)
    # A short-answer benchmark: the model misses everything, so do the baselines; no warning.
    rows = [free(f"s{k}", f"Capital {k}?", "Lima", "short_answer") for k in range(4)]
    bench = write_bench(tmp_path, rows)
    config = RunConfig(paths=RunPaths(run_dir=str(tmp_path / "runs")))
    install_fake(config, "Quito")
    data = evaluate_benchmark(bench, ["local", "baseline:random"], config=config).data
    register_runtime(config, None)
    assert data["models"]["local"]["accuracy"] == 0.0
    assert data["baseline_comparisons"] == []
    assert not any("beat" in w or "below" in w for w in data["warnings"])


def test_report_without_samples_still_lists_items(evaluated_report, tmp_path):
    bench, _result, _models = evaluated_report
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(bench, copy)
    (copy / "eval_samples.jsonl").unlink()
    page = parse(write_report(copy))
    assert len(page.xpath("//table[@id='item-table']/tbody/tr")) == 11
