"""Reference documents read as text and split into sections: the one reader of references.

A reference (a textbook chapter, notes, a manual) is Markdown, plain text, a PDF (text by
``pypdf``, which is optional) or markup that :mod:`benchsmith.markup` rewrites to Markdown
(LaTeX, HTML, OpenStax CNXML). :func:`read_reference` reads any of them; the splitters cut
the text into sections:

- Markdown at its headings (:func:`heading_sections`, :func:`markdown_spans`): a section is
  named by its heading trail (``Intro > Units``), fenced code is kept whole, and the text
  before the first heading is named by the document's title;
- plain text at underlined (setext) headings (:func:`setext_spans`);
- a PDF at its pages (:func:`page_spans`), named ``page N``.

The catalog makes a reference's sections into passages (:mod:`benchsmith.catalog.references`),
the solution graph into the sections facts are found in (:mod:`benchsmith.solution.documents`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from benchsmith.errors import BenchsmithError
from benchsmith.markup import MARKUP_SUFFIXES, MarkupError, to_markdown

REFERENCE_FORMATS = (".md", ".txt", ".pdf", ".tex", ".html", ".cnxml")
"""The reference formats named to a user (``.markdown`` and the other markup suffixes work too)."""

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SETEXT = re.compile(r"^\s*(=+|-+)\s*$")


class ReferenceFileError(BenchsmithError):
    """A reference file cannot be read (the message names the file and what to do)."""

    exit_code = 2


@dataclass(frozen=True)
class Reference:
    """A reference file's text.

    Attributes:
        path: The file, as it was given.
        kind: ``markdown`` (markup is rewritten to it), ``text`` or ``pdf``.
        text: The text; for a PDF, its pages joined by blank lines.
        pages: A PDF's pages, in order (empty for the other kinds).
    """

    path: Path
    kind: Literal["markdown", "text", "pdf"]
    text: str
    pages: tuple[str, ...] = ()


@dataclass(frozen=True)
class Span:
    """One section of a reference's text: its title and its ``[start, end)`` characters.

    Attributes:
        title: The heading trail, the underlined heading, ``page N``, or the document's title.
        start: Where the section's body starts (after its heading).
        end: Where it ends.
        page: The PDF page it is, if it is one.
    """

    title: str
    start: int
    end: int
    page: int | None = None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReferenceFileError(
            f"{path}: not valid UTF-8 (byte {exc.start}); re-save it as UTF-8"
        ) from exc
    except OSError as exc:
        raise ReferenceFileError(f"{path}: cannot be read ({exc.strerror or exc})") from exc


def _pdf_pages(path: Path) -> tuple[str, ...]:
    try:
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError
    except ImportError as exc:
        raise ReferenceFileError(
            f"{path}: reading PDF needs the optional package pypdf (pip install pypdf), "
            "or convert the PDF to text first"
        ) from exc
    try:
        return tuple(page.extract_text() or "" for page in PdfReader(str(path)).pages)
    except (PdfReadError, OSError, ValueError, KeyError) as exc:
        raise ReferenceFileError(f"{path}: not a readable PDF ({exc})") from exc


def read_reference(path: str | Path) -> Reference:
    """Read a reference: Markdown, plain text, PDF, or markup (LaTeX, HTML, CNXML) as Markdown.

    Raises:
        ReferenceFileError: No such file, an unknown suffix, not UTF-8, unreadable markup or
            PDF, or (for a PDF) pypdf is missing.
    """
    source = Path(path)
    if not source.is_file():
        raise ReferenceFileError(f"{source}: no such reference file")
    suffix = source.suffix.lower()
    if suffix == ".pdf":
        pages = _pdf_pages(source)
        return Reference(source, "pdf", "\n\n".join(pages), pages)
    if suffix in MARKUP_SUFFIXES:
        try:
            return Reference(source, "markdown", to_markdown(source))
        except MarkupError as exc:
            raise ReferenceFileError(str(exc)) from exc
    if suffix not in (".md", ".markdown", ".txt"):
        raise ReferenceFileError(f"{source}: a reference must be {', '.join(REFERENCE_FORMATS)}")
    return Reference(source, "text" if suffix == ".txt" else "markdown", _read_text(source))


def first_heading(lines: Iterable[str]) -> str | None:
    """The text of the first Markdown heading among ``lines``, if there is one."""
    for line in lines:
        match = _HEADING.match(line)
        if match:
            return match.group(2)
    return None


def heading_sections(lines: Sequence[str], title: str) -> Iterator[tuple[str, int, int]]:
    """Markdown's sections as line ranges: ``(heading trail, first body line, end line)``.

    A section's body runs from the line after its heading to the next heading outside fenced
    code; what comes before the first heading is named ``title``. Blank bodies are yielded
    too: what is blank is for the caller to judge on its own text.

    Args:
        lines: The text's lines, without their line ends.
        title: The name of the text before the first heading.
    """
    trail: list[tuple[int, str]] = []
    first = 0
    in_fence = False
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match:
            yield " > ".join(t for _, t in trail) or title, first, index
            level = len(match.group(1))
            trail = [(lv, t) for lv, t in trail if lv < level] + [(level, match.group(2))]
            first = index + 1
    yield " > ".join(t for _, t in trail) or title, first, len(lines)


def line_offsets(text: str) -> list[tuple[int, str]]:
    """(offset, line without its CR/LF end) for each line of ``text``."""
    out = []
    pos = 0
    for line in text.splitlines(keepends=True):
        out.append((pos, line.rstrip("\r\n")))
        pos += len(line)
    return out


def markdown_spans(text: str, title: str) -> list[Span]:
    """The non-blank sections of a Markdown text; a span is a body (after its heading)."""
    lines = line_offsets(text)
    spans = []
    for name, first, stop in heading_sections([line for _, line in lines], title):
        # a body starts one character past its heading's text: after a "\r\n", at the "\n"
        start = lines[first - 1][0] + len(lines[first - 1][1]) + 1 if first else 0
        end = lines[stop][0] if stop < len(lines) else len(text)
        if text[start:end].strip():
            spans.append(Span(name, start, end))
    return spans


def setext_spans(text: str, title: str) -> list[Span]:
    """The non-blank sections of plain text, cut at underlined headings (``===``, ``---``).

    What comes before the first heading (or the whole text, when it has none) is named
    ``title``.
    """
    lines = line_offsets(text)
    cuts: list[tuple[int, int, str]] = []  # (heading offset, body offset, heading)
    for i in range(1, len(lines)):
        offset, line = lines[i]
        prev_offset, prev = lines[i - 1]
        if _SETEXT.match(line) and prev.strip() and len(line.strip()) >= 3:
            cuts.append((prev_offset, offset + len(line) + 1, prev.strip()))
    if not cuts:
        return [Span(title, 0, len(text))] if text.strip() else []
    spans = []
    if text[: cuts[0][0]].strip():
        spans.append(Span(title, 0, cuts[0][0]))
    for index, (_, body_start, heading) in enumerate(cuts):
        end = cuts[index + 1][0] if index + 1 < len(cuts) else len(text)
        body_end = max(body_start, end)
        if text[body_start:body_end].strip():
            spans.append(Span(heading, body_start, body_end))
    return spans


def page_spans(pages: Sequence[str]) -> list[Span]:
    """The non-blank pages of a PDF, as spans of its pages joined by blank lines."""
    spans = []
    pos = 0
    for number, page in enumerate(pages, start=1):
        if page.strip():
            spans.append(Span(f"page {number}", pos, pos + len(page), page=number))
        pos += len(page) + 2
    return spans
