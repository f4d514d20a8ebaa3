"""What the audio and speech tools share: audio output formats and the espeak-ng engine.

``audio`` (noise, mixing, trimming) and ``tts`` (speech) both write audio files in one of
four formats, both join parts with silence between them (concatenation, dialogue turns)
and both speak with espeak-ng (babble noise is several espeak voices at once), so those
pieces live here and neither tool module imports the other.

espeak-ng's voice list (``espeak-ng --voices``) is parsed once and cached; a voice is asked
for by language code (``en``, ``fr``, ``zh``), by espeak voice name (``en-us``, ``fr-be``)
or by the file name espeak uses, optionally with a ``+variant`` (``en-us+f2``). Text goes
to espeak-ng on stdin, never through a shell or as an argument, so text starting with
``-`` is only text.
"""

from __future__ import annotations

import difflib
import functools
import re
import tempfile
import wave
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Literal

from pydantic import Field, model_validator

from benchsmith.errors import InputRejectedError, ToolParamError, ToolUnavailableError
from benchsmith.tools.context import Limits, ToolContext
from benchsmith.tools.media import export_audio, load_audio, run_program
from benchsmith.tools.registry import ToolParams

if TYPE_CHECKING:
    from pydub import AudioSegment

AudioFormat = Literal["wav", "mp3", "ogg", "flac"]
# Sample rates libmp3lame can write.
MP3_RATES = frozenset({8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000})
ESPEAK = "espeak-ng"
_CATALOG_TIMEOUT_S = 60.0
FORMAT_DESCRIPTION = (
    "Output file type: 'wav' (default) or 'flac' keep the samples exactly; 'mp3' and 'ogg' "
    "are lossy and add codec noise. Keep 'wav' unless the benchmark needs a compressed file."
)


# -- audio output ---------------------------------------------------------------------------------
class AudioOutParams(ToolParams):
    """Parameters shared by the audio-writing tools: the output file type."""

    format: AudioFormat = Field(default="wav", description=FORMAT_DESCRIPTION)

    @model_validator(mode="after")
    def _output_name_matches_format(self) -> AudioOutParams:
        if self.output_name is not None:
            suffix = PurePosixPath(self.output_name).suffix.lower()
            if suffix != f".{self.format}":
                raise ValueError(
                    f"output_name {self.output_name!r} must end in .{self.format} to match "
                    f"format {self.format!r}; change the name or leave it out"
                )
        return self


def check_format_rate(fmt: str, rate: int) -> None:
    """Refuse an output type that cannot hold ``rate`` (mp3 has a fixed set of rates).

    Raises:
        ToolParamError: mp3 at a rate libmp3lame cannot write.
    """
    if fmt == "mp3" and rate not in MP3_RATES:
        raise ToolParamError(
            f"mp3 cannot hold {rate} Hz audio (it takes {', '.join(map(str, sorted(MP3_RATES)))}"
            " Hz); use format 'wav', 'flac' or 'ogg'"
        )


def export_output(
    ctx: ToolContext, params: AudioOutParams, segment: AudioSegment, stem: str
) -> Path:
    """Write a tool's audio output: named by ``params.output_name`` or after ``stem``.

    The file type is ``params.format``; the file is not measured here.
    """
    out = ctx.output_for(params.output_name, f".{params.format}", stem=stem)
    export_audio(segment, out, ctx.limits)
    return out


def join_with_silence(
    parts: Sequence[AudioSegment], silence_ms: int
) -> tuple[AudioSegment, list[tuple[float, float]]]:
    """Join 16-bit parts end to end, with ``silence_ms`` of silence between consecutive ones.

    Every part must have the first one's sample rate and channel count.

    Returns:
        The joined audio, and each part's ``(start_s, end_s)`` in it (rounded to the ms).
    """
    from pydub import AudioSegment

    rate, channels = parts[0].frame_rate, parts[0].channels
    gap_frames = round(silence_ms * rate / 1000)
    gap = b"\x00\x00" * channels * gap_frames
    chunks: list[bytes] = []
    spans: list[tuple[float, float]] = []
    position = 0
    for index, part in enumerate(parts):
        if index:
            chunks.append(gap)
            position += gap_frames
        frames = len(part.raw_data) // (2 * channels)
        spans.append((round(position / rate, 3), round((position + frames) / rate, 3)))
        chunks.append(part.raw_data)
        position += frames
    joined = AudioSegment(data=b"".join(chunks), sample_width=2, frame_rate=rate, channels=channels)
    return joined, spans


