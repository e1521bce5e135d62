"""Headings from each loader become every sentence's context path (issue 34, 3c)."""

from __future__ import annotations

from pathlib import Path

import docx
import pymupdf

from gechat.documents import load_document, split_sentences
from gechat.documents.headings import Block, attach_context, locate_outline, sized_headings
from gechat.types import Heading, PageInfo, SentenceSpan


def contexts(path: Path) -> dict[str, tuple[str, bool]]:
    doc = load_document(path)
    return {s.text: (s.context, s.heading) for s in split_sentences(doc)}


def test_markdown_heading_path(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Acme Corp\n\nIntro. It is big.\n\n## Revenue ##\n\nIt rose 4% in 2023.\n\n"
                    "### Notes\n\nSee above.\n\n## Costs\n\nThey fell.\n\n```\n# not a heading\n```\n")
    got = contexts(path)
    assert got["Acme Corp"] == ("", True)
    assert got["It is big."] == ("Acme Corp", False)
    assert got["It rose 4% in 2023."] == ("Acme Corp > Revenue", False)
    assert got["See above."] == ("Acme Corp > Revenue > Notes", False)
    # a heading of the same level closes the one before and its children
    assert got["They fell."] == ("Acme Corp > Costs", False)


def test_html_headings_and_title(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text("<html><head><title>Annual Report 2023</title></head><body><h1>Annual Report 2023</h1>"
                    "<p>Intro text.</p><h2>Liquidity</h2><p>Cash rose.</p><h3>Debt</h3><p>It fell.</p>"
                    "<h2>Risks</h2><p>Many exist.</p></body></html>")
    got = contexts(path)
    assert got["Intro text."] == ("Annual Report 2023", False)  # the title said once
    assert got["It fell."] == ("Annual Report 2023 > Liquidity > Debt", False)
    assert got["Many exist."] == ("Annual Report 2023 > Risks", False)
    assert got["Liquidity"][1]


def test_docx_heading_styles_and_core_title(tmp_path: Path) -> None:
    path = tmp_path / "contract.docx"
    d = docx.Document()
    d.core_properties.title = "Supply Agreement"
    d.add_heading("Term", level=1)
    d.add_paragraph("It lasts five years.")
    d.add_heading("Renewal", level=2)
    d.add_paragraph("It renews yearly.")
    d.add_heading("Payment", level=1)
    d.add_paragraph("Invoices are due in 30 days.")
    d.save(str(path))
    got = contexts(path)
    assert got["It lasts five years."] == ("Supply Agreement > Term", False)
    assert got["It renews yearly."] == ("Supply Agreement > Term > Renewal", False)
    assert got["Invoices are due in 30 days."] == ("Supply Agreement > Payment", False)


def test_pdf_outline_places_headings_on_their_page(tmp_path: Path) -> None:
    doc = pymupdf.open()
    for title, body in (("Overview", "The firm makes pumps."), ("Results", "It earned $5 million.")):
        page = doc.new_page()
        page.insert_text((72, 72), title, fontsize=11)
        page.insert_text((72, 100), body, fontsize=11)
    doc.set_toc([[1, "Overview", 1], [1, "Results", 2]])
    doc.set_metadata({"title": "Pump Co report"})
    path = tmp_path / "report.pdf"
    doc.save(str(path))
    got = contexts(path)
    assert got["It earned $5 million."] == ("Pump Co report > Results", False)
    assert got["Overview"] == ("Pump Co report", True)


def test_pdf_headings_by_type_size_and_label(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Quarterly Review", fontsize=20)
    body = "The plant ran at full capacity for the whole quarter and sales met the plan."
    for k in range(6):
        page.insert_text((72, 100 + 14 * k), body, fontsize=10)
    page.insert_text((72, 200), "Item 7. Outlook", fontsize=10)
    for k in range(3):
        page.insert_text((72, 230 + 14 * k), "It expects growth.", fontsize=10)
    path = tmp_path / "review.pdf"
    doc.save(str(path))
    parsed = load_document(path)
    assert [(h.text, h.level) for h in parsed.headings] == [("Quarterly Review", 1), ("Item 7. Outlook", 6)]
    sents = split_sentences(parsed)
    assert sents[-1].context == "Quarterly Review > Item 7. Outlook"


def test_sized_headings_need_larger_type_few_words_and_no_sentence_end() -> None:
    text = "Big Title\n\nA short line that ends.\n\nBody"
    short = [Block(0, 9, 14.0, 2), Block(11, 34, 14.0, 5), Block(36, 40, 10.0, 1)]
    got = sized_headings(text, short, [(10.0, 500)])
    assert [h.text for h in got] == ["Big Title"]


def test_formulas_page_labels_and_addresses_in_large_type_are_no_headings() -> None:
    parts = ["2.10 Boeing 401(k)", "|N1 \u222a N2|", "B-2", "{kylel, lucyw}@allenai.org", "See www.sec.gov",
             "2.24 DCP"]
    text, short, pos = "", [], 0
    for p in parts:
        short.append(Block(pos, pos + len(p), 14.0, len(p.split())))
        text += p + "\n\n"
        pos = len(text)
    got = sized_headings(text, short, [(10.0, 500)])
    assert [h.text for h in got] == ["2.10 Boeing 401(k)", "2.24 DCP"]


def test_outline_entries_not_in_the_text_are_left_out() -> None:
    text = "Intro\nSome text.\nResults   of the year\nMore."
    pages = [PageInfo(number=1, start=0, end=len(text))]
    got = locate_outline(text, pages, [(1, "Results of the Year", 1), (1, "Missing", 1), (2, "Intro", 9)])
    assert [(h.text, text[h.start:h.end]) for h in got] == [("Results of the Year", "Results   of the year")]


def test_attach_context_without_headings_leaves_sentences_alone() -> None:
    spans = [SentenceSpan(start=0, end=5, text="Hello")]
    attach_context(spans, [])
    assert spans[0].context == "" and not spans[0].heading
    attach_context(spans, [Heading(start=0, end=0, level=0, text="Doc")])
    assert spans[0].context == "Doc" and not spans[0].heading
