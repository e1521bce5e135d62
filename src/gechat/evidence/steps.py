"""The evidence stage as a chain of steps: candidates -> scoring -> sentence sets -> verdict.

Each step is a small component with one method, ``run(states, ctx)``: it reads and fills the
``ClaimState`` of every claim of an answer (all claims at once, so a step can batch its model
calls). The steps and their order come from ``Settings.evidence_steps`` through ``STEPS``;
what several steps need (the scorer, GE-Chat's objective, the coverage check, how a set of
sentences is read as one passage) lives in ``EvidenceContext``.

A claim whose verdict is set is finished: later steps leave it alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

from gechat.documents.headings import SEPARATOR
from gechat.documents.tables import row_label
from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.evidence.counts import miscounted
from gechat.evidence.dates import dating, unnamed_years
from gechat.evidence.framing import amount_only, changed_only, foretold
from gechat.evidence.lengths import LenNorm
from gechat.evidence.offices import another_office
from gechat.evidence.periods import another_period
from gechat.evidence.rows import figureless, lends_words, off_row, unbound, unlabelled
from gechat.evidence.values import agreeing_keys, located, mistyped, unshown
from gechat.lexical import Coverage, content_keys, missing_words, number_keys, uncovered
from gechat.models.embed_base import Embedder
from gechat.models.entail.base import ENTAILMENT, EntailmentScorer
from gechat.registry import Registry
from gechat.settings import Headings
from gechat.types import Evidence, Sentence, Verdict

Probs = npt.NDArray[np.float32]  # one row per premise: P(contradiction), P(neutral), P(entailment)


@dataclass
class ClaimState:
    """What the steps know about one claim so far."""

    claim: ClaimInput
    vector: npt.NDArray[np.float32] | None = None  # the claim's embedding, when there is an embedder
    candidates: list[Sentence] = field(default_factory=list)
    probs: Probs | None = None  # per candidate
    f: npt.NDArray[np.float64] | None = None  # GE-Chat's objective per candidate
    evidence: list[Evidence] = field(default_factory=list)  # the best reading so far
    passes: bool = False  # the evidence entails the claim and holds its names and numbers
    verdict: Verdict | None = None  # set: the claim is finished
    missing: list[str] = field(default_factory=list)
    note: str = ""  # what a step wants the reader to know about the verdict


@dataclass
class EvidenceContext:
    """What the steps share for one answer: the pool, the models and the objective."""

    pool: EvidencePool
    scorer: EntailmentScorer
    embedder: Embedder | None
    name: str  # the selector's name, recorded on every Evidence
    alpha: float
    beta: float
    len_norm: LenNorm
    len_ref: int
    supported: float  # P_entail at or above which evidence supports a claim
    contradicted: float  # P_contradiction at or above which a sentence contradicts it
    coverage: Coverage
    headings: Headings = "off"  # what is read before a sentence (``in_context``)

    def objective(self, p_entail: npt.NDArray[np.float32], texts: list[str]) -> npt.NDArray[np.float64]:
        """GE-Chat's F(s) = alpha * P_entail(s => claim) - beta * len_norm(s)."""
        pen = np.asarray(self.len_norm(texts, self.len_ref), dtype=np.float64)
        return self.alpha * p_entail.astype(np.float64) - self.beta * pen

    def score(self, premises: list[str], claim: str) -> npt.NDArray[np.float32]:
        """P(entail, neutral, contradict) of each premise against the claim, the claim's values
        written as that premise writes them (``in_its_terms``); one batch per wording."""
        worded: dict[str, list[int]] = {}
        for i, p in enumerate(premises):
            worded.setdefault(in_its_terms(claim, p), []).append(i)
        probs = np.zeros((len(premises), 3), dtype=np.float32)
        for hypothesis, rows in worded.items():
            probs[rows] = np.asarray(self.scorer.score([premises[i] for i in rows], hypothesis), dtype=np.float32)
        return probs

    def covers(self, claim: ClaimInput, text: str, context: str = "") -> bool:
        """Whether ``text`` holds the claim's names and numbers (``holds``, per ``coverage``)."""
        return holds(claim, text, coverage=self.coverage, context=context, names=context if leans_back(text) else "")

    def covers_set(self, claim: ClaimInput, sents: Sequence[Sentence], text: str) -> bool:
        """Whether the set ``sents`` (read as ``text``) holds the claim's names and numbers,
        and each table row of it that states the claim's value names the claim's quantity and
        period itself: a sentence that names the quantity ("3M's capital spending ...") does
        not make a row about another one ("Net cash used in financing activities | 2018:
        (6,701)") its evidence, nor does a row beside it make a row of another period one; and
        no row of it that states none of the claim's values only lends it words (``lends_words``)."""
        named = " ".join(s.context for s in sents if leans_back(s.text))
        if not holds(claim, text, coverage=self.coverage, context=headings_of(sents), names=named):
            return False
        return not (len(sents) > 1 and (
            any(self._unbound(claim, s.text, s.context) or self._another_period(claim, s.text)
                for s in sents if row_label(s.text) is not None)
            or any(lends_words(claim.text, s.text, answer=claim.answer(), given=claim.given) for s in sents)))

    def _another_period(self, claim: ClaimInput, text: str) -> frozenset[str]:
        return another_period(claim.text, text, answer=claim.answer(), given=claim.given)

    def _unbound(self, claim: ClaimInput, text: str, context: str) -> list[str]:
        return unbound(claim.text, text, answer=claim.answer(), given=claim.given, context=context)

    def missing(self, claim: ClaimInput, text: str, context: str = "") -> list[str]:
        """The claim's names and numbers that ``text`` lacks, as the claim writes them (its
        years too, where ``text`` states its value for other years; an amount it states
        only as a count of things; the words of the quantity a table row does not name)."""
        agreed = agreeing_keys(claim.text, text)
        lacking = [w for w in missing_words(claim.text, text, given=claim.given, mode=self.coverage)
                   if not (number_keys(w) and number_keys(w) <= agreed)]
        if self.coverage != "off":
            lacking += [v for v in mistyped(claim.answer(), text, claim.given) + self._unbound(claim, text, context)
                        if v not in lacking]
            lacking += sorted(self._another_period(claim, text) - set(lacking))
            lacking += sorted(unnamed_years(claim.answer(), f"{dating(context)} {text}") - set(lacking))
            lacking += [v for v in unshown(claim.answer(), claim.given, text) if v not in lacking]
            for found, why in ((unlabelled, "one of several unlabelled figures"),
                               (foretold, "only as expected, not as happened"),
                               (changed_only, "only as a change, not as the amount"),
                               (amount_only, "only as an amount, not as the change"),
                               (another_office, "the text names another office"),
                               (miscounted, "the text counts something else with it"),
                               (off_row, "not a figure of this row")):
                for v in found(claim.answer(), claim.given, text):  # said once, with why
                    lacking = [w for w in lacking if w != v] + [f"{v} ({why})"]
        return lacking

    def passage(self, sents: list[Sentence], claim: ClaimInput | None = None, *, rows: bool = True) -> str:
        """A set of sentences (in document order) as the model reads it: each run of
        consecutive sentences verbatim with what lies between them, runs joined by a space;
        with ``claim``, each run after the headings it needs (``in_context``; ``rows`` False:
        a table row as it is, for the checks)."""
        out = []
        for run in runs(sents):
            text = self.pool.span_text(run[0], run[-1]) if len(run) > 1 else run[0].text
            out.append(in_context(claim, text, run[0].context, self.headings, rows=rows)[0]
                       if claim is not None else text)
        return " ".join(out)

    def one_passage(self, claim: ClaimInput, sents: list[Sentence]) -> list[Evidence]:
        """``sents`` (duplicates dropped, in document order) as evidence scored together: one
        span per run of consecutive sentences, each with the passage's joint score."""
        chosen = in_order(sents)
        text = self.passage(chosen, claim)
        p = self.score([text], claim.text)[0]
        f = float(self.objective(p[None, ENTAILMENT], [self.passage(chosen)])[0])
        return [self.evidence(claim, run, p, f) for run in runs(chosen)]

    def evidence(self, claim: ClaimInput, run: list[Sentence], p: npt.NDArray[np.float32], f: float) -> Evidence:
        """One span of evidence, with the headings the model read it under."""
        text = self.pool.span_text(run[0], run[-1]) if len(run) > 1 else run[0].text
        return self.pool.evidence(run, p, f, self.name,
                                  context=in_context(claim, text, run[0].context, self.headings)[1])


