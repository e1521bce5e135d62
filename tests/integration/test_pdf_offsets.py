"""Every real PDF in the shared data set: offsets, pages, boxes and chunks are consistent."""

from __future__ import annotations

import re
from bisect import bisect_right
from pathlib import Path

import pytest

from gechat.documents import chunk_sentences, load_document, split_sentences
from gechat.types import ParsedDocument, SentenceSpan

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
FOLDERS = [DATA / "pdfs", DATA / "financebench" / "pdfs"]
PDFS = sorted(p for folder in FOLDERS if folder.is_dir() for p in folder.glob("*.pdf"))
ACL = DATA / "pdfs" / "N18-3011.pdf"

pytestmark = pytest.mark.skipif(
    not PDFS, reason=f"shared PDFs not found under {DATA} (pdfs/, financebench/pdfs/)"
)


def parsed(path: Path) -> tuple[ParsedDocument, list[SentenceSpan]]:
    doc = load_document(path)
    return doc, split_sentences(doc)


@pytest.mark.parametrize("path", PDFS, ids=lambda p: p.name)
def test_offsets_pages_boxes_chunks(path: Path) -> None:
    doc, sents = parsed(path)
    text = doc.text
    assert sents, "no sentences"
    assert [p.number for p in doc.pages] == list(range(1, len(doc.pages) + 1))
    starts = [p.start for p in doc.pages]
    prev_end = 0
    for s in sents:
        assert text[s.start:s.end] == s.text
        assert s.text == s.text.strip()
        assert s.start >= prev_end, "sentences overlap or are out of order"
        prev_end = s.end
        assert 1 <= s.page <= len(doc.pages)
        page = doc.pages[s.page - 1]
        assert page.start <= s.start < s.end <= page.end
        assert doc.pages[bisect_right(starts, s.start) - 1].number == s.page
        assert s.boxes, f"no box for {s.text!r}"
        for b in s.boxes:
            assert b.page == s.page
            assert 0 <= b.x0 <= b.x1 <= page.width + 0.01
            assert 0 <= b.y0 <= b.y1 <= page.height + 0.01
    for w in doc.words:
        assert re.fullmatch(r"\S+", text[w.start:w.end])

    for kwargs in ({}, {"n_chunks": 10}):
        chunks = chunk_sentences(sents, text, **kwargs)  # type: ignore[arg-type]
        assert [i for c in chunks for i in c.sentences] == list(range(len(sents)))
        for c in chunks:
            assert text[c.start:c.end] == c.text
            assert (c.start, c.end) == (sents[c.sentences[0]].start, sents[c.sentences[-1]].end)
        if "n_chunks" in kwargs:
            assert len(chunks) == min(10, len(sents))


@pytest.mark.skipif(not ACL.exists(), reason=f"{ACL} not found")
def test_two_column_reading_order() -> None:
    doc, sents = parsed(ACL)
    text = doc.text
    order = [
        "We describe a deployed scalable system for organizing published",  # abstract
        "1 Introduction",
        "The goal of this work is to facilitate algorithmic discovery",  # left column
        "In this paper, we focus on the problem of extracting structured data",  # left, bottom
        "We reduce literature graph construction into familiar NLP tasks such as",  # right
    ]
    positions = [text.index(snippet) for snippet in order]
    assert positions == sorted(positions)
    intact = {s.text for s in sents}
    # "litera-/ture" is joined across the line break, and nothing from the right column
    # is glued into this left-column sentence.
    assert ("We describe a deployed scalable system for organizing published scientific "
            "literature into a heterogeneous graph to facilitate algorithmic manipulation "
            "and discovery.") in intact
    assert "The literature graph is a property graph with directed edges." in intact
    # This one runs from the foot of the left column to the head of the right one, past
    # the figure caption there.
    assert ("In this paper, we focus on the problem of extracting structured data from "
            "scientific documents, which can later be used in natural language interfaces "
            "(e.g., Iyer et al., 2017) or to improve ranking of results in academic search "
            "(e.g., Xiong et al., 2017).") in intact
    # The running footer "84" (page number) is gone; the paper title stays.
    assert doc.text.startswith("Construction of the Literature Graph in Semantic Scholar")
    first_page = text[doc.pages[0].start:doc.pages[0].end]
    assert not re.search(r"(?m)^84$", first_page)
