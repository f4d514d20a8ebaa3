"""Audio tools on real media: espeak-ng speech and numpy tones, checked from the files.

Every measured claim (SNR, level, duration, pitch) is recomputed here from the input and
output files, independently of the tool's own measurement.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from media_helpers import output, read_wav, sha
from pydub import AudioSegment

from benchsmith.errors import InputRejectedError, PostconditionError, ToolParamError
from benchsmith.tools.context import ToolContext
from benchsmith.tools.media import export_audio, load_audio, samples
from benchsmith.tools.registry import get_tool, run_tool

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        shutil.which("espeak-ng") is None or shutil.which("ffmpeg") is None,
        reason="espeak-ng and ffmpeg are needed",
    ),
]


# -- helpers and media -------------------------------------------------------------------------


def decode(path: Path, ctx: ToolContext) -> tuple[np.ndarray, int]:
    segment = load_audio(path, ctx.limits)
    return samples(segment), segment.frame_rate


def rms_db(x: np.ndarray) -> float:
    return 10 * np.log10(np.mean(x**2))


def snr(clean: np.ndarray, noisy: np.ndarray) -> float:
    n = min(len(clean), len(noisy))
    return 10 * np.log10(np.sum(clean[:n] ** 2) / np.sum((noisy[:n] - clean[:n]) ** 2))


def dominant_hz(x: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(x[:, 0] * np.hanning(len(x))))
    return float(np.fft.rfftfreq(len(x), 1 / rate)[np.argmax(spectrum)])


def write_tone(path: Path, ctx: ToolContext, *, rate: int, channels: int, seconds: float) -> Path:
    t = np.arange(round(rate * seconds)) / rate
    waves = [0.3 * np.sin(2 * np.pi * 440 * t), 0.2 * np.sin(2 * np.pi * 660 * t)]
    x = np.stack(waves[:channels], axis=1)
    data = np.round(x * 32767).astype("<i2").tobytes()
    export_audio(
        AudioSegment(data=data, sample_width=2, frame_rate=rate, channels=channels),
        path,
        ctx.limits,
    )
    return path


@pytest.fixture(scope="module")
def media(tmp_path_factory) -> dict[str, Path]:
    """Speech (espeak-ng via tts_speak), tones and noise, in a folder outside any media dir."""
    folder = tmp_path_factory.mktemp("inputs")
    ctx = ToolContext(media_dir=folder / "made", seed=0)
    speech = run_tool(
        "tts_speak", {"text": "Put the blue box on the table.", "voice": "en-us"}, [], ctx
    )
    other = run_tool(
        "tts_speak",
        {"text": "Somebody else is talking in the background.", "voice": "en-gb+f2"},
        [],
        ctx,
    )
    files = {
        "speech": output(ctx, speech),
        "speech2": output(ctx, other),
        "tone_stereo": write_tone(folder / "tone44k.wav", ctx, rate=44100, channels=2, seconds=2.0),
        "tone16k": write_tone(folder / "tone16k.wav", ctx, rate=16000, channels=1, seconds=1.5),
    }
    silent = AudioSegment.silent(duration=1000, frame_rate=16000)
    export_audio(silent, folder / "silent.wav", ctx.limits)
    files["silent"] = folder / "silent.wav"
    return files


def check_result(ctx: ToolContext, result, name: str, params: dict, inputs: list[Path]) -> Path:
    """The output decodes and the provenance names tool, params, inputs and outputs."""
    path = output(ctx, result)
    prov = result.provenance
    assert prov.tool == name and get_tool(name).category == "audio"
    for key, value in params.items():
        assert prov.params[key] == value
    assert [i.sha256 for i in prov.inputs] == [sha(p) for p in inputs]
    assert prov.outputs[0].sha256 == sha(path) and prov.outputs[0].path == result.outputs[0]
    assert path.suffix == f".{params.get('format', 'wav')}"
    decoded = load_audio(path, ctx.limits)
    measured = prov.measured
    assert measured["sample_rate"] == decoded.frame_rate
    assert measured["channels"] == decoded.channels
    assert measured["duration_s"] == pytest.approx(len(decoded) / 1000, abs=0.002)
    return path


def info(path: Path, ctx: ToolContext) -> tuple[float, int, int]:
    segment = load_audio(path, ctx.limits)
    return (
        len(segment.raw_data) / 2 / segment.channels / segment.frame_rate,
        segment.frame_rate,
        segment.channels,
    )


# -- every tool, every format --------------------------------------------------------------------
CALLS = {
    "audio_add_noise": ({"snr_db": 5, "kind": "white"}, ["speech"]),
    "audio_mix": ({"gain_db": -6, "position_ms": 400}, ["speech", "tone16k"]),
    "audio_concat": ({"silence_ms": 200}, ["speech", "tone_stereo", "tone16k"]),
    "audio_speed": ({"factor": 1.25}, ["speech"]),
    "audio_tempo": ({"factor": 0.8}, ["tone_stereo"]),
    "audio_trim": ({"start_s": 0.25, "end_s": 1.5}, ["tone_stereo"]),
    "audio_gain": ({"gain_db": -6}, ["speech"]),
}
EXPECTED_DURATION = {
    "audio_add_noise": lambda d: d[0],
    "audio_mix": lambda d: d[0],
    "audio_concat": lambda d: sum(d) + 0.4,
    "audio_speed": lambda d: d[0] / 1.25,
    "audio_tempo": lambda d: d[0] / 0.8,
    "audio_trim": lambda d: 1.25,
    "audio_gain": lambda d: d[0],
}


@pytest.mark.parametrize(
    ("name", "fmt"),
    [(name, "wav") for name in sorted(CALLS)]
    + [("audio_gain", fmt) for fmt in ("mp3", "ogg", "flac")]
    + [("audio_trim", fmt) for fmt in ("mp3", "ogg", "flac")]
    + [("audio_concat", "mp3"), ("audio_tempo", "ogg"), ("audio_add_noise", "flac")],
)
def test_every_tool_writes_measured_audio_with_provenance(tool_ctx, media, name, fmt):
    params, keys = CALLS[name]
    params = {**params, "format": fmt}
    inputs = [media[k] for k in keys]
    result = run_tool(name, params, inputs, tool_ctx)
    path = check_result(tool_ctx, result, name, params, inputs)
    durations = [info(p, tool_ctx)[0] for p in inputs]
    _d, rate, channels = info(inputs[0], tool_ctx)
    measured = result.provenance.measured
    expected = EXPECTED_DURATION[name](durations)
    slack = 0.02 * expected + 0.02 + (256 / rate if fmt == "ogg" else 0)
    assert measured["duration_s"] == pytest.approx(expected, abs=slack)
    assert (measured["sample_rate"], measured["channels"]) == (rate, channels)
    assert measured["format"] == fmt
    assert path.stat().st_size > 0


# -- audio_add_noise -----------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["white", "pink", "babble"])
@pytest.mark.parametrize("target", [0, 10, 20])
def test_noise_reaches_the_snr_recomputed_from_the_files(tool_ctx, media, kind, target):
    params = {"snr_db": target, "kind": kind}
    result = run_tool("audio_add_noise", params, [media["speech"]], tool_ctx)
    path = check_result(tool_ctx, result, "audio_add_noise", params, [media["speech"]])
    clean, rate_in = read_wav(media["speech"])
    noisy, rate_out = read_wav(path)
    assert rate_in == rate_out and clean.shape == noisy.shape
    measured = result.provenance.measured
    scale = 10 ** (measured["scaled_down_db"] / 20)
    achieved = snr(scale * clean, noisy)
    assert abs(achieved - target) <= 0.5
    assert measured["achieved_snr_db"] == pytest.approx(achieved, abs=0.01)
    assert np.abs(noisy).max() < 1.0  # no clipping
    if kind == "babble":
        talkers = measured["babble_talkers"]
        assert 4 <= len(talkers) <= 6 and len(set(talkers)) == len(talkers)


def test_loud_noise_is_scaled_down_not_clipped(tool_ctx, media):
    result = run_tool(
        "audio_add_noise", {"snr_db": -10, "kind": "white"}, [media["tone_stereo"]], tool_ctx
    )
    measured = result.provenance.measured
    assert measured["scaled_down_db"] < 0
    clean, _ = read_wav(media["tone_stereo"])
    noisy, _ = read_wav(output(tool_ctx, result))
    assert noisy.shape == clean.shape  # stereo kept
    assert abs(snr(10 ** (measured["scaled_down_db"] / 20) * clean, noisy) + 10) <= 0.5


def test_pink_noise_has_more_low_than_high_frequency_power(tool_ctx, media):
    result = run_tool(
        "audio_add_noise", {"snr_db": -10, "kind": "pink"}, [media["tone16k"]], tool_ctx
    )
    clean, rate = read_wav(media["tone16k"])
    noisy, _ = read_wav(output(tool_ctx, result))
    scale = 10 ** (result.provenance.measured["scaled_down_db"] / 20)
    noise = (noisy - scale * clean)[:, 0]
    power = np.abs(np.fft.rfft(noise)) ** 2
    freqs = np.fft.rfftfreq(len(noise), 1 / rate)
    low = power[(freqs > 100) & (freqs < 400)].mean()
    high = power[(freqs > 3000) & (freqs < 6000)].mean()
    assert low > 5 * high


def test_a_second_input_is_the_babble_source(tool_ctx, media):
    inputs = [media["tone_stereo"], media["speech2"]]
    result = run_tool("audio_add_noise", {"snr_db": 5, "kind": "babble"}, inputs, tool_ctx)
    measured = result.provenance.measured
    assert measured["noise_source"] == media["speech2"].name and "babble_talkers" not in measured
    clean, _ = read_wav(media["tone_stereo"])
    noisy, _ = read_wav(output(tool_ctx, result))
    assert abs(snr(10 ** (measured["scaled_down_db"] / 20) * clean, noisy) - 5) <= 0.5


@pytest.mark.parametrize("fmt", ["mp3", "ogg"])
def test_lossy_outputs_reach_moderate_snr_and_refuse_high_snr(tool_ctx, media, fmt):
    params = {"snr_db": 10, "kind": "pink", "format": fmt}
    result = run_tool("audio_add_noise", params, [media["speech"]], tool_ctx)
    clean, _ = read_wav(media["speech"])
    noisy, _ = decode(output(tool_ctx, result), tool_ctx)
    scale = 10 ** (result.provenance.measured["scaled_down_db"] / 20)
    assert abs(snr(scale * clean, noisy) - 10) <= 0.5
    before = sorted(tool_ctx.media_dir.rglob("*"))
    with pytest.raises(PostconditionError, match="use wav or flac"):
        run_tool("audio_add_noise", {**params, "snr_db": 60}, [media["speech"]], tool_ctx)
    assert sorted(tool_ctx.media_dir.rglob("*")) == before  # the failed output was deleted


def test_noise_is_reproducible_from_the_seed(tmp_path, media):
    def run(folder: str, seed: int) -> list[str]:
        ctx = ToolContext(media_dir=tmp_path / folder / "media", seed=seed)
        return [
            sha(
                output(
                    ctx,
                    run_tool(
                        "audio_add_noise",
                        {"snr_db": 5, "kind": kind, "format": fmt},
                        [media["speech"]],
                        ctx,
                    ),
                )
            )
            for kind, fmt in (("white", "wav"), ("pink", "flac"), ("babble", "wav"))
        ]

    first, second, other = run("a", 7), run("b", 7), run("c", 8)
    assert first == second
    assert all(a != b for a, b in zip(first, other, strict=True))


@pytest.mark.parametrize(
    ("params", "inputs", "error", "message"),
    [
        ({"snr_db": 70}, ["speech"], ToolParamError, "snr_db"),
        ({"snr_db": 5, "kind": "brown"}, ["speech"], ToolParamError, "kind"),
        ({"snr_db": 5, "kind": "white"}, ["speech", "tone16k"], ToolParamError, "only used"),
        ({"snr_db": 5}, ["silent"], InputRejectedError, "is silent"),
        ({"snr_db": 5, "kind": "babble"}, ["speech", "silent"], InputRejectedError, "is silent"),
        (
            {"snr_db": 5, "format": "mp3"},
            ["speech", "speech", "speech"],
            ToolParamError,
            "1-2 audio",
        ),
    ],
)
def test_noise_refusals(tool_ctx, media, params, inputs, error, message):
    with pytest.raises(error) as raised:
        run_tool("audio_add_noise", params, [media[k] for k in inputs], tool_ctx)
    assert message in str(raised.value)


# -- audio_mix ------------------------------------------------------------------------------------
def test_mix_overlays_the_second_input_at_its_gain_and_position(tool_ctx, media):
    params = {"gain_db": -12, "position_ms": 500}
    first, second = media["tone_stereo"], media["speech"]
    result = run_tool("audio_mix", params, [first, second], tool_ctx)
    path = check_result(tool_ctx, result, "audio_mix", params, [first, second])
    a, rate = read_wav(first)
    out, _ = read_wav(path)
    assert out.shape == a.shape  # the first's length, rate and channels
    start = round(0.5 * rate)
    b = samples(load_audio(second, tool_ctx.limits).set_frame_rate(rate).set_channels(2))
    residual = out - a
    assert np.abs(residual[: start - 50]).max() < 1e-4  # nothing before the position
    overlay = residual[start : start + len(b) - 200]
    level = rms_db(overlay) - rms_db(b[: len(overlay)])
    assert level == pytest.approx(-12, abs=0.3)
    assert result.provenance.measured["achieved_gain_db"] == pytest.approx(-12, abs=0.2)


def test_mix_longest_extends_and_scales_down_to_avoid_clipping(tool_ctx, media):
    params = {"gain_db": 12, "position_ms": 1500, "length": "longest"}
    result = run_tool("audio_mix", params, [media["tone_stereo"], media["speech"]], tool_ctx)
    measured = result.provenance.measured
    speech_s = info(media["speech"], tool_ctx)[0]
    assert measured["duration_s"] == pytest.approx(1.5 + speech_s, abs=0.02)
    assert measured["scaled_down_db"] < 0
    out, _ = read_wav(output(tool_ctx, result))
    assert np.abs(out).max() < 1.0


def test_mix_refuses_a_position_beyond_the_first_input(tool_ctx, media):
    with pytest.raises(ToolParamError, match="beyond the first input's end"):
        run_tool("audio_mix", {"position_ms": 60000}, [media["speech"], media["tone16k"]], tool_ctx)


# -- audio_concat ---------------------------------------------------------------------------------
def test_concat_joins_in_order_with_silences(tool_ctx, media):
    inputs = [media["speech"], media["tone16k"], media["speech2"]]
    params = {"silence_ms": 300}
    result = run_tool("audio_concat", params, inputs, tool_ctx)
    path = check_result(tool_ctx, result, "audio_concat", params, inputs)
    durations = [info(p, tool_ctx)[0] for p in inputs]
    measured = result.provenance.measured
    assert measured["duration_s"] == pytest.approx(sum(durations) + 0.6, abs=0.02)
    segments = measured["segments"]
    assert [s["input"] for s in segments] == [p.name for p in inputs]
    for before, after in zip(segments, segments[1:], strict=False):
        assert after["start_s"] - before["end_s"] == pytest.approx(0.3, abs=0.002)
    out, rate = read_wav(path)
    assert rate == 22050  # the first input's rate
    tone = out[round(segments[1]["start_s"] * rate) : round(segments[1]["end_s"] * rate)]
    assert dominant_hz(tone, rate) == pytest.approx(440, abs=3)


# -- audio_speed / audio_tempo --------------------------------------------------------------------
@pytest.mark.parametrize("factor", [0.5, 0.8, 1.25, 2.0])
def test_speed_changes_duration_and_pitch_together(tool_ctx, media, factor):
    result = run_tool("audio_speed", {"factor": factor}, [media["tone16k"]], tool_ctx)
    out, rate = read_wav(output(tool_ctx, result))
    assert rate == 16000
    assert len(out) / rate == pytest.approx(1.5 / factor, rel=0.02, abs=0.02)
    assert dominant_hz(out, rate) == pytest.approx(440 * factor, rel=0.01)


@pytest.mark.parametrize("factor", [0.5, 1.25, 2.0])
def test_tempo_changes_duration_and_keeps_pitch(tool_ctx, media, factor):
    result = run_tool("audio_tempo", {"factor": factor}, [media["tone16k"]], tool_ctx)
    out, rate = read_wav(output(tool_ctx, result))
    assert len(out) / rate == pytest.approx(1.5 / factor, rel=0.02, abs=0.02)
    assert dominant_hz(out, rate) == pytest.approx(440, rel=0.01)


def test_tempo_on_speech(tool_ctx, media):
    result = run_tool("audio_tempo", {"factor": 1.25}, [media["speech"]], tool_ctx)
    speech_s = info(media["speech"], tool_ctx)[0]
    assert result.provenance.measured["duration_s"] == pytest.approx(
        speech_s / 1.25, rel=0.02, abs=0.02
    )


@pytest.mark.parametrize("name", ["audio_speed", "audio_tempo"])
@pytest.mark.parametrize("factor", [0.4, 2.5])
def test_speed_and_tempo_refuse_out_of_range_factors(tool_ctx, media, name, factor):
    with pytest.raises(ToolParamError, match="factor"):
        run_tool(name, {"factor": factor}, [media["speech"]], tool_ctx)


# -- audio_trim -----------------------------------------------------------------------------------
def test_trim_keeps_exactly_the_asked_samples(tool_ctx, media):
    params = {"start_s": 0.5, "end_s": 1.25}
    result = run_tool("audio_trim", params, [media["speech"]], tool_ctx)
    path = check_result(tool_ctx, result, "audio_trim", params, [media["speech"]])
    clean, rate = read_wav(media["speech"])
    out, _ = read_wav(path)
    assert len(out) / rate == pytest.approx(0.75, abs=0.01)
    np.testing.assert_array_equal(out, clean[round(0.5 * rate) : round(1.25 * rate)])
    to_end = run_tool("audio_trim", {"start_s": 1.0}, [media["tone_stereo"]], tool_ctx)
    assert to_end.provenance.measured["duration_s"] == pytest.approx(1.0, abs=0.01)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"start_s": 0.5, "end_s": 30.0}, "end_s 30 is beyond the end"),
        ({"start_s": 25.0}, "start_s 25 is at or beyond the end"),
        ({"start_s": 1.0, "end_s": 0.5}, "end_s (0.5) must be greater than start_s (1)"),
        ({"start_s": -1.0}, "start_s"),
    ],
)
def test_trim_refuses_times_outside_the_input(tool_ctx, media, params, message):
    with pytest.raises(ToolParamError) as raised:
        run_tool("audio_trim", params, [media["speech"]], tool_ctx)
    assert message in str(raised.value)
    if "beyond the end" in message:
        assert "lasts" in str(raised.value) or "(" in str(raised.value)


# -- audio_gain -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("gain", "source"), [(-20, "speech"), (-6, "speech"), (6, "tone16k")])
def test_gain_changes_the_rms_by_the_asked_db(tool_ctx, media, gain, source):
    result = run_tool("audio_gain", {"gain_db": gain}, [media[source]], tool_ctx)
    clean, _ = read_wav(media[source])
    out, _ = read_wav(output(tool_ctx, result))
    assert rms_db(out) - rms_db(clean) == pytest.approx(gain, abs=0.2)
    assert result.provenance.measured["clipped_samples"] == 0


def test_gain_counts_clipping_and_normalize_sets_the_peak(tool_ctx, media):
    loud = run_tool("audio_gain", {"gain_db": 12}, [media["tone_stereo"]], tool_ctx)
    assert loud.provenance.measured["clipped_samples"] > 0
    out, _ = read_wav(output(tool_ctx, loud))
    assert np.abs(out).max() >= 32767 / 32768
    norm = run_tool("audio_gain", {"normalize_peak_dbfs": -3}, [media["speech"]], tool_ctx)
    out, _ = read_wav(output(tool_ctx, norm))
    assert 20 * np.log10(np.abs(out).max()) == pytest.approx(-3, abs=0.05)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"gain_db": 30}, "gain_db"),
        ({"gain_db": -50}, "gain_db"),
        ({"gain_db": 3, "normalize_peak_dbfs": -1}, "not both"),
        ({"normalize_peak_dbfs": 2}, "normalize_peak_dbfs"),
        ({"gain_db": 3, "output_name": "loud.flac"}, "must end in .wav"),
    ],
)
def test_gain_refusals(tool_ctx, media, params, message):
    with pytest.raises(ToolParamError) as raised:
        run_tool("audio_gain", params, [media["speech"]], tool_ctx)
    assert message in str(raised.value)


def test_normalizing_silence_is_refused(tool_ctx, media):
    with pytest.raises(InputRejectedError, match="silent"):
        run_tool("audio_gain", {"normalize_peak_dbfs": -1}, [media["silent"]], tool_ctx)


def test_mp3_output_at_an_unsupported_rate_is_refused(tool_ctx, tmp_path):
    odd = write_tone(tmp_path / "odd.wav", tool_ctx, rate=37000, channels=1, seconds=0.5)
    with pytest.raises(ToolParamError, match="mp3 cannot hold 37000 Hz"):
        run_tool("audio_gain", {"gain_db": -3, "format": "mp3"}, [odd], tool_ctx)
    ok = run_tool("audio_gain", {"gain_db": -3, "format": "flac"}, [odd], tool_ctx)
    assert ok.provenance.measured["sample_rate"] == 37000


def test_lossy_gain_on_broadband_noise_records_the_codec_level_change(tool_ctx, tmp_path):
    rate = 44100
    x = np.random.default_rng(3).standard_normal(rate) * 0.1
    data = np.round(x * 32767).astype("<i2").tobytes()
    noise = tmp_path / "noise.wav"
    export_audio(
        AudioSegment(data=data, sample_width=2, frame_rate=rate, channels=1), noise, tool_ctx.limits
    )
    result = run_tool("audio_gain", {"gain_db": -6, "format": "mp3"}, [noise], tool_ctx)
    change = result.provenance.measured["rms_change_db"]
    assert change is not None and abs(change + 6) < 2  # mp3's low-pass removes some noise
