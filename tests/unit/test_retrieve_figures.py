"""The chunks that state an answer's figures join its evidence candidates."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gechat.models.embed import HashingEmbedder
from gechat.retrieve.figures import stating_chunks, table_rest
from gechat.types import Chunk, ChunkHit, Document, Sentence

TEXTS = {
    1: "Operating income | 2020: 1,248 | 2019: 1,170 (In millions)",
    2: "Net income attributable to common shareholders | 2020: $ 709 | 2019: $ 621 (In millions)",
    3: "Our regulated businesses served 709 communities in 2020.",
    4: "Net income | 2020: $ 709 | 2019: $ 621 (In millions)",
}


class _Store:
    """Chunks whose word search finds the chunks holding the query's figure."""

    def __init__(self) -> None:
        self.embedder = HashingEmbedder()
        self.queries: list[str] = []

    def lexical_search(self, kind: str, text: str, k: int) -> list[tuple[int, float]]:
        self.queries.append(text)
        return [(i, 1.0) for i, t in TEXTS.items() if any(f in t for f in text.split())][:k]

    def vectors(self, kind: str, ids: Sequence[int]) -> np.ndarray:
        return self.embedder.embed([TEXTS[i] for i in ids])

    def chunks(self, ids: Sequence[int]) -> list[Chunk]:
        return [Chunk(id=i, doc_id=1, ord=i, start=0, end=len(TEXTS[i]), text=TEXTS[i]) for i in ids]

    def documents(self) -> list[Document]:
        return [Document(id=1, path="/x/awk.pdf", sha256="s", title="awk", kind="pdf", n_pages=1,
                         n_sentences=4, n_chunks=4)]


def hit(i: int) -> ChunkHit:
    return ChunkHit(chunk=_Store().chunks([i])[0], score=1.0)


def test_the_chunks_stating_a_claims_figure_nearest_the_claim_are_found() -> None:
    store = _Store()
    claims = ["American Water's net income in 2020 was $709 million.", "The company grew."]
    found = [h.chunk.id for h in stating_chunks(store, store.embedder, claims, [hit(1)], 2)]  # type: ignore[arg-type]
    assert len(found) == 2 and set(found) <= {2, 3, 4}
    assert found[0] in (2, 4)  # a net income row is nearer the claim than the communities
    assert store.queries == ["709"]  # one search, for the claim with a figure; "2020" is a year
    # one per claim; a chunk already retrieved is not found again
    assert [h.chunk.id for h in stating_chunks(store, store.embedder, claims[:1], [hit(2), hit(4)], 1)] \
        == [3]  # type: ignore[arg-type]


def test_no_figure_no_search_and_zero_turns_it_off() -> None:
    store = _Store()
    hits = [hit(1)]
    assert stating_chunks(store, store.embedder, ["Net income rose in 2020."], hits, 2) == []  # type: ignore[arg-type]
    assert stating_chunks(store, store.embedder, ["Net income was $709 million."], hits, 0) == []  # type: ignore[arg-type]
    assert store.queries == []


def _sentences(chunk_id: int, texts: list[str], first: int) -> list[Sentence]:
    return [Sentence(id=first + k, doc_id=1, chunk_id=chunk_id, ord=first + k, page=38, start=100 * (first + k),
                     end=100 * (first + k) + len(t), text=t) for k, t in enumerate(texts)]


UNIT = " (in millions, except per share data)"
STATEMENT = {  # one income statement cut into chunks by the token budget, prose before and after
    1: _sentences(1, ["Our sales grew in every segment.", "Year Ended December 31,"], 0),
    2: _sentences(2, ["Total net sales | 2016: 135,987 | 2017: 177,866" + UNIT, "Operating expenses:",
                      "Cost of sales | 2016: 88,265 | 2017: 111,934" + UNIT], 10),
    3: _sentences(3, ["Operating income | 2016: 4,186 | 2017: 4,106" + UNIT], 20),
    4: _sentences(4, ["Interest expense | 2016: (484) | 2017: (848)" + UNIT,
                      "Net income | 2016: $ 2,371 | 2017: $ 3,033" + UNIT, "See accompanying notes."], 30),
    5: _sentences(5, ["Cash | 2016: 19,334 | 2017: 20,522 (in millions)"], 40),
}


class _Chunks:
    def chunk_ids(self, doc_id: int) -> list[int]:
        return list(STATEMENT)

    def sentences_of_chunks(self, ids: Sequence[int]) -> list[Sentence]:
        return [s for i in ids for s in STATEMENT[i]]

    def chunks(self, ids: Sequence[int]) -> list[Chunk]:
        return [Chunk(id=i, doc_id=1, ord=i, start=0, end=1, text="") for i in ids]


def test_the_rest_of_a_table_a_retrieved_chunk_cuts_is_read_with_it() -> None:
    store = _Chunks()
    hits = [ChunkHit(chunk=store.chunks([4])[0], score=1.0, doc_title="10-K")]
    added, rows = table_rest(store, hits, STATEMENT[4])  # type: ignore[arg-type]
    # back across two chunks to the table's first row, past its "Operating expenses:" line;
    # not the prose before it, nor another table after it
    assert [h.chunk.id for h in added] == [2, 3] and {h.doc_title for h in added} == {"10-K"}
    assert [r.text.split(" |")[0] for r in rows] == ["Total net sales", "Cost of sales", "Operating income"]
    # a chunk that opens and ends with prose cuts no table
    assert table_rest(store, [ChunkHit(chunk=store.chunks([1])[0], score=1.0)], STATEMENT[1]) == ([], [])  # type: ignore[arg-type]


def test_a_table_with_no_unit_line_or_a_sub_heading_in_a_chunk_runs_on() -> None:
    # rows ending in a bracketed negative name no unit, and a chunk holding "Investing
    # activities:" besides its rows is not where the table ends
    table = {
        1: _sentences(1, ["Net cash from operations | 2022: 1,824 | 2021: 1,705"], 0),
        2: _sentences(2, ["Investing activities:", "Capital spending | 2022: (930) | 2021: (737)"], 10),
        3: _sentences(3, ["Other, net | 2022: (32) | 2021: 25"], 20),
    }

    class Store(_Chunks):
        def chunk_ids(self, doc_id: int) -> list[int]:
            return list(table)

        def sentences_of_chunks(self, ids: Sequence[int]) -> list[Sentence]:
            return [s for i in ids for s in table[i]]

    store = Store()
    added, rows = table_rest(store, [ChunkHit(chunk=store.chunks([3])[0], score=1.0)], table[3])  # type: ignore[arg-type]
    assert [h.chunk.id for h in added] == [1, 2]
    assert [r.text.split(" |")[0] for r in rows] == ["Net cash from operations", "Capital spending"]
