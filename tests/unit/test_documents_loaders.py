from __future__ import annotations

import os
from pathlib import Path

import docx
import pymupdf
import pytest

from gechat.documents import LOADERS, load_document, split_sentences
from gechat.documents.pdf import PdfLoader
from gechat.errors import LoadError, UnsupportedFileError
from gechat.types import ParsedDocument

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "docs"


def block_texts(doc: ParsedDocument) -> list[str]:
    return [doc.text[b.start:b.end] for b in doc.blocks]


def sentence_texts(doc: ParsedDocument) -> list[str]:
    sents = split_sentences(doc)
    for s in sents:
        assert doc.text[s.start:s.end] == s.text
    return [s.text for s in sents]


# --- text, markdown, html, docx ------------------------------------------------------------


def test_txt_bom_crlf_and_paragraph_blocks() -> None:
    doc = load_document(FIXTURES / "sample.txt")
    assert doc.kind == "txt" and doc.title == "sample"
    assert "\r" not in doc.text and not doc.text.startswith("\ufeff")
    assert block_texts(doc) == [
        "Gechat reads plain text files.\nLines of one paragraph stay together. "
        "Dr. Smith wrote this.",
        "A second paragraph starts here.\nIt has two sentences.",
    ]
    assert sentence_texts(doc)[2] == "Dr. Smith wrote this."
    assert doc.pages[0].end == len(doc.text)


def test_txt_latin1_fallback() -> None:
    doc = load_document(FIXTURES / "latin1.txt")
    assert sentence_texts(doc) == ["Café crème is served.", "Naïve tests pass."]


def test_markdown_keeps_source_and_splits_blocks() -> None:
    path = FIXTURES / "sample.md"
    doc = load_document(path)
    # offsets index the file text; only the table's rows are written with their headers
    table = "| Name | Value |\n|------|-------|\n| alpha | 1 |"
    assert doc.text == path.read_text(encoding="utf-8").replace(table, "Name | Value\n\nalpha | Value: 1")
    blocks = block_texts(doc)
    for expected in ["Getting started", "Install", "Download the wheel",
                     "Install it with pip. Then run it.", "First numbered item",
                     "Second numbered item", "Setext heading", "Name | Value", "alpha | Value: 1"]:
        assert expected in blocks
    sents = sentence_texts(doc)
    assert "Getting started" in sents  # the heading is not glued to the paragraph below
    assert "It shows the evidence\nfor every claim." in sents
    assert not any(s.startswith(("#", "- ")) for s in sents)


def test_html_visible_text_only() -> None:
    doc = load_document(FIXTURES / "sample.html")
    assert doc.kind == "html"
    for hidden in ("secret", "color", "navigation", "Ignored title"):
        assert hidden not in doc.text
    blocks = block_texts(doc)
    assert blocks[:2] == ["Evidence matters",
                          "Gechat highlights the exact sentences. Whitespace is collapsed."]
    assert "Second & last item" in blocks
    assert "Year | Revenue" in blocks and "2023 | Revenue: $5 million" in blocks  # <th> headers
    assert "and a nested paragraph." in blocks and "tail text" in blocks
    assert doc.text == "\n\n".join(blocks)


