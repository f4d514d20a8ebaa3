"""Deterministic profiling of local data into a :class:`~benchsmith.catalog.cards.DatasetCard`.

:func:`profile_path` understands JSON Lines, JSON (a list of objects, or an object holding
one), CSV/TSV, Parquet, Hugging Face dataset folders (the ``save_to_disk`` layout with
``dataset_info.json``/``state.json`` and Arrow files, and hub-style folders with a
``README.md`` card and data files; read with pyarrow, the ``datasets`` package is not
needed), folders of images (label = subfolder name) and folders of audio (optionally with a
``metadata.jsonl``/``.csv`` manifest mapping each file to its fields).

Every record is read once, as a stream: the size is exact, malformed input fails with the
file and line (or row) named, and field statistics come from the first
``max_profile_rows`` records (type, modality, three examples, distinct values up to
:data:`MAX_DISTINCT`). Nothing here calls a model: a model may only rewrite the free-text
description afterwards, through :func:`enrich_description`.

Profiling is bounded by :class:`~benchsmith.catalog.limits.CatalogLimits` (file size, columns
or field paths, line length, JSON depth), and every step that runs once per field is linear
in the number of fields, so a file of a hundred thousand columns is refused quickly, or
profiled in time proportional to its width when the column cap is raised.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchsmith import tables
from benchsmith.catalog import readers
from benchsmith.catalog.cards import (
    MEDIA_MODALITIES,
    DatasetCard,
    FieldInfo,
    LoaderSpec,
    Provenance,
    slugify,
    truncate,
)
from benchsmith.catalog.errors import CatalogError
from benchsmith.catalog.limits import DEFAULT_LIMITS, LIMITS_OPTION, CatalogLimits, over
from benchsmith.tools.search.providers import clean_text

MAX_DISTINCT = 1000
MAX_DISTINCT_TOTAL = 1_000_000
"""Distinct values counted across all fields (about 150 MB): a very wide table stops
counting the fields that would go past it (their ``n_unique`` is None), so memory stays
bounded; a table of up to 1,000 fields never reaches it."""
_DIGEST_CHARS = 256  # longer texts are counted by a digest: no long text is kept to count it
MAX_PROFILE_ROWS = 100_000
MEDIA_CHECKS = 20
CATEGORY_MAX_VALUES = 50
CATEGORY_MAX_CHARS = 80
INT_CATEGORY_MAX_VALUES = 10
_NEST_DEPTH = 3

ID_NAMES = frozenset({"id", "idx", "uid", "uuid", "guid", "key", "rownames", "index", "row_id"})
OUTPUT_NAMES = frozenset(
    {
        "label", "labels", "target", "targets", "answer", "answers", "output", "outputs", "y",
        "class", "category", "gold", "solution", "response", "completion", "caption",
        "captions", "species", "sentiment", "transcript", "transcription", "translation",
    }
)  # fmt: skip
INPUT_NAMES = frozenset(
    {
        "question", "input", "prompt", "text", "sentence", "query", "context", "passage",
        "instruction", "premise", "hypothesis", "document", "x", "image", "audio",
    }
)  # fmt: skip
DATA_FORMATS = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".csv": "csv",
    ".tsv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".arrow": "arrow",
}
REFERENCE_SUFFIXES = (".md", ".markdown", ".txt", ".pdf", ".tex", ".html", ".htm", ".cnxml")
_FORMAT_PREFERENCE = ("parquet", "arrow", "jsonl", "csv", "json")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ][0-9:.+\-Z]*)?$")


# -- field statistics -----------------------------------------------------------------------------
def is_media_struct(value: Any) -> bool:
    """Whether a value is a Hugging Face Image/Audio cell (``{"bytes": ..., "path": ...}``)."""
    return (
        isinstance(value, dict)
        and bool(value)
        and set(value) <= {"bytes", "path", "array", "sampling_rate"}
        and ("bytes" in value or "path" in value)
    )


def flatten(
    record: dict[str, Any], prefix: str = "", depth: int = 0, out: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A record as ``{dotted path: leaf value}``; objects nest up to three levels.

    Every level writes into the one ``out`` dict, so the work is linear in the number of
    leaves (and the recursion is at most three deep, whatever the record's nesting).
    """
    if out is None:
        out = {}
    for key, value in record.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value and depth < _NEST_DEPTH and not is_media_struct(value):
            flatten(value, path + ".", depth + 1, out)
        else:
            out[path] = value
    return out


@dataclass
class _Budget:
    """Distinct values that all fields together may still count."""

    left: int = MAX_DISTINCT_TOTAL


