"""PDF loader (PyMuPDF): text in reading order, with a rectangle for every word.

The text is ours, not the PDF's: lines of a paragraph are joined by one space, words broken
by a hyphen at a line end are joined again, paragraphs and pages are separated by blank
lines, and running headers, page numbers and margin line numbers are left out. Every word
put in the text gets a ``WordBox``, so any span of the text can be highlighted on its page.
The loader only reads: nothing is written anywhere.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

from gechat.documents.budget import UNLIMITED, Deadline
from gechat.documents.headings import MAX_HEADING_CHARS, Block, clean_heading, locate_outline, sized_headings
from gechat.documents.limits import DEFAULT_LIMITS, Limits, TextBudget, check_pages
from gechat.documents.pdf_layout import (
    Line,
    RawWord,
    Row,
    Word,
    drop_furniture,
    edge_rows,
    page_lines,
    reading_regions,
    repeated_keys,
    rows_of,
)
from gechat.documents.pdf_paragraphs import continues, is_caption, paragraphs_of
from gechat.documents.pdf_tables import table_rows
from gechat.documents.quality import Shape, garbled, shape
from gechat.documents.tables import Part
from gechat.errors import LoadError
from gechat.types import Heading, PageInfo, ParsedDocument, Span, WordBox

DEFAULT_MAX_BYTES = 200_000_000  # 200 MB
# Ligatures are expanded ("ﬁ" -> "fi") so the text matches what people type and search for.
_FLAGS = (pymupdf.TEXTFLAGS_WORDS | pymupdf.TEXT_MEDIABOX_CLIP) & ~pymupdf.TEXT_PRESERVE_LIGATURES
_HYPHENS = ("-", "\u00ad", "\u2010")
_OCR_HINT = "Run OCR first (for example `ocrmypdf in.pdf out.pdf`), then add the new file."
_PAGE_SAMPLE = 3000  # characters of each page whose shape is measured: enough to tell soup
log = logging.getLogger("gechat.documents")


class PdfLoader:
    suffixes: tuple[str, ...] = (".pdf",)

    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.max_bytes = max_bytes

    def load(self, path: Path, deadline: Deadline = UNLIMITED, limits: Limits = DEFAULT_LIMITS) -> ParsedDocument:
        check_size(path, self.max_bytes)
        with _open(path) as doc:
            if doc.page_count == 0:
                raise LoadError(f"{path.name} is empty: the PDF has no pages.",
                                hint="Export the document to PDF again.")
            check_pages(path.name, doc.page_count, limits)
            pages, failed = _extract(doc, deadline, TextBudget(path.name, limits.max_text_chars))
            if not any(p.lines for p in pages):
                _raise_no_text(doc, path, failed)
            outline, meta_title = _outline(doc)
        drop_garbled(pages, path.name)
        parsed = build_document(pages, title=path.stem, deadline=deadline)
        if outline:  # the author's own outline, where there is one, over type sizes
            parsed.headings = locate_outline(parsed.text, parsed.pages, outline)
        if meta_title:
            parsed.headings.insert(0, Heading(start=0, end=0, level=0, text=meta_title))
        return parsed


# A metadata title that names a file or a template, not the document ("Microsoft Word -
# report.docx", "10811.exe", "untitled"). Used with ``match``: one start, and ``.*`` is
# the only unbounded quantifier, so it is linear in the title.
_NOT_A_TITLE = re.compile(r"(?i)untitled|microsoft (?:word|excel)|.*\w\.[a-z]{2,4}$")


_WORD = re.compile(r"[^\W\d_]{3}")  # a title has a word ("0001018724-18-000005" is a filing number)


def _outline(doc: pymupdf.Document) -> tuple[list[tuple[int, str, int]], str]:
    """The PDF's bookmarks as (level, title, page) and its metadata title ("" if none or
    if it names a file). A damaged outline is read as none: headings only add context."""
    try:
        toc = [(int(e[0]), str(e[1]), int(e[2])) for e in doc.get_toc(simple=True)]
    except Exception:  # pymupdf raises plain errors on broken outlines
        toc = []
    title = clean_heading(str((doc.metadata or {}).get("title") or ""))
    if len(title) > MAX_HEADING_CHARS or not _WORD.search(title) or _NOT_A_TITLE.match(title):
        title = ""
    return toc, title


def check_size(path: Path, max_bytes: int) -> int:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise LoadError(f"Cannot read {path.name}: {exc.strerror or exc}",
                        hint="Check the path and the file permissions.") from exc
    if size == 0:
        raise LoadError(f"{path.name} is empty (0 bytes).", hint="Add a file that has content.")
    if size > max_bytes:
        raise LoadError(
            f"{path.name} is too large: {size / 2**20:.1f} MB; "
            f"the limit is {max_bytes / 2**20:g} MB.",
            hint="Split the file into smaller parts, or raise the size limit (setting max_file_mb).",
        )
    return size


def _open(path: Path) -> pymupdf.Document:
    try:
        doc: pymupdf.Document = pymupdf.open(  # type: ignore[no-untyped-call]
            str(path), filetype="pdf"
        )
    except Exception as exc:  # MuPDF reports damage with several exception types
        raise LoadError(
            f"{path.name} is corrupt or not a PDF: it cannot be opened.",
            hint="Check that it opens in a PDF viewer; if it does, print it to a new PDF.",
        ) from exc
    if not doc.is_pdf or doc.needs_pass:
        encrypted = bool(doc.needs_pass)
        doc.close()  # type: ignore[no-untyped-call]
        if not encrypted:
            raise LoadError(f"{path.name} is not a PDF file.", hint="Rename it to its real type.")
        raise LoadError(
            f"{path.name} is encrypted: it needs a password to open.",
            hint="Save an unencrypted copy (e.g. print to PDF after entering the password).",
        )
    return doc


@dataclass(slots=True)
class PageText:
    """One page's lines in unrotated coordinates, and how to map them onto the shown page."""

    lines: list[Line]
    width: float  # unrotated, the space the layout analysis works in
    height: float
    shown_width: float  # as displayed (``page.rect``), the space boxes are reported in
    shown_height: float
    matrix: tuple[float, float, float, float, float, float] | None = None
    shape: Shape = field(default_factory=Shape)  # of its text: is it words or glyph soup?


