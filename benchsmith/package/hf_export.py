"""The Hugging Face split of a benchmark folder: media as real ``datasets`` features.

``data/test.jsonl`` stays the Inspect-style source of truth (Inspect, lm-eval and
``benchsmith eval`` read it), but its shape changes from one benchmark to the next (``input``
is a string or chat messages, ``choices`` is absent from some) and its media are paths inside
JSON. From it, :func:`write_hf_split` writes two Parquet files with pyarrow (already a
dependency), each holding the ``datasets`` feature metadata in its Arrow schema (the
``huggingface`` key) so ``datasets`` decodes them without further help:

- ``data/hf/test-DIGEST.parquet``, the card's ``default`` config: one schema for every
  benchmark (:data:`HF_COLUMNS`), the item's image and audio embedded as bytes in an
  ``Image()`` and an ``Audio()`` column, so ``load_dataset(BENCH)`` gives PIL images and
  audio without joining paths by hand, the Hub viewer shows the media, and two benchmarks
  concatenate.
- ``data/inspect/test-DIGEST.parquet``, the ``inspect`` config: ``data/test.jsonl`` row for
  row, in its own fields (``input`` and ``metadata`` as ``Json()``). It exists because
  ``datasets`` reads every config of a folder with the one builder it infers from the first
  config's files (huggingface/datasets#7101, still so in 5.2.0): a config pointing at the
  jsonl beside a Parquet default cannot be loaded, so the Inspect-style view is offered in
  Parquet too.

An item has at most one image and one audio clip when benchsmith builds it (one per input
modality); an item that has none leaves the column null, and one with more (only a
hand-written item can) keeps its first of each kind in the columns and all of them in the
``inspect`` config's ``input``. The card says so (:func:`benchsmith.package.card.render_card`).

``DIGEST`` is the start of the file's SHA-256. ``datasets`` caches a local folder under its
name and its card's configs, not its files' contents: with fixed file names, a folder whose
items changed (a review, a refill), or another folder of the same name, would load the
items cached before. A name that changes with the bytes makes the card change with them.
:func:`remove_stale` deletes the files of earlier writes once the card points at the new ones.

Both files are written atomically and deterministically: the same ``data/test.jsonl`` and
media give the same bytes, hence the same names (pyarrow records its own version in the
footer's ``created_by``, so another pyarrow version writes a few different bytes). The rows
stream through in row groups of :data:`ROW_GROUP_ROWS`, so at most one group's media is
held in memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

import pyarrow as pa
import pyarrow.parquet as pq

from benchsmith.errors import ExportError
from benchsmith.files import HashedPath, atomic_hashed_path, json_line
from benchsmith.item import Item
from benchsmith.layout import FolderError, data_path, json_lines, line_item

HF_CONFIG = "default"
INSPECT_CONFIG = "inspect"
SPLIT = "test"
SPLIT_DIRS = {HF_CONFIG: "data/hf", INSPECT_CONFIG: "data/inspect"}
"""The folder of each config's file, ``test-DIGEST.parquet``."""
SPLIT_GLOBS = {config: f"{folder}/{SPLIT}-*.parquet" for config, folder in SPLIT_DIRS.items()}
"""Each config's file as a pattern (what a card shows before the files are written)."""
ROW_GROUP_ROWS = 100
"""Rows per Parquet row group: what ``datasets`` itself uses for image and audio data, small
enough for the Hub viewer to page through media."""

Kind = Literal["string", "strings", "image", "audio", "json"]


@dataclass(frozen=True)
class Column:
    """One column of a split: its name, its kind and what it holds (for the card)."""

    name: str
    kind: Kind
    doc: str


