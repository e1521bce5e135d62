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

from itertools import pairwise

from gechat.documents.pdf_cells import Cell, Column, cells_of, is_data, labelled, nearest, value_columns
from gechat.documents.pdf_layout import Row, Word
from gechat.documents.tables import YEARISH, Part, compose, is_amount, unit_of

MAX_HEADER_ROWS = 4
MIN_DATA_ROWS = 2
MAX_CAPTION_ROWS = 3


def table_rows(paras: list[list[Row]]) -> dict[int, list[Part[Word]]]:
    """The paragraphs (by index) that are data rows of a table with column headers, each as
    the parts of its canonical row; other paragraphs are left to the plain writer."""
    out: dict[int, list[Part[Word]]] = {}
    before: tuple[list[Column], str] = ([], "")  # the last headed table on the page
    folded, passed = _folded(paras)
    i = 0
    while i < len(paras):
        if not _is_table(paras[i]):
            i += 1
            continue
        j, data = i, False
        while j < len(paras) and (_is_table(paras[j]) or j in passed or (
                j + 1 < len(paras) and _is_caption(paras[j]) and _is_table(paras[j + 1]))):
            cells = cells_of(paras[j][0]) if _is_table(paras[j]) else []
            figures = is_data(cells)
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
        if _is_table(paras[k]) or not all(_is_table(paras[n]) and _header_row(cells_of(paras[n][0])) for n in near):
            continue
        label_x1 = max(cells_of(paras[n][0])[0].x1 for n in near)
        if not all(_fragment(row, label_x1) for row in paras[k]):
            continue
        for row in paras[k]:
            n = min(near, key=lambda n: abs(paras[n][0].y0 + paras[n][0].y1 - row.y0 - row.y1))
            base = folded.get(n, paras[n][0])
            folded[n] = Row(sorted([*base.lines, *row.lines], key=lambda ln: ln.x0), table=True)
        passed.add(k)
    return folded, passed


def _over_values(cells: list[Cell], label_x1: float) -> bool:
    """A row of header words over the value columns only, no figure ("Fixed Asset" over its
    column): a line of headers, where a line of text starts in the label column."""
    return bool(cells) and all(c.x0 >= label_x1 - 2 for c in cells) and not is_data(cells)


def _header_row(cells: list[Cell]) -> bool:
    """Headers over several columns, no figure: not a bullet and its text ("•", "Appliances ...")."""
    return len(cells) >= 3 and not is_data(cells)


def _fragment(row: Row, label_x1: float) -> bool:
    """A row of a header word or two over the value columns (right of ``label_x1``, where the
    rows beside it end their labels), no figure and no unit ("Recomm.", "Avg.")."""
    words = row.words
    text = " ".join(w.text for w in words)
    return (len(words) <= 2 and words[0].x0 > label_x1 and any(ch.isalpha() for ch in text)
            and not any(is_amount(w.text) for w in words) and not unit_of(text))


def _heading(cells: list[Cell]) -> bool:
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


Headed = tuple[list[Column], str]


def _rewrite(paras: list[list[Row]], start: int, end: int, before: Headed,
             folding: tuple[dict[int, Row], set[int]]) -> tuple[dict[int, list[Part[Word]]], Headed]:
    """The run's data rows as canonical rows, and its columns for the next run; a run with
    no header of its own (a second block under the same years) takes the columns of the
    table before it on the page when every column lines up with one of those. ``folding``:
    header rows with the header words set between them joined, and the paragraphs those
    words were (``_folded``)."""
    folded, passed = folding
    rows = {k: cells_of(folded.get(k, paras[k][0])) for k in range(start, end) if k not in passed}
    data = [k for k, cells in rows.items() if is_data(cells)]
    if len(data) < MIN_DATA_ROWS:
        return {}, before
    columns = value_columns([rows[k] for k in data])
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
        label = cells[0].words if labelled(cells) and cells[0].x0 < label_x1 else []
        values: list[list[Word]] = [[] for _ in columns]
        for cell in cells:
            if label and cell is cells[0]:
                continue
            at = nearest(columns, cell)
            if at is None:
                break
            values[at].extend(cell.words)
        else:
            out[k] = compose([(w.text, w) for w in label],
                             [(" ".join(columns[n].head), [(w.text, w) for w in values[n]])
                              for n in range(len(columns))], unit)
    return out, (columns, unit)


def _same_columns(columns: list[Column], earlier: list[Column]) -> bool:
    return bool(earlier) and all(any(abs(e.x1 - c.x1) <= 6.0 and e.head for e in earlier) for c in columns)