def _extract(doc: pymupdf.Document, deadline: Deadline = UNLIMITED,
             budget: TextBudget | None = None) -> tuple[list[PageText], int]:
    pages: list[PageText] = []
    failed = 0
    for number in range(doc.page_count):
        deadline.check(f"page {number + 1} of {doc.page_count} (reading words)")
        page = doc[number]
        shown = page.rect
        rotated = bool(page.rotation)
        # Words come in unrotated coordinates; the layout is analysed there (where text
        # runs left to right) and only the final boxes are turned to the displayed page.
        base = shown * page.derotation_matrix if rotated else shown
        m = page.rotation_matrix
        matrix = (float(m.a), float(m.b), float(m.c), float(m.d), float(m.e), float(m.f))
        try:
            raw: list[RawWord] = page.get_text(  # type: ignore[no-untyped-call]
                "words", flags=_FLAGS
            )
            lines = page_lines(raw)
        except Exception:  # one damaged page should not lose the rest of the document
            failed += 1
            raw, lines = [], []
        if budget is not None:
            budget.add(sum(len(w[4]) + 1 for w in raw), f"page {number + 1}")
        pages.append(PageText(lines, float(base.width), float(base.height), float(shown.width),
                              float(shown.height), matrix if rotated else None,
                              shape(" ".join(w[4] for w in raw)[:_PAGE_SAMPLE])))
    return pages, failed


