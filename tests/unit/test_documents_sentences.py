from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gechat.documents.sentences import MAX_WORDS, split_sentences
from gechat.types import PageInfo, ParsedDocument, Span, WordBox


def doc_of(*paragraphs: str) -> ParsedDocument:
    """A plain document whose blocks are the given paragraphs joined by blank lines."""
    text = ""
    blocks: list[Span] = []
    for para in paragraphs:
        if text:
            text += "\n\n"
        blocks.append(Span(start=len(text), end=len(text) + len(para)))
        text += para
    return ParsedDocument(text=text, kind="txt", title="t",
                          pages=[PageInfo(number=1, start=0, end=len(text))], blocks=blocks)


def texts(*paragraphs: str) -> list[str]:
    return [s.text for s in split_sentences(doc_of(*paragraphs))]


def test_plain_sentences() -> None:
    assert texts("One fish. Two fish! Red fish? Blue fish.") == [
        "One fish.", "Two fish!", "Red fish?", "Blue fish."]


@pytest.mark.parametrize(
    "text",
    [
        "We use many tools, e.g. Python and Rust, for this work.",
        "Some things, i.e. the important ones, are kept.",
        "This was shown by Smith et al. in their 2019 paper.",
        "See Fig. 3 for the results of the run.",
        "Dr. Watson met Mr. Holmes at noon.",
        "The company, Acme Inc. of Delaware, filed.",
        "It was sold in the U.S. Government market.",
        "This is case No. 5 of the docket.",
        "It is approx. five metres long.",
        "Apples vs. oranges is a classic comparison.",
        "The value of pi is 3.14 and e is 2.718 roughly.",
        "The letter was signed by J. Smith and sent.",
        "He waited... and then he left.",
        "Docket No. FAA-2020-0686 was filed today.",
        "Item 1A. Risk Factors",
        "1.2. Components of Compensation.",
        "It was made by 3M Australia Pty. Ltd. in Sydney.",
        "He argued for the petitioner in Knowles v. Mirzayance in 2009.",
    ],
)
def test_no_false_split(text: str) -> None:
    assert texts(text) == [text]


def test_soft_abbreviation_ends_sentence_before_capital() -> None:
    assert texts("We bought it from Apple Inc. The deal closed.") == [
        "We bought it from Apple Inc.", "The deal closed."]


def test_quotes_and_brackets_stay_with_their_sentence() -> None:
    assert texts('He said "stop." Then he left. (It was late.) Next day came.') == [
        'He said "stop."', "Then he left.", "(It was late.)", "Next day came."]


def test_ellipsis_before_capital_splits() -> None:
    assert texts("He paused... Then he spoke.") == ["He paused...", "Then he spoke."]


def test_numbered_list_markers_open_sentences() -> None:
    assert texts("Steps follow. 1. Mix the flour. 2. Bake it well.") == [
        "Steps follow.", "1. Mix the flour.", "2. Bake it well."]


def test_label_number_mid_sentence_still_ends() -> None:
    assert texts("Details are in Note 14. The rate fell.") == [
        "Details are in Note 14.", "The rate fell."]


def test_footnote_number_after_full_stop() -> None:
    assert texts("It is in context.1 We encode it.") == ["It is in context.1", "We encode it."]


def test_never_crosses_blocks_and_drops_empty() -> None:
    assert texts("A heading without stop", "Body text here. More text", "---", "* * *") == [
        "A heading without stop", "Body text here.", "More text"]


def test_blank_line_inside_block_is_a_boundary() -> None:
    assert texts("first part\n\nsecond part") == ["first part", "second part"]


def test_long_sentence_split_at_semicolons() -> None:
    clause = " ".join(["word"] * 30)
    text = "; ".join([clause] * 6) + "."
    doc = doc_of(text)
    sents = split_sentences(doc)
    assert len(sents) > 1
    for s in sents:
        assert doc.text[s.start:s.end] == s.text
        assert len(s.text.split()) <= MAX_WORDS


def test_long_sentence_hard_split() -> None:
    text = " ".join(f"w{i}" for i in range(400))
    doc = doc_of(text)
    sents = split_sentences(doc)
    assert len(sents) == 5
    assert all(len(s.text.split()) <= MAX_WORDS for s in sents)
    assert " ".join(s.text for s in sents) == text


def test_pdf_boxes_merge_per_line_and_page() -> None:
    text = "Alpha beta gamma. Delta"
    words = []
    pos = 0
    for i, w in enumerate(text.split(" ")):
        start = text.index(w, pos)
        pos = start + len(w)
        y = 10.0 if i < 2 else 30.0  # two printed lines
        words.append(WordBox(start=start, end=pos, page=1, x0=10.0 * i, y0=y, x1=10.0 * i + 8, y1=y + 9))
    doc = ParsedDocument(text=text, kind="pdf", title="t",
                         pages=[PageInfo(number=1, start=0, end=len(text))],
                         blocks=[Span(start=0, end=len(text))], words=words)
    first, second = split_sentences(doc)
    assert first.text == "Alpha beta gamma."
    assert [(b.x0, b.y0, b.x1) for b in first.boxes] == [(0.0, 10.0, 18.0), (20.0, 30.0, 28.0)]
    assert second.page == 1 and len(second.boxes) == 1


_WORDS = st.sampled_from(
    ["alpha", "Beta", "e.g.", "3.14", "U.S.", "Dr.", "(see", "Fig.", "no.", "x", "“quoted”",
     "end.", "Why?", "yes!", "...", "et", "al.", "1.", "-", ";", "é", "…"]
)
_SPACE = st.sampled_from([" ", "  ", "\n", " \n ", "\t"])


@st.composite
def paragraphs(draw: st.DrawFn) -> str:
    n = draw(st.integers(min_value=1, max_value=40))
    parts = [draw(_WORDS)]
    for _ in range(n - 1):
        parts.append(draw(_SPACE))
        parts.append(draw(_WORDS))
    return draw(_SPACE) + "".join(parts) + draw(_SPACE)


@settings(max_examples=300, deadline=None, database=None)
@given(st.lists(paragraphs(), min_size=1, max_size=5))
def test_offsets_invariant(paras: list[str]) -> None:
    doc = doc_of(*paras)
    sents = split_sentences(doc)
    prev_end = 0
    for s in sents:
        assert doc.text[s.start:s.end] == s.text
        assert s.text == s.text.strip() and s.text
        assert any(c.isalnum() for c in s.text)
        assert s.start >= prev_end
        prev_end = s.end
        assert any(b.start <= s.start and s.end <= b.end for b in doc.blocks)
