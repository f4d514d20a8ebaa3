"""Dataset cards: what a dataset holds, how to read it, and where it came from.

A :class:`DatasetCard` is the catalog's unit. It is written by deterministic profiling (see
:mod:`benchsmith.catalog.profile`) or by hand (the starter catalog), validated strictly,
and stored as JSON. Only its free-text ``description`` may be rewritten by a model later
(:func:`benchsmith.catalog.profile.enrich_description`); every other field is computed.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from benchsmith import naming

Modality = Literal["text", "image", "audio", "table"]
FieldModality = Literal["text", "image", "audio", "number", "category", "boolean", "json", "other"]
LoaderKind = Literal[
    "jsonl", "json", "csv", "parquet", "hf", "image_folder", "audio_folder", "builtin"
]

MODALITIES: tuple[str, ...] = ("text", "image", "audio", "table")
MEDIA_MODALITIES: tuple[str, ...] = ("image", "audio")
ID_PATTERN = r"^[a-z0-9][a-z0-9_.-]{0,63}$"
MAX_EXAMPLES = 3
MAX_EXAMPLE_CHARS = 120

_ID_RE = re.compile(ID_PATTERN)
_LANG_RE = re.compile(r"^[a-z]{2,3}(-[a-z0-9]{2,8})*$")


def slugify(text: str, *, default: str = "dataset") -> str:
    """A valid card id made from any text (a file or folder name, a title).

    Lower-cases, turns every run of other characters into ``-``, strips leading and
    trailing separators and cuts to 64 characters. ``"My Data (v2).jsonl"`` gives
    ``"my-data-v2.jsonl"``; callers strip suffixes first when they want to.
    """
    slug = naming.slugify(text, keep="_.", max_len=64)
    return slug if slug and _ID_RE.match(slug) else default


def is_valid_id(value: str) -> bool:
    """Whether ``value`` is a valid card id (``^[a-z0-9][a-z0-9_.-]{0,63}$``)."""
    return bool(_ID_RE.match(value))


def truncate(text: str, max_chars: int = MAX_EXAMPLE_CHARS) -> str:
    """``text`` with whitespace folded and cut to ``max_chars`` (ending with ``…`` if cut)."""
    out = " ".join(str(text).split())
    if len(out) > max_chars:
        out = out[: max(max_chars - 1, 0)].rstrip() + "…"
    return out


class FieldInfo(BaseModel):
    """One field of a record, addressed by a dotted path (``answer.text``)."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(
        min_length=1,
        max_length=200,
        description="Dotted path of the field inside a record, e.g. 'label' or 'meta.source'.",
    )
    modality: FieldModality = Field(
        description="What the value is: text, image or audio (a file path), number, category "
        "(one of few values), boolean, json (a list or object) or other."
    )
    semantics: str = Field(
        default="",
        max_length=300,
        description="A short plain-language note on what the value means.",
    )
    examples: list[str] = Field(
        default_factory=list, description="Up to 3 example values, as truncated strings."
    )
    n_unique: int | None = Field(
        default=None,
        ge=0,
        description="Distinct values seen while profiling; None when too many to count or not "
        "counted (lists, objects).",
    )
    translations: dict[str, str] = Field(
        default_factory=dict,
        description="This field's value in other languages: language code (e.g. 'fr') to the "
        "dotted path of the field that holds it (e.g. 'names.fr').",
    )
    labels: dict[str, str] = Field(
        default_factory=dict,
        description="How questions name this field, per language code, e.g. {'en': 'atomic "
        "mass', 'fr': 'la masse atomique'} (French with its article, which gives the gender). "
        "Without one, English reads the field's name as words.",
    )

    @field_validator("examples", mode="before")
    @classmethod
    def _cut_examples(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [truncate(v if isinstance(v, str) else str(v)) for v in value[:MAX_EXAMPLES]]
        return value

    @field_validator("semantics", mode="before")
    @classmethod
    def _cut_semantics(cls, value: Any) -> Any:
        return truncate(value, 300) if isinstance(value, str) else value


class LoaderSpec(BaseModel):
    """How to stream a dataset's records.

    ``path`` is absolute, or relative to the catalog folder (the starter catalog's data
    lives under ``<catalog>/data/<id>/``, so the whole catalog can move).
    """

    model_config = ConfigDict(extra="forbid")

    kind: LoaderKind = Field(description="The reader to use.")
    path: str = Field(min_length=1, description="The data file or folder.")
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="Reader options, e.g. {'delimiter': ';'} for csv, {'key': 'rows'} for a "
        "JSON object holding the list, {'files': [...]} for a Hugging Face folder.",
    )


