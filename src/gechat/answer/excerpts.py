"""What the LLM reads: the retrieved chunks, cut to the sentences nearest the question.

On a CPU the first answer token waits for the model to read its whole prompt (llama.cpp
reads ~165 tokens a second with the 1.5B model on 2 cores), and the excerpts are most of
that prompt. ``focus`` keeps, within a token budget, the chunks' sentences closest to the
question by embedding cosine; each chunk keeps at least its closest sentence (retrieval
ranked it for a reason) and shows its kept sentences in document order, with "…" where
sentences were left out, so the model can tell that the text is not continuous.

Only the prompt is cut: evidence is still chosen among every sentence of the retrieved
chunks, so a claim drawn from a sentence the model did not see still finds its source.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from gechat.documents.chunking import count_tokens
from gechat.types import ChunkHit, Sentence

GAP = "…"


def focus(hits: Sequence[ChunkHit], sentences: Sequence[Sentence], vectors: npt.NDArray[np.float32],
          query: npt.NDArray[np.float32], budget: int) -> list[ChunkHit]:
    """``hits`` with each chunk's text cut to the sentences ``keep`` chooses. Chunks whose
    sentences are not given keep their text."""
    kept = keep(hits, sentences, vectors, query, budget)
    by_chunk = _by_chunk(sentences)
    out = []
    for hit in hits:
        members = sorted(by_chunk.get(hit.chunk.id, []), key=lambda i: sentences[i].ord)
        if not members or all(i in kept for i in members):
            out.append(hit)
            continue
        text = _join([sentences[i] for i in members], [i in kept for i in members])
        out.append(hit.model_copy(update={"chunk": hit.chunk.model_copy(update={"text": text})}))
    return out


def keep(hits: Sequence[ChunkHit], sentences: Sequence[Sentence], vectors: npt.NDArray[np.float32],
         query: npt.NDArray[np.float32], budget: int) -> set[int]:
    """Indices into ``sentences`` of those the LLM reads: each hit's sentence nearest
    ``query``, then the nearest others while they fit in ``budget`` tokens in all (counted as
    chunking counts them). ``vectors`` are the embeddings of ``sentences``, row for row."""
    if len(sentences) != len(vectors):
        raise ValueError(f"{len(sentences)} sentences but {len(vectors)} vectors")
    # embedders return L2-normalised vectors (the Embedder protocol), so a dot product is the
    # cosine, as in EvidencePool.nearest
    sims = np.asarray(vectors, np.float32) @ np.asarray(query, np.float32).reshape(-1)
    by_chunk = _by_chunk(sentences)
    sizes = [count_tokens(s.text) for s in sentences]
    kept: set[int] = set()
    for hit in hits:
        members = by_chunk.get(hit.chunk.id, [])
        if members:
            kept.add(max(members, key=lambda i: sims[i]))
    used = sum(sizes[i] for i in kept)
    # Greedy by closeness; a sentence that does not fit is skipped, a shorter later one may.
    for i in sorted(range(len(sentences)), key=lambda i: -sims[i]):
        if i not in kept and used + sizes[i] <= budget:
            kept.add(i)
            used += sizes[i]
    return kept


def _by_chunk(sentences: Sequence[Sentence]) -> dict[int, list[int]]:
    by_chunk: dict[int, list[int]] = {}
    for i, s in enumerate(sentences):
        by_chunk.setdefault(s.chunk_id, []).append(i)
    return by_chunk


def _join(sentences: list[Sentence], keep: list[bool]) -> str:
    """Kept sentences in order; one GAP for each run of left-out ones."""
    parts: list[str] = []
    for s, k in zip(sentences, keep, strict=True):
        if k:
            parts.append(s.text)
        elif not parts or parts[-1] != GAP:
            parts.append(GAP)
    return " ".join(parts)
