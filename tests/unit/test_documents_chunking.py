from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gechat.documents.chunking import chunk_sentences, count_tokens
from gechat.types import ChunkSpan, SentenceSpan


def sentences_of(
    lengths: list[int], pages: list[int] | None = None
) -> tuple[list[SentenceSpan], str]:
    """Sentences of ``n`` words each ("w w w."), separated by a space."""
    text = ""
    out: list[SentenceSpan] = []
    for i, n in enumerate(lengths):
        body = " ".join(["w"] * n) + "."
        if text:
            text += " "
        out.append(SentenceSpan(start=len(text), end=len(text) + len(body), text=body,
                                page=pages[i] if pages else 1))
        text += body
    return out, text


def check_chunks(chunks: list[ChunkSpan], sents: list[SentenceSpan], text: str) -> None:
    covered = [i for c in chunks for i in c.sentences]
    assert covered == list(range(len(sents)))  # whole sentences, in order, each once
    for c in chunks:
        first, last = sents[c.sentences[0]], sents[c.sentences[-1]]
        assert (c.start, c.end) == (first.start, last.end)
        assert text[c.start:c.end] == c.text
        assert c.sentences == list(range(c.sentences[0], c.sentences[-1] + 1))


def test_count_tokens() -> None:
    # Hello , world ! It ' s 3 . 14 .
    assert count_tokens("Hello, world! It's 3.14.") == 11


def test_token_target() -> None:
    sents, text = sentences_of([9] * 20)  # 10 tokens each
    chunks = chunk_sentences(sents, text, chunk_tokens=35)
    check_chunks(chunks, sents, text)
    assert [len(c.sentences) for c in chunks] == [3] * 6 + [2]
    assert all(c.n_tokens <= 35 for c in chunks)
    assert chunks[0].n_tokens == 30


def test_oversized_sentence_is_its_own_chunk() -> None:
    sents, text = sentences_of([5, 100, 5, 5])
    chunks = chunk_sentences(sents, text, chunk_tokens=20)
    check_chunks(chunks, sents, text)
    assert [c.sentences for c in chunks] == [[0], [1], [2, 3]]


def test_page_change_near_target_closes_chunk() -> None:
    sents, text = sentences_of([9] * 6, pages=[1, 1, 1, 2, 2, 2])
    chunks = chunk_sentences(sents, text, chunk_tokens=45)
    assert [c.sentences for c in chunks] == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10])
def test_n_chunks_exact(n: int) -> None:
    sents, text = sentences_of([3, 20, 5, 8, 1, 13, 4, 4, 9, 30])
    chunks = chunk_sentences(sents, text, n_chunks=n)
    assert len(chunks) == n
    check_chunks(chunks, sents, text)


def test_n_chunks_balanced() -> None:
    sents, text = sentences_of([9] * 40)
    chunks = chunk_sentences(sents, text, n_chunks=4)
    assert [len(c.sentences) for c in chunks] == [10] * 4


def test_n_chunks_more_than_sentences() -> None:
    sents, text = sentences_of([3, 4])
    assert len(chunk_sentences(sents, text, n_chunks=5)) == 2


def test_bad_arguments() -> None:
    sents, text = sentences_of([3])
    with pytest.raises(ValueError):
        chunk_sentences(sents, text, n_chunks=0)
    with pytest.raises(ValueError):
        chunk_sentences(sents, text, chunk_tokens=0)
    assert chunk_sentences([], "", n_chunks=3) == []


@settings(max_examples=200, deadline=None, database=None)
@given(
    st.lists(st.integers(min_value=1, max_value=60), min_size=1, max_size=60),
    st.integers(min_value=5, max_value=200),
    st.one_of(st.none(), st.integers(min_value=1, max_value=70)),
)
def test_chunk_invariants(lengths: list[int], target: int, n: int | None) -> None:
    sents, text = sentences_of(lengths)
    chunks = chunk_sentences(sents, text, chunk_tokens=target, n_chunks=n)
    check_chunks(chunks, sents, text)
    if n is not None:
        assert len(chunks) == min(n, len(sents))
    else:
        for c in chunks:
            assert c.n_tokens <= target or len(c.sentences) == 1