HF_COLUMNS: tuple[Column, ...] = (
    Column("id", "string", "unique item id (the same as in `data/test.jsonl`)"),
    Column(
        "question",
        "string",
        "the item's user text (for a spoken item, the instruction shown with the recording; "
        "the spoken words are in `metadata.spoken_text`)",
    ),
    Column("choices", "strings", "the options of a multiple-choice item; an empty list otherwise"),
    Column(
        "target",
        "string",
        "the letter of the right choice (`A`, `B`, ...) when there are choices, else the answer",
    ),
    Column(
        "answer",
        "string",
        "the answer as text: the right choice's text for multiple choice, else the target",
    ),
    Column("subtask", "string", "the subtask id (see the subtask table)"),
    Column("language", "string", "the item's language code, or null"),
    Column(
        "difficulty",
        "string",
        "`easy`, `medium` or `hard`: predicted from the generator's parameters (see "
        "`metadata.difficulty_model`), else the subtask's design label; null when unknown",
    ),
    Column(
        "modality",
        "string",
        "the input's modalities joined by `+`: `text`, `text+image`, `text+audio` or "
        "`text+image+audio`",
    ),
    Column(
        "image",
        "image",
        "the item's image, its bytes embedded (decoded to a `PIL.Image.Image`), or null",
    ),
    Column(
        "audio",
        "audio",
        "the item's audio clip, its bytes embedded in the file's own format (WAV unless a "
        "plan step chose another), or null",
    ),
    Column(
        "metadata",
        "string",
        "the item's whole `metadata` as JSON text (`json.loads` it): answer format, skills, "
        "source record, transformation trace, verification verdicts, solution graph",
    ),
)
"""The ``default`` config's schema, the same for every benchmark."""

INSPECT_COLUMNS: tuple[Column, ...] = (
    Column("id", "string", "unique item id"),
    Column("input", "json", "the prompt: a string or chat messages, as in `data/test.jsonl`"),
    Column("choices", "strings", "the options of a multiple-choice item, else null"),
    Column("target", "string", "the letter of the right choice, else the answer"),
    Column("metadata", "json", "the item's metadata"),
)
"""The ``inspect`` config's schema: the fields of ``data/test.jsonl``."""

_MEDIA = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
_ARROW: dict[Kind, pa.DataType] = {
    "string": pa.string(),
    "strings": pa.list_(pa.string()),
    "image": _MEDIA,
    "audio": _MEDIA,
    "json": pa.json_(),
}
_VALUE = {"dtype": "string", "_type": "Value"}
# Each kind as ``datasets.Features.to_dict()`` writes it (datasets 4 and later).
_FEATURE: dict[Kind, dict[str, Any]] = {
    "string": _VALUE,
    "strings": {"feature": _VALUE, "_type": "List"},
    "image": {"_type": "Image"},
    "audio": {"_type": "Audio"},
    "json": {"_type": "Json"},
}
# ... and as the card's ``dataset_info.features`` (``Features._to_yaml_list()``) writes it.
_YAML: dict[Kind, dict[str, str]] = {
    "string": {"dtype": "string"},
    "strings": {"list": "string"},
    "image": {"dtype": "image"},
    "audio": {"dtype": "audio"},
    "json": {"dtype": "json"},
}
_WRITER_OPTIONS: dict[str, Any] = {"compression": "snappy", "version": "2.6"}
# Column statistics (min and max in the footer) only for short text: for a media or JSON
# column they would copy two whole values into the footer of every row group.
_STATISTICS = ("id", "subtask", "language", "difficulty", "modality")


def features(columns: tuple[Column, ...] = HF_COLUMNS) -> dict[str, Any]:
    """The columns' ``datasets`` features, as ``datasets.Features.to_dict()`` gives them."""
    return {c.name: dict(_FEATURE[c.kind]) for c in columns}


def features_yaml(columns: tuple[Column, ...] = HF_COLUMNS) -> list[dict[str, str]]:
    """The columns' features as a dataset card's ``dataset_info.features`` list."""
    return [{"name": c.name, **_YAML[c.kind]} for c in columns]


def arrow_schema(columns: tuple[Column, ...] = HF_COLUMNS) -> pa.Schema:
    """The Arrow schema of a split, with its ``datasets`` features in the metadata."""
    info = json.dumps({"info": {"features": features(columns)}})
    return pa.schema(
        [pa.field(c.name, _ARROW[c.kind]) for c in columns], metadata={"huggingface": info}
    )


