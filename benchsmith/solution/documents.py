"""Reference documents split into sections with character spans.

Every fact extracted later keeps a :class:`Source`: the file, the section title and the
character span in the document's text. Markdown is split at its headings (fenced code is kept
whole), plain text at underlined (setext) headings, a PDF at its pages (text by pypdf, which
is optional). For a PDF, spans index the text of all pages joined by blank lines; LaTeX,
HTML and CNXML are first rewritten to Markdown (:mod:`benchsmith.markup`), which the spans
index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from benchsmith.markup import MARKUP_SUFFIXES, MarkupError, to_markdown
from benchsmith.solution.errors import SolutionError

REFERENCE_FORMATS = (".md", ".txt", ".pdf", ".tex", ".html", ".cnxml")

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SETEXT = re.compile(r"^\s*(=+|-+)\s*$")


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


def _line_offsets(text: str) -> list[tuple[int, str]]:
    out = []
    pos = 0
    for line in text.splitlines(keepends=True):
        out.append((pos, line.rstrip("\r\n")))
        pos += len(line)
    return out


def markdown_sections(text: str, file: str, title: str) -> list[Section]:
    """Split Markdown at its headings; a section's span is its body (after the heading)."""
    sections: list[Section] = []
    trail: list[tuple[int, str]] = []
    body_start = 0
    in_fence = False

    def close(end: int) -> None:
        body = text[body_start:end]
        if body.strip():
            name = " > ".join(t for _, t in trail) or title
            sections.append(Section(file, name, body_start, end, body))

    for offset, line in _line_offsets(text):
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match:
            close(offset)
            level = len(match.group(1))
            trail = [(lv, t) for lv, t in trail if lv < level] + [(level, match.group(2))]
            body_start = offset + len(line) + 1
    close(len(text))
    return sections


def text_sections(text: str, file: str, title: str) -> list[Section]:
    """Split plain text at underlined headings (a line of ``===`` or ``---`` under a title)."""
    lines = _line_offsets(text)
    cuts: list[tuple[int, int, str]] = []  # (heading offset, body offset, heading)
    for i in range(1, len(lines)):
        offset, line = lines[i]
        prev_offset, prev = lines[i - 1]
        if _SETEXT.match(line) and prev.strip() and len(line.strip()) >= 3:
            cuts.append((prev_offset, offset + len(line) + 1, prev.strip()))
    if not cuts:
        return [Section(file, title, 0, len(text), text)] if text.strip() else []
    sections = []
    if text[: cuts[0][0]].strip():
        sections.append(Section(file, title, 0, cuts[0][0], text[: cuts[0][0]]))
    for index, (_, body_start, heading) in enumerate(cuts):
        end = cuts[index + 1][0] if index + 1 < len(cuts) else len(text)
        body_end = max(body_start, end)
        if text[body_start:body_end].strip():
            sections.append(Section(file, heading, body_start, body_end, text[body_start:body_end]))
    return sections


def _pdf_text(path: Path) -> list[str]:
    try:
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError
    except ImportError as exc:
        raise SolutionError(
            f"{path}: reading PDF needs the optional package pypdf (pip install pypdf), "
            "or convert the PDF to text first"
        ) from exc
    try:
        return [page.extract_text() or "" for page in PdfReader(str(path)).pages]
    except (PdfReadError, OSError, ValueError, KeyError) as exc:
        raise SolutionError(f"{path}: not a readable PDF ({exc})") from exc


def read_document(path: str | Path) -> Document:
    """Read a reference (Markdown, text, PDF, LaTeX, HTML or OpenStax CNXML) into sections.

    Raises:
        SolutionError: No such file, an unknown suffix, not UTF-8, or an unreadable PDF.
    """
    source = Path(path)
    if not source.is_file():
        raise SolutionError(f"{source}: no such reference file")
    suffix = source.suffix.lower()
    title = source.stem.replace("_", " ").replace("-", " ")
    file = str(source)
    if suffix == ".pdf":
        pages = _pdf_text(source)
        text = "\n\n".join(pages)
        sections = []
        pos = 0
        for number, page in enumerate(pages, start=1):
            if page.strip():
                sections.append(Section(file, f"page {number}", pos, pos + len(page), page))
            pos += len(page) + 2
        return Document(source, title, text, tuple(sections))
    if suffix in MARKUP_SUFFIXES:
        try:
            text = to_markdown(source)  # CNXML, HTML, LaTeX: spans index this Markdown
        except MarkupError as exc:
            raise SolutionError(str(exc)) from exc
    elif suffix not in (".md", ".markdown", ".txt"):
        raise SolutionError(f"{source}: a reference must be {', '.join(REFERENCE_FORMATS)}")
    else:
        try:
            text = source.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError as exc:
            raise SolutionError(
                f"{source}: not valid UTF-8 (byte {exc.start}); re-save it"
            ) from exc
    if suffix == ".txt":
        return Document(source, title, text, tuple(text_sections(text, file, title)))
    for _, line in _line_offsets(text):
        match = _HEADING.match(line)
        if match:
            title = match.group(2)
            break
    return Document(source, title, text, tuple(markdown_sections(text, file, title)))
