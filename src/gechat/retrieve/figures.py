"""Where the answer's figures are written: chunks added to the evidence candidates.

The LLM reads a few chunks chosen by the question, and a figure it states may come from a
row the chunking cut from its label's neighbours, or be one the filing states in several
places ("Net income attributable to common shareholders | 2020: 709" on the income statement
for "American Water's net income in 2020 was $709 million", where the chunks read held the
rows around it). A reader checks such a claim by searching the document for the figure. So
for each claim that states figures (three or more significant digits, years aside:
``lexical.figures``), the chunks that state them (bm25 over the figures alone) are ranked by
their embedding's cosine with the claim, and the best ``per_claim`` that are not candidates
already are added. They are read under the same rules as every candidate: a row must name
the claim's quantity in the column of its year (``lookup``), prose must entail it; a wrong
figure is seldom written anywhere, and where the document writes it for another quantity,
the checks see that.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gechat.models.embed_base import Embedder
from gechat.retrieve.lexical import figures
from gechat.retrieve.vector import hits_for
from gechat.store.base import Store
from gechat.types import ChunkHit

DEPTH = 20  # chunks stating a claim's figures, ranked by meaning; more is a common figure


def stating_chunks(store: Store, embedder: Embedder, claims: Sequence[str], hits: list[ChunkHit],
                   per_claim: int) -> list[ChunkHit]:
    """``hits`` followed by, for each claim with figures, the ``per_claim`` chunks nearest
    the claim among those that state its figures (none already in ``hits``)."""
    if per_claim <= 0:
        return hits
    have = {h.chunk.id for h in hits}
    added: list[tuple[int, float]] = []
    wanted = [(c, stated) for c in claims if (stated := figures(c))]
    if not wanted:
        return hits
    vectors = embedder.embed([c for c, _ in wanted])
    for (_, stated), v in zip(wanted, vectors, strict=True):
        found = [i for i, _ in store.lexical_search("chunk", " ".join(stated), DEPTH) if i not in have]
        if not found:
            continue
        near = np.asarray(store.vectors("chunk", found), np.float32) @ np.asarray(v, np.float32)
        for j in np.argsort(-near, kind="stable")[:per_claim]:
            have.add(found[int(j)])
            added.append((found[int(j)], float(near[int(j)])))
    return hits + hits_for(store, added)


__all__ = ["stating_chunks"]
