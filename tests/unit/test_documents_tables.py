"""Tables as canonical rows: every figure beside its column header, in every loader."""

from __future__ import annotations

from pathlib import Path

import docx
import pymupdf

from gechat.answer.cot import CoTAnswerer
from gechat.documents import load_document, split_sentences
from gechat.documents.tables import is_amount, markdown_tables, text_rows, unit_of, units_once
from gechat.models.llm.fake import FakeLLM
from gechat.types import Chunk, ChunkHit


def test_text_rows_put_headers_beside_figures() -> None:
    rows = [["(in millions)", "FY2022", "FY2021"], ["Net revenue", "17,606", "15,785"],
            ["Margin", "12.5%", "11.0%"]]
    assert text_rows(rows) == [
        "(in millions) | FY2022 | FY2021",
        "Net revenue | FY2022: 17,606 | FY2021: 15,785 (in millions)",
        "Margin | FY2022: 12.5% | FY2021: 11.0%",  # a percentage is not in millions
    ]


def test_text_rows_without_a_header_or_with_ragged_rows_join_cells() -> None:
    # the first row holds figures: no header to borrow
    assert text_rows([["Revenue", "10"], ["Cost", "4"]]) == ["Revenue | 10", "Cost | 4"]
    # a row with another number of cells than the header (merged cells) is joined as it is
    assert text_rows([["Item", "2022", "2021"], ["Total", "9"]]) == ["Item | 2022 | 2021", "Total | 9"]
    # an empty cell is left out of the row, not written as "2021: "
    assert text_rows([["Item", "2022", "2021"], ["New", "5", ""]]) == ["Item | 2022 | 2021", "New | 2022: 5"]


def test_units_and_amounts() -> None:
    assert unit_of("(Millions)") == "(Millions)"
    assert unit_of("$ in thousands") == "($ in thousands)"
    assert unit_of("Dollars in millions, except per share data") == "(Dollars in millions, except per share data)"
    assert unit_of("Revenue") == ""
    assert is_amount("$ (1,234)") and is_amount("12.5%") and is_amount("0.42")
    assert not is_amount("2022") and not is_amount("(1)") and not is_amount("Note 4")


def test_markdown_tables_rewrite_only_tables() -> None:
    text = "Intro.\n\n| Item | 2023 |\n|:--|--:|\n| Sales | $5 |\n| a \\| b | 7 |\n\n```\n| x | y |\n|---|---|\n```\n"
    out = markdown_tables(text)
    assert out == ("Intro.\n\nItem | 2023\n\nSales | 2023: $5\n\na | b | 2023: 7\n\n"
                   "```\n| x | y |\n|---|---|\n```\n")
    assert markdown_tables("a | b\nno delimiter | here\n") == "a | b\nno delimiter | here\n"


def test_docx_table_rows_carry_headers(tmp_path: Path) -> None:
    d = docx.Document()
    table = d.add_table(rows=3, cols=3)
    for r, row in enumerate([["$ in millions", "2023", "2022"], ["Revenue", "1,200", "1,100"],
                             ["Operating income", "(40)", "35"]]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    path = tmp_path / "t.docx"
    d.save(str(path))
    doc = load_document(path)
    assert "Revenue | 2023: 1,200 | 2022: 1,100 ($ in millions)" in doc.text
    assert "Operating income | 2023: (40) | 2022: 35 ($ in millions)" in doc.text


def _table_pdf(path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 80), "Results of operations for the last two years are below.", fontsize=10)
    rows = [("(in millions)", "", "2022", "2021"), ("Net revenue", "$", "17,606", "15,785"),
            ("Cost of revenue", "", "9,100", "8,250"), ("Operating margin", "", "21.4%", "19.0%"),
            ("Other expense", "", "(12)", "(7)")]
    y = 120.0
    for label, currency, a, b in rows:
        page.insert_text((72, y), label, fontsize=10)
        if currency:
            page.insert_text((330, y), currency, fontsize=10)
        for right, value in ((400, a), (500, b)):
            width = pymupdf.get_text_length(value, fontsize=10)
            page.insert_text((right - width, y), value, fontsize=10)  # figures right-aligned
        y += 16
    page.insert_text((72, y + 30), "Revenue grew because more units were sold.", fontsize=10)
    doc.save(str(path))


