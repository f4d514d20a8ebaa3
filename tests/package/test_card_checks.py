"""The card's acceptance line names the checks that ran and those that did not; human
acceptance is shown when a review exists; paths are recorded portably."""

from __future__ import annotations

import json

from test_exports import ITEMS, make_source, make_spec

from benchsmith.item import Item
from benchsmith.ledger import Ledger
from benchsmith.package.card import card_stats, render_card
from benchsmith.package.checks import CheckTally, describe, judge_reason
from benchsmith.package.portable import (
    portable_metadata,
    portable_path,
    portable_source,
    scrub_paths,
)
from benchsmith.package.writer import write_data
from benchsmith.statistics import wilson_interval

EMBEDDED = (
    "skipped: the verification role is the embedded 135M model, whose verdicts cannot be "
    "trusted; opt in with --judge advisory"
)


def verdict(check, ok=True, reason=""):
    return {"check": check, "ok": ok, "reason": reason}


def spoken_item(language_id="question en (0.97)"):
    """A spoken item's verdicts: structural, wording, the ASR not enforced, no judge."""
    return {
        "verification": {
            "structural": [
                verdict("schema"),
                verdict("media"),
                verdict("injection"),
                verdict("language_id", reason=language_id),
                verdict("target"),
                verdict(
                    "asr",
                    reason="unavailable: pocketsphinx cannot recognise espeak-ng speech "
                    "reliably here (not enforced): wer 0.80 (threshold 0.50): heard 'so any'",
                ),
            ],
            "duplicate": {"kind": "unique"},
        }
    }


def _line(text, start):
    (line,) = [x for x in text.splitlines() if x.startswith(f"- {start}")]
    return line


def test_the_acceptance_line_names_the_checks_that_did_not_run():
    tally = CheckTally()
    tally.add_item(spoken_item())
    tally.add_item(spoken_item("unavailable: lingua has no model for sw"))
    tally.add_rejected("duplicate")
    checks = tally.summary(EMBEDDED)
    assert checks["ran"] == [
        "structural",
        "injection screen",
        "wording review",
        "answer recompute",
        "duplicates",
    ]
    stats = card_stats(ITEMS, acceptance_rate=0.875, acceptance_checks=checks)
    line = _line(render_card(make_spec(), stats, []), "Acceptance:")
    assert line == (
        "- Acceptance: 87.5% of generated candidates passed the checks that ran (structural, "
        "injection screen, wording review, answer recompute, duplicates); not run: language "
        "identification on 1 of 2 items (lingua has no model for sw), LLM judge (the "
        "verification role is the embedded 135M model, whose verdicts cannot be trusted), "
        "OCR read-back (no question rendered into an image); recorded but not enforced: ASR "
        "round-trip (pocketsphinx cannot recognise espeak-ng speech reliably here (not "
        "enforced)). The rejected ones are in `rejects.jsonl`."
    )
    # The report says the same, in its own words.
    assert describe(checks).startswith("passed the checks that ran (structural, ")


def test_a_judge_that_ran_is_named_and_an_advisory_one_is_not_counted():
    enforced, advisory = CheckTally(), CheckTally()
    enforced.add_item({"verification": {"structural": [], "judge": {"enforced": True}}})
    advisory.add_item({"verification": {"structural": [], "judge": {"enforced": False}}})
    assert "LLM judge" in enforced.summary("enforced, openai:gpt-4o")["ran"]
    summary = advisory.summary("advisory, openai:gpt-4o")
    assert "LLM judge" not in summary["ran"]
    assert "recorded but not enforced: LLM judge (advisory" in describe(summary)
    # A judge that failed a rejected candidate ran, though no accepted item records it.
    rejected = CheckTally()
    rejected.add_rejected("verbatim_source", [{"attempt": 1, "check": "judge", "reason": "x"}])
    assert rejected.summary()["ran"] == ["structural", "LLM judge"]
    assert judge_reason("off (--judge off)") == "turned off with --judge off"
    assert judge_reason("") == ""
    assert "LLM judge (no judge model configured)" in describe(CheckTally().summary())


def test_unavailable_checks_are_read_by_the_reviewers_own_prefix():
    from benchsmith.package import checks
    from benchsmith.verify import reviewer

    assert checks.UNAVAILABLE == reviewer.UNAVAILABLE


def test_a_card_without_the_checks_does_not_claim_any():
    stats = card_stats(ITEMS, acceptance_rate=0.8)
    line = _line(render_card(make_spec(), stats, []), "Acceptance:")
    assert "passed verification (which checks ran was not recorded)" in line