# -- the voice catalog --------------------------------------------------------------------------
@dataclass(frozen=True)
class EspeakVoice:
    """One voice of ``espeak-ng --voices``.

    Attributes:
        name: The name this module knows it by: its language code (``en-us``), or for a
            second voice with the same code the base name of its file (``yue-latn-jyutping``).
        language: The language code in espeak's list (``en-us``, ``fr-fr``, ``cmn``).
        title: espeak's descriptive name (``English_(America)``).
        file: The voice file relative to espeak's voices folder (``gmw/en-US``), what is
            passed to ``espeak-ng -v``.
        gender: ``M`` or ``F``, as espeak lists it.
        priority: espeak's priority for its own language (lower is preferred).
        other_languages: Other language codes it serves, with their priorities.
    """

    name: str
    language: str
    title: str
    file: str
    gender: str
    priority: int
    other_languages: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class _Catalog:
    voices: tuple[EspeakVoice, ...]
    variants: dict[str, str]  # lowercased variant id or name -> variant id (e.g. "m3")


def _parse_voice_lines(text: str) -> list[tuple[int, str, str, str, str, str]]:
    rows = []
    for line in text.splitlines()[1:]:
        parts = line.split()
        if len(parts) < 5 or not parts[0].isdigit():
            continue
        pty, language, age_gender, title, file = parts[:5]
        rows.append((int(pty), language, age_gender, title, file, " ".join(parts[5:])))
    return rows


@functools.cache
def _catalog() -> _Catalog:
    """espeak-ng's voices and variants, read once per process."""
    listing = run_program([ESPEAK, "--voices"], _CATALOG_TIMEOUT_S, "listing its voices").decode(
        "utf-8", errors="replace"
    )
    voices: list[EspeakVoice] = []
    taken: set[str] = set()
    for pty, language, age_gender, title, file, other in _parse_voice_lines(listing):
        name = language.lower()
        if name in taken:
            name = file.rsplit("/", 1)[-1].lower()
        if name in taken:
            continue
        taken.add(name)
        voices.append(
            EspeakVoice(
                name=name,
                language=language.lower(),
                title=title,
                file=file,
                gender=age_gender.rsplit("/", 1)[-1],
                priority=pty,
                other_languages=tuple(
                    (code.lower(), int(prio))
                    for code, prio in re.findall(r"\(([^\s()]+)\s+(\d+)\)", other)
                ),
            )
        )
    variant_listing = run_program(
        [ESPEAK, "--voices=variant"], _CATALOG_TIMEOUT_S, "listing its variants"
    ).decode("utf-8", errors="replace")
    variants: dict[str, str] = {}
    for _pty, _language, _age_gender, title, file, _other in _parse_voice_lines(variant_listing):
        ident = file.rsplit("/", 1)[-1]
        variants.setdefault(ident.lower(), ident)
        variants.setdefault(title.lower(), ident)
    if not voices:
        raise ToolUnavailableError(
            "espeak-ng lists no voices; reinstall it (apt-get install espeak-ng espeak-ng-data)"
        )
    return _Catalog(tuple(voices), variants)


def available_voices() -> dict[str, str]:
    """Every espeak-ng voice this module can speak with: voice name -> its language code.

    Language codes (``en``, ``fr``, ``zh``) are accepted too and resolve to the voice espeak
    prefers for them (e.g. ``fr`` -> ``fr-fr``, ``zh`` -> ``cmn``).
    """
    return {v.name: v.language for v in _catalog().voices}


def _close_matches(
    word: str, choices: list[str], titles: list[tuple[str, int, str]] | None = None
) -> list[str]:
    """Up to four choices like ``word``: by descriptive title, by spelling, then by prefix.

    ``titles`` holds (lowercased title, priority, name) of each voice: ``english`` finds the
    voices whose title starts with it (preferred ones first), then those that mention it.
    """
    close: list[str] = []
    if titles and len(word) >= 3:
        ranked = sorted(
            (not title.startswith(word), priority, name)
            for title, priority, name in titles
            if word in title
        )
        close = [name for _not_prefix, _priority, name in ranked]
    close += [
        c for c in difflib.get_close_matches(word, choices, n=4, cutoff=0.6) if c not in close
    ]
    for size in (2, 1):
        if not close and len(word) >= size:
            close = sorted(c for c in choices if c.startswith(word[:size]))
    return close[:4]


