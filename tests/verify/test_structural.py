"""Structural checks: a passing and a failing case of each, with the exact verdict."""

from __future__ import annotations

import wave
from pathlib import Path

import pytest
from PIL import Image

from benchsmith.errors import PostconditionError
from benchsmith.item import Item
from benchsmith.tools.context import Limits
from benchsmith.tools.media import measure_audio, measure_image
from benchsmith.verify import CHECKS, StructuralReport, Verdict, check_item, normalize_text
from benchsmith.verify.structural import majority_script, parse_number

TRACE = [{"tool": "image_resize", "params": {}, "measured": {"width": 8, "height": 6}}]


def make_png(path: Path, size: tuple[int, int] = (8, 6)) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, (200, 10, 10)).save(path, "PNG")
    return path


def make_wav(path: Path, frames: int = 800, rate: int = 8000) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"\x00\x00" * frames)
    return path


def media_item(*parts: dict, trace=TRACE, target: str = "Paris") -> Item:
    return Item(
        id="m1",
        input=[
            {
                "role": "user",
                "content": [{"type": "text", "text": "Which city is shown here?"}, *parts],
            }
        ],
        target=target,
        metadata={"trace": trace} if trace is not None else {},
    )


def run(item: Item, fmt: str = "short_answer", bench: Path = Path("."), **kw) -> StructuralReport:
    return check_item(item, answer_format=fmt, bench_dir=bench, **kw)


def mc(choices, target="A", text="Which is the capital of France?") -> Item:
    return Item(id="q1", input=text, choices=choices, target=target)


# -- report -------------------------------------------------------------------------------------
def test_report_runs_every_check_in_order_and_passes_a_good_item():
    report = run(Item(id="q", input="What is the capital of France?", target="Paris"))
    assert [v.check for v in report.verdicts] == list(CHECKS)
    assert report.ok is True
    assert report.failures == []
    assert report.model_dump()["ok"] is True


def test_report_failures_and_unknown_check():
    report = run(Item(id="q", input="What is the capital of France?", target=""))
    assert report.ok is False
    assert report.failures == [
        Verdict(check="schema", ok=False, reason="short_answer target is empty")
    ]
    with pytest.raises(KeyError):
        report.verdict("nope")


def test_normalize_text():
    assert normalize_text("  Ｐａｒｉｓ\t\n  IS ") == "paris is"


# -- schema -------------------------------------------------------------------------------------
def test_schema_multiple_choice_passes():
    assert run(mc(["Paris", "Lyon", "Nice"]), "multiple_choice").verdict("schema") == Verdict(
        check="schema", ok=True
    )


@pytest.mark.parametrize(
    ("choices", "target", "reason"),
    [
        (["Paris"], "A", "multiple_choice needs 2 to 8 choices, got 1"),
        ([str(i) for i in range(9)], "A", "multiple_choice needs 2 to 8 choices, got 9"),
        (["Paris", "  "], "A", "choice(s) B empty"),
        (["Paris", "Lyon", " paris "], "A", "choices A and C are the same ('paris')"),
        (["Paris", "Lyon", "Nice"], "D", "target 'D' is not a choice letter (A-C)"),
        (["Paris", "Lyon", "Nice"], "a", "target 'a' is not a choice letter (A-C)"),
        (["Paris", "Lyon", "Nice"], "Paris", "target 'Paris' is not a choice letter (A-C)"),
    ],
)
def test_schema_multiple_choice_fails(choices, target, reason):
    verdict = run(mc(choices, target), "multiple_choice").verdict("schema")
    assert verdict == Verdict(check="schema", ok=False, reason=reason)


def test_schema_choices_on_other_formats_fail():
    verdict = run(mc(["a", "b"], "A"), "short_answer").verdict("schema")
    assert verdict == Verdict(
        check="schema", ok=False, reason="short_answer items have no choices, got 2"
    )


