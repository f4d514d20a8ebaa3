"""Conversion tools on real media: espeak-ng speech, numpy tones, Pillow images, tables."""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
import subprocess
import wave
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from benchsmith.errors import InputRejectedError, ToolParamError
from benchsmith.tools.context import ToolContext
from benchsmith.tools.media import load_audio, probe_audio
from benchsmith.tools.registry import run_tool

needs_ffmpeg = pytest.mark.skipif(
    shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None,
    reason="ffmpeg is not installed",
)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def out_path(ctx: ToolContext, result) -> Path:
    return ctx.media_dir / result.outputs[0]


# -- fixtures: real media ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def speech_wav(tmp_path_factory) -> Path:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed")
    path = tmp_path_factory.mktemp("speech") / "speech.wav"
    subprocess.run(
        ["espeak-ng", "-w", str(path), "Convert this sentence between audio formats."],
        check=True,
        timeout=60,
    )
    return path


@pytest.fixture(scope="module")
def tone_wav(tmp_path_factory) -> Path:
    """1.5 s stereo 44.1 kHz: 440 Hz left, 660 Hz right."""
    rate = 44100
    t = np.arange(int(1.5 * rate)) / rate
    stereo = np.stack([np.sin(2 * np.pi * 440 * t), np.sin(2 * np.pi * 660 * t)], axis=1)
    pcm = (0.5 * stereo * 32767).astype("<i2")
    path = tmp_path_factory.mktemp("tone") / "tone.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return path


@pytest.fixture
def ctx_factory(tmp_path):
    def make(seed: int = 0, name: str = "media") -> ToolContext:
        return ToolContext(media_dir=tmp_path / name, seed=seed)

    return make


# -- convert_audio -----------------------------------------------------------------------------


@needs_ffmpeg
@pytest.mark.parametrize("fmt", ["mp3", "ogg", "flac"])
def test_audio_wav_to_format_and_back(speech_wav, tool_ctx, ctx_factory, fmt):
    source = load_audio(speech_wav, tool_ctx.limits)
    duration = source.frame_count() / source.frame_rate
    there = run_tool("convert_audio", {"format": fmt}, [speech_wav], tool_ctx)
    encoded = out_path(tool_ctx, there)
    assert encoded.suffix == f".{fmt}"
    assert (
        probe_audio(encoded, tool_ctx.limits).codec
        == {
            "mp3": "mp3",
            "ogg": "vorbis",
            "flac": "flac",
        }[fmt]
    )
    measured = there.provenance.measured
    assert measured["sample_rate"] == source.frame_rate
    assert measured["channels"] == 1
    assert abs(measured["duration_s"] - duration) <= 0.05

    back = run_tool("convert_audio", {"format": "wav"}, [encoded], tool_ctx)
    decoded = load_audio(out_path(tool_ctx, back), tool_ctx.limits)
    assert decoded.frame_rate == source.frame_rate
    assert abs(decoded.frame_count() / decoded.frame_rate - duration) <= 0.05
    if fmt == "flac":  # lossless: the samples come back exactly
        assert decoded.raw_data == source.raw_data

    # Same seed and inputs in another media folder: byte-identical output.
    again = run_tool("convert_audio", {"format": fmt}, [speech_wav], ctx_factory(name="again"))
    assert again.provenance.outputs[0].sha256 == there.provenance.outputs[0].sha256
    assert sha(encoded) == there.provenance.outputs[0].sha256


@needs_ffmpeg
def test_audio_resample_and_channels(tone_wav, tool_ctx, ctx_factory):
    params = {"format": "mp3", "sample_rate": 16000, "channels": 1}
    result = run_tool("convert_audio", params, [tone_wav], tool_ctx)
    measured = result.provenance.measured
    assert (measured["sample_rate"], measured["channels"]) == (16000, 1)
    assert abs(measured["duration_s"] - 1.5) <= 0.05
    assert measured["input_duration_s"] == 1.5

    stereo = run_tool(
        "convert_audio", {"format": "ogg", "sample_rate": 22050}, [tone_wav], tool_ctx
    )
    assert (stereo.provenance.measured["sample_rate"], stereo.provenance.measured["channels"]) == (
        22050,
        2,
    )
    again = run_tool("convert_audio", params, [tone_wav], ctx_factory(name="again"))
    assert again.provenance.outputs[0].sha256 == result.provenance.outputs[0].sha256

    up = run_tool(
        "convert_audio", {"format": "flac", "channels": 2}, [out_path(tool_ctx, result)], tool_ctx
    )
    assert up.provenance.measured["channels"] == 2