def drop_garbled(pages: list[PageText], name: str) -> None:
    """Empties the pages whose text is glyph soup (with a warning), and refuses the document
    when nothing else is left, or when what is left still reads as soup as a whole."""
    dropped: list[int] = []
    kept = Shape()
    for number, page in enumerate(pages, start=1):
        if page.lines and garbled(page.shape):
            page.lines = []
            dropped.append(number)
        else:
            kept += page.shape
    reason = garbled(kept)
    if not reason and dropped and not any(p.lines for p in pages):
        reason = garbled(pages[dropped[0] - 1].shape)
    if reason:
        raise LoadError(f"{name}'s text is unreadable: {reason} (the PDF's fonts lack a text mapping, "
                        "or the file is damaged); it was not added.",
                        hint="Open it in a PDF viewer: if the text shows, print it to a new PDF; " + _OCR_HINT)
    if dropped:
        log.warning("%s: %d page(s) left out, their text is unreadable glyphs: %s", name, len(dropped),
                    ", ".join(map(str, dropped[:20])) + (" ..." if len(dropped) > 20 else ""))


def _raise_no_text(doc: pymupdf.Document, path: Path, failed: int) -> None:
    if failed == doc.page_count:
        raise LoadError(f"{path.name} is corrupt: no page could be read.",
                        hint="Check that it opens in a PDF viewer; if so, print it to a new PDF.")
    pages = [doc[i] for i in range(doc.page_count)]
    if any(page.get_images() or page.get_image_info()  # type: ignore[no-untyped-call]
           for page in pages):
        raise LoadError(
            f"{path.name} is an image-only (scanned) PDF with no text layer; it needs OCR.",
            hint=_OCR_HINT,
        )
    raise LoadError(f"{path.name} is empty: no page has extractable text.",
                    hint="Check the PDF in a viewer; if text shows, print it to a new PDF.")


def build_document(pages: list[PageText], *, title: str, deadline: Deadline = UNLIMITED) -> ParsedDocument:
    """Lay the pages out as text, in reading order, with word boxes and blocks."""
    edges = [edge_rows(p.lines, p.height) for p in pages]
    keys = repeated_keys(edges)
    out = _TextBuilder()
    infos: list[PageInfo] = []
    for number, page in enumerate(pages, start=1):
        deadline.check(f"page {number} of {len(pages)} (layout)")
        kept = drop_furniture(page.lines, edges[number - 1], keys, page.width)
        paras: list[list[Row]] = []
        for region in reading_regions(kept, page.width):
            region_paras = paragraphs_of(rows_of(region))
            _carry_over(paras, region_paras)
            paras.extend(region_paras)
        if paras and out.pos:
            out.add("\n\n")
        start = out.pos
        canonical = table_rows(paras)
        for i, para in enumerate(paras):
            if i:
                out.add("\n\n")
            p_start = out.pos
            if i in canonical:
                out.parts_of(canonical[i], number, page)
            else:
                out.paragraph(para, number, page)
            if len(para) <= 2 and not any(r.table for r in para):
                out.short.append(Block(p_start, out.pos, _size(para), sum(len(r.words) for r in para)))
            else:
                out.body.append((_size(para), sum(len(r.words) for r in para)))
        infos.append(PageInfo(number=number, start=start, end=out.pos, width=page.shown_width,
                              height=page.shown_height))
    text = "".join(out.parts)
    return ParsedDocument(text=text, kind="pdf", title=title, pages=infos, blocks=out.blocks, words=out.words,
                          headings=sized_headings(text, out.short, out.body))


