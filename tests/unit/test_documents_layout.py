"""Paragraphs from PDF rows: where PyMuPDF starts a new block in the middle of a sentence."""

from __future__ import annotations

from gechat.documents.pdf_layout import Line, Row, Word
from gechat.documents.pdf_paragraphs import paragraphs_of


def row(block: int, y: float, text: str, right: float, left: float = 100.0) -> Row:
    """One line of ``text`` from ``left`` to ``right`` at height ``y``, its words spread evenly."""
    words = text.split()
    step = (right - left) / len(words)
    return Row([Line(block, [Word(left + k * step, y, left + (k + 1) * step - 3, y + 10, w)
                             for k, w in enumerate(words)])])


def texts(rows: list[Row]) -> list[str]:
    return [" ".join(w.text for r in para for w in r.words) for para in paragraphs_of(rows)]


def body(block: int, y: float) -> Row:
    return row(block, y, "The text goes on across the full width of its column, line by line.", 500)


def test_a_line_wrapped_at_the_columns_edge_goes_on_in_the_next_block() -> None:
    rows = [body(1, 0), row(1, 12, "STEVEN E. MERCER, ESQ., Deputy Attorney General, Los", 498),
            row(2, 24, "Angeles, Cal.; on behalf of the Petitioner.", 400, left=114), body(3, 36)]
    assert texts(rows)[0].endswith("General, Los Angeles, Cal.; on behalf of the Petitioner.")
    # a reference's author list broken before a capitalised name
    refs = [body(1, 0), row(1, 12, "Piotr Bojanowski, Edouard Grave, Armand Joulin, and", 497),
            row(2, 24, "Tomas Mikolov. 2017. Enriching word vectors. TACL.", 420)]
    assert len(texts(refs)) == 1


def test_a_heading_or_a_finished_line_still_ends_its_paragraph() -> None:
    heading = [body(1, 0), row(1, 12, "and the last line of it ends in full.", 300),
               row(2, 24, "Confidential Business Information (CBI)", 497), body(3, 36)]
    assert len(texts(heading)) == 3  # as wide as the column, but a title without a comma
    short = [body(1, 0), row(2, 12, "Results of the study", 250), body(3, 24)]
    assert len(texts(short)) == 3
    footnoted = [body(1, 0), row(1, 12, "which gives a short summary of the whole paper.4", 499), body(2, 24)]
    assert len(texts(footnoted)) == 2
    # entries of a list, one block each, however wide: no hanging indent carries one on
    listed = [body(1, 0), row(2, 12, "Best Buy Puerto Rico Holdings, LLC Puerto Rico", 498),
              row(3, 24, "Best Buy Stores Puerto Rico, LLC Puerto Rico", 470), body(4, 36)]
    assert len(texts(listed)) == 4
    # a name and its value, far apart on one line, are no line of prose either
    name, place = row(2, 12, "Best Buy Puerto Rico Holdings, LLC", 250), row(2, 12, "Puerto", 498, 460)
    below = row(3, 24, "GreatCall, Inc. Delaware", 470, left=114)
    cells = [body(1, 0), Row(name.lines + place.lines), below, body(4, 36)]
    assert len(texts(cells)) == 4
