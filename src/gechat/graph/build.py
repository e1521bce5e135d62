"""Building a document's part of the graph: extract -> probe -> resolve -> store, unit by unit.

Each unit (consecutive chunks) is written in one transaction together with the record that
its chunks are done and what they cost, so an interrupted or budget-stopped build loses at
most the unit in flight, and the next build starts at the first chunk not done.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gechat.graph.base import ChunkText, Extraction, Extractor, RelationFound, normalise
from gechat.graph.llm_extract import RelationProber
from gechat.graph.resolve import Resolver
from gechat.models.llm.cache import CachedLLM
from gechat.store.base import MentionWrite, RelationWrite, Store, UnitCost
from gechat.types import Sentence, StageUsage

STAGE = "graph"


@dataclass
class BuildReport:
    doc_id: int
    title: str
    extractor: str
    chunks_total: int = 0
    chunks_done: int = 0  # done before this build and during it
    chunks_failed: int = 0
    dropped: int = 0
    entity_mentions: int = 0
    relation_mentions: int = 0
    cost: UnitCost = field(default_factory=UnitCost)
    stopped: str | None = None  # why the build stopped before the last chunk (a budget)

    @property
    def complete(self) -> bool:
        return self.chunks_done >= self.chunks_total


Progress = Callable[[BuildReport], None]


@dataclass
class Budget:
    """At most ``max_llm_calls`` LLM calls (cache hits are free) across one build command."""

    max_llm_calls: int | None = None
    used: int = 0

    def allows(self, calls: int) -> bool:
        return self.max_llm_calls is None or self.used + calls <= self.max_llm_calls


class GraphBuilder:
    def __init__(self, store: Store, extractor: Extractor, resolver: Resolver, *,
                 llm: CachedLLM | None = None, prober: RelationProber | None = None,
                 unit_tokens: int = 480, gleaning: int = 0) -> None:
        self.store, self.extractor, self.resolver = store, extractor, resolver
        self.llm, self.prober = llm, prober
        self.unit_tokens, self.gleaning = unit_tokens, gleaning

    def calls_per_unit(self) -> int:
        if not self.extractor.uses_llm:
            return 0
        return 1 + self.gleaning + (1 if self.prober is not None else 0)

    def units(self, chunks: Sequence[ChunkText]) -> list[list[ChunkText]]:
        """Consecutive chunks up to ``unit_tokens`` words (x1.3 for tokens); spaCy takes 64 at once."""
        out: list[list[ChunkText]] = []
        size = 0.0
        for c in chunks:
            n = len(c.text.split()) * 1.3
            full = (size + n > self.unit_tokens) if self.extractor.uses_llm else len(out[-1]) >= 64 if out else False
            if not out or full:
                out.append([])
                size = 0.0
            out[-1].append(c)
            size += n
        return out

    def build(self, doc_id: int, budget: Budget | None = None, progress: Progress | None = None) -> BuildReport:
        budget = budget or Budget()
        doc = next(d for d in self.store.documents() if d.id == doc_id)
        chunks = self.store.chunks(self.store.chunk_ids(doc_id))
        sentences = self.store.sentences_of_chunks([c.id for c in chunks])
        by_chunk: dict[int, list[Sentence]] = {}
        for s in sentences:
            by_chunk.setdefault(s.chunk_id, []).append(s)
        done = self.store.graph.done_chunks(doc_id, self.extractor.name)
        todo = [ChunkText(c.id, doc_id, c.text, by_chunk.get(c.id, [])) for c in chunks if c.id not in done]
        report = BuildReport(doc_id, doc.title, self.extractor.name, len(chunks), len(done))
        if progress:
            progress(report)
        for unit in self.units(todo):
            if not budget.allows(self.calls_per_unit()):
                report.stopped = f"the LLM call budget ({budget.max_llm_calls}) is spent"
                break
            before = self._usage()
            t0 = time.perf_counter()
            found, probed = self._extract(unit)
            cost = self._cost(before, time.perf_counter() - t0)
            budget.used += cost.llm_calls
            self._write(unit, found, probed, cost, report)
            if progress:
                progress(report)
        return report

    def _extract(self, unit: list[ChunkText]) -> tuple[list[Extraction], list[tuple[int, RelationFound]]]:
        if self.llm is None:
            return self.extractor.extract(unit), []
        with self.llm.stage(STAGE):
            found = self.extractor.extract(unit)
            probed = self.prober.probe(unit, found) if self.prober is not None else []
        return found, list(probed)

    def _usage(self) -> StageUsage:
        if self.llm is None:
            return StageUsage()
        return self.llm.usage.stage(STAGE).model_copy()

    def _cost(self, before: StageUsage, seconds: float) -> UnitCost:
        after = self._usage()
        hits = after.cache_hits - before.cache_hits
        return UnitCost(llm_calls=after.calls - before.calls - hits, cache_hits=hits,
                        prompt_tokens=after.prompt_tokens - before.prompt_tokens,
                        completion_tokens=after.completion_tokens - before.completion_tokens, seconds=seconds)

    def _write(self, unit: list[ChunkText], found: list[Extraction], probed: list[tuple[int, RelationFound]],
               cost: UnitCost, report: BuildReport) -> None:
        share = len(unit)
        per_chunk = UnitCost(cost.llm_calls // share, cost.cache_hits // share, cost.prompt_tokens // share,
                             cost.completion_tokens // share, cost.seconds / share)
        first = UnitCost(cost.llm_calls - per_chunk.llm_calls * (share - 1),
                         cost.cache_hits - per_chunk.cache_hits * (share - 1),
                         cost.prompt_tokens - per_chunk.prompt_tokens * (share - 1),
                         cost.completion_tokens - per_chunk.completion_tokens * (share - 1), per_chunk.seconds)
        rels: list[tuple[int, RelationFound]] = [(x.chunk_id, r) for x in found for r in x.relations]
        rels += probed
        doc_id = unit[0].doc_id
        with self.store.transaction() as db:
            names = [(e.name, e.type) for x in found for e in x.entities]
            names += [(n, "other") for _, r in rels for n in (r.source, r.target)]
            ids = self.resolver.resolve(db, names)
            id_of = dict(zip((n for n, _ in names), ids, strict=True))
            mentions = [MentionWrite(id_of[e.name], doc_id, x.chunk_id, normalise(e.name), e.name, e.type,
                                     e.description, e.sentence_ids) for x in found for e in x.entities]
            relations = [RelationWrite(id_of[r.source], id_of[r.target], doc_id, cid, r.keywords, r.description,
                                       r.strength, r.kind, r.sentence_ids) for cid, r in rels]
            done = [(c.id, doc_id, self.extractor.name, x.failed, first if i == 0 else per_chunk)
                    for i, (c, x) in enumerate(zip(unit, found, strict=True))]
            self.store.graph.write(db, mentions, relations, done)
        report.chunks_done += len(unit)
        report.chunks_failed += sum(x.failed for x in found)
        report.dropped += sum(x.dropped for x in found)
        report.entity_mentions += len(mentions)
        report.relation_mentions += len(relations)
        c = report.cost
        c.llm_calls += cost.llm_calls
        c.cache_hits += cost.cache_hits
        c.prompt_tokens += cost.prompt_tokens
        c.completion_tokens += cost.completion_tokens
        c.seconds += cost.seconds