def test_docx_paragraphs_headings_and_tables(tmp_path: Path) -> None:
    path = tmp_path / "report.docx"
    d = docx.Document()
    d.add_heading("Quarterly report", level=1)
    d.add_paragraph("Revenue grew strongly. Costs fell.")
    table = d.add_table(rows=2, cols=3)
    for r, row in enumerate([["Year", "Revenue", "Cost"], ["2023", "$5", "$3"]]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    d.add_paragraph("")
    d.add_paragraph("Closing remarks follow the table.")
    d.save(str(path))
    doc = load_document(path)
    assert doc.kind == "docx"
    assert block_texts(doc) == ["Quarterly report", "Revenue grew strongly. Costs fell.",
                                "Year | Revenue | Cost", "2023 | Revenue: $5 | Cost: $3",
                                "Closing remarks follow the table."]
    assert sentence_texts(doc)[:3] == ["Quarterly report", "Revenue grew strongly.",
                                       "Costs fell."]


def test_docx_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "broken.docx"
    path.write_bytes(b"PK\x03\x04 not really a zip file at all")
    with pytest.raises(LoadError, match="not a readable"):
        load_document(path)


# --- generic checks -------------------------------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="does not exist"):
        load_document(tmp_path / "nope.txt")


def test_unsupported_suffix_lists_supported(tmp_path: Path) -> None:
    path = tmp_path / "sheet.xlsx"
    path.write_bytes(b"data")
    with pytest.raises(UnsupportedFileError) as info:
        load_document(path)
    for suffix in (".pdf", ".docx", ".txt", ".md", ".html"):
        assert suffix in info.value.message
    assert info.value.hint


def test_registry_covers_suffixes() -> None:
    assert {".txt", ".md", ".html", ".htm", ".docx", ".pdf"} <= set(LOADERS)


@pytest.mark.parametrize("suffix", [".txt", ".pdf", ".docx", ".md"])
def test_zero_bytes_is_empty(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"empty{suffix}"
    path.write_bytes(b"")
    with pytest.raises(LoadError, match="empty"):
        load_document(path)


def test_whitespace_text_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "blank.txt"
    path.write_text("  \n\n \t\n")
    with pytest.raises(LoadError, match="empty"):
        load_document(path)


def test_too_large_checked_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "big.pdf"
    path.write_bytes(os.urandom(5000))  # not even a PDF: size is checked first
    with pytest.raises(LoadError, match="too large") as info:
        load_document(path, max_bytes=1000)
    assert "limit" in info.value.message and info.value.hint


# --- PDFs -----------------------------------------------------------------------------------


def save_pdf(doc: pymupdf.Document, path: Path, **kwargs: object) -> Path:
    doc.save(str(path), **kwargs)
    doc.close()
    return path


def text_pdf(path: Path, pages: list[list[tuple[float, float, str]]]) -> Path:
    doc = pymupdf.open()
    for items in pages:
        page = doc.new_page(width=595, height=842)
        for x, y, text in items:
            page.insert_text((x, y), text, fontsize=11)
    return save_pdf(doc, path)


def test_pdf_basic(tmp_path: Path) -> None:
    path = text_pdf(tmp_path / "basic.pdf", [
        [(72, 100, "Evidence must be exact. Every claim needs a source.")],
        [(72, 100, "The second page has its own text.")],
    ])
    before = sorted(os.listdir(tmp_path))
    doc = load_document(path)
    assert sorted(os.listdir(tmp_path)) == before  # loaders never write
    assert doc.kind == "pdf" and len(doc.pages) == 2
    assert doc.pages[0].width == pytest.approx(595) and doc.pages[0].height == pytest.approx(842)
    p1, p2 = doc.pages
    assert doc.text[p1.start:p1.end] == "Evidence must be exact. Every claim needs a source."
    assert doc.text[p2.start:p2.end] == "The second page has its own text."
    assert doc.text[p1.end:p2.start] == "\n\n"
    assert len(doc.words) == 16
    for w in doc.words:
        assert " " not in doc.text[w.start:w.end]
    sents = split_sentences(doc)
    assert [(s.text, s.page) for s in sents] == [
        ("Evidence must be exact.", 1), ("Every claim needs a source.", 1),
        ("The second page has its own text.", 2)]
    assert all(len(s.boxes) == 1 and s.boxes[0].page == s.page for s in sents)
    box = sents[0].boxes[0]
    assert 70 <= box.x0 < box.x1 <= 400 and 85 <= box.y0 < box.y1 <= 105


def test_pdf_dehyphenation(tmp_path: Path) -> None:
    path = text_pdf(tmp_path / "hyph.pdf", [[
        (72, 100, "The evi-"),
        (72, 114, "dence is clear and the state-of-the-"),
        (72, 128, "art method works. Keep MED-"),
        (72, 142, "LINE as it is."),
    ]])
    doc = load_document(path)
    assert doc.text == ("The evidence is clear and the state-of-the-art method works. "
                        "Keep MED- LINE as it is.")
    start = doc.text.index("evidence")
    pieces = [w for w in doc.words if start <= w.start < start + len("evidence")]
    assert [doc.text[w.start:w.end] for w in pieces] == ["evi", "dence"]
    assert pieces[0].box.y1 < pieces[1].box.y1  # one box per printed half
    first = split_sentences(doc)[0]
    assert first.text == "The evidence is clear and the state-of-the-art method works."
    assert len(first.boxes) == 3  # one rectangle per printed line


def test_pdf_hyphen_before_compound_is_kept(tmp_path: Path) -> None:
    path = text_pdf(tmp_path / "compound.pdf", [[(72, 100, "We beat the state-"),
                                                 (72, 114, "of-the-art model.")]])
    assert load_document(path).text == "We beat the state-of-the-art model."


def test_pdf_running_header_and_page_numbers_dropped(tmp_path: Path) -> None:
    pages = [[(72, 40, "ACME Corp Annual Report 2024"),
              (72, 300, f"Body text of page {i} is here."),
              (290, 815, str(i))] for i in range(1, 6)]
    doc = load_document(text_pdf(tmp_path / "report.pdf", pages))
    assert "ACME" not in doc.text
    for i, page in enumerate(doc.pages, start=1):
        assert doc.text[page.start:page.end] == f"Body text of page {i} is here."


def test_pdf_header_kept_in_short_document(tmp_path: Path) -> None:
    pages = [[(72, 40, "ACME Corp Annual Report"), (72, 300, f"Body {i}.")] for i in range(3)]
    doc = load_document(text_pdf(tmp_path / "short.pdf", pages))
    assert doc.text.count("ACME Corp Annual Report") == 3


def test_pdf_two_columns_read_column_by_column(tmp_path: Path) -> None:
    left = " ".join(f"Left sentence number {i} reads on." for i in range(12))
    right = " ".join(f"Right sentence number {i} reads on." for i in range(12))
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_textbox(pymupdf.Rect(50, 40, 540, 70), "A Wide Title Spanning The Page",
                        fontsize=14)
    # The right column is drawn first, so the content stream order is the wrong one.
    page.insert_textbox(pymupdf.Rect(315, 100, 545, 500), right, fontsize=10)
    page.insert_textbox(pymupdf.Rect(50, 100, 280, 500), left, fontsize=10)
    parsed = load_document(save_pdf(doc, tmp_path / "cols.pdf"))
    text = parsed.text
    assert text.index("A Wide Title") < text.index("Left sentence number 0")
    assert text.index("Left sentence number 11") < text.index("Right sentence number 0")
    sents = [s for s in sentence_texts(parsed) if "sentence number" in s]
    assert sents[:2] == ["Left sentence number 0 reads on.", "Left sentence number 1 reads on."]
    assert len(sents) == 24 and all(s.endswith("reads on.") for s in sents)


def test_pdf_figure_text_inside_a_column_is_no_column_of_its_own(tmp_path: Path) -> None:
    """A paper's page: a figure's text, one block narrower than the column it sits in and
    wordier than any of its paragraphs, must not hide the two columns (their lines were read
    across the page, one from each)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    figure = " ".join(f"figure word {i}" for i in range(70))
    page.insert_textbox(pymupdf.Rect(345, 60, 515, 400), figure, fontsize=8)
    for k in range(3):
        y = 420 + 130 * k
        for name, x0 in (("Left", 50), ("Right", 315)):
            text = " ".join(f"{name} part {k} sentence {i} reads on." for i in range(5))
            page.insert_textbox(pymupdf.Rect(x0, y, x0 + 230, y + 120), text, fontsize=10)
    text = load_document(save_pdf(doc, tmp_path / "figure.pdf")).text
    assert text.index("Left part 2 sentence 4") < text.index("Right part 0 sentence 0")
    assert "Left part 0 sentence 0 reads on. Left part 0 sentence 1 reads on." in text


def test_pdf_three_columns_under_a_block_across_two_of_them(tmp_path: Path) -> None:
    """A Federal Register page: a table row at the top runs across two of three columns; it
    must not merge them into one, or every line of the page is read across all three."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_textbox(pymupdf.Rect(45, 60, 330, 90), "Stabilizer wiring change takes up to seventy nine "
                        "work hours at the hourly labor rate for each airplane", fontsize=9)
    for name, x0 in (("Alpha", 45), ("Beta", 222), ("Gamma", 399)):
        text = " ".join(f"{name} column sentence {i} reads on." for i in range(12))
        page.insert_textbox(pymupdf.Rect(x0, 120, x0 + 168, 700), text, fontsize=9)
    text = load_document(save_pdf(doc, tmp_path / "register.pdf")).text
    assert text.index("Alpha column sentence 11") < text.index("Beta column sentence 0")
    assert text.index("Beta column sentence 11") < text.index("Gamma column sentence 0")
    assert "Alpha column sentence 1 reads on. Alpha column sentence 2" in text


def test_pdf_table_rows_are_blocks(tmp_path: Path) -> None:
    rows = [(72, 100, "Revenue rose in the year, as the table below shows.")]
    for k, (label, a, b) in enumerate([("Net sales", "1,234", "1,100"),
                                       ("Cost of sales", "(567)", "(498)"),
                                       ("Operating income", "667", "602")]):
        y = 130 + 14 * k
        rows += [(72, y, label), (380, y, a), (470, y, b)]
    doc = load_document(text_pdf(tmp_path / "table.pdf", [rows]))
    blocks = block_texts(doc)
    assert blocks[1:] == ["Net sales 1,234 1,100", "Cost of sales (567) (498)",
                          "Operating income 667 602"]


def test_pdf_encrypted(tmp_path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Secret text")
    path = save_pdf(doc, tmp_path / "locked.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256,
                    user_pw="user", owner_pw="owner")
    with pytest.raises(LoadError, match="encrypted") as info:
        load_document(path)
    assert "password" in info.value.message and info.value.hint


def test_pdf_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.pdf"
    path.write_bytes(os.urandom(4096))
    with pytest.raises(LoadError, match="corrupt") as info:
        load_document(path)
    assert info.value.hint


def test_pdf_zero_pages(tmp_path: Path) -> None:
    path = tmp_path / "nopages.pdf"
    path.write_bytes(
        b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
        b"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n"
        b"trailer << /Size 3 /Root 1 0 R >>\n%%EOF\n"
    )
    with pytest.raises(LoadError, match="empty"):
        load_document(path)


def test_pdf_blank_pages_are_empty(tmp_path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page()
    doc.new_page()
    with pytest.raises(LoadError, match="empty: no page has extractable text"):
        load_document(save_pdf(doc, tmp_path / "blank.pdf"))


def test_pdf_image_only_needs_ocr(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
    pix.clear_with(128)
    page.insert_image(pymupdf.Rect(72, 72, 300, 300), pixmap=pix)
    with pytest.raises(LoadError, match="image-only") as info:
        load_document(save_pdf(doc, tmp_path / "scan.pdf"))
    assert "OCR" in info.value.message and "OCR" in info.value.hint


def test_pdf_loader_max_bytes(tmp_path: Path) -> None:
    path = text_pdf(tmp_path / "ok.pdf", [[(72, 100, "Some text.")]])
    with pytest.raises(LoadError, match="too large"):
        PdfLoader(max_bytes=100).load(path)
    assert PdfLoader().load(path).text == "Some text."


def test_pdf_footnote_mark_is_written_raised_not_read_as_a_figure(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_htmlbox(pymupdf.Rect(72, 72, 520, 200), '<p style="font-size:11px">Sensors that differ by more '
                        "than a threshold <sup>13</sup> raise an alert. It shows 13 lights.</p>")
    parsed = load_document(save_pdf(doc, tmp_path / "footnoted.pdf"))
    assert sentence_texts(parsed) == ["Sensors that differ by more than a threshold ¹³ raise an alert.",
                                      "It shows 13 lights."]  # a figure in body type stays one
    # a footnote's label glued to its first word at the start of a line (LaTeX's footnotes)
    glued = load_document(text_pdf(tmp_path / "glued.pdf", [[(72, 100, "Training uses 5 seeds."),
                                                             (72, 800, "12For SGC, we remove test citations.")]]))
    assert sentence_texts(glued) == ["Training uses 5 seeds.", "¹² For SGC, we remove test citations."]
