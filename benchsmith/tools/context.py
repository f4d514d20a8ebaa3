"""What a tool runs with: the media folder, a seeded random generator, limits, records.

Output names are confined to the media folder: absolute paths, ``..``, NUL bytes,
backslashes, sibling-prefix tricks (``media2`` beside ``media``) and symlinks that lead out
are refused before anything is created.
"""

from __future__ import annotations

import hashlib
import os
import random
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from benchsmith.errors import InputRejectedError, UnsafePathError
from benchsmith.files import append_jsonl, canonical_json
from benchsmith.tables import MAX_FILE_BYTES

if TYPE_CHECKING:
    import numpy as np

TOOL_RECORDS_FILE = "tool_records.jsonl"


class Limits(BaseModel):
    """Caps that protect a run from hostile or broken inputs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_image_pixels: int = Field(
        default=50_000_000, ge=1, description="Largest image (width x height) decoded."
    )
    max_audio_seconds: float = Field(
        default=1800.0, gt=0, description="Longest audio input or output, in seconds."
    )
    max_file_bytes: int = Field(
        default=MAX_FILE_BYTES, ge=1, description="Largest input file, in bytes."
    )
    max_text_chars: int = Field(
        default=200_000, ge=1, description="Longest text a tool takes (e.g. speech input)."
    )
    ffmpeg_timeout_s: float = Field(
        default=120.0, gt=0, description="Timeout of every ffmpeg/ffprobe/espeak-ng call."
    )
    max_search_results: int = Field(default=10, ge=1, le=50, description="Results per search.")
    max_fetch_bytes: int = Field(default=2_000_000, ge=1, description="Largest fetched page.")


def stable_seed(*parts: Any) -> int:
    """A 63-bit seed derived from any JSON-able parts (same parts, same seed, any process)."""
    digest = hashlib.sha256(canonical_json(list(parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class ToolContext:
    """The environment of one tool call.

    Attributes:
        media_dir: Folder every output goes into (created on first output).
        seed: Seed of this call; :attr:`rng` and :meth:`np_rng` derive from it.
        limits: Caps on inputs and outputs.
        run_dir: Folder for tool records (search results, ...); None keeps none.
        call_key: Digest of the call (tool, parameters, inputs); names default outputs.
        offline: No network: web tools refuse to run.
        allowed_roots: Folders tools may read local files from (inputs, corpora, recordings)
            besides the media and run folders; None allows any readable file (hand runs).
    """

    media_dir: Path
    seed: int = 0
    limits: Limits = field(default_factory=Limits)
    run_dir: Path | None = None
    call_key: str = "call"
    offline: bool = False
    allowed_roots: tuple[Path, ...] | None = None

    def __post_init__(self) -> None:
        """Normalize paths."""
        object.__setattr__(self, "media_dir", Path(self.media_dir))
        if self.run_dir is not None:
            object.__setattr__(self, "run_dir", Path(self.run_dir))

    def for_call(self, call_key: str, seed: int) -> ToolContext:
        """A copy for one call, with its own key and seed."""
        return replace(self, call_key=call_key, seed=seed)

    @cached_property
    def rng(self) -> random.Random:
        """The random generator of this call, seeded from it (same call, same numbers).

        One generator per context: successive draws differ, and a new call (a new context
        from :meth:`for_call`) starts from its own seed.
        """
        return random.Random(self.seed)

    @cached_property
    def _np_rng(self) -> np.random.Generator:
        import numpy as np

        return np.random.default_rng(self.seed)

    def np_rng(self) -> np.random.Generator:
        """The NumPy generator of this call (one per context, seeded from it)."""
        return self._np_rng

    # -- paths ------------------------------------------------------------------------------
    def output_path(self, name: str) -> Path:
        """The path of an output called ``name`` inside the media folder.

        Args:
            name: A relative name such as ``speech/q1.wav``.

        Returns:
            The absolute path (its parent folders are created; the file is not).

        Raises:
            UnsafePathError: The name would leave the media folder.
        """
        safe = confine(self.media_dir, name)
        safe.parent.mkdir(parents=True, exist_ok=True)
        return safe

    def default_output(self, suffix: str, stem: str = "") -> Path:
        """A deterministic output path for this call: ``{stem}-{call key}{suffix}``."""
        prefix = f"{stem}-" if stem else ""
        return self.output_path(f"{prefix}{self.call_key[:16]}{suffix}")

    def output_for(self, requested: str | None, suffix: str, stem: str = "") -> Path:
        """``requested`` (confined) when given, else :meth:`default_output`."""
        if requested:
            return self.output_path(requested)
        return self.default_output(suffix, stem)

    @cached_property
    def media_root(self) -> Path:
        """The media folder, resolved once per context."""
        return self.media_dir.resolve()

    def relative(self, path: Path) -> str:
        """A path inside the media folder, as a POSIX path relative to it."""
        p = Path(path)
        if not p.is_absolute() or ".." in p.parts:
            p = p.resolve()
        try:
            return p.relative_to(self.media_root).as_posix()
        except ValueError:
            try:
                return p.resolve().relative_to(self.media_root).as_posix()
            except ValueError:
                return str(path)

    def check_readable(self, path: str | os.PathLike[str]) -> Path:
        """Refuse a local file outside the allowed roots (when roots are set).

        Raises:
            UnsafePathError: ``path`` resolves outside every allowed root.
        """
        p = Path(path)
        if self.allowed_roots is None:
            return p
        roots = [*self.allowed_roots, self.media_dir]
        if self.run_dir is not None:
            roots.append(self.run_dir)
        resolved = p.resolve()
        if not any(resolved.is_relative_to(Path(r).resolve()) for r in roots):
            raise UnsafePathError(
                f"{str(p)!r} is outside the folders this run may read "
                f"({', '.join(str(r) for r in roots)})"
            )
        return p

    # -- records ----------------------------------------------------------------------------
    def record(self, event: dict[str, Any]) -> None:
        """Append an event (e.g. search results) to the run's tool records, if any."""
        if self.run_dir is not None:
            self.run_dir.mkdir(parents=True, exist_ok=True)
            append_jsonl(self.run_dir / TOOL_RECORDS_FILE, event)