@pytest.mark.parametrize("target", ["42", "-3", "0.25", ".5", "6.02e23", "1E-3", " 7 "])
def test_schema_numeric_passes(target):
    item = Item(id="n", input="How many?", target=target)
    assert run(item, "numeric").verdict("schema") == Verdict(check="schema", ok=True)


@pytest.mark.parametrize("target", ["1,234.5", "nan", "inf", "1e999", "forty", "1/2", "3 m"])
def test_schema_numeric_fails(target):
    item = Item(id="n", input="How many?", target=target)
    assert run(item, "numeric").verdict("schema") == Verdict(
        check="schema",
        ok=False,
        reason=f"numeric target {target!r} is not a finite number "
        "(plain decimal or scientific notation, no thousands separators)",
    )


def test_parse_number():
    assert parse_number("6.02e23") == 6.02e23
    assert parse_number("1,234") is None


def test_schema_short_answer_and_open():
    ok_item = Item(id="s", input="Q?", target="x" * 200)
    assert run(ok_item).verdict("schema").ok is True
    long_item = Item(id="s", input="Q?", target="x" * 201)
    assert run(long_item).verdict("schema") == Verdict(
        check="schema", ok=False, reason="short_answer target has 201 characters, over 200"
    )
    assert run(long_item, "open").verdict("schema") == Verdict(check="schema", ok=True)
    assert run(Item(id="o", input="Q?", target="  "), "open").verdict("schema") == Verdict(
        check="schema", ok=False, reason="open target is empty"
    )


# -- media --------------------------------------------------------------------------------------
def test_media_passes_for_real_png_and_wav(tmp_path):
    make_png(tmp_path / "media" / "a.png")
    make_wav(tmp_path / "media" / "b.wav")
    item = media_item(
        {"type": "image", "image": "media/a.png"}, {"type": "audio", "audio": "media/b.wav"}
    )
    report = run(item, bench=tmp_path)
    assert report.verdict("media") == Verdict(
        check="media",
        ok=True,
        reason="media/a.png: width=8, height=6, mode=RGB, format=png; "
        "media/b.wav: duration_s=0.1, sample_rate=8000, channels=1, rms_dbfs=None, format=wav",
    )
    assert report.ok is True


def test_media_fails_for_truncated_png(tmp_path):
    good = make_png(tmp_path / "media" / "a.png")
    bad = tmp_path / "media" / "bad.png"
    bad.write_bytes(make_png(tmp_path / "big.png", (64, 64)).read_bytes()[:60])
    with pytest.raises(PostconditionError) as err:
        measure_image(bad, Limits())
    item = media_item(
        {"type": "image", "image": "media/a.png"}, {"type": "image", "image": "media/bad.png"}
    )
    assert good.exists()
    assert run(item, bench=tmp_path).verdict("media") == Verdict(
        check="media",
        ok=False,
        reason=f"image 'media/bad.png' does not decode: {err.value} "
        "(measured: media/a.png: width=8, height=6, mode=RGB, format=png)",
    )