# Sentences that lean on what came before for their subject.
_LEANS_BACK = frozenset(["he", "she", "it", "they", "his", "her", "its", "their", "this", "these", "those", "such"])
_FIRST_WORD = re.compile(r"\W*([A-Za-z]+)")


def leans_back(text: str) -> bool:
    """The sentence's subject is a pronoun, at its start ("He was the son of ...", "Its revenue
    rose 4%") or after a short opening phrase ("In 1533, she married ..."): whom it names, its
    nearest heading says."""
    head, comma, rest = text.partition(",")
    openings = [text, rest] if comma and len(head.split()) <= 5 else [text]
    return any((m := _FIRST_WORD.match(t)) is not None and m.group(1).casefold() in _LEANS_BACK for t in openings)


def holds(claim: ClaimInput, text: str, *, coverage: Coverage = "facts", context: str = "", names: str = "") -> bool:
    """Whether ``text`` holds the claim's names and numbers (per ``coverage``); a value stated
    in another form ("1,200 million" for "$1.2 billion") counts. ``context``: the headings it
    sits under, which may name what a table row's value is; ``names``: the headings of its
    sentences whose subject is a pronoun ("It is the sequel to ..."), which name what they
    speak of. The evidence stage's check, and hallucination correction's for a sentence it
    repairs."""
    keys = uncovered(claim.text, text, given=claim.given, mode=coverage)
    if keys and names:
        keys = uncovered(claim.text, f"{names} {text}", given=claim.given, mode=coverage)
    if keys and keys - agreeing_keys(claim.text, text):
        return False
    # the claim's value stated for another year, as a count of things, in a table row about
    # another quantity, or only as expected or as a change is not its evidence, even where
    # the year came from the question
    answer, given = claim.answer(), claim.given
    return coverage == "off" or not (
        unnamed_years(answer, f"{dating(context)} {text}") or unshown(answer, given, text)
        or mistyped(answer, text, given) or another_period(claim.text, text, answer=answer, given=given)
        or unbound(claim.text, text, answer=answer, given=given, context=context)
        or figureless(claim.text, text, answer=answer, given=given) or unlabelled(answer, given, text)
        or foretold(answer, given, text) or changed_only(answer, given, text) or amount_only(answer, given, text)
        or another_office(answer, given, text) or miscounted(answer, given, text))