def resolve_voice(spec: str) -> tuple[EspeakVoice, str | None]:
    """Find the espeak-ng voice (and variant) a request names.

    Args:
        spec: A voice name (``en-us``), language code (``en``, ``fr``, ``zh``), espeak's
            descriptive name or voice file, optionally followed by ``+variant`` (``en-us+f2``).

    Returns:
        The voice and the variant id (None without one).

    Raises:
        ToolParamError: No such voice or variant; the message lists close matches.
    """
    catalog = _catalog()
    base, _, variant = spec.strip().partition("+")
    wanted = base.strip().lower()
    code = wanted.replace("_", "-")
    voice = None
    for v in catalog.voices:
        if code == v.name or wanted == v.title.lower():
            voice = v
            break
    if voice is None:
        for v in catalog.voices:
            if code in (v.file.lower(), v.file.rsplit("/", 1)[-1].lower()):
                voice = v
                break
    if voice is None:
        ranked = [
            (prio, index, v)
            for index, v in enumerate(catalog.voices)
            for lang, prio in ((v.language, v.priority), *v.other_languages)
            if lang == code
        ]
        if ranked:
            voice = min(ranked, key=lambda r: (r[0], r[1]))[2]
    if voice is None:
        codes = sorted(
            {v.name for v in catalog.voices}
            | {lang for v in catalog.voices for lang, _ in v.other_languages}
        )
        titles = [(v.title.lower(), v.priority, v.name) for v in catalog.voices]
        close = _close_matches(code, codes, titles)
        hint = f"; close matches: {', '.join(close)}" if close else ""
        raise ToolParamError(
            f"unknown espeak-ng voice or language {base.strip()!r}{hint} "
            "(see `espeak-ng --voices` for all of them)"
        )
    return voice, resolve_variant(variant) if variant.strip() else None


def resolve_variant(variant: str) -> str:
    """The espeak-ng variant id (``m3``, ``f2``, ``klatt``) a request names.

    Raises:
        ToolParamError: No such variant; the message lists close matches.
    """
    variants = _catalog().variants
    found = variants.get(variant.strip().lower())
    if found is None:
        close = _close_matches(variant.strip().lower(), sorted(set(variants.values())))
        hint = f"; close matches: {', '.join(close)}" if close else ""
        raise ToolParamError(
            f"unknown espeak-ng voice variant {variant!r}{hint} "
            "(e.g. m1-m7 male, f1-f5 female; see `espeak-ng --voices=variant`)"
        )
    return found


# -- synthesis ----------------------------------------------------------------------------------
def _voice_arg(voice: EspeakVoice, variant: str | None) -> str:
    return f"{voice.file}+{variant}" if variant else voice.file


def phonemes(text: str, voice: str, timeout: float = 60.0) -> str:
    """espeak-ng's phoneme transcription of ``text`` in ``voice`` (``espeak-ng -q -x``).

    Args:
        text: What would be spoken.
        voice: A voice or language code, as for :func:`resolve_voice`.
        timeout: Seconds espeak-ng may take.

    Returns:
        The phoneme mnemonics, whitespace collapsed to single spaces.

    Raises:
        ToolParamError: Unknown voice.
    """
    found, _variant = resolve_voice(voice)
    out = run_program(
        [ESPEAK, "-q", "-x", "-b", "1", "-v", found.file, "--stdin"],
        timeout,
        f"phonemes in voice {found.name}",
        stdin=text.encode("utf-8"),
    )
    return " ".join(out.decode("utf-8", errors="replace").split())


def synthesize_espeak(
    text: str,
    voice: EspeakVoice,
    *,
    variant: str | None,
    rate: int,
    pitch: int,
    limits: Limits,
) -> AudioSegment:
    """Speak ``text`` with espeak-ng (text on stdin, timeout from ``limits``).

    Returns:
        The decoded speech (16-bit mono, espeak's 22050 Hz).

    Raises:
        ToolParamError: The text produced no speech.
        ToolTimeoutError: espeak-ng took longer than the limit.
    """
    with tempfile.TemporaryDirectory(prefix="benchsmith-tts-") as tmp:
        wav_path = Path(tmp) / "speech.wav"
        run_program(
            [
                ESPEAK,
                "-v",
                _voice_arg(voice, variant),
                "-s",
                str(rate),
                "-p",
                str(pitch),
                "-b",
                "1",
                "-w",
                str(wav_path),
                "--stdin",
            ],
            limits.ffmpeg_timeout_s,
            f"text in voice {voice.name}",
            stdin=text.encode("utf-8"),
        )
        check_nonempty_wav(wav_path, text)
        return load_audio(wav_path, limits)


def check_nonempty_wav(path: Path, text: str) -> None:
    """Refuse a synthesized WAV that does not decode or holds no samples.

    Raises:
        InputRejectedError: The file is not a readable WAV.
        ToolParamError: It holds no speech (the text had nothing to speak).
    """
    try:
        with wave.open(str(path), "rb") as w:
            frames = w.getnframes()
    except (wave.Error, EOFError, OSError) as exc:
        raise InputRejectedError(f"speech synthesis wrote no readable audio: {exc}") from exc
    if frames == 0:
        raise ToolParamError(f"text {text[:60]!r} produced no speech; give words to speak")
