"""The evidence stage: each claim gets verbatim source sentences and a verdict."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from gechat.documents.sentences import split_spans
from gechat.lexical import as_answer_to as as_answer_to
from gechat.lexical import asked as asked
from gechat.lexical import beyond
from gechat.lexical import fragment_of as fragment_of
from gechat.models.embed_base import Embedder
from gechat.types import Chunk, Claim, Evidence, Sentence

# A section heading: "1 Introduction", "3.2 Related Work" (a number, then up to six words)
# or one capitalised word alone ("Abstract"), with no end punctuation.
_HEADING = re.compile(r"(?:\d{1,2}(?:\.\d{1,2})*\.?\s+)?[A-Z][A-Za-z-]*(?:\s+[A-Za-z][A-Za-z-]*){0,5}")
# a word of a title-case line: capitalised, a number, one of the small words titles keep
# lower-case, or the mark of a list item ("(b) Affected ADs", a rule's paragraph label)
_TITLE_WORD = re.compile(r"[A-Z][\w'’&.-]*|\d[\d,.]*|of|and|the|to|in|for|on|at|by|or|an?|&|[-–—]|\(?[a-z\d]{1,4}\)")


def is_heading(text: str) -> bool:
    """A heading (or a label, or a name standing alone) states nothing a claim could rest on,
    yet the cross-encoder gives it a weak P_entail for claims about the document itself ("the
    introduction says ..."), enough to pass the threshold; so headings are never evidence
    candidates."""
    # a label ("APPEARANCES:", "NOTES:", a transcript caption's "Petitioner :") is one too
    t = text.strip().removesuffix(":").rstrip()
    if _HEADING.fullmatch(t) and (t[0].isdigit() or len(t.split()) == 1):
        return True
    # a line in capitals or title case, short and unpunctuated, is a heading, a label or a name
    # standing alone, and states nothing: "NOTES TO CONSOLIDATED FINANCIAL STATEMENTS" and
    # "First Quarter 2018 Guidance" passed as evidence, and a transcript's page footer
    # "Alderson Reporting Company", beside "... on behalf of the Respondent.", "supported"
    # that company as the respondent's counsel
    parts = t.split()
    return 1 < len(parts) <= 8 and t[-1] not in ".!?" and "|" not in t \
        and any(w[0].isupper() for w in parts) and all(_TITLE_WORD.fullmatch(w) for w in parts)


_WORD = re.compile(r"[^\W\d_]{2,}")
_CLOSING = " \t\n\"')\u201d\u2019"  # what may close a sentence after its mark


def says_nothing(text: str) -> bool:
    """A heading, a question, or a line without a word: a page number, or a figure cut from a
    table the loader did not find ("$0 ......", "$6,205."). Which quantity such a figure is,
    only its place on the page said; beside any sentence that names a cost it would "support"
    that cost's claim, and a reader could not check it. A question asks and states nothing: a
    paper's "RQ2: Can we reduce annotator workload by partially annotating a long summary?"
    gave "partial annotation reduces workload" its words. Never an evidence candidate, but a
    question for a claim that reports one (``reports_asking``)."""
    return is_heading(text) or not _WORD.search(text) or asks(text)


def asks(text: str) -> bool:
    """A question: words, and a question mark at the end."""
    return _WORD.search(text) is not None and text.rstrip(_CLOSING).endswith("?")


# a claim about what was asked ("counsel asked whether the contract was signed") rests on the
# question itself: a transcript's, a deposition's, an interview's
_REPORTS_ASKING = re.compile(r"(?i)\b(?:ask(?:s|ed|ing)?|questioned|wonder(?:s|ed)?|whether|[ei]nquir\w*)\b")


def reports_asking(claim: str) -> bool:
    return _REPORTS_ASKING.search(claim) is not None




class ClaimInput(BaseModel):
    text: str
    source: Literal["answer", "thought"]
    given: str = ""  # the question: words a claim repeats from it need no evidence

    def answer(self) -> str:
        """What the claim says beyond the question it quotes (``beyond``)."""
        return beyond(self.text, self.given)


class EvidencePool(BaseModel):
    """The candidate sentences (those of the retrieved chunks) and what locates them."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    sentences: list[Sentence]
    chunks: dict[int, Chunk]
    titles: dict[int, str]
    vectors: npt.NDArray[np.float32] | None = None  # one row per sentence, if known
    # table rows of the chunks that state a claim's figures (``retrieve.figures``), beside the
    # candidates: read only by the ``lookup`` step, which needs no model to read a row
    rows: list[Sentence] = Field(default_factory=list)

    @classmethod
    def from_texts(cls, texts: list[str]) -> EvidencePool:
        """A pool of plain passages, one document and one chunk each, cut into sentences as
        the loaders cut them: to ground claims in text that is not in a workspace (a
        passage a benchmark gives, or a caller's own)."""
        sents: list[Sentence] = []
        chunks: dict[int, Chunk] = {}
        for d, text in enumerate(texts, 1):
            ids = []
            for k, (a, b) in enumerate(split_spans(text, 0, len(text))):
                sents.append(Sentence(id=len(sents) + 1, doc_id=d, chunk_id=d, ord=k, page=1, start=a, end=b,
                                      text=text[a:b]))
                ids.append(len(sents))
            chunks[d] = Chunk(id=d, doc_id=d, ord=0, start=0, end=len(text), text=text, sentence_ids=ids)
        return cls(sentences=sents, chunks=chunks, titles={d: f"passage {d}" for d in chunks})

    def sentence_vectors(self, embedder: Embedder) -> npt.NDArray[np.float32]:
        """One row per sentence: the stored vectors when the pool has them, else embedded now."""
        vecs = self.vectors
        if vecs is None or len(vecs) != len(self.sentences):
            vecs = embedder.embed([s.text for s in self.sentences])
        return vecs

    def nearest(self, queries: npt.NDArray[np.float32], embedder: Embedder, k: int,
                skip: Callable[[Sentence], bool] | None = None) -> list[list[Sentence]]:
        """For each query vector, the ``k`` sentences closest by cosine (none that ``skip``
        rejects), in document order."""
        sents = self.sentences
        if not sents or not len(queries):
            return [[] for _ in queries]
        sims = queries @ self.sentence_vectors(embedder).T
        allowed = np.array([skip is None or not skip(s) for s in sents])
        k = min(k, int(allowed.sum()))
        sims = np.where(allowed, sims, -np.inf)
        return [[sents[i] for i in np.sort(np.argsort(-row)[:k])] for row in sims]

    def span_text(self, first: Sentence, last: Sentence) -> str:
        """Verbatim text from ``first`` to ``last`` (same chunk), gaps included."""
        chunk = self.chunks[first.chunk_id]
        return chunk.text[first.start - chunk.start : last.end - chunk.start]

    def evidence(self, sents: list[Sentence], p: npt.NDArray[np.float32], score: float,
                 selector: str, context: str = "") -> Evidence:
        first, last = sents[0], sents[-1]
        return Evidence(
            sentences=sents, doc_id=first.doc_id, doc_title=self.titles.get(first.doc_id, ""),
            page=first.page, start=first.start, end=last.end,
            text=first.text if len(sents) == 1 else self.span_text(first, last),
            p_entail=float(p[2]), p_contradict=float(p[0]), score=float(score), selector=selector,
            context=context,
        )


class EvidenceSelector(Protocol):
    name: str

    def select(self, claims: list[ClaimInput], pool: EvidencePool) -> list[Claim]: ...
