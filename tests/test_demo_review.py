"""A strict reviewer reads fresh builds of the four demo benchmarks on the embedded model.

The demo's builds (``benchsmith.testing.demo``, the same ones ``make demo`` runs) are made
with the real CLI (its ``main``, in the test's process), the embedded SmolLM2-135M through
its server, espeak-ng and ffmpeg, on the offline starter catalog. Then this test reads every
item as a reviewer would, with code of its own (it shares none of the pipeline's checks):
the question names the record's entity, every text (shown and spoken) is in the item's
language, there is no meta-text or template debris, it is one complete sentence, the target
is recomputed (the answer of the record the question names, found by searching the data for
it; the digit an image shows, from scikit-learn's originals; a computed problem's graph; a
table program's answer, by the corpus reviewer), and the synthesized speech lasts exactly as
long as espeak-ng takes to speak the question. 100 % of the items must pass. It also checks
that the plan made from the intent "spoken questions about world capitals" asks for
capitals, in speech.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from pathlib import Path

import pytest

from benchsmith.llm.local import server_available
from benchsmith.testing.demo import (
    PANEL,
    PANEL_BENCHMARKS,
    SHORTFALL_EXIT,
    demo_builds,
    demo_panel,
)
from benchsmith.testing.inprocess import run_cli, run_cli_checked
from benchsmith.testing.local_build import offline_env

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1800)]

DEBRIS = re.compile(
    r"correct answer|the answer is|this question|\bthe record\b|dataset|bonne réponse|"
    r"cette question|given settings|as an ai|untrusted|<<<|>>>|[{}\[\]]|\n",
    re.I,
)
# A question (unlike the instruction shown next to a recording) never talks about itself.
SELF_REFERENCE = re.compile(r"\bthe question\b|\bla question\b", re.I)
END = re.compile(r"[?.!]$")


def norm(text: str) -> str:
    text = unicodedata.normalize("NFKD", str(text).casefold())
    return " ".join("".join(c for c in text if not unicodedata.combining(c)).split())


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    if not server_available():
        pytest.skip("benchsmith[local] (llama-cpp-python's server) is not installed")
    tmp = tmp_path_factory.mktemp("demo")
    environ = offline_env(tmp)
    run_cli_checked(["catalog", "starter"], tmp, environ)
    out = tmp / "demo"
    codes = {}
    # The CLI's own main, in this process: the six builds share one embedded-model server
    # (the process is not what this test reads; test_signals and test_build_resume do).
    for name, args in demo_builds(out).items():
        done = run_cli(["build", *args, "--quiet"], tmp, environ)
        assert done.returncode in (0, SHORTFALL_EXIT), (name, done.stdout, done.stderr)
        codes[name] = (done.returncode, done.stdout + done.stderr)
    return tmp, out, codes


def records(home: Path, dataset: str) -> list[dict]:
    path = home / "catalog" / "data" / dataset / "records.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def translations(home: Path, dataset: str, field: str) -> dict[str, str]:
    """The fields a dataset's card says hold ``field``'s value per language."""
    card = json.loads((home / "catalog" / "cards" / f"{dataset}.json").read_text("utf-8"))
    return next((f.get("translations") or {} for f in card["fields"] if f["path"] == field), {})


def detector():
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    codes = ["en", "fr", "de", "es", "it", "pt", "nl", "ca", "ro", "pl", "sv", "da"]
    langs = [Language.from_iso_code_639_1(getattr(IsoCode639_1, c.upper())) for c in codes]
    return LanguageDetectorBuilder.from_languages(*langs).build()


def language_of(det, text: str, masks: list[str]) -> str:
    for mask in masks:
        text = re.sub(re.escape(mask), " ", text, flags=re.I)
    found = det.detect_language_of(text)
    return found.iso_code_639_1.name.lower() if found else "?"


def field_at(record: dict, path: str):
    """A record's value at a dotted path (``names.fr``)."""
    value = record
    for part in path.split("."):
        value = value[part]
    return value


def value_at(record: dict, path: str) -> str:
    """A record's value at a dotted path as text ("" when the record has none)."""
    try:
        return str(field_at(record, path))
    except (KeyError, TypeError):
        return ""