def test_pdf_table_rows_carry_headers_and_cell_boxes(tmp_path: Path) -> None:
    path = tmp_path / "table.pdf"
    _table_pdf(path)
    doc = load_document(path)
    row = "Net revenue | 2022: $ 17,606 | 2021: 15,785 (in millions)"
    assert row in doc.text
    assert "Cost of revenue | 2022: 9,100 | 2021: 8,250 (in millions)" in doc.text
    assert "Operating margin | 2022: 21.4% | 2021: 19.0%" in doc.text
    assert "Other expense | 2022: (12) | 2021: (7) (in millions)" in doc.text  # small negatives are figures
    assert "Revenue grew because more units were sold." in doc.text
    sentences = split_sentences(doc)
    for s in sentences:
        assert doc.text[s.start:s.end] == s.text
    (net,) = [s for s in sentences if s.text == row]
    # a rectangle per cell: the label, the "$ 17,606" cell and the 2021 figure
    assert len(net.boxes) == 3
    xs = sorted(round(b.x1) for b in net.boxes)
    assert 398 <= xs[1] <= 402 and 498 <= xs[2] <= 502
    # the header words put in front of a figure have no box of their own
    start = doc.text.index(row)
    boxed = {doc.text[w.start:w.end] for w in doc.words if start <= w.start < start + len(row)}
    assert boxed == {"Net", "revenue", "$", "17,606", "15,785"}


def test_pdf_header_wider_than_the_first_columns_figures_is_its_header(tmp_path: Path) -> None:
    # a share-repurchase table: each header is centred over its column and wider than the
    # figures, so the first one starts left of them (it was taken for the label column's
    # caption, and "7,138,475" lost its header)
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    headers = [(110, ["", "", "Period"]), (250, ["Total Number", "of Shares", "Purchased"]),
               (360, ["", "Average Price", "Paid per Share"]), (480, ["Total Number of Shares", "Purchased as Part",
                                                                    "of the Program"])]
    for centre, lines in headers:
        for n, line in enumerate(lines):
            width = pymupdf.get_text_length(line, fontsize=8)
            page.insert_text((centre - width / 2, 80 + 10 * n), line, fontsize=8)
    rows = (("October 2022", "3,558,147", "$ 71.60", "3,558,147"),
            ("November 2022", "3,580,328", "$ 82.18", "3,580,328"),
            ("Total quarter", "7,138,475", "$ 76.91", "7,138,475"))
    for n, (label, *figures) in enumerate(rows):
        y = 112 + 10 * n
        page.insert_text((40, y), label, fontsize=8)
        for right, value in zip((270, 380, 500), figures, strict=True):  # right-aligned under the header
            page.insert_text((right - pymupdf.get_text_length(value, fontsize=8), y), value, fontsize=8)
    path = tmp_path / "repurchases.pdf"
    doc.save(str(path))
    text = load_document(path).text
    assert ("Total quarter | Total Number of Shares Purchased: 7,138,475 | Average Price Paid per Share: $ 76.91"
            " | Total Number of Shares Purchased as Part of the Program: 7,138,475") in text


def _right(page: pymupdf.Page, right: float, y: float, text: str) -> None:
    page.insert_text((right - pymupdf.get_text_length(text, fontsize=8), y), text, fontsize=8)


def _rows(page: pymupdf.Page, label_x: float, top: float, rights: tuple[float, ...],
          rows: tuple[tuple[str, ...], ...]) -> None:
    """Table rows 10 points apart: the label at ``label_x``, each figure right-aligned at its column's edge."""
    for n, (label, *values) in enumerate(rows):
        page.insert_text((label_x, top + 10 * n), label, fontsize=8)
        for right, value in zip(rights, values, strict=True):
            _right(page, right, top + 10 * n, value)


def _read(doc: pymupdf.Document, path: Path) -> str:
    doc.save(str(path))
    return load_document(path).text


