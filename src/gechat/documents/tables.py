"""Table rows as units a reader can quote: each row carries its column headers and its label.

A table row printed as "Net revenue 17,606 15,785" says nothing about which year each figure
belongs to; the reader of a page sees the header, a sentence-sized unit of text does not.
Every loader therefore writes a data row of a table whose columns have headers as

    Net revenue | FY2022: 17,606 | FY2021: 15,785 (in millions)

(label, then ``header: value`` per cell, then the table's unit when its header names one).
This canonical row *is* the document text at that place: the text is ours for every loader
but plain text, so ``doc_text[start:end] == sentence.text`` holds for table rows as for any
sentence, and the value checks, retrieval and citations see the header beside each figure.
In a PDF every word of a cell keeps its own box; the header labels put in front of a value
have none, so a highlighted row marks its own cells.

Rows of a table with no header row, and header rows themselves, are written with their
cells joined by `` | ``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")
Part = tuple[str, T | None]  # a word of the row and what it came from (a PDF word), if anything

SEPARATOR = " | "
# A header cell that states the table's unit: "(Millions)", "(in thousands, except per share
# data)", "$ in millions", "In millions of U.S. dollars". Linear: one optional run of
# non-letters, then fixed words.
_UNIT = re.compile(
    r"[($€£\s]*+(?:(?:dollars|amounts|\$|usd|eur|in|of|u\.s\.)\s++)*+"
    r"(?:thousands|millions|billions)\b", re.IGNORECASE)
# a value a table states: an amount, a percentage, a count; years, dates and words are headers
_AMOUNT = re.compile(r"[(\-–—$€£]*+\d[\d,]*+(?:\.\d++)?+[)%]*+")
YEARISH = re.compile(r"(?:19|20)\d\d")
# "(1)": a footnote or list marker, not a value (in a table's value column, a small negative)
MARKER = re.compile(r"\(\d{1,2}\)")
# the unit that closes a row, as ``compose`` writes it: " (Dollars in millions, except per share amounts)"
_ROW_UNIT = re.compile(r" (\([^()]{0,80}?\b(?:thousands|millions|billions)\b[^()]{0,80}?\))(?=\s|$)", re.IGNORECASE)


def unit_of(text: str) -> str:
    """The cell's text as the table's unit ("(in millions)"), or "" when it names none."""
    text = " ".join(text.split())
    if not text or len(text) > 80 or not _UNIT.match(text):
        return ""
    return text if text.startswith("(") else f"({text})"


def is_amount(text: str) -> bool:
    """A cell that holds a figure (not a year, a date or words): a row with one is data."""
    words = text.split()
    return any(_AMOUNT.fullmatch(w) and not YEARISH.fullmatch(w.strip("()")) and not MARKER.fullmatch(w)
               for w in words) and not any(
        any(c.isalpha() for c in w) and len(w) > 2 for w in words)


UNIT_SCALE = re.compile(r"(?i)\b(thousand|million|billion)s?\b")


def row_unit(text: str) -> str:
    """The table's unit a canonical row ends with ("(Millions)"), or ""."""
    if not text.endswith(")"):
        return ""
    unit = text[text.rfind(" (") + 1:]
    return unit if UNIT_SCALE.search(unit) else ""


def row_label(text: str) -> str | None:
    """The label of a canonical table row ("Net income" of "Net income | 2018: $ 5,363"), or
    None when ``text`` is not one."""
    label, sep, rest = text.partition(SEPARATOR)
    return label if sep and ": " in rest else None


def compose(label: Sequence[Part[T]], cells: Sequence[tuple[str, Sequence[Part[T]]]],
            unit: str = "") -> list[Part[T]]:
    """One canonical row: ``label | header: value | ... (unit)``; the words of the label and
    of each value are joined by single spaces, the separators and headers come from nowhere
    (``None``). Cells with no value are left out; a row of percentages gets no unit."""
    out: list[Part[T]] = []

    def words(parts: Sequence[Part[T]]) -> None:
        for k, part in enumerate(parts):
            if k:
                out.append((" ", None))
            out.append(part)

    words(label)
    for header, value in cells:
        if not value:
            continue
        if out:
            out.append((SEPARATOR, None))
        if header:
            out.append((f"{header}: ", None))
        words(value)
    # a row of percentages is not in the table's currency unit
    if unit and out and not all("%" in "".join(t for t, _ in value) for _, value in cells if value):
        out.append((f" {unit}", None))
    return out


