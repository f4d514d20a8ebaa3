"""Writing files safely: canonical JSON, whole-line JSONL appends and atomic replacement.

Every file benchsmith writes goes through here, so there is one answer to "can a reader
see half a file?" (no: :func:`atomic_write`, :func:`atomic_lines`, :func:`atomic_path` and
:func:`atomic_hashed_path` write a temporary file in the target's folder, fsync it and
rename it into place) and to "can a killed process leave half a line?" (at most the last,
which readers drop: :func:`append_jsonl`). A leaf module: it imports nothing of benchsmith.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import IO, Any

import orjson


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: equal values give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def json_line(value: Any) -> str:
    """``value`` as one line of compact JSON, keys in their order, text as UTF-8.

    For the files a benchmark is read from (``data/test.jsonl``, ``rejects.jsonl``, the
    split's metadata column): orjson writes them about eight times faster than ``json``.
    A non-finite float is written as ``null`` (strict JSON readers, Hugging Face's among
    them, refuse ``NaN``); what orjson does not write (a key that is not a string, an
    integer beyond 64 bits) is written by ``json``, and what neither can raises TypeError.
    Not for hashing: :func:`canonical_json` is the text digests are taken of.
    """
    try:
        return orjson.dumps(value).decode("utf-8")
    except orjson.JSONEncodeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def parse_json(text: str | bytes) -> Any:
    """Parse one JSON text as :func:`json.loads` does, with orjson's parser when it can.

    Bytes that are not UTF-8 are read with replacement characters. What orjson refuses
    and ``json`` reads (``NaN``, numbers beyond a double, lone surrogate escapes) is parsed
    by ``json``, and so is a text with an integer outside 64 bits' range (which orjson
    reads as a float; found, with any other run of 20 digits, by :func:`_beyond_64_bits`):
    the result is always ``json.loads``'s.

    Raises:
        json.JSONDecodeError: The text is not JSON.
    """
    raw = text.encode("utf-8", errors="surrogatepass") if isinstance(text, str) else text
    if not _beyond_64_bits(raw):
        with contextlib.suppress(orjson.JSONDecodeError):
            return orjson.loads(raw)
    if not isinstance(text, str):
        text = bytes(text).decode("utf-8", errors="replace")
    return json.loads(text)


def package_json(package: str, name: str) -> Any:
    """The JSON data file ``name`` shipped inside ``package`` (e.g. ``benchsmith.programs``).

    Read through :mod:`importlib.resources`, so it works from a wheel as from a checkout;
    the file must be listed in ``pyproject.toml``'s package data.
    """
    return json.loads(resources.files(package).joinpath(name).read_text("utf-8"))


_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")


def _beyond_64_bits(raw: bytes | bytearray | memoryview) -> bool:
    """Whether ``raw`` may hold an integer orjson cannot read exactly.

    orjson reads integers from -2**63 to 2**64 - 1 as ``int``: outside that, a number
    has 20 digits or more, or is negative with 19. Two C-level passes (about 3 us for a
    2 KB line, where a regular expression takes 20).
    """
    zeros = bytes(raw).translate(_DIGITS_AS_ZERO)
    return b"0" * 20 in zeros or b"-" + b"0" * 19 in zeros


def sha256_text(text: str) -> str:
    """Hex SHA-256 of a text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def append_jsonl(path: str | os.PathLike[str], record: dict, *, fsync: bool = False) -> None:
    """Append one record as one line, written whole with a single ``write``.

    Once ``write`` returns, the line is in the page cache: a process killed after that
    (even with SIGKILL) loses nothing, and one killed during it leaves at most a partial
    last line, which readers drop. ``fsync`` also protects against a power loss, at a
    cost of milliseconds a line; the run records do without it (a lost call is redone).
    """
    line = (canonical_json(record) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)