def test_pdf_statement_headers_above_captions_and_a_second_table(tmp_path: Path) -> None:
    # a balance sheet: the years sit above "Assets" / "Current assets", a paragraph of two
    # captions (the rows under them had no header); then a second table with years of its own
    # in other columns (it took the first table's columns and mixed its headers)
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((40, 60), "Consolidated Balance Sheets", fontsize=8)
    page.insert_text((40, 72), "(Dollars in millions)", fontsize=8)
    for right, year in ((430, "2018"), (520, "2017")):
        _right(page, right, 72, year)
    page.insert_text((40, 86), "Assets", fontsize=8)
    page.insert_text((40, 96), "Current assets", fontsize=8)
    for n, (label, a, b) in enumerate((("Cash and cash equivalents", "$ 2,853", "$ 3,053"),
                                       ("Total inventories", "4,366", "4,034"))):
        page.insert_text((48, 108 + 10 * n), label, fontsize=8)
        _right(page, 430, 108 + 10 * n, a)
        _right(page, 520, 108 + 10 * n, b)
    page.insert_text((40, 140), "Provision for income taxes", fontsize=8)
    for right, year in ((380, "2018"), (450, "2017"), (520, "2016")):
        _right(page, right, 152, year)
    _rows(page, 48, 164, (380, 450, 520), (("Federal", "698", "1,022", "1,192"), ("State", "109", "59", "75")))
    text = _read(doc, tmp_path / "statement.pdf")
    assert "Total inventories | 2018: 4,366 | 2017: 4,034 (Dollars in millions)" in text
    assert "Federal | 2018: 698 | 2017: 1,022 | 2016: 1,192" in text


def _centred(page: pymupdf.Page, centre: float, y: float, text: str) -> None:
    page.insert_text((centre - pymupdf.get_text_length(text, fontsize=8) / 2, y), text, fontsize=8)


def test_pdf_tight_headers_and_a_header_over_two_columns(tmp_path: Path) -> None:
    # a paper's small tables: "Precision" and "Recall" set closer than the type size were one
    # header over two columns ("Field Precision Recall: 85.5" twice), and "CS" / "Bio" over
    # their "prec." and "yield" were lost for the columns they do not overlap
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for centre, word in ((330, "Field"), (371, "Precision"), (405, "Recall"), (470, "F1")):
        _centred(page, centre, 80, word)
    for n, (label, *values) in enumerate((("title", "85.5", "85.1", "85.3"), ("authors", "92.1", "92.0", "92.2"))):
        _right(page, 340, 92 + 10 * n, label)
        for right, value in zip((378, 413, 480), values, strict=True):
            _right(page, right, 92 + 10 * n, value)
    _centred(page, 380, 160, "CS")
    _centred(page, 460, 160, "Bio")
    for centre, word in ((360, "prec."), (400, "yield"), (440, "prec."), (480, "yield")):
        _centred(page, centre, 170, word)
    _rows(page, 250, 182, (370, 410, 450, 490), (("Statistical", "98.4", "712", "94.4", "928"),
                                                 ("Hybrid", "91.5", "1,990", "92.1", "3,126")))
    text = _read(doc, tmp_path / "results.pdf")
    assert "authors | Precision: 92.1 | Recall: 92.0 | F1: 92.2" in text
    assert "Hybrid | CS prec.: 91.5 | CS yield: 1,990 | Bio prec.: 92.1 | Bio yield: 3,126" in text


def test_pdf_figures_set_a_space_apart_are_cells_of_their_own(tmp_path: Path) -> None:
    # an ablation table set tight: its figures a space apart were one cell under one header
    # ("CLS USR CITE All: 84.2 88.4 91.5 80.0"); three digits after digits are still thousands
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((300, 80), "CLS USR CITE All", fontsize=8)
    rows = (("SPECTER", "84.2 88.4 91.5 80.0"), ("No hard negatives", "82.4 85.8 89.8 78.4"))
    for n, (label, figures) in enumerate(rows):
        page.insert_text((150, 92 + 10 * n), label, fontsize=8)
        page.insert_text((300, 92 + 10 * n), figures, fontsize=8)
    text = _read(doc, tmp_path / "ablation.pdf")
    assert "No hard negatives | CLS: 82.4 | USR: 85.8 | CITE: 89.8 | All: 78.4" in text
    # a state's permits in a form that groups thousands with a space: one figure per column
    page = doc.new_page(width=612, height=792)
    for right, head in ((330, "Permit"), (400, "Handgun")):
        _right(page, right, 80, head)
    _rows(page, 150, 92, (330, 400), (("California", "98 452", "41 181"), ("Texas", "25 031", "60 110")))
    assert "California | Permit: 98 452 | Handgun: 41 181" in _read(doc, tmp_path / "permits.pdf")