def _writer_options(schema: pa.Schema) -> dict[str, Any]:
    return {**_WRITER_OPTIONS, "write_statistics": [n for n in _STATISTICS if n in schema.names]}


@dataclass
class HfExport:
    """What :func:`write_hf_split` wrote.

    Attributes:
        n_items: Rows in each file (every item of ``data/test.jsonl``).
        n_images: Rows with an image.
        n_audio: Rows with an audio clip.
        extra_media: Items with more than one image or audio clip (only the first of each
            kind is in the columns).
        files: The file of each config, relative to the folder.
    """

    n_items: int = 0
    n_images: int = 0
    n_audio: int = 0
    extra_media: int = 0
    files: dict[str, str] = field(default_factory=dict)


def data_lines(path: Path) -> Iterator[tuple[int, Any]]:
    """Each non-blank line of ``data/test.jsonl`` parsed: ``(line number, value)``.

    The one reader of the file is :func:`benchsmith.layout.json_lines`; this names the
    export's own error.

    Raises:
        ExportError: The file is missing or a line is not JSON.
    """
    if not path.is_file():
        raise ExportError(f"{path} does not exist; write the items before exporting them")
    try:
        yield from json_lines(path)
    except FolderError as exc:
        raise ExportError(str(exc)) from exc


def read_records(path: Path) -> Iterator[tuple[dict[str, Any], Item]]:
    """Each line of ``data/test.jsonl``: the record as written and the item it holds.

    Raises:
        ExportError: The file is missing, or a line is not JSON or not an item.
    """
    for number, record in data_lines(path):
        try:
            item = line_item(path, number, record)
        except FolderError as exc:
            raise ExportError(str(exc)) from exc
        yield record, item


def _media(bench_dir: Path, item_id: str, relative: str) -> dict[str, Any]:
    """A media part as an ``Image``/``Audio`` value: the file's bytes and its folder path."""
    root = bench_dir.resolve()
    path = (bench_dir / relative).resolve()
    if not path.is_relative_to(root):
        raise ExportError(f"item {item_id}: its media path {relative!r} leads outside {root}")
    if not path.is_file():
        raise ExportError(
            f"item {item_id}: its media file {relative} is missing from {bench_dir}; "
            "rebuild the folder (benchsmith build --resume) or restore the file"
        )
    return {"bytes": path.read_bytes(), "path": relative}


def _text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def hf_row(item: Item, bench_dir: Path) -> dict[str, Any]:
    """One item as a row of the ``default`` config (media read from ``bench_dir``).

    Raises:
        ExportError: A media file is missing or outside the folder.
    """
    meta = item.metadata
    media: dict[str, list[str]] = {"image": [], "audio": []}
    for kind, path in item.media_paths():
        media[kind].append(path)
    return {
        "id": item.id,
        "question": item.user_text(),
        "choices": list(item.choices or []),
        "target": item.target,
        "answer": item.answer_text(),
        "subtask": _text_or_none(meta.get("subtask")),
        "language": _text_or_none(meta.get("language")),
        "difficulty": _text_or_none(meta.get("difficulty")),
        "modality": "+".join(item.modalities()),
        "image": _media(bench_dir, item.id, media["image"][0]) if media["image"] else None,
        "audio": _media(bench_dir, item.id, media["audio"][0]) if media["audio"] else None,
        "metadata": json_line(meta),
    }


def inspect_row(record: dict[str, Any], metadata: str | None = None) -> dict[str, Any]:
    """One line of ``data/test.jsonl`` as a row of the ``inspect`` config.

    ``metadata``: the record's metadata as JSON already (the ``default`` row's), if made.
    """
    if metadata is None:
        metadata = json_line(record.get("metadata") or {})
    return {
        "id": record["id"],
        "input": json_line(record["input"]),
        "choices": record.get("choices"),
        "target": record["target"],
        "metadata": metadata,
    }


