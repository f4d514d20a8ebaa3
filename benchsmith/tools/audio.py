"""Audio tools: noise at a measured SNR, overlay, concatenation, speed, tempo, trim and gain.

Every tool decodes its inputs through :func:`~benchsmith.tools.media.load_audio` (probed
against the duration cap before decoding, then decoded by ffmpeg with a timeout), works on
16-bit PCM samples as floats in [-1, 1], writes one file with
:func:`~benchsmith.tools.media.export_audio`, decodes and measures what it wrote and checks
its own post-condition (duration, sample rate, level, SNR); an output that misses it is
deleted and a :class:`~benchsmith.errors.PostconditionError` is raised. Noise comes only from
the call's seeded generators, so the same call with the same run seed writes byte-identical
files. Lossless outputs (wav, flac) hold the samples exactly, so their levels are checked
to 0.2 dB; mp3 and ogg filter and add codec noise, so for them levels are only recorded, and
the SNR of a noisy mp3/ogg counts the codec's distortion as noise.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, model_validator

from benchsmith.errors import InputRejectedError, PostconditionError, ToolParamError
from benchsmith.tools.context import Limits, ToolContext
from benchsmith.tools.media import load_audio, measure_audio, pipe_pcm, samples
from benchsmith.tools.registry import InputSpec, ToolOutput, discard_output, tool
from benchsmith.tools.sound import (
    AudioOutParams,
    check_format_rate,
    export_output,
    join_with_silence,
    resolve_voice,
    synthesize_espeak,
)

if TYPE_CHECKING:
    import random

    import numpy as np
    from pydub import AudioSegment

LOSSLESS = frozenset({"wav", "flac"})
_FULL_SCALE = 32768.0
# Largest peak a mix may have before it is scaled down: full scale for lossless files, -1 dBFS
# for lossy ones (their decoders overshoot the original peaks a little).
_PEAK_LIMIT = {
    "wav": 32767 / 32768,
    "flac": 32767 / 32768,
    "mp3": 10 ** (-1 / 20),
    "ogg": 10 ** (-1 / 20),
}
# Below this level (dBFS) a 16-bit file cannot hold a level change precisely: not checked.
_PRECISION_FLOOR_DBFS = -80.0
_SNR_TOLERANCE_DB = 0.5
# mp3/ogg outputs are rewritten (at most this many times) until their SNR is this close.
_LOSSY_ATTEMPTS = 5
_LOSSY_SNR_AIM_DB = 0.1
_LEVEL_TOLERANCE_DB = 0.2
_DURATION_TOLERANCE_S = 0.02
_TRIM_TOLERANCE_S = 0.01


# -- shared parameters and helpers ----------------------------------------------------------------
def _array(segment: AudioSegment) -> np.ndarray:
    """Samples as float64, shape (frames, channels)."""
    return samples(segment)


def _segment(x: np.ndarray, rate: int) -> tuple[AudioSegment, int]:
    """16-bit audio of float samples (rounded, clipped); also how many samples were clipped."""
    import numpy as np
    from pydub import AudioSegment

    scaled = np.round(x * _FULL_SCALE)
    clipped = int(np.count_nonzero((scaled > 32767) | (scaled < -32768)))
    data = np.clip(scaled, -32768, 32767).astype("<i2")
    segment = AudioSegment(
        data=data.tobytes(), sample_width=2, frame_rate=rate, channels=int(x.shape[1])
    )
    return segment, clipped


def _quantize(x: np.ndarray) -> np.ndarray:
    """What a 16-bit file will hold of ``x`` (as floats)."""
    import numpy as np

    return np.clip(np.round(x * _FULL_SCALE), -32768, 32767) / _FULL_SCALE


def _power(x: np.ndarray) -> float:
    import numpy as np

    return float(np.mean(np.square(x))) if x.size else 0.0


def _db(power_ratio: float) -> float:
    return 10 * math.log10(power_ratio) if power_ratio > 0 else -math.inf


def _dbfs(x: np.ndarray) -> float | None:
    """RMS level in dBFS (None for silence)."""
    p = _power(x)
    return round(_db(p), 2) if p > 0 else None


def match_format(segment: AudioSegment, rate: int, channels: int, limits: Limits) -> AudioSegment:
    """The audio at ``rate`` Hz with ``channels`` (1 or 2) channels.

    Mono becomes stereo by copying it to both channels and stereo becomes mono by averaging
    them (so a mono voice keeps its level in each channel); ffmpeg resamples.
    """
    import numpy as np

    if segment.channels != channels:
        x = _array(segment)
        x = np.repeat(x[:, :1], channels, axis=1) if channels > 1 else x.mean(axis=1, keepdims=True)
        segment, _clipped = _segment(x, segment.frame_rate)
    if segment.frame_rate == rate:
        return segment
    return pipe_pcm(segment, limits, f"resampling audio to {rate} Hz", rate=rate)


def _load(ctx: ToolContext, path: Path) -> AudioSegment:
    """Decode an input (probed against the limits first)."""
    return load_audio(path, ctx.limits)


def _write(
    ctx: ToolContext, params: AudioOutParams, segment: AudioSegment, stem: str
) -> tuple[Path, dict[str, Any]]:
    """Write the output (type from ``params.format``) and measure it."""
    out = _export(ctx, params, segment, stem)
    return out, measure_audio(out, ctx.limits)


def _export(ctx: ToolContext, params: AudioOutParams, segment: AudioSegment, stem: str) -> Path:
    """Write the output (type from ``params.format``) without measuring it."""
    check_format_rate(params.format, segment.frame_rate)
    return export_output(ctx, params, segment, stem)


def _check_common(
    out: Path,
    tool_name: str,
    measured: dict[str, Any],
    source: AudioSegment,
    *,
    duration_s: float,
    tolerance_s: float = _DURATION_TOLERANCE_S,
) -> None:
    """Post-conditions every audio tool shares: sample rate, channels, duration.

    The output keeps the sample rate and channels of ``source`` (the input they come from).
    """
    rate, channels = source.frame_rate, source.channels
    if measured["sample_rate"] != rate:
        raise discard_output(
            out, f"{tool_name}: {out.name!r} has {measured['sample_rate']} Hz, not {rate}"
        )
    if measured["channels"] != channels:
        raise discard_output(
            out, f"{tool_name}: {out.name!r} has {measured['channels']} channels, not {channels}"
        )
    tolerance_s += _codec_slack_s(str(measured["format"]), rate)
    if abs(measured["duration_s"] - duration_s) > tolerance_s:
        raise discard_output(
            out,
            f"{tool_name}: {out.name!r} lasts {measured['duration_s']:.3f}s, expected "
            f"{duration_s:.3f}s (tolerance {tolerance_s * 1000:.0f} ms)",
        )


def _codec_slack_s(fmt: str, rate: int) -> float:
    """How much longer than written a file may decode.

    ffmpeg does not trim the last Vorbis block of an ogg file shorter than about a second
    (one page), so such a file decodes up to 256 samples long; the other types decode exact.
    """
    return 256 / rate if fmt == "ogg" else 0.0


def _check_level(
    out: Path, tool_name: str, measured: dict[str, Any], expected_dbfs: float | None
) -> None:
    """For lossless outputs: the written RMS level is the level of the samples meant."""
    got = measured.get("rms_dbfs")
    if measured["format"] not in LOSSLESS or expected_dbfs is None or got is None:
        return
    _require_level(
        out,
        got,
        expected_dbfs,
        expected_dbfs,
        f"{tool_name}: {out.name!r} has an RMS level of {got:.2f} dBFS, not the "
        f"{expected_dbfs:.2f} dBFS of the samples written",
    )


def _require_level(
    out: Path, got_db: float, want_db: float, level_dbfs: float, message: str
) -> None:
    """A level post-condition: ``got_db`` is within the level tolerance of ``want_db``.

    Not checked when the level concerned (``level_dbfs``) is below what 16 bits hold
    precisely; otherwise a miss deletes ``out`` and raises with ``message``.
    """
    if level_dbfs > _PRECISION_FLOOR_DBFS and abs(got_db - want_db) > _LEVEL_TOLERANCE_DB:
        raise discard_output(out, message)


# -- audio_add_noise ----------------------------------------------------------------------------
# Words babble talkers say (common, short, easy for espeak in English voices).
_BABBLE_WORDS = (
    "the a and then we you they it this that there here what when where who how why "
    "people time year day week night morning house car road city train ticket market "
    "money price paper water coffee dinner lunch music movie story game team school "
    "office meeting project plan report email phone number friend family mother father "
    "brother sister doctor teacher window door table chair garden river weather rain sun "
    "go come see know think take make give find tell ask work call try need feel leave "
    "keep start show hear play run move live believe bring happen write sit stand lose "
    "pay meet include continue learn change lead understand watch follow stop create "
    "speak read spend grow open walk win offer remember love consider appear buy wait "
    "good new first last long great little own other old right big high different small "
    "large next early young important few public bad same able really always never "
    "maybe today tomorrow yesterday actually probably certainly quickly slowly"
).split()
_BABBLE_VOICES = ("en-us", "en-gb", "en-gb-x-rp", "en-us-nyc")
_BABBLE_VARIANTS = ("m1", "m2", "m3", "m4", "m5", "m6", "f1", "f2", "f3", "f4", "f5")
# Each talker speaks at most this long; longer signals loop it (from a random offset).
_BABBLE_MAX_S = 20.0


class NoiseParams(AudioOutParams):
    """Parameters of ``audio_add_noise``."""

    snr_db: float = Field(
        ge=-10,
        le=60,
        description="Signal-to-noise ratio in dB over the whole file: 30 faint noise, 20 mild, "
        "10 noticeable, 5 hard, 0 noise as loud as the signal, negative louder than it. Above "
        "about 20 dB keep format 'wav' or 'flac' (mp3/ogg add distortion of their own).",
    )
    kind: Literal["white", "pink", "babble"] = Field(
        default="white",
        description="Noise: 'white' (hiss), 'pink' (1/f, like rain or fan noise) or 'babble' "
        "(several people talking at once, the hardest for speech; or the second input file "
        "when one is given).",
    )
    babble_talkers: int = Field(
        default=5, ge=4, le=6, description="For kind 'babble': how many overlapping talkers."
    )


def _white(np_rng: np.random.Generator, frames: int, channels: int) -> np.ndarray:
    return np_rng.standard_normal((frames, channels))


def _pink(np_rng: np.random.Generator, frames: int, channels: int, rate: int) -> np.ndarray:
    """Noise with power falling as 1/f above 20 Hz (shaped white noise)."""
    import numpy as np

    spectrum = np.fft.rfft(np_rng.standard_normal((frames, channels)), axis=0)
    freqs = np.fft.rfftfreq(frames, 1.0 / rate)
    shape = np.zeros_like(freqs)
    shape[1:] = 1.0 / np.sqrt(np.maximum(freqs[1:], 20.0))
    return np.fft.irfft(spectrum * shape[:, None], n=frames, axis=0)


def _loop(x: np.ndarray, frames: int, rng: random.Random) -> np.ndarray:
    """``x`` (1-D or 2-D) looped from a random offset to exactly ``frames`` frames."""
    import numpy as np

    rolled = np.roll(x, -rng.randrange(len(x)), axis=0)
    reps = -(-frames // len(rolled))
    return np.concatenate([rolled] * reps, axis=0)[:frames]


def _babble(
    rng: random.Random, frames: int, rate: int, talkers: int, limits: Limits
) -> tuple[np.ndarray, list[str]]:
    """Mono babble: ``talkers`` espeak-ng voices saying seeded random sentences at once."""
    import numpy as np

    seconds = min(max(frames / rate, 2.0), _BABBLE_MAX_S)
    total = np.zeros(frames)
    labels = []
    for variant in rng.sample(_BABBLE_VARIANTS, talkers):
        voice, _ = resolve_voice(rng.choice(_BABBLE_VOICES))
        wpm, pitch = rng.randint(150, 200), rng.randint(25, 75)
        sentences, words = [], 0
        while words < seconds * wpm / 60 * 1.2 + 6:
            count = rng.randint(4, 9)
            sentences.append(" ".join(rng.choice(_BABBLE_WORDS) for _ in range(count)) + ".")
            words += count
        speech = synthesize_espeak(
            " ".join(sentences), voice, variant=variant, rate=wpm, pitch=pitch, limits=limits
        )
        x = _array(match_format(speech, rate, 1, limits))[:, 0]
        if _power(x) == 0:
            continue
        total += _loop(x / math.sqrt(_power(x)), frames, rng)
        labels.append(f"{voice.name}+{variant}")
    return total, labels


def _noise_file(
    ctx: ToolContext, path: Path, frames: int, rate: int, channels: int, rng: random.Random
) -> np.ndarray:
    """The second input as noise: resampled, channels matched, looped from a random offset."""
    x = _array(match_format(_load(ctx, path), rate, channels, ctx.limits))
    if _power(x) == 0:
        raise InputRejectedError(f"noise input {str(path)!r} is silent; give audible noise")
    return _loop(x, frames, rng)


def snr_db(clean: np.ndarray, noisy: np.ndarray) -> float:
    """10 log10 of the power of ``clean`` over the power of ``noisy - clean``.

    Both are trimmed to the shorter length (a lossy decoder may add or drop a few frames).
    """
    frames = min(len(clean), len(noisy))
    residual = _power(noisy[:frames] - clean[:frames])
    return _db(_power(clean[:frames]) / residual) if residual > 0 else math.inf


@tool(
    "audio_add_noise",
    params=NoiseParams,
    category="audio",
    inputs=InputSpec("audio", min=1, max=2),
)
def audio_add_noise(ctx: ToolContext, params: NoiseParams, inputs: list[Path]) -> ToolOutput:
    """Add white, pink or babble noise to audio at an exact signal-to-noise ratio in dB.

    Tests robustness of speech recognition and spoken-language understanding to background
    noise; a series of SNRs (e.g. 20, 10, 0 dB) makes a graded difficulty ladder. A second
    input file, if given, is used as the babble noise.
    """
    import numpy as np

    if len(inputs) == 2 and params.kind != "babble":
        raise ToolParamError(
            f"audio_add_noise: a second input is only used as the noise of kind 'babble', not "
            f"{params.kind!r}; drop it or use kind 'babble'"
        )
    segment = _load(ctx, inputs[0])
    rate, channels = segment.frame_rate, segment.channels
    check_format_rate(params.format, rate)
    x = _array(segment)
    frames = len(x)
    p_signal = _power(x)
    if frames < 2 or p_signal == 0:
        raise InputRejectedError(
            f"input {str(inputs[0])!r} is silent; a signal-to-noise ratio needs a signal"
        )
    rng = ctx.rng
    details: dict[str, Any] = {}
    if params.kind == "white":
        noise = _white(ctx.np_rng(), frames, channels)
    elif params.kind == "pink":
        noise = _pink(ctx.np_rng(), frames, channels, rate)
    elif len(inputs) == 2:
        noise = _noise_file(ctx, inputs[1], frames, rate, channels, rng)
        details["noise_source"] = inputs[1].name
    else:
        mono, talkers = _babble(rng, frames, rate, params.babble_talkers, ctx.limits)
        noise = np.repeat(mono[:, None], channels, axis=1)
        details["babble_talkers"] = talkers
    if _power(noise) == 0:
        raise PostconditionError(f"audio_add_noise: the {params.kind} noise came out silent")
    noise = noise / math.sqrt(_power(noise))

    # For mp3/ogg the codec's own distortion counts as noise in the written file: the SNR of
    # the noise alone (``aim``) is raised until the file's SNR meets the target (secant
    # steps), and the best try is kept.
    lossy = params.format not in LOSSLESS
    limit = _PEAK_LIMIT[params.format]

    def attempt(aim: float) -> tuple[Path, float, float, float]:
        gain, mix, sigma = _fit_noise(x, noise, aim, limit)
        written, _clipped = _segment(gain * mix, rate)
        out = _export(ctx, params, written, inputs[0].stem)
        return out, snr_db(gain * x, _array(load_audio(out, ctx.limits))), gain, sigma

    tries: list[tuple[float, float]] = []  # (aim, achieved)
    aim = params.snr_db
    codec_ratio = 0.0
    for index in range(_LOSSY_ATTEMPTS if lossy else 1):
        out, achieved, gain, sigma = attempt(aim)
        tries.append((aim, achieved))
        miss = achieved - params.snr_db
        if abs(miss) <= _LOSSY_SNR_AIM_DB or not math.isfinite(achieved):
            break
        codec_ratio = max(0.0, 10 ** (-achieved / 10) - 10 ** (-aim / 10))
        if index == 0:
            wanted = 10 ** (-params.snr_db / 10) - codec_ratio
            if wanted <= 0:
                break  # the codec alone is noisier than the target
            aim = -_db(wanted)
        else:
            (aim0, got0), (aim1, got1) = tries[-2], tries[-1]
            if got1 == got0:
                break
            aim = aim1 - (got1 - params.snr_db) * (aim1 - aim0) / (got1 - got0)
        aim = min(max(aim, params.snr_db), params.snr_db + 40)
    best_aim, _best = min(tries, key=lambda t: abs(t[1] - params.snr_db))
    if best_aim != tries[-1][0]:
        out, achieved, gain, sigma = attempt(best_aim)
    measured = measure_audio(out, ctx.limits)
    measured.update(
        {
            "kind": params.kind,
            "target_snr_db": params.snr_db,
            "achieved_snr_db": round(achieved, 3) if math.isfinite(achieved) else None,
            "scaled_down_db": round(20 * math.log10(gain), 4),
            "signal_rms_dbfs": _dbfs(gain * x),
            "noise_rms_dbfs": _dbfs(gain * sigma * noise),
            **details,
        }
    )
    if lossy:
        measured["codec_snr_db"] = round(-_db(codec_ratio), 2) if codec_ratio > 0 else None
    _check_common(out, "audio_add_noise", measured, segment, duration_s=frames / rate)
    if not abs(achieved - params.snr_db) <= _SNR_TOLERANCE_DB:
        if lossy and codec_ratio > 0:
            hint = (
                f"; {params.format} itself adds distortion at about "
                f"{-_db(codec_ratio):.0f} dB SNR; use wav or flac"
            )
        else:
            hint = "; the input may be too quiet for this SNR in 16 bits"
        raise discard_output(
            out,
            f"audio_add_noise: {out.name!r} has an SNR of {achieved:.2f} dB, not the "
            f"{params.snr_db:g} dB asked (tolerance {_SNR_TOLERANCE_DB} dB){hint}",
        )
    return ToolOutput(files=[out], measured=measured)


def _fit_noise(
    x: np.ndarray, noise: np.ndarray, target_db: float, limit: float
) -> tuple[float, np.ndarray, float]:
    """Scale unit-power ``noise`` so that ``x`` + noise, as 16 bits, has ``target_db`` SNR.

    The mix is scaled down when its peak would pass ``limit``; the noise scale is corrected
    for what 16-bit rounding adds (which matters only for quiet signals at high SNR).

    Returns:
        The mix's scale (1.0 unless it would clip), the unscaled mix and the noise's scale.
    """
    import numpy as np

    sigma = math.sqrt(_power(x) / 10 ** (target_db / 10))
    for _ in range(4):
        mix = x + sigma * noise
        gain = min(1.0, limit / float(np.max(np.abs(mix))))
        achieved = snr_db(gain * x, _quantize(gain * mix))
        if not math.isfinite(achieved) or abs(achieved - target_db) < 0.005:
            break
        sigma *= 10 ** ((achieved - target_db) / 20)
    return gain, mix, sigma


# -- audio_mix ----------------------------------------------------------------------------------
class MixParams(AudioOutParams):
    """Parameters of ``audio_mix``."""

    gain_db: float = Field(
        default=0.0,
        ge=-60,
        le=20,
        description="Gain applied to the second input before it is overlaid, in dB (0 keeps "
        "its level, -20 makes it a quiet background).",
    )
    position_ms: int = Field(
        default=0,
        ge=0,
        le=3_600_000,
        description="Where the second input starts, in milliseconds from the first's start.",
    )
    length: Literal["first", "longest"] = Field(
        default="first",
        description="'first' keeps the first input's duration (the overlay is cut at its end); "
        "'longest' extends the output to the end of the overlay.",
    )


@tool("audio_mix", params=MixParams, category="audio", inputs=InputSpec("audio", min=2, max=2))
def audio_mix(ctx: ToolContext, params: MixParams, inputs: list[Path]) -> ToolOutput:
    """Overlay a second audio file on the first at a given gain and start position.

    Builds distractor and interference items: a second voice, music or an event sound over
    speech, to test selective listening, sound-event detection and robustness to overlap.
    """
    import numpy as np

    first = _load(ctx, inputs[0])
    rate, channels = first.frame_rate, first.channels
    a = _array(first)
    b = _array(match_format(_load(ctx, inputs[1]), rate, channels, ctx.limits))
    start = round(params.position_ms * rate / 1000)
    if params.length == "first" and start >= len(a):
        raise ToolParamError(
            f"audio_mix: position_ms {params.position_ms} is at or beyond the first input's end "
            f"({len(a) / rate * 1000:.0f} ms); use a smaller position or length 'longest'"
        )
    frames = len(a) if params.length == "first" else max(len(a), start + len(b))
    if frames / rate > ctx.limits.max_audio_seconds:
        raise ToolParamError(
            f"audio_mix: the output would last {frames / rate:.0f}s, over the run's "
            f"{ctx.limits.max_audio_seconds:g}s limit; use a smaller position_ms"
        )
    overlay = b[: frames - start] * 10 ** (params.gain_db / 20)
    mix = np.zeros((frames, channels))
    mix[: len(a)] += a
    mix[start : start + len(overlay)] += overlay
    peak = float(np.max(np.abs(mix))) if mix.size else 0.0
    scale = min(1.0, _PEAK_LIMIT[params.format] / peak) if peak > 0 else 1.0
    written, _clipped = _segment(mix * scale, rate)

    out, measured = _write(ctx, params, written, inputs[0].stem)
    measured.update(
        {
            "overlay_start_s": round(start / rate, 3),
            "overlay_end_s": round((start + len(overlay)) / rate, 3),
            "gain_db": params.gain_db,
            "scaled_down_db": round(20 * math.log10(scale), 4),
        }
    )
    _check_common(out, "audio_mix", measured, first, duration_s=frames / rate)
    # The overlay's level in the file: what is left after taking the first input away.
    expected_power = _power(overlay * scale)
    if params.format in LOSSLESS and expected_power > 0:
        decoded = _array(load_audio(out, ctx.limits))
        region = slice(start, start + len(overlay))
        base = np.zeros((frames, channels))
        base[: len(a)] = a
        residual = decoded[region] - base[region] * scale
        achieved = _db(_power(residual) / _power(b[: len(overlay)])) - 20 * math.log10(scale)
        measured["achieved_gain_db"] = round(achieved, 3)
        _require_level(
            out,
            achieved,
            params.gain_db,
            _db(expected_power),
            f"audio_mix: the overlay in {out.name!r} is at {achieved:.2f} dB, not the "
            f"{params.gain_db:g} dB asked",
        )
    return ToolOutput(files=[out], measured=measured)


# -- audio_concat -------------------------------------------------------------------------------
class ConcatParams(AudioOutParams):
    """Parameters of ``audio_concat``."""

    silence_ms: int = Field(
        default=300,
        ge=0,
        le=10_000,
        description="Silence between consecutive inputs, in milliseconds.",
    )


@tool(
    "audio_concat",
    params=ConcatParams,
    category="audio",
    inputs=InputSpec("audio", min=2, max=16),
)
def audio_concat(ctx: ToolContext, params: ConcatParams, inputs: list[Path]) -> ToolOutput:
    """Join 2-16 audio files end to end, in order, with silence between them.

    Builds longer listening items from parts (several spoken questions, a passage then a
    question, a sequence of sounds to count or order), for long-context and ordering tests.
    The output takes the first input's sample rate and channels.
    """
    first = _load(ctx, inputs[0])
    rate, channels = first.frame_rate, first.channels
    parts = [first] + [match_format(_load(ctx, p), rate, channels, ctx.limits) for p in inputs[1:]]
    joined, spans = join_with_silence(parts, params.silence_ms)
    timeline = [
        {"input": path.name, "start_s": start_s, "end_s": end_s}
        for path, (start_s, end_s) in zip(inputs, spans, strict=True)
    ]

    out, measured = _write(ctx, params, joined, inputs[0].stem)
    expected = (
        sum(len(p.raw_data) // (2 * channels) for p in parts) / rate
        + (len(parts) - 1) * params.silence_ms / 1000
    )
    measured.update({"segments": timeline, "silence_ms": params.silence_ms})
    _check_common(out, "audio_concat", measured, first, duration_s=expected)
    _check_level(out, "audio_concat", measured, _dbfs(_array(joined)))
    return ToolOutput(files=[out], measured=measured)


# -- audio_speed / audio_tempo ------------------------------------------------------------------
class SpeedParams(AudioOutParams):
    """Parameters of ``audio_speed``."""

    factor: float = Field(
        ge=0.5,
        le=2.0,
        description="Playback speed: 1.25 is 25% faster and higher-pitched, 0.8 slower and "
        "lower; the pitch moves with the speed (like a tape played faster).",
    )


class TempoParams(AudioOutParams):
    """Parameters of ``audio_tempo``."""

    factor: float = Field(
        ge=0.5,
        le=2.0,
        description="Tempo: 1.25 is 25% faster, 0.8 is 20% slower; the pitch stays the same.",
    )


def _stretch(
    ctx: ToolContext,
    params: SpeedParams | TempoParams,
    inputs: list[Path],
    tool_name: str,
    make_filter: Callable[[int], str],
) -> tuple[Path, dict[str, Any]]:
    """Run the input through an ffmpeg filter that divides its duration by ``params.factor``."""
    segment = _load(ctx, inputs[0])
    rate, channels = segment.frame_rate, segment.channels
    duration = len(segment.raw_data) // (2 * channels) / rate
    changed = pipe_pcm(
        segment, ctx.limits, f"{tool_name} of {inputs[0].name!r}", audio_filter=make_filter(rate)
    )
    out, measured = _write(ctx, params, changed, inputs[0].stem)
    expected = duration / params.factor
    level_in = _dbfs(_array(segment))
    level_out = measured.get("rms_dbfs")
    measured.update(
        {
            "factor": params.factor,
            "input_duration_s": round(duration, 3),
            "rms_change_db": (
                round(level_out - level_in, 2)
                if level_in is not None and level_out is not None
                else None
            ),
        }
    )
    _check_common(
        out,
        tool_name,
        measured,
        segment,
        duration_s=expected,
        tolerance_s=0.02 * expected + _DURATION_TOLERANCE_S,
    )
    return out, measured


@tool("audio_speed", params=SpeedParams, category="audio", inputs=InputSpec("audio"))
def audio_speed(ctx: ToolContext, params: SpeedParams, inputs: list[Path]) -> ToolOutput:
    """Play audio faster or slower with the pitch changing along (resampling, like a tape).

    Tests robustness to fast or slow, higher or lower voices; the duration becomes the
    input's divided by the factor.
    """
    out, measured = _stretch(
        ctx,
        params,
        inputs,
        "audio_speed",
        lambda rate: f"asetrate={max(1, round(rate * params.factor))},aresample={rate}",
    )
    measured["pitch_shift_semitones"] = round(12 * math.log2(params.factor), 3)
    return ToolOutput(files=[out], measured=measured)


@tool("audio_tempo", params=TempoParams, category="audio", inputs=InputSpec("audio"))
def audio_tempo(ctx: ToolContext, params: TempoParams, inputs: list[Path]) -> ToolOutput:
    """Make audio faster or slower while keeping its pitch (ffmpeg's atempo filter).

    Tests robustness of speech understanding to speaking rate without changing the voice;
    the duration becomes the input's divided by the factor.
    """
    out, measured = _stretch(
        ctx, params, inputs, "audio_tempo", lambda _rate: f"atempo={params.factor:.6f}"
    )
    return ToolOutput(files=[out], measured=measured)


# -- audio_trim ---------------------------------------------------------------------------------
class TrimParams(AudioOutParams):
    """Parameters of ``audio_trim``."""

    start_s: float = Field(
        default=0.0, ge=0, le=86_400, description="Start of the kept part, in seconds."
    )
    end_s: float | None = Field(
        default=None,
        gt=0,
        le=86_400,
        description="End of the kept part, in seconds (after start_s, within the input's "
        "duration); omit to keep to the end.",
    )

    @model_validator(mode="after")
    def _end_after_start(self) -> TrimParams:
        if self.end_s is not None and self.end_s <= self.start_s:
            raise ValueError(
                f"end_s ({self.end_s:g}) must be greater than start_s ({self.start_s:g})"
            )
        return self


@tool("audio_trim", params=TrimParams, category="audio", inputs=InputSpec("audio"))
def audio_trim(ctx: ToolContext, params: TrimParams, inputs: list[Path]) -> ToolOutput:
    """Cut out the part of an audio file between two times, in seconds.

    Isolates a sentence, a sound or a fixed-length excerpt; also makes truncated audio to
    test whether a model notices that an answer was cut off.
    """
    segment = _load(ctx, inputs[0])
    rate = segment.frame_rate
    x = _array(segment)
    duration = len(x) / rate
    end_s = duration if params.end_s is None else params.end_s
    if params.start_s >= duration:
        raise ToolParamError(
            f"audio_trim: start_s {params.start_s:g} is at or beyond the end of "
            f"{inputs[0].name!r} ({duration:.3f}s); use start_s < {duration:.3f}"
        )
    if end_s > duration + 0.0005:
        raise ToolParamError(
            f"audio_trim: end_s {end_s:g} is beyond the end of {inputs[0].name!r}, which lasts "
            f"{duration:.3f}s; use end_s <= {duration:.3f} or leave it out"
        )
    first, last = round(params.start_s * rate), min(len(x), round(end_s * rate))
    if last <= first:
        raise ToolParamError("audio_trim: the kept part is shorter than one sample")
    written, _clipped = _segment(x[first:last], rate)
    out, measured = _write(ctx, params, written, inputs[0].stem)
    measured.update(
        {
            "start_s": params.start_s,
            "end_s": round(end_s, 6),
            "input_duration_s": round(duration, 3),
        }
    )
    _check_common(
        out,
        "audio_trim",
        measured,
        segment,
        duration_s=end_s - params.start_s,
        tolerance_s=_TRIM_TOLERANCE_S,
    )
    _check_level(out, "audio_trim", measured, _dbfs(x[first:last]))
    return ToolOutput(files=[out], measured=measured)


# -- audio_gain ---------------------------------------------------------------------------------
class GainParams(AudioOutParams):
    """Parameters of ``audio_gain``."""

    gain_db: float = Field(
        default=0.0,
        ge=-40,
        le=20,
        description="Level change in dB: -6 halves the amplitude, +6 doubles it (loud audio "
        "clips; the clipped samples are counted).",
    )
    normalize_peak_dbfs: float | None = Field(
        default=None,
        ge=-60,
        le=0,
        description="Instead of gain_db: scale so the loudest sample sits at this level in dBFS "
        "(e.g. -1). Leave gain_db at 0 when using it.",
    )

    @model_validator(mode="after")
    def _one_of_gain_or_normalize(self) -> GainParams:
        if self.normalize_peak_dbfs is not None and self.gain_db != 0:
            raise ValueError("give gain_db or normalize_peak_dbfs, not both")
        return self


@tool("audio_gain", params=GainParams, category="audio", inputs=InputSpec("audio"))
def audio_gain(ctx: ToolContext, params: GainParams, inputs: list[Path]) -> ToolOutput:
    """Make audio louder or quieter by a gain in dB, or normalize its peak to a dBFS level.

    Tests robustness to recording level: very quiet speech, or loud speech with clipping
    distortion.
    """
    import numpy as np

    segment = _load(ctx, inputs[0])
    rate = segment.frame_rate
    x = _array(segment)
    peak_in = float(np.max(np.abs(x))) if x.size else 0.0
    if params.normalize_peak_dbfs is not None:
        if peak_in == 0:
            raise InputRejectedError(
                f"input {str(inputs[0])!r} is silent; it has no peak to normalize"
            )
        applied = params.normalize_peak_dbfs - 20 * math.log10(peak_in)
    else:
        applied = params.gain_db
    written, clipped = _segment(x * 10 ** (applied / 20), rate)
    out, measured = _write(ctx, params, written, inputs[0].stem)
    decoded = _array(load_audio(out, ctx.limits))
    rms_in, rms_out = _power(x), _power(decoded)
    change = _db(rms_out / rms_in) if rms_in > 0 and rms_out > 0 else None
    peak_out = float(np.max(np.abs(decoded))) if decoded.size else 0.0
    measured.update(
        {
            "applied_gain_db": round(applied, 3),
            "input_rms_dbfs": _dbfs(x),
            "rms_change_db": round(change, 3) if change is not None else None,
            "peak_dbfs": round(20 * math.log10(peak_out), 3) if peak_out > 0 else None,
            "clipped_samples": clipped,
            "clipped_fraction": round(clipped / x.size, 6) if x.size else 0.0,
        }
    )
    _check_common(out, "audio_gain", measured, segment, duration_s=len(x) / rate)
    # Level checks need exact samples: mp3/ogg filter and reshape broadband audio by a dB or
    # more, so for them the change is recorded, not checked.
    expected_level = _db(rms_in) + applied if rms_in > 0 else -math.inf
    if params.format in LOSSLESS and clipped == 0 and change is not None:
        _require_level(
            out,
            change,
            applied,
            expected_level,
            f"audio_gain: the level of {out.name!r} changed by {change:.2f} dB, not the "
            f"{applied:.2f} dB applied (tolerance {_LEVEL_TOLERANCE_DB} dB)",
        )
    if params.normalize_peak_dbfs is not None and params.format in LOSSLESS and peak_out > 0:
        if abs(20 * math.log10(peak_out) - params.normalize_peak_dbfs) > 0.1:
            raise discard_output(
                out,
                f"audio_gain: the peak of {out.name!r} is {20 * math.log10(peak_out):.2f} dBFS, "
                f"not {params.normalize_peak_dbfs:g}",
            )
    return ToolOutput(files=[out], measured=measured)