def confine(root: Path, name: str) -> Path:
    """Resolve ``name`` inside ``root`` or refuse it.

    Raises:
        UnsafePathError: ``name`` is empty, absolute, has ``..``, a NUL byte or a backslash,
            or resolves (through symlinks) outside ``root``.
    """
    text = str(name)
    problem = None
    if not text or not text.strip():
        problem = "is empty"
    elif "\x00" in text:
        problem = "contains a NUL byte"
    elif "\\" in text:
        problem = "contains a backslash"
    elif os.path.isabs(text) or text.startswith("~"):
        problem = "is absolute"
    elif ".." in PurePosixPath(text).parts:
        problem = "contains '..'"
    if problem is None:
        root_resolved = Path(root).resolve()
        target = (root_resolved / text).resolve()
        if not target.is_relative_to(root_resolved) or target == root_resolved:
            problem = "leads outside the media folder (through a symlink?)"
    if problem:
        raise UnsafePathError(f"output name {text!r} {problem}; use a plain relative name")
    return target


def check_input_file(path: str | os.PathLike[str], limits: Limits) -> Path:
    """Check an input file exists, is a regular file, is not empty and is under the size cap.

    Raises:
        InputRejectedError: It is missing, a folder, empty or too large.
    """
    p = Path(path)
    if not p.exists():
        raise InputRejectedError(f"input {str(p)!r} does not exist")
    if not p.is_file():
        raise InputRejectedError(f"input {str(p)!r} is not a regular file")
    size = p.stat().st_size
    if size == 0:
        raise InputRejectedError(f"input {str(p)!r} is empty")
    if size > limits.max_file_bytes:
        raise InputRejectedError(
            f"input {str(p)!r} is {size} bytes, over the {limits.max_file_bytes}-byte limit"
        )
    return p