def names(question: str, entity: str) -> bool:
    """Whether the question names the entity as whole words."""
    return bool(entity) and re.search(rf"(?<!\w){re.escape(norm(entity))}(?!\w)", norm(question))


def media(bench: Path, row: dict, kind: str) -> Path:
    """The item's image or audio file."""
    parts = [p for m in row["input"] for p in m["content"] if p["type"] == kind]
    return bench / parts[0][kind]


def digit_shown(bench: Path, row: dict) -> int:
    """The digit the item's image shows: its nearest scikit-learn digit (correlation >= 0.95).

    The image (blurred, upscaled) is boxed down to 8x8 and correlated with every original
    8x8 digit; the label is scikit-learn's, never the catalog's record.
    """
    import numpy as np
    from PIL import Image
    from sklearn.datasets import load_digits

    digits = load_digits()
    ref = digits.images.reshape(len(digits.images), -1)
    ref = ref - ref.mean(1, keepdims=True)
    ref /= np.linalg.norm(ref, axis=1, keepdims=True)
    image = Image.open(media(bench, row, "image")).convert("L")
    ink = 255 - np.asarray(image.resize((8, 8), Image.Resampling.BOX), dtype=float).reshape(-1)
    ink -= ink.mean()
    sims = ref @ (ink / np.linalg.norm(ink))
    best = int(sims.argmax())
    assert sims[best] >= 0.95, f"{row['id']}: its image matches no digit ({sims[best]:.3f})"
    return int(digits.target[best])


def wav_seconds(path: Path) -> float:
    import wave

    with wave.open(str(path)) as w:
        return w.getnframes() / w.getframerate()


