"""HTML loader (selectolax).

The stored text is not the HTML source but the visible text: block-level elements become
paragraphs joined by blank lines, whitespace inside a block is collapsed as a browser
would, and each block becomes a ``Span`` so sentences never run across elements.
"""

from __future__ import annotations

import re
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser, LexborNode

from gechat.documents.budget import UNLIMITED, Deadline
from gechat.documents.headings import MAX_HEADING_CHARS, clean_heading
from gechat.documents.limits import DEFAULT_LIMITS, Limits, TextBudget
from gechat.documents.markup import bound_html
from gechat.documents.tables import text_rows
from gechat.documents.text import decode_text, read_bytes, require_text, single_page
from gechat.errors import LoadError
from gechat.types import Heading, ParsedDocument, Span


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_DROP = _words("script style nav head noscript template svg iframe object canvas select")
_BLOCK = _words(
    """
    address article aside blockquote body center dd details dialog dir div dl dt fieldset
    figcaption figure footer h1 h2 h3 h4 h5 h6 header hgroup hr html li main menu ol p pre
    section summary table tbody thead tfoot ul caption legend
    """
)
_CELL = frozenset(("td", "th"))
_HEADING_LEVEL = {f"h{n}": n for n in range(1, 7)}
_SPACE = re.compile(r"\s+")


class HtmlLoader:
    suffixes: tuple[str, ...] = (".html", ".htm")

    def load(self, path: Path, deadline: Deadline = UNLIMITED, limits: Limits = DEFAULT_LIMITS) -> ParsedDocument:
        # Nesting is cut before Lexbor sees it: 80,000 unclosed <div>s took it 15 s.
        source = bound_html(decode_text(read_bytes(path), path.name), path.name, limits)
        try:
            tree = LexborHTMLParser(source)
        except Exception as exc:  # selectolax raises plain errors on malformed input
            raise LoadError(f"{path.name} could not be parsed as HTML: {exc}") from exc
        root = tree.root
        levels: list[int] = []
        budget = TextBudget(path.name, limits.max_text_chars)
        paragraphs = html_paragraphs(root, deadline, levels, budget) if root is not None else []
        text, blocks, headings = join_blocks(paragraphs, levels)
        require_text(text, path)
        title_node = tree.css_first("title")
        title = clean_heading(title_node.text()) if title_node is not None else ""
        if title and len(title) <= MAX_HEADING_CHARS:
            headings.insert(0, Heading(start=0, end=0, level=0, text=title))
        return ParsedDocument(text=text, kind="html", title=path.stem, pages=single_page(text),
                              blocks=blocks, headings=headings)


def join_blocks(paragraphs: list[str], levels: list[int] | None = None) -> tuple[str, list[Span], list[Heading]]:
    """Join paragraphs with blank lines and record where each one lies; a paragraph whose
    level (parallel to ``paragraphs``) is 1-6 is also a heading."""
    parts: list[str] = []
    blocks: list[Span] = []
    headings: list[Heading] = []
    pos = 0
    for i, para in enumerate(paragraphs):
        if parts:
            parts.append("\n\n")
            pos += 2
        parts.append(para)
        blocks.append(Span(start=pos, end=pos + len(para)))
        level = levels[i] if levels is not None and i < len(levels) else 0
        if level and len(para) <= MAX_HEADING_CHARS:
            headings.append(Heading(start=pos, end=pos + len(para), level=level, text=clean_heading(para)))
        pos += len(para)
    return "".join(parts), blocks, headings


def html_paragraphs(root: LexborNode, deadline: Deadline = UNLIMITED, levels: list[int] | None = None,
                    budget: TextBudget | None = None) -> list[str]:
    """The visible text's paragraphs; with ``levels``, each one's heading level is appended
    to it (1-6 for h1-h6, 0 for the rest). ``budget`` stops the walk once the text passes
    its limit."""
    out: list[str] = []
    buf: list[str] = []

    def flush(level: int = 0) -> None:
        para = _SPACE.sub(" ", "".join(buf)).strip()
        buf.clear()
        if para:
            add(para, level)

    def add(para: str, level: int = 0) -> None:
        if budget is not None:
            budget.add(len(para) + 2, f"paragraph {len(out) + 1}")
        out.append(para)
        if levels is not None:
            levels.append(level)

    # An explicit stack, not recursion: broken HTML can nest thousands of unclosed tags.
    # An int marks the end of a block element: its heading level, 0 for any other block.
    stack: list[LexborNode | int] = [root]
    while stack:
        deadline.check(f"paragraph {len(out) + 1}")
        node = stack.pop()
        if isinstance(node, int):
            flush(node)
            continue
        tag = node.tag
        if tag == "-text":
            buf.append(node.text(deep=False) or "")
        elif tag is None or tag.startswith("-") or tag in _DROP:
            continue
        elif tag == "br":
            buf.append(" ")
        elif tag == "table":
            flush()
            for row in _table(node, deadline):
                add(row)
        elif tag == "tr":  # a row outside any table: broken HTML
            flush()
            cells = [_SPACE.sub(" ", c.text(separator=" ")).strip()
                     for c in node.iter() if c.tag in _CELL]
            if any(cells):
                add(" | ".join(c for c in cells if c))
        elif tag == "pre":
            flush()
            # Preformatted text keeps its line breaks; only the ends are trimmed.
            raw = node.text(separator="").strip("\n").rstrip()
            if raw.strip():
                add(raw)
        else:
            if tag in _BLOCK:
                flush()
                stack.append(_HEADING_LEVEL.get(tag, 0))
            stack.extend(reversed(list(node.iter(include_text=True))))

    flush()
    return out


def _table(node: LexborNode, deadline: Deadline) -> list[str]:
    """A table's caption and rows, each row with its column headers (``<th>`` rows, or a
    first row of labels); the rows of a nested table are read as rows of this one."""
    caption = node.css_first("caption")
    out = [_SPACE.sub(" ", caption.text(separator=" ")).strip()] if caption is not None else []
    rows: list[list[str]] = []
    heads = 0
    for tr in node.css("tr"):
        deadline.check(f"table row {len(rows) + 1}")
        cells = [c for c in tr.iter() if c.tag in _CELL]
        texts = [_SPACE.sub(" ", c.text(separator=" ")).strip() for c in cells]
        if not any(texts):
            continue
        if heads == len(rows) and cells and all(c.tag == "th" for c in cells):
            heads += 1
        rows.append(texts)
    return [x for x in out if x] + text_rows(rows, header=heads or None)


__all__ = ["HtmlLoader", "html_paragraphs", "join_blocks"]