@needs_ffmpeg
def test_audio_refusals(tone_wav, tool_ctx, tmp_path):
    with pytest.raises(ToolParamError, match="mp3 cannot hold 9000 Hz"):
        run_tool("convert_audio", {"format": "mp3", "sample_rate": 9000}, [tone_wav], tool_ctx)
    with pytest.raises(ToolParamError, match="sample_rate"):
        run_tool("convert_audio", {"format": "wav", "sample_rate": 4000}, [tone_wav], tool_ctx)
    with pytest.raises(ToolParamError, match="must end in .ogg"):
        run_tool("convert_audio", {"format": "ogg", "output_name": "x.mp3"}, [tone_wav], tool_ctx)
    fake = tmp_path / "fake.mp3"
    fake.write_bytes(b"this is not audio at all" * 10)
    with pytest.raises(InputRejectedError):
        run_tool("convert_audio", {"format": "wav"}, [fake], tool_ctx)


# -- convert_image -----------------------------------------------------------------------------


@pytest.fixture
def rgba_png(tmp_path) -> Path:
    rng = np.random.default_rng(1)
    pixels = rng.integers(0, 256, size=(48, 64, 4), dtype=np.uint8)
    pixels[:, :10, 3] = 0  # a transparent band
    path = tmp_path / "picture.png"
    Image.fromarray(pixels, "RGBA").save(path)
    return path


@pytest.mark.parametrize(
    ("src_fmt", "dst_fmt"),
    [("png", "jpeg"), ("png", "webp"), ("jpeg", "png"), ("webp", "png"), ("jpeg", "webp")],
)
def test_image_conversions(rgba_png, tool_ctx, ctx_factory, tmp_path, src_fmt, dst_fmt):
    src = rgba_png
    if src_fmt != "png":
        first = run_tool("convert_image", {"format": src_fmt}, [rgba_png], tool_ctx)
        src = out_path(tool_ctx, first)
    result = run_tool("convert_image", {"format": dst_fmt, "quality": 80}, [src], tool_ctx)
    out = out_path(tool_ctx, result)
    with Image.open(out) as img:
        assert img.format == {"png": "PNG", "jpeg": "JPEG", "webp": "WEBP"}[dst_fmt]
        assert img.size == (64, 48)
    assert result.provenance.measured["width"] == 64
    again = run_tool(
        "convert_image", {"format": dst_fmt, "quality": 80}, [src], ctx_factory(name="again")
    )
    assert again.provenance.outputs[0].sha256 == result.provenance.outputs[0].sha256


def test_image_png_to_jpeg_flattens_on_white(rgba_png, tool_ctx):
    result = run_tool("convert_image", {"format": "jpeg", "quality": 95}, [rgba_png], tool_ctx)
    with Image.open(out_path(tool_ctx, result)) as img:
        band = np.asarray(img.convert("RGB"))[:, :8]
    assert band.min() > 230  # the transparent band is white, not its hidden colours


def test_image_exif_rotation_applied(tmp_path, tool_ctx):
    src = tmp_path / "rotated.jpg"
    exif = Image.Exif()
    exif[0x0112] = 6  # display rotated 90 degrees clockwise
    Image.new("RGB", (40, 20), (200, 30, 30)).save(src, exif=exif.tobytes())
    result = run_tool("convert_image", {"format": "png"}, [src], tool_ctx)
    measured = result.provenance.measured
    assert (measured["width"], measured["height"]) == (20, 40)
    assert measured["exif_rotation_applied"] is True


