"""A built benchmark folder holds no absolute path of the machine that built it.

Two builds on scripted fakes, each into a temporary folder: computed problems from a
reference chapter (items carry ``metadata.reference`` and ``metadata.sources``), and a
question program over a user's table (the card lists it as a source). Every text file of
each folder, and the Parquet splits decoded, is searched for the build folder, the input
files' folder, the home directory and the working directory; then ``benchsmith eval`` runs
a baseline on the folder and the search runs again (``eval.json``, ``report.html``).

The one exemption is ``.run/catalog/``: the run's own catalog, where the build records
where its inputs are so that a resumed build can read them again. It is the building
machine's working state, not the benchmark (the ledger beside it, which holds the items,
is searched).
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from executor_fakes import Router, install, judge_yes
from test_programs_library import COLUMNS, GADGETS

from benchsmith.agents.references import reference_subtasks, solution_grounding
from benchsmith.api import build_benchmark
from benchsmith.catalog.store import Catalog
from benchsmith.cli import main
from benchsmith.config import RunConfig, RunPaths
from benchsmith.evaluate.api import evaluate_benchmark
from benchsmith.llm.registry import register_runtime
from benchsmith.review.journal import ReviewDecision, ReviewJournal
from benchsmith.spec import Allocation, BenchmarkSpec

CHAPTER = Path(__file__).resolve().parents[2] / "examples" / "references" / "time-value-of-money.md"
EXEMPT = ".run/catalog/"


@pytest.fixture
def places(tmp_path, monkeypatch):
    """The inputs' folder, and a working directory and benchsmith home of their own."""
    home, cwd, inputs = tmp_path / "home", tmp_path / "cwd", tmp_path / "inputs"
    for folder in (home, cwd, inputs):
        folder.mkdir()
    needles = {
        "the real home directory": str(Path.home()),
        "the test's first working directory": str(Path.cwd()),
    }
    monkeypatch.setenv("BENCHSMITH_HOME", str(home))
    monkeypatch.chdir(cwd)
    needles |= {
        "the temporary folder": str(tmp_path),
        "the benchsmith home": str(home),
        "the working directory": str(Path.cwd()),
        "the inputs' folder": str(inputs.resolve()),
    }
    return inputs, {k: v for k, v in needles.items() if len(v.strip("/")) > 1}


def _parquet_text(path: Path) -> str:
    import pyarrow.parquet as pq

    rows = pq.read_table(path).to_pylist()
    for row in rows:  # embedded media are bytes: not text that could hold a path
        for key in [k for k, v in row.items() if isinstance(v, dict) and "bytes" in v]:
            row[key] = {**row[key], "bytes": None}
    return "\n".join(json.dumps(row, ensure_ascii=False, default=str) for row in rows)


def absolute_paths(folder: Path, needles: dict[str, str]) -> list[str]:
    """Every line of every text file of ``folder`` holding one of ``needles``."""
    found = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if not path.is_file() or relative.startswith(EXEMPT):
            continue
        if path.suffix == ".parquet":
            text = _parquet_text(path)
        else:
            data = path.read_bytes()
            if b"\x00" in data[:8192]:  # media and other binary files
                continue
            text = data.decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            for what, needle in needles.items():
                if needle in line:
                    at = line.index(needle)
                    shown = line[max(at - 80, 0) : at + 120]
                    found.append(f"{relative}:{number}: {what} ({needle}): ...{shown}")
    return found


def assert_portable(folder: Path, needles: dict[str, str]) -> None:
    found = absolute_paths(folder, needles)
    assert not found, "absolute paths in the benchmark folder:\n" + "\n".join(found[:20])


def card_line(folder: Path, start: str) -> str:
    card = (folder / "README.md").read_text(encoding="utf-8")
    (line,) = [x for x in card.splitlines() if x.startswith(f"- {start}")]
    return line


