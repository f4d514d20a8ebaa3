"""Small helpers the tool tests share: hashes, output paths, reading WAV samples."""

from __future__ import annotations

import hashlib
import wave
from pathlib import Path

import numpy as np

from benchsmith.tools.context import ToolContext


def sha(path: Path) -> str:
    """SHA-256 of a file."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def output(ctx: ToolContext, result) -> Path:
    """The first output file of a tool result."""
    return ctx.media_dir / result.outputs[0]


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    """Samples of a 16-bit WAV as floats, shape (frames, channels), read with ``wave``."""
    with wave.open(str(path), "rb") as w:
        rate, channels = w.getframerate(), w.getnchannels()
        data = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    return data.reshape(-1, channels).astype(np.float64) / 32768.0, rate