class Provenance(BaseModel):
    """Where the data came from."""

    model_config = ConfigDict(extra="forbid")

    package: str | None = Field(default=None, description="The Python package that ships it.")
    version: str | None = Field(default=None, description="That package's version.")
    source: str | None = Field(
        default=None, description="The original file, folder, URL or function it came from."
    )
    recipe: str | None = Field(
        default=None,
        description="The recipe that materialized the data (name and version), if any.",
    )
    notes: str = Field(default="", max_length=2000, description="Anything else worth knowing.")


class DatasetCard(BaseModel):
    """A dataset in the catalog: its fields, tasks, size, license, provenance and loader."""

    model_config = ConfigDict(extra="forbid")

    card_version: Literal[1] = Field(default=1, description="Version of the card format.")
    id: str = Field(pattern=ID_PATTERN, description="Unique slug of the dataset.")
    name: str = Field(min_length=1, max_length=200, description="Human-readable name.")
    description: str = Field(default="", max_length=5000, description="What the dataset holds.")
    modalities: list[Modality] = Field(
        min_length=1, description="Modalities of the records: text, image, audio, table."
    )
    fields: list[FieldInfo] = Field(default_factory=list, description="The record's fields.")
    input_fields: list[str] = Field(
        default_factory=list, description="Field paths that can serve as questions / inputs."
    )
    output_fields: list[str] = Field(
        default_factory=list, description="Field paths that can serve as answers / targets."
    )
    tasks: list[str] = Field(
        default_factory=list,
        description="Tasks the data supports, e.g. classification, lookup, question answering, "
        "regression, captioning.",
    )
    domain: str = Field(default="general", max_length=100, description="Subject area.")
    languages: list[str] = Field(
        default_factory=list, description="ISO 639 codes of the languages in the text fields."
    )
    size: int = Field(ge=0, description="Number of records (exact).")
    license: str = Field(default="unknown", max_length=300, description="License of the data.")
    provenance: Provenance = Field(default_factory=Provenance, description="Where it came from.")
    loader: LoaderSpec = Field(description="How to read the records.")
    entity: dict[str, str] = Field(
        default_factory=dict,
        description="The noun for one record, per language code, e.g. {'en': 'planet', 'fr': "
        "'la planète'}; without one it comes from a name-like column or the dataset's name.",
    )
    profiled_rows: int | None = Field(
        default=None,
        ge=0,
        description="How many records profiling looked at for field statistics (None: by hand).",
    )

    @field_validator("modalities")
    @classmethod
    def _dedupe_modalities(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(value))

    @field_validator("tasks")
    @classmethod
    def _normal_tasks(cls, value: list[str]) -> list[str]:
        tasks = [" ".join(t.lower().split()) for t in value]
        return list(dict.fromkeys(t for t in tasks if t))

    @field_validator("languages")
    @classmethod
    def _normal_languages(cls, value: list[str]) -> list[str]:
        out: list[str] = []
        for code in value:
            norm = code.strip().replace("_", "-").lower()
            if not _LANG_RE.match(norm):
                raise ValueError(f"{code!r} is not an ISO 639 language code (e.g. 'en', 'pt-br')")
            if norm not in out:
                out.append(norm)
        return out

    @model_validator(mode="after")
    def _check_paths(self) -> DatasetCard:
        paths = [f.path for f in self.fields]
        dupes = sorted(p for p, n in Counter(paths).items() if n > 1)  # linear, however wide
        if dupes:
            raise ValueError(f"field paths must be unique; repeated: {', '.join(dupes)}")
        known = set(paths)
        for name in ("input_fields", "output_fields"):
            unknown = [p for p in getattr(self, name) if p not in known]
            if unknown:
                raise ValueError(f"{name} names unknown fields: {', '.join(unknown)}")
        return self

    # -- helpers ------------------------------------------------------------------------------
    def field(self, path: str) -> FieldInfo | None:
        """The field at ``path``, or None."""
        return next((f for f in self.fields if f.path == path), None)

    def media_fields(self) -> list[FieldInfo]:
        """The fields that hold image or audio file paths."""
        return [f for f in self.fields if f.modality in MEDIA_MODALITIES]

    def record_schema(self) -> dict[str, Any]:
        """A JSON Schema of one record, nested along the dotted field paths.

        Each leaf carries ``x-modality`` (the field's modality) and a ``description`` (its
        semantics); image and audio fields are strings holding an absolute file path once
        read through the catalog.
        """
        types: dict[str, Any] = {
            "text": {"type": "string"},
            "image": {"type": "string", "format": "path"},
            "audio": {"type": "string", "format": "path"},
            "number": {"type": "number"},
            "category": {"type": ["string", "integer", "number", "boolean"]},
            "boolean": {"type": "boolean"},
            "json": {"type": ["array", "object"]},
            "other": {},
        }
        root: dict[str, Any] = {"type": "object", "properties": {}}
        for info in self.fields:
            node = root
            parts = info.path.split(".")
            for part in parts[:-1]:
                props = node.setdefault("properties", {})
                node = props.setdefault(part, {"type": "object", "properties": {}})
            leaf = dict(types[info.modality])
            leaf["x-modality"] = info.modality
            if info.semantics:
                leaf["description"] = info.semantics
            node.setdefault("properties", {})[parts[-1]] = leaf
        return root

    def search_text(self) -> dict[str, str]:
        """The texts the catalog index searches, by column."""
        fields = " ; ".join(
            " ".join(
                part
                for part in (
                    f.path.replace(".", " ").replace("_", " "),
                    f.modality,
                    f.semantics,
                    " ".join(f.examples),
                )
                if part
            )
            for f in self.fields
        )
        return {
            "id": self.id.replace("-", " ").replace("_", " ").replace(".", " "),
            "name": self.name,
            "description": self.description,
            "fields": fields,
            "tasks": " ; ".join(self.tasks + list(self.modalities)),
            "domain": " ".join([self.domain, *self.languages]),
        }

    def summary(self) -> str:
        """A one-line summary: id, size, modalities, tasks and name."""
        tasks = ", ".join(self.tasks) or "-"
        return (
            f"{self.id}  {self.size} records  [{', '.join(self.modalities)}]  {tasks}  "
            f"- {self.name}"
        )


def get_path(record: dict[str, Any], path: str) -> Any:
    """The value at a dotted ``path`` in a record, or None when any step is missing."""
    if path in record:  # a flat key (possibly one that contains dots)
        return record[path]
    node: Any = record
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def field_value(record: dict[str, Any], path: str | None) -> Any:
    """The value at a dotted path of a record (None when absent or no path is given)."""
    return get_path(record, path) if path else None


def value_text(value: Any) -> str:
    """A record value as answer text: lists joined with commas, floats without noise."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list | tuple):
        return ", ".join(value_text(v) for v in value if v is not None)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return " ".join(str(value).split())


def set_path(record: dict[str, Any], path: str, value: Any) -> None:
    """Set the value at a dotted ``path`` in a record (only where the path already exists)."""
    if path in record:
        record[path] = value
        return
    node: Any = record
    parts = path.split(".")
    for part in parts[:-1]:
        if not isinstance(node, dict) or part not in node:
            return
        node = node[part]
    if isinstance(node, dict) and parts[-1] in node:
        node[parts[-1]] = value
