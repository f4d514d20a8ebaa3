"""Conversion tools: audio, image and table formats, and file metadata.

Every tool writes one file deterministically (same inputs and parameters, same bytes), then
reads what it wrote back and checks its own post-condition:

* ``convert_audio``: wav/mp3/ogg/flac to wav/mp3/ogg/flac, optionally resampled or
  re-channelled; the output decodes to the input's duration (within 50 ms).
* ``convert_image``: png/jpeg/webp to png/jpeg/webp; the output decodes at the same size.
* ``convert_table``: csv/jsonl/parquet to csv/jsonl/parquet; rows and columns preserved.
* ``edit_metadata``: set or remove audio tags (through ffmpeg, stream copy) or image text
  metadata (PNG text chunks, EXIF ImageDescription in JPEG/WebP), without touching the audio
  packets or the image pixels; the read-back metadata equals the request.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from benchsmith.errors import InputRejectedError, ToolParamError
from benchsmith.tables import cell_text, read_table, table_format, write_table
from benchsmith.tools.context import Limits, ToolContext, check_input_file
from benchsmith.tools.media import (
    AUDIO_FORMATS,
    IMAGE_FORMATS,
    export_audio,
    ffprobe_json,
    load_audio,
    measure_audio,
    measure_image,
    open_image,
    pipe_pcm,
    probe_audio,
    run_ffmpeg,
    save_image,
)
from benchsmith.tools.registry import InputSpec, ToolOutput, ToolParams, discard_output, tool

if TYPE_CHECKING:
    from PIL import Image

# -- shared helpers ---------------------------------------------------------------------------

_SUFFIXES = {
    "wav": (".wav",),
    "mp3": (".mp3",),
    "ogg": (".ogg",),
    "flac": (".flac",),
    "png": (".png",),
    "jpeg": (".jpg", ".jpeg"),
    "webp": (".webp",),
    "csv": (".csv",),
    "jsonl": (".jsonl",),
    "parquet": (".parquet",),
}


def _output(ctx: ToolContext, params: ToolParams, fmt: str, stem: str, tool_name: str) -> Path:
    """The output path for ``fmt``; a requested ``output_name`` must carry a matching suffix."""
    suffixes = _SUFFIXES[fmt]
    if params.output_name and Path(params.output_name).suffix.lower() not in suffixes:
        raise ToolParamError(
            f"tool {tool_name}: output_name {params.output_name!r} must end in "
            f"{' or '.join(suffixes)} to hold {fmt}"
        )
    return ctx.output_for(params.output_name, suffixes[0], stem=stem)


# -- convert_audio -----------------------------------------------------------------------------

# A lossless or gapless-aware round trip gives the input's duration to the sample: ffmpeg
# writes the LAME encoder-delay/padding header into MP3 and exact granule positions into Ogg,
# and trims by them when decoding. The tolerance only absorbs resampling rounding (< 1 ms)
# and decoders that ignore the gapless header (an MP3 frame is 24-72 ms of padding; such a
# decoder is not the one used to measure here).
AUDIO_DURATION_TOLERANCE_S = 0.05
# Sample rates an MP3 stream can have (MPEG-1, -2 and -2.5 layer III).
MP3_RATES = (8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000)


class ConvertAudioParams(ToolParams):
    """Parameters of ``convert_audio``."""

    format: Literal["wav", "mp3", "ogg", "flac"] = Field(
        description="Output file type: wav (PCM 16-bit), mp3, ogg (Vorbis) or flac."
    )
    sample_rate: int | None = Field(
        default=None,
        ge=8000,
        le=48000,
        description="Output sample rate in Hz (e.g. 16000 for speech models); "
        "default: keep the input's rate. MP3 allows only 8000, 11025, 12000, 16000, 22050, "
        "24000, 32000, 44100 or 48000.",
    )
    channels: Literal[1, 2] | None = Field(
        default=None,
        description="Output channels: 1 (mono, the channels averaged) or 2 (stereo); "
        "default: keep the input's.",
    )


@tool("convert_audio", params=ConvertAudioParams, category="convert", inputs=InputSpec("audio"))
def convert_audio(ctx: ToolContext, params: ConvertAudioParams, inputs: list[Path]) -> ToolOutput:
    """Convert audio between wav, mp3, ogg and flac; optionally resample or make mono/stereo.

    The output decodes to the input's duration (within 50 ms) at the requested rate and
    channel count; encoding is bit-exact, so the same call writes the same bytes.
    """
    segment = load_audio(inputs[0], ctx.limits)
    in_duration = segment.frame_count() / segment.frame_rate
    rate = params.sample_rate or segment.frame_rate
    if params.format == "mp3" and rate not in MP3_RATES:
        source = "requested" if params.sample_rate else f"the input's rate of {inputs[0].name}"
        raise ToolParamError(
            f"tool convert_audio: mp3 cannot hold {rate} Hz ({source}); set sample_rate to "
            f"one of {', '.join(map(str, MP3_RATES))}"
        )
    if params.channels and params.channels != segment.channels:
        segment = segment.set_channels(params.channels)
    if rate != segment.frame_rate:
        segment = pipe_pcm(segment, ctx.limits, f"resampling to {rate} Hz", rate=rate)
    channels = segment.channels
    out = _output(ctx, params, params.format, inputs[0].stem, "convert_audio")
    export_audio(segment, out, ctx.limits)
    measured = measure_audio(out, ctx.limits)
    measured["input_duration_s"] = round(in_duration, 3)
    drift = abs(measured["duration_s"] - in_duration)
    if drift > AUDIO_DURATION_TOLERANCE_S:
        raise discard_output(
            out,
            f"convert_audio: {out.name} lasts {measured['duration_s']:.3f}s but "
            f"{inputs[0].name} lasts {in_duration:.3f}s (more than "
            f"{AUDIO_DURATION_TOLERANCE_S * 1000:.0f} ms apart)",
        )
    if measured["sample_rate"] != rate or measured["channels"] != channels:
        raise discard_output(
            out,
            f"convert_audio: {out.name} decodes at {measured['sample_rate']} Hz, "
            f"{measured['channels']} channel(s); expected {rate} Hz, {channels}",
        )
    return ToolOutput(files=[out], measured=measured)


# -- convert_image -----------------------------------------------------------------------------

# Modes each output type can hold as they are; anything else is converted first.
_PNG_MODES = {"1", "L", "LA", "I", "I;16", "P", "RGB", "RGBA"}


class ConvertImageParams(ToolParams):
    """Parameters of ``convert_image``."""

    format: Literal["png", "jpeg", "webp"] = Field(
        description="Output file type: png (lossless), jpeg or webp (both lossy)."
    )
    quality: int = Field(
        default=90,
        ge=1,
        le=100,
        description="Quality of jpeg/webp output, 1 (smallest, worst) to 100; ignored for png.",
    )


def _has_alpha(img: Image.Image) -> bool:
    return img.mode in ("RGBA", "LA", "PA", "RGBa", "La") or (
        img.mode == "P" and "transparency" in img.info
    )


def _prepare_image(img: Image.Image, fmt: str) -> Image.Image:
    """Bring an image into a mode the output type holds, keeping how it looks."""
    from PIL import Image

    if img.mode.startswith("I;16") and fmt != "png":
        img = img.convert("I")
    if img.mode == "I" and fmt != "png":
        img = img.point(lambda v: v / 256).convert("L")  # 16-bit grey to 8-bit
    if fmt == "jpeg":
        if _has_alpha(img):
            # JPEG has no transparency: flatten onto white rather than onto the hidden colours.
            rgba = img.convert("RGBA")
            white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
            return Image.alpha_composite(white, rgba).convert("RGB")
        return img if img.mode in ("RGB", "L") else img.convert("RGB")
    if fmt == "png" and img.mode not in _PNG_MODES:
        return img.convert("RGBA" if _has_alpha(img) else "RGB")
    if fmt == "webp" and img.mode not in ("RGB", "RGBA"):
        return img.convert("RGBA" if _has_alpha(img) else "RGB")
    return img


@tool("convert_image", params=ConvertImageParams, category="convert", inputs=InputSpec("image"))
def convert_image(ctx: ToolContext, params: ConvertImageParams, inputs: list[Path]) -> ToolOutput:
    """Convert an image between png, jpeg and webp (quality settable for jpeg/webp).

    The pixel size stays the same. An EXIF rotation is applied to the pixels (the output has
    no metadata, so it would otherwise display turned); transparency becomes white in jpeg.
    """
    from PIL import ImageOps

    img = open_image(inputs[0], ctx.limits)
    rotated = img.getexif().get(_EXIF_ORIENTATION, 1) not in (1, None)
    upright = ImageOps.exif_transpose(img) if rotated else img
    width, height = upright.size
    out = _output(ctx, params, params.format, inputs[0].stem, "convert_image")
    save_image(_prepare_image(upright, params.format), out, quality=params.quality)
    measured = measure_image(out, ctx.limits)
    measured["exif_rotation_applied"] = rotated
    if (measured["width"], measured["height"]) != (width, height):
        raise discard_output(
            out,
            f"convert_image: {out.name} is {measured['width']}x{measured['height']}, "
            f"expected {width}x{height}",
        )
    return ToolOutput(files=[out], measured=measured)


# -- tables ------------------------------------------------------------------------------------
# The table reader, its CSV cell grammar and the writer are shared with the catalog, in
# :mod:`benchsmith.tables`; ``read_table``, ``cell_text``, ``table_format`` and ``write_table``
# are re-exported here for callers that know them from this module.


class ConvertTableParams(ToolParams):
    """Parameters of ``convert_table``."""

    format: Literal["csv", "jsonl", "parquet"] = Field(
        description="Output file type: csv (with a header row), jsonl (one JSON object per "
        "line) or parquet."
    )
    infer_types: bool = Field(
        default=True,
        description="For csv input only: turn columns whose every value is an integer, a "
        "number or true/false into typed columns. False keeps every csv value as text, "
        "exactly as written (e.g. ids like 007).",
    )


@tool("convert_table", params=ConvertTableParams, category="convert", inputs=InputSpec("table"))
def convert_table(ctx: ToolContext, params: ConvertTableParams, inputs: list[Path]) -> ToolOutput:
    """Convert a table between csv, jsonl and parquet, keeping every row and the column order.

    Malformed input (a CSV row with the wrong number of fields, a line that is not a JSON
    object) is rejected with its line number. At most 5,000,000 rows.
    """
    table = read_table(inputs[0], ctx.limits, infer_types=params.infer_types)
    out = _output(ctx, params, params.format, inputs[0].stem, "convert_table")
    write_table(table, out, params.format)
    try:
        back = read_table(out, ctx.limits, infer_types=params.infer_types)
    except InputRejectedError as exc:
        raise discard_output(out, f"convert_table: {out.name} does not read back: {exc}") from exc
    measured = {
        "rows": back.num_rows,
        "columns": back.column_names,
        "types": [str(t) for t in table.schema.types],
        "format": params.format,
        "bytes": out.stat().st_size,
    }
    if back.num_rows != table.num_rows or back.column_names != table.column_names:
        raise discard_output(
            out,
            f"convert_table: {out.name} reads back as {back.num_rows} rows x "
            f"{back.column_names}, expected {table.num_rows} rows x {table.column_names}",
        )
    return ToolOutput(files=[out], measured=measured)


# -- edit_metadata -----------------------------------------------------------------------------

AUDIO_TAGS = ("title", "artist", "comment", "language")
# ffprobe reports these tags on files the tools wrote; they are not user metadata.
_TECHNICAL_TAGS = {"encoder", "vendor", "vendor_id"}
_EXIF_DESCRIPTION = 0x010E
_EXIF_ORIENTATION = 0x0112
_PNG_TEXT = (b"tEXt", b"zTXt", b"iTXt")


class EditMetadataParams(ToolParams):
    """Parameters of ``edit_metadata``."""

    tags: dict[str, str] = Field(
        default_factory=dict,
        max_length=32,
        description="Metadata to set, name to value. Audio (wav/mp3/ogg/flac): title, "
        "artist, comment, language. PNG: any text keyword (e.g. Title, Author, Description). "
        "JPEG/WebP: only 'description' (EXIF ImageDescription).",
    )
    remove: list[str] = Field(
        default_factory=list,
        max_length=32,
        description="Metadata names to delete (same names as in tags).",
    )
    clear_all: bool = Field(
        default=False,
        description="Drop all existing tags/text/EXIF/XMP first (an image's colour profile and "
        "EXIF orientation are kept, since they change how it displays).",
    )


def _check_tag_request(params: EditMetadataParams, kind: str, path: Path) -> None:
    names = [*params.tags, *params.remove]
    if not names and not params.clear_all:
        raise ToolParamError("tool edit_metadata: give tags to set, names to remove or clear_all")
    both = sorted(set(params.tags) & set(params.remove))
    if both:
        raise ToolParamError(f"tool edit_metadata: {both} both set and removed")
    for value in params.tags.values():
        if "\x00" in value or len(value) > 4000:
            raise ToolParamError(
                "tool edit_metadata: tag values must be at most 4000 characters, without NUL"
            )
    if kind == "audio":
        allowed: tuple[str, ...] = AUDIO_TAGS
    elif kind == "png":
        for name in names:
            if not (
                1 <= len(name) <= 79
                and name == name.strip()
                and all(32 <= ord(c) <= 126 or 161 <= ord(c) <= 255 for c in name)
            ):
                raise ToolParamError(
                    f"tool edit_metadata: {name!r} is not a PNG text keyword (1-79 Latin-1 "
                    "characters, no leading/trailing spaces)"
                )
        return
    else:
        allowed = ("description",)
    unknown = [n for n in names if n not in allowed]
    if unknown:
        raise ToolParamError(
            f"tool edit_metadata: {path.name} ({kind}) takes metadata names {list(allowed)}, "
            f"not {unknown}"
        )


def _ffprobe_tags(path: Path, limits: Limits) -> dict[str, str]:
    """Format and first-audio-stream tags of a file, names lowercased (stream tags win)."""
    data = ffprobe_json(
        path, ["-show_entries", "format_tags:stream_tags"], limits, f"output {path.name!r}"
    )
    tags = {k.lower(): v for k, v in (data.get("format", {}).get("tags") or {}).items()}
    for stream in data.get("streams") or []:
        tags.update({k.lower(): v for k, v in (stream.get("tags") or {}).items()})
    return tags


def _audio_packets_digest(path: Path, limits: Limits) -> bytes:
    """SHA-256 per audio stream of the (undecoded) audio packets."""
    return run_ffmpeg(
        ["-i", str(path), "-map", "0:a", "-c", "copy", "-f", "streamhash", "-hash", "sha256", "-"],
        limits,
        f"hashing {path.name!r}",
    )


def _edit_audio_tags(
    ctx: ToolContext, params: EditMetadataParams, src: Path, out: Path
) -> dict[str, Any]:
    probe_audio(src, ctx.limits)  # refuse non-audio and over-long inputs before ffmpeg reads it
    args = ["-i", str(src), "-map", "0", "-c", "copy"]
    # Ogg keeps its tags per stream (Vorbis comments); the other containers globally. Both are
    # written so every container sees the change, and cleared together.
    args += ["-map_metadata", "-1", "-map_metadata:s:a", "-1"] if params.clear_all else []
    args += ["-map_metadata", "0"] if not params.clear_all else []
    for name, value in [*params.tags.items(), *((n, "") for n in params.remove)]:
        args += ["-metadata", f"{name}={value}", "-metadata:s:a:0", f"{name}={value}"]
    args += ["-fflags", "+bitexact", "-flags:a", "+bitexact", str(out)]
    run_ffmpeg(args, ctx.limits, f"input {src.name!r}")
    if _audio_packets_digest(out, ctx.limits) != _audio_packets_digest(src, ctx.limits):
        raise discard_output(
            out, f"edit_metadata: the audio packets of {out.name} differ from {src.name}"
        )
    return _ffprobe_tags(out, ctx.limits)


def _png_chunks(data: bytes, path: Path) -> list[tuple[bytes, bytes]]:
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        raise InputRejectedError(f"input {path.name!r} is not a PNG file")
    chunks, pos = [], 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        if pos + 12 + length > len(data):
            raise InputRejectedError(f"input {path.name!r}: truncated PNG chunk {kind!r}")
        chunks.append((kind, data[pos + 8 : pos + 8 + length]))
        pos += 12 + length
        if kind == b"IEND":
            break
    return chunks


def _png_keyword(chunk: bytes) -> str:
    return chunk.split(b"\x00", 1)[0].decode("latin-1")


def _edit_png(params: EditMetadataParams, src: Path, out: Path) -> None:
    from PIL.PngImagePlugin import PngInfo

    chunks = _png_chunks(src.read_bytes(), src)
    replaced = set(params.tags) | set(params.remove)
    info = PngInfo()
    for name, value in params.tags.items():
        info.add_text(name, value)  # tEXt, or iTXt when the value is not Latin-1
    new = [(c[0], c[1]) for c in info.chunks]
    kept: list[tuple[bytes, bytes]] = []
    for kind, body in chunks:
        if kind in _PNG_TEXT and (params.clear_all or _png_keyword(body) in replaced):
            continue
        if params.clear_all and kind in (b"eXIf", b"tIME"):
            continue
        if kind == b"IDAT" and new:
            kept.extend(new)
            new = []
        kept.append((kind, body))
    blob = b"\x89PNG\r\n\x1a\n" + b"".join(
        struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        for kind, body in kept
    )
    out.write_bytes(blob)


def _exif_text(value: Any) -> str | None:
    """An EXIF ASCII value as Pillow reads it (Latin-1), re-read as the UTF-8 we wrote."""
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    text = str(value).rstrip("\x00")
    try:
        return text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text


def _new_exif(old: bytes | None, params: EditMetadataParams) -> bytes | None:
    """The EXIF (TIFF bytes, no ``Exif`` prefix) after the edit; None when nothing is left."""
    from PIL import Image

    exif = Image.Exif()
    if old:
        exif.load(old)
    if params.clear_all:
        orientation = exif.get(_EXIF_ORIENTATION)
        exif = Image.Exif()
        if orientation not in (None, 1):
            exif[_EXIF_ORIENTATION] = orientation
    if "description" in params.remove:
        exif.pop(_EXIF_DESCRIPTION, None)
    if "description" in params.tags:
        # EXIF calls the type ASCII; UTF-8 is what writers use in practice (exiftool).
        exif[_EXIF_DESCRIPTION] = params.tags["description"].encode("utf-8")
    if not len(exif):
        return None
    data = exif.tobytes()
    return data[6:] if data.startswith(b"Exif\x00\x00") else data


def _edit_jpeg(params: EditMetadataParams, src: Path, out: Path) -> None:
    data = src.read_bytes()
    if not data.startswith(b"\xff\xd8"):
        raise InputRejectedError(f"input {src.name!r} is not a JPEG file")
    segments: list[tuple[int, bytes]] = []
    pos, old_exif = 2, None
    while True:
        if pos + 4 > len(data) or data[pos] != 0xFF:
            raise InputRejectedError(f"input {src.name!r}: malformed JPEG marker at byte {pos}")
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker == 0xDA:  # start of scan: the rest is image data, copied as is
            break
        length = int.from_bytes(data[pos + 2 : pos + 4], "big")
        if marker in (0x01, 0xD8, *range(0xD0, 0xD8)) or length < 2 or pos + 2 + length > len(data):
            raise InputRejectedError(
                f"input {src.name!r}: unexpected JPEG marker 0xFF{marker:02X} at byte {pos}"
            )
        body = data[pos + 4 : pos + 2 + length]
        pos += 2 + length
        if marker == 0xE1 and body.startswith(b"Exif\x00\x00"):
            old_exif = old_exif or body[6:]
            continue
        drop = params.clear_all and (
            marker in (0xE1, 0xED, 0xFE, *range(0xE3, 0xED), 0xEF)
            or (marker == 0xE2 and not body.startswith(b"ICC_PROFILE\x00"))
        )
        if not drop:
            segments.append((marker, body))
    exif = _new_exif(old_exif, params)
    if exif is not None:
        body = b"Exif\x00\x00" + exif
        if len(body) > 65533:
            raise ToolParamError("tool edit_metadata: the EXIF block would exceed 64 KB")
        at = 1 if segments and segments[0][0] == 0xE0 else 0  # after JFIF APP0
        segments.insert(at, (0xE1, body))
    head = b"".join(bytes([0xFF, m]) + (len(b) + 2).to_bytes(2, "big") + b for m, b in segments)
    out.write_bytes(b"\xff\xd8" + head + data[pos:])


def _edit_webp(params: EditMetadataParams, src: Path, out: Path, size: tuple[int, int]) -> None:
    data = src.read_bytes()
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        raise InputRejectedError(f"input {src.name!r} is not a WebP file")
    chunks: list[tuple[bytes, bytes]] = []
    pos = 12
    while pos + 8 <= len(data):
        kind, length = data[pos : pos + 4], int.from_bytes(data[pos + 4 : pos + 8], "little")
        chunks.append((kind, data[pos + 8 : pos + 8 + length]))
        pos += 8 + length + (length & 1)
    old_exif = next((b for k, b in chunks if k == b"EXIF"), None)
    if old_exif is not None and old_exif.startswith(b"Exif\x00\x00"):
        old_exif = old_exif[6:]
    xmp = None if params.clear_all else next((b for k, b in chunks if k == b"XMP "), None)
    exif = _new_exif(old_exif, params)
    body = [(k, b) for k, b in chunks if k not in (b"VP8X", b"EXIF", b"XMP ")]
    vp8x = next((b for k, b in chunks if k == b"VP8X"), None)
    if vp8x is None and (exif or xmp):
        # A simple (VP8/VP8L-only) file: metadata needs the extended header.
        alpha = any(k == b"VP8L" and len(b) > 4 and b[4] & 0x10 for k, b in body)
        w, h = size
        vp8x = (
            bytes([0x10 if alpha else 0, 0, 0, 0])
            + struct.pack("<I", w - 1)[:3]
            + struct.pack("<I", h - 1)[:3]
        )
    if vp8x is not None:
        flags = vp8x[0] & ~0x0C | (0x08 if exif else 0) | (0x04 if xmp else 0)
        body.insert(0, (b"VP8X", bytes([flags]) + vp8x[1:]))
    body += [(b"EXIF", exif)] if exif else []
    body += [(b"XMP ", xmp)] if xmp else []
    payload = b"WEBP" + b"".join(
        k + struct.pack("<I", len(b)) + b + (b"\x00" if len(b) & 1 else b"") for k, b in body
    )
    out.write_bytes(b"RIFF" + struct.pack("<I", len(payload)) + payload)


def _image_metadata(path: Path, kind: str, limits: Limits) -> dict[str, Any]:
    """What Pillow reads back: PNG text, or the EXIF description and any other metadata."""
    from PIL import Image

    check_input_file(path, limits)
    with Image.open(path) as img:
        if kind == "png":
            img.load()
            return {"text": dict(img.text)}  # type: ignore[attr-defined]
        exif = img.getexif()
        return {
            "description": _exif_text(exif.get(_EXIF_DESCRIPTION)),
            "exif_tags": sorted(int(t) for t in exif),
            "xmp": bool(img.info.get("xmp")),
            "comment": bool(img.info.get("comment")),
        }


def _check_image_readback(params: EditMetadataParams, kind: str, meta: dict[str, Any]) -> str:
    """The first way the read-back metadata misses the request, or ''."""
    if kind == "png":
        text = meta["text"]
        for name, value in params.tags.items():
            if text.get(name) != value:
                return f"text {name!r} reads back as {text.get(name)!r}, not {value!r}"
        present = sorted(set(params.remove) & set(text))
        if present:
            return f"text {present} still present"
        extra = sorted(set(text) - set(params.tags))
        return f"clear_all left text {extra}" if params.clear_all and extra else ""
    wanted = params.tags.get("description")
    if "description" in params.tags and meta["description"] != wanted:
        return f"description reads back as {meta['description']!r}, not {wanted!r}"
    if "description" in params.remove and meta["description"] is not None:
        return "description still present"
    if params.clear_all:
        left = set(meta["exif_tags"]) - {_EXIF_DESCRIPTION, _EXIF_ORIENTATION}
        if left or meta["xmp"] or meta["comment"]:
            return f"clear_all left EXIF tags {sorted(left)}, XMP or a comment"
    return ""


@tool("edit_metadata", params=EditMetadataParams, category="convert", inputs=InputSpec("any"))
def edit_metadata(ctx: ToolContext, params: EditMetadataParams, inputs: list[Path]) -> ToolOutput:
    """Set/remove audio tags (title, artist, comment, language) or image text/EXIF description.

    Audio (wav/mp3/ogg/flac) is stream-copied, so its packets are unchanged; PNG text chunks
    and JPEG/WebP EXIF are edited in the container, so the pixels are unchanged. The output
    has the input's file type; the metadata read back from it equals the request.
    """
    src = inputs[0]
    suffix = src.suffix.lower()
    if suffix in AUDIO_FORMATS:
        kind = "audio"
    elif suffix in IMAGE_FORMATS:
        kind = IMAGE_FORMATS[suffix].lower()
    else:
        raise InputRejectedError(
            f"input {src.name!r}: edit_metadata takes {sorted(AUDIO_FORMATS)} audio or "
            f"{sorted(IMAGE_FORMATS)} images"
        )
    _check_tag_request(params, kind, src)
    fmt = AUDIO_FORMATS.get(suffix) or kind
    out = _output(ctx, params, fmt, src.stem, "edit_metadata")
    if out.resolve() == src.resolve():
        raise ToolParamError("tool edit_metadata: output_name must differ from the input file")
    if kind == "audio":
        tags = _edit_audio_tags(ctx, params, src, out)
        measured: dict[str, Any] = {"format": fmt, "tags": tags}
        for name, value in params.tags.items():
            if tags.get(name) != value:
                raise discard_output(
                    out,
                    f"edit_metadata: {out.name} tag {name} reads back as "
                    f"{tags.get(name)!r}, not {value!r}",
                )
        unwanted = set(params.remove) | (
            set(tags) - set(params.tags) - _TECHNICAL_TAGS if params.clear_all else set()
        )
        left = sorted(unwanted & set(tags))
        if left:
            raise discard_output(out, f"edit_metadata: {out.name} still has tags {left}")
        return ToolOutput(files=[out], measured=measured)
    before = open_image(src, ctx.limits)
    if kind == "png":
        _edit_png(params, src, out)
    elif kind == "jpeg":
        _edit_jpeg(params, src, out)
    else:
        _edit_webp(params, src, out, before.size)
    try:
        after = open_image(out, ctx.limits)
        meta = _image_metadata(out, kind, ctx.limits)
    except (InputRejectedError, OSError, SyntaxError, ValueError) as exc:
        raise discard_output(out, f"edit_metadata: {out.name} does not decode: {exc}") from exc
    if (after.mode, after.size) != (before.mode, before.size) or (
        after.tobytes() != before.tobytes()
    ):
        raise discard_output(out, f"edit_metadata: the pixels of {out.name} differ from {src.name}")
    problem = _check_image_readback(params, kind, meta)
    if problem:
        raise discard_output(out, f"edit_metadata: {out.name}: {problem}")
    measured = {"format": fmt, "width": after.width, "height": after.height, **meta}
    return ToolOutput(files=[out], measured=measured)


__all__ = [
    "AUDIO_DURATION_TOLERANCE_S",
    "cell_text",
    "convert_audio",
    "convert_image",
    "convert_table",
    "edit_metadata",
    "read_table",
    "table_format",
    "write_table",
]
