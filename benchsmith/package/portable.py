"""Paths as a benchmark folder records them: never the building machine's absolute paths.

A benchmark folder is published and moved; the absolute path of a file on the machine that
built it (``/home/ana/thesis/chapter3.md``) tells a reader nothing they can open, and tells
everyone the builder's user name and folder layout. So a file inside the folder is recorded
by its path relative to the folder (``media/x.png``), and a file outside it (a reference
document, a user's table) by its name. :func:`portable_path` decides which;
:func:`portable_metadata` applies it to the paths items carry (``metadata.reference.file``,
``metadata.sources[].file``); :func:`scrub_paths` rewrites absolute paths quoted in free
text (an error message kept as a rejection reason).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

# An absolute POSIX path (``/a/b``, at least two parts), a home path (``~/a``) or a Windows
# one (``C:\\a\\b``), not inside a word or a URL (``https://x/y`` has ``:`` before its ``//``).
_ABSOLUTE = re.compile(
    r"(?<![\w:/.~\\-])"
    r"(?:~?/(?:[^\s'\"/<>|`]+/)+[^\s'\"/<>|`,;)]*"
    r"|[A-Za-z]:\\(?:[^\s'\"\\<>|`]+\\)+[^\s'\"\\<>|`,;)]*)"
)


def is_absolute(text: str) -> bool:
    """Whether ``text`` is an absolute path of some machine (POSIX, home or Windows)."""
    text = str(text)
    return (
        text.startswith(("/", "~"))
        or PureWindowsPath(text).is_absolute()
        or text.startswith("file://")
    )


def portable_path(path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None) -> str:
    """How a folder records ``path``: relative to ``root`` when inside it, else its name.

    Args:
        path: A file path (absolute or relative).
        root: The benchmark folder; None records every path by its name.

    Returns:
        A POSIX path relative to ``root`` (``media/x.png``), or the file's name.
    """
    text = os.fspath(path)
    if text.startswith("file://"):
        text = text[len("file://") :]
    if root is not None:
        candidate = Path(text)
        if not candidate.is_absolute():
            candidate = Path(root) / candidate
        for base in {Path(root).absolute(), Path(root).resolve()}:
            for target in (Path(os.path.normpath(candidate.absolute())), candidate.resolve()):
                if target.is_relative_to(base) and target != base:
                    return target.relative_to(base).as_posix()
    if "\\" in text and PureWindowsPath(text).is_absolute():
        return PureWindowsPath(text).name
    return PurePosixPath(text).name or text


def portable_source(text: str) -> str:
    """A dataset's provenance for a card: a local path becomes its file name.

    URLs, Hugging Face ids and package names are kept as they are.
    """
    return portable_path(text) if is_absolute(text) else text


def scrub_paths(text: str, root: str | os.PathLike[str] | None = None) -> str:
    """``text`` with every absolute path in it replaced by :func:`portable_path`'s form."""
    if "/" not in text and "\\" not in text:
        return text
    return _ABSOLUTE.sub(lambda m: portable_path(os.path.expanduser(m.group(0)), root), text)


def scrub_value(value: Any, root: str | os.PathLike[str] | None = None) -> Any:
    """A JSON value with :func:`scrub_paths` applied to every string in it."""
    if isinstance(value, str):
        return scrub_paths(value, root)
    if isinstance(value, Mapping):
        return {k: scrub_value(v, root) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_value(v, root) for v in value]
    return value


def portable_files(value: Any, root: str | os.PathLike[str] | None = None) -> Any:
    """A JSON value with every ``"file"`` string in it made portable (solution reports)."""
    if isinstance(value, Mapping):
        return {
            k: portable_path(v, root)
            if k == "file" and isinstance(v, str)
            else portable_files(v, root)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [portable_files(v, root) for v in value]
    return value


def _portable_file(place: Any, root: str | os.PathLike[str] | None) -> Any:
    if isinstance(place, Mapping) and isinstance(place.get("file"), str):
        return {**place, "file": portable_path(place["file"], root)}
    return place


def portable_metadata(
    metadata: Mapping[str, Any], root: str | os.PathLike[str] | None = None
) -> dict[str, Any]:
    """Item metadata with the files it cites (``reference``, ``sources``) made portable.

    Items built before paths were made portable hold the reference document's absolute
    path; repackaging such a build writes its name instead.
    """
    out = dict(metadata)
    if "reference" in out:
        out["reference"] = _portable_file(out["reference"], root)
    if isinstance(out.get("sources"), list):
        out["sources"] = [_portable_file(s, root) for s in out["sources"]]
    return out
