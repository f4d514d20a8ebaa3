"""Every corpus intent built on the embedded model, every item read by the independent reviewer.

For each intent of the corpus sets the real CLI builds a small benchmark from the intent
and the corpus tables it names (``--dataset``), on the embedded SmolLM2-135M through its
server. An intent the data can serve must build; one it cannot must be refused with a
message naming what is missing. Every item is then read by :func:`reviewer.review_item`,
code of its own that reads the data files itself.

The sets: ``tuning`` (two thirds of intents.json), then sets written by people who had not
read the code, each run once blind before it was used for tuning: ``held-out-1`` (the other
third of intents.json), ``held-out-2``, ``held-out-3``, ``dev-4``, ``dev-5``,
``held-out-4`` and ``held-out-5`` (the last four over tables of their own). Their blind
first runs are the figures that count (61.5 %, 78.9 %, 71.4 %, 50.0 %, 44.3 %, 69.7 % and
31.2 % of items accepted; README, issue notes). Here every set must reach 95 %: a
regression test, not the generalization figure. A new blind set is the way to measure
again. Set
``BENCHSMITH_CORPUS_REPORT=PATH`` to keep the per-intent figures and
``BENCHSMITH_CORPUS_SETS=dev-4,held-out-4`` (or ``BENCHSMITH_CORPUS_IDS=i26,h08``) to build
only those, and ``BENCHSMITH_CORPUS_MODEL=openai:MODEL`` (or ``MODEL@URL``) to build with a
capable model, which then proposes each program (``--programs auto``).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from reviewer import review_item

from benchsmith.llm.local import server_available
from benchsmith.testing.local_build import BIN, offline_env

pytestmark = [pytest.mark.integration, pytest.mark.timeout(3000)]

CORPUS = Path(__file__).parent / "corpus"
SIZE = 6
# Later sets: (file, set name). Held-out sets are written by someone who has not read the code.
SETS = (
    ("intents_holdout2.json", "held-out-2"),
    ("intents_holdout3.json", "held-out-3"),
    ("intents_dev4.json", "dev-4"),
    ("intents_dev5.json", "dev-5"),
    ("intents_holdout4.json", "held-out-4"),
    ("intents_holdout5.json", "held-out-5"),
)
# Intents the data could serve but the code does not read yet: each must be refused with
# this message (a test that starts to fail here means the gap closed: remove it).
KNOWN_GAPS = {
    # The intent is in German: it is planned through its gloss, but items are worded in
    # English and French only.
    "i28": "no de label for the field 'country'",
    # French items over wine names the offline data cannot translate (Barolo, Barbera):
    # refused naming the field and how to give French values.
    "d21": "the values of 'wine_type' in d4_wine have no fr names",
}


def load(name: str) -> list[dict]:
    return json.loads((CORPUS / name).read_text(encoding="utf-8"))


def build(entry: dict, files: dict[str, str], tmp: Path, environ: dict[str, str]) -> dict:
    """Build one intent; the figures and the reviewer's complaints."""
    out = tmp / entry["id"]
    args = [str(BIN / "benchsmith"), "build", "--size", str(SIZE), "--out", str(out)]
    for table in entry["tables"]:
        args += ["--dataset", str(CORPUS / files[table])]
    if os.environ.get("BENCHSMITH_CORPUS_MODEL"):
        # A capable endpoint reads the intents (--programs auto then asks it for the program).
        args += ["--model", os.environ["BENCHSMITH_CORPUS_MODEL"]]
    # "--" before the intent: an intent may start with "-" (a bulleted list).
    done = subprocess.run(
        [*args, "--quiet", "--", entry["intent"]],
        cwd=tmp,
        env=environ,
        capture_output=True,
        text=True,
        timeout=600,
    )
    result = {
        "id": entry["id"],
        "set": entry["set"],
        "intent": entry["intent"],
        "held_out": entry["held_out"],
        "servable": entry["servable"],
        "exit": done.returncode,
        "message": (done.stderr.strip().splitlines() or [""])[-1][:400],
        "items": 0,
        "accepted": 0,
        "problems": [],
    }
    data = out / "data" / "test.jsonl"
    if not data.is_file():
        return result
    items = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()]
    result["items"] = len(items)
    result["kinds"] = sorted({(i["metadata"].get("program") or {}).get("kind", "?") for i in items})
    for item in items:
        problems = review_item(item, entry, CORPUS)
        if problems:
            result["problems"].append(
                {"id": item["id"], "input": item["input"][-200:], "why": problems}
            )
        else:
            result["accepted"] += 1
    return result


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    if not server_available():
        pytest.skip("benchsmith[local] (llama-cpp-python's server) is not installed")
    tmp = tmp_path_factory.mktemp("corpus")
    environ = offline_env(tmp)
    if os.environ.get("BENCHSMITH_CORPUS_MODEL"):  # its key, which offline_env leaves out
        environ.update({k: v for k, v in os.environ.items() if k.startswith("OPENAI_")})
    files = {
        t["id"]: t["file"]
        for listing in sorted(CORPUS.glob("tables*.json"))
        for t in load(listing.name)
    }
    entries = [
        {**e, "set": "held-out-1" if e["held_out"] else "tuning"} for e in load("intents.json")
    ]
    for name, label in SETS:
        if (CORPUS / name).is_file():
            entries += [{**e, "set": label} for e in load(name)]
    only = {s for s in os.environ.get("BENCHSMITH_CORPUS_SETS", "").split(",") if s}
    if only:
        entries = [e for e in entries if e["set"] in only]
    ids = {s for s in os.environ.get("BENCHSMITH_CORPUS_IDS", "").split(",") if s}
    if ids:
        entries = [e for e in entries if e["id"] in ids]
    out = [build(entry, files, tmp, environ) for entry in entries]
    report = os.environ.get("BENCHSMITH_CORPUS_REPORT")
    if report:
        Path(report).write_text(json.dumps(out, indent=1, ensure_ascii=False), encoding="utf-8")
    return out


def share(rows: list[dict]) -> tuple[int, int]:
    return sum(r["accepted"] for r in rows), sum(r["items"] for r in rows)


def test_every_servable_intent_builds_and_every_other_is_refused_with_what_is_missing(results):
    for r in results:
        if r["id"] in KNOWN_GAPS:
            assert r["exit"] != 0 and KNOWN_GAPS[r["id"]] in r["message"], r
        elif r["servable"]:
            assert r["exit"] in (0, 3) and r["items"] > 0, r
        else:
            assert r["exit"] != 0 and r["items"] == 0, r
            assert "missing" in r["message"] or "no " in r["message"], r


def test_the_reviewer_accepts_95_percent_of_every_sets_items(results):
    for name in sorted({r["set"] for r in results}):
        rows = [r for r in results if r["set"] == name]
        accepted, total = share(rows)
        assert total > 0 and accepted / total >= 0.95, (name, [r for r in rows if r["problems"]])