def test_pdf_upper_headers_that_do_not_share_out_the_columns_span_none(tmp_path: Path) -> None:
    # "Level 3" stands over the gap where its own columns were left out (no figures in them):
    # it is no header of the columns on either side
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for centre, word in ((305, "Level 1"), (385, "Level 2"), (445, "Level 3"), (505, "Total")):
        _centred(page, centre, 80, word)
    for right, year in ((290, "2018"), (330, "2017"), (370, "2018"), (410, "2017"), (490, "2018"), (530, "2017")):
        _right(page, right, 90, year)
    _rows(page, 60, 102, (290, 330, 370, 410, 490, 530), (("Equities", "45", "34", "11", "12", "56", "46"),
                                                          ("Bonds", "9", "10", "2,941", "2,904", "2,950", "2,914")))
    text = _read(doc, tmp_path / "levels.pdf")
    assert "Level 3" not in text.split("Bonds", 1)[1].split("\n", 1)[0]


def test_pdf_prose_with_numbers_is_not_a_table(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "In 2022 revenue was 17,606 and in 2021 it was 15,785.", fontsize=10)
    page.insert_text((72, 96), "The company has 1,200 staff in 14 offices.", fontsize=10)
    path = tmp_path / "prose.pdf"
    doc.save(str(path))
    text = load_document(path).text
    assert " | " not in text and "15,785." in text


def test_row_label() -> None:
    from gechat.documents.tables import row_label

    assert row_label("Net revenue | FY2022: 17,606 | FY2021: 15,785 (in millions)") == "Net revenue"
    assert row_label("Year | Revenue | Cost") is None  # a header row: no cell names its column
    assert row_label("Plain prose, with a | in it.") is None


def test_pdf_header_words_set_between_two_header_rows_head_their_columns(tmp_path: Path) -> None:
    # a results table whose last headers, "Recomm." and "Avg.", are centred on the header rows
    # beside them: the layout made them a paragraph of their own, which ended the table's run
    # above its headers (their columns had none, and the upper row's groups were lost)
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((100, 80), "Task", fontsize=8)
    _centred(page, 300, 80, "Classification")
    _centred(page, 520, 80, "Citation")
    _centred(page, 400, 86.6, "Recomm.")
    _centred(page, 460, 92.6, "Avg.")
    page.insert_text((100, 97.2), "Subtask", fontsize=8)
    _centred(page, 270, 97.2, "MAG")
    _centred(page, 330, 97.2, "MeSH")
    page.insert_text((100, 107.5), "Metric", fontsize=8)
    for centre, word in ((270, "F1"), (330, "F1"), (400, "nDCG"), (520, "MAP")):
        _centred(page, centre, 107.5, word)
    _rows(page, 100, 127, (280, 340, 410, 470, 530), (("SciBERT", "79.7", "80.7", "52.1", "59.6", "48.3"),
                                                      ("SPECTER", "82.0", "86.4", "53.9", "80.0", "88.3")))
    text = _read(doc, tmp_path / "results.pdf")
    assert ("SPECTER | Classification MAG F1: 82.0 | Classification MeSH F1: 86.4 | Recomm. nDCG: 53.9 | Avg.: 80.0"
            " | Citation MAP: 88.3") in text


def test_pdf_column_headers_stacked_to_different_depths_keep_every_line(tmp_path: Path) -> None:
    # a restructuring table: "Total" / "Restructuring" / "Costs" over the last column, "Fixed
    # Asset" / "Related Costs" over the second, the others one line deep; the upper lines
    # were taken for a paragraph of text (and "Total" for a title over the table), so the
    # columns read "Related Costs" and "Costs"
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((40, 60), "An analysis of the restructuring plan liability is as follows:", fontsize=8)
    _centred(page, 505, 84, "Total")
    _centred(page, 385, 94, "Fixed Asset")
    _centred(page, 505, 94, "Restructuring")
    page.insert_text((40, 104), "($ in millions)", fontsize=8)
    for centre, word in ((295, "Employee Costs"), (385, "Related Costs"), (445, "Other Costs"), (505, "Costs")):
        _centred(page, centre, 104, word)
    _rows(page, 40, 118, (410, 470, 530), (("Balance at June 30, 2022", "$ 3", "$ 18", "$ 118"),
                                           ("Cash paid", "(1)", "(8)", "(25)"),
                                           ("Balance at December 31, 2022", "$ 2", "$ 10", "$ 93")))
    for n, (sign, figure) in enumerate((("$", "97"), ("", "(16)"), ("$", "81"))):  # the sign at the column's left
        page.insert_text((268, 118 + 10 * n), sign, fontsize=8)
        _right(page, 322, 118 + 10 * n, figure)
    text = _read(doc, tmp_path / "restructuring.pdf")
    assert ("Balance at December 31, 2022 | Employee Costs: $ 81 | Fixed Asset Related Costs: $ 2 | Other Costs: $ 10"
            " | Total Restructuring Costs: $ 93 ($ in millions)") in text


