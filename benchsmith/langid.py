"""Language identification (lingua) in a worker process, off the build's GIL.

Loading lingua's models for one candidate set (about seven languages) takes ~2.5 s of CPU
during which lingua holds the GIL: in the build process it stopped every slot thread,
model requests included, for that long, and each identification after that cost the
build's one busy core again. The worker is a second Python process (``python -m
benchsmith.langid``, importing lingua only) that loads the models while the build goes on,
on the machine's other core, and answers over pipes, one JSON line per request.

:func:`confidences` is the one entry point: the confidence of each candidate language for a
text. :func:`prewarm` starts the worker and has it load a candidate set before the first
text arrives. When the worker cannot start or dies, identification runs in this process
instead (the same lingua calls, so the same verdicts) and the reason is logged once;
``BENCHSMITH_LANGID=inprocess`` chooses that from the start.

The worker reads requests until its standard input closes, so it ends with the process
that started it, however that one ends.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

log = logging.getLogger(__name__)

# Candidate languages lingua chooses among, by the script of the expected language: a small
# set keeps the detector at ~200 MB and ~2.5 s to load instead of 900 MB and ~21 s.
_LATIN_CANDIDATES = ("en", "fr", "de", "es", "it", "pt", "nl")
_CYRILLIC_CANDIDATES = ("ru", "uk", "bg", "sr", "be", "mk")
_SCRIPT_GROUPS: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = (
    (
        frozenset(
            "en fr de es it pt nl sv da nb nn fi pl cs sk sl hr bs ro hu tr vi id ms tl ca eu "
            "et lv lt is ga cy sq sw af az so eo la lg mi sn st tn ts xh yo zu".split()
        ),
        _LATIN_CANDIDATES,
    ),
    (frozenset("ru uk bg sr be mk kk mn".split()), _CYRILLIC_CANDIDATES),
    (frozenset({"ar", "fa", "ur"}), ("ar", "fa", "ur")),
    (frozenset({"hi", "mr"}), ("hi", "mr")),
    (frozenset({"zh", "ja"}), ("zh", "ja")),
)


def _candidates(code: str) -> tuple[str, ...]:
    for members, candidates in _SCRIPT_GROUPS:
        if code in members:
            return tuple(dict.fromkeys((code, *candidates)))
    # Another script (Greek, Hebrew, Thai, Korean, ...): lingua then mostly checks the script.
    return tuple(dict.fromkeys((code, "en")))


def lingua_language(code: str) -> Any | None:
    """Lingua's ``Language`` of an ISO 639-1 code, or None when lingua has no model for it.

    Raises:
        ImportError: lingua is not installed.
    """
    from lingua import IsoCode639_1, Language

    iso = getattr(IsoCode639_1, code.upper(), None)
    if iso is None:
        return None
    try:
        return Language.from_iso_code_639_1(iso)
    except ValueError:
        return None


def candidate_codes(language: str | None) -> tuple[str, ...] | None:
    """The languages lingua chooses among for ``language``, sorted (None: no model for it).

    Raises:
        ImportError: lingua is not installed.
    """
    code = re.split(r"[-_]", (language or "").strip().lower(), maxsplit=1)[0]
    if not code or lingua_language(code) is None:
        return None
    return tuple(sorted(c for c in _candidates(code) if lingua_language(c) is not None))


def prewarm_languages(languages: Iterable[str | None]) -> None:
    """Have the worker load the models these languages need, now and without waiting.

    A build calls this as early as it can (``benchsmith build`` before its imports), so
    the models are loaded on another core by the time its first item is identified.
    """
    try:
        sets = {candidate_codes(lang or "en") for lang in (list(languages) or ["en"])}
    except ImportError:
        return
    prewarm(codes for codes in sets if codes)


_COMMAND = (sys.executable, "-m", "benchsmith.langid")
_LOCK = threading.Lock()
_WORKER: subprocess.Popen[str] | None = None
_WORKER_PID = 0
"""The process that started ``_WORKER`` (a forked child must not share its pipes)."""
_BROKEN: str | None = None
"""Why the worker is not used (set once it failed, or when chosen by the environment)."""


@lru_cache(maxsize=8)
def _detector(codes: tuple[str, ...]) -> Any:
    """A lingua detector over the languages of these ISO 639-1 codes (in this process)."""
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    languages = [Language.from_iso_code_639_1(getattr(IsoCode639_1, c.upper())) for c in codes]
    return LanguageDetectorBuilder.from_languages(*languages).build()


def _local(codes: tuple[str, ...], text: str) -> list[tuple[str, float]]:
    values = _detector(codes).compute_language_confidence_values(text)
    return [(v.language.iso_code_639_1.name.lower(), float(v.value)) for v in values]


def _start() -> subprocess.Popen[str] | None:
    """The running worker, started if needed; None when identification runs in process."""
    global _WORKER, _WORKER_PID, _BROKEN
    if _BROKEN is None and os.environ.get("BENCHSMITH_LANGID", "").lower() == "inprocess":
        _BROKEN = "BENCHSMITH_LANGID=inprocess"
    if _BROKEN is not None:
        return None
    if _WORKER is not None and _WORKER_PID != os.getpid():
        # A forked child: the pipes are its parent's; it starts its own worker.
        _WORKER = None
    if _WORKER is not None and _WORKER.poll() is None:
        return _WORKER
    try:
        _WORKER_PID = os.getpid()
        _WORKER = subprocess.Popen(
            list(_COMMAND),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
    except OSError as exc:
        _fail(f"could not start the language-ID worker: {exc}")
        return None
    return _WORKER


def _fail(reason: str) -> None:
    global _WORKER, _BROKEN
    _BROKEN = reason
    log.warning("%s; language identification runs in this process", reason)
    if _WORKER is not None:
        _WORKER.kill()
        _WORKER = None


def _ask(request: dict[str, Any]) -> Any:
    """Send one request to the worker and read its answer (None: use the local path)."""
    with _LOCK:
        worker = _start()
        if worker is None or worker.stdin is None or worker.stdout is None:
            return None
        try:
            worker.stdin.write(json.dumps(request, ensure_ascii=False) + "\n")
            worker.stdin.flush()
            line = worker.stdout.readline()
        except (OSError, ValueError) as exc:
            _fail(f"the language-ID worker stopped answering: {exc}")
            return None
        if not line:
            _fail(f"the language-ID worker ended (exit code {worker.poll()})")
            return None
        answer = json.loads(line)
        if "error" in answer:
            # lingua itself refused (not installed, an unknown code): the same error here.
            if answer["error"].startswith("ImportError"):
                raise ImportError(answer["error"])
            raise ValueError(answer["error"])
        return answer["values"]


def confidences(codes: Iterable[str], text: str) -> list[tuple[str, float]]:
    """The confidence lingua gives each candidate language (ISO 639-1 codes) for ``text``.

    Raises:
        ImportError: lingua is not installed (in process; the worker reports it the same).
    """
    key = tuple(sorted(set(codes)))
    return list(_confidences(key, text))


@lru_cache(maxsize=256)
def _confidences(key: tuple[str, ...], text: str) -> tuple[tuple[str, float], ...]:
    # Cached: an item's question is identified when it is worded and again when verified,
    # a few steps apart in one slot; a few hundred texts cover every slot in flight, and a
    # larger cache only held each item's texts (memory that grew with the build's size).
    values = _ask({"codes": key, "text": text})
    if values is None:
        return tuple(_local(key, text))
    return tuple((str(code), float(value)) for code, value in values)


def prewarm(code_sets: Iterable[Iterable[str]]) -> None:
    """Start the worker and have it load these candidate sets now, without waiting."""
    sets = [tuple(sorted(set(codes))) for codes in code_sets]
    with _LOCK:
        worker = _start()
        if worker is None or worker.stdin is None:
            return
        try:
            for key in sets:
                worker.stdin.write(json.dumps({"codes": key, "warm": True}) + "\n")
            worker.stdin.flush()
        except (OSError, ValueError) as exc:
            _fail(f"the language-ID worker stopped answering: {exc}")


def _serve() -> None:  # pragma: no cover - runs in the worker process
    """Answer requests from standard input until it closes (the parent is gone)."""
    for line in sys.stdin:
        request = json.loads(line)
        codes = tuple(request["codes"])
        try:
            if request.get("warm"):
                # Loads the models: lingua loads them on the first identification.
                _local(codes, "warm up the models")
                continue
            answer: dict[str, Any] = {"values": _local(codes, request["text"])}
        except (ImportError, ValueError, AttributeError) as exc:
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":  # pragma: no cover - the worker's entry point
    _serve()
