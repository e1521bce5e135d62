"""The library's front door: ``Workspace(path).add(files)`` and ``.ask(question)``.

Wires the stages chosen by name in Settings: load -> index -> retrieve -> answer ->
evidence. Components are built lazily, so listing documents never loads an LLM.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Literal

import numpy as np

from gechat.answer import ANSWERERS, Answerer
from gechat.answer.base import PrefillingAnswerer, StreamingAnswerer
from gechat.answer.claims import make_claims
from gechat.answer.excerpts import focus
from gechat.correct import CORRECTORS, Corrector
from gechat.documents.reading import read_document
from gechat.documents.table_titles import embedded_text
from gechat.errors import DuplicateDocumentError, GechatError, StoreError
from gechat.evidence import SELECTORS, EvidencePool, EvidenceSelector
from gechat.graph import EXTRACTORS
from gechat.graph.build import Budget, BuildReport, GraphBuilder
from gechat.graph.build import Progress as GraphProgress
from gechat.models import EMBEDDERS, ENTAILERS, build_llm
from gechat.models.embed_base import Embedder
from gechat.models.entail.base import EntailmentScorer
from gechat.models.llm.cache import CachedLLM
from gechat.retrieve import RETRIEVERS, Retriever, load_synonyms
from gechat.retrieve.base import ExplainingRetriever
from gechat.retrieve.figures import figure_rows, table_rest
from gechat.retrieve.footnotes import with_footnotes
from gechat.settings import Settings
from gechat.store.base import NewDocument
from gechat.store.faults import kill_point
from gechat.store.registry import open_store
from gechat.types import Answer, ChunkHit, CoEReport, Document, Usage

Progress = Callable[[str, str], None]  # (file, step)
EMBED_SLICE = 512  # texts embedded between two progress updates


@dataclass(frozen=True)
class Stage:
    name: str  # retrieve, answer, evidence: what asking is doing now


@dataclass(frozen=True)
class Token:
    text: str  # a piece of the answer's raw text, as the LLM generates it


@dataclass(frozen=True)
class Final:
    answer: Answer


AskEvent = Stage | Token | Final


@dataclass
class AddResult:
    path: str
    status: Literal["added", "duplicate", "failed"]
    document: Document | None = None
    error: GechatError | None = None
    seconds: float = 0.0
    steps: dict[str, float] = field(default_factory=dict)
    graph: BuildReport | None = None
    graph_error: GechatError | None = None  # the document is added; its graph is not (yet) complete


class Workspace:
    def __init__(self, path: str | Path = ".gechat", settings: Settings | None = None, *,
                 llm: CachedLLM | None = None, embedder: Embedder | None = None,
                 scorer: EntailmentScorer | None = None) -> None:
        self.path = Path(path)
        self.settings = settings or Settings.load()
        self.store = open_store(self.settings, self.path)
        for name, given in (("llm", llm), ("embedder", embedder), ("scorer", scorer)):
            if given is not None:  # a component passed in stands for the one built on first use
                self.__dict__[name] = given

    # --- components, built on first use ---
    @cached_property
    def embedder(self) -> Embedder:
        return EMBEDDERS.create(self.settings.embedder, self.settings)

    @cached_property
    def llm(self) -> CachedLLM:
        return build_llm(self.settings, Usage())

    @cached_property
    def scorer(self) -> EntailmentScorer:
        return ENTAILERS.create(self.settings.entailment, self.settings)

    @cached_property
    def retriever(self) -> Retriever:
        # the LLM loads its weights on first use; only scopecoe uses it and the grounding model here
        return RETRIEVERS.create(self.settings.retriever, self.settings, store=self.store,
                                 embedder=self.embedder, llm=self.llm, scorer=self.scorer)

    @cached_property
    def answerer(self) -> Answerer:
        return ANSWERERS.create("cot", self.settings, llm=self.llm)

    @cached_property
    def selector(self) -> EvidenceSelector:
        return SELECTORS.create(self.settings.evidence, self.settings, scorer=self.scorer,
                                embedder=self.embedder, llm=self.llm)

    def graph_builder(self, extractor: str | None = None) -> GraphBuilder:
        from gechat.graph.llm_extract import RelationProber
        from gechat.graph.resolve import Resolver

        s = self.settings
        ex = EXTRACTORS.create(extractor or s.graph, s, llm=_Lazy(self))
        llm = self.llm if ex.uses_llm else None
        prober = RelationProber(self.llm, s.graph_probe_pairs) if ex.uses_llm and s.graph_probe else None
        return GraphBuilder(self.store, ex, Resolver(self.store.graph, self.embedder, s.graph_alias_threshold),
                            llm=llm, prober=prober, unit_tokens=s.graph_unit_tokens, gleaning=s.graph_gleaning)

    def build_graph(self, refs: Iterable[str | int] | None = None, *, extractor: str | None = None,
                    budget: Budget | None = None, progress: GraphProgress | None = None) -> list[BuildReport]:
        """Extends the graph with the chunks not in it yet (all documents, or those named);
        stops cleanly when ``budget`` is spent; the next call resumes there."""
        docs = self.documents() if refs is None else [self.find(r) for r in refs]
        builder = self.graph_builder(extractor)
        budget = budget or Budget()
        reports = []
        for d in docs:
            reports.append(builder.build(d.id, budget, progress))
            if reports[-1].stopped:
                break
        return reports

    # --- documents ---
    def add(self, paths: Iterable[str | Path], progress: Progress | None = None, *, budget: Budget | None = None,
            graph_progress: GraphProgress | None = None, again: bool = False) -> list[AddResult]:
        """Adds each file in its own transaction; a bad file is reported, the rest go on.
        The graph is then built for it (settings.graph); a graph failure or a spent budget
        leaves the document added and its graph to `gechat graph build`. With ``again``, a file
        already added is read anew and replaces the stored reading (once the new one is ready)."""
        results = []
        budget = budget or Budget()
        for p in paths:
            t0 = time.perf_counter()
            try:
                results.append(self._add_one(Path(p), progress, again))
            except GechatError as e:
                results.append(AddResult(path=str(p), status="failed", error=e))
            res = results[-1]
            if res.status == "added" and res.document is not None and self.settings.graph != "none":
                t = time.perf_counter()
                if progress is not None:
                    progress(str(p), "graph")
                try:
                    res.graph = self.graph_builder().build(res.document.id, budget, graph_progress)
                except GechatError as e:
                    res.graph_error = e
                res.steps["graph"] = time.perf_counter() - t
            res.seconds = time.perf_counter() - t0
        return results

    def _add_one(self, path: Path, progress: Progress | None, again: bool = False) -> AddResult:
        def step(name: str) -> None:
            kill_point(name)
            if progress is not None:
                progress(str(path), name)

        step("reading")
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise StoreError(f"{path}: no such file", hint="check the path") from None
        except OSError as e:
            raise StoreError(f"{path}: cannot read ({e.strerror})") from None
        sha = hashlib.sha256(data).hexdigest()
        existing = self.store.find_sha256(sha)
        if existing is not None and not again:
            return AddResult(path=str(path), status="duplicate", document=existing)
        timings: dict[str, float] = {}
        t = time.perf_counter()
        step("parsing")
        parsed, sentences, chunks = read_document(path, len(data), self.settings)
        timings["parse"] = time.perf_counter() - t
        t = time.perf_counter()
        self._check_embedder()  # before embedding: the store checks again as it commits
        texts = [s.text for s in sentences] + [embedded_text(c) for c in chunks]
        parts = []
        for i in range(0, len(texts), EMBED_SLICE):  # slices, so the progress bar moves on a long filing
            step(f"{parsed.pages[-1].number} pages read; embedding {i:,}/{len(texts):,} sentences and chunks")
            parts.append(self.embedder.embed(texts[i:i + EMBED_SLICE]))
        vecs = np.concatenate(parts) if parts else self.embedder.embed([])
        s_vecs, c_vecs = vecs[:len(sentences)], vecs[len(sentences):]
        timings["embed"] = time.perf_counter() - t
        t = time.perf_counter()
        step("storing")
        if existing is not None:  # read again: the reading just made replaces the stored one
            self.store.remove(existing.id)
        try:
            doc = self.store.insert(NewDocument(str(path.resolve()), sha, parsed, sentences, chunks, s_vecs, c_vecs,
                                                self._embedder_id()))
        except DuplicateDocumentError as e:  # another writer on a shared store was first
            stored = self.store.find_sha256(sha)
            if stored is None:
                raise StoreError(str(e), hint="another writer is adding the same file; add it again") from None
            return AddResult(path=str(path), status="duplicate", document=stored)
        timings["store"] = time.perf_counter() - t
        return AddResult(path=str(path), status="added", document=doc, steps=timings)

    def _embedder_id(self) -> str:
        return f"{self.embedder.name}/{self.embedder.dim}"

    def _check_embedder(self) -> None:
        self.store.check_embedder(self._embedder_id())

    def documents(self) -> list[Document]:
        return self.store.documents()

    def find(self, ref: str | int) -> Document:
        """A document by id, title, file name or path."""
        docs = self.store.documents()
        for d in docs:
            if str(d.id) == str(ref) or ref in (d.title, d.path, Path(d.path).name):
                return d
        raise StoreError(f"no document {ref!r} in this workspace", hint="`gechat docs` lists them")

    def remove(self, ref: str | int) -> Document:
        doc = self.find(ref)
        self.store.remove(doc.id)
        return doc

    # --- questions ---
    def check_question(self, question: str) -> str:
        """The question, stripped; what asking refuses is refused here, before any work."""
        question = question.strip()
        if not question:
            raise GechatError("the question is empty", hint='ask something, e.g. gechat ask "What is X?"')
        if not self.store.documents():
            raise StoreError("this workspace has no documents", hint="add some with `gechat add FILE`")
        self._check_embedder()
        return question

    def ask(self, question: str, *, correct: bool | None = None) -> Answer:
        """The answer with its claims grounded; ``correct``: also correct it (with
        ``Settings.correct``, ``hc`` when that is ``none``); None: as the settings say."""
        for event in self.ask_events(question, correct=correct):
            if isinstance(event, Final):
                return event.answer
        raise AssertionError("ask_events ended without an answer")

    def prepare(self, question: str, stop: Callable[[], bool] | None = None) -> bool:
        """Retrieves for ``question`` and has the model read the answer's prompt now, so that
        asking it (or a question that retrieves the same excerpts) starts writing at once.
        For a question still being typed. False when the answerer or model cannot prefill,
        when the answer is already cached, or when ``stop()`` turned true before the whole prompt
        was read (what was read stays)."""
        question = self.check_question(question)
        answerer = self.answerer
        if not isinstance(answerer, PrefillingAnswerer):
            return False
        hits, _ = self.retrieve(question)
        return answerer.prefill(question, self.excerpts(question, hits), stop)

    def retrieve(self, question: str) -> tuple[list[ChunkHit], CoEReport | None]:
        """The chunks the answer reads (the footnotes their marks call in), and what ScopeCoE's
        choice covered when the retriever explains it; ``prepare`` and ``ask`` read the same."""
        k, coe = self.settings.top_k_chunks, None
        if isinstance(self.retriever, ExplainingRetriever):
            hits, coe = self.retriever.choose(question, k)
        else:  # searched by the other names of its terms too (retrieve/synonyms.py)
            hits = self.retriever.retrieve(load_synonyms(self.settings.query_synonyms).expand(question), k)
        return with_footnotes(self.store, hits), coe

    def corrector(self, correct: bool | None = None) -> Corrector | None:
        """The corrector ``Settings.correct`` names; ``correct`` True asks for one (``hc``
        when the settings say ``none``), False for none."""
        name = self.settings.correct
        if correct is False:
            name = "none"
        elif correct and name == "none":
            name = "hc"
        return CORRECTORS.create(name, self.settings, embedder=self.embedder, scorer=self.scorer, llm=self.llm)

    def ask_events(self, question: str, *, stream: bool = False, correct: bool | None = None) -> Iterator[AskEvent]:
        """The stages as they happen: Stage, the answer's text as Token deltas (one delta
        unless ``stream``; streamed usage counts deltas, not exact tokens), then Final."""
        question = self.check_question(question)
        usage = Usage()
        self.llm.usage = usage
        yield Stage("retrieve")
        t = time.perf_counter()
        hits, coe = self.retrieve(question)
        usage.stage("retrieve").seconds += time.perf_counter() - t

        yield Stage("answer")
        t = time.perf_counter()
        answerer = self.answerer
        with self.llm.stage("answer"):
            excerpts = self.excerpts(question, hits)
            if stream and isinstance(answerer, StreamingAnswerer):
                pieces = []
                for delta in answerer.stream(question, excerpts):
                    pieces.append(delta)
                    yield Token(delta)
                draft = answerer.parse("".join(pieces))
            else:
                draft = answerer.answer(question, excerpts)
                yield Token(draft.raw or draft.text)
        usage.stage("answer").seconds = time.perf_counter() - t

        yield Stage("evidence")
        t = time.perf_counter()
        claims = make_claims(draft, from_thoughts=self.settings.claims_from_thoughts, question=question)
        # GE-Chat: the steps search again (graph strategies); so do a claim's figures (retrieve/figures.py)
        hits = self.retriever.for_evidence(draft.thoughts, hits, self.settings.top_k_chunks)
        pool = self.evidence_pool(hits, [c.text for c in claims])
        before = _scorer_tokens(self.scorer) if claims else 0
        with self.llm.stage("evidence"):
            grounded = self.selector.select(claims, pool) if claims else []
        ev = usage.stage("evidence")
        ev.seconds = time.perf_counter() - t
        if claims:
            ev.prompt_tokens += _scorer_tokens(self.scorer) - before
        answer = Answer(question=question, text=draft.text, thoughts=draft.thoughts, claims=grounded,
                        contexts=hits, raw=draft.raw, usage=usage, coe=coe)
        corrector = self.corrector(correct)
        if corrector is not None and draft.text.strip():
            yield Stage("correct")
            t = time.perf_counter()
            answer.corrected = corrector.correct(answer, pool)
            usage.stage("correct").seconds = time.perf_counter() - t
        yield Final(answer)

    def excerpts(self, question: str, hits: list[ChunkHit]) -> list[ChunkHit]:
        """What the LLM reads of ``hits``: whole chunks, or with ``answer_excerpt_tokens`` set,
        their sentences nearest the question within that budget (gechat.answer.excerpts)."""
        budget = self.settings.answer_excerpt_tokens
        if budget is None:
            return hits
        sentences = self.store.sentences_of_chunks([h.chunk.id for h in hits])
        if not sentences:
            return hits
        vectors = self.store.vectors("sentence", [s.id for s in sentences])
        return focus(hits, sentences, vectors, self.embedder.embed([question])[0], budget)

    def evidence_pool(self, hits: list[ChunkHit], claims: list[str] | None = None) -> EvidencePool:
        """The retrieved chunks' sentences (titles from the hits); for ``lookup``, the rows of ``claims``' figures."""
        sentences = self.store.sentences_of_chunks([h.chunk.id for h in hits])
        cut, rest = table_rest(self.store, hits, sentences)
        hits, sentences = hits + cut, sentences + rest
        looked = claims if claims and "lookup" in self.settings.evidence_steps else []
        rows = figure_rows(self.store, self.embedder, looked, hits, self.settings.figure_chunks)
        chunks, titles = {h.chunk.id: h.chunk for h in hits}, {h.chunk.doc_id: h.doc_title for h in hits}
        vectors = self.store.vectors("sentence", [s.id for s in sentences]) if sentences else None
        return EvidencePool(sentences=sentences, chunks=chunks, titles=titles, rows=rows,
                            vectors=None if vectors is None else np.asarray(vectors, np.float32))

    def whole_pool(self) -> tuple[list[ChunkHit], EvidencePool]:
        """Every chunk of every document as candidates (small workspaces: evaluation, oracle mode)."""
        hits = [ChunkHit(chunk=c, score=0.0, doc_title=d.title)
                for d in self.store.documents() for c in self.store.chunks(self.store.chunk_ids(d.id))]
        return hits, self.evidence_pool(hits)

    def close(self) -> None:
        self.store.close()


class _Lazy:
    """The workspace's LLM, built only when an extractor first calls it."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws

    def __getattr__(self, name: str) -> object:
        return getattr(self.ws.llm, name)


def _scorer_tokens(scorer: EntailmentScorer) -> int:
    return int(getattr(scorer, "tokens_evaluated", 0))
