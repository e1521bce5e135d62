"""The data model that flows between pipeline stages.

Offsets: ``start``/``end`` are character offsets into the document's extracted text, so
``doc_text[start:end] == sentence.text`` always holds. Pages are numbered from 1.
"""

from __future__ import annotations

from typing import Annotated, Literal, NamedTuple

from pydantic import BaseModel, Field, SkipValidation

# "no fact": a reasoning step that states nothing to check (where something is written, or
# the question again), or an answer that only points into the documents; never counted as
# supported
Verdict = Literal["supported", "unsupported", "contradicted", "no fact"]


class Box(BaseModel):
    """A rectangle on a PDF page, in PDF points, origin top-left (PyMuPDF convention)."""

    page: int
    x0: float
    y0: float
    x1: float
    y1: float


class Span(BaseModel):
    """A stretch of the document text that sentence splitting must not cross."""

    start: int
    end: int
    page: int = 1


class WordBox(NamedTuple):
    """Where one word of the extracted text sits on its page (PDFs only).

    A plain tuple, not a model: a 200-page filing has ~100,000 words, and validating a
    model per word was a third of the time taken to read a PDF. Only loaders build these.
    """

    start: int
    end: int
    page: int
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def box(self) -> Box:
        return Box(page=self.page, x0=self.x0, y0=self.y0, x1=self.x1, y1=self.y1)


class PageInfo(BaseModel):
    number: int
    start: int
    end: int
    width: float = 0.0
    height: float = 0.0


class Heading(BaseModel):
    """A section heading (level 1-6) at ``start:end`` of the text, or the document's own
    title (level 0, from its metadata: not in the text, ``start == end == 0``)."""

    start: int
    end: int
    level: int
    text: str


class ParsedDocument(BaseModel):
    """What a loader returns: the text and the layout needed to locate sentences."""

    text: str
    kind: str
    title: str  # the file's stem: how the reader recognises the document
    pages: list[PageInfo]
    blocks: list[Span]
    words: Annotated[list[WordBox], SkipValidation] = Field(default_factory=list)
    headings: list[Heading] = Field(default_factory=list)  # in text order, the title first


class SentenceSpan(BaseModel):
    """A sentence before it is stored: offsets, page and PDF boxes."""

    start: int
    end: int
    text: str
    page: int = 1
    boxes: list[Box] = Field(default_factory=list)
    context: str = ""  # the title and heading path it sits under ("Annual report > Revenue")
    heading: bool = False  # the sentence is a heading itself


class ChunkSpan(BaseModel):
    """Whole sentences grouped into a chunk; ``sentences`` index into the sentence list."""

    sentences: list[int]
    start: int
    end: int
    text: str
    n_tokens: int
    lead: str = ""  # the table title and caption its first row sits under: embedded, not stored


class Document(BaseModel):
    id: int
    path: str
    sha256: str
    kind: str
    title: str
    n_pages: int
    n_sentences: int = 0
    n_chunks: int = 0
    added_at: str = ""


class Sentence(BaseModel):
    id: int
    doc_id: int
    chunk_id: int
    ord: int
    page: int
    start: int
    end: int
    text: str
    boxes: list[Box] = Field(default_factory=list)
    context: str = ""  # the title and heading path it sits under
    heading: bool = False  # the sentence is a heading itself


class Chunk(BaseModel):
    id: int
    doc_id: int
    ord: int
    page: int = 1  # the page of its first sentence
    start: int
    end: int
    text: str
    sentence_ids: list[int] = Field(default_factory=list)


class ChunkHit(BaseModel):
    chunk: Chunk
    score: float
    doc_title: str = ""


class Evidence(BaseModel):
    """Verbatim source text for a claim: one sentence or a pair of adjacent sentences."""

    sentences: list[Sentence]
    doc_id: int
    doc_title: str
    page: int
    start: int
    end: int
    text: str
    p_entail: float
    p_contradict: float
    score: float
    selector: str
    context: str = ""  # the headings the model read it under ("Item 7 > Revenue"), if any

    @property
    def locator(self) -> str:
        return f"{self.doc_title}:{self.page}:{self.start}-{self.end}"


class Claim(BaseModel):
    text: str
    source: Literal["answer", "thought"]
    verdict: Verdict
    evidence: list[Evidence] = Field(default_factory=list)
    # the claim's names and numbers that the evidence shown does not hold (a reason it is not
    # supported); empty when supported, or when no such check was made
    missing: list[str] = Field(default_factory=list)
    # how a verdict not given by the entailment model was reached ("A: 1986; B: 1944; the
    # later is A"), shown beside the evidence
    note: str = ""
    # the facts this claim states, each checked on its own (Settings.claim_atoms); empty when
    # it states one
    atoms: list[Claim] = Field(default_factory=list)


class StageUsage(BaseModel):
    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


class Usage(BaseModel):
    """Cost of one question: LLM counters and wall seconds, per stage."""

    stages: dict[str, StageUsage] = Field(default_factory=dict)

    def stage(self, name: str) -> StageUsage:
        return self.stages.setdefault(name, StageUsage())

    @property
    def total(self) -> StageUsage:
        out = StageUsage()
        for s in self.stages.values():
            out.calls += s.calls
            out.cache_hits += s.cache_hits
            out.prompt_tokens += s.prompt_tokens
            out.completion_tokens += s.completion_tokens
            out.seconds += s.seconds
        return out


class Edit(BaseModel):
    """One change the correction made, at ``start:end`` of the answer's text."""

    kind: Literal["delete", "replace"]
    start: int
    end: int
    old: str
    new: str = ""  # the replacement ("" for a deletion)
    triplet: list[str] = Field(default_factory=list)  # the answer's (subject, relation, object) it checked
    reason: str
    evidence: Evidence | None = None  # the source sentence that gave the new value


class Correction(BaseModel):
    """The answer after hallucination correction (Trustful LLMs' HC), with every edit."""

    text: str
    edits: list[Edit] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)  # what the answer named
    eliminated: list[str] = Field(default_factory=list)  # of those, what the correction took out

    @property
    def eliminated_share(self) -> float:
        return len(self.eliminated) / len(self.entities) if self.entities else 0.0


class CoEFeatures(BaseModel):
    """What a question asks, as Chain of Evidence reads it: its intent, keywords and relations."""

    intent: str
    keywords: list[str] = Field(default_factory=list)
    relations: list[str] = Field(default_factory=list)


class SnippetCoverage(BaseModel):
    """The features of the question one chosen snippet holds (ScopeCoE's judgments)."""

    chunk_id: int
    doc_title: str = ""
    page: int = 1
    intent: bool = False
    relations: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    filled: bool = False  # read to fill the set after the covering snippets (scopecoe_fill)


class CoEReport(BaseModel):
    """Why the LLM read what it read (``retriever = "scopecoe"``): the question's features,
    each chosen snippet with the features it covers, and what no candidate covered."""

    features: CoEFeatures
    snippets: list[SnippetCoverage]
    uncovered: list[str] = Field(default_factory=list)
    candidates: int = 0  # snippets judged


class Answer(BaseModel):
    question: str
    text: str
    thoughts: list[str]
    claims: list[Claim]
    contexts: list[ChunkHit] = Field(default_factory=list)
    raw: str = ""
    corrected: Correction | None = None  # set when asked to correct (``Settings.correct``)
    coe: CoEReport | None = None  # set by a retriever that explains its choice (ScopeCoE)
    usage: Usage = Field(default_factory=Usage)