def espeak_seconds(text: str, params: dict) -> float:
    """How long espeak-ng speaks ``text`` with the item's voice, rate and pitch."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "q.wav"
        subprocess.run(
            ["espeak-ng", "-v", params["voice"], "-s", str(params["rate"]), "-p",
             str(params["pitch"]), "-b", "1", "-w", str(wav), "--stdin"],
            input=text.encode("utf-8"), check=True, capture_output=True,
        )  # fmt: skip
        return wav_seconds(wav)


def review(bench: Path, home: Path, det) -> tuple[int, list[str]]:
    """Every reviewer complaint about the items of one benchmark folder."""
    spec = json.loads((bench / "spec.json").read_text())
    groundings = {g["id"]: g for g in spec["groundings"]}
    rows = [json.loads(x) for x in (bench / "data" / "test.jsonl").read_text().splitlines()]
    complaints = []
    for row in rows:
        meta = row["metadata"]
        lang = (meta.get("language") or "en").split("-")[0]
        shown = (
            row["input"]
            if isinstance(row["input"], str)
            else " ".join(
                p["text"] for m in row["input"] for p in m["content"] if p["type"] == "text"
            )
        )
        question = meta.get("question") or shown
        texts = {"question": question, "shown": shown}
        answer_text = (
            row["choices"]["ABCDEFGH".index(row["target"])] if row.get("choices") else row["target"]
        )
        masks: list[str] = []
        source = meta["source"]
        if source.get("strategy") == "solution_graph":
            graph = meta["solution_graph"]
            values = dict(graph["givens"])
            for step in graph["steps"]:
                values[step["output"]] = eval(  # noqa: S307 - our own recorded expression
                    step["expression"], {"__builtins__": {}}, {**vars(math), **values}
                )
            want = values[graph["target"]]
            # a numeric target is written as asked: a percentage as percent (5.83 for 5.83 %)
            got = float(answer_text.replace("$", "").replace(",", "").rstrip("%"))
            if meta.get("unit") == "percent":
                got /= 100
            if not math.isclose(got, want, rel_tol=0.02, abs_tol=1e-6):
                complaints.append(f"{row['id']}: target {got} is not the computed {want}")
            max_words = 150
            # The givens and the question are sentences of one paragraph; the line break
            # between them is layout.
            texts = {label: " ".join(text.split()) for label, text in texts.items()}
        else:
            g = groundings[source["grounding"]]
            data = records(home, source["dataset"])
            # In the item's language, as a reviewer of French items reads: the fields the
            # card says translate the answer (capital_names.fr) and the key (names.fr).
            answer_field = g["answer_field"]
            if lang != "en":
                answer_field = translations(home, source["dataset"], answer_field).get(
                    lang, answer_field
                )
            if g.get("question_field"):
                field = g["question_field"]
                if lang != "en":
                    field = translations(home, source["dataset"], field).get(lang, field)
                # The record is found from what the question names, never from the index the
                # pipeline recorded: the longest entity of the data the question states.
                found = sorted(
                    (r for r in data if names(question, value_at(r, field))),
                    key=lambda r: -len(value_at(r, field)),
                )
                if not found:
                    complaints.append(f"{row['id']}: {question!r} names no record of the data")
                    continue
                record = found[0]
                masks = [str(field_at(record, field))]
                try:
                    expected = field_at(record, answer_field)
                except KeyError:
                    # No French name in CLDR ("Naypyidaw"): the name is the same in French.
                    expected = field_at(record, g["answer_field"])
            else:
                # The media carry the question: the digit an image shows is recomputed.
                expected = digit_shown(bench, row)
            expected = ", ".join(expected) if isinstance(expected, list) else str(expected)
            if norm(answer_text) != norm(expected):
                complaints.append(f"{row['id']}: target {answer_text!r} is not {expected!r}")
            if row.get("choices"):
                same = [c for c in row["choices"] if norm(c) == norm(expected)]
                if len(same) != 1:
                    complaints.append(f"{row['id']}: {len(same)} choices equal the answer")
            max_words = 40
        for step in meta.get("trace", []):
            if step.get("tool") == "tts_speak":
                texts["spoken"] = step["params"]["text"]
                # The speech as measured when it was made (later steps may change its speed).
                heard = float(step["measured"]["duration_s"])
                said = espeak_seconds(question, step["params"])
                # espeak-ng is deterministic: the same text, voice and rate, the same length.
                if abs(heard - said) > 0.0015:
                    complaints.append(
                        f"{row['id']}: the speech lasts {heard:.3f} s; the question spoken "
                        f"alone lasts {said:.3f} s: it does not speak exactly {question!r}"
                    )
        for label, text in texts.items():
            if DEBRIS.search(text) or (label != "shown" and SELF_REFERENCE.search(text)):
                complaints.append(f"{row['id']}: {label} has debris: {text!r}")
            if not END.search(text.strip()) or not (text[:1].isupper() or text[:1] in "¿¡"):
                complaints.append(f"{row['id']}: {label} is not a whole sentence: {text!r}")
            if len(text.split()) > max_words:
                complaints.append(f"{row['id']}: {label} is too long")
            found = language_of(det, text, masks)
            if found != lang:
                complaints.append(f"{row['id']}: {label} is {found}, not {lang}: {text!r}")
    return len(rows), complaints


TABLES = Path(__file__).resolve().parents[1] / "examples" / "tables"
# What each table demo's intent asks for, as the corpus reviewer reads it.
TABLE_DEMOS = {
    "planets-table": {
        "kinds": ["superlative"], "book": "open", "field": "moons", "direction": "max",
        "key_field": "name", "answer_field": None, "aggregate": None, "conditions": [],
        "language": "en",
    },
    "planets-compare": {
        "kinds": ["compare"], "book": "closed", "field": "mass_earths", "direction": "max",
        "key_field": "name", "answer_field": None, "aggregate": None, "conditions": [],
        "language": "en",
    },
}  # fmt: skip


def review_table_demo(name: str, bench: Path) -> tuple[int, list[str]]:
    """The corpus reviewer's complaints: it re-reads the CSV and recomputes every answer."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent / "programs"))
    from reviewer import review_item

    intent = {"id": name, "tables": ["planets"], "expect": TABLE_DEMOS[name]}
    rows = [json.loads(x) for x in (bench / "data" / "test.jsonl").read_text().splitlines()]
    complaints = [
        f"{row['id']}: {problem}" for row in rows for problem in review_item(row, intent, TABLES)
    ]
    return len(rows), complaints


