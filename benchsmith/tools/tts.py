"""Speech tools: text to speech with espeak-ng (or a piper voice), one speaker or a dialogue.

espeak-ng is the default backend: small, fast, deterministic (the same text, voice, rate and
pitch always give the same samples) and it speaks over a hundred languages. Its voice list
(``espeak-ng --voices``) is parsed once and cached; a voice is asked for by language code
(``en``, ``fr``, ``zh``), by espeak voice name (``en-us``, ``fr-be``) or by the file name
espeak uses, optionally with a ``+variant`` (``en-us+f2``). Text goes to espeak-ng on stdin,
never through a shell or as an argument, so text starting with ``-`` is only text.

Every output is decoded and measured after it is written, and checked: it decodes, it lasts
about as long as its text should at the asked rate, and the language recorded is the
language of the voice in espeak's own list. :func:`phonemes` gives espeak's phoneme
transcription, recorded with every output so its provenance shows what was spoken.
"""

from __future__ import annotations

import json
import re
import tempfile
import wave
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from benchsmith.errors import ToolParamError, ToolUnavailableError
from benchsmith.tools.context import Limits, ToolContext
from benchsmith.tools.media import load_audio, measure_audio
from benchsmith.tools.registry import NO_INPUTS, ToolOutput, discard_output, tool
from benchsmith.tools.sound import (
    AudioOutParams,
    EspeakVoice,
    available_voices,
    check_nonempty_wav,
    export_output,
    join_with_silence,
    phonemes,
    resolve_variant,
    resolve_voice,
    synthesize_espeak,
)

if TYPE_CHECKING:
    from pydub import AudioSegment

MAX_TEXT_CHARS = 5000
"""Longest text of one ``tts_speak`` call (``Limits.max_text_chars`` may cap it lower)."""
# Plausible duration of speech: between these factors of words * 60 / rate + 0.5 s.
_MIN_DURATION_FACTOR = 0.3
_MAX_DURATION_FACTOR = 3.0
# Characters spoken about one word each (ideographs, kana, hangul syllables) and digits
# (numbers are read out digit group by digit group, so a long number is many words).
_SYLLABIC = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def speech_units(text: str) -> int:
    """How many words ``text`` counts as for its expected duration.

    A whitespace-separated token is one word, unless it holds ideographs, kana or hangul
    syllables, or digits: those count one each (Chinese and Japanese have no spaces, and
    a number is read out as several words).
    """
    units = 0
    for token in text.split():
        units += max(1, len(_SYLLABIC.findall(token)) + sum(ch.isdigit() for ch in token))
    return units


def expected_duration(text: str, rate: int) -> float:
    """Rough speaking time of ``text`` at ``rate`` words per minute, plus 0.5 s."""
    return speech_units(text) * 60.0 / rate + 0.5


def _check_text_limit(text: str, limits: Limits, what: str) -> None:
    if len(text) > limits.max_text_chars:
        raise ToolParamError(
            f"{what} is {len(text)} characters, over the run's {limits.max_text_chars}-character "
            "limit; split it into shorter parts"
        )


def _check_speakable(text: str) -> str:
    if "\x00" in text:
        raise ValueError("text contains a NUL byte")
    if not any(ch.isalnum() for ch in text):
        raise ValueError("text has nothing to speak (no letters or digits)")
    return text


SpeakableText = Annotated[str, AfterValidator(_check_speakable)]


def _espeak(
    ctx: ToolContext,
    params: SpeakParams | DialogueParams,
    text: str,
    voice: EspeakVoice,
    variant: str | None,
) -> AudioSegment:
    """``text`` spoken by espeak-ng in ``voice`` at the call's rate and pitch."""
    return synthesize_espeak(
        text, voice, variant=variant, rate=params.rate, pitch=params.pitch, limits=ctx.limits
    )


