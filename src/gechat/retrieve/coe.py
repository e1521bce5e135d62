"""Chain of Evidence (seed 004): a question's features, judged in each snippet, and the
minimal set of snippets that covers them (ScopeCoE's two phases).

1. Features: the LLM writes the question's intent, keywords and relations as JSON (a few-shot
   prompt of our own, a schema, the completion cache). Small models print broken JSON or
   nothing useful: what parses is kept, and a question the model fails on still has features
   (its own text as the intent, its names as keywords).
2. Judgment: the intent and each relation are statements ("Acme sold some segment in 2021"),
   so the grounding model reads them as hypotheses against each snippet; a keyword is held when
   its words are in the snippet or a sentence of the snippet is close to it in embedding space.
3. Coverage (the paper's Appendix D): a snippet that holds the intent first, then snippets for
   the relations still uncovered, then for the keywords, each time the one that covers most of
   what is left; what no snippet covers is reported as uncovered.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from gechat.graph.llm_extract import parse_partial
from gechat.lexical import content_keys, number_keys
from gechat.models.embed_base import Embedder
from gechat.models.entail.base import ENTAILMENT, EntailmentScorer
from gechat.models.llm.cache import CachedLLM
from gechat.prompts import COE_EXAMPLES, PROMPTS
from gechat.types import CoEFeatures

MAX_KEYWORDS = 8
MAX_RELATIONS = 4
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "intent": {"type": "string"},
        "keywords": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_KEYWORDS},
        "relations": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_RELATIONS},
    },
    "required": ["intent", "keywords", "relations"],
}


def features(llm: CachedLLM, question: str) -> CoEFeatures:
    """The question's intent, keywords and relations, as the LLM reads them (cached)."""
    messages: list[Any] = [{"role": "system", "content": PROMPTS["coe_system"]}]
    for q, a in COE_EXAMPLES:
        messages += [{"role": "user", "content": PROMPTS["coe_user"].format(question=q)},
                     {"role": "assistant", "content": a}]
    messages.append({"role": "user", "content": PROMPTS["coe_user"].format(question=question)})
    done = llm.complete(messages, max_tokens=220, json_schema=SCHEMA)
    return parse_features(done.text, question)


def parse_features(text: str, question: str) -> CoEFeatures:
    """What the model printed, read as features; the gaps filled from the question itself."""
    start = text.find("{")  # past a fence or a preamble
    data = parse_partial(text[start:]) if start >= 0 else None
    if not isinstance(data, dict):
        data = {}
    intent = data.get("intent")
    intent = " ".join(intent.split()) if isinstance(intent, str) and intent.strip() else question.strip()
    keywords = _strings(data.get("keywords"), MAX_KEYWORDS) or fallback_keywords(question)
    relations = [r for r in _strings(data.get("relations"), MAX_RELATIONS) if r.lower() != intent.lower()]
    return CoEFeatures(intent=intent, keywords=keywords, relations=relations)


def _strings(value: object, cap: int) -> list[str]:
    out: list[str] = []
    for v in value if isinstance(value, list) else []:
        text = " ".join(v.split()) if isinstance(v, str) else json.dumps(v) if isinstance(v, (int, float)) else ""
        if text and text.lower() not in (o.lower() for o in out):
            out.append(text)
    return out[:cap]


def fallback_keywords(question: str) -> list[str]:
    """The question's named things and figures (spaCy), when the model gave none."""
    from gechat.correct.triplets import names

    found = names([question])
    return found[:MAX_KEYWORDS] if found else [w for w in question.split() if w[:1].isupper()][:MAX_KEYWORDS]


@dataclass
class Judgment:
    """One snippet's features: whether it holds the intent, which relations and keywords."""

    rank: int  # its place among the candidates (0: the retriever's first)
    intent: bool
    relations: set[int] = field(default_factory=set)
    keywords: set[int] = field(default_factory=set)
    p_intent: float = 0.0
    p_relations: float = 0.0  # the mean over the question's relations


@dataclass
class Scores:
    """Per snippet: P(intent entailed), P(each relation entailed), the keywords it holds."""

    intent: list[float]
    relations: list[list[float]]
    keywords: list[set[int]]

    def judgments(self, threshold: float) -> list[Judgment]:
        return [Judgment(rank=i, intent=p >= threshold, p_intent=p,
                         relations={r for r, q in enumerate(self.relations[i]) if q >= threshold},
                         keywords=set(self.keywords[i]),
                         p_relations=sum(self.relations[i]) / len(self.relations[i]) if self.relations[i] else 0.0)
                for i, p in enumerate(self.intent)]


