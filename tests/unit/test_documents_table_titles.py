from __future__ import annotations

from pathlib import Path

from gechat.documents.table_titles import chunk_leads, embedded_text, row_leads, with_row_leads
from gechat.pipeline import read_document
from gechat.settings import Settings
from gechat.types import ChunkSpan, SentenceSpan


def spans(*lines: str, headings: tuple[int, ...] = ()) -> list[SentenceSpan]:
    out, at = [], 0
    for i, line in enumerate(lines):
        out.append(SentenceSpan(start=at, end=at + len(line), text=line, heading=i in headings))
        at += len(line) + 1
    return out


STATEMENT = (
    "The accompanying notes are an integral part of these financial statements.",
    "Acme Corp and Subsidiaries",
    "Consolidated Statement of Cash Flows",
    "(Millions) 2018 2017",
    "Cash Flows from Operating Activities",
    "Net income | 2018: 5,363 | 2017: 4,869 (Millions)",
    "Cash Flows from Investing Activities",
    "Purchases of property, plant and equipment | 2018: (1,577) | 2017: (1,373) (Millions)",
    "Capital spending rose in 2018 as the company expanded its plants in three regions.",
    "Revenue | 2018: 9 | 2017: 8",
)


def test_rows_get_their_tables_title_and_the_caption_above_them() -> None:
    leads = row_leads(spans(*STATEMENT))
    title = "Acme Corp and Subsidiaries Consolidated Statement of Cash Flows"
    assert leads[5] == (title, "Cash Flows from Operating Activities")
    assert leads[7] == (title, "Cash Flows from Investing Activities")
    assert [lead is None for lead in leads] == [True] * 5 + [False, True, False, True, False]
    # after prose, a new table: no title line above it, and the old caption is gone
    assert leads[9] == ("", "")


def test_a_line_of_headers_between_rows_opens_the_next_table_under_its_own_title() -> None:
    leads = row_leads(spans("Acme Corp", "Statement of Cash Flows", "2018 2017", "Net income | 2018: 5 | 2017: 4",
                            "See the notes to the statements.", "Acme Corp", "Statement of Operations",
                            "(Millions) 2018 2017", "Net sales | 2018: 9 | 2017: 8", "Operating expenses:",
                            "Cost of sales | 2018: 3 | 2017: 2"))
    assert leads[3] == ("Acme Corp Statement of Cash Flows", "")
    # the notes line ends the first table as prose; a header line between rows does so too
    assert row_leads(spans("Acme", "2018", "Net | 2018: 5", "Sales", "2019 2018", "Net | 2019: 6"))[5] == \
        ("Sales", "")
    assert leads[8] == ("Acme Corp Statement of Operations", "")
    assert leads[10] == ("Acme Corp Statement of Operations", "Operating expenses:")


def test_a_heading_ends_a_table_and_titles_the_next() -> None:
    leads = row_leads(spans("Revenue | 2018: 9", "Segment results", "East | 2018: 4", headings=(1,)))
    assert leads == [("", ""), None, ("Segment results", "")]


def test_a_chunk_is_embedded_under_its_first_rows_lead_and_keeps_its_text() -> None:
    sents = spans(*STATEMENT)
    text = "\n".join(STATEMENT)

    def chunk(a: int, b: int) -> ChunkSpan:
        start, end = sents[a].start, sents[b - 1].end
        return ChunkSpan(sentences=list(range(a, b)), start=start, end=end, text=text[start:end], n_tokens=1)

    whole, tail, prose = chunk_leads(sents, [chunk(0, 7), chunk(7, 8), chunk(8, 9)])
    assert whole.lead == ""  # its title and caption are in the chunk's own text
    assert tail.lead == "Acme Corp and Subsidiaries Consolidated Statement of Cash Flows > " \
                        "Cash Flows from Investing Activities"
    assert embedded_text(tail) == f"{tail.lead}\n{tail.text}" and tail.text == text[tail.start:tail.end]
    assert prose.lead == "" and embedded_text(prose) == prose.text


def test_a_markdown_table_is_read_under_the_line_above_it(tmp_path: Path) -> None:
    doc = tmp_path / "report.md"
    doc.write_text("Revenue grew in every region during the year under review.\n\n"
                   "Revenue by region\n\n"
                   "| Region | 2023 | 2022 |\n|---|---|---|\n| East | 10 | 8 |\n| West | 7 | 6 |\n")
    _, _, chunks = read_document(doc, doc.stat().st_size, Settings(chunk_tokens=8))
    rows = [c for c in chunks if "East" in c.text or "West" in c.text]
    assert rows and all("Revenue by region" in embedded_text(c) for c in rows)


def test_a_rows_context_holds_its_tables_title_and_caption_and_its_text_stays() -> None:
    sents = spans(*STATEMENT)
    sents[5].context = "Annual report > Item 8"
    out = with_row_leads(sents)
    title = "Acme Corp and Subsidiaries Consolidated Statement of Cash Flows"
    assert out[5].context == f"Annual report > Item 8 > {title} > Cash Flows from Operating Activities"
    assert out[7].context == f"{title} > Cash Flows from Investing Activities"
    assert [s.text for s in out] == list(STATEMENT) and (out[9].context, out[8].context) == ("", "")
    # what the headings already say is not said twice
    sents[7].context = title
    assert with_row_leads(sents)[7].context == f"{title} > Cash Flows from Investing Activities"


def test_the_title_is_the_line_above_the_column_headers_not_the_captions_below_them() -> None:
    # an auditor's dated signature, the statement's name and unit, its headers, two captions
    leads = row_leads(spans("Minneapolis, Minnesota", "March 28, 2019", "Consolidated Balance Sheets",
                            "$ in millions, except per share amounts", "February 2, 2019 February 3, 2018",
                            "Assets", "Current assets", "Merchandise inventories | February 2, 2019: 5,409"))
    assert leads[7] == ("Consolidated Balance Sheets", "Current assets")
    # two lines of headers; the name's last lines, nearest the headers, beat the company's first
    leads = row_leads(spans("Acme Inc.", "And Subsidiaries", "Consolidated Statements of Income",
                            "(In millions)", "Years Ended", "December 2, December 3,", "2022 2021",
                            "Revenue:", "Products | 2022: 9 | 2021: 8"))
    assert leads[8] == ("And Subsidiaries Consolidated Statements of Income", "Revenue:")
    # nothing but a unit and a period above the headers: the line below them names the table
    leads = row_leads(spans("Year Ended December 31,", "2016 2015", "(in thousands)",
                            "Statement of Operations Data:", "Revenue:", "Fees | 2016: 5 | 2015: 4"))
    assert leads[5] == ("Statement of Operations Data:", "Revenue:")
    # a footnote or a row of figures set above the headers names nothing
    leads = row_leads(spans("¹ Prior year figures were reclassified.", "Total $ 49,182 $ (57) $ 12",
                            "2022 2021", "Net | 2022: 5 | 2021: 4"))
    assert leads[3] == ("", "")