# -- piper --------------------------------------------------------------------------------------
def _synthesize_piper(
    text: str, model: str | None, rate: int, limits: Limits
) -> tuple[AudioSegment, str, str]:
    """Speak with a piper voice; return the speech, the voice's name and its language.

    The noise scales are zero so that the same text gives the same samples.

    Raises:
        ToolUnavailableError: piper-tts is not installed or no voice model is given.
        ToolParamError: The model or its ``.onnx.json`` config is missing.
    """
    try:
        from piper import PiperVoice  # type: ignore[import-not-found]
    except ImportError as exc:
        raise ToolUnavailableError(
            "the piper backend needs piper-tts (pip install piper-tts) and a voice model "
            "(python -m piper.download_voices en_US-lessac-medium); or use backend 'espeak-ng'"
        ) from exc
    if not model:
        raise ToolUnavailableError(
            "the piper backend needs piper_voice: the path of a .onnx voice model with its "
            ".onnx.json beside it (python -m piper.download_voices en_US-lessac-medium)"
        )
    onnx = Path(model)
    config_path = Path(f"{onnx}.json")
    if onnx.suffix != ".onnx" or not onnx.is_file() or not config_path.is_file():
        raise ToolParamError(
            f"piper_voice {model!r}: give an existing .onnx voice model with its .onnx.json "
            "config beside it"
        )
    config = json.loads(config_path.read_text(encoding="utf-8"))
    language = str(
        (config.get("espeak") or {}).get("voice")
        or (config.get("language") or {}).get("code")
        or "unknown"
    ).lower()
    piper_voice = PiperVoice.load(str(onnx), config_path=str(config_path))
    # piper's natural pace is about 160 words a minute; length_scale stretches it.
    length_scale = 160.0 / rate
    with tempfile.TemporaryDirectory(prefix="benchsmith-piper-") as tmp:
        wav_path = Path(tmp) / "speech.wav"
        with wave.open(str(wav_path), "wb") as wav_file:
            try:
                from piper import SynthesisConfig  # type: ignore[import-not-found]
            except ImportError:  # piper-tts < 1.3
                piper_voice.synthesize(
                    text, wav_file, length_scale=length_scale, noise_scale=0.0, noise_w=0.0
                )
            else:
                piper_voice.synthesize_wav(
                    text,
                    wav_file,
                    syn_config=SynthesisConfig(
                        length_scale=length_scale, noise_scale=0.0, noise_w_scale=0.0
                    ),
                )
        check_nonempty_wav(wav_path, text)
        return load_audio(wav_path, limits), onnx.stem, language


# -- tts_speak ----------------------------------------------------------------------------------
_VOICE_DESCRIPTION = (
    "Language code or espeak-ng voice: 'en', 'en-us', 'en-gb', 'fr', 'de', 'es', 'it', 'pt', "
    "'zh', 'ja', 'ru', ... (any code of `espeak-ng --voices`); write the text in that language."
)
_RATE_DESCRIPTION = "Speaking rate in words per minute; 175 is normal, 120 slow, 300 fast."
_PITCH_DESCRIPTION = "Base pitch, 0 (low) to 99 (high); 50 is the voice's normal pitch."


class SpeakParams(AudioOutParams):
    """Parameters of ``tts_speak``."""

    text: SpeakableText = Field(
        min_length=1,
        max_length=MAX_TEXT_CHARS,
        description="The exact words to speak, in the voice's language (plain text, no markup).",
    )
    voice: str = Field(
        default="en-us", min_length=1, max_length=100, description=_VOICE_DESCRIPTION
    )
    rate: int = Field(default=175, ge=80, le=450, description=_RATE_DESCRIPTION)
    pitch: int = Field(default=50, ge=0, le=99, description=_PITCH_DESCRIPTION)
    variant: str | None = Field(
        default=None,
        max_length=40,
        description="Optional voice variant: 'm1'..'m7' (male), 'f1'..'f5' (female), 'klatt', "
        "'whisper', 'croak'; omit for the voice's default.",
    )
    backend: Literal["espeak-ng", "piper"] = Field(
        default="espeak-ng",
        description="Speech engine: 'espeak-ng' (always available, robotic) or 'piper' (neural, "
        "needs piper-tts and piper_voice).",
    )
    piper_voice: str | None = Field(
        default=None,
        max_length=1000,
        description="Only with backend 'piper': path of a .onnx voice model whose .onnx.json "
        "sits beside it.",
    )