def read_whole_lines(path: str | os.PathLike[str]) -> bytes:
    """The whole lines of an append-only file, cutting a torn last line off the file.

    A process killed in the middle of :func:`append_jsonl` leaves at most a partial last
    line; it was never acknowledged, so it is dropped (and truncated away, so the next
    append starts on a line of its own).
    """
    with open(path, "r+b") as fh:
        data = fh.read()
        end = data.rfind(b"\n") + 1
        if end < len(data):
            fh.truncate(end)
    return data[:end]


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _current_umask()  # read once, at import: os.umask cannot be read without setting it


def _file_mode(target: Path) -> int:
    """The mode a published file gets: the one it replaces, else what ``open`` would give.

    ``mkstemp`` creates files readable by their owner only (0600); a benchmark folder and
    its dataset card are meant to be shared, so the file gets the umask's usual mode.
    """
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        return 0o666 & ~_UMASK


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], *, fsync: bool = True) -> Iterator[Path]:
    """A temporary path beside ``path`` that becomes ``path`` when the block ends well.

    The caller writes the temporary file however it likes (a SQLite backup, a copy, a
    library's ``save``); it is fsynced (unless ``fsync=False``) and renamed over ``path`` on
    success and removed on failure, so readers see the old file or the new one, never half
    of either.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        if fsync:
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
        os.chmod(tmp, _file_mode(target))
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


@dataclass
class HashedPath:
    """A file being written by :func:`atomic_hashed_path`: where to write it, where it went."""

    tmp: Path
    path: Path | None = None


@contextlib.contextmanager
def atomic_hashed_path(
    folder: str | os.PathLike[str], stem: str, suffix: str, digits: int = 12
) -> Iterator[HashedPath]:
    """A temporary file in ``folder`` that becomes ``folder/STEM-DIGEST SUFFIX`` at the end.

    ``DIGEST`` is the first ``digits`` hex digits of the finished file's SHA-256, so the name
    changes exactly when the bytes do (a reader that caches by file name, as Hugging Face
    ``datasets`` does for a local folder, never sees stale data), and the same bytes get the
    same name. Like :func:`atomic_path`, the file is fsynced and renamed into place on
    success and removed on failure; ``.path`` holds the final path afterwards.
    """
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=target, prefix=f".{stem}.", suffix=".tmp")
    os.close(fd)
    out = HashedPath(tmp=Path(name))
    try:
        yield out
        digest = hashlib.sha256()
        with open(out.tmp, "rb+") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
            os.fsync(fh.fileno())
        out.path = target / f"{stem}-{digest.hexdigest()[:digits]}{suffix}"
        os.chmod(out.tmp, _file_mode(out.path))
        os.replace(out.tmp, out.path)
    finally:
        out.tmp.unlink(missing_ok=True)


def atomic_write(path: str | os.PathLike[str], data: str | bytes, *, fsync: bool = True) -> Path:
    """Write a whole file atomically (readers see the old file or the new one).

    ``fsync=False`` skips flushing the file to disk before the rename (milliseconds a file):
    for files whose readers check what they read and can rebuild it (a cache), where a
    power loss may leave an empty or partial file but a running reader never sees one.
    """
    with atomic_path(path, fsync=fsync) as tmp:
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(path)


def write_json(path: str | os.PathLike[str], data: Any) -> Path:
    """Write a JSON value (indented, UTF-8, newline-terminated) atomically."""
    return atomic_write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


@contextlib.contextmanager
def atomic_lines(path: str | os.PathLike[str]) -> Iterator[IO[str]]:
    """Write a text file line by line, atomically.

    Lines go to a temporary file, renamed into place at the end; a failure leaves the old
    file as it was.
    """
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        yield fh


def home_dir() -> Path:
    """Benchsmith's own folder: ``$BENCHSMITH_HOME``, by default ``~/.benchsmith``."""
    return Path(os.environ.get("BENCHSMITH_HOME") or "~/.benchsmith").expanduser()