def _size(rows: list[Row]) -> float:
    sizes = sorted(r.text_size for r in rows)
    return sizes[len(sizes) // 2]


def _carry_over(before: list[list[Row]], region: list[list[Row]]) -> None:
    """Join a sentence running from the foot of one column to the head of the next.

    The paragraph it continues may sit above the column's footnotes, so the last few
    paragraphs are tried, latest first; footnotes then follow the joined paragraph.
    """
    if not region:
        return
    # A figure caption at the head of the column does not interrupt the sentence.
    k = 1 if len(region) > 1 and is_caption(region[0]) else 0
    for i in range(len(before) - 1, max(len(before) - 4, -1), -1):
        if continues(before[i], region[k]):
            before[i] = before[i] + region.pop(k)
            return


class _TextBuilder:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0
        self.words: list[WordBox] = []
        self.blocks: list[Span] = []
        self.short: list[Block] = []  # paragraphs of one or two rows: heading candidates
        self.body: list[tuple[float, int]] = []  # (type size, words) of the other paragraphs

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.pos += len(text)

    def paragraph(self, rows: list[Row], number: int, page: PageText) -> None:
        # One tight loop: this runs once per word of the document (~100,000 in a 10-K).
        start = pos = self.pos
        flat: list[Word] = []
        line_ends: set[int] = set()  # index of each row's last word
        for row in rows:
            flat.extend(row.words)
            line_ends.add(len(flat) - 1)
        parts, boxes = self.parts, self.words
        m, w, h = page.matrix, page.shown_width, page.shown_height
        n = len(flat)
        join_next = False
        for k, word in enumerate(flat):
            if k and not join_next:
                parts.append(" ")
                pos += 1
            text = word.text
            join_next = k in line_ends and k + 1 < n and _hyphen_break(text, flat[k + 1].text)
            if join_next:
                text = _join_piece(text, flat[k + 1].text)
            boxes.append(WordBox(pos, pos + len(text), number, *_shown(word, m, w, h)))
            parts.append(text)
            pos += len(text)
        self.pos = pos
        self.blocks.append(Span(start=start, end=pos, page=number))

    def parts_of(self, row: list[Part[Word]], number: int, page: PageText) -> None:
        """A table row in its canonical form: each word of a cell with its box, the headers
        and separators put in between with none."""
        start = self.pos
        m, w, h = page.matrix, page.shown_width, page.shown_height
        for text, word in row:
            if word is not None:
                self.words.append(WordBox(self.pos, self.pos + len(text), number, *_shown(word, m, w, h)))
            self.add(text)
        self.blocks.append(Span(start=start, end=self.pos, page=number))


def _shown(word: Word, m: tuple[float, float, float, float, float, float] | None, w: float,
           h: float) -> tuple[float, float, float, float]:
    """A word's box on the page as displayed (turned when the page is rotated), kept on it."""
    x0, y0, x1, y1 = word.x0, word.y0, word.x1, word.y1
    if m is not None:
        x0, y0, x1, y1 = _transform(m, x0, y0, x1, y1)
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        # Glyph boxes may poke past the page edge; boxes must stay on the page.
        x0, x1 = min(max(x0, 0.0), w), min(max(x1, 0.0), w)
        y0, y1 = min(max(y0, 0.0), h), min(max(y1, 0.0), h)
    return x0, y0, x1, y1


def _transform(
    m: tuple[float, float, float, float, float, float], x0: float, y0: float, x1: float,
    y1: float,
) -> tuple[float, float, float, float]:
    a, b, c, d, e, f = m
    xs = (a * x0 + c * y0 + e, a * x1 + c * y1 + e)
    ys = (b * x0 + d * y0 + f, b * x1 + d * y1 + f)
    return min(xs), min(ys), max(xs), max(ys)


def _join_piece(text: str, nxt: str) -> str:
    """The first half of a word broken at a line end, as it goes into the joined text."""
    if "-" in text[:-1] or "-" in nxt or text[-2].isupper():
        # A compound ("state-of-the-art", "FAA-approved") keeps its hyphen.
        return text[:-1] + "-"
    return text[:-1]  # "evi-" + "dence": the hyphen only broke the line


def _hyphen_break(word: str, nxt: str) -> bool:
    """A line-end hyphen that splits one word: a letter before it, lowercase after it."""
    return (len(word) >= 3 and word.endswith(_HYPHENS) and word[-2].isalpha()
            and nxt[:1].islower())


__all__ = ["DEFAULT_MAX_BYTES", "PageText", "PdfLoader", "build_document", "check_size"]
