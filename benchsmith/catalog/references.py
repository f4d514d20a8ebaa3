"""Reference documents (Markdown, plain text, PDF, markup) as catalog sources.

A reference (a textbook chapter, notes, a manual) becomes a dataset whose records are its
passages: ``{"section": ..., "chunk": n, "text": ...}`` (plus ``page`` for a PDF). The
reference reader (:mod:`benchsmith.references`) reads the file and splits Markdown at its
headings (``section`` is the heading trail, ``Intro > Units``) and a PDF at its pages; plain
text is one section. Every section is cut into passages of whole paragraphs (at most about
1,200 characters, the same chunking as the offline search index).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

from benchsmith.catalog.errors import CatalogError
from benchsmith.catalog.readers import strip_suffixes
from benchsmith.references import (
    Reference,
    ReferenceFileError,
    first_heading,
    heading_sections,
    page_spans,
    read_reference,
)
from benchsmith.tools.search.index import split_chunks

REFERENCE_TASKS = ["reading comprehension", "reference"]


def open_reference(path: str | os.PathLike[str]) -> Reference:
    """Read a reference document for the catalog.

    Raises:
        CatalogError: No such file, an unknown suffix, an unreadable file, or (for a PDF)
            pypdf is missing.
    """
    try:
        return read_reference(path)
    except ReferenceFileError as exc:
        raise CatalogError(str(exc)) from exc


def _sections(reference: Reference) -> Iterable[tuple[str, str]]:
    """(section name, body) of a Markdown or plain-text reference; bodies end lines in LF."""
    title = strip_suffixes(reference.path.name)
    if reference.kind == "text":
        return [(title, reference.text)]
    lines = reference.text.splitlines()
    return (
        (name, "\n".join(lines[first:stop])) for name, first, stop in heading_sections(lines, title)
    )


def reference_records(reference: Reference) -> Iterator[dict[str, Any]]:
    """The passages of a reference document, in reading order."""
    if reference.kind == "pdf":
        for span in page_spans(reference.pages):
            page = reference.text[span.start : span.end]
            for i, chunk in enumerate(split_chunks(page)):
                yield {"section": span.title, "chunk": i, "page": span.page, "text": chunk}
        return
    for section, body in _sections(reference):
        for i, chunk in enumerate(split_chunks(body)):
            yield {"section": section, "chunk": i, "text": chunk}


def reference_title(reference: Reference) -> str:
    """A reference's title: its first Markdown heading, else its file name."""
    heading = first_heading(reference.text.splitlines()) if reference.kind == "markdown" else None
    return heading or strip_suffixes(reference.path.name).replace("_", " ").replace("-", " ")