def test_image_refuses_non_image(tmp_path, tool_ctx):
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not a png" * 20)
    with pytest.raises(InputRejectedError, match="not a readable image"):
        run_tool("convert_image", {"format": "jpeg"}, [bad], tool_ctx)


# -- convert_table -----------------------------------------------------------------------------

CSV_TEXT = (
    "id,name,score,passed,note\n"
    '1,Ada,0.5,true,"first, with comma"\n'
    '2,Bob,2.25,false,"says ""hi"""\n'
    "3,Çelik,,true,\n"
    '4,"multi\nline",-1.5,false,ünïcode ✓\n'
)


def read_csv_rows(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.reader(fh))


@pytest.fixture
def table_csv(tmp_path) -> Path:
    path = tmp_path / "table.csv"
    path.write_text(CSV_TEXT, encoding="utf-8", newline="")
    return path


def test_table_round_trip_csv_parquet_jsonl_csv(table_csv, tool_ctx, ctx_factory):
    parquet = run_tool("convert_table", {"format": "parquet"}, [table_csv], tool_ctx)
    measured = parquet.provenance.measured
    assert measured["rows"] == 4
    assert measured["columns"] == ["id", "name", "score", "passed", "note"]
    assert measured["types"] == ["int64", "string", "double", "bool", "string"]
    jsonl = run_tool("convert_table", {"format": "jsonl"}, [out_path(tool_ctx, parquet)], tool_ctx)
    lines = out_path(tool_ctx, jsonl).read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[2]) == {
        "id": 3,
        "name": "Çelik",
        "score": None,
        "passed": True,
        "note": "",
    }
    assert list(json.loads(lines[0])) == measured["columns"]
    back = run_tool("convert_table", {"format": "csv"}, [out_path(tool_ctx, jsonl)], tool_ctx)
    assert read_csv_rows(out_path(tool_ctx, back)) == read_csv_rows(table_csv)

    # Deterministic: two writes of the same parquet are byte-identical.
    again = run_tool("convert_table", {"format": "parquet"}, [table_csv], ctx_factory(name="b"))
    assert again.provenance.outputs[0].sha256 == parquet.provenance.outputs[0].sha256


def test_table_parquet_options(table_csv, tool_ctx):
    import pyarrow.parquet as pq

    result = run_tool("convert_table", {"format": "parquet"}, [table_csv], tool_ctx)
    meta = pq.ParquetFile(out_path(tool_ctx, result)).metadata
    column = meta.row_group(0).column(0)
    assert column.compression == "SNAPPY"
    assert column.statistics is not None and column.statistics.min == 1


def test_table_infer_types_off_keeps_text(tmp_path, tool_ctx):
    src = tmp_path / "ids.csv"
    src.write_text("code,n\n007,1.50\n010,2\n", encoding="utf-8")
    result = run_tool("convert_table", {"format": "jsonl", "infer_types": False}, [src], tool_ctx)
    rows = [json.loads(x) for x in out_path(tool_ctx, result).read_text().splitlines()]
    assert rows == [{"code": "007", "n": "1.50"}, {"code": "010", "n": "2"}]
    typed = run_tool("convert_table", {"format": "jsonl"}, [src], tool_ctx)
    rows = [json.loads(x) for x in out_path(tool_ctx, typed).read_text().splitlines()]
    assert rows == [{"code": "007", "n": 1.5}, {"code": "010", "n": 2.0}]  # 007 is no integer


def test_table_malformed_csv_names_line(tmp_path, tool_ctx):
    src = tmp_path / "bad.csv"
    src.write_text("a,b\n1,2\n3,4\n5,6,7\n", encoding="utf-8")
    # One CSV reader with the catalog (benchsmith.tables), so its wording: row, then line.
    with pytest.raises(InputRejectedError, match=r"bad.csv'?: row 3 \(line 4\) has 3 fields.* 2"):
        run_tool("convert_table", {"format": "parquet"}, [src], tool_ctx)
    quote = tmp_path / "quote.csv"
    quote.write_text('a,b\n1,2\n"x"y,3\n', encoding="utf-8")
    with pytest.raises(InputRejectedError, match=r"quote.csv'?: line 3: CSV syntax error"):
        run_tool("convert_table", {"format": "jsonl"}, [quote], tool_ctx)