@tool("tts_speak", params=SpeakParams, category="speech", inputs=NO_INPUTS)
def tts_speak(ctx: ToolContext, params: SpeakParams, inputs: list[Path]) -> ToolOutput:
    """Speak a text aloud in a chosen language, voice, rate and pitch, writing one audio file.

    Makes spoken versions of questions or passages, so a benchmark can test listening
    comprehension, speech recognition, spoken question answering or robustness to voice,
    accent, language and speaking rate.
    """
    _check_text_limit(params.text, ctx.limits, "text")
    if params.backend == "piper":
        speech, voice_name, language = _synthesize_piper(
            params.text, params.piper_voice, params.rate, ctx.limits
        )
        variant = None
        expected_language = language
        spoken = params.text
    else:
        voice, variant = resolve_voice(params.voice)
        if params.variant:
            variant = resolve_variant(params.variant)
        speech = _espeak(ctx, params, params.text, voice, variant)
        voice_name, language = voice.name, voice.language
        expected_language = available_voices()[voice.name]
        spoken = phonemes(params.text, voice.name, ctx.limits.ffmpeg_timeout_s)

    out = export_output(ctx, params, speech, "speech")
    measured = measure_audio(out, ctx.limits)
    words = speech_units(params.text)
    duration = measured["duration_s"]
    expected = expected_duration(params.text, params.rate)
    measured.update(
        {
            "backend": params.backend,
            "voice": voice_name,
            "variant": variant,
            "language": language,
            "rate": params.rate,
            "pitch": params.pitch,
            "words": words,
            "words_per_minute": round(words * 60.0 / duration, 1) if duration > 0 else None,
            "expected_duration_s": round(expected, 3),
            "phonemes": spoken[:200],
        }
    )
    if duration <= 0:
        raise discard_output(out, f"tts_speak wrote {out.name!r} with no audio")
    if not _MIN_DURATION_FACTOR * expected <= duration <= _MAX_DURATION_FACTOR * expected:
        raise discard_output(
            out,
            f"tts_speak: {out.name!r} lasts {duration:.2f}s, implausible for {words} words at "
            f"{params.rate} words a minute (expected about {expected:.2f}s)",
        )
    if language != expected_language:
        raise discard_output(
            out,
            f"tts_speak: recorded language {language!r} is not the voice's {expected_language!r}",
        )
    return ToolOutput(files=[out], measured=measured)


# -- tts_dialogue -------------------------------------------------------------------------------
class Turn(BaseModel):
    """One turn of a dialogue."""

    model_config = ConfigDict(extra="forbid")

    speaker: str = Field(
        min_length=1, max_length=50, description="Who speaks; a key of `voices` (e.g. 'A')."
    )
    text: SpeakableText = Field(
        min_length=1, max_length=2000, description="What they say, in their voice's language."
    )


class DialogueParams(AudioOutParams):
    """Parameters of ``tts_dialogue``."""

    turns: list[Turn] = Field(
        min_length=2,
        max_length=50,
        description="The dialogue in order: [{speaker, text}, ...]; at least two speakers.",
    )
    voices: dict[str, str] = Field(
        min_length=2,
        max_length=20,
        description="Voice of each speaker: {'A': 'en-us+m3', 'B': 'en-gb+f2'}; a language code "
        "or espeak-ng voice, optionally '+variant' (m1..m7 male, f1..f5 female). Every speaker "
        "needs one and no two speakers may share the same voice and variant.",
    )
    pause_ms: int = Field(
        default=400, ge=0, le=3000, description="Silence between turns, in milliseconds."
    )
    rate: int = Field(default=175, ge=80, le=450, description=_RATE_DESCRIPTION)
    pitch: int = Field(default=50, ge=0, le=99, description=_PITCH_DESCRIPTION)

    @model_validator(mode="after")
    def _every_speaker_has_a_voice(self) -> DialogueParams:
        speakers = list(dict.fromkeys(t.speaker for t in self.turns))
        missing = [s for s in speakers if s not in self.voices]
        if missing:
            raise ValueError(f"speakers without a voice: {', '.join(missing)}; add them to voices")
        if len(speakers) < 2:
            raise ValueError("a dialogue needs at least two speakers")
        return self