def text_rows(rows: Sequence[Sequence[str]], header: int | None = None) -> list[str]:
    """The rows of a table given as cell texts (DOCX, HTML, Markdown), each as one line of
    text. ``header`` is the number of leading header rows when the format says (HTML
    ``<th>``); otherwise the first row is a header when it holds no figure and a later
    row does."""
    rows = [[" ".join(c.split()) for c in row] for row in rows]
    rows = [row for row in rows if any(row)]
    if not rows:
        return []
    if header is None:
        header = int(len(rows) > 1 and not any(is_amount(c) for c in rows[0])
                     and any(is_amount(c) for row in rows[1:] for c in row))
    heads = _column_heads(rows[:header])
    out = [SEPARATOR.join(c for c in row if c) for row in rows[:header]]
    unit = next((u for row in rows[:header] for u in [unit_of(row[0])] if u), "")
    for row in rows[header:]:
        if not heads or len(row) != len(heads) or len(row) < 2:
            out.append(SEPARATOR.join(c for c in row if c))
            continue
        label = [(w, None) for w in row[0].split()]
        cells = [(heads[k], [(w, None) for w in row[k].split()]) for k in range(1, len(row))]
        has_figure = any(is_amount(c) for c in row[1:])
        parts: list[Part[None]] = compose(label, cells, unit if has_figure else "")
        out.append("".join(text for text, _ in parts))
    return out


# GitHub-style tables: a header line, a delimiter line ("|---|:--:|"), then rows. Linear: each
# pattern is one pass of possessive runs over one line.
_DELIMITER = re.compile(r"[ \t]*+\|?+(?:[ \t]*+:?+-++:?+[ \t]*+\|)++(?:[ \t]*+:?+-++:?+[ \t]*+)?+$")
_PIPE_LINE = re.compile(r"[ \t]*+\|")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_FENCE = re.compile(r"[ ]{0,3}(```|~~~)")


def markdown_tables(text: str) -> str:
    """``text`` with each GitHub-style table written as canonical rows, one paragraph each;
    everything else, fenced code included, is left exactly as it was."""
    lines = text.split("\n")
    out: list[str] = []
    fence: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        mark = _FENCE.match(line)
        if fence is not None or mark:
            if mark:
                fence = None if fence == mark.group(1) else (fence or mark.group(1))
            out.append(line)
            i += 1
            continue
        if "|" in line and i + 1 < len(lines) and _DELIMITER.match(lines[i + 1]):
            j = i + 2
            while j < len(lines) and _PIPE_LINE.match(lines[j]):
                j += 1
            rows = [_md_cells(x) for x in [line, *lines[i + 2:j]]]
            out.append("\n\n".join(text_rows(rows, header=1)))
            i = j
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _md_cells(line: str) -> list[str]:
    body = line.strip()
    body = body.removeprefix("|")
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [c.strip().replace("\\|", "|") for c in _CELL_SPLIT.split(body)]


def units_once(text: str) -> str:
    """``text`` with each unit that closes a table row kept where it first appears only, as a
    printed table states it once: an excerpt of a 3M balance sheet said "(Dollars in millions,
    except per share amount)" after each of its ten rows, a third of its words, for an LLM
    that reads every token."""
    seen: set[str] = set()

    def first(m: re.Match[str]) -> str:
        unit = m.group(1).lower()
        if unit in seen:
            return ""
        seen.add(unit)
        return m.group(0)

    return _ROW_UNIT.sub(first, text)


def _column_heads(rows: Sequence[Sequence[str]]) -> list[str]:
    """One header per column, the header rows' cells stacked top to bottom; [] when the
    header rows do not have one cell per column."""
    if not rows or len({len(r) for r in rows}) != 1:
        return []
    heads = [" ".join(c for c in column if c) for column in zip(*rows, strict=True)]
    return heads if any(heads[1:]) else []


__all__ = ["MARKER", "SEPARATOR", "UNIT_SCALE", "Part", "compose", "is_amount", "markdown_tables", "row_label",
           "row_unit", "text_rows", "unit_of", "units_once"]
