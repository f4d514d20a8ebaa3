"""Reference documents (Markdown, plain text, PDF) as catalog sources.

A reference (a textbook chapter, notes, a manual) becomes a dataset whose records are its
passages: ``{"section": ..., "chunk": n, "text": ...}`` (plus ``page`` for a PDF). Markdown
is split at its headings (``section`` is the heading trail, ``Intro > Units``), and every
section into passages of whole paragraphs (at most about 1,200 characters, the same
chunking as the offline search index). PDF text needs ``pypdf``, which is optional.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchsmith.catalog.errors import CatalogError
from benchsmith.catalog.readers import strip_suffixes
from benchsmith.markup import MARKUP_SUFFIXES, MarkupError, to_markdown
from benchsmith.tools.search.index import split_chunks

REFERENCE_TASKS = ["reading comprehension", "reference"]
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CatalogError(
            f"{path}: not valid UTF-8 (byte {exc.start}); re-save it as UTF-8"
        ) from exc
    except OSError as exc:
        raise CatalogError(f"{path}: cannot be read ({exc.strerror or exc})") from exc


def markdown_sections(text: str, title: str) -> Iterator[tuple[str, str]]:
    """(heading trail, body) for each section of a Markdown text; fenced code is kept whole."""
    trail: list[tuple[int, str]] = []
    body: list[str] = []
    in_fence = False

    def current() -> str:
        return " > ".join(t for _, t in trail) or title

    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match:
            if "".join(body).strip():
                yield current(), "\n".join(body)
            body = []
            level = len(match.group(1))
            trail = [(lv, t) for lv, t in trail if lv < level] + [(level, match.group(2))]
        else:
            body.append(line)
    if "".join(body).strip():
        yield current(), "\n".join(body)


def _pdf_pages(path: Path) -> Iterator[tuple[int, str]]:
    try:
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError
    except ImportError as exc:
        raise CatalogError(
            f"{path}: reading PDF needs the optional package pypdf (pip install pypdf), "
            "or convert the PDF to text first"
        ) from exc
    try:
        reader = PdfReader(str(path))
        for number, page in enumerate(reader.pages, start=1):
            yield number, page.extract_text() or ""
    except (PdfReadError, OSError, ValueError, KeyError) as exc:
        raise CatalogError(f"{path}: not a readable PDF ({exc})") from exc


def reference_records(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The passages of a reference document, in reading order.

    Raises:
        CatalogError: Unknown suffix, unreadable file, or (for PDF) pypdf is missing.
    """
    source = Path(path)
    if not source.is_file():
        raise CatalogError(f"{source}: no such file")
    suffix = source.suffix.lower()
    title = strip_suffixes(source.name)
    if suffix == ".pdf":
        for number, text in _pdf_pages(source):
            for i, chunk in enumerate(split_chunks(text)):
                yield {"section": f"page {number}", "chunk": i, "page": number, "text": chunk}
        return
    if suffix in MARKUP_SUFFIXES:
        try:
            text = to_markdown(source)
        except MarkupError as exc:
            raise CatalogError(str(exc)) from exc
        suffix = ".md"
    elif suffix not in (".md", ".markdown", ".txt"):
        raise CatalogError(f"{source}: a reference must be .md, .txt, .pdf, .tex, .html or .cnxml")
    else:
        text = _read_text(source)
    sections = markdown_sections(text, title) if suffix != ".txt" else iter([(title, text)])
    for section, body in sections:
        for i, chunk in enumerate(split_chunks(body)):
            yield {"section": section, "chunk": i, "text": chunk}


def reference_title(path: str | os.PathLike[str]) -> str:
    """A reference's title: its first Markdown heading, else its file name."""
    source = Path(path)
    if source.suffix.lower() in (".md", ".markdown", *MARKUP_SUFFIXES):
        text = _read_text(source) if source.suffix.lower() in (".md", ".markdown") else ""
        if not text:
            try:
                text = to_markdown(source)
            except MarkupError:
                text = ""
        for line in text.splitlines():
            match = _HEADING.match(line)
            if match:
                return match.group(2)
    return strip_suffixes(source.name).replace("_", " ").replace("-", " ")