def test_human_acceptance_is_shown_with_its_wilson_interval_when_reviewed():
    low, high = wilson_interval(7, 8)
    stats = card_stats(ITEMS, acceptance_rate=1.0, human_review=(7, 8))
    text = render_card(make_spec(), stats, [])
    assert _line(text, "Human review:") == (
        f"- Human review: 7 of 8 reviewed items accepted (87.5%, Wilson 95% interval "
        f"{low:.1%}-{high:.1%})"
    )
    assert "Human review" not in render_card(make_spec(), card_stats(ITEMS), [])


def test_a_local_source_is_named_by_its_file_on_the_card():
    local = make_source("gadgets", "MIT", provenance={"source": "/home/ana/data/gadgets.csv"})
    remote = make_source("facts", "MIT")
    text = render_card(make_spec(), card_stats(ITEMS), [local, remote])
    assert "/home/ana" not in text
    assert "| gadgets | Gadgets | MIT | gadgets.csv |" in text
    assert "https://example.org/data.csv" in text


def test_paths_are_recorded_relative_to_the_folder_or_by_name(tmp_path):
    bench = tmp_path / "bench"
    assert portable_path(bench / "media" / "a.png", bench) == "media/a.png"
    assert portable_path("media/a.png", bench) == "media/a.png"
    assert portable_path(tmp_path / "inputs" / "chapter.md", bench) == "chapter.md"
    assert portable_path("C:\\Users\\ana\\chapter.md") == "chapter.md"
    assert portable_source("/home/ana/t.csv") == "t.csv"
    assert portable_source("hf:squad") == "hf:squad"
    assert scrub_paths(f"input '{tmp_path}/in/x.wav' is silent", bench) == (
        "input 'x.wav' is silent"
    )
    assert scrub_paths(f"outside the roots ({bench}/media, ~/data/x)", bench) == (
        "outside the roots (media, x)"
    )
    for text in ("km/h and 1/2 and and/or", "see https://example.org/a/b/c", "/single"):
        assert scrub_paths(text, bench) == text
    meta = {
        "reference": {"file": "/home/ana/chapter.md", "section": "s", "span": [0, 1]},
        "sources": [{"file": "/home/ana/chapter.md"}, {"file": "notes.md"}],
    }
    assert portable_metadata(meta) == {
        "reference": {"file": "chapter.md", "section": "s", "span": [0, 1]},
        "sources": [{"file": "chapter.md"}, {"file": "notes.md"}],
    }


def test_items_of_an_older_build_lose_their_absolute_paths_when_packaged(tmp_path):
    bench = tmp_path / "bench"
    (bench / "data").mkdir(parents=True)
    old = "/home/ana/thesis/chapter3.md"
    item = Item(
        id="c1",
        input="What is the future value?",
        target="110",
        metadata={
            "subtask": "computed",
            "reference": {"file": old, "section": "Interest", "span": [0, 9]},
            "sources": [{"file": old, "section": "Interest", "span": [0, 9]}],
        },
    )
    ledger = Ledger(None)
    ledger.accept({"id": "g#0", "grounding_id": "g", "subtask_id": "computed"}, item)
    write_data(bench, ledger)
    (row,) = [json.loads(x) for x in (bench / "data" / "test.jsonl").read_text().splitlines()]
    assert row["metadata"]["reference"]["file"] == "chapter3.md"
    assert row["metadata"]["sources"][0]["file"] == "chapter3.md"


def test_the_report_counts_the_items_as_the_card_does(tmp_path):
    # An image item that declares no modalities and an item with no subtask: the report's
    # counts (write_data) and the card's (card_stats over what was written) agree on both.
    bench = tmp_path / "bench"
    (bench / "data").mkdir(parents=True)
    image = {"type": "image", "image": "media/a.png"}
    items = [
        Item(id="t1", input="2 + 2?", target="4", metadata={"subtask": "arithmetic"}),
        Item(
            id="i1",
            input=[{"role": "user", "content": [{"type": "text", "text": "Colour?"}, image]}],
            target="red",
            metadata={"subtask": "colours"},
        ),
        Item(id="n1", input="3 + 3?", target="6", metadata={"modalities": ["text"]}),
    ]
    ledger = Ledger(None)
    for n, item in enumerate(items):
        ledger.accept({"id": f"g#{n}", "grounding_id": "g", "subtask_id": "s"}, item)
    data = write_data(bench, ledger)
    lines = (bench / "data" / "test.jsonl").read_text().splitlines()
    card = card_stats(json.loads(line) for line in lines)
    assert data.counts.n == card.n_items == 3
    assert dict(data.counts.by_modality) == card.by_modality == {"text": 2, "text+image": 1}
    assert dict(data.counts.by_subtask) == card.by_subtask
    assert card.by_subtask == {"arithmetic": 1, "colours": 1, "unknown": 1}