@dataclass
class _Stats:
    """Running statistics of one field."""

    path: str
    budget: _Budget = field(default_factory=_Budget, repr=False)
    present: int = 0
    nulls: int = 0
    types: Counter = field(default_factory=Counter)
    counts: dict[tuple[str, Any], int] | None = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    str_n: int = 0
    str_len_min: int = 0
    str_len_max: int = 0
    str_len_sum: int = 0
    num_min: float = math.inf
    num_max: float = -math.inf
    media_exts: Counter = field(default_factory=Counter)
    media_samples: list[str] = field(default_factory=list)
    dates: int = 0
    list_len_sum: int = 0
    list_n: int = 0

    def add(self, value: Any) -> None:  # noqa: C901 - one branch per kind of value, on purpose
        if value is None or (isinstance(value, float) and math.isnan(value)):
            self.nulls += 1
            return
        self.present += 1
        if isinstance(value, bool):
            kind = "bool"
        elif isinstance(value, int):
            kind = "int"
            self._num(value)
        elif isinstance(value, float):
            kind = "float"
            self._num(value)
        elif isinstance(value, str):
            kind = "str"
            self._str(value)
        elif isinstance(value, list):
            kind = "list"
            self.list_n += 1
            self.list_len_sum += len(value)
        elif is_media_struct(value):
            kind = "media"
            name = value.get("path")
            if isinstance(name, str):
                ext = os.path.splitext(name)[1].lower()
                if ext:
                    self.media_exts[ext] += 1
        elif isinstance(value, dict):
            kind = "dict"
        elif isinstance(value, bytes | bytearray):
            kind = "bytes"
        else:
            kind = "other"
        self.types[kind] += 1
        if self.counts is not None and kind in ("bool", "int", "float", "str"):
            self._count(kind, value)
        if len(self.examples) < 3:
            shown = _show(value)
            if shown not in self.examples:
                self.examples.append(shown)

    def _count(self, kind: str, value: Any) -> None:
        counts = self.counts
        if counts is None:
            return
        if kind == "str" and len(value) > _DIGEST_CHARS:  # never shown: see top_values
            value = hashlib.blake2b(value.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        key = (kind, value)
        seen = counts.get(key)
        if seen is not None:
            counts[key] = seen + 1
        elif len(counts) >= MAX_DISTINCT or self.budget.left <= 0:
            self.budget.left += len(counts)  # too many to count: give the room back
            self.counts = None
        else:
            counts[key] = 1
            self.budget.left -= 1

    def _num(self, value: float) -> None:
        if value < self.num_min:
            self.num_min = value
        if value > self.num_max:
            self.num_max = value

    def _str(self, value: str) -> None:
        n = len(value)
        if self.str_n == 0 or n < self.str_len_min:
            self.str_len_min = n
        if n > self.str_len_max:
            self.str_len_max = n
        self.str_n += 1
        self.str_len_sum += n
        if n < 300 and "\n" not in value:
            # a media suffix is at most 5 letters: look for a dot near the end first (fast)
            ext = os.path.splitext(value)[1].lower() if "." in value[-6:] else ""
            if ext in readers.IMAGE_EXTS or ext in readers.AUDIO_EXTS:
                self.media_exts[ext] += 1
                if len(self.media_samples) < MEDIA_CHECKS:
                    self.media_samples.append(value)
            elif n <= 35 and _DATE_RE.match(value):
                self.dates += 1

    @property
    def n_unique(self) -> int | None:
        return None if self.counts is None else len(self.counts)

    def top_values(self, n: int) -> list[str]:
        # Only short values are asked for (categories): a text over _DIGEST_CHARS is counted
        # by its digest and would show as one.
        if not self.counts:
            return []
        ranked = sorted(self.counts.items(), key=lambda kv: (-kv[1], str(kv[0][1])))
        return [_show(value) for (_, value), _ in ranked[:n]]


def _show(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_media_struct(value):
        return str(value.get("path") or f"<{len(value.get('bytes') or b'')} bytes>")
    if isinstance(value, bytes | bytearray):
        return f"<{len(value)} bytes>"
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False, default=str)[:200]
    return str(value)


@dataclass
class FieldHint:
    """What a format's own schema says about a field (Hugging Face features)."""

    modality: str | None = None
    semantics: str = ""


@dataclass
class _Profile:
    """The outcome of one pass over the records."""

    stats: dict[str, _Stats]
    size: int
    profiled: int


def collect(
    records: Iterable[dict[str, Any]],
    max_profile_rows: int,
    *,
    max_fields: int | None = None,
    where: str = "the data",
) -> _Profile:
    """One pass over the records: exact count, statistics of the first ``max_profile_rows``.

    Args:
        records: The records.
        max_profile_rows: Records whose fields are counted; the rest are read and counted.
        max_fields: Most distinct field paths (``max_columns``); None: any.
        where: How the error names the data.

    Raises:
        CatalogLimitError: More than ``max_fields`` distinct field paths.
    """
    stats: dict[str, _Stats] = {}
    budget = _Budget()
    size = 0
    for record in records:
        size += 1
        if size > max_profile_rows:
            continue  # still read (and so validated) and counted
        for path, value in flatten(record).items():
            entry = stats.get(path)
            if entry is None:
                if max_fields is not None and len(stats) >= max_fields:
                    raise over(
                        f"{where}: more than {max_fields} fields (record {size} adds "
                        f"{path[:80]!r}), over the column limit",
                        "max_columns",
                    )
                entry = stats[path] = _Stats(path, budget)
            entry.add(value)
    return _Profile(stats=stats, size=size, profiled=min(size, max_profile_rows))


# -- deciding modalities ---------------------------------------------------------------------
def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _fmt_num(value: float) -> str:
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.6g}"


