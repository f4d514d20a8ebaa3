"""Safe reading, writing and measuring of images and audio, shared by the tools.

Every input is probed before it is decoded: an image's declared size is checked against the
pixel cap from its header alone (a decompression bomb is refused before decoding), an
audio file's declared duration against the duration cap (``ffprobe``, and the WAV header
itself for WAV). Every ffmpeg/ffprobe call has a timeout. Outputs are written
deterministically (no timestamps or encoder versions in the files) and measured after they
are written.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import wave
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from benchsmith.errors import (
    InputRejectedError,
    PostconditionError,
    SystemDependencyError,
    ToolTimeoutError,
)
from benchsmith.tools.context import Limits, check_input_file

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image
    from pydub import AudioSegment

IMAGE_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".webp": "WEBP"}
AUDIO_FORMATS = {".wav": "wav", ".mp3": "mp3", ".ogg": "ogg", ".flac": "flac"}
# Deterministic encoder arguments per container (no encoder version or timestamps).
_AUDIO_CODECS = {
    "wav": ["-c:a", "pcm_s16le"],
    "mp3": ["-c:a", "libmp3lame", "-q:a", "4"],
    "ogg": ["-c:a", "libvorbis", "-q:a", "4"],
    "flac": ["-c:a", "flac"],
}


# -- external programs ------------------------------------------------------------------------
def run_program(args: list[str], timeout: float, what: str, stdin: bytes | None = None) -> bytes:
    """Run a program with a timeout; return its stdout.

    Raises:
        SystemDependencyError: The program is not installed.
        ToolTimeoutError: It ran longer than ``timeout``.
        InputRejectedError: It failed (its last error line is in the message).
    """
    if shutil.which(args[0]) is None:
        package = "ffmpeg" if args[0] in ("ffmpeg", "ffprobe") else args[0]
        raise SystemDependencyError(f"{args[0]} is not installed; apt-get install {package}")
    try:
        done = subprocess.run(args, input=stdin, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise ToolTimeoutError(f"{args[0]} took longer than {timeout:g}s on {what}") from exc
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        reason = lines[-1] if lines else f"exit code {done.returncode}"
        raise InputRejectedError(f"{args[0]} failed on {what}: {reason}")
    return done.stdout


def run_ffmpeg(args: list[str], limits: Limits, what: str, stdin: bytes | None = None) -> bytes:
    """``ffmpeg -nostdin -hide_banner -loglevel error ARGS`` with the run's timeout."""
    base = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
    return run_program(base + args, limits.ffmpeg_timeout_s, what, stdin)