# Tolerance of the dialogue's total duration against its parts and pauses.
_DIALOGUE_TOLERANCE_S = 0.05


@tool("tts_dialogue", params=DialogueParams, category="speech", inputs=NO_INPUTS)
def tts_dialogue(ctx: ToolContext, params: DialogueParams, inputs: list[Path]) -> ToolOutput:
    """Speak a multi-speaker dialogue, each speaker in a distinct voice, with pauses between turns.

    Makes conversations for a benchmark to test speaker attribution ("who said ..."),
    multi-speaker transcription, turn-taking and listening comprehension of dialogues.
    """
    _check_text_limit(
        "".join(t.text for t in params.turns), ctx.limits, "the dialogue's text in total"
    )
    speakers = list(dict.fromkeys(t.speaker for t in params.turns))
    resolved: dict[str, tuple[EspeakVoice, str | None]] = {}
    for speaker in speakers:
        try:
            resolved[speaker] = resolve_voice(params.voices[speaker])
        except ToolParamError as exc:
            raise ToolParamError(f"voice of speaker {speaker!r}: {exc}") from exc
    seen: dict[tuple[str, str | None], str] = {}
    for speaker, (voice, variant) in resolved.items():
        key = (voice.name, variant)
        if key in seen:
            raise ToolParamError(
                f"speakers {seen[key]!r} and {speaker!r} both have voice {_voice_label(*key)}; "
                "give each speaker a distinct voice or '+variant' (e.g. 'en-us+m3', 'en-us+f2')"
            )
        seen[key] = speaker

    parts: list[AudioSegment] = []
    for turn in params.turns:
        voice, variant = resolved[turn.speaker]
        parts.append(_espeak(ctx, params, turn.text, voice, variant))
    rate = parts[0].frame_rate
    parts = [p if p.frame_rate == rate else p.set_frame_rate(rate) for p in parts]
    dialogue, spans = join_with_silence(parts, params.pause_ms)
    timeline: list[dict[str, Any]] = []
    for turn, (start_s, end_s) in zip(params.turns, spans, strict=True):
        voice, variant = resolved[turn.speaker]
        timeline.append(
            {
                "speaker": turn.speaker,
                "voice": _voice_label(voice.name, variant),
                "start_s": start_s,
                "end_s": end_s,
            }
        )

    out = export_output(ctx, params, dialogue, "dialogue")
    measured = measure_audio(out, ctx.limits)
    expected = (
        sum(len(p.raw_data) // 2 for p in parts) / rate + (len(parts) - 1) * params.pause_ms / 1000
    )
    measured.update(
        {
            "speakers": speakers,
            "voices": {s: _voice_label(v.name, var) for s, (v, var) in resolved.items()},
            "languages": {s: v.language for s, (v, _var) in resolved.items()},
            "pause_ms": params.pause_ms,
            "turns": timeline,
            "expected_duration_s": round(expected, 3),
        }
    )
    if len(timeline) != len(params.turns):
        raise discard_output(
            out, f"tts_dialogue: {len(timeline)} segments for {len(params.turns)} turns"
        )
    if abs(measured["duration_s"] - expected) > _DIALOGUE_TOLERANCE_S:
        raise discard_output(
            out,
            f"tts_dialogue: {out.name!r} lasts {measured['duration_s']:.3f}s, not the "
            f"{expected:.3f}s of its turns and pauses",
        )
    return ToolOutput(files=[out], measured=measured)


def _voice_label(name: str, variant: str | None) -> str:
    return f"{name}+{variant}" if variant else name