def preload() -> None:
    """Import what writing the split loads on its first table (pyarrow imports pandas then).

    About half a second: a build calls this on a background thread once its first item is
    accepted (:meth:`benchsmith.agents.realize.Workspace.warm_packaging`), while its slots
    wait on the model, instead of at its very end.
    """
    pa.array([0], type=pa.int64())


def write_hf_split(
    bench_dir: Path, records: Iterable[tuple[dict[str, Any], Item]] | None = None
) -> HfExport:
    """Write ``data/hf/test-DIGEST.parquet`` and ``data/inspect/test-DIGEST.parquet``.

    Reads ``data/test.jsonl`` and the media it points to, one row group at a time. Files of
    earlier writes are left for :func:`remove_stale` (the card may still point at them).

    Args:
        bench_dir: The benchmark folder.
        records: The lines of ``data/test.jsonl`` as :func:`read_records` gives them, when
            the caller reads the file once for several exports (default: read here).

    Returns:
        Counts of rows and media, and the file of each config.

    Raises:
        ExportError: ``data/test.jsonl`` is missing or malformed, or a media file is missing.
    """
    bench_dir = Path(bench_dir)
    done = HfExport()
    hf_file: HashedPath
    inspect_file: HashedPath
    with (
        atomic_hashed_path(bench_dir / SPLIT_DIRS[HF_CONFIG], SPLIT, ".parquet") as hf_file,
        atomic_hashed_path(
            bench_dir / SPLIT_DIRS[INSPECT_CONFIG], SPLIT, ".parquet"
        ) as inspect_file,
    ):
        if records is None:
            records = read_records(data_path(bench_dir))
        _write_rows(bench_dir, done, hf_file.tmp, inspect_file.tmp, records)
    for config, written in ((HF_CONFIG, hf_file), (INSPECT_CONFIG, inspect_file)):
        final = cast(Path, written.path)  # set once the block ended well
        done.files[config] = final.relative_to(bench_dir).as_posix()
    return done


def remove_stale(bench_dir: Path, files: dict[str, str]) -> int:
    """Delete the split files of earlier writes (all but ``files``); return how many."""
    keep = {Path(bench_dir) / f for f in files.values()}
    removed = 0
    for folder in SPLIT_DIRS.values():
        for path in sorted((Path(bench_dir) / folder).glob(f"{SPLIT}-*.parquet")):
            if path not in keep:
                path.unlink()
                removed += 1
    return removed


def _write_rows(
    bench_dir: Path,
    done: HfExport,
    hf_path: Path,
    inspect_path: Path,
    records: Iterable[tuple[dict[str, Any], Item]],
) -> None:
    """Stream the items into both Parquet files, counting them in ``done``."""
    hf_schema, inspect_schema = arrow_schema(HF_COLUMNS), arrow_schema(INSPECT_COLUMNS)
    with (
        pq.ParquetWriter(hf_path, hf_schema, **_writer_options(hf_schema)) as hf_out,
        pq.ParquetWriter(
            inspect_path, inspect_schema, **_writer_options(inspect_schema)
        ) as inspect_out,
    ):
        batch: list[tuple[dict[str, Any], Item]] = []

        def flush() -> None:
            items = [item for _, item in batch]
            rows = [hf_row(item, bench_dir) for item in items]
            hf_out.write_table(pa.Table.from_pylist(rows, schema=hf_schema))
            # Both configs hold the metadata as the same JSON text: made once.
            shown = [
                inspect_row(r, row["metadata"] if item.metadata == r.get("metadata") else None)
                for (r, item), row in zip(batch, rows, strict=True)
            ]
            inspect_out.write_table(pa.Table.from_pylist(shown, schema=inspect_schema))
            done.n_items += len(rows)
            done.n_images += sum(r["image"] is not None for r in rows)
            done.n_audio += sum(r["audio"] is not None for r in rows)
            for item in items:
                kinds = [kind for kind, _ in item.media_paths()]
                done.extra_media += any(kinds.count(k) > 1 for k in ("image", "audio"))
            batch.clear()

        for entry in records:
            batch.append(entry)
            if len(batch) == ROW_GROUP_ROWS:
                flush()
        if batch:
            flush()
