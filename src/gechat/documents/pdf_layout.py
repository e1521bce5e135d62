"""Page geometry for the PDF loader: lines, page furniture, columns, rows and paragraphs.

Everything here works on PyMuPDF's ``get_text("words")`` tuples, which carry the block and
line number of every word; that is the cheapest extraction that still gives one rectangle
per word. Coordinates are PyMuPDF's: points, origin top-left.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

# (x0, y0, x1, y1, text, block_no, line_no, word_no), as PyMuPDF returns them.
RawWord = tuple[float, float, float, float, str, int, int, int]

BAND = 0.08  # top/bottom share of the page height where running headers and footers live
REPEAT_SHARE = 0.5  # a band line repeated on this share of pages is a running header/footer
MIN_PAGES_FOR_REPEAT = 4
EDGE_ROWS = 3

_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")
_NON_SPACE = re.compile(r"\S+")
# "12", "- 12 -", "Page 3 of 9", "3/9", and lowercase roman front-matter numbers "iv".
_PAGE_NUMBER = re.compile(
    r"(?:[Pp]age\s*)?[-–—]?\s*\d{1,4}\s*[-–—]?(?:\s*(?:of|/)\s*\d{1,4})?|[ivx]{1,6}"
)
_BARE_INT = re.compile(r"\d{1,4}")
_NUMERIC = re.compile(r"[-–—$€£(]*[\d][\d.,:/]*[)%]*|[$€£%()–—-]")
_ALPHA = re.compile(r"[^\W\d_]{2,}")


@dataclass(slots=True)
class Word:
    x0: float
    y0: float
    x1: float
    y1: float
    text: str


@dataclass(slots=True)
class Line:
    """One PyMuPDF line: words on one baseline inside one block."""

    block: int
    words: list[Word]
    x0: float = 0.0
    y0: float = 0.0
    x1: float = 0.0
    y1: float = 0.0

    def __post_init__(self) -> None:
        words = self.words
        if len(words) == 1:  # most lines of a table page: one cell, one word
            w = words[0]
            self.x0, self.y0, self.x1, self.y1 = w.x0, w.y0, w.x1, w.y1
            return
        self.x0 = min([w.x0 for w in words])
        self.y0 = min([w.y0 for w in words])
        self.x1 = max([w.x1 for w in words])
        self.y1 = max([w.y1 for w in words])

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @property
    def height(self) -> float:
        return max(self.y1 - self.y0, 1.0)


@dataclass(slots=True)
class Row:
    """Lines that share a baseline (table cells, or a line split by a wide gap)."""

    lines: list[Line]
    y0: float = 0.0
    y1: float = 0.0
    table: bool = False

    def __post_init__(self) -> None:
        self.y0 = min(ln.y0 for ln in self.lines)
        self.y1 = max(ln.y1 for ln in self.lines)

    def add(self, ln: Line) -> None:
        self.lines.append(ln)
        self.y0 = min(self.y0, ln.y0)
        self.y1 = max(self.y1, ln.y1)

    @property
    def height(self) -> float:
        return max(self.y1 - self.y0, 1.0)

    @property
    def words(self) -> list[Word]:
        return [w for ln in self.lines for w in ln.words]

    @property
    def text_size(self) -> float:
        """Median word height: a type-size proxy that superscripts do not skew."""
        heights = sorted(w.y1 - w.y0 for w in self.words)
        return heights[len(heights) // 2]

    @property
    def blocks(self) -> set[int]:
        return {ln.block for ln in self.lines}


def page_lines(raw: Iterable[RawWord]) -> list[Line]:
    groups: dict[tuple[int, int], list[Word]] = defaultdict(list)
    for x0, y0, x1, y1, text, block, line, _ in raw:
        words = groups[(block, line)]
        parts = text.split()
        if len(parts) == 1 and parts[0] == text:
            words.append(Word(x0, y0, x1, y1, text))
        else:
            # MuPDF splits words on plain spaces only; no-break and thin spaces stay inside.
            # Split there too, sharing the box out by character position.
            step = (x1 - x0) / max(len(text), 1)
            for m in _NON_SPACE.finditer(text):
                words.append(Word(x0 + step * m.start(), y0, x0 + step * m.end(), y1, m.group()))
    lines = [Line(block=key[0], words=_footnote_marks(words)) for key, words in groups.items() if words]
    upright = [ln for ln in lines if not _is_vertical(ln)]
    # Rotated text in a margin (arXiv stamps, printer's slugs) would tie every row of the
    # page into one; drop it, unless the page itself is mostly rotated text.
    if sum(len(ln.words) for ln in upright) > 0.8 * sum(len(ln.words) for ln in lines):
        return upright
    return lines


_MARK = re.compile(r"\d{1,3}(?:,\d{1,3})*")  # a footnote mark: "13", "4,5"
_GLUED = re.compile(r"(\d{1,3})([A-Z][a-z]{2,}\S*)")  # a label and the word after it: "12For"
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _footnote_marks(words: list[Word]) -> list[Word]:
    """``words`` (one line's) with each footnote mark written in superscript digits: one set in
    small raised type ("a certain threshold 13 would cause", 13 a footnote, reads "threshold
    ¹³ would"), and a footnote's label glued to its first word at the start of a line ("12For
    SGC, we remove ..." reads "¹² For SGC"). So a mark is no figure of its sentence ("13
    degrees", "12 triplets") while it still shows where its footnote belongs."""
    if words and (m := _GLUED.fullmatch(words[0].text)):
        w = words[0]
        cut = w.x0 + (w.x1 - w.x0) * m.end(1) / len(w.text)
        words[:1] = [Word(w.x0, w.y0, cut, w.y1, m.group(1).translate(_SUPERSCRIPT)),
                     Word(cut, w.y0, w.x1, w.y1, m.group(2))]
    if len(words) < 3:
        return words
    heights = sorted(w.y1 - w.y0 for w in words)
    bottoms = sorted(w.y1 for w in words)
    size, base = heights[len(heights) // 2], bottoms[len(bottoms) // 2]
    for w in words:
        if _MARK.fullmatch(w.text) and w.y1 - w.y0 <= 0.9 * size and w.y1 <= base - 0.2 * size:
            w.text = w.text.translate(_SUPERSCRIPT)
    return words


def _is_vertical(ln: Line) -> bool:
    if len(ln.words) == 1:
        return ln.y1 - ln.y0 > 2 * (ln.x1 - ln.x0) and ln.y1 - ln.y0 > 20
    a, b = ln.words[0], ln.words[1]
    return min(a.y1, b.y1) <= max(a.y0, b.y0) and min(a.x1, b.x1) > max(a.x0, b.x0)


def normalise(text: str) -> str:
    """Key for spotting repeated furniture: page numbers and dates vary, the rest does not."""
    return _SPACES.sub(" ", _DIGITS.sub("#", text.lower())).strip()


def edge_rows(lines: Sequence[Line], height: float) -> list[list[Line]]:
    """Rows that could be furniture: the outermost three rows when they lie inside the top or
    bottom band, and the last row wherever it is.

    The last row counts even above the band because some filings end their text high on the
    page and put the page number right below it. Only outer rows count, because body text
    of dense layouts reaches into the band.
    """
    rows = rows_of(list(lines))
    top = [r for r in rows[:EDGE_ROWS] if (r.y0 + r.y1) / 2 < BAND * height]
    bottom = [r for r in rows[-EDGE_ROWS:] if (r.y0 + r.y1) / 2 > (1 - BAND) * height]
    if rows:
        bottom.append(rows[-1])
    unique = {id(r): r for r in top + bottom}
    return [r.lines for r in unique.values()]


def _keys(row: list[Line]) -> set[str]:
    return {normalise(ln.text) for ln in row} | {normalise(" ".join(ln.text for ln in row))}


def repeated_keys(edges: Sequence[list[list[Line]]]) -> set[str]:
    """Keys of edge rows/lines found on enough pages to be running headers or footers.

    ``edges`` holds each page's ``edge_rows``.
    """
    if len(edges) < MIN_PAGES_FOR_REPEAT:
        return set()
    counts: dict[str, int] = defaultdict(int)
    for rows in edges:
        page_keys: set[str] = set()
        for row in rows:
            page_keys |= _keys(row)
        for key in page_keys:
            counts[key] += 1
    need = max(2, REPEAT_SHARE * len(edges))
    return {k for k, n in counts.items() if n >= need and k}


def drop_furniture(
    lines: list[Line], edges: list[list[Line]], keys: set[str], width: float
) -> list[Line]:
    """Remove running headers/footers, page numbers and margin line numbers."""
    drop: set[int] = set()
    for row in edges:
        whole = " ".join(ln.text for ln in row)
        # A row goes only as a whole, so a table's last row ("Total 14 11") is never cut
        # down to its label just because its numbers look like page numbers.
        if _is_furniture(whole, keys) or all(_is_furniture(ln.text, keys) for ln in row):
            drop.update(id(ln) for ln in row)
    drop.update(id(ln) for ln in _line_number_column(lines, width))
    return [ln for ln in lines if id(ln) not in drop]


def _is_furniture(text: str, keys: set[str]) -> bool:
    return bool(_PAGE_NUMBER.fullmatch(text.strip())) or normalise(text) in keys


def _line_number_column(lines: Sequence[Line], width: float) -> list[Line]:
    """Bare consecutive integers stacked in a margin (ACL review copies, transcripts)."""
    by_x: dict[int, list[Line]] = defaultdict(list)
    for ln in lines:
        centre = (ln.x0 + ln.x1) / 2
        if len(ln.words) == 1 and _BARE_INT.fullmatch(ln.text) and (
            centre < 0.2 * width or centre > 0.8 * width
        ):
            by_x[round(ln.x1 / 8)].append(ln)
    out: list[Line] = []
    for column in by_x.values():
        if len(column) < 5:
            continue
        column.sort(key=lambda ln: ln.y0)
        values = [int(ln.text) for ln in column]
        steps = [b - a for a, b in pairwise(values)]
        # Table columns hold numbers too, but never a run counting up by one.
        if sum(1 for s in steps if s == 1) >= 0.8 * len(steps):
            out.extend(column)
    return out


def reading_regions(lines: list[Line], width: float) -> list[list[Line]]:
    """Split a page into regions read one after the other.

    Multi-column pages are detected from prose blocks (several lines, mostly words, at most
    half the page width) that fall into two or more x-ranges that do not overlap.
    Blocks that fit inside one column belong to it; any other block (title, wide figure or
    table) closes the current band, so the order is: columns of band 1 left to right, the
    wide block, columns of band 2, and so on.
    """
    blocks: dict[int, list[Line]] = defaultdict(list)
    for ln in lines:
        blocks[ln.block].append(ln)
    columns = _columns(list(blocks.values()), width)
    if len(columns) < 2:
        return [lines] if lines else []
    tol = 0.03 * width
    ordered = sorted(blocks.values(), key=lambda b: min(ln.y0 for ln in b))
    regions: list[list[Line]] = []
    band: list[list[Line]] = [[] for _ in columns]

    def close_band() -> None:
        regions.extend(col for col in band if col)
        band[:] = [[] for _ in columns]

    for blk in ordered:
        x0, x1 = min(ln.x0 for ln in blk), max(ln.x1 for ln in blk)
        home = next((i for i, (c0, c1) in enumerate(columns)
                     if x0 >= c0 - tol and x1 <= c1 + tol), None)
        if home is None:
            close_band()
            regions.append(blk)
        else:
            band[home].extend(blk)
    close_band()
    return regions


def _columns(blocks: list[list[Line]], width: float) -> list[tuple[float, float]]:
    spans: list[tuple[float, float, int]] = []
    total = 0
    for blk in blocks:
        words = [w.text for ln in blk for w in ln.words]
        total += len(words)
        x0, x1 = min(ln.x0 for ln in blk), max(ln.x1 for ln in blk)
        alpha = sum(1 for w in words if _ALPHA.search(w))
        prose = len(blk) >= 2 and len(words) >= 8 and alpha >= 0.6 * len(words)
        if prose and x1 - x0 <= 0.5 * width:
            spans.append((x0, x1, len(words)))
    clusters: list[list[float]] = []  # [x0, x1, words, blocks]
    # Big paragraphs first, so they define the columns; a block joins a column only when
    # it lies mostly (4/5) inside it, so one centred block, or a table row across two of
    # three columns, cannot chain two columns into one.
    for x0, x1, n in sorted(spans, key=lambda s: -s[2]):
        best = max(clusters, default=None, key=lambda c: min(c[1], x1) - max(c[0], x0))
        if best is not None and min(best[1], x1) - max(best[0], x0) > 0.8 * (x1 - x0):
            best[0], best[1], best[2], best[3] = min(best[0], x0), max(best[1], x1), best[2] + n, best[3] + 1
        else:
            clusters.append([x0, x1, n, 1])
    # A lone block whose span lies mostly inside a column of several blocks (or the column
    # inside its span) is part of that column: the text of a figure set in one column ("Asa
    # Graybar is a biological engineer ...") is no column of its own, however many words it has.
    kept: list[list[float]] = []
    for c in sorted(clusters, key=lambda c: (-c[3], -c[2])):
        home = next((k for k in kept if c[3] == 1 < k[3] and
                     min(k[1], c[1]) - max(k[0], c[0]) > 0.8 * min(k[1] - k[0], c[1] - c[0])), None)
        if home is None:
            kept.append(c)
        else:
            home[2] += c[2]
    # A column must carry real text, or narrow captions would split a one-column page.
    cols = sorted((c[0], c[1]) for c in kept if c[2] >= max(30, 0.15 * total))
    if len(cols) < 2 or any(b[0] < a[1] - 2 for a, b in pairwise(cols)):
        return []
    return cols


def rows_of(lines: list[Line]) -> list[Row]:
    """Group lines sharing a baseline into rows, top to bottom, cells left to right.

    A line joins the row above when it shares more than half the height of the shorter of
    it and the row's last line.
    """
    # Plain locals, no Row objects until the end: this runs for every line of every page.
    groups: list[list[Line]] = []
    top = bottom = last_h = 0.0
    for ln in sorted(lines, key=_centre):
        h = max(ln.y1 - ln.y0, 1.0)
        if groups and min(bottom, ln.y1) - max(top, ln.y0) > 0.5 * min(last_h, h):
            groups[-1].append(ln)
            top, bottom = min(top, ln.y0), max(bottom, ln.y1)
        else:
            groups.append([ln])
            top, bottom = ln.y0, ln.y1
        last_h = h
    rows: list[Row] = []
    for group in groups:
        group.sort(key=_left)
        row = Row(lines=group)
        row.table = _is_table_row(row)
        rows.append(row)
    return rows


def _centre(ln: Line) -> float:
    return (ln.y0 + ln.y1) / 2


def _left(ln: Line) -> float:
    return ln.x0


def _is_table_row(row: Row) -> bool:
    words = row.words
    split = gapped(row)
    numeric = sum(1 for w in words if _NUMERIC.fullmatch(w.text))
    # Short rows ("10 seconds.", "10, 2015.") end sentences; two-column table rows have a
    # wide gap between their cells and are caught by ``split``.
    number_heavy = 3 <= len(words) <= 12 and numeric >= 0.5 * len(words)
    # A wide gap alone is not enough: justified text after a bold run-in heading has one.
    return number_heavy or (split and (numeric > 0 or len(row.lines) >= 3))


def gapped(row: Row) -> bool:
    """Whether a wide gap splits the row: cells, or a name and its value, not one run of text."""
    gap = max(row.height, 8.0)
    return any(b.x0 - a.x1 > gap for a, b in pairwise(row.lines))
