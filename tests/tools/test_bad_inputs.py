"""A corpus of hostile and broken inputs: each gives a clear, typed error in under 2 s."""

import io
import os
import struct
import time
import wave
import zlib

import pytest

from benchsmith.errors import InputRejectedError
from benchsmith.tools.context import Limits
from benchsmith.tools.media import load_audio, open_image, probe_audio
from benchsmith.tools.registry import run_tool


def png_declaring(width: int, height: int) -> bytes:
    """A PNG whose header declares width x height but carries almost no pixel data."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def wav_bytes(seconds: float, rate: int = 16000) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"\x01\x00" * int(seconds * rate))
    return buf.getvalue()


def wav_declaring(seconds: float, rate: int = 16000, actual_seconds: float = 1.0) -> bytes:
    """A WAV header declaring ``seconds`` of audio, followed by ``actual_seconds`` of it."""
    data_bytes = int(seconds * rate) * 2
    header = (
        b"RIFF"
        + struct.pack("<I", 36 + data_bytes)
        + b"WAVE"
        + b"fmt "
        + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16)
        + b"data"
        + struct.pack("<I", data_bytes)
    )
    return header + b"\x00\x00" * int(actual_seconds * rate)


CORPUS = {
    "png_20000x20000.png": lambda: png_declaring(20000, 20000),
    "png_10000x10000.png": lambda: png_declaring(10000, 10000),
    "truncated.wav": lambda: wav_bytes(4.0)[: len(wav_bytes(4.0)) // 3],
    "random_bytes.mp3": lambda: os.urandom(8192),
    "ten_hours.wav": lambda: wav_declaring(36000),
    "empty.wav": lambda: b"",
    "empty.png": lambda: b"",
}

EXPECTED = {
    "png_20000x20000.png": "declares 20000x20000 = 400000000 pixels",
    "png_10000x10000.png": "declares 10000x10000 = 100000000 pixels",
    "truncated.wav": "truncated WAV",
    "random_bytes.mp3": "random_bytes.mp3",
    "ten_hours.wav": "declares 36000s of audio",
    "empty.wav": "is empty",
    "empty.png": "is empty",
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bad")
    for name, make in CORPUS.items():
        (folder / name).write_bytes(make())
    return folder


def reader(name):
    limits = Limits()
    if name.endswith(".png"):
        return lambda p: open_image(p, limits)
    return lambda p: load_audio(p, limits)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_media_readers_refuse_each_bad_input_quickly(corpus, name):
    started = time.monotonic()
    with pytest.raises(InputRejectedError) as info:
        reader(name)(corpus / name)
    assert time.monotonic() - started < 2.0
    assert EXPECTED[name] in str(info.value)
    assert name in str(info.value)  # the message names the input


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_tools_refuse_each_bad_input_quickly_and_write_nothing(corpus, name, tool_ctx):
    if name.endswith(".png"):
        call = ("image_resize", {"width": 8, "height": 8})
    else:
        call = ("audio_gain", {"gain_db": -3.0})
    started = time.monotonic()
    with pytest.raises(InputRejectedError) as info:
        run_tool(call[0], call[1], [corpus / name], tool_ctx)
    assert time.monotonic() - started < 2.0
    assert EXPECTED[name] in str(info.value)
    assert not tool_ctx.media_dir.exists() or not any(tool_ctx.media_dir.rglob("*"))


def test_a_real_wav_and_png_pass(tmp_path):
    (tmp_path / "ok.wav").write_bytes(wav_bytes(1.5))
    info = probe_audio(tmp_path / "ok.wav", Limits())
    assert (info.duration_s, info.sample_rate, info.channels) == (1.5, 16000, 1)
    assert len(load_audio(tmp_path / "ok.wav", Limits())) == 1500
    from PIL import Image

    Image.new("RGB", (30, 20)).save(tmp_path / "ok.png")
    assert open_image(tmp_path / "ok.png", Limits()).size == (30, 20)


def test_limits_are_configurable(tmp_path):
    (tmp_path / "two.wav").write_bytes(wav_bytes(2.0))
    with pytest.raises(InputRejectedError, match="over the 1s limit"):
        probe_audio(tmp_path / "two.wav", Limits(max_audio_seconds=1))
    with pytest.raises(InputRejectedError, match="over the 10-byte limit"):
        probe_audio(tmp_path / "two.wav", Limits(max_file_bytes=10))