def test_a_folder_built_from_a_reference_chapter_holds_no_absolute_path(places, tmp_path):
    inputs, needles = places
    chapter = inputs / "chapter.md"
    shutil.copyfile(CHAPTER, chapter)
    out = tmp_path / "bench-chapter"
    catalog_dir = out / ".run" / "catalog"  # where the CLI catalogues a --reference
    card = Catalog(catalog_dir).add_reference(str(chapter))
    paths = RunPaths(run_catalog_dir=str(catalog_dir))
    (subtask,) = reference_subtasks(RunConfig(paths=paths), [])
    grounding = solution_grounding(subtask, card)
    spec = BenchmarkSpec(
        intent="time value of money problems",
        size=4,
        subtasks=[subtask],
        groundings=[grounding],
        allocations=[Allocation(grounding_id=grounding.id, quota=4)],
    )
    config = RunConfig(
        judge="off",
        paths=RunPaths(
            out_dir=str(out),
            run_dir=str(out / ".run"),
            run_catalog_dir=str(catalog_dir),
            catalog_dir=str(catalog_dir),
        ),
    )

    def build(**kw):
        install(config, Router(JudgeVerdict=judge_yes))
        try:
            return build_benchmark(out=out, config=config, **kw)
        finally:
            register_runtime(config, None)

    assert build(spec=spec).items == 4
    rows = [json.loads(x) for x in (out / "data" / "test.jsonl").read_text().splitlines()]
    for row in rows:  # the chapter by its name, where an absolute path used to be
        meta = row["metadata"]
        assert meta["reference"]["file"] == "chapter.md"
        assert meta["sources"] and {s["file"] for s in meta["sources"]} == {"chapter.md"}
    assert_portable(out, needles)
    # The card says which checks decided acceptance and which never ran.
    line = card_line(out, "Acceptance:")
    assert "passed the checks that ran (structural, " in line and "answer recompute" in line
    assert (
        "not run: LLM judge (turned off with --judge off), ASR round-trip (no spoken "
        "question), OCR read-back (no question rendered into an image)"
    ) in line
    assert "verification (which checks" not in line

    # A human review: the card gives human acceptance, with its interval.
    journal = ReviewJournal(out)
    for row in rows[:3]:
        journal.append(ReviewDecision(id=row["id"], reviewer="ana", decision="accept"))
    assert build(resume=True).items == 4
    assert card_line(out, "Human review:") == (
        "- Human review: 3 of 3 reviewed items accepted (100.0%, Wilson 95% interval 43.9%-100.0%)"
    )
    assert_portable(out, needles)

    evaluate_benchmark(out, ["baseline:random"])
    assert (out / "eval.json").is_file() and (out / "report.html").is_file()
    benchmark = json.loads((out / "eval.json").read_text())["benchmark"]
    assert benchmark["path"] == "bench-chapter"
    assert_portable(out, needles)


def test_a_folder_built_from_a_users_table_holds_no_absolute_path(places, tmp_path, fake_server):
    inputs, needles = places
    table = inputs / "gadgets.csv"
    with table.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)
        writer.writerows(GADGETS)
    out = tmp_path / "bench-table"
    code = main(["build", "Which of the two gadgets is heavier? Multiple choice.", "--size",
                 "4", "--dataset", str(table), "--out", str(out), "--model",
                 f"fake-model@{fake_server.base_url}", "--quiet"])  # fmt: skip
    assert code == 0
    assert (out / ".run" / "slots.jsonl").is_file()  # the run folder is searched too
    # The table is a source of the card, by its name.
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "| gadgets | gadgets | unknown | gadgets.csv | yes |" in card
    assert_portable(out, needles)
    line = card_line(out, "Acceptance:")
    assert "answer recompute" in line and "not run: ASR round-trip (no spoken question)" in line

    evaluate_benchmark(out, ["baseline:random"])
    assert_portable(out, needles)


def test_the_search_names_the_file_and_line_of_a_path(tmp_path):
    """The check itself: a path left in a file is found, with where it is."""
    folder = tmp_path / "bench"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "test.jsonl").write_text(
        '{"id": "a"}\n{"id": "b", "metadata": {"file": "' + str(tmp_path) + '/x.md"}}\n'
    )
    (folder / "media").mkdir()
    (folder / "media" / "a.png").write_bytes(b"\x89PNG\x00\x00" + str(tmp_path).encode())
    (found,) = absolute_paths(folder, {"the temporary folder": str(tmp_path)})
    assert found.startswith("data/test.jsonl:2: the temporary folder")