def _media_kind(exts: Counter) -> str | None:
    if not exts:
        return None
    images = sum(n for e, n in exts.items() if e in readers.IMAGE_EXTS)
    audio = sum(n for e, n in exts.items() if e in readers.AUDIO_EXTS)
    return "image" if images >= audio else "audio"


def _media_exist(samples: list[str], base_dir: Path | None) -> float:
    if not samples:
        return 0.0
    found = 0
    for sample in samples:
        candidate = Path(sample)
        if not candidate.is_absolute() and base_dir is not None:
            candidate = base_dir / candidate
        if candidate.is_file():
            found += 1
    return found / len(samples)


def decide_field(
    stats: _Stats, total: int, base_dir: Path | None, hint: FieldHint | None = None
) -> FieldInfo:
    """A :class:`FieldInfo` from a field's statistics (and the format's schema hint, if any)."""
    kinds = set(stats.types)
    name = stats.path.rsplit(".", 1)[-1].lower()
    n_unique = stats.n_unique
    missing = total - stats.present
    modality, semantics = _decide(stats, kinds, name, base_dir)
    if hint is not None and hint.modality:
        modality = hint.modality
        semantics = hint.semantics or semantics
    if modality in ("json", "other", "image", "audio") and kinds & {"list", "dict", "media"}:
        n_unique = None
    if missing and stats.present:
        semantics = f"{semantics}; missing in {_plural(missing, 'record')}"
    elif not stats.present:
        semantics = "always empty"
    return FieldInfo(
        path=stats.path,
        modality=modality,  # type: ignore[arg-type]
        semantics=semantics,
        examples=stats.examples,
        n_unique=n_unique,
    )


def _decide(  # noqa: C901 - a decision table
    stats: _Stats, kinds: set[str], name: str, base_dir: Path | None
) -> tuple[str, str]:
    n_unique = stats.n_unique
    few = n_unique is not None and n_unique * 2 <= stats.present
    unique = n_unique is not None and n_unique == stats.present and stats.present > 1
    if not kinds:
        return "other", "always empty"
    if kinds == {"bool"}:
        trues = (stats.counts or {}).get(("bool", True), 0)
        share = round(100 * trues / stats.present) if stats.present else 0
        return "boolean", f"true or false ({share}% true)"
    if kinds <= {"int", "float"}:
        span = f"{_fmt_num(stats.num_min)} to {_fmt_num(stats.num_max)}"
        if (
            kinds == {"int"}
            and n_unique is not None
            and n_unique <= INT_CATEGORY_MAX_VALUES
            and few
        ):
            values = ", ".join(sorted(stats.top_values(n_unique), key=_num_key))
            return "category", f"integer code, {_plural(n_unique, 'value')}: {values}"
        if kinds == {"int"} and (name in ID_NAMES or name.endswith("_id")) and unique:
            return "number", f"identifier (unique integers {span})"
        word = "integer" if kinds == {"int"} else "number"
        return "number", f"{word} from {span}"
    if kinds == {"media"}:
        kind = _media_kind(stats.media_exts) or "image"
        return kind, f"{kind} (embedded bytes or file path)"
    if kinds <= {"list", "dict"}:
        if kinds == {"list"}:
            mean = stats.list_len_sum / max(stats.list_n, 1)
            return "json", f"list (mean length {mean:.1f})"
        return "json", "object"
    if "str" in kinds and kinds <= {"str", "int", "float", "bool"}:
        if stats.media_exts and sum(stats.media_exts.values()) >= 0.8 * stats.str_n:
            kind = _media_kind(stats.media_exts) or "image"
            exts = "/".join(sorted(e.lstrip(".") for e in stats.media_exts))
            if _media_exist(stats.media_samples, base_dir) >= 0.8:
                return kind, f"{kind} file ({exts}), path relative to the data file"
            return "other", f"{kind} file name ({exts}); the files were not found"
        if (name in ID_NAMES or name.endswith("_id")) and unique:
            return "text", "identifier (unique)"
        if (
            n_unique is not None
            and n_unique <= CATEGORY_MAX_VALUES
            and few
            and stats.str_len_max <= CATEGORY_MAX_CHARS
        ):
            values = ", ".join(stats.top_values(8))
            more = ", ..." if n_unique > 8 else ""
            return "category", f"category, {_plural(n_unique, 'value')}: {values}{more}"
        if stats.dates and stats.dates >= 0.9 * stats.str_n:
            return "text", "date (ISO 8601)"
        mean = stats.str_len_sum / max(stats.str_n, 1)
        length = f"{stats.str_len_min}-{stats.str_len_max} characters, mean {mean:.0f}"
        if unique:
            return "text", f"text, unique per record, {length}"
        return "text", f"{'long text' if mean > 200 else 'text'}, {length}"
    return "other", f"mixed values ({', '.join(sorted(kinds))})"


