"""Step ``candidates``: which sentences of the retrieved text each claim is read against.

Every sentence of the retrieved chunks but headings (those the loader marked, and lines that
look like one), lines without a word and questions (``says_nothing``; a question stays for a
claim that reports what was asked); when there are more than
``max_candidates``, the ones closest to the claim by embedding cosine (in document order), so
the entailment model reads at most that many per claim.
"""

from __future__ import annotations

from gechat.evidence.base import asks, reports_asking, says_nothing
from gechat.evidence.steps import ClaimState, EvidenceContext, active, in_order


class Candidates:
    name = "candidates"

    def __init__(self, max_candidates: int) -> None:
        self.max_candidates = max_candidates

    def run(self, states: list[ClaimState], ctx: EvidenceContext) -> None:
        todo = active(states)
        if not todo:
            return
        pool, embedder = ctx.pool, ctx.embedder
        # the claims are embedded once, in one batch: for this ranking and for the sets'
        vectors = embedder.embed([s.claim.text for s in todo]) if embedder is not None else None
        if vectors is not None:
            for state, v in zip(todo, vectors, strict=True):
                state.vector = v
        headings = {s.id for s in pool.sentences if s.heading or says_nothing(s.text)}
        questions = [s for s in pool.sentences if not s.heading and asks(s.text)]
        sents = [s for s in pool.sentences if s.id not in headings]
        if embedder is None or vectors is None or len(sents) <= self.max_candidates:
            ranked = [sents for _ in todo]
        else:
            ranked = pool.nearest(vectors, embedder, self.max_candidates, skip=lambda s: s.id in headings)
        for state, cands in zip(todo, ranked, strict=True):
            asked = questions if questions and reports_asking(state.claim.answer()) else []
            state.candidates = in_order([*cands, *asked]) if asked else list(cands)
            if not cands:
                state.verdict = "unsupported"
