"""Speech tools on the real espeak-ng: voices, languages, formats, determinism, dialogues."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import numpy as np
import pytest
from media_helpers import output, read_wav, sha

from benchsmith.errors import ToolParamError, ToolUnavailableError
from benchsmith.tools import tts
from benchsmith.tools.context import Limits, ToolContext
from benchsmith.tools.media import load_audio
from benchsmith.tools.registry import get_tool, run_tool

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        shutil.which("espeak-ng") is None or shutil.which("ffmpeg") is None,
        reason="espeak-ng and ffmpeg are needed",
    ),
]

SENTENCE = "The weather is nice today, and we are going to the market."


def check_provenance(ctx: ToolContext, result, name: str, params: dict) -> Path:
    path = output(ctx, result)
    prov = result.provenance
    assert prov.tool == name == result.tool
    for key, value in params.items():
        assert prov.params[key] == value
    assert [o.path for o in prov.outputs] == result.outputs
    assert prov.outputs[0].sha256 == sha(path)
    assert prov.outputs[0].bytes == path.stat().st_size
    return path


# -- voices ------------------------------------------------------------------------------------
def test_available_voices_cover_common_languages():
    voices = tts.available_voices()
    for name in ("en-us", "en-gb", "fr-fr", "de", "es", "cmn", "ja"):
        assert name in voices
    assert voices["en-us"] == "en-us" and voices["fr-fr"] == "fr-fr"


@pytest.mark.parametrize(
    ("spec", "name", "variant"),
    [
        ("en", "en-gb", None),
        ("fr", "fr-fr", None),
        ("de", "de", None),
        ("es", "es", None),
        ("zh", "cmn", None),
        ("ja", "ja", None),
        ("en-us", "en-us", None),
        ("EN_us", "en-us", None),
        ("en-us+f2", "en-us", "f2"),
        ("German", "de", None),
    ],
)
def test_language_codes_and_voice_names_resolve(spec, name, variant):
    voice, found_variant = tts.resolve_voice(spec)
    assert (voice.name, found_variant) == (name, variant)
    assert tts.available_voices()[voice.name] == voice.language


# -- tts_speak -----------------------------------------------------------------------------------
def test_speak_writes_measured_speech_with_provenance(tool_ctx):
    params = {"text": SENTENCE, "voice": "en-us", "rate": 160, "pitch": 40}
    result = run_tool("tts_speak", params, [], tool_ctx)
    path = check_provenance(tool_ctx, result, "tts_speak", params)
    samples, rate = read_wav(path)
    measured = result.provenance.measured
    assert (rate, samples.shape[1]) == (22050, 1)
    assert measured["sample_rate"] == 22050 and measured["channels"] == 1
    assert measured["duration_s"] == pytest.approx(len(samples) / rate, abs=0.001)
    assert np.sqrt(np.mean(samples**2)) > 0.01  # audible speech, not silence
    assert measured["voice"] == "en-us" and measured["language"] == "en-us"
    assert measured["words"] == len(SENTENCE.split()) == 12
    assert 80 < measured["words_per_minute"] < 320
    assert measured["phonemes"] == tts.phonemes(SENTENCE, "en-us")[:200]
    assert result.provenance.inputs == []
    assert get_tool("tts_speak").category == "speech"


def test_same_sentence_in_english_and_french_differs_in_language(tool_ctx):
    results = {
        lang: run_tool("tts_speak", {"text": SENTENCE, "voice": lang}, [], tool_ctx)
        for lang in ("en", "fr")
    }
    voices = tts.available_voices()
    for lang, result in results.items():
        measured = result.provenance.measured
        # (a) the recorded language is the voice's language in espeak's own list
        assert measured["language"] == voices[measured["voice"]]
        assert measured["language"].split("-")[0] == lang
    # (b) the audio differs
    assert sha(output(tool_ctx, results["en"])) != sha(output(tool_ctx, results["fr"]))
    # (c) espeak-ng's phonemes differ, and the provenance shows them
    en, fr = tts.phonemes(SENTENCE, "en"), tts.phonemes(SENTENCE, "fr")
    assert en and fr and en != fr
    assert results["en"].provenance.measured["phonemes"] == en[:200]
    assert results["fr"].provenance.measured["phonemes"] == fr[:200]


def test_chinese_and_japanese_durations_are_plausible(tool_ctx):
    for voice, text in (("zh", "你好世界今天天气很好"), ("ja", "こんにちは、元気ですか")):
        measured = run_tool("tts_speak", {"text": text, "voice": voice}, [], tool_ctx)
        assert measured.provenance.measured["language"] in ("cmn", "ja")
        assert measured.provenance.measured["words"] >= 8


@pytest.mark.parametrize("fmt", ["mp3", "ogg", "flac"])
def test_compressed_formats_decode_to_the_same_duration(tool_ctx, fmt):
    wav = run_tool("tts_speak", {"text": SENTENCE}, [], tool_ctx)
    other = run_tool("tts_speak", {"text": SENTENCE, "format": fmt}, [], tool_ctx)
    path = output(tool_ctx, other)
    assert path.suffix == f".{fmt}"
    decoded = load_audio(path, tool_ctx.limits)
    wav_s = wav.provenance.measured["duration_s"]
    assert len(decoded) / 1000 == pytest.approx(wav_s, abs=0.05)
    assert other.provenance.measured["duration_s"] == pytest.approx(wav_s, abs=0.05)
    assert other.provenance.measured["format"] == fmt
    assert decoded.frame_rate == 22050


def test_rate_pitch_and_variant_change_the_speech(tool_ctx):
    slow = run_tool("tts_speak", {"text": SENTENCE, "rate": 120}, [], tool_ctx)
    fast = run_tool("tts_speak", {"text": SENTENCE, "rate": 320}, [], tool_ctx)
    assert slow.provenance.measured["duration_s"] > 1.8 * fast.provenance.measured["duration_s"]
    assert (
        slow.provenance.measured["words_per_minute"] < fast.provenance.measured["words_per_minute"]
    )
    base = sha(output(tool_ctx, run_tool("tts_speak", {"text": "Hello there."}, [], tool_ctx)))
    high = run_tool("tts_speak", {"text": "Hello there.", "pitch": 90}, [], tool_ctx)
    female = run_tool("tts_speak", {"text": "Hello there.", "variant": "f2"}, [], tool_ctx)
    plus = run_tool("tts_speak", {"text": "Hello there.", "voice": "en-us+f2"}, [], tool_ctx)
    assert len({base, sha(output(tool_ctx, high)), sha(output(tool_ctx, female))}) == 3
    assert female.provenance.measured["variant"] == "f2"
    assert sha(output(tool_ctx, plus)) == sha(output(tool_ctx, female))


def test_text_starting_with_a_dash_is_spoken_not_parsed(tool_ctx):
    result = run_tool("tts_speak", {"text": "-v fr --help me please"}, [], tool_ctx)
    measured = result.provenance.measured
    assert measured["language"] == "en-us" and measured["duration_s"] > 0.5
    assert measured["phonemes"] == tts.phonemes("-v fr --help me please", "en-us")[:200]


def test_same_seed_gives_identical_speech_files(tmp_path):
    hashes = []
    for run in ("a", "b"):
        ctx = ToolContext(media_dir=tmp_path / run / "media", seed=7)
        hashes.append(
            [
                sha(output(ctx, run_tool("tts_speak", {"text": SENTENCE, "format": f}, [], ctx)))
                for f in ("wav", "mp3", "ogg", "flac")
            ]
        )
    assert hashes[0] == hashes[1]


# -- refusals ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"text": "hi", "voice": "frnch"}, "close matches: fr-ch"),
        ({"text": "hi", "voice": "english"}, "en-gb"),
        ({"text": "hi", "voice": "xx-nowhere"}, "unknown espeak-ng voice"),
        ({"text": "hi", "variant": "f9"}, "close matches: f1"),
        ({"text": "hi", "voice": "en-us+zz9"}, "unknown espeak-ng voice variant"),
        ({"text": "hi", "rate": 50}, "rate"),
        ({"text": "hi", "pitch": 120}, "pitch"),
        ({"text": "...!?"}, "nothing to speak"),
        ({"text": ""}, "text"),
        ({"text": "x" * 5001}, "text"),
        ({"text": "hi", "format": "aiff"}, "format"),
        ({"text": "hi", "output_name": "q1.mp3"}, "must end in .wav"),
        ({"text": "hi", "speed": 2}, "speed"),
    ],
)
def test_bad_parameters_give_clear_errors(tool_ctx, params, message):
    with pytest.raises(ToolParamError, match=None) as info:
        run_tool("tts_speak", params, [], tool_ctx)
    assert message in str(info.value)
    assert not tool_ctx.media_dir.exists() or not any(tool_ctx.media_dir.rglob("*.*"))


def test_text_over_the_run_limit_is_refused(tmp_path):
    ctx = ToolContext(media_dir=tmp_path / "media", limits=Limits(max_text_chars=20))
    with pytest.raises(ToolParamError, match="20-character limit"):
        run_tool("tts_speak", {"text": "This sentence is longer than twenty."}, [], ctx)


def test_piper_backend_says_what_to_install(tool_ctx):
    if importlib.util.find_spec("piper") is None:
        with pytest.raises(ToolUnavailableError, match="pip install piper-tts"):
            run_tool("tts_speak", {"text": "hi", "backend": "piper"}, [], tool_ctx)
    else:
        with pytest.raises(ToolUnavailableError, match="piper_voice"):
            run_tool("tts_speak", {"text": "hi", "backend": "piper"}, [], tool_ctx)


def test_speech_takes_no_inputs(tool_ctx, tmp_path):
    (tmp_path / "x.wav").write_bytes(b"RIFF")
    with pytest.raises(ToolParamError, match="no input files"):
        run_tool("tts_speak", {"text": "hi"}, [tmp_path / "x.wav"], tool_ctx)


# -- tts_dialogue --------------------------------------------------------------------------------
DIALOGUE = {
    "turns": [
        {"speaker": "Ann", "text": "Did you bring the tickets?"},
        {"speaker": "Bob", "text": "Yes, both of them are in my bag."},
        {"speaker": "Ann", "text": "Great, the train leaves at nine."},
    ],
    "voices": {"Ann": "en-us+f2", "Bob": "en-gb+m3"},
    "pause_ms": 500,
}


def test_dialogue_places_turns_and_pauses(tool_ctx):
    result = run_tool("tts_dialogue", DIALOGUE, [], tool_ctx)
    path = check_provenance(tool_ctx, result, "tts_dialogue", DIALOGUE)
    samples, rate = read_wav(path)
    measured = result.provenance.measured
    assert measured["speakers"] == ["Ann", "Bob"]
    assert measured["voices"] == {"Ann": "en-us+f2", "Bob": "en-gb+m3"}
    turns = measured["turns"]
    assert [t["speaker"] for t in turns] == ["Ann", "Bob", "Ann"]
    assert turns[0]["start_s"] == 0.0
    for before, after in zip(turns, turns[1:], strict=False):
        assert after["start_s"] - before["end_s"] == pytest.approx(0.5, abs=0.002)
        gap = samples[round(before["end_s"] * rate) + 2 : round(after["start_s"] * rate) - 2]
        assert len(gap) > 0.49 * rate and np.abs(gap).max() < 1e-3  # the pause is silent
    assert measured["duration_s"] == pytest.approx(turns[-1]["end_s"], abs=0.002)
    assert measured["duration_s"] == pytest.approx(len(samples) / rate, abs=0.001)
    for turn in turns:
        part = samples[round(turn["start_s"] * rate) : round(turn["end_s"] * rate)]
        assert np.sqrt(np.mean(part**2)) > 0.01


def test_dialogue_is_deterministic_and_mp3_keeps_its_length(tool_ctx):
    wav = run_tool("tts_dialogue", DIALOGUE, [], tool_ctx)
    again = run_tool("tts_dialogue", DIALOGUE, [], tool_ctx)
    assert sha(output(tool_ctx, wav)) == sha(output(tool_ctx, again))
    mp3 = run_tool("tts_dialogue", {**DIALOGUE, "format": "mp3"}, [], tool_ctx)
    assert mp3.provenance.measured["duration_s"] == pytest.approx(
        wav.provenance.measured["duration_s"], abs=0.05
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"voices": {"Ann": "en-us", "Bob": "en-us"}}, "distinct voice"),
        ({"voices": {"Ann": "en", "Bob": "en-gb"}}, "distinct voice"),
        ({"voices": {"Ann": "en-us", "Carl": "en-gb"}}, "speakers without a voice: Bob"),
        ({"voices": {"Ann": "en-us", "Bob": "klingonese"}}, "voice of speaker 'Bob'"),
        ({"turns": [{"speaker": "Ann", "text": "Hi."}] * 2}, "at least two speakers"),
        ({"turns": [{"speaker": "Ann", "text": "Hi."}]}, "turns"),
        ({"pause_ms": 5000}, "pause_ms"),
    ],
)
def test_dialogue_refuses_bad_casts(tool_ctx, change, message):
    with pytest.raises(ToolParamError) as info:
        run_tool("tts_dialogue", {**DIALOGUE, **change}, [], tool_ctx)
    assert message in str(info.value)
