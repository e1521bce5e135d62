"""ScopeCoE retrieval (``retriever = "scopecoe"``): the base retriever's candidates, then the
minimal set of them that covers the question's Chain-of-Evidence features is what the LLM
reads, in place of the top k. ``choose`` also says why (``CoEReport``, kept on the Answer).

When no candidate covers any feature (the model's features are off, or the documents do not
hold the answer), the LLM reads the base retriever's top k, and every feature is reported
uncovered: a question is never left with nothing to read. With ``fill`` the covering set is
followed by the base ranking's best other candidates up to k, each marked ``filled``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from gechat.models.llm.cache import CachedLLM
from gechat.retrieve.base import Retriever
from gechat.retrieve.coe import FeatureJudge, Judgment, Scores, features, select
from gechat.store.base import Store
from gechat.types import ChunkHit, CoEFeatures, CoEReport, SnippetCoverage


class ScopeCoERetriever:
    name = "scopecoe"

    def __init__(self, base: Retriever, store: Store, llm: CachedLLM, judge: FeatureJudge, *,
                 candidates: int = 10, fill: bool = False) -> None:
        self.base, self.store, self.llm, self.judge, self.candidates = base, store, llm, judge, candidates
        self.fill = fill

    def scored(self, question: str, n: int) -> tuple[list[ChunkHit], CoEFeatures, Scores]:
        """The base retriever's first ``n`` candidates, the question's features, and the
        judge's probabilities for each candidate before its threshold."""
        hits = self.base.retrieve(question, n)
        with self.llm.stage("retrieve"):
            f = features(self.llm, question)
        return hits, f, self.judge.scores(f, [h.chunk.text for h in hits], [self._vectors(h) for h in hits])

    def choose(self, question: str, k: int) -> tuple[list[ChunkHit], CoEReport]:
        hits, f, scores = self.scored(question, max(k, self.candidates))
        chosen, extra, uncovered = select(scores.judgments(self.judge.threshold), f, k, fill=self.fill)
        picked = [hits[j.rank] for j in chosen + extra]
        snippets = [_coverage(hits[j.rank], j, f) for j in chosen]
        snippets += [_coverage(hits[j.rank], j, f).model_copy(update={"filled": True}) for j in extra]
        report = CoEReport(features=f, snippets=snippets, uncovered=uncovered, candidates=len(hits))
        return picked, report

    def retrieve(self, question: str, k: int) -> list[ChunkHit]:
        return self.choose(question, k)[0]

    def rank_sentences(self, question: str, k: int) -> list[tuple[int, float]]:
        return self.base.rank_sentences(question, k)

    def for_evidence(self, texts: Sequence[str], hits: list[ChunkHit], k: int) -> list[ChunkHit]:
        return self.base.for_evidence(texts, hits, k)

    def _vectors(self, hit: ChunkHit) -> npt.NDArray[np.float32] | None:
        ids = hit.chunk.sentence_ids
        if not ids:
            return None
        found = self.store.vectors("sentence", ids)
        return None if found is None else np.asarray(found, dtype=np.float32)


def _coverage(hit: ChunkHit, j: Judgment, f: CoEFeatures) -> SnippetCoverage:
    return SnippetCoverage(chunk_id=hit.chunk.id, doc_title=hit.doc_title, page=hit.chunk.page, intent=j.intent,
                           relations=[f.relations[r] for r in sorted(j.relations)],
                           keywords=[f.keywords[w] for w in sorted(j.keywords)])


__all__ = ["ScopeCoERetriever"]
