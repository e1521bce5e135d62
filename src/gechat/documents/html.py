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
from gechat.documents.text import decode_text, read_bytes, require_text, single_page
from gechat.errors import LoadError
from gechat.types import ParsedDocument, Span


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
_SPACE = re.compile(r"\s+")


class HtmlLoader:
    suffixes: tuple[str, ...] = (".html", ".htm")

    def load(self, path: Path, deadline: Deadline = UNLIMITED) -> ParsedDocument:
        source = decode_text(read_bytes(path))
        try:
            tree = LexborHTMLParser(source)
        except Exception as exc:  # selectolax raises plain errors on malformed input
            raise LoadError(f"{path.name} could not be parsed as HTML: {exc}") from exc
        root = tree.root
        paragraphs = html_paragraphs(root, deadline) if root is not None else []
        text, blocks = join_blocks(paragraphs)
        require_text(text, path)
        return ParsedDocument(text=text, kind="html", title=path.stem, pages=single_page(text),
                              blocks=blocks)


def join_blocks(paragraphs: list[str]) -> tuple[str, list[Span]]:
    """Join paragraphs with blank lines and record where each one lies."""
    parts: list[str] = []
    blocks: list[Span] = []
    pos = 0
    for para in paragraphs:
        if parts:
            parts.append("\n\n")
            pos += 2
        parts.append(para)
        blocks.append(Span(start=pos, end=pos + len(para)))
        pos += len(para)
    return "".join(parts), blocks


def html_paragraphs(root: LexborNode, deadline: Deadline = UNLIMITED) -> list[str]:
    out: list[str] = []
    buf: list[str] = []

    def flush() -> None:
        para = _SPACE.sub(" ", "".join(buf)).strip()
        buf.clear()
        if para:
            out.append(para)

    # An explicit stack, not recursion: broken HTML can nest thousands of unclosed tags.
    # ``None`` marks the end of a block element.
    stack: list[LexborNode | None] = [root]
    while stack:
        deadline.check(f"paragraph {len(out) + 1}")
        node = stack.pop()
        if node is None:
            flush()
            continue
        tag = node.tag
        if tag == "-text":
            buf.append(node.text(deep=False) or "")
        elif tag is None or tag.startswith("-") or tag in _DROP:
            continue
        elif tag == "br":
            buf.append(" ")
        elif tag == "tr":
            flush()
            cells = [_SPACE.sub(" ", c.text(separator=" ")).strip()
                     for c in node.iter() if c.tag in _CELL]
            if any(cells):
                out.append(" | ".join(c for c in cells if c))
        elif tag == "pre":
            flush()
            # Preformatted text keeps its line breaks; only the ends are trimmed.
            raw = node.text(separator="").strip("\n").rstrip()
            if raw.strip():
                out.append(raw)
        else:
            if tag in _BLOCK:
                flush()
                stack.append(None)
            stack.extend(reversed(list(node.iter(include_text=True))))

    flush()
    return out


__all__ = ["HtmlLoader", "html_paragraphs", "join_blocks"]
