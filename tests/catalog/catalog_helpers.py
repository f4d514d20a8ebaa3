"""Helpers for catalog tests: real data files of every format (PNG, WAV, Arrow, JSONL)."""

from __future__ import annotations

import json
import math
import struct
import wave
from pathlib import Path


def write_jsonl(path: Path, records: list, *, raw_lines: dict[int, str] | None = None) -> Path:
    """Write records as JSON Lines; ``raw_lines`` replaces given (1-based) lines verbatim."""
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    for line_no, text in (raw_lines or {}).items():
        lines[line_no - 1] = text
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_png(path: Path, color: tuple[int, int, int], size: tuple[int, int] = (16, 12)) -> Path:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, color).save(path, format="PNG")
    return path


def write_wav(path: Path, freq: float = 440.0, seconds: float = 0.2, rate: int = 8000) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    n = int(seconds * rate)
    frames = b"".join(
        struct.pack("<h", int(8000 * math.sin(2 * math.pi * freq * i / rate))) for i in range(n)
    )
    with wave.open(str(path), "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(rate)
        handle.writeframes(frames)
    return path


def write_arrow_stream(path: Path, table) -> Path:
    """An Arrow IPC *stream* file, the layout ``datasets.Dataset.save_to_disk`` writes."""
    import pyarrow as pa

    path.parent.mkdir(parents=True, exist_ok=True)
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table, max_chunksize=2)
    return path


def make_hf_saved(folder: Path, rows: int = 6) -> Path:
    """A ``Dataset.save_to_disk`` folder: dataset_info.json, state.json, one .arrow file."""
    import pyarrow as pa

    table = pa.table(
        {
            "text": [f"review number {i}, {'great' if i % 2 else 'bad'} film" for i in range(rows)],
            "label": [i % 2 for i in range(rows)],
        }
    )
    write_arrow_stream(folder / "data-00000-of-00001.arrow", table)
    (folder / "dataset_info.json").write_text(
        json.dumps(
            {
                "description": "Tiny movie reviews with sentiment labels.",
                "license": "cc-by-4.0",
                "features": {
                    "text": {"dtype": "string", "_type": "Value"},
                    "label": {"names": ["neg", "pos"], "_type": "ClassLabel"},
                },
            }
        ),
        encoding="utf-8",
    )
    (folder / "state.json").write_text(
        json.dumps(
            {
                "_data_files": [{"filename": "data-00000-of-00001.arrow"}],
                "_fingerprint": "abc",
                "_format_type": None,
                "_split": "train",
            }
        ),
        encoding="utf-8",
    )
    return folder


def make_qa_jsonl(tmp_path: Path) -> Path:
    records = [
        {
            "id": f"q{i}",
            "question": f"What is the capital of country number {i}?",
            "answer": f"City {i}",
            "topic": ["geography", "history", "science"][i % 3],
            "meta": {"difficulty": i % 3 + 1, "verified": i % 2 == 0},
        }
        for i in range(30)
    ]
    return write_jsonl(tmp_path / "capitals_qa.jsonl", records)


def make_image_folder(tmp_path: Path) -> Path:
    root = tmp_path / "pets"
    for i in range(3):
        write_png(root / "cat" / f"cat{i}.png", (200, 100 + i, 50))
        write_png(root / "dog" / f"dog{i}.png", (50, 100 + i, 200))
    return root


def make_audio_folder(tmp_path: Path) -> Path:
    root = tmp_path / "speech"
    rows = ["file_name,transcript,speaker"]
    for i in range(4):
        write_wav(root / "clips" / f"clip{i}.wav", freq=300 + 50 * i)
        rows.append(f"clips/clip{i}.wav,hello number {i},{'ann' if i % 2 else 'bob'}")
    (root / "metadata.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return root