def _num_key(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.inf


def _is_identifier(info: FieldInfo) -> bool:
    return info.semantics.startswith("identifier")


def infer_roles(fields: list[FieldInfo]) -> tuple[list[str], list[str]]:
    """Which fields can be inputs (questions) and which outputs (answers), by name and kind."""
    usable = [f for f in fields if not _is_identifier(f) and f.semantics != "always empty"]
    named_out = [f for f in usable if f.path.rsplit(".", 1)[-1].lower() in OUTPUT_NAMES]
    media = [f for f in usable if f.modality in MEDIA_MODALITIES]
    named_in = [f for f in usable if f.path.rsplit(".", 1)[-1].lower() in INPUT_NAMES]

    def without(items: list[FieldInfo], taken: list[FieldInfo]) -> list[FieldInfo]:
        # by path (unique on a card) through a set: linear, however wide the data
        paths = {f.path for f in taken}
        return [f for f in items if f.path not in paths]

    if named_out:
        outputs = named_out
        rest = without(usable, outputs)
        inputs = (
            without(named_in, outputs)
            or [f for f in rest if f.modality in ("text", *MEDIA_MODALITIES)]
            or rest
        )
    elif media:
        inputs = media
        outputs = without(usable, media)
    else:
        texts = [f for f in usable if f.modality == "text" and "unique" in f.semantics]
        texts = texts or [f for f in usable if f.modality == "text"]
        key = named_in or texts[:1]
        if key:
            inputs = key
            outputs = without(usable, key)
        else:
            inputs, outputs = usable, []
    return [f.path for f in inputs], [f.path for f in outputs]


def infer_tasks(fields: list[FieldInfo], inputs: list[str], outputs: list[str]) -> list[str]:
    """Tasks the records support, from the kinds of their input and output fields."""
    by_path = {f.path: f for f in fields}
    ins = {by_path[p].modality for p in inputs}
    outs = {by_path[p].modality for p in outputs}
    out_names = {p.rsplit(".", 1)[-1].lower() for p in outputs}
    tasks: list[str] = []
    if "image" in ins:
        if "category" in outs:
            tasks.append("image classification")
        if "text" in outs:
            tasks.append("captioning")
    if "audio" in ins:
        if "category" in outs:
            tasks.append("audio classification")
        if "text" in outs:
            tasks.append("transcription")
    if "text" in ins:
        if "category" in outs:
            tasks.append("classification")
        if "text" in outs and out_names & {"answer", "answers", "solution", "response"}:
            tasks.append("question answering")
        elif "text" in outs and out_names & {"translation"}:
            tasks.append("translation")
    if "number" in outs and not ins & set(MEDIA_MODALITIES):
        tasks.append("regression")
    if not ins & set(MEDIA_MODALITIES) and len(fields) >= 2:
        tasks.append("lookup")
    if not tasks:
        tasks.append("reading comprehension" if "text" in ins else "lookup")
    return tasks


def infer_modalities(fields: list[FieldInfo], kind: str) -> list[str]:
    """The card's modalities: image/audio for media fields, text, and table for tabular data."""
    mods = [m for m in ("image", "audio") if any(f.modality == m for f in fields)]
    texts = [f for f in fields if f.modality == "text" and not _is_identifier(f)]
    if texts:
        mods.append("text")
    content = [f for f in fields if not _is_identifier(f)]
    structured = [f for f in content if f.modality in ("number", "category", "boolean")]
    tabular = kind in ("csv", "parquet") or not mods or len(structured) * 3 >= len(content) * 2
    if tabular and not any(m in mods for m in MEDIA_MODALITIES):
        mods.append("table")
    return mods or ["table"]


# -- detection ---------------------------------------------------------------------------------
@dataclass
class Source:
    """A detected data source: its loader and what its own metadata says."""

    kind: str
    path: Path
    options: dict[str, Any] = field(default_factory=dict)
    hints: dict[str, FieldHint] = field(default_factory=dict)
    name: str | None = None
    description: str = ""
    license: str | None = None
    languages: list[str] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    base_dir: Path | None = None


def detect(path: str | os.PathLike[str], limits: CatalogLimits | None = None) -> Source:
    """The kind of data at ``path`` and how to read it.

    Raises:
        CatalogError: The path is missing, or holds nothing the catalog can read.
        CatalogLimitError: A file is over the size cap (checked before it is read).
    """
    limits = limits or DEFAULT_LIMITS
    target = Path(path).expanduser()
    if not target.exists():
        raise CatalogError(f"{target}: no such file or folder")
    target = target.resolve()
    if target.is_file():
        suffix = readers.data_suffix(target)
        fmt = DATA_FORMATS.get(suffix)
        if fmt is None:
            hint = (
                "; add it as a reference document instead (Catalog.add_reference)"
                if suffix in REFERENCE_SUFFIXES
                else ""
            )
            known = ", ".join(sorted(DATA_FORMATS))
            raise CatalogError(
                f"{target}: unknown data format {suffix or '(no suffix)'!r}; "
                f"the catalog reads {known}, and folders{hint}"
            )
        limits.check_file(target, json_whole=fmt == "json")
        if fmt == "arrow":
            return Source(
                "hf", target, {"format": "arrow", "files": [target.name]}, base_dir=target.parent
            )
        options: dict[str, Any] = {}
        if fmt == "csv":
            options["delimiter"] = readers.sniff_delimiter(target, limits)
        return Source(fmt, target, options, base_dir=target.parent)
    return _detect_folder(target, limits)


def _detect_folder(folder: Path, limits: CatalogLimits) -> Source:
    if (folder / "dataset_dict.json").is_file() or (folder / "state.json").is_file():
        return _hf_saved(folder, limits)
    readme = folder / "README.md"
    data_files = _data_files(folder)
    if data_files and (readme.is_file() or (folder / "dataset_info.json").is_file()):
        return _hf_hub_folder(folder, data_files, limits)
    images = sum(1 for _ in _limited(readers.walk_files(folder, readers.IMAGE_EXTS), 100_000))
    audio = sum(1 for _ in _limited(readers.walk_files(folder, readers.AUDIO_EXTS), 100_000))
    if images or audio:
        media = "image" if images >= audio else "audio"
        manifest = readers.find_manifest(folder)
        options: dict[str, Any] = {"manifest": manifest.name} if manifest else {}
        return Source(f"{media}_folder", folder, options, base_dir=folder)
    if data_files:
        return _hf_hub_folder(folder, data_files, limits)
    raise CatalogError(
        f"{folder}: no data found: expected data files (.jsonl, .json, .csv, .parquet, .arrow), "
        "a Hugging Face dataset folder, or a folder of images or audio files"
    )


def _limited(items: Iterator[Any], n: int) -> Iterator[Any]:
    for i, item in enumerate(items):
        if i >= n:
            return
        yield item


def _data_files(folder: Path) -> list[Path]:
    exts = frozenset(DATA_FORMATS)
    found: list[Path] = []
    for file in readers.walk_files(folder, exts | {".gz"}):
        if readers.data_suffix(file) not in exts:
            continue
        if file.name in readers.MANIFEST_NAMES or file.name in (
            "dataset_info.json",
            "state.json",
            "dataset_dict.json",
            "dataset_infos.json",
        ):
            continue
        found.append(file)
    return found


def _read_json_file(path: Path, limits: CatalogLimits) -> Any:
    """A small JSON metadata file (``state.json``, ``dataset_info.json``), capped."""
    limits.check_file(path, json_whole=True)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CatalogError(f"{path}: line {exc.lineno}: bad JSON ({exc.msg})") from exc
    except RecursionError as exc:
        raise over(f"{path}: nested too deep for the JSON parser", "max_json_depth") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(f"{path}: cannot be read ({exc})") from exc


def _hf_saved(folder: Path, limits: CatalogLimits) -> Source:
    """A ``Dataset.save_to_disk`` / ``DatasetDict.save_to_disk`` folder."""
    split_dirs: list[Path] = []
    if (folder / "dataset_dict.json").is_file():
        info = _read_json_file(folder / "dataset_dict.json", limits)
        splits = info.get("splits") if isinstance(info, dict) else None
        if not isinstance(splits, list) or not splits:
            raise CatalogError(f"{folder / 'dataset_dict.json'}: no 'splits' list")
        split_dirs = [folder / str(s) for s in splits]
    else:
        split_dirs = [folder]
    files: list[str] = []
    info_doc: dict[str, Any] = {}
    for split_dir in split_dirs:
        state_path = split_dir / "state.json"
        if not state_path.is_file():
            raise CatalogError(f"{split_dir}: missing state.json (not a save_to_disk folder)")
        state = _read_json_file(state_path, limits)
        entries = state.get("_data_files") if isinstance(state, dict) else None
        if not isinstance(entries, list) or not entries:
            raise CatalogError(f"{state_path}: no '_data_files' list")
        for entry in entries:
            name = entry.get("filename") if isinstance(entry, dict) else None
            if not isinstance(name, str) or not (split_dir / name).is_file():
                raise CatalogError(f"{state_path}: data file {name!r} is missing")
            files.append((split_dir / name).relative_to(folder).as_posix())
        if not info_doc and (split_dir / "dataset_info.json").is_file():
            loaded = _read_json_file(split_dir / "dataset_info.json", limits)
            info_doc = loaded if isinstance(loaded, dict) else {}
    source = Source("hf", folder, {"format": "arrow", "files": files}, base_dir=folder)
    _apply_info(source, info_doc)
    return source


def _apply_info(source: Source, info: dict[str, Any]) -> None:
    """Take description, license and field hints from a ``dataset_info.json``."""
    if not info:
        return
    if isinstance(info.get("description"), str) and info["description"].strip():
        source.description = info["description"].strip()
    if isinstance(info.get("license"), str) and info["license"].strip():
        source.license = info["license"].strip()
    features = info.get("features")
    if isinstance(features, dict):
        source.hints.update(_feature_hints(features))
        labels = {
            path: hint.semantics
            for path, hint in source.hints.items()
            if hint.modality == "category"
        }
        if labels:
            source.options["class_labels"] = {path: _class_names(features, path) for path in labels}


def _class_names(features: dict[str, Any], path: str) -> list[str]:
    node: Any = features
    for part in path.split("."):
        node = node.get(part, {}) if isinstance(node, dict) else {}
    names = node.get("names") if isinstance(node, dict) else None
    return [str(n) for n in names] if isinstance(names, list) else []


def _feature_hints(features: dict[str, Any], prefix: str = "") -> dict[str, FieldHint]:
    hints: dict[str, FieldHint] = {}
    for name, spec in features.items():
        path = f"{prefix}{name}"
        if not isinstance(spec, dict):
            continue
        kind = spec.get("_type")
        if kind == "Image":
            hints[path] = FieldHint("image", "image (Hugging Face Image feature)")
        elif kind == "Audio":
            hints[path] = FieldHint("audio", "audio (Hugging Face Audio feature)")
        elif kind == "ClassLabel":
            names = [str(n) for n in spec.get("names") or []]
            shown = ", ".join(f"{i}={n}" for i, n in enumerate(names[:12]))
            more = ", ..." if len(names) > 12 else ""
            hints[path] = FieldHint("category", f"class label: {shown}{more}")
        elif kind is None:
            hints.update(_feature_hints(spec, path + "."))
    return hints


def _front_matter(readme: Path, limits: CatalogLimits) -> tuple[dict[str, Any], str]:
    limits.check_file(readme)
    text = readme.read_text(encoding="utf-8", errors="replace")
    match = re.match(r"^---\s*\n(.*?)\n---\s*(\n|$)", text, flags=re.DOTALL)
    if not match:
        return {}, text
    import yaml

    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise CatalogError(f"{readme}: the YAML header cannot be parsed ({exc})") from exc
    return (meta if isinstance(meta, dict) else {}), text[match.end() :]


def _first_paragraph(body: str) -> str:
    for block in re.split(r"\n\s*\n", body):
        lines = [ln for ln in block.strip().splitlines() if ln.strip()]
        if not lines or all(
            ln.lstrip().startswith(("#", "|", "<", "!", "```", "-")) for ln in lines
        ):
            continue
        return truncate(" ".join(ln for ln in lines if not ln.lstrip().startswith("#")), 1000)
    return ""


def _configured_files(folder: Path, meta: dict[str, Any]) -> list[Path]:
    configs = meta.get("configs")
    if not isinstance(configs, list) or not configs:
        return []
    chosen = next(
        (c for c in configs if isinstance(c, dict) and c.get("config_name") == "default"),
        configs[0],
    )
    spec = chosen.get("data_files") if isinstance(chosen, dict) else None
    patterns: list[str] = []
    for entry in spec if isinstance(spec, list) else [spec]:
        if isinstance(entry, str):
            patterns.append(entry)
        elif isinstance(entry, dict):
            paths = entry.get("path")
            patterns.extend(paths if isinstance(paths, list) else [paths])
    files: list[Path] = []
    for pattern in patterns:
        if not isinstance(pattern, str):
            continue
        matched = sorted(p for p in folder.glob(pattern) if p.is_file())
        if not matched:
            raise CatalogError(
                f"{folder / 'README.md'}: data_files pattern {pattern!r} matches no file"
            )
        files.extend(m for m in matched if m not in files)
    return files


def _hf_hub_folder(folder: Path, data_files: list[Path], limits: CatalogLimits) -> Source:
    """A hub-style folder: ``README.md`` (YAML header) plus data files."""
    meta: dict[str, Any] = {}
    body = ""
    readme = folder / "README.md"
    if readme.is_file():
        meta, body = _front_matter(readme, limits)
    files = _configured_files(folder, meta) or data_files
    by_format: dict[str, list[Path]] = {}
    for file in files:
        fmt = DATA_FORMATS.get(readers.data_suffix(file))
        if fmt:
            by_format.setdefault(fmt, []).append(file)
    if not by_format:
        raise CatalogError(f"{folder}: no data files of a known format")
    fmt = next(f for f in _FORMAT_PREFERENCE if f in by_format)
    chosen = by_format[fmt]
    options: dict[str, Any] = {
        "format": fmt,
        "files": [p.relative_to(folder).as_posix() for p in chosen],
    }
    if fmt == "csv":
        options["delimiter"] = readers.sniff_delimiter(chosen[0], limits)
    source = Source("hf", folder, options, base_dir=folder)
    if (folder / "dataset_info.json").is_file():
        loaded = _read_json_file(folder / "dataset_info.json", limits)
        _apply_info(source, loaded if isinstance(loaded, dict) else {})
    if isinstance(meta.get("pretty_name"), str):
        source.name = meta["pretty_name"]
    lic = meta.get("license")
    if isinstance(lic, list):
        lic = ", ".join(str(x) for x in lic)
    if isinstance(lic, str) and lic:
        source.license = lic
    langs = meta.get("language")
    if isinstance(langs, str):
        langs = [langs]
    if isinstance(langs, list):
        source.languages = [str(x) for x in langs]
    cats = meta.get("task_categories")
    if isinstance(cats, list):
        source.tasks = [str(c).replace("-", " ") for c in cats]
    paragraph = _first_paragraph(body)
    if paragraph and not source.description:
        source.description = paragraph
    info = meta.get("dataset_info")
    if isinstance(info, dict) and isinstance(info.get("features"), list):
        for feat in info["features"]:
            if isinstance(feat, dict) and isinstance(feat.get("name"), str):
                dtype = feat.get("dtype")
                if dtype in ("image", "audio"):
                    source.hints[feat["name"]] = FieldHint(dtype, f"{dtype} (Hugging Face feature)")
                elif isinstance(dtype, dict) and isinstance(dtype.get("class_label"), dict):
                    names = dtype["class_label"].get("names") or {}
                    shown = ", ".join(f"{k}={v}" for k, v in list(names.items())[:12])
                    source.hints[feat["name"]] = FieldHint("category", f"class label: {shown}")
    return source


# -- reading a detected source -------------------------------------------------------------------
def iter_source(source: Source, limits: CatalogLimits | None = None) -> Iterator[dict[str, Any]]:
    """The raw records of a detected source (media paths as stored, not yet resolved)."""
    yield from iter_raw(source.kind, source.path, source.options, limits=limits)


def iter_raw(
    kind: str,
    path: Path,
    options: dict[str, Any],
    *,
    skip: int = 0,
    limits: CatalogLimits | None = None,
) -> Iterator[dict[str, Any]]:
    """Raw records of a loader ``kind`` at ``path``, after skipping ``skip`` records.

    ``limits`` default to the ones the loader options keep (a card added with raised caps
    reads under them), else the defaults.
    """
    if limits is None:
        limits = CatalogLimits.from_options(options)
    if kind in ("jsonl", "json", "csv", "parquet"):
        if kind == "csv":
            yield from _iter_csv_typed(path, options, skip, limits)
            return
        for _, record in readers.iter_data_file(
            path, kind, skip=skip, key=options.get("key"), limits=limits
        ):
            yield record
    elif kind == "hf":
        fmt = options.get("format", "arrow")
        remaining = skip
        for rel in options.get("files", []):
            file = path / rel if path.is_dir() else path.parent / rel
            if remaining:
                n = readers.count_data_file(file, fmt, limits)
                if n <= remaining:
                    remaining -= n
                    continue
            for _, record in readers.iter_data_file(
                file, fmt, skip=remaining, delimiter=options.get("delimiter"), limits=limits
            ):
                yield record
            remaining = 0
    elif kind in ("image_folder", "audio_folder"):
        media = kind.split("_", 1)[0]
        for _, record in readers.iter_media_folder(
            path, media, manifest=options.get("manifest"), skip=skip, limits=limits
        ):
            yield record
    else:
        raise CatalogError(f"{path}: loader kind {kind!r} cannot be read here")


def _iter_csv_typed(
    path: Path, options: dict[str, Any], skip: int, limits: CatalogLimits
) -> Iterator[dict[str, Any]]:
    delimiter = options.get("delimiter", ",")
    types: dict[str, str] | None = options.get("types")
    for _, row in readers.iter_csv(path, delimiter=delimiter, skip=skip, limits=limits):
        if types is None:
            yield {k: tables.parse_csv_value(v) for k, v in row.items()}
        else:
            yield {k: tables.convert_csv_value(v, types.get(k, "str")) for k, v in row.items()}


def _columnar_size(source: Source, limits: CatalogLimits) -> int | None:
    """The exact size of Parquet/Arrow data from its metadata; None for the text formats."""
    if source.kind == "parquet":
        return readers.parquet_rows(source.path, limits)
    if source.kind == "hf" and source.options.get("format") in ("parquet", "arrow"):
        base = source.path if source.path.is_dir() else source.path.parent
        fmt = source.options["format"]
        return sum(
            readers.count_data_file(base / rel, fmt, limits) for rel in source.options["files"]
        )
    return None


def _csv_types(stats: dict[str, _Stats], columns: Iterable[str]) -> dict[str, str]:
    """Each CSV column's type from its profiled cells, by the rule the tools use too."""
    types: dict[str, str] = {}
    for column in columns:
        entry = stats.get(column)
        types[column] = tables.column_kind(entry.types if entry else ())
    return types


# -- the card ------------------------------------------------------------------------------------
def _default_name(path: Path) -> str:
    stem = readers.strip_suffixes(path.name) if path.is_file() else path.name
    return " ".join(re.split(r"[_\-\s]+", stem)).strip() or stem


def _default_description(source: Source, size: int, fields: list[FieldInfo]) -> str:
    what = {
        "jsonl": "JSON Lines file",
        "json": "JSON file",
        "csv": "CSV file",
        "parquet": "Parquet file",
        "hf": "Hugging Face dataset folder",
        "image_folder": "folder of images",
        "audio_folder": "folder of audio files",
    }.get(source.kind, source.kind)
    parts = [f"{f.path} ({f.modality}: {f.semantics})" for f in fields[:12]]
    more = f"; and {len(fields) - 12} more" if len(fields) > 12 else ""
    return truncate(
        f"{size} records from the {what} {source.path.name}. Fields: {'; '.join(parts)}{more}.",
        2000,
    )


def profile_path(
    path: str | os.PathLike[str],
    *,
    id: str | None = None,  # noqa: A002 - the card's own word
    name: str | None = None,
    description: str | None = None,
    license: str | None = None,  # noqa: A002 - the card's own word
    max_profile_rows: int = MAX_PROFILE_ROWS,
    limits: CatalogLimits | None = None,
) -> DatasetCard:
    """Profile local data into a dataset card (deterministic: same data, same card).

    Args:
        path: A data file (``.jsonl``, ``.json``, ``.csv``, ``.tsv``, ``.parquet``,
            ``.arrow``, optionally ``.gz`` for the text formats) or a folder (a Hugging Face
            dataset, or a folder of images or audio files).
        id: The card id; default: a slug of the file or folder name.
        name: Human-readable name; default: from the dataset's own card or the file name.
        description: Description; default: from the dataset's own card, else a summary of
            the size and fields.
        license: License; default: from the dataset's own card, else ``unknown``.
        max_profile_rows: Records that field statistics look at; all records are still read,
            validated and counted.
        limits: Caps on file size, columns, line length and JSON depth (default: the
            defaults of :class:`~benchsmith.catalog.limits.CatalogLimits`). Caps other than
            the defaults are kept in the card's loader options, so its records read later
            under the same caps.

    Returns:
        The card, with an absolute loader path.

    Raises:
        CatalogError: The path is missing, unreadable, malformed (naming the line or row),
            or holds no records.
        CatalogLimitError: The data is over one of ``limits`` (the message names the file,
            the cap and the option that raises it).
    """
    limits = limits or DEFAULT_LIMITS
    source = detect(path, limits)
    columnar = _columnar_size(source, limits)
    records = iter_source(source, limits)
    if columnar is not None:  # the size is in the files' metadata: decode only what is profiled
        records = itertools.islice(records, max_profile_rows)
    profile = collect(
        records, max_profile_rows, max_fields=limits.max_columns, where=str(source.path)
    )
    if columnar is not None:
        profile.size = columnar
    if profile.size == 0:
        raise CatalogError(f"{source.path}: holds no records")
    fields = [
        decide_field(stats, profile.profiled, source.base_dir, source.hints.get(p))
        for p, stats in profile.stats.items()
    ]
    options = dict(source.options)
    if limits.overrides():
        options[LIMITS_OPTION] = limits.overrides()
    if source.kind == "csv":
        columns = readers.csv_header(source.path, options.get("delimiter", ","), limits)
        options["types"] = _csv_types(profile.stats, columns)
        for info in fields:
            if options["types"].get(info.path) == "str" and info.modality in ("number", "boolean"):
                info.modality = "text"
    inputs, outputs = infer_roles(fields)
    tasks = source.tasks or infer_tasks(fields, inputs, outputs)
    card_id = id if id is not None else slugify(readers.strip_suffixes(source.path.name))
    try:
        return DatasetCard(
            id=card_id,
            name=name or source.name or _default_name(source.path),
            description=description
            if description is not None
            else (source.description or _default_description(source, profile.size, fields)),
            modalities=infer_modalities(fields, source.kind),  # type: ignore[arg-type]
            fields=fields,
            input_fields=inputs,
            output_fields=outputs,
            tasks=tasks,
            languages=source.languages,
            size=profile.size,
            license=license or source.license or "unknown",
            provenance=Provenance(source=str(source.path)),
            loader=LoaderSpec.model_validate(
                {"kind": source.kind, "path": str(source.path), "options": options}
            ),
            profiled_rows=profile.profiled,
        )
    except ValueError as exc:
        raise CatalogError(f"{source.path}: the card is not valid: {exc}") from exc


def enrich_description(card: DatasetCard, text: str) -> DatasetCard:
    """A copy of ``card`` whose ``description`` is ``text``; nothing else changes.

    This is the only way a model's words enter a card: the text is untrusted, so control
    characters are dropped and it is cut to the description's limit (5000 characters).
    """
    cleaned = clean_text(text, 5000, keep_newlines=True)
    data = card.model_dump()
    data["description"] = cleaned
    return DatasetCard.model_validate(data)
