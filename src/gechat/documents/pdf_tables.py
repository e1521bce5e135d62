"""Tables on a PDF page, read from the layout's rows: column headers put beside each figure.

The layout already keeps a table's rows whole and in order (``pdf_layout.rows_of`` marks
them ``table``); what a row lacks is which column each figure sits in. Here a run of table
rows becomes a grid: cells are cut at wide gaps, value columns are the x positions where the
figures of the run end (figures are right-aligned), and the rows above the first data row
that hold no figure are the header. Each data row is then written as a canonical row
(``gechat.documents.tables``) with the PDF words of its cells, so every cell keeps its box.

PyMuPDF's own table finder was measured on 10-K filings and not used: its layout model takes
about 0.5 s per page (75 s for a 160-page filing, slower than the rest of ingestion put
together), its line strategy without the model cuts every ruled row into a table of its own,
and its text strategy splits words mid-way; its cell texts also came back out of order
("5363\\n," for "5,363"). The rows here are the loader's own, already in reading order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise

from gechat.documents.pdf_layout import Row, Word
from gechat.documents.tables import MARKER, YEARISH, Part, compose, is_amount, unit_of

_CURRENCY = frozenset("$€£¥")
_TRAILERS = frozenset(("%", ")", "%)"))
_GROUP = re.compile(r"\d{3}")
MAX_HEADER_ROWS = 3
MIN_DATA_ROWS = 2
MAX_CAPTION_ROWS = 3


@dataclass(slots=True)
class _Cell:
    words: list[Word]
    column: int | None = None  # the column a header word was found standing over, when cut from its row

    @property
    def x0(self) -> float:
        return self.words[0].x0

    @property
    def x1(self) -> float:
        return self.words[-1].x1

    @property
    def edge(self) -> float:
        """Where its figure ends: figures are right-aligned, a trailing "%" or ")" may stick out."""
        digits = [w for w in self.words if any(ch.isdigit() for ch in w.text)]
        if not digits:
            return self.words[-1].x1
        w = digits[-1]  # "(10.6)%": the figure ends at its last digit, a share of the word's width
        tail = len(w.text) - 1 - max(i for i, ch in enumerate(w.text) if ch.isdigit())
        return w.x1 - (w.x1 - w.x0) * tail / len(w.text)

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


@dataclass(slots=True)
class _Column:
    x0: float
    x1: float
    head: list[str] = field(default_factory=list)


def table_rows(paras: list[list[Row]]) -> dict[int, list[Part[Word]]]:
    """The paragraphs (by index) that are data rows of a table with column headers, each as
    the parts of its canonical row; other paragraphs are left to the plain writer."""
    out: dict[int, list[Part[Word]]] = {}
    before: tuple[list[_Column], str] = ([], "")  # the last headed table on the page
    folded, passed = _folded(paras)
    i = 0
    while i < len(paras):
        if not _is_table(paras[i]):
            i += 1
            continue
        j, data = i, False
        while j < len(paras) and (_is_table(paras[j]) or j in passed or (
                j + 1 < len(paras) and _is_caption(paras[j]) and _is_table(paras[j + 1]))):
            cells = _cells(paras[j][0]) if _is_table(paras[j]) else []
            figures = _data(cells)
            if data and not figures and _heading(cells):
                break  # a row of headers after figures: the next table starts
            data = data or figures
            j += 1
        rows, before = _rewrite(paras, i, j, before, (folded, passed))
        out.update(rows)
        i = j
    return out


def _folded(paras: list[list[Row]]) -> tuple[dict[int, Row], set[int]]:
    """Header words set between two header rows, each where a cell two rows deep is centred
    ("Recomm." and "Avg." between "Task" and "Subtask"): the layout makes them a paragraph of
    their own, which would end the table's run above its headers. Each such row joins the
    header row nearest it (by index of that row's paragraph), and the paragraph is passed over."""
    folded: dict[int, Row] = {}
    passed: set[int] = set()
    for k in range(1, len(paras) - 1):
        near = (k - 1, k + 1)
        if _is_table(paras[k]) or not all(_is_table(paras[n]) and _header_row(_cells(paras[n][0])) for n in near):
            continue
        label_x1 = max(_cells(paras[n][0])[0].x1 for n in near)
        if not all(_fragment(row, label_x1) for row in paras[k]):
            continue
        for row in paras[k]:
            n = min(near, key=lambda n: abs(paras[n][0].y0 + paras[n][0].y1 - row.y0 - row.y1))
            base = folded.get(n, paras[n][0])
            folded[n] = Row(sorted([*base.lines, *row.lines], key=lambda ln: ln.x0), table=True)
        passed.add(k)
    return folded, passed


def _header_row(cells: list[_Cell]) -> bool:
    """Headers over several columns, no figure: not a bullet and its text ("•", "Appliances ...")."""
    return len(cells) >= 3 and not _data(cells)


def _fragment(row: Row, label_x1: float) -> bool:
    """A row of a header word or two over the value columns (right of ``label_x1``, where the
    rows beside it end their labels), no figure and no unit ("Recomm.", "Avg.")."""
    words = row.words
    text = " ".join(w.text for w in words)
    return (len(words) <= 2 and words[0].x0 > label_x1 and any(ch.isalpha() for ch in text)
            and not any(is_amount(w.text) for w in words) and not unit_of(text))


def _heading(cells: list[_Cell]) -> bool:
    """A row of column headers: words or years past its first cell ("2018", "December 31,"),
    not dashes or ratios ("—", "1.4:1")."""
    return any(any(ch.isalpha() for ch in c.text) or YEARISH.search(c.text) for c in cells[1:])


def _is_table(para: list[Row]) -> bool:
    return len(para) == 1 and para[0].table


def _is_caption(para: list[Row]) -> bool:
    """Caption rows inside a table ("Assets" over "Current assets"): a few rows, each a label."""
    return len(para) <= MAX_CAPTION_ROWS and all(_is_label(row) for row in para)


def _is_label(row: Row) -> bool:
    """A row that names a block of a table ("Return on invested capital"): words, no figures."""
    words = row.words
    wordy = any(ch.isalpha() for w in words for ch in w.text)
    return wordy and len(words) <= 12 and not words[-1].text.endswith(".") and not any(is_amount(w.text) for w in words)


def _cells(row: Row) -> list[_Cell]:
    """The row's words cut at gaps wider than its type size; a lone currency sign joins the
    figure after it, a lone "%" or ")" the figure before it."""
    words = row.words
    gap = max(row.text_size, 4.0)
    cells: list[_Cell] = []
    for w in words:
        if cells and w.x0 - cells[-1].x1 <= gap:
            cells[-1].words.append(w)
        else:
            cells.append(_Cell([w]))
    for a, b in pairwise(cells):
        # "$ (111) $ 1,568": the second sign opens the next column's figure
        if len(a.words) > 1 and a.words[-1].text in _CURRENCY:
            b.words.insert(0, a.words.pop())
    merged: list[_Cell] = []
    for cell in (part for whole in cells for part in _figures_apart(whole)):
        text = cell.text
        if merged and (merged[-1].text in _CURRENCY or text in _TRAILERS):
            merged[-1].words.extend(cell.words)
        else:
            merged.append(cell)
    return merged


def _figures_apart(cell: _Cell) -> list[_Cell]:
    """A cell of nothing but figures set a space apart ("84.2 88.4 91.5" in a paper's tight
    table) is one cell per figure; a group of three digits after digits is their thousands
    ("98 452")."""
    if len(cell.words) < 2 or not all(is_amount(w.text) for w in cell.words):
        return [cell]
    out = [_Cell([cell.words[0]])]
    for a, b in pairwise(cell.words):
        if not (_GROUP.fullmatch(b.text) and a.text.isdigit()):
            out.append(_Cell([b]))
        else:
            out[-1].words.append(b)
    return out


Headed = tuple[list[_Column], str]


def _rewrite(paras: list[list[Row]], start: int, end: int, before: Headed,
             folding: tuple[dict[int, Row], set[int]]) -> tuple[dict[int, list[Part[Word]]], Headed]:
    """The run's data rows as canonical rows, and its columns for the next run; a run with
    no header of its own (a second block under the same years) takes the columns of the
    table before it on the page when every column lines up with one of those. ``folding``:
    header rows with the header words set between them joined, and the paragraphs those
    words were (``_folded``)."""
    folded, passed = folding
    rows = {k: _cells(folded.get(k, paras[k][0])) for k in range(start, end) if k not in passed}
    data = [k for k, cells in rows.items() if _data(cells)]
    if len(data) < MIN_DATA_ROWS:
        return {}, before
    columns = _columns([rows[k] for k in data])
    if not columns:
        return {}, before
    label_x1 = min(c.x0 for c in columns)
    heads, unit = _headers(paras, start, data[0], rows, columns, label_x1)
    if not heads:
        earlier, unit = before
        if not _same_columns(columns, earlier):
            return {}, before
        for col in columns:
            col.head = next(e.head for e in earlier if abs(e.x1 - col.x1) <= 6.0 and e.head)
    out: dict[int, list[Part[Word]]] = {}
    for k in data:
        cells = rows[k]
        label = cells[0].words if _labelled(cells) and cells[0].x0 < label_x1 else []
        values: list[list[Word]] = [[] for _ in columns]
        for cell in cells:
            if label and cell is cells[0]:
                continue
            at = _nearest(columns, cell)
            if at is None:
                break
            values[at].extend(cell.words)
        else:
            out[k] = compose([(w.text, w) for w in label],
                             [(" ".join(columns[n].head), [(w.text, w) for w in values[n]])
                              for n in range(len(columns))], unit)
    return out, (columns, unit)


def _same_columns(columns: list[_Column], earlier: list[_Column]) -> bool:
    return bool(earlier) and all(any(abs(e.x1 - c.x1) <= 6.0 and e.head for e in earlier) for c in columns)


def _figure(cells: list[_Cell], k: int) -> bool:
    """Whether the row's ``k``-th cell holds a figure; past the first cell "(19)" does."""
    text = cells[k].text
    return is_amount(text) or (k > 0 and MARKER.fullmatch(text) is not None)


def _data(cells: list[_Cell]) -> bool:
    return any(_figure(cells, k) for k in range(len(cells)))


def _labelled(cells: list[_Cell]) -> bool:
    return not is_amount(cells[0].text) and any(ch.isalpha() for ch in cells[0].text)


def _columns(rows: list[list[_Cell]]) -> list[_Column]:
    """Value columns: figures are right-aligned, so cells whose right edges fall within a few
    points of each other are one column; a row's label is no figure."""
    edges = sorted((cells[k].edge, cells[k].x0) for cells in rows for k in range(len(cells))
                   if _figure(cells, k) and not (k == 0 and _labelled(cells)))
    columns: list[_Column] = []
    for x1, x0 in edges:
        if columns and x1 - columns[-1].x1 <= 6.0:
            columns[-1].x1 = x1
            columns[-1].x0 = min(columns[-1].x0, x0)
        else:
            columns.append(_Column(x0, x1))
    return columns


def _nearest(columns: list[_Column], cell: _Cell) -> int | None:
    """The column a cell belongs to: the one it overlaps, else the one whose right edge is
    nearest its own (within the width of a column)."""
    best, dist = None, float("inf")
    for n, col in enumerate(columns):
        if cell.x0 <= col.x1 + 1 and cell.x1 >= col.x0 - 1:
            d = abs(cell.edge - col.x1)
        else:
            d = min(abs(cell.edge - col.x1), abs(cell.x0 - col.x0)) + 1000.0
        if d < dist:
            best, dist = n, d
    if best is None or dist >= 1000.0 + max(columns[best].x1 - columns[best].x0, 20.0):
        return None
    return best


def _headers(paras: list[list[Row]], start: int, first_data: int, rows: dict[int, list[_Cell]],
             columns: list[_Column], label_x1: float) -> tuple[bool, str]:
    """Fill each column's header from the rows above the first data row (inside the run, or
    up to three one-row paragraphs just before it, captions passed over); return whether any
    column got one, and the table's unit when a header cell names it."""
    def caption(cells: list[_Cell]) -> bool:
        """All in the label column ("Assets", "Current assets"), or the table's unit alone."""
        return all(c.x1 < label_x1 - 2 or unit_of(c.text) for c in cells)

    above: list[list[_Cell]] = [rows[k] for k in range(start, first_data) if k in rows]
    k = start - 1
    top = paras[start][0].y0
    # caption paragraphs between the header and the data ("Assets" / "Current assets") are
    # passed over: a balance sheet's years sit above them
    while k >= 0 and sum(not caption(c) for c in above) < MAX_HEADER_ROWS and (
            len(paras[k]) == 1 or _is_caption(paras[k])):
        para = paras[k]
        cells = [_cells(row) for row in para]
        if top - para[-1].y1 > 2.5 * para[-1].height or any(_data(c) for c in cells):
            break
        if len(para) > 1 and not all(caption(c) for c in cells):
            break  # several rows across the columns: a paragraph of text, not a caption
        above[:0] = cells
        top = para[0].y0
        k -= 1
    unit = next((u for cells in above for c in cells if (u := unit_of(c.text))), "")
    rows_above = [cells for cells in above if not caption(cells)][-MAX_HEADER_ROWS:]
    heads: list[list[tuple[int, str]]] = []
    if rows_above:
        # the row just above the figures names each column, however tightly it is set
        lowest = [part for whole in rows_above[-1] for part in _over_columns(whole, columns, label_x1)]
        last = _row_heads(lowest, columns, label_x1)
        # when it names every one, a header over the gap between two of them heads both ("CS"
        # over "prec." and "yield")
        spans = len({n for n, _ in last}) == len(columns) > 1
        heads = [_row_heads(cells, columns, label_x1, spans=spans) for cells in rows_above[:-1]] + [last]
    for r, row in enumerate(heads):
        below = {n for later in heads[r + 1:] for n, _ in later}
        # one title over a row that heads every column ("Year ended December 31," over the
        # years) spans the table, however narrow it is set
        if len(columns) > 1 and len({text for _, text in row}) == 1 and len(below) == len(columns):
            continue
        for n, text in row:
            columns[n].head.append(text)
    return any(col.head for col in columns), unit


def _row_heads(cells: list[_Cell], columns: list[_Column], label_x1: float,
               spans: bool = False) -> list[tuple[int, str]]:
    """The columns a header row's cells stand over, each with the cell's text; the unit,
    captions and a title over every column tell no column apart. With ``spans``, a row whose
    every header stands over two or more columns ("CS" and "Bio" over "prec." and "yield")
    gives a header centred over the gap between two columns to both."""
    # a header centred over the first column starts left of its figures when it is wider
    # than they are ("Total Number of Shares Purchased" over "7,138,475")
    kept = [c for c in cells if not (unit_of(c.text) or (c.x0 < label_x1 - 2 and (c.x0 + c.x1) / 2 < label_x1))]
    hits = [_over(c, columns) for c in kept]
    if spans:
        groups = [hit if len(hit) > 1 else _spanned(c, columns) for c, hit in zip(kept, hits, strict=True)]
        # the row's headers must share the columns out between them, each taking two or more
        if all(groups) and sorted(n for g in groups for n in g) == list(range(len(columns))):
            hits = groups
    out: list[tuple[int, str]] = []
    for cell, over in zip(kept, hits, strict=True):
        hit = [cell.column] if cell.column is not None else over
        if hit and (len(hit) < len(columns) or len(columns) == 1):
            out.extend((n, cell.text) for n in hit)
        elif not hit and (near := _nearest(columns, cell)) is not None:
            out.append((near, cell.text))
    return out


def _over(cell: _Cell, columns: list[_Column]) -> list[int]:
    return [n for n, col in enumerate(columns) if cell.x0 <= col.x1 + 2 and cell.x1 >= col.x0 - 2]


def _spanned(cell: _Cell, columns: list[_Column]) -> list[int]:
    """The two columns a header centred over the gap between them heads ("CS" over its
    "prec." and "yield"), else none."""
    mid = (cell.x0 + cell.x1) / 2
    for n, (a, b) in enumerate(pairwise(columns)):
        if a.x1 < mid < b.x0 and a.x0 - 2 <= cell.x0 and cell.x1 <= b.x1 + 2 \
                and abs(mid - (a.x0 + b.x1) / 2) <= (b.x1 - a.x0) / 8:
            return [n, n + 1]
    return []


def _over_columns(cell: _Cell, columns: list[_Column], label_x1: float) -> list[_Cell]:
    """A header cell whose words each stand over a column of their own ("Field Precision
    Recall" set tight in a small table, "prec. yield prec. yield" under "CS" and "Bio") is
    that many headers; a title whose words straddle the gaps ("Three Months Ended") is one."""
    if len(cell.words) < 2:
        return [cell]
    owner: list[int] = []
    for w in cell.words:
        mid = (w.x0 + w.x1) / 2
        hit = [n for n, col in enumerate(columns) if col.x0 - 2 <= mid <= col.x1 + 2]
        if mid < label_x1 and not hit:
            owner.append(-1)  # the label column's own header ("Field")
        elif len(hit) == 1:
            owner.append(hit[0])
        else:
            return [cell]
    placed = [n for n in owner if n >= 0]
    if len(placed) < 2 or len(set(placed)) != len(placed):
        return [cell]
    return [_Cell([w], n) for w, n in zip(cell.words, owner, strict=True) if n >= 0]


__all__ = ["table_rows"]
