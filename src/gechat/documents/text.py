"""Plain-text and Markdown loaders.

The stored text is the file text after newline normalisation, so offsets index what the
user sees in an editor. Markdown is *not* rendered: blocks only mark where paragraphs,
headings and list items lie, so sentences never run across them. The one exception is a
GitHub-style table: its rows are written as canonical rows, each with its column headers
(``gechat.documents.tables``), so a figure is read with the column it sits in.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path
from typing import NoReturn

from gechat.documents.budget import UNLIMITED, Deadline
from gechat.documents.headings import clean_heading
from gechat.documents.limits import DEFAULT_LIMITS, MB, Limits, over_limit
from gechat.documents.quality import garbled, shape
from gechat.documents.tables import markdown_tables
from gechat.errors import LoadError
from gechat.types import Heading, PageInfo, ParsedDocument, Span

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


# What a file is, from its first bytes: formats people save under a wrong name by mistake.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "a PDF document (rename it to .pdf)"),
    (b"PK\x03\x04", "a zip archive, or a document packed as one (.docx, .xlsx, .odt, .epub)"),
    (b"\x7fELF", "a program (an ELF executable)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Office document (.doc, .xls or .ppt)"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"7z\xbc\xaf", "a 7-Zip archive"),
    (b"Rar!\x1a", "a RAR archive"),
)


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise LoadError(f"Cannot read {path.name}: {exc.strerror or exc}",
                        hint="Check the path and the file permissions.") from exc


def decode_text(data: bytes, name: str = "the file") -> str:
    """Decode by BOM, else UTF-8 (a few invalid bytes become U+FFFD: one bad byte must not turn
    "€" into "â‚¬" through all the file), else cp1252 / latin-1; normalise newlines. Refuses
    what is not text (NUL bytes, or control characters where letters should be)."""
    for magic, what in _MAGIC:
        if data.startswith(magic):
            raise LoadError(f"{name} is not text: it is {what}.",
                            hint="Add the original document (.pdf, .docx, .html, .md or .txt) under its real name.")
    # UTF-16 and UTF-32 hold NUL bytes in every ASCII character: their bytes are not judged,
    # their characters are, once decoded.
    if not data.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        sample = data[:65536]
        controls = sum(b < 32 and b not in (9, 10, 12, 13) for b in sample)
        if b"\0" in sample or controls > len(sample) // 20:
            _binary(name)
    text: str | None = None
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            # A file cut short ends in half a character: that one becomes U+FFFD, not the file binary.
            text = data.decode(encoding, errors="replace")
            if text.count("\ufffd") > max(1, len(data) // 1000):
                text = None
            break
    if text is None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = _mostly_utf8(data)
    text = text.lstrip("\ufeff")
    if "\0" in text[:65536]:  # a BOM, then binary data
        _binary(name)
    # Offsets are computed on this normalised text, so it must be what we store.
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _binary(name: str) -> NoReturn:
    raise LoadError(f"{name} is not text: it holds binary data (a program, an image, an archive, or a "
                    "document saved in another format)",
                    hint="Add the original document (.pdf, .docx, .html, .md or .txt) instead.")


def _mostly_utf8(data: bytes) -> str:
    """UTF-8 with replacement when at most 1 byte in 1000 is invalid (a damaged UTF-8 file),
    else a legacy single-byte encoding (cp1252, whose letters Windows text uses; latin-1 for
    the bytes cp1252 leaves undefined)."""
    text = data.decode("utf-8", errors="replace")
    if text.count("\ufffd") <= max(1, len(data) // 1000):
        return text
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_text(path: Path, limits: Limits = DEFAULT_LIMITS) -> str:
    """The file's text, refused past ``limits.max_text_chars`` (before decoding when its bytes
    alone prove it: no encoding takes more than 4 bytes a character) or when it is no text
    (binary data, glyph codes)."""
    data = read_bytes(path)
    limit = limits.max_text_chars
    if len(data) > 4 * limit:
        _too_much_text(path, limit)
    text = decode_text(data, path.name)
    del data
    if len(text) > limit:
        _too_much_text(path, limit)
    reason = garbled(shape(text))
    if reason:
        raise LoadError(f"{path.name} is not readable text: {reason}.",
                        hint="Check it in an editor; if it is a document saved in another format, add that instead.")
    return text


def _too_much_text(path: Path, limit: int) -> NoReturn:
    raise over_limit(path.name, f"holds more than {limit / MB:g} MB of text", f"{limit / MB:g} MB", "max_text_mb")


def single_page(text: str) -> list[PageInfo]:
    return [PageInfo(number=1, start=0, end=len(text))]


def require_text(text: str, path: Path) -> None:
    if not text.strip():
        raise LoadError(f"{path.name} is empty: it contains no text.",
                        hint="Add a file that contains text.")


_PARA = re.compile(r"\S(?:.|\n(?![ \t]*\n))*", re.MULTILINE)


class TextLoader:
    """``.txt``: one block per blank-line separated paragraph."""

    suffixes: tuple[str, ...] = (".txt",)

    def load(self, path: Path, deadline: Deadline = UNLIMITED, limits: Limits = DEFAULT_LIMITS) -> ParsedDocument:
        text = read_text(path, limits)
        require_text(text, path)
        blocks: list[Span] = []
        for m in _PARA.finditer(text):
            deadline.check(f"paragraph {len(blocks) + 1}")
            blocks.append(Span(start=m.start(), end=_rstrip_end(text, m.start(), m.end())))
        return ParsedDocument(text=text, kind="txt", title=path.stem, pages=single_page(text),
                              blocks=blocks)


def _rstrip_end(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


# Line kinds for Markdown. A block starts at the content, after the marker, so a heading's
# sentence is "Introduction", not "# Introduction"; the text itself keeps the markers.
_HEADING = re.compile(r"[ ]{0,3}#{1,6}(?:[ \t]+|$)")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+")
_QUOTE = re.compile(r"[ ]{0,3}>[ \t]?")
_FENCE = re.compile(r"[ ]{0,3}(```|~~~)")
_RULE = re.compile(r"[ ]{0,3}(?:[-=*_][ \t]*){3,}$")
_TABLE_ROW = re.compile(r"[ \t]*\|")


class MarkdownLoader:
    """``.md``: the source text, with blocks for headings, paragraphs, list items, rows."""

    suffixes: tuple[str, ...] = (".md", ".markdown")

    def load(self, path: Path, deadline: Deadline = UNLIMITED, limits: Limits = DEFAULT_LIMITS) -> ParsedDocument:
        text = markdown_tables(read_text(path, limits))
        if len(text) > limits.max_text_chars:  # a table's rows, each written with its headers
            _too_much_text(path, limits.max_text_chars)
        require_text(text, path)
        headings: list[Heading] = []
        blocks = markdown_blocks(text, deadline, headings)
        return ParsedDocument(text=text, kind="md", title=path.stem, pages=single_page(text),
                              blocks=blocks, headings=headings)


def markdown_blocks(text: str, deadline: Deadline = UNLIMITED, headings: list[Heading] | None = None) -> list[Span]:
    """The blocks of a Markdown text; its ATX headings (``#`` to ``######``) are appended
    to ``headings`` when given."""
    blocks: list[Span] = []
    open_start: int | None = None  # start of the paragraph / list item being collected
    open_end = 0
    in_fence: str | None = None

    def close() -> None:
        nonlocal open_start
        if open_start is not None and open_end > open_start:
            blocks.append(Span(start=open_start, end=open_end))
        open_start = None

    pos = 0
    for number, line in enumerate(text.split("\n"), start=1):
        deadline.check(f"line {number}")
        line_start, line_end = pos, pos + len(line)
        pos = line_end + 1
        fence = _FENCE.match(line)
        if in_fence is not None:
            # Code stays one block from fence to fence; it is rarely prose worth splitting.
            open_end = line_end
            if fence and fence.group(1) == in_fence:
                close()
                in_fence = None
            continue
        if fence:
            close()
            in_fence = fence.group(1)
            open_start, open_end = line_start, line_end
            continue
        if not line.strip():
            close()
            continue
        heading = _HEADING.match(line)
        rule = _RULE.match(line)
        if heading or rule or _TABLE_ROW.match(line):
            # One line, one block; a setext underline closes the paragraph above it too.
            close()
            skip = heading.end() if heading else len(line) - len(line.lstrip())
            open_start, open_end = line_start + skip, _rstrip_end(text, line_start, line_end)
            if heading and headings is not None and open_end > open_start:
                label = clean_heading(text[open_start:open_end].rstrip("#"))
                if label:
                    headings.append(Heading(start=open_start, end=open_end, level=line.count("#", 0, heading.end()),
                                            text=label))
            close()
            continue
        item = _LIST_ITEM.match(line)
        if item:
            close()
            open_start = line_start + item.end()
        elif open_start is None:
            quote = _QUOTE.match(line)
            open_start = line_start + (quote.end() if quote else len(line) - len(line.lstrip()))
        open_end = _rstrip_end(text, line_start, line_end)
    if in_fence is not None:
        open_end = len(text)
    close()
    return [b for b in blocks if b.end > b.start]


__all__ = ["MarkdownLoader", "TextLoader", "decode_text", "markdown_blocks", "read_text"]
