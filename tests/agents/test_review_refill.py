"""The loop back: items rejected in review are replaced by a resumed build (scripted fake)."""

from __future__ import annotations

import json

from executor_fakes import Router, install, judge_yes, make_catalog, make_spec
from starlette.testclient import TestClient

from benchsmith.api import build_benchmark
from benchsmith.config import RunConfig, RunPaths
from benchsmith.llm.registry import register_runtime
from benchsmith.review.server import ReviewState, create_app


def _build(tmp_path, out, router, **kw):
    config = RunConfig(
        judge="enforce",
        paths=RunPaths(
            out_dir=str(out), run_dir=str(out / ".run"), catalog_dir=str(tmp_path / "catalog")
        ),
    )
    install(config, router)
    try:
        return build_benchmark(out=out, config=config, **kw)
    finally:
        register_runtime(config, None)


def _lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_rejected_items_are_refilled_edits_kept_and_reported(tmp_path):
    _catalog, card = make_catalog(tmp_path)
    spec = make_spec([("capitals--capitals", "capitals", 5, card.size, {})])
    router = Router(JudgeVerdict=judge_yes)
    out = tmp_path / "bench"
    first = _build(tmp_path, out, router, spec=spec)
    assert first.items == 5
    before = [item["id"] for item in _lines(out / "data" / "test.jsonl")]
    # The decisions go through the review page's own API.
    page = TestClient(create_app(ReviewState(out, "ana")))
    edited_question = "Which city is the capital of this country, as of today?"
    for item_id, body in [
        (before[0], {"decision": "accept"}),
        (before[1], {"decision": "reject", "reason": "wrong_target", "note": "no"}),
        (before[2], {"decision": "reject", "reason": "ambiguous"}),
        (before[3], {"decision": "edit", "edit": {"question": edited_question}}),
    ]:
        assert page.post(f"/api/items/{item_id}/decision", json=body).status_code == 200
    calls = len(router.prompts["JudgeVerdict"])
    assert calls == 5

    again = _build(tmp_path, out, router, resume=True)

    assert again.items == 5 and again.status == "complete"
    assert any("2 item(s) rejected in review are replaced" in line for line in again.log)
    assert len(router.prompts["JudgeVerdict"]) == calls + 2  # only the two fresh slots
    after = _lines(out / "data" / "test.jsonl")
    ids = [item["id"] for item in after]
    assert len(ids) == 5 and before[1] not in ids and before[2] not in ids
    fresh = [item for item in after if item["id"] not in before]
    assert len(fresh) == 2
    for item in fresh:  # verified like any other item
        checks = {v["check"]: v["ok"] for v in item["metadata"]["verification"]["structural"]}
        assert checks and all(checks.values())
    by_id = {item["id"]: item for item in after}
    assert by_id[before[3]]["metadata"]["question"] == edited_question
    assert edited_question in json.dumps(by_id[before[3]]["input"])
    assert by_id[before[3]]["metadata"]["review"]["decision"] == "edit"
    assert by_id[before[0]]["metadata"]["review"]["decision"] == "accept"
    human = [r for r in _lines(out / "rejects.jsonl") if r["check"] == "human_review"]
    assert sorted(r["item"] for r in human) == sorted(before[1:3])
    assert {r["reason"] for r in human} == {"wrong_target no", "ambiguous"}
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["human_review"]["overall"]["reviewed"] == 4
    assert report["human_review"]["overall"]["accepted"] == 2
    assert report["rejection_reasons"]["human: wrong target"] == 1
    assert report["rejection_reasons"]["human: ambiguous"] == 1
    assert "## Human review" in (out / "report.md").read_text(encoding="utf-8")
    card_text = (out / "README.md").read_text(encoding="utf-8")
    assert (
        "Human review: 2 of 4 reviewed items accepted (50.0%, Wilson 95% interval 15.0%-85.0%)"
        in card_text
    )
    assert "human acceptance, capitals: 2 of 4" in card_text
    assert "human rejection reasons: wrong target 1, ambiguous 1" in card_text
    # No exported file holds a rejected item.
    for exported in [out / "data" / "test.jsonl", *out.glob("lmeval/*")]:
        if exported.is_file():
            text = exported.read_text(encoding="utf-8", errors="replace")
            assert before[1] not in text and before[2] not in text

    # A further resume changes nothing and calls no model.
    files = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and ".run" not in p.parts}
    calls = len(router.prompts["JudgeVerdict"])
    _build(tmp_path, out, router, resume=True)
    assert len(router.prompts["JudgeVerdict"]) == calls
    assert {p: p.read_bytes() for p in files} == files