def _headers(paras: list[list[Row]], start: int, first_data: int, rows: dict[int, list[Cell]],
             columns: list[Column], label_x1: float) -> tuple[bool, str]:
    """Fill each column's header from the rows above the first data row (inside the run, or
    up to MAX_HEADER_ROWS header lines just before it, captions passed over; four: "Three
    months ended" / "December 31, 2018" / "Net" / "Sales"); return whether any column got one,
    and the table's unit when a header cell names it."""
    def caption(cells: list[Cell]) -> bool:
        """All in the label column ("Assets", "Current assets"), or the table's unit alone."""
        return all(c.x1 < label_x1 - 2 or unit_of(c.text) for c in cells)

    above: list[list[Cell]] = [rows[k] for k in range(start, first_data) if k in rows]
    k = start - 1
    top = paras[start][0].y0
    # caption paragraphs between the header and the data ("Assets" / "Current assets") are
    # passed over: a balance sheet's years sit above them
    while k >= 0 and sum(not caption(c) for c in above) < MAX_HEADER_ROWS and (
            len(paras[k]) == 1 or _is_caption(paras[k])):
        para = paras[k]
        cells = [cells_of(row) for row in para]
        if top - para[-1].y1 > 2.5 * para[-1].height or any(is_data(c) for c in cells):
            break
        if len(para) > 1 and not all(caption(c) or _over_values(c, label_x1) for c in cells):
            break  # several rows across the columns: a paragraph of text, not captions or headers
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
        # a line of a column's stacked header ("Total" over "Restructuring" over "Costs") is none:
        # a row below it heads only some columns, and it stands off the table's centre
        one = len({text for _, text in row}) == 1 and sum(c.text == row[0][1] for c in rows_above[r]) == 1
        if len(columns) > 1 and one and len(below) == len(columns) and (all(
                len({n for n, _ in later}) == len(columns) or len({t for _, t in later}) == 1
                for later in heads[r + 1:]) or _centred(columns, [n for n, _ in row])):
            continue
        for n, text in row:
            columns[n].head.append(text)
    return any(col.head for col in columns), unit


def _centred(columns: list[Column], under: list[int]) -> bool:
    """Whether the columns ``under`` a title are centred on the table's."""
    a, b = columns[min(under)], columns[max(under)]
    return _centred_over((a.x0 + b.x1) / 2, columns[0], columns[-1], 6)


def _centred_over(mid: float, a: Column, b: Column, parts: int) -> bool:
    """Whether ``mid`` lies within a ``parts``-th of the width of the columns ``a`` to ``b``
    from their centre."""
    return abs(mid - (a.x0 + b.x1) / 2) <= (b.x1 - a.x0) / parts


def _row_heads(cells: list[Cell], columns: list[Column], label_x1: float,
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
        elif (shared := _shared_out(kept, columns)) is not None:
            hits = shared
    out: list[tuple[int, str]] = []
    for cell, over in zip(kept, hits, strict=True):
        hit = [cell.column] if cell.column is not None else over
        if hit and (len(hit) < len(columns) or len(columns) == 1):
            out.extend((n, cell.text) for n in hit)
        elif not hit and (near := nearest(columns, cell)) is not None:
            out.append((near, cell.text))
    return out


def _shared_out(cells: list[Cell], columns: list[Column]) -> list[list[int]] | None:
    """The columns shared out between a row's headers by nearness, when each is centred over
    its share of two or more ("2022" over "Flexibles", "Rigid Packaging" and "Total", "2021"
    over the next three); None when they do not share them out so."""
    if len(cells) < 2:
        return None
    mids = [(c.x0 + c.x1) / 2 for c in cells]
    groups: list[list[int]] = [[] for _ in cells]
    for n, col in enumerate(columns):
        centre = (col.x0 + col.x1) / 2
        groups[min(range(len(cells)), key=lambda i: abs(mids[i] - centre))].append(n)
    for group, mid in zip(groups, mids, strict=True):
        if len(group) < 2 or group != list(range(group[0], group[-1] + 1)):
            return None
        if not _centred_over(mid, columns[group[0]], columns[group[-1]], 6):
            return None
    return groups


def _over(cell: Cell, columns: list[Column]) -> list[int]:
    return [n for n, col in enumerate(columns) if cell.x0 <= col.x1 + 2 and cell.x1 >= col.x0 - 2]


def _spanned(cell: Cell, columns: list[Column]) -> list[int]:
    """The two columns a header centred over the gap between them heads ("CS" over its
    "prec." and "yield"), else none."""
    mid = (cell.x0 + cell.x1) / 2
    for n, (a, b) in enumerate(pairwise(columns)):
        if a.x1 < mid < b.x0 and a.x0 - 2 <= cell.x0 and cell.x1 <= b.x1 + 2 \
                and _centred_over(mid, a, b, 8):
            return [n, n + 1]
    return []


def _over_columns(cell: Cell, columns: list[Column], label_x1: float) -> list[Cell]:
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
    return [Cell([w], n) for w, n in zip(cell.words, owner, strict=True) if n >= 0]


__all__ = ["table_rows"]
