"""Evidence picked by the LLM: EvidenceChat's reflection (seed 001) and the papers' baseline,
direct quoting.

Reflection: per claim, the k sentences nearest by embedding cosine are shown and the LLM
copies the ones that support the claim. Quote: the LLM sees the retrieved excerpts and quotes
its evidence itself. In both, the output is mapped back to source sentences (``locate``):
anything not found there is dropped and counted in ``stats["fabricated"]``, so no evidence we
show is invented. Verdicts: supported when at least one located sentence remains, else
unsupported (the LLM cannot be asked for a contradiction here without a second prompt).
P_entail on each evidence comes from the entailment scorer, for display and for the bench.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import numpy as np

from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.evidence.locate import locate
from gechat.models.embed_base import Embedder
from gechat.models.entail.base import ENTAILMENT, EntailmentScorer
from gechat.models.llm.base import LLM, Message
from gechat.prompts import PROMPTS
from gechat.types import Claim, Sentence


def _schema(key: str, k: int) -> dict[str, Any]:
    return {"type": "object", "properties": {key: {"type": "array", "items": {"type": "string"}, "maxItems": k}},
            "required": [key]}


def _strings(text: str, key: str) -> list[str] | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    items = data.get(key) if isinstance(data, dict) else None
    if not isinstance(items, list):
        return None
    return [s for s in items if isinstance(s, str) and s.strip()]


class _LLMSelector:
    name = "llm"
    key = ""
    uses_llm = True  # the bench caps LLM selectors to fewer questions (seconds per claim, not ms)

    def __init__(self, llm: LLM, scorer: EntailmentScorer | None, *, k: int = 3, max_tokens: int = 300) -> None:
        self.llm, self.scorer, self.k, self.max_tokens = llm, scorer, k, max_tokens
        self.stats: Counter[str] = Counter()

    def messages(self, claim: ClaimInput, cands: list[Sentence], pool: EvidencePool) -> list[Message]:
        raise NotImplementedError

    def candidates(self, claims: list[ClaimInput], pool: EvidencePool) -> list[list[Sentence]]:
        return [pool.sentences for _ in claims]

    def select(self, claims: list[ClaimInput], pool: EvidencePool) -> list[Claim]:
        return [self._one(c, cands, pool) for c, cands in zip(claims, self.candidates(claims, pool), strict=True)]

    def _one(self, claim: ClaimInput, cands: list[Sentence], pool: EvidencePool) -> Claim:
        if not cands:
            return Claim(text=claim.text, source=claim.source, verdict="unsupported")
        out = self.llm.complete(self.messages(claim, cands, pool), max_tokens=self.max_tokens,
                                json_schema=_schema(self.key, self.k))
        self.stats["llm_calls"] += 1
        quoted = _strings(out.text, self.key)
        if quoted is None:
            self.stats["unparsed"] += 1
            quoted = []
        picked: list[Sentence] = []
        for q in quoted[: self.k]:  # never more than it was allowed
            self.stats["quotes"] += 1
            found = locate(q, cands)
            if not found:
                self.stats["fabricated"] += 1
            picked += [s for s in found if s.id not in {p.id for p in picked}]
        if not picked:
            return Claim(text=claim.text, source=claim.source, verdict="unsupported")
        picked.sort(key=lambda s: (s.doc_id, s.start))
        texts = [s.text for s in picked]
        probs = (np.asarray(self.scorer.score(texts, claim.text), dtype=np.float32) if self.scorer is not None
                 else np.zeros((len(picked), 3), dtype=np.float32))
        evidence = [pool.evidence([s], p, float(p[ENTAILMENT]), self.name) for s, p in zip(picked, probs, strict=True)]
        return Claim(text=claim.text, source=claim.source, verdict="supported", evidence=evidence)


class ReflectionSelector(_LLMSelector):
    """EvidenceChat: k nearest sentences by cosine, then the LLM keeps the supporting ones."""

    name = "reflection"
    key = "supporting"

    def __init__(self, llm: LLM, scorer: EntailmentScorer | None, embedder: Embedder, *, k: int = 3,
                 max_tokens: int = 300) -> None:
        super().__init__(llm, scorer, k=k, max_tokens=max_tokens)
        self.embedder = embedder

    def candidates(self, claims: list[ClaimInput], pool: EvidencePool) -> list[list[Sentence]]:
        if not claims:
            return []
        return pool.nearest(self.embedder.embed([c.text for c in claims]), self.embedder, self.k)

    def messages(self, claim: ClaimInput, cands: list[Sentence], pool: EvidencePool) -> list[Message]:
        listed = "\n".join(PROMPTS["reflect_item"].format(text=s.text) for s in cands)
        return [{"role": "system", "content": PROMPTS["reflect_system"]},
                {"role": "user", "content": PROMPTS["reflect_user"].format(claim=claim.text, sentences=listed,
                                                                           k=len(cands))}]


class QuoteSelector(_LLMSelector):
    """The baseline: the LLM reads the retrieved excerpts and quotes its own evidence."""

    name = "quote"
    key = "quotes"

    def messages(self, claim: ClaimInput, cands: list[Sentence], pool: EvidencePool) -> list[Message]:
        context = "\n\n".join(PROMPTS["context_item"].format(n=i, title=pool.titles.get(c.doc_id, ""), page=c.page,
                                                             text=c.text)
                              for i, c in enumerate(pool.chunks.values(), start=1))
        return [{"role": "system", "content": PROMPTS["quote_system"]},
                {"role": "user", "content": PROMPTS["quote_user"].format(context=context, claim=claim.text, k=self.k)}]
