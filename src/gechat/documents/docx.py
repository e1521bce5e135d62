"""Word (.docx) loader (python-docx).

Body paragraphs (headings included) and table rows are read in document order; each one is
a block. A table row becomes one line, with its column headers beside its cells
(``gechat.documents.tables``), so a row reads as a record and a sentence never glues two
rows together.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import docx
from docx.document import Document as DocxDocument
from docx.opc.exceptions import PackageNotFoundError
from docx.table import Table
from docx.text.paragraph import Paragraph

from gechat.documents.budget import UNLIMITED, Deadline
from gechat.documents.headings import MAX_HEADING_CHARS, clean_heading
from gechat.documents.html import join_blocks
from gechat.documents.limits import DEFAULT_LIMITS, Limits, TextBudget
from gechat.documents.markup import check_zip_xml
from gechat.documents.tables import text_rows
from gechat.documents.text import require_text, single_page
from gechat.errors import LoadError
from gechat.types import Heading, ParsedDocument


class DocxLoader:
    suffixes: tuple[str, ...] = (".docx",)

    def load(self, path: Path, deadline: Deadline = UNLIMITED, limits: Limits = DEFAULT_LIMITS) -> ParsedDocument:
        check_zip_xml(path, limits)  # before python-docx builds a tree of any part
        try:
            document = docx.Document(str(path))
        except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
            raise LoadError(
                f"{path.name} is not a readable .docx file (corrupt, or another format).",
                hint="Open it in Word or LibreOffice and save it again as .docx.",
            ) from exc
        except OSError as exc:
            raise LoadError(f"Cannot read {path.name}: {exc}") from exc
        levels: list[int] = []
        paragraphs = docx_paragraphs(document, deadline, levels, TextBudget(path.name, limits.max_text_chars))
        text, blocks, headings = join_blocks(paragraphs, levels)
        require_text(text, path)
        title = clean_heading(document.core_properties.title or "")
        if title and len(title) <= MAX_HEADING_CHARS:
            headings.insert(0, Heading(start=0, end=0, level=0, text=title))
        return ParsedDocument(text=text, kind="docx", title=path.stem, pages=single_page(text),
                              blocks=blocks, headings=headings)


def docx_paragraphs(document: DocxDocument, deadline: Deadline = UNLIMITED,
                    levels: list[int] | None = None, budget: TextBudget | None = None) -> list[str]:
    """Paragraphs and table rows in order; with ``levels``, each one's heading level is
    appended to it (from the "Title" and "Heading N" styles; 0 for the rest). ``budget``
    stops the reading once the text passes its limit."""
    out: list[str] = []
    names = _style_names(document) if levels is not None else {}
    for item in document.iter_inner_content():
        deadline.check(f"paragraph {len(out) + 1}")
        if isinstance(item, Paragraph):
            para = _clean(item.text)
            if para:
                if budget is not None:
                    budget.add(len(para) + 2, f"paragraph {len(out) + 1}")
                out.append(para)
                if levels is not None:
                    levels.append(_level(names.get(item._p.style or "", "")))
        elif isinstance(item, Table):
            rows = _table_rows(item)
            if budget is not None:
                budget.add(sum(len(r) + 2 for r in rows), f"paragraph {len(out) + 1}")
            out.extend(rows)
            if levels is not None:
                levels.extend(0 for _ in rows)
    return out


def _style_names(document: DocxDocument) -> dict[str, str]:
    """Each paragraph style's id and name, read once: ``Paragraph.style`` looks a paragraph
    without one up among all styles, 2 ms a paragraph, so 20,000 paragraphs took 50 s."""
    try:
        return {s.style_id: s.name or "" for s in document.styles if s.style_id}
    except (KeyError, ValueError, AttributeError):  # a damaged styles part: no headings, the text still reads
        return {}


def _level(name: str) -> int:
    """1-6 for a heading style ("Title" is 1, "Heading 2" is 2, deeper ones 6), else 0."""
    if name == "Title":
        return 1
    head, _, number = name.partition(" ")
    if head == "Heading" and number.isdigit():
        return max(1, min(int(number), 6))
    return 0


def _table_rows(table: Table) -> list[str]:
    return text_rows(_cells(table))


def _cells(table: Table) -> list[list[str]]:
    rows: list[list[str]] = []
    for row in table.rows:
        cells: list[str] = []
        seen: set[int] = set()
        for cell in row.cells:
            # Merged cells come back once per grid column; keep each underlying cell once.
            key = id(cell._tc)
            if key in seen:
                continue
            seen.add(key)
            cells.append(" ".join(_clean(cell.text).split()))
        if any(cells):
            rows.append(cells)
    return rows


def _clean(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


__all__ = ["DocxLoader", "docx_paragraphs"]
