"""Where the answer's figures are written: table rows the lookup step reads too.

The LLM reads a few chunks chosen by the question, and a figure it states may come from a
row the chunking cut from its label's neighbours, or be one the filing states in several
places ("Net income attributable to common shareholders | 2020: 709" on the income statement
for "American Water's net income in 2020 was $709 million", where the chunks read held the
rows around it). A reader checks such a claim by searching the document for the figure. So
for each claim that states figures (three or more significant digits, years aside:
``lexical.figures``), the chunks that state them (bm25 over the figures alone) are ranked by
their embedding's cosine with the claim, and the best ``per_claim`` that are not candidates
already are found. Their table rows are read by the ``lookup`` step alone (a row must name
the claim's quantity and state its value in the column of its year), not by the entailment
model: added as candidates for every claim, they let the fast model pass a wrong answer on a
row it misread ("Rigid Packaging had the higher net sales" on "Net sales | 2023: $ 14,694"),
2 of 11 wrong answers on the FinanceBench dev user questions.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from itertools import takewhile

import numpy as np

from gechat.documents.tables import row_label, row_unit
from gechat.models.embed_base import Embedder
from gechat.retrieve.lexical import figures
from gechat.retrieve.vector import hits_for
from gechat.store.base import Store
from gechat.types import ChunkHit, Sentence

DEPTH = 20  # chunks stating a claim's figures, ranked by meaning; more is a common figure
TABLE_REST = 60  # rows of a cut table read beyond a retrieved chunk, each way


def stating_chunks(store: Store, embedder: Embedder, claims: Sequence[str], hits: list[ChunkHit],
                   per_claim: int) -> list[ChunkHit]:
    """For each claim with figures, the ``per_claim`` chunks nearest the claim among those
    that state its figures (none already in ``hits``)."""
    if per_claim <= 0:
        return []
    have = {h.chunk.id for h in hits}
    added: list[tuple[int, float]] = []
    wanted = [(c, stated) for c in claims if (stated := figures(c))]
    if not wanted:
        return []
    vectors = embedder.embed([c for c, _ in wanted])
    for (_, stated), v in zip(wanted, vectors, strict=True):
        found = [i for i, _ in store.lexical_search("chunk", " ".join(stated), DEPTH) if i not in have]
        if not found:
            continue
        near = np.asarray(store.vectors("chunk", found), np.float32) @ np.asarray(v, np.float32)
        for j in np.argsort(-near, kind="stable")[:per_claim]:
            have.add(found[int(j)])
            added.append((found[int(j)], float(near[int(j)])))
    return hits_for(store, added)


def figure_rows(store: Store, embedder: Embedder, claims: Sequence[str], hits: list[ChunkHit],
                per_claim: int) -> list[Sentence]:
    """The table rows of the chunks ``stating_chunks`` finds: what ``lookup`` reads besides
    the candidates (``EvidencePool.rows``)."""
    found = stating_chunks(store, embedder, claims, hits, per_claim)
    if not found:
        return []
    return [s for s in store.sentences_of_chunks([h.chunk.id for h in found]) if row_label(s.text) is not None]


def table_rest(store: Store, hits: list[ChunkHit], sentences: Sequence[Sentence]
               ) -> tuple[list[ChunkHit], list[Sentence]]:
    """The rest of each table a retrieved chunk cuts: when a hit's first (or last) sentence is
    a table row, the rows of the same table before (or after) it, across as many chunks as
    the table runs (at most ``TABLE_REST`` rows each way). Chunking cuts a statement wherever
    its token budget ends, and a reader of "Interest expense | 2017: (848)" on page 38 sees
    the "Total net sales" row above it; the derived and lookup steps need that row. Only
    rows are added, never the prose around them; their chunks are returned to stand in the
    pool beside the hits."""
    have = {h.chunk.id for h in hits}
    of: dict[int, list[Sentence]] = {}
    for s in sentences:
        of.setdefault(s.chunk_id, []).append(s)
    order: dict[int, list[int]] = {}
    added: dict[int, ChunkHit] = {}
    rows: dict[int, Sentence] = {}
    for h in hits:
        own = sorted(of.get(h.chunk.id, []), key=lambda s: s.ord)
        if not own:
            continue
        ids = order.setdefault(h.chunk.doc_id, store.chunk_ids(h.chunk.doc_id))
        if h.chunk.id not in ids:
            continue
        k = ids.index(h.chunk.id)
        for edge, step in ((own[0], -1), (own[-1], 1)):
            if row_label(edge.text) is None:
                continue
            unit, taken, j = row_unit(edge.text), 0, k + step
            while 0 <= j < len(ids) and ids[j] not in have and taken < TABLE_REST:
                listed = sorted(store.sentences_of_chunks([ids[j]]), key=lambda s: s.ord)
                kept = list(takewhile(partial(_continues, unit=unit), listed if step > 0 else reversed(listed)))
                run = [s for s in kept if row_label(s.text) is not None][:TABLE_REST - taken]
                if run and ids[j] not in added:
                    added[ids[j]] = ChunkHit(chunk=store.chunks([ids[j]])[0], score=0.0, doc_title=h.doc_title)
                rows.update((s.id, s) for s in run)
                taken += len(run)
                if len(kept) < len(listed):  # the table ends in this chunk
                    break
                j += step
    return (sorted(added.values(), key=lambda h: (h.chunk.doc_id, h.chunk.ord)),
            sorted(rows.values(), key=lambda s: (s.doc_id, s.start)))


def _continues(s: Sentence, unit: str) -> bool:
    """Whether a sentence is still of the table whose rows end with ``unit``: a row of it, or
    a line that heads the rows under it ("Operating expenses:")."""
    if row_label(s.text) is None:
        return s.text.rstrip().endswith(":") and len(s.text) < 80
    return row_unit(s.text) == unit


__all__ = ["figure_rows", "stating_chunks", "table_rest"]
