"""A fixed sample of the program corpus built on the embedded model, every item reviewed.

The whole corpus (203 intents over 32 tables, eight sets) is measured by
``benchmarks/program_corpus.py`` (``make corpus``), whose figures the notes quote. The suite
keeps this sample: intents whose blind first run caught a real defect of the reader
(held-out-5's: "who painted it" asks for the painter, a zero-shot spec wants a
classification, a closed-book cue, rows missing from an open-book table, French filters
and aggregates, "pre-1850"), one intent
written as a bulleted list, a multihop within one table, a German intent (once a known
gap: no German wording), the remaining known gap, two intents the data cannot serve, and
nine intents over the starter catalog (no ``--dataset``) in six languages, one spoken.
Every program kind and both books are in it. Each intent is built by the CLI's own
``main`` in this process, so the builds share one embedded-model server
(``corpus_run.build``).

What must hold: a servable intent builds, a known gap and an unservable intent are refused
with what is missing, and the independent reviewer (``reviewer.py``) accepts every item.
"""

from __future__ import annotations

import pytest
from corpus_run import KNOWN_GAPS, OLD_PATH, build, entries, outcome_problem, table_files

from benchsmith.llm.local import server_available
from benchsmith.testing.local_build import offline_env

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1200)]

SAMPLE = (
    # held-out-5: each failed its blind first run for a reason since fixed in the reader
    # (one per kind and language here; r07, r11, r12, r15 and r20 are measured by
    # benchmarks/program_corpus.py and their phrasings by the unit tests)
    "r01", "r02", "r03", "r04", "r05", "r06", "r14", "r19", "r24",
    "e06",  # an intent written as a bulleted list (starts with "-")
    "i22",  # multihop within one table (an employee's manager's department)
    "r09", "r18",  # unservable: refused with what is missing
    "i28",  # a German intent, once a known gap (no German wording), now worded in German
    *KNOWN_GAPS,
    # starter-dev (no --dataset: the starter catalog's tables, read into programs, never the
    # old record path): German, Spanish, Italian, Dutch, Portuguese intents, a spoken one,
    # a field named by its card label's alias ("bmi"), an open-book filtered lookup, and an
    # intent the starter data cannot serve; two over the digits' pictures (the image is the
    # record: a classification in English, one in German over the digits 0 to 4)
    "s01", "s04", "s29", "s31", "s55", "s28", "s37", "s53", "s44", "s13", "s16",
)  # fmt: skip


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    if not server_available():
        pytest.skip("benchsmith[local] (llama-cpp-python's server) is not installed")
    tmp = tmp_path_factory.mktemp("corpus")
    environ = offline_env(tmp)
    chosen = entries(ids=set(SAMPLE))
    assert {e["id"] for e in chosen} == set(SAMPLE)
    files = table_files()
    return [build(entry, files, tmp, environ) for entry in chosen]


def test_the_sample_covers_every_program_kind_book_language_and_speech():
    chosen = entries(ids=set(SAMPLE))
    kinds = {k for e in chosen if e["servable"] for k in e["expect"]["kinds"]}
    assert kinds >= {"lookup", "filtered_lookup", "compare", "superlative", "count",
                     "aggregate", "classify", "multihop"}  # fmt: skip
    assert {e["expect"]["book"] for e in chosen if e["servable"]} == {"open", "closed"}
    assert {e["expect"]["language"] for e in chosen if e["servable"]} >= {
        "en", "fr", "de", "es", "it", "nl"
    }  # fmt: skip
    assert any(e.get("modality") == "speech" for e in chosen)
    assert {e["set"] for e in chosen} >= {"held-out-5", "starter-dev"}


def test_every_servable_intent_builds_and_every_other_is_refused_with_what_is_missing(results):
    # For a starter intent, built means built by question programs: the old record path
    # (items with no program) counts as a wrong outcome.
    assert [p for r in results if (p := outcome_problem(r))] == []


def test_no_starter_item_takes_the_old_record_path(results):
    starter = [r for r in results if r["set"] == "starter-dev" and r["items"]]
    assert len(starter) == 10
    assert sum(OLD_PATH in r["kinds"] for r in starter) == 0


def test_the_reviewer_accepts_every_item_of_the_sample(results):
    built = [r for r in results if r["items"]]
    assert len(built) == sum(1 for r in results if r["servable"] and r["id"] not in KNOWN_GAPS)
    assert [(r["id"], r["problems"]) for r in built if r["problems"]] == []