# a defined term for a party the document names: "the Company employed 93,516 people" is about
# 3M only by the filing's title; the model read it as neutral to a claim naming 3M (0.05); so
# is a filing's "we" ("Today, we are a global leader in ... packaging" for Amcor: 0.08)
_DEFINED = re.compile(r"\b(?:[Ww]e|[Oo]ur|[Uu]s)\b|"
                      r"\b[Tt]he (?:Company|Corporation|Registrant|Issuer|Borrower|Lender|Guarantor|Partnership|"
                      r"Fund|Trust|Bank|Employer|Licensor|Licensee|Seller|Buyer|Purchaser|Supplier|Customer|"
                      r"Contractor|Tenant|Landlord)\b")


def in_context(claim: ClaimInput | None, text: str, context: str, mode: Headings = "claim", *,
               rows: bool = True) -> tuple[str, str]:
    """(what the model reads, the headings it reads first). ``mode`` "claim": ``text`` after
    the headings of its ``context`` path that hold a word of the claim the text lacks
    ("Revenue" for "It rose 4%"), or after its nearest heading when it opens with a pronoun;
    "pronoun": only the latter; "off", or neither applies: the text alone, so a heading never
    adds words the claim does not need. With ``rows`` a table row is read as "claim" whatever
    ``mode``: "AWS | 2017: 4,331" says what it counts only in its table's title and caption
    (the checks of names and numbers read the row itself: ``rows`` False); so is a sentence
    that names a party by its defined term ("the Company", "the Borrower")."""
    if not context or claim is None:
        return text, ""
    if mode == "off":
        if not rows or (row_label(text) is None and not _DEFINED.search(text)):
            return text, ""
        mode = "claim"
    parts = context.split(SEPARATOR)
    keep: list[str] = []
    if mode == "claim":
        lacking = content_keys(claim.text) - content_keys(text)
        keep = [h for h in parts if content_keys(h) & lacking]
    if not keep and leans_back(text):
        keep = parts[-1:]
    if not keep:
        return text, ""
    heads = SEPARATOR.join(keep)
    return f"{'. '.join(keep)}. {text}", heads


def headings_of(sents: Sequence[Sentence]) -> str:
    """The heading paths ``sents`` sit under, each once, as one context."""
    return SEPARATOR.join(dict.fromkeys(s.context for s in sents if s.context))


def in_order(sents: list[Sentence]) -> list[Sentence]:
    return sorted({s.id: s for s in sents}.values(), key=lambda s: (s.doc_id, s.start))


def runs(sents: list[Sentence]) -> list[list[Sentence]]:
    """Consecutive sentences of one chunk form one span."""
    out: list[list[Sentence]] = []
    for s in sents:
        if out and out[-1][-1].chunk_id == s.chunk_id and out[-1][-1].ord + 1 == s.ord:
            out[-1].append(s)
        else:
            out.append([s])
    return out


class EvidenceStep(Protocol):
    """One step of the chain: reads and fills the states of an answer's claims."""

    name: str

    def run(self, states: list[ClaimState], ctx: EvidenceContext) -> None: ...


STEPS: Registry[EvidenceStep] = Registry("evidence step")


def active(states: list[ClaimState]) -> list[ClaimState]:
    """The claims no step has finished yet."""
    return [s for s in states if s.verdict is None]


def in_its_terms(claim: str, premise: str) -> str:
    """``claim`` with each value written as ``premise`` writes the very same value ("81.1
    million papers" as "81.1M papers" beside "consists of 81.1M papers"; "$1.2 billion" as
    "$1,200 million"), so the entailment model judges what is said of the value, not its
    notation: it read "81.1M" and "81.1 million" as different (0.15 against 0.92). Only
    equal values of one kind are rewritten, never ones that agree by rounding or a hedge."""
    found = [q for _, _, q in located(premise) if q.kind != "year"]
    if not found:
        return claim
    parts, pos = [], 0
    for start, _, q in located(claim):
        same = next((s for s in found if s.kind == q.kind and s.text != q.text
                     and abs(s.value - q.value) <= 1e-9 * abs(q.value)), None)
        if same is not None:
            start = claim.index(q.text, start)  # the match may open with a space
            parts += [claim[pos:start], same.text]
            pos = start + len(q.text)
    return "".join(parts) + claim[pos:] if parts else claim


__all__ = ["STEPS", "ClaimState", "EvidenceContext", "EvidenceStep", "Probs", "active", "in_context", "in_its_terms",
           "in_order", "leans_back", "runs"]
