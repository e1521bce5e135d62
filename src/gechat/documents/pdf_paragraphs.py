"""Paragraphs of a PDF page: which rows of a reading region run on, and which start anew.

PyMuPDF's blocks are a hint, not the answer: it starts a new block in the middle of a
sentence (after a hyphenated line end, at a name broken across lines), and a paragraph goes on
at the head of the next column. A row carries on the one above it when no vertical gap parts
them and the text above is unfinished.
"""

from __future__ import annotations

import math
from itertools import pairwise

from gechat.documents.pdf_layout import Row, gapped

NEAR_TABLE = 3  # rows this close to a table row are not joined as wrapped prose (``_wrapped``)


def paragraphs_of(rows: list[Row]) -> list[list[Row]]:
    """Consecutive rows form a paragraph until a block change, a vertical gap or a table row."""
    gaps = sorted(b.y0 - a.y1 for a, b in pairwise(rows))
    # The usual gap between lines: double-spaced pages must not become one line per paragraph.
    spacing = max(gaps[len(gaps) // 2], 0.0) if gaps else 0.0
    full = _full_width(rows)
    paras: list[list[Row]] = []
    prev: Row | None = None
    for i, row in enumerate(rows):
        # beside a table, lines of words are its headers and labels ("Elimination of" over
        # "Non-reportable intersegment"), not prose wrapped at the column's edge
        edge = math.inf if any(r.table for r in rows[max(0, i - NEAR_TABLE):i + NEAR_TABLE]) else full
        if prev is None or row.table or prev.table or _breaks(prev, row, spacing, edge):
            paras.append([row])
        else:
            paras[-1].append(row)
        prev = row
    return paras


_TERMINAL = tuple(".!?:;")


def _finished(word: str, *, marked: bool = False) -> bool:
    """Whether a line's last ``word`` ends a sentence (closing quotes and brackets aside; with
    ``marked``, a footnote mark after it too)."""
    end = word.rstrip("\"'”’)]")
    return (end.rstrip("0123456789") if marked else end).endswith(_TERMINAL)


def _breaks(prev: Row, row: Row, spacing: float, full: float = math.inf) -> bool:
    if row.y0 - prev.y1 > max(0.6 * min(prev.height, row.height), spacing * 1.5 + 1.0):
        return True
    # PyMuPDF sometimes starts a new block mid-paragraph (often right after a hyphenated
    # line end); a lowercase start after an unfinished line is the same paragraph, and so is
    # any start after an unfinished line that runs to the column's edge: the text wrapped
    # there ("... Deputy Attorney General, Los" / "Angeles, Cal."); a heading stops short.
    return not (prev.blocks & row.blocks or _unfinished(prev, row) or _wrapped(prev, row, full))


def _full_width(rows: list[Row]) -> float:
    """The right edge from which a line counts as running to its column's edge: within a
    tenth of the column's width of where most of its long lines end."""
    rights = sorted(max(ln.x1 for ln in r.lines) for r in rows if not r.table)
    if len(rights) < 3:
        return math.inf
    edge, left = rights[(9 * len(rights)) // 10], min(min(ln.x0 for ln in r.lines) for r in rows)
    return edge - 0.1 * (edge - left)


def _wrapped(prev: Row, row: Row, full: float) -> bool:
    words = [w.text for w in prev.words]
    # "... summary of the paper.4": a sentence's end with its footnote mark
    if _finished(words[-1], marked=True) or not row.words[0].text[:1].isalpha():
        return False
    # A title-case line may be a heading as wide as a narrow column ("Confidential Business
    # Information (CBI)"), or an entry of a list ("Best Buy Puerto Rico Holdings, LLC Puerto
    # Rico"). Prose shows itself by ending in a small word or a broken one ("and", "SciB-"),
    # or by a comma and a hanging indent below ("... General, Los" / "  Angeles, Cal.");
    # a line in capitals is a title.
    hanging = min(ln.x0 for ln in row.lines) > min(ln.x0 for ln in prev.lines) + 0.5 * prev.text_size
    prose = words[-1][:1].islower() or words[-1][-1:] in ",-–" or (
        hanging and any(w.endswith(",") for w in words[:-1]))
    prose = prose and any(c.islower() for w in words for c in w)
    same_size = abs(prev.text_size - row.text_size) <= 0.15 * max(prev.text_size, row.text_size)
    return prose and same_size and max(ln.x1 for ln in prev.lines) >= full and not gapped(prev)


def continues(prev: list[Row], nxt: list[Row]) -> bool:
    """Whether ``nxt``, first in a column, carries on ``prev``, a paragraph of the column before."""
    a, b = prev[-1], nxt[0]
    # Same type size too: a footnote at the foot of a column is not continued by body text.
    sa, sb = a.text_size, b.text_size
    same_size = abs(sa - sb) <= 0.15 * max(sa, sb)
    return not (a.table or b.table) and same_size and _unfinished(a, b)


def _unfinished(prev: Row, row: Row) -> bool:
    last, first = prev.words[-1].text, row.words[0].text
    if _finished(last):
        return False
    # "(e.g., Xiong et al.," then "2017)." at the head of the next column.
    return first[:1].islower() or (last.endswith(",") and first[:1].isdigit())


def is_caption(para: list[Row]) -> bool:
    return para[0].words[0].text in ("Figure", "Fig.", "Table", "FIGURE", "TABLE")
