"""GE-Chat's evidence objective: F(s) = alpha * P_entail(s => claim) - beta * len_norm(s).

For every claim the candidates are the sentences of the retrieved chunks (pre-ranked by
embedding cosine when there are more than ``evidence_max_candidates``, so the entailment
model sees at most that many). The best sentence wins; if no single sentence reaches the
supported threshold, pairs are scored: adjacent pairs around the strongest candidates (a fact
told over two sentences) and any two of the strongest candidates, also from different
documents (a multi-hop fact: "A was born in X" + "X is in Y"); a pair that entails the claim
where neither sentence did is returned instead. F is maximised among the candidates that
reach the threshold when any do.
Verdict: supported if P_entail >= supported_threshold; contradicted if some
candidate's P_contradiction >= contradicted_threshold; otherwise unsupported, with the
closest sentence still shown so the reader sees why.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.evidence.lengths import get_len_norm
from gechat.models.embed_base import Embedder
from gechat.models.entail.base import CONTRADICTION, ENTAILMENT, EntailmentScorer
from gechat.types import Claim, Evidence, Sentence

Probs = npt.NDArray[np.float32]


class ObjectiveSelector:
    name = "nli-objective"

    def __init__(self, scorer: EntailmentScorer, embedder: Embedder | None, *, alpha: float,
                 beta: float, len_norm: str, len_ref_words: int, max_candidates: int,
                 pair_top: int, supported: float, contradicted: float) -> None:
        self.scorer, self.embedder = scorer, embedder
        self.alpha, self.beta = alpha, beta
        self.len_norm, self.len_ref = get_len_norm(len_norm), len_ref_words
        self.max_candidates, self.pair_top = max_candidates, pair_top
        self.supported, self.contradicted = supported, contradicted

    def objective(self, p_entail: npt.NDArray[np.float32], texts: list[str]) -> npt.NDArray[np.float64]:
        pen = np.asarray(self.len_norm(texts, self.len_ref), dtype=np.float64)
        return self.alpha * p_entail.astype(np.float64) - self.beta * pen

    def select(self, claims: list[ClaimInput], pool: EvidencePool) -> list[Claim]:
        ranked = self._preselect(claims, pool)
        return [self._one(c, cands, pool) for c, cands in zip(claims, ranked, strict=True)]

    def _preselect(self, claims: list[ClaimInput], pool: EvidencePool) -> list[list[Sentence]]:
        sents = pool.sentences
        if len(sents) <= self.max_candidates or self.embedder is None or not claims:
            return [sents for _ in claims]
        return pool.nearest([c.text for c in claims], self.embedder, self.max_candidates)

    def _one(self, claim: ClaimInput, cands: list[Sentence], pool: EvidencePool) -> Claim:
        if not cands:
            return Claim(text=claim.text, source=claim.source, verdict="unsupported")
        texts = [s.text for s in cands]
        probs = np.asarray(self.scorer.score(texts, claim.text), dtype=np.float32)
        f = self.objective(probs[:, ENTAILMENT], texts)
        # F is maximised over the sentences that entail the claim when there are any, so a
        # short sentence that does not support the claim never beats one that does.
        entails = probs[:, ENTAILMENT] >= self.supported
        best = int(np.argmax(np.where(entails, f, -np.inf))) if entails.any() else int(np.argmax(f))
        evidence = [pool.evidence([cands[best]], probs[best], float(f[best]), self.name)]
        if probs[best, ENTAILMENT] < self.supported:
            evidence = self._best_pair(claim, cands, probs, pool) or evidence
        if evidence[0].p_entail >= self.supported:
            return Claim(text=claim.text, source=claim.source, verdict="supported", evidence=evidence)
        worst = int(np.argmax(probs[:, CONTRADICTION]))
        if probs[worst, CONTRADICTION] >= self.contradicted:
            ev = pool.evidence([cands[worst]], probs[worst], float(f[worst]), self.name)
            return Claim(text=claim.text, source=claim.source, verdict="contradicted", evidence=[ev])
        return Claim(text=claim.text, source=claim.source, verdict="unsupported", evidence=evidence)

    def _best_pair(self, claim: ClaimInput, cands: list[Sentence], probs: Probs,
                   pool: EvidencePool) -> list[Evidence] | None:
        """Adjacent and bridge pairs around the top singles; only a pair that passes the threshold counts."""
        by_pos = {(s.chunk_id, s.ord): s for s in pool.sentences}
        top = [cands[int(i)] for i in np.argsort(-probs[:, ENTAILMENT])[: self.pair_top]]
        pairs: list[tuple[Sentence, Sentence]] = []
        seen: set[tuple[int, int]] = set()

        def add(a: Sentence | None, b: Sentence | None) -> None:
            if a is not None and b is not None and a.id != b.id:
                a, b = sorted((a, b), key=lambda s: (s.doc_id, s.start))
                if (a.id, b.id) not in seen:
                    seen.add((a.id, b.id))
                    pairs.append((a, b))

        for s in top:
            add(by_pos.get((s.chunk_id, s.ord - 1)), s)
            add(s, by_pos.get((s.chunk_id, s.ord + 1)))
        for i, a in enumerate(top):
            for b in top[i + 1 :]:
                add(a, b)
        if not pairs:
            return None
        texts = [self._pair_text(a, b, pool) for a, b in pairs]
        p = np.asarray(self.scorer.score(texts, claim.text), dtype=np.float32)
        f = self.objective(p[:, ENTAILMENT], texts)
        j = int(np.argmax(f))
        if p[j, ENTAILMENT] < self.supported:
            return None
        a, b = pairs[j]
        if self._adjacent(a, b):
            return [pool.evidence([a, b], p[j], float(f[j]), self.name)]
        # two places: each sentence is its own evidence, with the pair's joint score
        return [pool.evidence([a], p[j], float(f[j]), self.name), pool.evidence([b], p[j], float(f[j]), self.name)]

    @staticmethod
    def _adjacent(a: Sentence, b: Sentence) -> bool:
        return a.chunk_id == b.chunk_id and abs(a.ord - b.ord) == 1

    def _pair_text(self, a: Sentence, b: Sentence, pool: EvidencePool) -> str:
        return pool.span_text(a, b) if self._adjacent(a, b) else f"{a.text} {b.text}"