def test_media_fails_for_truncated_wav(tmp_path):
    full = make_wav(tmp_path / "full.wav", frames=8000).read_bytes()
    bad = tmp_path / "media" / "cut.wav"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(full[: len(full) // 2])
    with pytest.raises(PostconditionError) as err:
        measure_audio(bad, Limits())
    item = media_item({"type": "audio", "audio": "media/cut.wav"})
    assert run(item, bench=tmp_path).verdict("media") == Verdict(
        check="media", ok=False, reason=f"audio 'media/cut.wav' does not decode: {err.value}"
    )


def test_media_fails_for_a_path_leaving_the_folder(tmp_path):
    bench = tmp_path / "bench"
    make_png(tmp_path / "x.png")
    bench.mkdir()
    item = media_item({"type": "image", "image": "../x.png"})
    assert run(item, bench=bench).verdict("media") == Verdict(
        check="media",
        ok=False,
        reason="'../x.png' is not a safe relative path: output name '../x.png' contains '..'; "
        "use a plain relative name",
    )


def test_media_fails_for_absolute_and_missing_paths(tmp_path):
    png = make_png(tmp_path / "x.png")
    item = media_item(
        {"type": "image", "image": str(png)}, {"type": "image", "image": "media/none.png"}
    )
    assert run(item, bench=tmp_path).verdict("media") == Verdict(
        check="media",
        ok=False,
        reason=f"{str(png)!r} is not a safe relative path: output name {str(png)!r} is "
        "absolute; use a plain relative name; 'media/none.png' does not exist",
    )


def test_media_fails_for_a_wav_named_as_an_image(tmp_path):
    make_wav(tmp_path / "media" / "b.png")
    item = media_item({"type": "image", "image": "media/b.png"})
    verdict = run(item, bench=tmp_path).verdict("media")
    assert verdict.ok is False
    assert verdict.reason.startswith("image 'media/b.png' does not decode: output 'b.png'")


# -- answer_in_choices --------------------------------------------------------------------------
def test_answer_in_choices_passes_and_skips():
    assert run(mc(["Paris", "Lyon"]), "multiple_choice").verdict("answer_in_choices") == Verdict(
        check="answer_in_choices", ok=True
    )
    item = Item(id="s", input="Capital of France?", target="Paris")
    assert run(item).verdict("answer_in_choices") == Verdict(
        check="answer_in_choices", ok=True, reason="skipped: short_answer has no choices"
    )


def test_answer_in_choices_fails_for_duplicated_answer_and_wrong_letter():
    report = run(mc(["Paris", "Lyon", "PARIS"], "A"), "multiple_choice")
    assert report.verdict("answer_in_choices") == Verdict(
        check="answer_in_choices",
        ok=False,
        reason="the answer 'paris' is choice A, C; it must be exactly one",
    )
    report = run(mc(["Paris", "Lyon"], "C"), "multiple_choice")
    assert report.verdict("answer_in_choices") == Verdict(
        check="answer_in_choices", ok=False, reason="target 'C' names no choice"
    )


# -- no_leak ------------------------------------------------------------------------------------
def test_no_leak_passes_and_fails():
    clean = Item(id="s", input="What is the capital of France?", target="Paris")
    assert run(clean).verdict("no_leak") == Verdict(check="no_leak", ok=True)
    leaky = Item(id="s", input="Is PARIS the capital of France?", target="Paris")
    assert run(leaky).verdict("no_leak") == Verdict(
        check="no_leak", ok=False, reason="the answer 'paris' appears in the input text"
    )
    phrase = Item(id="s", input="Who wrote it? (Victor  Hugo, 1862)", target="victor hugo")
    assert run(phrase).verdict("no_leak").ok is False


def test_no_leak_fails_a_question_holding_most_of_the_answer():
    item = Item(
        id="s",
        input="The answer to the question is always A, but what's the correct answer?",
        target="SYSTEM: the answer is always A",
    )
    assert run(item).verdict("no_leak") == Verdict(
        check="no_leak",
        ok=False,
        reason="the input text holds 5 of the answer's 6 words (0.83, 0.67 or more fail): "
        "'the answer is always a'",
    )
    title = Item(
        id="s",
        input="Which Dickens novel tells the tale of two cities?",
        target="A Tale of Two Cities",
    )
    assert run(title).verdict("no_leak").ok is False


@pytest.mark.parametrize(
    ("question", "target", "given"),
    [
        # two-word answers are compared whole; the entity may be part of the answer
        ("What is the capital of Mexico?", "Mexico City", ()),
        ("What is the currency of Hong Kong?", "Hong Kong Dollar", ("Hong Kong",)),
        ("What is the official name of Costa Rica?", "Republic of Costa Rica", ("Costa Rica",)),
        # function words and one content word are not a leak
        ("Which gulf lies south of the United States?", "The Gulf of Mexico", ()),
        ("Which bay lies east of India?", "the Bay of Bengal", ()),
        # numbers compare whole only: digits elsewhere in the question do not add up
        ("A box holds 3 rows of 5 eggs and 1 more; how many?", "3.51", ()),
        # answer words scattered over a long text are not a stretch of it
        (
            "Read: the old road ran past a farm, and the man who kept it sold fish by the sea "
            "on Sundays. What is the title of the novel he liked?",
            "The Old Man and the Sea",
            (),
        ),
        # long answers (summaries) only compare whole
        (
            "Summarize: the council met on Monday and voted to repair the bridge over the "
            "river before winter, at a cost of two million.",
            "The council voted on Monday to repair the river bridge before winter for two million",
            (),
        ),
    ],
)
def test_no_leak_word_overlap_passes_legitimate_items(question, target, given):
    from benchsmith.verify.structural import check_no_leak

    verdict = check_no_leak(Item(id="s", input=question, target=target), "short_answer", given)
    assert verdict.ok, verdict.reason


def test_word_overlap_is_in_order_within_a_stretch():
    from benchsmith.verify.structural import word_overlap

    found = word_overlap("SYSTEM: the answer is always A", "The answer to the question is always A")
    assert found.words == ("the", "answer", "is", "always", "a") and found.total == 6
    assert found.content == 2 and round(found.ratio, 2) == 0.83
    assert word_overlap("always answer", "answer always").words in {("always",), ("answer",)}
    assert word_overlap("", "text").ratio == 0.0


def test_no_leak_needs_whole_words():
    item = Item(id="s", input="Which river flows through Parisian streets?", target="Paris")
    assert run(item).verdict("no_leak") == Verdict(check="no_leak", ok=True)


@pytest.mark.parametrize("target", ["12", "x", "-7"])
def test_no_leak_skips_short_answers(target):
    item = Item(id="s", input=f"Compute 5 + 7 = 12; x = -7 {target}", target=target)
    assert run(item, "numeric" if target != "x" else "short_answer").verdict("no_leak") == Verdict(
        check="no_leak",
        ok=True,
        reason=f"skipped: answer {target!r} is too short to match meaningfully",
    )


def test_no_leak_skips_multiple_choice():
    item = mc(["Paris", "Lyon"], "A", text="Paris or Lyon: which is the capital?")
    assert run(item, "multiple_choice").verdict("no_leak") == Verdict(
        check="no_leak", ok=True, reason="skipped: multiple choice answers are meant to be visible"
    )


# -- language -----------------------------------------------------------------------------------
def test_language_french_passes_for_french():
    item = Item(id="l", input="Quelle est la capitale de l'Allemagne ?", target="Berlin")
    assert run(item, languages=["fr"]).verdict("language") == Verdict(
        check="language", ok=True, reason="script LATIN fits fr"
    )


def test_language_cyrillic_fails_for_english():
    item = Item(id="l", input="Какая столица у Франции?", target="Париж")
    assert run(item, languages=["en-US"]).verdict("language") == Verdict(
        check="language",
        ok=False,
        reason="the input text is mostly CYRILLIC script, which does not fit en-US "
        "(expected LATIN)",
    )
    assert run(item, languages=["ru"]).verdict("language").ok is True


def test_language_japanese_passes_for_japanese_not_korean():
    item = Item(id="l", input="フランスの首都はどこですか？", target="パリ")
    assert run(item, languages=["ja"]).verdict("language") == Verdict(
        check="language", ok=True, reason="script KANA fits ja"
    )
    assert run(item, languages=["ko"]).verdict("language") == Verdict(
        check="language",
        ok=False,
        reason="the input text is mostly KANA script, which does not fit ko (expected HAN, HANGUL)",
    )
    assert majority_script("中国的首都是哪里？") == "HAN"


def test_language_skips():
    item = Item(id="l", input="What?", target="x")
    assert run(item).verdict("language") == Verdict(
        check="language", ok=True, reason="skipped: no languages given"
    )
    assert run(item, languages=["tlh"]).verdict("language") == Verdict(
        check="language", ok=True, reason="skipped: unknown language(s) tlh"
    )
    assert run(Item(id="l", input="12 + 30 = ?", target="42"), languages=["en"]).verdict(
        "language"
    ) == Verdict(check="language", ok=True, reason="skipped: the input text has no letters")


# -- postconditions -----------------------------------------------------------------------------
def test_postconditions_pass_with_a_clean_trace(tmp_path):
    make_png(tmp_path / "media" / "a.png")
    item = media_item({"type": "image", "image": "media/a.png"})
    assert run(item, bench=tmp_path).verdict("postconditions") == Verdict(
        check="postconditions", ok=True
    )


def test_postconditions_fail_with_an_error_in_the_trace(tmp_path):
    make_png(tmp_path / "media" / "a.png")
    trace = [*TRACE, {"tool": "image_blur", "measured": {}, "error": "output is blank"}]
    item = media_item({"type": "image", "image": "media/a.png"}, trace=trace)
    assert run(item, bench=tmp_path).verdict("postconditions") == Verdict(
        check="postconditions", ok=False, reason="trace[1] (image_blur) failed: output is blank"
    )


def test_postconditions_fail_without_a_trace_for_media_and_for_bad_entries(tmp_path):
    make_png(tmp_path / "media" / "a.png")
    item = media_item({"type": "image", "image": "media/a.png"}, trace=None)
    assert run(item, bench=tmp_path).verdict("postconditions") == Verdict(
        check="postconditions", ok=False, reason="the item has media but no transformation trace"
    )
    item = media_item({"type": "image", "image": "media/a.png"}, trace=[{"tool": "tts"}])
    assert run(item, bench=tmp_path).verdict("postconditions") == Verdict(
        check="postconditions", ok=False, reason="trace[0] (tts) has no measurements"
    )
    item = media_item({"type": "image", "image": "media/a.png"}, trace=[{"measured": {}}])
    assert run(item, bench=tmp_path).verdict("postconditions") == Verdict(
        check="postconditions", ok=False, reason="trace[0] names no tool"
    )


# -- verbatim_source ----------------------------------------------------------------------------
SOURCE = (
    "The mitochondrion is a double membrane bound organelle found in most eukaryotic "
    "organisms and it generates most of the chemical energy needed by the cell."
)


def test_verbatim_source_passes_for_a_paraphrase():
    item = Item(
        id="v",
        input="Which organelle, wrapped in two membranes, supplies most of a cell's energy?",
        target="mitochondrion",
    )
    assert run(item, source_text=SOURCE).verdict("verbatim_source") == Verdict(
        check="verbatim_source", ok=True
    )
    assert run(item).verdict("verbatim_source") == Verdict(
        check="verbatim_source", ok=True, reason="skipped: no source text given"
    )


def test_verbatim_source_fails_for_twelve_copied_words():
    item = Item(
        id="v",
        input="Fill the gap: a DOUBLE membrane bound organelle found in most eukaryotic organisms "
        "and it generates ___.",
        target="mitochondrion",
    )
    assert run(item, source_text=SOURCE).verdict("verbatim_source") == Verdict(
        check="verbatim_source",
        ok=False,
        reason="the input copies 13 consecutive words of the source (12 or more fail): "
        "'a double membrane bound organelle found in most eukaryotic organisms and it generates'",
    )
    # eleven words copied: below the threshold, and the threshold is a parameter
    short = Item(
        id="v",
        input="Fill the gap: membrane bound organelle found in most eukaryotic organisms and it "
        "generates ___.",
        target="mitochondrion",
    )
    assert run(short, source_text=SOURCE).verdict("verbatim_source").ok is True
    assert run(short, source_text=SOURCE, verbatim_words=11).verdict("verbatim_source").ok is False
