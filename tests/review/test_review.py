"""The review journal, human acceptance and the review server (Starlette's test client)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from benchsmith.item import Item
from benchsmith.layout import REVIEW_FILE
from benchsmith.review.journal import (
    ReviewDecision,
    ReviewError,
    ReviewJournal,
    parse_decision,
)
from benchsmith.review.server import ReviewState, create_app, is_loopback, new_token
from benchsmith.review.summary import human_summary
from benchsmith.statistics import cohen_kappa, wilson_interval


# -- statistics ---------------------------------------------------------------------------
def test_wilson_interval_is_sane_at_the_edges_and_matches_hand_values():
    assert wilson_interval(0, 12) == pytest.approx((0.0, 0.2425), abs=1e-4)
    assert wilson_interval(12, 12) == pytest.approx((0.7575, 1.0), abs=1e-4)
    assert wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_cohen_kappa_hand_values():
    # p_o = 3/4, p_e = 1/2 * 1/4 + 1/2 * 3/4 = 1/2 -> kappa 1/2
    assert cohen_kappa(["y", "y", "n", "n"], ["y", "n", "n", "n"]) == pytest.approx(0.5)
    assert cohen_kappa(["y", "n"], ["n", "y"]) == pytest.approx(-1.0)
    assert cohen_kappa(["y", "y"], ["y", "y"]) == 1.0
    assert cohen_kappa([], []) is None


# -- decisions and the journal -------------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"decision": "reject"}, "a rejection needs a reason"),
        ({"decision": "accept", "reason": "ambiguous"}, "only a rejection takes a reason"),
        ({"decision": "edit"}, "an edit needs"),
        ({"decision": "edit", "edit": {}}, "an edit needs"),
        ({"decision": "reject", "reason": "other"}, "needs a note"),
        ({"decision": "maybe"}, "decision"),
    ],
)
def test_a_bad_decision_is_refused_with_the_reason(data, message):
    with pytest.raises(ReviewError, match=message):
        parse_decision({"id": "x", "reviewer": "ana", **data})


def test_the_journal_appends_whole_lines_and_cuts_a_torn_one(bench):
    journal = ReviewJournal(bench)
    journal.append(parse_decision({"id": "txt-1", "reviewer": "ana", "decision": "accept"}))
    journal.append(
        parse_decision(
            {"id": "txt-1", "reviewer": "ana", "decision": "reject", "reason": "ambiguous"}
        )
    )
    path = bench / REVIEW_FILE
    with path.open("a", encoding="utf-8") as fh:
        fh.write('{"id": "txt-2", "reviewer": "ana", "deci')  # killed mid-write
    reopened = ReviewJournal(bench)
    assert [d.decision for d in reopened.decisions()] == ["accept", "reject"]
    assert path.read_text(encoding="utf-8").endswith("\n")
    assert reopened.latest("ana")["txt-1"].reason == "ambiguous"
    fields = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert set(fields) == {"id", "reviewer", "decision", "reason", "note", "edit", "time"}


def test_a_corrupt_whole_line_names_the_file_and_line(bench):
    (bench / REVIEW_FILE).write_text('{"id": "x"}\n', encoding="utf-8")
    with pytest.raises(ReviewError, match=r"review\.jsonl:1: not a review decision"):
        ReviewJournal(bench)


def test_human_summary_per_subtask_reasons_and_agreement(bench):
    journal = ReviewJournal(bench)
    for reviewer, item_id, decision, reason in [
        ("ana", "txt-1", "accept", None),
        ("ana", "txt-2", "reject", "wrong_target"),
        ("ana", "img-1", "accept", None),
        ("bo", "txt-1", "accept", None),
        ("bo", "txt-2", "accept", None),
        ("bo", "img-1", "accept", None),
        ("ana", "gone-9", "accept", None),  # an id no longer in the folder
    ]:
        journal.append(
            ReviewDecision(id=item_id, reviewer=reviewer, decision=decision, reason=reason)
        )
    items = [Item.model_validate_json(line) for line in (bench / "data" / "test.jsonl").open()]
    summary = human_summary(items, journal)
    # The latest decision on each item counts: bo's accept of txt-2 came last.
    assert summary["overall"]["reviewed"] == 3 and summary["overall"]["accepted"] == 3
    assert summary["by_subtask"]["capitals"]["reviewed"] == 2
    assert summary["reasons"] == {}
    (pair,) = summary["agreement"]
    assert pair["reviewers"] == ["ana", "bo"] and pair["items"] == 3
    assert pair["agreement"] == pytest.approx(2 / 3)
    assert pair["kappa"] == pytest.approx(0.0)  # bo accepts everything: no chance-free agreement
    journal.append(
        ReviewDecision(id="txt-2", reviewer="ana", decision="reject", reason="wrong_target")
    )
    summary = human_summary(items, journal)
    assert summary["reasons"] == {"wrong target": 1}
    assert summary["by_subtask"]["capitals"]["acceptance"] == pytest.approx(0.5)
    assert summary["by_subtask"]["capitals"]["ci95"] == pytest.approx([0.0945, 0.9055], abs=1e-4)


# -- the server -----------------------------------------------------------------------------
def client(bench, reviewer="ana", token=None):
    return TestClient(create_app(ReviewState(bench, reviewer), token=token))


def test_the_page_and_its_script_are_served_from_the_package(bench):
    c = client(bench)
    page = c.get("/")
    assert page.status_code == 200 and '<script src="static/review.js">' in page.text
    script = c.get("/static/review.js")
    assert script.status_code == 200 and "textContent" in script.text
    # Item text is only ever shown as text: the script never parses values as HTML.
    assert "innerHTML" not in script.text and "insertAdjacentHTML" not in script.text
    assert c.get("/static/secret.py").status_code == 404
    assert "http://" not in page.text and "https://" not in page.text  # no CDN


def test_items_list_filters_fields_and_the_item_view(bench, hostile):
    c = client(bench)
    listing = c.get("/api/items").json()
    assert listing["progress"] == {"reviewed": 0, "total": 4}
    rows = {r["id"]: r for r in listing["items"]}
    assert rows["img-1"]["modality"] == "image" and rows["aud-1"]["modality"] == "audio"
    assert rows["txt-1"]["question"] == hostile  # raw text in JSON; the page shows it as text
    view = c.get("/api/items/img-1").json()
    assert [p["type"] for p in view["parts"]] == ["text", "image"]
    assert view["parts"][1]["url"] == "/media/img-1.png"
    assert [c_["correct"] for c_ in view["choices"]] == [True, False]
    assert [v["check"] for v in view["verdicts"]] == ["schema", "sentence"]
    image = c.get(view["parts"][1]["url"])
    assert image.status_code == 200 and image.content.startswith(b"\x89PNG")
    audio_url = c.get("/api/items/aud-1").json()["parts"][1]["url"]
    audio = c.get(audio_url)
    assert audio.status_code == 200 and audio.content.startswith(b"RIFF")
    assert c.get("/api/items/nope").status_code == 404


@pytest.mark.parametrize(
    "path",
    [
        "/media/../data/test.jsonl",
        "/media/%2e%2e/data/test.jsonl",
        "/media/..%2fdata%2ftest.jsonl",
        "/media/link.txt",  # a link out of the folder
        "/media/missing.png",
        "/media/%00.png",
    ],
)
def test_media_routes_serve_only_files_under_media(bench, path):
    assert client(bench).get(path).status_code == 404


def test_decisions_are_saved_at_once_and_survive_a_restart(bench):
    c = client(bench)
    assert c.post("/api/items/txt-1/decision", json={"decision": "accept"}).status_code == 200
    rejected = c.post(
        "/api/items/txt-2/decision",
        json={"decision": "reject", "reason": "wrong_target", "note": "Rome is B"},
    )
    assert rejected.status_code == 200 and rejected.json()["progress"]["reviewed"] == 2
    edited = c.post(
        "/api/items/img-1/decision",
        json={"decision": "edit", "edit": {"question": "Which digit does the image show?"}},
    )
    assert edited.status_code == 200
    lines = (bench / REVIEW_FILE).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["decision"] for line in lines] == ["accept", "reject", "edit"]
    # A new server on the same folder (after a kill) starts where the reviewer stopped.
    again = client(bench).get("/api/items").json()
    assert {r["id"]: r["status"] for r in again["items"]} == {
        "txt-1": "accepted",
        "txt-2": "rejected",
        "img-1": "edited",
        "aud-1": "unreviewed",
    }
    assert again["summary"]["reasons"] == {"wrong target": 1}
    # The reviewer sees their edit when they come back to the item.
    view = client(bench).get("/api/items/img-1").json()
    assert view["parts"][0]["text"] == "Which digit does the image show?"
    assert view["decision"]["decision"] == "edit"
    assert {r["judge"] for r in again["items"]} == {"not judged"}
    # Another reviewer sees their own progress.
    assert client(bench, "bo").get("/api/items").json()["progress"]["reviewed"] == 0


@pytest.mark.parametrize(
    ("edit", "check"),
    [
        ({"target": "C"}, "schema"),  # no third choice
        ({"choices": ["Paris", "Paris"]}, "schema"),
    ],
)
def test_an_edit_that_fails_a_structural_check_is_not_saved(bench, edit, check):
    response = client(bench).post(
        "/api/items/txt-1/decision", json={"decision": "edit", "edit": edit}
    )
    assert response.status_code == 422
    assert "fails the" in response.json()["error"]
    assert not (bench / REVIEW_FILE).exists()


def test_bad_decision_bodies_are_refused(bench):
    c = client(bench)
    assert c.post("/api/items/txt-1/decision", content=b"{not json").status_code == 400
    assert c.post("/api/items/txt-1/decision", json=[1]).status_code == 400
    assert c.post("/api/items/txt-1/decision", json={"decision": "reject"}).status_code == 422
    assert not (bench / REVIEW_FILE).exists()


def test_away_from_loopback_every_route_needs_the_token(bench):
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.7")
    assert new_token("127.0.0.1") is None and len(new_token("0.0.0.0")) >= 24
    c = client(bench, token="s3cret")
    for path in ("/", "/api/items", "/api/items/txt-1", "/media/img-1.png"):
        assert c.get(path).status_code == 403
        assert c.get(path, params={"token": "s3cret"}).status_code == 200
    assert c.get("/api/items", params={"token": "wrong"}).status_code == 403
    view = c.get("/api/items/img-1", params={"token": "s3cret"}).json()
    assert view["parts"][1]["url"] == "/media/img-1.png?token=s3cret"


@pytest.mark.integration
def test_the_real_server_killed_mid_review_loses_nothing(bench):
    """``benchsmith review`` on uvicorn: decide, SIGKILL the server, restart, all still there."""

    def start():
        proc = subprocess.Popen(
            [sys.executable, "-m", "benchsmith.cli", "review", str(bench), "--reviewer", "ana",
             "--no-browser"],
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        line = proc.stderr.readline()
        found = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        assert found, line
        return proc, found.group(1)

    def post(base, item_id, body):
        request = urllib.request.Request(
            f"{base}api/items/{item_id}/decision",
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    proc, base = start()
    try:
        post(base, "txt-1", {"decision": "accept"})
        post(base, "txt-2", {"decision": "reject", "reason": "ambiguous"})
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    proc, base = start()
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with urllib.request.urlopen(f"{base}api/items", timeout=5) as response:
                    listing = json.load(response)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        assert listing["progress"] == {"reviewed": 2, "total": 4}
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
    assert Path(bench / REVIEW_FILE).read_text(encoding="utf-8").count("\n") == 2