def test_table_malformed_jsonl_names_line(tmp_path, tool_ctx):
    src = tmp_path / "bad.jsonl"
    src.write_text('{"a": 1}\n\n{"a": 2}\n{"a": 3,}\n', encoding="utf-8")
    with pytest.raises(InputRejectedError, match=r"bad.jsonl'?: line 4: bad JSON"):
        run_tool("convert_table", {"format": "csv"}, [src], tool_ctx)
    arr = tmp_path / "arr.jsonl"
    arr.write_text('{"a": 1}\n[1, 2]\n', encoding="utf-8")
    with pytest.raises(InputRejectedError, match=r"line 2: an array, not a JSON object"):
        run_tool("convert_table", {"format": "csv"}, [arr], tool_ctx)
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text('{"a": 1}\n{"a": 2}\n{"a": "three"}\n', encoding="utf-8")
    with pytest.raises(InputRejectedError, match=r"column 'a' mixes.*line 3 has a string"):
        run_tool("convert_table", {"format": "parquet"}, [mixed], tool_ctx)


def test_table_jsonl_union_of_keys_in_order(tmp_path, tool_ctx):
    src = tmp_path / "sparse.jsonl"
    src.write_text('{"b": 1, "a": "x"}\n{"c": [1, 2], "a": "y"}\n', encoding="utf-8")
    result = run_tool("convert_table", {"format": "csv"}, [src], tool_ctx)
    assert result.provenance.measured["columns"] == ["b", "a", "c"]
    assert read_csv_rows(out_path(tool_ctx, result)) == [
        ["b", "a", "c"],
        ["1", "x", ""],
        ["", "y", "[1,2]"],
    ]


def test_table_duplicate_header_rejected(tmp_path, tool_ctx):
    src = tmp_path / "dup.csv"
    src.write_text("a,b,a\n1,2,3\n", encoding="utf-8")
    with pytest.raises(InputRejectedError, match="repeated column name.*: a$"):
        run_tool("convert_table", {"format": "jsonl"}, [src], tool_ctx)


# -- edit_metadata -----------------------------------------------------------------------------


@needs_ffmpeg
@pytest.mark.parametrize("fmt", ["wav", "mp3", "ogg", "flac"])
def test_audio_metadata_set_remove_clear(speech_wav, tool_ctx, ctx_factory, fmt):
    src = speech_wav
    if fmt != "wav":
        src = out_path(tool_ctx, run_tool("convert_audio", {"format": fmt}, [speech_wav], tool_ctx))
    tags = {"title": "Quiz 1 – écoute", "artist": "benchsmith", "comment": "q1", "language": "eng"}
    tagged = run_tool("edit_metadata", {"tags": tags}, [src], tool_ctx)
    out = out_path(tool_ctx, tagged)
    assert out.suffix == f".{fmt}"
    read = tagged.provenance.measured["tags"]
    assert {k: read[k] for k in tags} == tags
    again = run_tool("edit_metadata", {"tags": tags}, [src], ctx_factory(name="again"))
    assert again.provenance.outputs[0].sha256 == tagged.provenance.outputs[0].sha256
    # The audio is untouched: same decoded samples.
    assert load_audio(out, tool_ctx.limits).raw_data == load_audio(src, tool_ctx.limits).raw_data

    removed = run_tool(
        "edit_metadata", {"tags": {"artist": "someone"}, "remove": ["title"]}, [out], tool_ctx
    )
    read = removed.provenance.measured["tags"]
    assert "title" not in read
    assert read["artist"] == "someone"
    assert read["comment"] == "q1"

    cleared = run_tool(
        "edit_metadata", {"clear_all": True, "tags": {"language": "fra"}}, [out], tool_ctx
    )
    read = cleared.provenance.measured["tags"]
    assert read.get("language") == "fra"
    assert not {"title", "artist", "comment"} & set(read)


