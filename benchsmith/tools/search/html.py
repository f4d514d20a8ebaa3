"""HTML to plain text for fetched pages: scripts, styles and the head dropped, blocks kept."""

from __future__ import annotations

from html.parser import HTMLParser

from benchsmith.tools.search.providers import MAX_TITLE_CHARS, clean_text

# -- HTML to text ---------------------------------------------------------------------------
_SKIP_TAGS = frozenset(
    {"script", "style", "noscript", "template", "svg", "math", "iframe", "object"}
)
_BLOCK_TAGS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer form h1 h2 h3 "
    "h4 h5 h6 header hr li main nav ol p pre section table td th tr ul".split()
)


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title_parts: list[str] = []
        self.skip = 0
        self.in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self.in_title = True
        elif tag in _SKIP_TAGS:
            self.skip += 1
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        elif tag in _SKIP_TAGS:
            self.skip = max(self.skip - 1, 0)
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title_parts.append(data)
        elif not self.skip:
            self.parts.append(" ".join(data.split()) if data.strip() else " ")


def html_to_text(html: str) -> tuple[str, str]:
    """Plain text and title of an HTML page (scripts, styles and the head dropped).

    Args:
        html: The page's markup.

    Returns:
        ``(title, text)``, both cleaned of control characters; text keeps paragraph breaks.
    """
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    title = clean_text(" ".join(parser.title_parts), MAX_TITLE_CHARS)
    return title, clean_text("".join(parser.parts), 10**9, keep_newlines=True)
