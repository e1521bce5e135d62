"""Footnotes follow their marks: a retrieved sentence that carries a footnote mark brings the
footnote along, for the LLM to read and the evidence step to cite.

The FAA's 737 MAX directive says "differences between the two AOA sensors greater than a
certain threshold ¹³ would cause an AOA DISAGREE alert"; the threshold itself, "More than 10
degrees difference for more than 10 seconds", is footnote 13 at the foot of the page, which
no search for the question finds. Contracts, filings and papers put definitions, exceptions
and figures in footnotes the same way. The PDF loader writes a mark set in small raised type
in superscript digits (``documents.pdf_layout``), in the running text ("threshold ¹³ would")
and as the footnote's label ("¹³ More than 10 degrees ..."); here each mark of a retrieved
chunk is looked up among the sentences of its page and the next that open with it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gechat.store.base import Store
from gechat.types import Chunk, ChunkHit

# a mark in running text: after a word and a space, before a space or punctuation
_MARK = re.compile(r"(?<=\S )[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3}(?=[\s,.;:)]|$)")
MOST = 3  # footnotes added to one answer's excerpts at most: each is more prompt to read


def with_footnotes(store: Store, hits: Sequence[ChunkHit], most: int = MOST) -> list[ChunkHit]:
    """``hits``, then a hit for each chunk that holds the footnote of a mark in them, its
    text cut to the footnotes (the chunk's other sentences stay evidence candidates)."""
    wanted: dict[tuple[int, str], set[int]] = {}  # (document, mark) -> the pages its footnote may be on
    for h in hits:
        for m in _MARK.finditer(h.chunk.text):
            wanted.setdefault((h.chunk.doc_id, m.group()), set()).update((h.chunk.page, h.chunk.page + 1))
    if not wanted:
        return list(hits)
    have = {h.chunk.id for h in hits}
    titles = {h.chunk.doc_id: h.doc_title for h in hits}
    notes: dict[int, list[tuple[int, str]]] = {}  # chunk id -> (page, footnote)
    near: dict[int, Chunk] = {}  # the chunks searched, by id
    for doc_id in sorted({d for d, _ in wanted}):
        pages = set().union(*(p for (d, _), p in wanted.items() if d == doc_id))
        near |= {c.id: c for c in store.chunks(store.chunk_ids(doc_id))
                 if c.id not in have and c.page + 1 >= min(pages) and c.page <= max(pages)}
        for s in store.sentences_of_chunks([cid for cid, c in near.items() if c.doc_id == doc_id]):
            mark = s.text.split(" ", 1)[0]
            if s.page in wanted.get((doc_id, mark), ()) and len(s.text) > len(mark) + 1:
                notes.setdefault(s.chunk_id, []).append((s.page, s.text))
    extra = [ChunkHit(chunk=near[cid].model_copy(update={"text": " ".join(t for _, t in found),
                                                         "page": found[0][0]}),
                      score=0.0, doc_title=titles.get(near[cid].doc_id, ""))
             for cid, found in list(notes.items())[:most]]
    return [*hits, *extra]


__all__ = ["MOST", "with_footnotes"]
