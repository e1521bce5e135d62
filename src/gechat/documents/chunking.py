"""Group whole consecutive sentences into chunks.

Token counts are approximated as ``len(re.findall(r"\\w+|[^\\w\\s]", text))``: every run of
word characters and every punctuation mark is one token. That is within ~20% of a BPE
tokenizer on English prose, needs no model, and is deterministic, which is all chunk sizing
needs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from gechat.types import ChunkSpan, SentenceSpan

_TOKEN = re.compile(r"\w+|[^\w\s]")

# When the next sentence starts a new page and the chunk is already this full, close it:
# a chunk that stays on one page highlights better and cites a single page.
PAGE_BREAK_FILL = 0.6


def count_tokens(text: str) -> int:
    """Approximate token count: word runs plus punctuation marks."""
    return len(_TOKEN.findall(text))


def chunk_sentences(
    sentences: Sequence[SentenceSpan],
    text: str,
    *,
    chunk_tokens: int = 160,
    n_chunks: int | None = None,
) -> list[ChunkSpan]:
    """Cut ``sentences`` (in document order) into chunks of whole sentences.

    With ``n_chunks`` the document is cut into exactly that many chunks of about equal token
    count (fewer only when there are fewer sentences); otherwise each chunk holds about
    ``chunk_tokens`` tokens and a sentence larger than that is a chunk of its own.
    """
    if not sentences:
        return []
    sizes = [count_tokens(s.text) for s in sentences]
    if n_chunks is not None:
        if n_chunks < 1:
            raise ValueError(f"n_chunks must be >= 1, got {n_chunks}")
        groups = _equal_groups(sizes, n_chunks)
    else:
        if chunk_tokens < 1:
            raise ValueError(f"chunk_tokens must be >= 1, got {chunk_tokens}")
        groups = _greedy_groups(sentences, sizes, chunk_tokens)
    return [_make_chunk(sentences, text, a, b, sum(sizes[a:b])) for a, b in groups]


def _greedy_groups(
    sentences: Sequence[SentenceSpan], sizes: list[int], target: int
) -> list[tuple[int, int]]:
    groups: list[tuple[int, int]] = []
    start = 0
    total = 0
    for i, size in enumerate(sizes):
        if i > start:
            overflow = total + size > target
            page_break = (sentences[i].page != sentences[i - 1].page
                          and total >= PAGE_BREAK_FILL * target)
            if overflow or page_break:
                groups.append((start, i))
                start, total = i, 0
        total += size
    groups.append((start, len(sizes)))
    return groups


def _equal_groups(sizes: list[int], n: int) -> list[tuple[int, int]]:
    if n >= len(sizes):
        return [(i, i + 1) for i in range(len(sizes))]
    cum = [0]
    for size in sizes:
        cum.append(cum[-1] + size)
    total = cum[-1]
    cuts = [0]
    j = 0
    for k in range(1, n):
        ideal = total * k / n
        # Advance to the sentence boundary nearest the ideal cut, but leave at least one
        # sentence for this chunk and for every chunk still to come.
        while j + 1 < len(cum) and cum[j + 1] <= ideal:
            j += 1
        if j + 1 < len(cum) and abs(cum[j + 1] - ideal) < abs(cum[j] - ideal):
            j += 1
        j = max(j, cuts[-1] + 1)
        j = min(j, len(sizes) - (n - k))
        cuts.append(j)
    cuts.append(len(sizes))
    return list(pairwise(cuts))


def _make_chunk(
    sentences: Sequence[SentenceSpan], text: str, a: int, b: int, n_tokens: int
) -> ChunkSpan:
    start, end = sentences[a].start, sentences[b - 1].end
    return ChunkSpan(sentences=list(range(a, b)), start=start, end=end, text=text[start:end],
                     n_tokens=n_tokens)


__all__ = ["chunk_sentences", "count_tokens"]
