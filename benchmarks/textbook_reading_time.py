"""The time to read a textbook chapter of about ten pages with a reader model.

Reads one corpus document (by default the longest of ``tests/textbooks/corpus``, or
several concatenated with ``--file`` repeated, until ``--pages`` pages of text) with the
reader model (``local:reader``: Qwen2.5-Coder-1.5B, on every core of this machine) and
reports:

* **start-up**: the reader's server start (loading the model), apart from the reading;
* **cold reading**: :func:`~benchsmith.solution.knowledge.build_knowledge` with an empty
  reading cache: every question asked (formulas in words, each symbol's words, unit and
  range, pairs of formulas); and the questions asked, per page and per question;
* **warm reading**: the same again, every answer from the cache (what the build pays after
  the plan read the chapter);
* the patterns alone, for comparison.

A page is 3,000 characters of the document's text (after the markup is read). The cache
is a fresh folder, so the user's cache is neither read nor filled.

Usage: ``python benchmarks/textbook_reading_time.py [--model local:reader] [--pages 10]
[--file tests/textbooks/corpus/X.cnxml ...]``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from _common import figure, load_average

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "textbooks" / "corpus"
PAGE = 3000
"""Characters of text on a page (about 500 words)."""
SUFFIXES = (".cnxml", ".html", ".md", ".tex", ".txt")


def chapter(files: list[Path], pages: float, out: Path) -> tuple[Path, int]:
    """One Markdown chapter of about ``pages`` pages from ``files`` (read as a reference).

    Each file's text (after its markup is read) is appended, headings kept, until the
    chapter has ``pages`` pages; a file that alone is long enough is used as it is.
    """
    from benchsmith.solution.documents import read_document

    texts = []
    size = 0
    for path in files:
        document = read_document(path)
        if len(files) == 1 or (not texts and len(document.text) >= pages * PAGE):
            return path, len(document.text)
        texts.append(document.text)
        size += len(document.text)
        if size >= pages * PAGE:
            break
    out.write_text("\n\n".join(texts), encoding="utf-8")
    return out, size


def longest_documents() -> list[Path]:
    """The corpus documents, longest text first."""
    from benchsmith.solution.documents import read_document

    files = [p for p in sorted(CORPUS.iterdir()) if p.suffix in SUFFIXES]
    return sorted(files, key=lambda p: -len(read_document(p).text))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="local:reader", help="the reader model's spec")
    parser.add_argument("--pages", type=float, default=10.0, help="pages of text to read")
    parser.add_argument("--file", type=Path, action="append", help="documents to read")
    args = parser.parse_args()
    os.environ["BENCHSMITH_SOLUTION_CACHE_DIR"] = tempfile.mkdtemp(prefix="reading-time-")

    from benchsmith.config import RunConfig
    from benchsmith.llm.client import LLMRuntime
    from benchsmith.solution.knowledge import build_knowledge

    work = Path(tempfile.mkdtemp(prefix="reading-chapter-"))
    path, size = chapter(args.file or longest_documents(), args.pages, work / "chapter.md")
    pages = size / PAGE
    print(f"chapter: {path.name}, {size} characters = {pages:.1f} pages; {load_average()}")
    started = time.monotonic()
    reader = LLMRuntime.from_config(RunConfig(model=args.model)).for_role("reader")
    reader.runtime.chat_model(reader.spec)  # an embedded server starts here
    startup = time.monotonic() - started
    print(f"reader {args.model}: start-up {startup:.1f} s")

    started = time.monotonic()
    alone = build_knowledge([path])
    patterns = time.monotonic() - started
    started = time.monotonic()
    cold = build_knowledge([path], reader=reader)
    cold_s = time.monotonic() - started
    started = time.monotonic()
    warm = build_knowledge([path], reader=reader)
    warm_s = time.monotonic() - started
    asked = cold.reading.get("asked", 0)
    sections = len(cold.sections)
    print(f"patterns alone: {patterns:.1f} s, {len(alone.graph.formulas)} formulas admitted")
    print(
        f"cold reading: {cold_s:.1f} s, {asked} questions ({cold.reading.get('failed', 0)} "
        f"failed) over {sections} sections, {cold_s / max(pages, 0.1):.1f} s a page, "
        f"{cold_s / max(asked, 1):.1f} s a question; {len(cold.graph.formulas)} formulas "
        f"admitted, {len(cold.reading.get('symbols_read', []))} symbols read, "
        f"{len(cold.reading.get('pairs', []))} pairs asked"
    )
    print(
        f"warm reading: {warm_s:.1f} s, {warm.reading.get('asked', 0)} questions asked, "
        f"{warm.reading.get('from_cache', 0)} from the cache"
    )
    for note in cold.notes:
        print(f"note: {note}")
    figure(
        "textbook_reading_time",
        f"reading a {pages:.0f}-page chapter with {args.model}",
        "minutes, not hours, on 2 cores",
        f"{cold_s:.0f} s cold ({asked} questions), {warm_s:.1f} s warm, start-up {startup:.0f} s",
        seconds_cold=round(cold_s, 1),
        seconds_warm=round(warm_s, 2),
        seconds_startup=round(startup, 1),
        questions=asked,
        pages=round(pages, 1),
        chapter=path.name,
    )


if __name__ == "__main__":
    main()
