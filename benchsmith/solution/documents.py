"""Reference documents split into sections with character spans.

Every fact extracted later keeps a :class:`Source`: the file, the section title and the
character span in the document's text. The reference reader (:mod:`benchsmith.references`)
reads the file and splits it: Markdown at its headings (fenced code is kept whole), plain
text at underlined (setext) headings, a PDF at its pages (text by pypdf, which is optional).
For a PDF, spans index the text of all pages joined by blank lines; LaTeX, HTML and CNXML
are first rewritten to Markdown (:mod:`benchsmith.markup`), which the spans index.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from benchsmith.references import (
    ReferenceFileError,
    first_heading,
    line_offsets,
    markdown_spans,
    page_spans,
    read_reference,
    setext_spans,
)
from benchsmith.solution.errors import SolutionError


@dataclass(frozen=True)
class Source:
    """Where a fact comes from: file, section title and ``[start, end)`` character span."""

    file: str
    section: str
    start: int
    end: int

    def to_dict(self) -> dict[str, Any]:
        """The form kept in item metadata: ``{"file", "section", "span": [start, end]}``.

        ``file`` is the document's name, not the path it was read from: items and reports
        are published, and the building machine's folders are nobody's business (nor any
        use to a reader, who finds the document by its name).
        """
        return {
            "file": PurePosixPath(self.file.replace("\\", "/")).name or self.file,
            "section": self.section,
            "span": [self.start, self.end],
        }


@dataclass(frozen=True)
class Section:
    """One section of a document: its heading trail, its concept and its span."""

    file: str
    title: str
    start: int
    end: int
    text: str

    @property
    def concept(self) -> str:
        """The innermost heading (the concept the section teaches)."""
        return self.title.split(" > ")[-1]

    def source(self, start: int | None = None, end: int | None = None) -> Source:
        """A source inside this section (offsets relative to the section; default: all of it)."""
        lo = self.start + (start if start is not None else 0)
        hi = self.start + (end if end is not None else len(self.text))
        return Source(self.file, self.title, lo, hi)


@dataclass(frozen=True)
class Document:
    """A reference document: its path, full text and sections in reading order."""

    path: Path
    title: str
    text: str
    sections: tuple[Section, ...]


def read_document(path: str | Path) -> Document:
    """Read a reference (Markdown, text, PDF, LaTeX, HTML or OpenStax CNXML) into sections.

    Raises:
        SolutionError: No such file, an unknown suffix, not UTF-8, or an unreadable PDF.
    """
    try:
        reference = read_reference(path)
    except ReferenceFileError as exc:
        raise SolutionError(str(exc)) from exc
    text = reference.text
    title = reference.path.stem.replace("_", " ").replace("-", " ")
    if reference.kind == "pdf":
        spans = page_spans(reference.pages)
    elif reference.kind == "text":
        spans = setext_spans(text, title)
    else:
        title = first_heading(line for _, line in line_offsets(text)) or title
        spans = markdown_spans(text, title)
    file = str(reference.path)
    sections = tuple(Section(file, s.title, s.start, s.end, text[s.start : s.end]) for s in spans)
    return Document(reference.path, title, text, sections)
