"""Decoding details of the shared media helpers."""

import wave

import numpy as np
import pytest

from benchsmith.tools.context import Limits
from benchsmith.tools.media import export_audio, load_audio, probe_audio, samples


def tone(path, width, seconds=0.5, rate=8000, amplitude=0.5):
    t = np.arange(int(seconds * rate)) / rate
    x = amplitude * np.sin(2 * np.pi * 440 * t)
    if width == 1:
        data = np.round(x * 127 + 128).astype(np.uint8).tobytes()
    else:
        data = np.round(x * (2 ** (8 * width - 1) - 1)).astype(f"<i{width}").tobytes()
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(data)
    return float(np.sqrt(np.mean(x**2)))


@pytest.mark.parametrize("width", [1, 2, 4])
def test_pcm_wav_of_every_width_decodes_to_the_right_level(tmp_path, width):
    expected = tone(tmp_path / "t.wav", width)
    seg = load_audio(tmp_path / "t.wav", Limits())
    assert seg.sample_width == 2 and len(seg) == 500
    rms = float(np.sqrt(np.mean(samples(seg) ** 2)))
    assert rms == pytest.approx(expected, rel=0.02)
    assert probe_audio(tmp_path / "t.wav", Limits()).codec == (
        "pcm_u8" if width == 1 else f"pcm_s{8 * width}le"
    )


def test_short_ogg_decodes_to_its_container_duration(tmp_path):
    tone(tmp_path / "t.wav", 2, seconds=0.3)
    seg = load_audio(tmp_path / "t.wav", Limits())
    export_audio(seg, tmp_path / "t.ogg", Limits())
    info = probe_audio(tmp_path / "t.ogg", Limits())
    assert abs(len(load_audio(tmp_path / "t.ogg", Limits())) - info.duration_s * 1000) <= 1
