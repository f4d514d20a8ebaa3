"""The caps that keep profiling and reading a dataset bounded in memory and time.

One typed object, :class:`CatalogLimits`, holds them all; its defaults are the numbers
:mod:`benchsmith.tables` gives the tools where the cap means the same thing (the largest
file, the most columns, the longest line). ``benchsmith catalog add`` raises or lowers each
with an option of the same name (``--max-columns`` for ``max_columns``), the Python API
with ``Catalog.add(path, limits=CatalogLimits(max_columns=50_000))``. A card added with
other than the default caps keeps them in its loader options, so its records read later
under the same caps.

Every refusal is a :class:`~benchsmith.catalog.errors.CatalogLimitError` whose one-line
message names the file, the cap and the option that raises it.
"""

from __future__ import annotations

import os
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchsmith import tables
from benchsmith.catalog.errors import CatalogError, CatalogLimitError

MAX_JSON_DEPTH = 64
"""Deepest nesting of a JSON record (the record itself is level 1)."""
MAX_JSON_DEPTH_CEILING = 500
"""``max_json_depth`` may not go higher: Python's JSON parser stops near 1,000 levels."""
MAX_JSON_BYTES = 200_000_000
"""Largest plain ``.json`` file: it is parsed whole (JSON Lines is streamed instead)."""
LIMITS_OPTION = "limits"
"""The loader option that keeps a card's caps when they are not the defaults."""

Cap = Annotated[int, Field(ge=1)]
"""A cap: a count or size of at least 1."""


class CatalogLimits(BaseModel):
    """Caps on what the catalog reads, so no input can take unbounded memory or time."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_file_bytes: Cap = Field(
        default=tables.MAX_FILE_BYTES,
        description="Largest data file, in bytes (a .gz file: also uncompressed); each file "
        "of a folder is checked. Checked before the file is read.",
    )
    max_columns: Cap = Field(
        default=tables.MAX_TABLE_COLUMNS,
        description="Most columns of a CSV file (checked on its header) or distinct field "
        "paths across the records of any format.",
    )
    max_line_bytes: Cap = Field(
        default=tables.MAX_LINE_BYTES,
        description="Longest line (one JSON Lines record, one CSV row) in bytes; lines are "
        "read in bounded pieces, so a longer one is refused without being loaded.",
    )
    max_json_depth: Cap = Field(
        default=MAX_JSON_DEPTH,
        le=MAX_JSON_DEPTH_CEILING,
        description="Deepest nesting of objects and arrays in a JSON record (the record "
        "itself is level 1).",
    )
    max_json_bytes: Cap = Field(
        default=MAX_JSON_BYTES,
        description="Largest plain .json file, in bytes: it is parsed whole, so it has a "
        "lower cap than the streamed formats.",
    )

    def overrides(self) -> dict[str, int]:
        """The caps that differ from the defaults (what a card keeps)."""
        return {k: v for k, v in self.model_dump().items() if v != _DEFAULT_VALUES[k]}

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> CatalogLimits:
        """The caps a card's loader options keep (the defaults when it keeps none).

        Raises:
            CatalogError: The kept caps are not valid (a card edited by hand).
        """
        kept = options.get(LIMITS_OPTION)
        if not kept:
            return DEFAULT_LIMITS
        try:
            return cls.model_validate(kept)
        except ValidationError as exc:
            raise CatalogError(
                f"the loader option {LIMITS_OPTION!r} is not valid ({exc.errors()[0]['msg']}); "
                "re-add the dataset (benchsmith catalog add PATH --replace)"
            ) from exc

    def check_file(self, path: str | os.PathLike[str], *, json_whole: bool = False) -> None:
        """Refuse a file over ``max_file_bytes`` (or ``max_json_bytes``) before reading it.

        A path that does not exist passes: the reader that opens it reports it.

        Raises:
            CatalogLimitError: The file is too large.
        """
        try:
            size = os.stat(path).st_size
        except OSError:
            return
        limit = "max_json_bytes" if json_whole else "max_file_bytes"
        cap = getattr(self, limit)
        if size > cap:
            what = "for a plain JSON file, which is parsed whole" if json_whole else "on a file"
            raise over(
                f"{path}: {size} bytes ({_human(size)}), over the {cap}-byte limit {what}", limit
            )


DEFAULT_LIMITS = CatalogLimits()
_DEFAULT_VALUES = DEFAULT_LIMITS.model_dump()

_ADVICE = {
    "max_file_bytes": "split the data into smaller files",
    "max_json_bytes": "convert it to JSON Lines (one object a line), which is streamed",
    "max_columns": "check that the delimiter and header are right",
    "max_line_bytes": "check that the file is line-based text, not binary data",
    "max_json_depth": "flatten the records",
}


def option_name(limit: str) -> str:
    """The ``catalog add`` option of a cap (``max_columns`` -> ``--max-columns``)."""
    return "--" + limit.replace("_", "-")


def over(message: str, limit: str) -> CatalogLimitError:
    """The error for data over the cap ``limit``: the message, then what to do."""
    advice = _ADVICE.get(limit, "")
    raise_it = (
        f"raise the limit with '{option_name(limit)} N' on 'benchsmith catalog add' "
        f"(CatalogLimits.{limit} in Python)"
    )
    todo = f"{advice}, or {raise_it}" if advice else raise_it
    return CatalogLimitError(f"{message}; {todo}", limit=limit)


def _human(size: int) -> str:
    value = float(size)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} bytes"  # pragma: no cover - the loop always returns