def test_pdf_headers_centred_over_groups_of_columns_head_each_of_them(tmp_path: Path) -> None:
    # a segment table: "2022" centred over its three columns, "2021" over the next three, the
    # lowest row naming each; "2022" headed only the middle column it stands over
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _centred(page, 385, 70, "Three Months Ended December 31,")
    rights = (250, 300, 350, 420, 470, 520)
    _centred(page, 280, 80, "2022")
    _centred(page, 450, 80, "2021")
    page.insert_text((40, 90), "($ in millions)", fontsize=8)
    for right, word in zip(rights, ("Flexibles", "Rigid", "Total") * 2, strict=True):
        _right(page, right, 90, word)
    _rows(page, 40, 104, rights, (("North America", "1,030", "—", "1,030", "985", "—", "985"),
                                  ("Net sales", "$ 2,812", "$ 830", "$ 3,642", "$ 2,713", "$ 794", "$ 3,507")))
    text = _read(doc, tmp_path / "segments.pdf")
    assert ("Net sales | 2022 Flexibles: $ 2,812 | 2022 Rigid: $ 830 | 2022 Total: $ 3,642 | 2021 Flexibles: $ 2,713"
            " | 2021 Rigid: $ 794 | 2021 Total: $ 3,507 ($ in millions)") in text


def test_pdf_four_header_lines_and_group_titles(tmp_path: Path) -> None:
    # a fourth quarter's segment table: "Three months ended" / "December 31, 2018" over each
    # pair of columns, then "Net" / "Sales" and "Oper." / "Income" over each column; with three
    # header lines the quarter was lost and the column read as the year's "December 31, 2018"
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    rights = (300, 360, 440, 500)
    for centre, year in ((330, "2018"), (470, "2017")):
        _centred(page, centre, 70, "Three months ended")
        _centred(page, centre, 80, f"December 31, {year}")
    for right, (top, low) in zip(rights, (("Net", "Sales"), ("Oper.", "Income")) * 2, strict=True):
        _right(page, right, 90, top)
        _right(page, right, 100, low)
    page.insert_text((40, 100), "(Dollars in millions)", fontsize=8)
    _rows(page, 40, 114, rights, (("Industrial", "$ 2,952", "$ 627", "$ 2,961", "$ 610"),
                                  ("Total Company", "$ 7,945", "$ 1,783", "$ 7,990", "$ 1,789")))
    text = _read(doc, tmp_path / "quarter.pdf")
    assert ("Total Company | Three months ended December 31, 2018 Net Sales: $ 7,945 | Three months ended December 31,"
            " 2018 Oper. Income: $ 1,783 | Three months ended December 31, 2017 Net Sales: $ 7,990") in text


def test_the_llm_reads_a_tables_unit_once_not_after_every_row() -> None:
    unit = "(Dollars in millions, except per share amount)"
    text = (f"Inventories | 2018: 4,366 | 2017: 4,034 {unit}  Prepaids | 2018: (741) | 2017: 937 {unit}  "
            "Net debt | 2018: (886) (Millions)\nCash | 2018: 5 (millions)")
    assert units_once(text) == (f"Inventories | 2018: 4,366 | 2017: 4,034 {unit}  Prepaids | 2018: (741) | 2017: 937"
                                "  Net debt | 2018: (886) (Millions)\nCash | 2018: 5")
    # a negative value, a footnote mark or words in brackets are no unit
    plain = "Income (loss) was (886) (see Note 2) and (1) was restated (see Note 2)."
    assert units_once(plain) == plain
    # what the answering LLM reads; the stored text, and so the evidence, keep every unit
    hit = ChunkHit(chunk=Chunk(id=1, doc_id=1, ord=0, start=0, end=len(text), text=text), score=1.0)
    prompt = CoTAnswerer(FakeLLM(["Answer: 4,366."]), max_tokens=8, max_thoughts=1).messages("?", [hit])
    assert prompt[-1]["content"].count(unit) == 1 and hit.chunk.text.count(unit) == 2