def test_a_reviewer_accepts_every_item_of_the_demo_benchmarks(demo):
    tmp, out, _codes = demo
    det = detector()
    total = 0
    for name in demo_builds(out):
        if name in TABLE_DEMOS:
            n, complaints = review_table_demo(name, out / name)
        else:
            n, complaints = review(out / name, tmp / "home", det)
        assert not complaints, f"{name}: " + "\n".join(complaints)
        assert n > 0, name
        total += n
    assert total >= 8 + 8 + 1 + 12 + 8 + 8


def test_the_record_demos_are_built_by_question_programs(demo):
    _tmp, out, _codes = demo
    for name in ("spoken-capitals", "digit-images", "from-intent"):
        rows = [
            json.loads(x) for x in (out / name / "data" / "test.jsonl").read_text().splitlines()
        ]
        kinds = {(row["metadata"].get("program") or {}).get("kind") for row in rows}
        assert rows and None not in kinds, (name, kinds)
    digits = [
        json.loads(x)
        for x in (out / "digit-images" / "data" / "test.jsonl").read_text().splitlines()
    ]
    for row in digits:
        # The record's own image is the feature: no stated feature, the image in the trace.
        program = row["metadata"]["program"]
        assert (program["kind"], program["media_field"]) == ("classify", "image")
        assert row["metadata"]["trace"][0]["inputs"] == [f"{program['rows'][0]:04d}.png"]


def test_the_spoken_capitals_intent_plans_spoken_capital_questions(demo):
    _tmp, out, _codes = demo
    spec = json.loads((out / "from-intent" / "spec.json").read_text())
    assert spec["groundings"], spec
    for g in spec["groundings"]:
        # A question program over the starter table, its prompt read aloud.
        assert g["strategy"] == "question_program"
        assert g["dataset_id"] == "world-countries"
        program = g["program"]
        assert (program["kind"], program["key_field"], program["answer_field"]) == (
            "lookup",
            "name",
            "capital",
        )
        assert g["plan"][0]["tool"] == "tts_speak"
    for s in spec["subtasks"]:
        assert s["input_modalities"] == ["audio"]
        assert re.search(r"capital|world", f"{s['name']} {s['description']}", re.I)


def test_the_demo_reports_say_what_was_enforced(demo):
    _tmp, out, _codes = demo
    report = json.loads((out / "spoken-capitals" / "report.json").read_text())
    assert report["judge"]["runs"] == 0 and "opt in" in report["judge"]["note"]
    assert report["wording"]["template"] + report["wording"]["model"] == report["items"]
    assert "asr" in report["checks_not_run"] or report["items"] == 0
    md = (out / "spoken-capitals" / "report.md").read_text()
    assert "acceptance by the enforced checks" in md and "## Read these" in md


def test_the_demo_panel_measures_real_models_against_the_baselines(demo):
    """The panel ``make demo`` runs: both embedded models (SmolLM2-135M and the 1.5B reader)
    and both baselines answer a text demo; eval and calibrate report on all four.

    The suite runs the panel on one of the demo's text benchmarks (``make demo`` runs it on
    both): each is about 90 s of the embedded models on two cores, and the commands are the
    same for either."""
    tmp, out, _codes = demo
    environ = offline_env(tmp)
    chosen = PANEL_BENCHMARKS[-1:]
    for command in demo_panel(out, quiet=True, benchmarks=chosen):
        done = run_cli(command, tmp, environ)
        assert done.returncode == 0, (command[:2], done.stdout, done.stderr)
    for name in chosen:
        bench = out / name
        n = len((bench / "data" / "test.jsonl").read_text().splitlines())
        data = json.loads((bench / "eval.json").read_text())
        assert set(data["models"]) == set(PANEL), name
        for model in PANEL:
            m = data["models"][model]
            # every item answered by every model: no skip, no error, no empty reply counted
            assert (m["n"], m["skipped"], m["errors"]) == (n, 0, 0), (name, model, m)
        assert len(data["pairs"]) == 6, name
        calibration = json.loads((bench / "calibration.json").read_text())
        assert [m["model"] for m in calibration["panel"]] == list(PANEL), name
        assert calibration["separability"]["pairs"] == 6 and len(calibration["items"]) == n
        # calibrate read eval's recorded answers back: it asked no model again
        assert calibration["run"]["new_calls"] == 0, (name, calibration["run"])
        assert "## Calibration" in (bench / "report.md").read_text()
