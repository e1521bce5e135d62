"""The grid of a PDF table: a layout row cut into cells, and the value columns where figures end.

``pdf_tables`` reads a table's headers and writes its rows from these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise

from gechat.documents.pdf_layout import Row, Word
from gechat.documents.tables import MARKER, is_amount

_CURRENCY = frozenset("$€£¥")
_TRAILERS = frozenset(("%", ")", "%)"))
_GROUP = re.compile(r"\d{3}")


@dataclass(slots=True)
class Cell:
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
class Column:
    x0: float
    x1: float
    head: list[str] = field(default_factory=list)


def cells_of(row: Row) -> list[Cell]:
    """The row's words cut at gaps wider than its type size; a lone currency sign joins the
    figure after it, a lone "%" or ")" the figure before it."""
    words = row.words
    gap = max(row.text_size, 4.0)
    cells: list[Cell] = []
    for w in words:
        if cells and w.x0 - cells[-1].x1 <= gap:
            cells[-1].words.append(w)
        else:
            cells.append(Cell([w]))
    for a, b in pairwise(cells):
        # "$ (111) $ 1,568": the second sign opens the next column's figure
        if len(a.words) > 1 and a.words[-1].text in _CURRENCY:
            b.words.insert(0, a.words.pop())
    merged: list[Cell] = []
    for cell in (part for whole in cells for part in _figures_apart(whole)):
        text = cell.text
        if merged and (merged[-1].text in _CURRENCY or text in _TRAILERS):
            merged[-1].words.extend(cell.words)
        else:
            merged.append(cell)
    return merged


def _figures_apart(cell: Cell) -> list[Cell]:
    """A cell of nothing but figures set a space apart ("84.2 88.4 91.5" in a paper's tight
    table) is one cell per figure; a group of three digits after digits is their thousands
    ("98 452")."""
    if len(cell.words) < 2 or not all(is_amount(w.text) for w in cell.words):
        return [cell]
    out = [Cell([cell.words[0]])]
    for a, b in pairwise(cell.words):
        if not (_GROUP.fullmatch(b.text) and a.text.isdigit()):
            out.append(Cell([b]))
        else:
            out[-1].words.append(b)
    return out


def has_figure(cells: list[Cell], k: int) -> bool:
    """Whether the row's ``k``-th cell holds a figure; past the first cell "(19)" does."""
    text = cells[k].text
    return is_amount(text) or (k > 0 and MARKER.fullmatch(text) is not None)


def is_data(cells: list[Cell]) -> bool:
    return any(has_figure(cells, k) for k in range(len(cells)))


def labelled(cells: list[Cell]) -> bool:
    return not is_amount(cells[0].text) and any(ch.isalpha() for ch in cells[0].text)


def value_columns(rows: list[list[Cell]]) -> list[Column]:
    """Value columns: figures are right-aligned, so cells whose right edges fall within a few
    points of each other are one column; a row's label is no figure."""
    edges = sorted((cells[k].edge, cells[k].x0) for cells in rows for k in range(len(cells))
                   if has_figure(cells, k) and not (k == 0 and labelled(cells)))
    columns: list[Column] = []
    for x1, x0 in edges:
        if columns and x1 - columns[-1].x1 <= 6.0:
            columns[-1].x1 = x1
            columns[-1].x0 = min(columns[-1].x0, x0)
        else:
            columns.append(Column(x0, x1))
    return columns


def nearest(columns: list[Column], cell: Cell) -> int | None:
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


__all__ = ["Cell", "Column", "cells_of", "has_figure", "is_data", "labelled", "nearest", "value_columns"]