@needs_ffmpeg
def test_audio_metadata_refuses_unknown_tag(speech_wav, tool_ctx):
    with pytest.raises(ToolParamError, match="takes metadata names"):
        run_tool("edit_metadata", {"tags": {"album": "x"}}, [speech_wav], tool_ctx)
    with pytest.raises(ToolParamError, match="give tags"):
        run_tool("edit_metadata", {}, [speech_wav], tool_ctx)


@pytest.fixture
def texted_png(tmp_path) -> Path:
    info = PngInfo()
    info.add_text("Author", "someone")
    info.add_text("Software", "old tool")
    path = tmp_path / "texted.png"
    Image.fromarray(np.random.default_rng(2).integers(0, 256, (20, 30, 3), dtype=np.uint8)).save(
        path, pnginfo=info
    )
    return path


def test_png_text_set_remove_clear(texted_png, tool_ctx, ctx_factory):
    params = {"tags": {"Title": "Item 7", "Description": "ünïcode ✓"}, "remove": ["Software"]}
    result = run_tool("edit_metadata", params, [texted_png], tool_ctx)
    out = out_path(tool_ctx, result)
    with Image.open(out) as img:
        assert img.text == {"Author": "someone", "Title": "Item 7", "Description": "ünïcode ✓"}
        pixels = img.convert("RGB").tobytes()
    with Image.open(texted_png) as img:
        assert pixels == img.convert("RGB").tobytes()
    assert result.provenance.measured["text"]["Title"] == "Item 7"
    again = run_tool("edit_metadata", params, [texted_png], ctx_factory(name="again"))
    assert again.provenance.outputs[0].sha256 == result.provenance.outputs[0].sha256

    cleared = run_tool("edit_metadata", {"clear_all": True}, [out], tool_ctx)
    with Image.open(out_path(tool_ctx, cleared)) as img:
        assert img.text == {}


@pytest.mark.parametrize("fmt", ["jpeg", "webp"])
def test_exif_description_and_strip(tmp_path, tool_ctx, fmt):
    src = tmp_path / f"photo.{'jpg' if fmt == 'jpeg' else 'webp'}"
    exif = Image.Exif()
    exif[0x0112] = 3  # upside down: kept by clear_all
    exif[0x010F] = "CameraMaker"  # Make: dropped by clear_all
    img = Image.fromarray(np.random.default_rng(3).integers(0, 256, (24, 32, 3), dtype=np.uint8))
    img.save(src, exif=exif.tobytes(), quality=85)
    with Image.open(src) as before:
        before_pixels = before.tobytes()

    result = run_tool("edit_metadata", {"tags": {"description": "A cat, ünïcode"}}, [src], tool_ctx)
    out = out_path(tool_ctx, result)
    assert result.provenance.measured["description"] == "A cat, ünïcode"
    with Image.open(out) as after:
        assert after.tobytes() == before_pixels
        assert after.getexif()[0x010F] == "CameraMaker"

    stripped = run_tool("edit_metadata", {"clear_all": True}, [out], tool_ctx)
    measured = stripped.provenance.measured
    assert measured["description"] is None
    assert measured["exif_tags"] == [0x0112]
    with Image.open(out_path(tool_ctx, stripped)) as after:
        assert after.tobytes() == before_pixels

    with pytest.raises(ToolParamError, match=r"takes metadata names \['description'\]"):
        run_tool("edit_metadata", {"tags": {"Title": "x"}}, [src], tool_ctx)


def test_webp_simple_file_gains_extended_header(tmp_path, tool_ctx):
    src = tmp_path / "simple.webp"
    Image.new("RGBA", (9, 7), (10, 20, 30, 128)).save(src, lossless=True)
    assert src.read_bytes()[12:16] == b"VP8L"
    result = run_tool("edit_metadata", {"tags": {"description": "alpha"}}, [src], tool_ctx)
    out = out_path(tool_ctx, result)
    assert out.read_bytes()[12:16] == b"VP8X"
    with Image.open(out) as img, Image.open(src) as before:
        assert img.mode == "RGBA" and img.tobytes() == before.tobytes()
    assert result.provenance.measured["description"] == "alpha"
