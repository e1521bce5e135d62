"""Hallucination correction (HC), Trustful LLMs' Algorithm 1, made to agree with the evidence.

Triplets from the retrieved text form the graph G, triplets from the answer the graph g. For
each sentence of the answer that the evidence stage did not find supported:

- a result the sentence's own arithmetic gets wrong is redone ("= $29,500" of "$12,500 +
  $4,200 + $2,800" becomes "= $19,500"; ``evidence.arithmetic``);
- a value the evidence contradicts is replaced by the value the source states (the values
  step found the sentence that states it), when the sentence is then supported by it;
- a triplet whose subject and relation G states with another object gets G's object, when the
  entailment model finds the sentence so corrected supported by G's sentence;
- an item of a coordinated list that G never names goes, when G names another item of it
  ("GoDaddy and Oray" where the sources list Oray, HiChina, east.net and BIZCN);
- a contradicted sentence that none of that makes supported goes, with its evidence;
- a name or number that G never states (the paper's "subject not in G", for any part of the
  sentence) takes its clause with it when the rest holds a verified triplet, else its sentence.

Names are matched by their key, the graph resolver's rules ("M365 Business Basic" =
"Microsoft 365 Business Basic") and embedding cosine (``threshold``), searched through a
vector index that turns into an HNSW index (usearch) when G is large. The verified triplets
are then pruned to a maximum-support spanning forest (Kruskal; the minimum spanning tree of
1 - support): a triplet that closes a cycle adds nothing, and a sentence left with none whose
claim is not supported goes. A supported sentence is never touched, and HC adds no entity but
the one a source states in place of a wrong one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
import numpy.typing as npt

from gechat.correct.triplets import Extract, NameList, Triplet, clause_span, entities, fast_triplets, name_lists, names
from gechat.correct.values import read_off, value_edit
from gechat.documents.sentences import split_spans
from gechat.evidence.arithmetic import Miscount, miscomputed, rests_on
from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.evidence.dates import years
from gechat.evidence.steps import holds
from gechat.evidence.values import agreeing_keys, narrow
from gechat.graph.base import normalise
from gechat.graph.resolve import is_alias
from gechat.lexical import content_keys, missing_words, number_keys
from gechat.models.embed_base import Embedder
from gechat.models.entail.base import ENTAILMENT, EntailmentScorer
from gechat.store.vectors import MatrixIndex
from gechat.types import Answer, Claim, Correction, Edit

THRESHOLD = 0.9  # cosine at which two names are one thing (with the resolver's rules): Settings.correct_threshold
_SPACES = re.compile(r"[ \t]{2,}")


@dataclass
class _Known:
    """The names of G, searchable by key, rule and embedding."""

    keys: list[str]
    index: MatrixIndex | None
    embedder: Embedder
    threshold: float

    def has(self, name: str) -> bool:
        key = normalise(name)
        if not key or key in self.keys:
            return bool(key)
        if self.index is None:
            return False
        for i, cos in self.index.search(self.embedder.embed([name])[0], 5):
            if is_alias(key, self.keys[i], cos, self.threshold) or cos >= self.threshold:
                return True
        return False


class HallucinationCorrector:
    name = "hc"

    def __init__(self, embedder: Embedder, scorer: EntailmentScorer, supported: float, *,
                 threshold: float = THRESHOLD, ann_threshold: int = 20_000, extract: Extract = fast_triplets,
                 name: Callable[[Sequence[str]], list[str]] = names,
                 lists: Callable[[Sequence[str]], list[NameList]] = name_lists,
                 unsupported: Literal["keep", "unverified", "delete"] = "delete") -> None:
        self.embedder, self.scorer, self.supported = embedder, scorer, supported
        self.unsupported = unsupported
        self.threshold, self.ann_threshold, self.extract, self.names = threshold, ann_threshold, extract, name
        self.lists = lists

    def correct(self, answer: Answer, pool: EvidencePool) -> Correction:
        text = answer.text
        spans = split_spans(text, 0, len(text))
        sentences = [text[a:b] for a, b in spans]
        claims = [_claim_of(answer, sent) for sent in sentences]
        open_ = [k for k, claim in enumerate(claims) if not _settled(claim)]
        before = self.names([text]) if text.strip() else []
        if not open_:  # every sentence supported: nothing to correct, no time spent
            return Correction(text=text, edits=[], entities=before, eliminated=[])
        context = [s.text for s in pool.sentences]
        # triplets only of the sentences that share a word with what may be corrected: G's
        # triplet must name the answer's subject to replace its object (and an LLM reads less)
        words = frozenset().union(*(content_keys(sentences[k]) for k in open_))
        near = [i for i, c in enumerate(context) if content_keys(c) & words]
        big = [replace(t, source=near[t.source]) for t in self.extract([context[i] for i in near])]
        known = self._known([*context, answer.question], big)  # the asker's own names are no invention
        mine, coordinated = self.extract(sentences), self.lists(sentences)
        steps = [w for t in answer.thoughts if (w := miscomputed(t))]  # an answer may repeat a wrong result
        edits: list[Edit] = []
        kept: list[tuple[Triplet, float]] = []
        for k, ((a, b), claim) in enumerate(zip(spans, claims, strict=True)):
            if k not in open_:
                kept += [(t, 1.0) for t in mine if t.source == k]
                continue
            found = self._sentence(a, b, text, claim, [t for t in mine if t.source == k],
                                   [n for n in coordinated if n.source == k], big, pool, known, answer.question, steps)
            edits += found[0]
            kept += found[1]
        edits += _pruned(kept, spans, text, answer, {e.start for e in edits})
        corrected = _apply(text, edits)
        after = {normalise(n) for n in self.names([corrected])} if corrected.strip() else set()
        return Correction(text=corrected, edits=sorted(edits, key=lambda e: e.start), entities=before,
                          eliminated=[n for n in before if normalise(n) not in after])

    def _known(self, context: list[str], big: list[Triplet]) -> _Known:
        found = dict.fromkeys([*self.names(context), *(t.subject for t in big), *(t.object for t in big)])
        listed = [n for n in found if normalise(n)]
        keys = [normalise(n) for n in listed]
        index = None
        if listed:
            vecs = np.asarray(self.embedder.embed(listed), dtype=np.float32)
            index = MatrixIndex(np.arange(len(listed), dtype=np.int64), vecs, self.ann_threshold, None)
        return _Known(keys, index, self.embedder, self.threshold)

    def _sentence(self, a: int, b: int, text: str, claim: Claim | None, triplets: list[Triplet],
                  lists: list[NameList], big: list[Triplet], pool: EvidencePool, known: _Known,
                  question: str, steps: list[Miscount]) -> tuple[list[Edit], list[tuple[Triplet, float]]]:
        wrong = (miscomputed(text[a:b]) or rests_on(text[a:b], steps, question)
                 if claim is not None and claim.verdict == "contradicted" else None)
        if wrong is not None:  # the sentence's own sum redone: no source needed
            at, to = a + wrong.start, a + wrong.end
            return [Edit(kind="replace", start=at, end=to, old=text[at:to], new=wrong.right, triplet=[],
                         reason=wrong.note)], []
        if claim is not None and claim.verdict == "contradicted":
            value = value_edit(claim, a, text[a:b], question)
            # the value put in must leave the sentence supported by the source, as a swap must:
            # by the model's reading, or as a reader reads a table row or a list (the model reads
            # them by their digits)
            if value is not None and value.evidence is not None and (
                    self._supports(value.evidence.text, _applied(text[a:b], value, a), question) is not None
                    or read_off(value.evidence, _applied(text[a:b], value, a), question)):
                return [value], []
        if claim is not None and claim.evidence:
            swap = self._swap(claim, a, text[a:b], question)
            if swap is not None:
                return [swap], []
        edits: list[Edit] = []
        verified: list[tuple[Triplet, float]] = []
        unknown: list[tuple[Triplet, str]] = []  # a name the sources never state, and the triplet
        # items of a list the sources never name, where they name others of it ("GoDaddy and Oray")
        for items in lists:
            edits += _drop_items(items, a, text, known)
        dropped = {e.start for e in edits}
        for t in triplets:
            if not known.has(t.subject):
                if t.subject_named:
                    unknown.append((t, t.subject))
                continue  # "the company" may be worded otherwise in the sources
            replaced = self._replacement(t, a, text[a:b], big, pool, question)
            if replaced is not None:
                edits.append(replaced[0])
                verified.append((t, replaced[1]))
            elif known.has(t.object) or _stated(t.object, pool):
                verified.append((t, 0.5))
            elif t.object_named and (a + t.object_span[0]) not in dropped:
                unknown.append((t, t.object))
        contradicted = claim is not None and claim.verdict == "contradicted"
        if edits and not (contradicted and all(e.kind == "delete" for e in edits)):
            return edits, verified  # a contradicted sentence less a list item is no better: it goes
        if contradicted and claim is not None and claim.evidence:
            # a name the sources never state is the likelier error, so the reader is told of it too
            reason = "the documents state otherwise" + (f"; '{unknown[0][1]}' is not in them" if unknown else "")
            return [Edit(kind="delete", start=a, end=_after_space(text, b), old=text[a:b], reason=reason,
                         evidence=claim.evidence[0])], []
        if unknown and not verified:
            t, name = unknown[0]
            return [_deleted(a, b, text, t.parts(), f"'{name}' is not in the documents retrieved")], []
        # a name or number of the sentence no retrieved sentence states: the paper's "subject
        # not in G", for any part of it; only its clause goes when the rest holds a verified triplet
        absent = [] if claim is None else missing_words(text[a:b], "\n".join(s.text for s in pool.sentences),
                                                         given=question)
        if absent:
            reason = f"'{absent[0]}' is not in the documents retrieved"
            at = text.find(absent[0], a, b) - a
            part = clause_span(text[a:b], at) if at >= 0 else None
            rest = [(t, w) for t, w in verified if part is None or not _inside(t, part)]
            if part is not None and rest and self._rest_holds(claim, text[a:b], part, question):
                return [Edit(kind="delete", start=a + part[0], end=a + part[1], old=text[a + part[0]:a + part[1]],
                             reason=reason)], rest
            return [_deleted(a, b, text, [], reason)], []
        if not edits and self._drops(claim, verified):
            return [_deleted(a, b, text, [], "the documents retrieved do not state it")], []
        return edits, verified

    def _rest_holds(self, claim: Claim | None, sentence: str, part: tuple[int, int], question: str) -> bool:
        """Whether what is left of an unsupported sentence without the clause ``part`` may stay:
        with ``delete``, only when its evidence supports it ("revenue was $165.74 million" is no
        truer for a stock index row that states the figure); else when a triplet of it is verified."""
        if claim is None or claim.verdict != "unsupported" or self.unsupported != "delete":
            return True
        left = sentence[:part[0]].rstrip() + sentence[part[1]:]
        return self._supports(" ".join(e.text for e in claim.evidence), left, question) is not None

    def _drops(self, claim: Claim | None, verified: list[tuple[Triplet, float]]) -> bool:
        """Whether an unsupported sentence nothing could repair goes (Settings.correct_unsupported):
        Algorithm 1 keeps only what the documents verify."""
        if claim is None or claim.verdict != "unsupported":
            return False
        return self.unsupported == "delete" or (self.unsupported == "unverified" and not verified)

    def _supports(self, source: str, fixed: str, question: str) -> npt.NDArray[np.float32] | None:
        """The model's reading of ``source`` against the corrected sentence, when it supports
        it as the evidence stage would: entailed, and every name and number of it held by the
        source (or the question), as ``evidence.steps.holds`` reads a source."""
        if not holds(ClaimInput(text=fixed, source="answer", given=question), source):
            return None
        p = np.asarray(self.scorer.score([source], fixed), dtype=np.float32)[0]
        return p if float(p[ENTAILMENT]) >= self.supported else None

    def _swap(self, claim: Claim, a: int, sentence: str, question: str) -> Edit | None:
        """The one name (or date) of the sentence its closest source sentence lacks, put in
        place of the one name of that kind the source has and the sentence lacks ("Attorney
        General of Wyoming" where the source says "of Nevada"), when the model then finds the
        sentence supported by the source."""
        evidence = claim.evidence[0]
        asked = {normalise(t) for t, _, _ in entities(question)}
        # a name or a number of the answer, never a common word ("months") nor one the question names
        ours = [e for e in entities(sentence) if normalise(e[0]) not in asked and _named_or_number(e[0])]
        # of a table row, the cells of the claim's year: "59" of "Days sales outstanding | 2020: 57
        # | 2019: 59" is no value for 2020
        theirs = entities(narrow(evidence.text, years(claim.text) or years(question), strict=True))
        for label in {lab for _, lab, _ in ours}:
            have = {normalise(t) for t, lab, _ in theirs if lab == label}
            mine = [(t, at) for t, lab, at in ours if lab == label and normalise(t) not in have]
            said = {normalise(t) for t, _, _ in entities(sentence)} | asked
            new = {normalise(t): t for t, lab, _ in theirs if lab == label and normalise(t) not in said}
            if len(mine) != 1 or len(new) != 1:
                continue
            (old, at), (value,) = mine[0], new.values()
            fixed = sentence[:at] + value + sentence[at + len(old):]
            p = self._supports(evidence.text, fixed, question)
            if p is not None:
                return Edit(kind="replace", start=a + at, end=a + at + len(old), old=old, new=value, triplet=[],
                            reason=f"the source names {value} where the answer names {old}",
                            evidence=evidence.model_copy(update={"p_entail": float(p[ENTAILMENT])}))
        return None

    def _replacement(self, t: Triplet, a: int, sentence: str, big: list[Triplet], pool: EvidencePool,
                     question: str) -> tuple[Edit, float] | None:
        """G's object for the triplet's subject and relation, when G states another one and
        the sentence with it is entailed by G's sentence."""
        said = [g for g in big if g.key == t.key and _same_thing(g.subject, t.subject)]
        if any(_same_thing(g.object, t.object) for g in said):
            return None  # G states this very triplet
        others = {normalise(g.object): g for g in said}
        if len(others) != 1:  # none, or several: no one object to put in its place
            return None
        g = next(iter(others.values()))
        o0, o1 = t.object_span  # in the sentence, which starts at ``a`` of the answer
        fixed = sentence[:o0] + g.object + sentence[o1:]
        source = pool.sentences[g.source]
        p = self._supports(source.text, fixed, question)
        if p is None:
            return None
        evidence = pool.evidence([source], p, float(p[ENTAILMENT]), "hc")
        return Edit(kind="replace", start=a + o0, end=a + o1, old=sentence[o0:o1], new=g.object, triplet=t.parts(),
                    reason=f"the documents state '{g.subject} {g.relation} {g.object}'", evidence=evidence), float(
            p[ENTAILMENT])


def _settled(claim: Claim | None) -> bool:
    return claim is not None and claim.verdict in ("supported", "no fact")


def _claim_of(answer: Answer, sentence: str) -> Claim | None:
    for c in answer.claims:
        if c.source == "answer" and (c.text == sentence or c.text.endswith(sentence.strip())):
            return c
    return None


def _named_or_number(text: str) -> bool:
    return any(c.isupper() or c.isdigit() for c in text)


def _applied(sentence: str, edit: Edit, a: int) -> str:
    """``sentence`` (at ``a`` of the answer) with ``edit`` made."""
    return sentence[:edit.start - a] + edit.new + sentence[edit.end - a:]


def _stated(value: str, pool: EvidencePool) -> bool:
    """A value object ("$17.6 billion", "1902") some retrieved sentence states."""
    keys = number_keys(value)
    if not keys:
        return False
    return any(keys <= number_keys(s.text) or agreeing_keys(value, s.text) for s in pool.sentences)


def _same_thing(a: str, b: str) -> bool:
    ka, kb = normalise(a), normalise(b)
    return ka == kb or is_alias(ka, kb, 0.0, 1.0)


def _drop_items(items: NameList, a: int, text: str, known: _Known) -> list[Edit]:
    """Each name of a list the sources never state, with the comma or "and" that joined it,
    when they state another item of the list; no edit when they state none of it."""
    spans = list(items.items)
    stated = [known.has(text[a + s:a + e]) for s, e in spans]
    if not any(stated):
        return []
    out = []
    for i, ((s, e), ok, named) in enumerate(zip(spans, stated, items.named, strict=True)):
        if ok or not named:
            continue
        start, end = (s, spans[i + 1][0]) if i + 1 < len(spans) else (spans[i - 1][1], e)
        out.append(Edit(kind="delete", start=a + start, end=a + end, old=text[a + start:a + end],
                        reason=f"'{text[a + s:a + e]}' is not in the documents retrieved"))
    return out


def _pruned(kept: list[tuple[Triplet, float]], spans: list[tuple[int, int]], text: str, answer: Answer,
            edited: set[int]) -> list[Edit]:
    """Kruskal over the verified triplets, strongest support first: a triplet closing a cycle
    is redundant; a sentence left with no triplet and no supported claim goes."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    tree: set[int] = set()
    for t, _ in sorted(kept, key=lambda ts: -ts[1]):
        s, o = root(normalise(t.subject)), root(normalise(t.object))
        if s != o:
            parent[s] = o
            tree.add(id(t))
    out = []
    for k, (a, b) in enumerate(spans):
        own = [t for t, _ in kept if t.source == k]
        claim = _claim_of(answer, text[a:b])
        if own and not any(id(t) in tree for t in own) and a not in edited and not _settled(claim):
            out.append(Edit(kind="delete", start=a, end=_after_space(text, b), old=text[a:b], triplet=own[0].parts(),
                            reason="what it states is already stated by the rest of the answer"))
    return out


def _deleted(a: int, b: int, text: str, triplet: list[str], reason: str) -> Edit:
    """The sentence at ``a:b`` deleted, with the space after it."""
    return Edit(kind="delete", start=a, end=_after_space(text, b), old=text[a:b], triplet=triplet, reason=reason)


def _inside(t: Triplet, part: tuple[int, int]) -> bool:
    return part[0] <= t.subject_span[0] < part[1] or part[0] <= t.object_span[0] < part[1]


def _after_space(text: str, end: int) -> int:
    while end < len(text) and text[end].isspace():
        end += 1
    return end


def _apply(text: str, edits: list[Edit]) -> str:
    out, pos = [], 0
    for e in sorted(edits, key=lambda e: e.start):
        if e.start < pos:  # overlaps an earlier edit: the earlier one stands
            continue
        out += [text[pos:e.start], e.new]
        pos = e.end
    out.append(text[pos:])
    return _SPACES.sub(" ", "".join(out)).strip()


__all__ = ["THRESHOLD", "HallucinationCorrector"]