# -- images -------------------------------------------------------------------------------------
def open_image(path: str | Path, limits: Limits) -> Image.Image:
    """Open and fully decode an image after checking its declared size against the cap.

    Raises:
        InputRejectedError: Not an image, truncated, or over the pixel cap.
    """
    import warnings

    from PIL import Image, UnidentifiedImageError

    p = check_input_file(path, limits)
    try:
        # Opening reads the header only. Pillow's own bomb check may fire first for very
        # large declarations; either way nothing is decoded.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(p) as probe:
                width, height = probe.size
    except Image.DecompressionBombError:
        width, height = _declared_size(p)
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise InputRejectedError(f"input {str(p)!r} is not a readable image: {exc}") from exc
    if width * height > limits.max_image_pixels:
        raise InputRejectedError(
            f"input {str(p)!r} declares {width}x{height} = {width * height} pixels, over the "
            f"{limits.max_image_pixels}-pixel limit; refused before decoding"
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(p) as img:
                img.load()
                return img.copy()
    except (OSError, SyntaxError, ValueError) as exc:
        raise InputRejectedError(f"input {str(p)!r} could not be decoded: {exc}") from exc


def _declared_size(p: Path) -> tuple[int, int]:
    """Width and height from a header Pillow refused as a bomb (PNG IHDR, else unknown)."""
    with open(p, "rb") as fh:
        head = fh.read(24)
    if head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR":
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    raise InputRejectedError(f"input {str(p)!r} declares too many pixels; refused before decoding")


def save_image(img: Image.Image, path: Path, *, quality: int = 90) -> None:
    """Write an image by its suffix, deterministically (no metadata, fixed settings)."""
    fmt = IMAGE_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise InputRejectedError(
            f"output {path.name!r}: unknown image type; use one of {sorted(IMAGE_FORMATS)}"
        )
    if fmt == "JPEG":
        img = img.convert("RGB") if img.mode not in ("RGB", "L") else img
        img.save(path, "JPEG", quality=quality, optimize=False, progressive=False)
    elif fmt == "WEBP":
        img.save(path, "WEBP", quality=quality, method=4)
    else:
        img.save(path, "PNG", optimize=False)


_Decoded = TypeVar("_Decoded")


def _decode_output(
    decode: Callable[[Path, Limits], _Decoded], path: Path, limits: Limits
) -> _Decoded:
    """Decode a file a tool wrote with ``decode`` (an input reader, checks included).

    :func:`measure_image` and :func:`measure_audio` share it, so a written file that does not
    decode misses its post-condition with the same message for images and audio.

    Raises:
        PostconditionError: The file does not decode.
    """
    try:
        return decode(path, limits)
    except InputRejectedError as exc:
        raise PostconditionError(f"output {path.name!r} does not decode: {exc}") from exc


def measure_image(path: Path, limits: Limits) -> dict[str, Any]:
    """Decode a written image and report its properties.

    Raises:
        PostconditionError: The file does not decode.
    """
    img = _decode_output(open_image, path, limits)
    return {"width": img.width, "height": img.height, "mode": img.mode, "format": path.suffix[1:]}


# -- audio --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AudioInfo:
    """What a probe says about an audio file."""

    duration_s: float
    sample_rate: int
    channels: int
    codec: str


def _riff_data_chunk(p: Path) -> tuple[int, int] | None:
    """(offset of the sample data, declared byte size) of a RIFF/WAVE file's data chunk."""
    with open(p, "rb") as fh:
        head = fh.read(12)
        if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
            return None
        while True:
            chunk = fh.read(8)
            if len(chunk) < 8:
                return None
            size = int.from_bytes(chunk[4:], "little")
            if chunk[:4] == b"data":
                return fh.tell(), size
            fh.seek(size + (size & 1), 1)


def _wav_header(p: Path) -> tuple[AudioInfo, int, int] | None:
    """A PCM WAV's header info, the bytes of samples it declares and the bytes present."""
    try:
        with wave.open(str(p), "rb") as w:
            frames, rate = w.getnframes(), w.getframerate()
            channels, width = w.getnchannels(), w.getsampwidth()
        located = _riff_data_chunk(p)
    except (wave.Error, EOFError, OSError):
        return None
    if located is None:
        return None
    if rate <= 0 or channels <= 0:
        raise InputRejectedError(
            f"input {str(p)!r}: WAV header has rate {rate}, {channels} channels"
        )
    data_start, declared = located
    codec = "pcm_u8" if width == 1 else f"pcm_s{8 * width}le"
    info = AudioInfo(frames / rate, rate, channels, codec)
    return info, declared, p.stat().st_size - data_start


def ffprobe_json(path: Path, show: Sequence[str], limits: Limits, what: str) -> dict[str, Any]:
    """Ffprobe's JSON report on the first audio stream of ``path``.

    Args:
        path: The file.
        show: What to report, as ffprobe options (``["-show_format", "-show_streams"]``).
        limits: The run's limits (ffprobe's timeout).
        what: How errors name the file (``"input 'x.wav'"``).
    """
    out = run_program(
        ["ffprobe", "-v", "error", "-print_format", "json", *show, "-select_streams", "a:0"]
        + [str(path)],
        limits.ffmpeg_timeout_s,
        what,
    )
    return json.loads(out or b"{}")


def probe_audio(path: str | Path, limits: Limits) -> AudioInfo:
    """Probe an audio file without decoding it, and check it against the limits.

    Raises:
        InputRejectedError: Not audio, truncated, or declaring more than the duration cap.
    """
    p = check_input_file(path, limits)
    wav = _wav_header(p) if p.suffix.lower() == ".wav" else None
    info = wav[0] if wav else None
    if info is None:
        data = ffprobe_json(p, ["-show_format", "-show_streams"], limits, f"input {str(p)!r}")
        streams = data.get("streams") or []
        if not streams:
            raise InputRejectedError(f"input {str(p)!r} has no audio stream (not an audio file?)")
        stream = streams[0]
        try:
            duration = float(stream.get("duration") or data.get("format", {}).get("duration"))
        except (TypeError, ValueError) as exc:
            raise InputRejectedError(f"input {str(p)!r}: its duration cannot be read") from exc
        info = AudioInfo(
            duration,
            int(stream.get("sample_rate") or 0),
            int(stream.get("channels") or 0),
            str(stream.get("codec_name")),
        )
    if not math.isfinite(info.duration_s) or info.duration_s <= 0:
        raise InputRejectedError(f"input {str(p)!r} declares no audio (duration {info.duration_s})")
    if info.duration_s > limits.max_audio_seconds:
        raise InputRejectedError(
            f"input {str(p)!r} declares {info.duration_s:.0f}s of audio, over the "
            f"{limits.max_audio_seconds:g}s limit; refused before decoding"
        )
    if wav is not None and wav[2] < wav[1] * 0.98 - 64:
        raise InputRejectedError(
            f"input {str(p)!r} is a truncated WAV: its header declares {info.duration_s:.2f}s "
            f"({wav[1]} bytes of samples) but only {max(wav[2], 0)} bytes are there"
        )
    return info


def load_audio(path: str | Path, limits: Limits) -> AudioSegment:
    """Probe, then decode an audio file to 16-bit PCM (through ffmpeg, with a timeout).

    Raises:
        InputRejectedError: Refused by the probe, undecodable, or decoding to much less audio
            than its header declares (truncated).
    """
    from pydub import AudioSegment

    info = probe_audio(path, limits)
    # (8-bit WAV is unsigned; ffmpeg handles it below.)
    if info.codec in ("pcm_s16le", "pcm_s24le", "pcm_s32le") and info.channels <= 2:
        # PCM WAV, already checked against its header: read it directly (no ffmpeg).
        try:
            with wave.open(str(path), "rb") as w:
                raw = w.readframes(w.getnframes())
                width = w.getsampwidth()
        except (wave.Error, EOFError, OSError) as exc:
            raise InputRejectedError(f"input {str(path)!r} could not be decoded: {exc}") from exc
        segment = AudioSegment(
            data=raw, sample_width=width, frame_rate=info.sample_rate, channels=info.channels
        )
        return segment.set_sample_width(2) if width != 2 else segment
    channels = min(max(info.channels, 1), 2)
    rate = info.sample_rate or 16000
    raw = run_ffmpeg(
        [
            "-i",
            str(path),
            "-f",
            "s16le",
            "-acodec",
            "pcm_s16le",
            "-ac",
            str(channels),
            "-ar",
            str(rate),
            "-",
        ],
        limits,
        f"input {str(path)!r}",
    )
    segment = AudioSegment(data=raw, sample_width=2, frame_rate=rate, channels=channels)
    if info.codec == "vorbis" and len(segment) > info.duration_s * 1000:
        # ffmpeg does not trim the last Vorbis block of short files; the container's
        # duration is exact, so cut the padding.
        segment = segment[: int(round(info.duration_s * 1000))]
    decoded = len(segment) / 1000
    if decoded < 0.9 * info.duration_s - 0.1:
        raise InputRejectedError(
            f"input {str(path)!r} is truncated: it declares {info.duration_s:.2f}s but decodes "
            f"to {decoded:.2f}s"
        )
    return segment


def export_audio(segment: AudioSegment, path: Path, limits: Limits) -> None:
    """Write audio by its suffix, deterministically (bit-exact, no encoder tags)."""
    fmt = AUDIO_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise InputRejectedError(
            f"output {path.name!r}: unknown audio type; use one of {sorted(AUDIO_FORMATS)}"
        )
    if len(segment) / 1000 > limits.max_audio_seconds:
        raise PostconditionError(
            f"output {path.name!r} would be {len(segment) / 1000:.0f}s, over the "
            f"{limits.max_audio_seconds:g}s limit"
        )
    seg = segment.set_sample_width(2)
    if fmt == "wav":
        with wave.open(str(path), "wb") as w:
            w.setnchannels(seg.channels)
            w.setsampwidth(2)
            w.setframerate(seg.frame_rate)
            w.writeframes(seg.raw_data)
        return
    run_ffmpeg(
        [
            "-f",
            "s16le",
            "-ar",
            str(seg.frame_rate),
            "-ac",
            str(seg.channels),
            "-i",
            "-",
            "-map_metadata",
            "-1",
            "-fflags",
            "+bitexact",
            "-flags:a",
            "+bitexact",
            *_AUDIO_CODECS[fmt],
            str(path),
        ],
        limits,
        f"output {path.name!r}",
        stdin=seg.raw_data,
    )


def pipe_pcm(
    segment: AudioSegment,
    limits: Limits,
    what: str,
    *,
    audio_filter: str | None = None,
    rate: int | None = None,
    channels: int | None = None,
) -> AudioSegment:
    """Run raw 16-bit samples through ffmpeg (a filter and/or a new rate and channel count)."""
    from pydub import AudioSegment

    out_rate = rate or segment.frame_rate
    out_channels = channels or segment.channels
    args = [
        "-f",
        "s16le",
        "-ar",
        str(segment.frame_rate),
        "-ac",
        str(segment.channels),
        "-i",
        "-",
    ]
    if audio_filter:
        args += ["-af", audio_filter]
    args += ["-f", "s16le", "-ar", str(out_rate), "-ac", str(out_channels), "-"]
    raw = run_ffmpeg(args, limits, what, stdin=segment.set_sample_width(2).raw_data)
    return AudioSegment(data=raw, sample_width=2, frame_rate=out_rate, channels=out_channels)


def samples(segment: AudioSegment) -> np.ndarray:
    """The samples as float64 in [-1, 1], shape (frames, channels).

    Expects signed 16- or 32-bit samples, as :func:`load_audio` returns.
    """
    import numpy as np

    data = np.frombuffer(segment.raw_data, dtype=f"<i{segment.sample_width}").astype(np.float64)
    full_scale = float(1 << (8 * segment.sample_width - 1))
    return (data / full_scale).reshape(-1, segment.channels)


def measure_audio(path: Path, limits: Limits) -> dict[str, Any]:
    """Decode a written audio file and report duration, sample rate, channels and level.

    Raises:
        PostconditionError: The file does not decode.
    """
    import numpy as np

    segment = _decode_output(load_audio, path, limits)
    x = samples(segment)
    rms = float(np.sqrt(np.mean(x**2))) if x.size else 0.0
    return {
        "duration_s": round(len(segment) / 1000, 3),
        "sample_rate": segment.frame_rate,
        "channels": segment.channels,
        "rms_dbfs": round(20 * math.log10(rms), 2) if rms > 0 else None,
        "format": path.suffix[1:],
    }