class FeatureJudge:
    def __init__(self, scorer: EntailmentScorer, embedder: Embedder, *, threshold: float = 0.5,
                 keyword_threshold: float = 0.6) -> None:
        self.scorer, self.embedder = scorer, embedder
        self.threshold, self.keyword_threshold = threshold, keyword_threshold

    def judge(self, f: CoEFeatures, snippets: Sequence[str],
              sentence_vectors: Sequence[npt.NDArray[np.float32] | None]) -> list[Judgment]:
        """``sentence_vectors``: per snippet, its sentences' embeddings (None: words only)."""
        return self.scores(f, snippets, sentence_vectors).judgments(self.threshold)

    def scores(self, f: CoEFeatures, snippets: Sequence[str],
               sentence_vectors: Sequence[npt.NDArray[np.float32] | None]) -> Scores:
        """The model's probabilities before any threshold (so a threshold can be tried on dev
        questions without reading the snippets again)."""
        if not snippets:
            return Scores([], [], [])
        p_intent = self._entailed(snippets, f.intent)
        p_rel = [self._entailed(snippets, r) for r in f.relations]
        kw_vecs = np.asarray(self.embedder.embed(f.keywords), dtype=np.float32) if f.keywords else None
        keywords = [{k for k, kw in enumerate(f.keywords)
                     if self._holds(kw, text, sentence_vectors[i], None if kw_vecs is None else kw_vecs[k])}
                    for i, text in enumerate(snippets)]
        return Scores([float(p) for p in p_intent], [[float(p[i]) for p in p_rel] for i in range(len(snippets))],
                      keywords)

    def _entailed(self, snippets: Sequence[str], hypothesis: str) -> npt.NDArray[np.float32]:
        return np.asarray(self.scorer.score(list(snippets), hypothesis), dtype=np.float32)[:, ENTAILMENT]

    def _holds(self, keyword: str, text: str, vectors: npt.NDArray[np.float32] | None,
               kw_vec: npt.NDArray[np.float32] | None) -> bool:
        keys, nums = content_keys(keyword), number_keys(keyword)
        if (keys or nums) and keys <= content_keys(text) and nums <= number_keys(text):
            return True
        if vectors is None or kw_vec is None or not len(vectors):
            return False
        return bool(float(np.max(vectors @ kw_vec)) >= self.keyword_threshold)


def cover(judged: Sequence[Judgment], f: CoEFeatures, k: int) -> tuple[list[Judgment], list[str]]:
    """The fewest snippets (at most ``k``) that cover the most features, in the paper's order:
    intent, relations, keywords; and the features left uncovered, as "intent: ...",
    "relation: ...", "keyword: ..."."""
    chosen: list[Judgment] = []
    rest = list(judged)

    def take(score: Any) -> bool:
        best = max(rest, key=lambda j: (score(j), -j.rank), default=None)
        if best is None or score(best) <= 0 or len(chosen) >= k:
            return False
        chosen.append(best)
        rest.remove(best)
        return True

    def left(kind: str) -> set[int]:
        total = set(range(len(f.relations if kind == "relations" else f.keywords)))
        return total - set().union(*(getattr(j, kind) for j in chosen))

    take(lambda j: j.intent * (1 + len(j.relations) + len(j.keywords) / 100))
    while left("relations") and take(lambda j: len(j.relations & left("relations"))
                                     + len(j.keywords & left("keywords")) / 100):
        pass
    while left("keywords") and take(lambda j: len(j.keywords & left("keywords"))):
        pass
    uncovered = ([] if any(j.intent for j in chosen) else [f"intent: {f.intent}"])
    uncovered += [f"relation: {f.relations[r]}" for r in sorted(left("relations"))]
    uncovered += [f"keyword: {f.keywords[w]}" for w in sorted(left("keywords"))]
    return sorted(chosen, key=lambda j: j.rank), uncovered


# What a place further down the candidate list costs a snippet when the set is topped up: a
# tenth of a feature, so the retriever's order breaks near-ties and a snippet that the judge
# finds far more relevant still moves up (chosen on the dev questions of
# benchmarks/scopecoe_recall.py; docs/benchmarks.md)
RANK_COST = 0.1


def relevance(j: Judgment, f: CoEFeatures) -> float:
    """How much of the question the judge found in a snippet, whether or not past the threshold:
    P(intent) + mean P(relation) + the share of keywords held, less ``RANK_COST`` per place."""
    return j.p_intent + j.p_relations + len(j.keywords) / max(1, len(f.keywords)) - RANK_COST * j.rank


def select(judged: Sequence[Judgment], f: CoEFeatures, k: int, *, fill: bool, by_rank: bool = False) -> tuple[
        list[Judgment], list[Judgment], list[str]]:
    """What the LLM reads: the covering set and, with ``fill``, the most relevant others up to
    ``k``; and what stays uncovered. When nothing covers a feature, the ``k`` most relevant.
    ``by_rank`` tops up in the retriever's order instead (kept to compare; it let a
    misinformation passage ranked high but judged off the question into the set)."""
    chosen, uncovered = cover(judged, f, k)
    ordered = list(judged) if by_rank else sorted(judged, key=lambda j: (-relevance(j, f), j.rank))
    if not chosen:
        chosen = ordered[:k]
    taken = {j.rank for j in chosen}
    extra = [j for j in ordered if j.rank not in taken][: k - len(chosen)] if fill else []
    return chosen, extra, uncovered


__all__ = ["FeatureJudge", "Judgment", "Scores", "cover", "fallback_keywords", "features", "parse_features",
           "relevance", "select"]
