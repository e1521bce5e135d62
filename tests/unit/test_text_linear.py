"""The text path runs in time linear in its input, on adversarial text (issue 33).

A 10-K's table of contents ("Item 7 ....................35") once held ingestion for minutes.
Hypothesis builds inputs from runs of punctuation, digits, dots glued to digits, spaces,
newlines, ellipses and mixes of them; each function must take at most ~20x as long on an
input 10x as large (tests/linear.py), and an exponential case is stopped and reported.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gechat import lexical
from gechat.answer.base import Draft
from gechat.answer.claims import make_claims
from gechat.answer.parser import parse_cot
from gechat.api.uploads import safe_name
from gechat.documents.chunking import chunk_sentences, count_tokens
from gechat.documents.sentences import split_sentences, split_spans
from gechat.documents.table_titles import chunk_leads
from gechat.documents.text import markdown_blocks
from gechat.evidence.base import asked
from gechat.evidence.locate import locate
from gechat.evidence.values import located
from gechat.graph.base import normalise
from gechat.types import PageInfo, ParsedDocument, Sentence, Span
from tests.linear import not_linear, repeat_to

N = 2_000  # characters, grown to 20,000


def _doc(text: str) -> ParsedDocument:
    return ParsedDocument(text=text, kind="txt", title="t", pages=[PageInfo(number=1, start=0, end=len(text))],
                          blocks=[Span(start=0, end=len(text))])


def _chunks(text: str) -> object:
    sentences = split_sentences(_doc(text))
    return chunk_sentences(sentences, text), chunk_sentences(sentences, text, n_chunks=5)


def _leads(text: str) -> object:
    sentences = split_sentences(_doc(text))
    return chunk_leads(sentences, chunk_sentences(sentences, text))


def _lexical(text: str) -> object:
    for cached in (lexical.content_keys, lexical.fact_keys, lexical._held, lexical.offered, lexical.chosen):
        cached.cache_clear()  # time the work, not the memo
    return (lexical.fact_keys(text), lexical.uncovered(text, text[::-1], given=text[:50]),
            lexical.missing_words(text, "", mode="all"), lexical.words(text), lexical.offered(f"{text} or {text}"))


def _locate(text: str) -> object:
    sentence = Sentence(id=1, doc_id=1, chunk_id=1, ord=0, page=1, start=0, end=len(text), text=text)
    return locate(text[: len(text) // 2], [sentence])


FUNCTIONS: dict[str, Callable[[str], object]] = {
    "split_spans": lambda s: split_spans(s, 0, len(s)),
    "split_sentences + chunks": _chunks,
    "count_tokens": count_tokens,
    "markdown_blocks": markdown_blocks,
    "lexical keys": _lexical,
    "parse_cot": parse_cot,
    "make_claims": lambda s: make_claims(Draft(text=s, thoughts=[s, s[::-1]]), from_thoughts=True, question=s[:80]),
    "graph name normalise": normalise,
    "evidence locate": _locate,
    "upload file name": safe_name,
    "what a question asks": asked,
    "table titles": _leads,
    # the values of a text: bracketed figures after number words, clause numbers opening lines
    "values in a text": lambda s: (located.__wrapped__(s), lexical.list_marks_out(s)),  # past its cache
}

ATOMS = [*".!?…,;:-'\"()[]*#|>`$%/\\_=", " ", "  ", "\n", "\n\n", "\t", "\u00a0", "\r", "1", "12", "3.5", "a",
         "A", "Ab", "cd", "e.g.", "No.", "Item", "U.S.", "....", "”", "’", "é"]
UNITS = st.lists(st.sampled_from(ATOMS), min_size=1, max_size=5).map("".join)
PREFIXES = st.sampled_from(["", "Item 7 ", "A. ", "1. ", "Answer: ", "Thoughts:\n1. ", "The total was "])
SUFFIXES = st.sampled_from(["", "35", " x", "\n", ".", " Next."])


@pytest.mark.parametrize("name", list(FUNCTIONS))
@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(unit=UNITS, prefix=PREFIXES, suffix=SUFFIXES)
@example(unit=".", prefix="Item 7 ", suffix="35")  # leader dots glued to a page number
@example(unit="…", prefix="", suffix="a")
@example(unit="?!", prefix="", suffix="x")
@example(unit=".1", prefix="", suffix="")  # dots glued to digits
@example(unit="1", prefix="", suffix="")
@example(unit=" ", prefix="A", suffix="x")
@example(unit="\n", prefix="A", suffix="x")
@example(unit="A. ", prefix="Item ", suffix="")
@example(unit="No. ", prefix="", suffix="5")
@example(unit="a.a", prefix="", suffix=" ")
def test_grows_linearly(name: str, unit: str, prefix: str, suffix: str) -> None:
    slow = not_linear(FUNCTIONS[name], [repeat_to(unit, prefix, suffix)], N)
    assert not slow, f"{name} grows faster than its input: {slow[0]}"
