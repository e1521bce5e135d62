"""GE-Chat's evidence objective: F(s) = alpha * P_entail(s => claim) - beta * len_norm(s).

For every claim the candidates are the sentences of the retrieved chunks, headings aside (pre-ranked by
embedding cosine when there are more than ``evidence_max_candidates``, so the entailment
model sees at most that many). The best sentence wins; if no single sentence reaches the
supported threshold (or, with ``set_gain``, always), small sets of sentences are scored as one
premise: a fact told over two adjacent sentences, or a multi-hop fact told in two places ("A
was born in X" + "X is in Y"). Sets grow by beam search over the strongest candidates (by
P_entail plus cosine to the claim) up to ``set_max`` sentences, and stop growing when a
bigger set entails no more. F, computed on the set's text, is maximised among the candidates
that reach the threshold when any do, so the length penalty keeps sets small.
With ``set_contribution`` every sentence of a set must hold a word of the claim that the
others lack. Verdict: supported if P_entail >= supported_threshold; contradicted if some
candidate's P_contradiction >= contradicted_threshold (with ``contra_overlap``, only a
candidate that shares a word with the claim); otherwise unsupported, with the closest
sentence still shown so the reader sees why.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from gechat.evidence import both, bridge, chain, compare, kin, options, same, which
from gechat.evidence.base import ClaimInput, EvidencePool, is_heading
from gechat.evidence.lengths import get_len_norm
from gechat.lexical import Coverage, content_keys, missing_words, uncovered
from gechat.models.embed_base import Embedder
from gechat.models.entail.base import CONTRADICTION, ENTAILMENT, EntailmentScorer
from gechat.types import Claim, Evidence, Sentence, Verdict

Probs = npt.NDArray[np.float32]


class ObjectiveSelector:
    name = "nli-objective"

    def __init__(self, scorer: EntailmentScorer, embedder: Embedder | None, *, alpha: float,
                 beta: float, len_norm: str, len_ref_words: int, max_candidates: int,
                 set_top: int, supported: float, contradicted: float, set_max: int = 3,
                 set_gain: float | None = None, set_anchors: int | None = None,
                 step_anchors: int | None = None, beam: int = 3,
                 set_contribution: bool = False, contra_overlap: bool = False,
                 coverage: Coverage = "off", compare: bool = False, same: bool = False,
                 kin: bool = False, chain: bool = False, bridge: bool = False,
                 options: bool = False, linked: bool = False, both: bool = False,
                 which: bool = False, rebridge: bool = False, set_names: bool = False) -> None:
        self.scorer, self.embedder = scorer, embedder
        self.alpha, self.beta = alpha, beta
        self.len_norm, self.len_ref = get_len_norm(len_norm), len_ref_words
        self.max_candidates, self.set_top, self.set_max = max_candidates, set_top, set_max
        self.set_gain, self.set_anchors, self.beam = set_gain, set_anchors, beam
        self.step_anchors = step_anchors
        self.supported, self.contradicted = supported, contradicted
        self.set_contribution, self.contra_overlap = set_contribution, contra_overlap
        self.coverage, self.compare, self.same, self.kin = coverage, compare, same, kin
        self.chain, self.bridge, self.options, self.linked = chain, bridge, options, linked
        self.both, self.which, self.rebridge, self.set_names = both, which, rebridge, set_names

    def objective(self, p_entail: npt.NDArray[np.float32], texts: list[str]) -> npt.NDArray[np.float64]:
        pen = np.asarray(self.len_norm(texts, self.len_ref), dtype=np.float64)
        return self.alpha * p_entail.astype(np.float64) - self.beta * pen

    def select(self, claims: list[ClaimInput], pool: EvidencePool) -> list[Claim]:
        # the claims are embedded once: for the candidate pre-ranking and for the sets' relevance
        qv = self.embedder.embed([c.text for c in claims]) if self.embedder is not None and claims else None
        ranked = self._preselect(claims, pool, qv)
        return [self._one(c, cands, pool, None if qv is None else qv[i])
                for i, (c, cands) in enumerate(zip(claims, ranked, strict=True))]

    def _preselect(self, claims: list[ClaimInput], pool: EvidencePool,
                   qv: npt.NDArray[np.float32] | None) -> list[list[Sentence]]:
        headings = {s.id for s in pool.sentences if is_heading(s.text)}
        sents = [s for s in pool.sentences if s.id not in headings]
        if len(sents) <= self.max_candidates or self.embedder is None or qv is None:
            return [sents for _ in claims]
        return pool.nearest(qv, self.embedder, self.max_candidates, skip=lambda s: s.id in headings)

    def _one(self, claim: ClaimInput, cands: list[Sentence], pool: EvidencePool,
             qv: npt.NDArray[np.float32] | None) -> Claim:
        if not cands:
            return Claim(text=claim.text, source=claim.source, verdict="unsupported")
        compared = None
        if claim.source == "answer":
            compared = (self._compared(claim, pool) if self.compare else None) or (
                self._same_country(claim, pool) if self.same else None) or (
                self._kin(claim, pool) if self.kin else None) or (
                self._chain(claim, pool) if self.chain else None) or (
                self._both(claim, pool) if self.both else None) or (
                self._which(claim, pool) if self.which else None)
        if compared is not None:
            return compared
        texts = [s.text for s in cands]
        probs = np.asarray(self.scorer.score(texts, claim.text), dtype=np.float32)
        f = self.objective(probs[:, ENTAILMENT], texts)
        # F is maximised over the sentences that entail the claim when there are any, so a
        # short sentence that does not support the claim never beats one that does.
        entails = (probs[:, ENTAILMENT] >= self.supported) & np.array([self._covers(claim, t) for t in texts])
        best = int(np.argmax(np.where(entails, f, -np.inf))) if entails.any() else int(np.argmax(f))
        evidence = [pool.evidence([cands[best]], probs[best], float(f[best]), self.name)]
        passes, p_single = bool(entails[best]), float(probs[best, ENTAILMENT])
        # with a supporting single, a set must entail set_gain more: beyond 1.0, no set can
        can_gain = self.set_gain is not None and p_single + self.set_gain <= 1.0
        if not passes or can_gain:
            found = self._best_set(claim, cands, probs, pool, qv)
            if found and self.rebridge and claim.source == "answer" and claim.given:
                found = self._rebridged(claim, found, pool)
            # a set replaces a supporting single only when it entails clearly more: the
            # single sentence then told only part of the claim (one hop of two)
            if found and (not passes or found[0].p_entail >= p_single + (self.set_gain or 0.0)):
                evidence, passes = found, True
        if passes:
            if claim.source == "answer" and claim.given:
                evidence = self._completed(claim, evidence, pool)
            return Claim(text=claim.text, source=claim.source, verdict="supported", evidence=evidence)
        contra = probs[:, CONTRADICTION]
        if self.contra_overlap:
            # an NLI model calls unrelated text a contradiction (its training pairs taught it
            # that a different scene contradicts); a reader could not check such a verdict
            keys = content_keys(claim.text)
            contra = np.where([bool(keys & content_keys(t)) for t in texts], contra, -1.0)
        worst = int(np.argmax(contra))
        if contra[worst] >= self.contradicted:
            ev = pool.evidence([cands[worst]], probs[worst], float(f[worst]), self.name)
            return self._unproven(claim, "contradicted", [ev])
        return self._unproven(claim, "unsupported", evidence)

    def _compared(self, claim: ClaimInput, pool: EvidencePool) -> Claim | None:
        """The verdict on an answer to "which came first, A or B?" from the order of the two
        options' dates, when the question is one and both dates are found."""
        cmp = compare.parse(claim.given)
        claimed = None if cmp is None else compare.claimed_option(claim, cmp)
        if cmp is None or claimed is None:
            return None
        a, b = (compare.find(pool, o, cmp) for o in cmp.options)
        if a is None or b is None:
            return None
        order = compare.order(a.value, b.value)
        if order == 0:
            return None
        winner = int((order == 1) != cmp.latest_wins)
        which = ("later" if cmp.latest_wins else "earlier") + (" death" if cmp.death else "")
        dated = f"{cmp.options[0]}: {a.text}; {cmp.options[1]}: {b.text}"
        return self._decided(claim, pool, a.sentences + b.sentences, winner == claimed,
                             f"{dated}; the {which} is {cmp.options[winner]}")

    def _same_country(self, claim: ClaimInput, pool: EvidencePool) -> Claim | None:
        """The verdict on a yes or no to "are A and B from the same country?" from the two
        options' nationalities, when the question is one and both are found."""
        q = same.parse(claim.given)
        says_same = None if q is None else same.claimed(claim)
        found = None if q is None or says_same is None else same.find(pool, q)
        if found is None:
            return None
        (oa, ob), a, b = found
        shared = bool(a.value & b.value)
        return self._decided(claim, pool, a.sentences + b.sentences, shared == says_same,
                             f"{oa}: {a.text}; {ob}: {b.text}; " + ("the same" if shared else "not the same"))

    def _kin(self, claim: ClaimInput, pool: EvidencePool) -> Claim | None:
        """An answer to "who is X's paternal grandfather?" supported by the chain of two parent
        sentences, when the chain is found and ends in the answer's person."""
        q = kin.parse(claim.given)
        chain = None if q is None else kin.find(pool, q)
        if q is None or chain is None or not kin.same_person(claim.answer(), chain.grandparent):
            return None
        return self._decided(claim, pool, chain.sentences, True,
                             f"{q.person}: {q.first} {chain.parent}; {chain.parent}: {q.second} {chain.grandparent}")

    def _chain(self, claim: ClaimInput, pool: EvidencePool) -> Claim | None:
        """An answer to "where was the director of film X born?" supported by X's sentence naming
        the director and the director's sentence holding the answer, when both are found."""
        q = chain.parse(claim.given)
        found = None if q is None else chain.find(pool, q, claim.answer())
        if q is None or found is None:
            return None
        return self._decided(claim, pool, found.sentences, True,
                             f"{q.subject}: {q.role} {found.person}; {found.person}: {claim.answer().strip(' .')}")

    def _both(self, claim: ClaimInput, pool: EvidencePool) -> Claim | None:
        """The verdict on a yes or no to "are A and B both X?" from each option's own sentences
        read against "A is X" and "B is X", when the question is one and they decide: a wrong
        yes or no is contradicted; a right one is supported when the answer says no more (what
        else it says is left to the model)."""
        says = both.claimed(claim)
        found = None if says is None else both.decide(pool, claim.given, self.scorer, self.supported)
        if found is None or (found.both == says and not both.bare(claim, claim.given)):
            return None
        return self._decided(claim, pool, found.sentences, found.both == says, found.note)

    def _which(self, claim: ClaimInput, pool: EvidencePool) -> Claim | None:
        """The verdict on an answer to "which is X, A or B?" from each option's own sentences
        read against "A is X" and "B is X", as for "both" questions."""
        q = which.parse(claim.given)
        says = None if q is None else which.claimed(claim, q)
        found = None if q is None or says is None else which.decide(pool, q, self.scorer, self.supported)
        if found is None or (found.option == says and not both.bare(claim, claim.given)):
            return None
        return self._decided(claim, pool, found.sentences, found.option == says, found.note)

    def _completed(self, claim: ClaimInput, evidence: list[Evidence], pool: EvidencePool) -> list[Evidence]:
        """The evidence with what a reader needs to check it beside it: the sentence tying it to
        the question (gechat.evidence.bridge), the other option's (gechat.evidence.options);
        the whole is scored again as one passage."""
        sents = [s for e in evidence for s in e.sentences]
        extra = []
        if self.bridge and (tie := bridge.find(pool, claim.given, sents)) is not None:
            extra.append(tie)
        if self.options and (other := options.find(pool, claim.given, sents + extra)) is not None:
            extra.append(other)
        return self._one_passage(claim, [*sents, *extra], pool) if extra else evidence

    def _rebridged(self, claim: ClaimInput, found: list[Evidence], pool: EvidencePool) -> list[Evidence]:
        """The set with its hop mended (gechat.evidence.bridge.repaired) when the mended pair
        still passes; a comparison of two options has no hop to mend."""
        sents = [s for e in found for s in e.sentences]
        pair = None if options.options(claim.given) else bridge.repaired(pool, claim.given, claim.answer(), sents)
        if pair is None:
            return found
        mended = self._one_passage(claim, pair, pool)
        passes = mended[0].p_entail >= self.supported and self._covers(claim, self._set_text(pair, pool))
        return mended if passes else found

    def _decided(self, claim: ClaimInput, pool: EvidencePool, path: list[Sentence], right: bool,
                 note: str) -> Claim:
        """A claim whose verdict a rule decided: the sentences it read are the evidence, scored
        by the model as one passage so the reader sees the score too."""
        return Claim(text=claim.text, source=claim.source, verdict="supported" if right else "contradicted",
                     evidence=self._one_passage(claim, path, pool), note=note)

    def _one_passage(self, claim: ClaimInput, sents: list[Sentence], pool: EvidencePool) -> list[Evidence]:
        """``sents`` (duplicates dropped, in document order) as evidence scored together: one
        span per run of consecutive sentences, each with the passage's joint score."""
        chosen = sorted({s.id: s for s in sents}.values(), key=lambda s: (s.doc_id, s.start))
        text = self._set_text(chosen, pool, bridge.subjects(pool) if self.set_names else None)
        p = np.asarray(self.scorer.score([text], claim.text), dtype=np.float32)[0]
        f = float(self.objective(p[None, ENTAILMENT], [text])[0])
        return [pool.evidence(run, p, f, self.name) for run in self._runs(chosen)]

    def _unproven(self, claim: ClaimInput, verdict: Verdict, evidence: list[Evidence]) -> Claim:
        """A claim that is not supported, with the names and numbers its evidence lacks."""
        missing = missing_words(claim.text, " ".join(e.text for e in evidence), given=claim.given,
                                mode=self.coverage)
        return Claim(text=claim.text, source=claim.source, verdict=verdict, evidence=evidence, missing=missing)

    def _best_set(self, claim: ClaimInput, cands: list[Sentence], probs: Probs, pool: EvidencePool,
                  qv: npt.NDArray[np.float32] | None) -> list[Evidence] | None:
        """Beam search over sets of 2..set_max sentences (adjacent neighbours included) drawn
        from the strongest candidates; among the sets that pass the threshold, the most fully
        named (:func:`link_share`, with ``linked``) and then the highest F wins. The first
        level pairs each of the ``set_anchors`` strongest (``step_anchors`` for a reasoning
        step; None: all of them) with the others of the ``set_top``, so it scores about
        anchors * set_top pairs; deeper levels beam * 2 * set_top each."""
        by_pos = {(s.chunk_id, s.ord): s for s in pool.sentences}
        by_id = {s.id: s for s in pool.sentences}
        top = [cands[int(i)].id for i in np.argsort(-self._relevance(cands, probs, pool, qv))[: self.set_top]]

        def near(i: int) -> list[int]:
            s = by_id[i]
            return [n.id for n in (by_pos.get((s.chunk_id, s.ord - 1)), by_pos.get((s.chunk_id, s.ord + 1)))
                    if n is not None and not is_heading(n.text)]

        def ordered(ids: frozenset[int]) -> list[Sentence]:
            return sorted((by_id[i] for i in ids), key=lambda s: (s.doc_id, s.start))

        texts_of: dict[frozenset[int], str] = {}  # a set's text is read for coverage and passing

        def text(ids: frozenset[int]) -> str:
            if ids not in texts_of:
                texts_of[ids] = self._set_text(ordered(ids), pool)
            return texts_of[ids]

        about = bridge.subjects(pool)

        n_anchors = self.step_anchors if claim.source == "thought" else self.set_anchors
        anchors = top[:n_anchors] if n_anchors is not None else top
        claim_keys = content_keys(claim.text)
        level = {frozenset((a, b)) for a in anchors for b in top if b != a}
        level |= {frozenset((a, n)) for a in anchors for n in near(a)}
        scored: dict[frozenset[int], tuple[npt.NDArray[np.float32], float]] = {}
        best_p = float(probs[:, ENTAILMENT].max())
        for size in range(2, self.set_max + 1):
            # a set of the last size that lacks the claim's names or numbers could never pass
            # nor grow into one that does: it is not scored
            fresh = [c for c in level if len(c) == size and c not in scored
                     and (not self.set_contribution or contributes(claim_keys, ordered(c)))
                     and (size < self.set_max or self._covers(claim, text(c)))]
            if not fresh:
                break
            texts = [self._set_text(ordered(c), pool, about if self.set_names else None) for c in fresh]
            p = np.asarray(self.scorer.score(texts, claim.text), dtype=np.float32)
            f = self.objective(p[:, ENTAILMENT], texts)
            scored.update({c: (p[k], float(f[k])) for k, c in enumerate(fresh)})
            if float(p[:, ENTAILMENT].max()) <= best_p:
                break  # a bigger set did not entail more: stop growing
            best_p = float(p[:, ENTAILMENT].max())
            beam = [fresh[int(k)] for k in np.argsort(-p[:, ENTAILMENT])[: self.beam]]
            level = {c | {x} for c in beam for x in [*top, *(n for i in c for n in near(i))] if x not in c}
        passing = [(f, c) for c, (p_, f) in scored.items()
                   if p_[ENTAILMENT] >= self.supported and self._covers(claim, text(c))]
        if not passing:
            return None
        if self.linked:
            # a set whose documents the claim or the set itself names more fully beats any set
            # with a higher F that holds a document about someone else
            _, chosen = max(passing, key=lambda t: (link_share(claim_keys, ordered(t[1]), about), t[0]))
        else:
            _, chosen = max(passing, key=lambda t: t[0])
        p_set, f_set = scored[chosen]
        return [pool.evidence(run, p_set, f_set, self.name) for run in self._runs(ordered(chosen))]

    def _relevance(self, cands: list[Sentence], probs: Probs, pool: EvidencePool,
                   qv: npt.NDArray[np.float32] | None) -> npt.NDArray[np.float64]:
        """P_entail plus cosine to the claim (``qv``): a hop of a multi-hop claim entails little
        on its own but is close in meaning, so the cosine finds the other hops."""
        rel = probs[:, ENTAILMENT].astype(np.float64)
        if qv is None or pool.vectors is None or len(pool.vectors) != len(pool.sentences):
            return rel
        row = {s.id: i for i, s in enumerate(pool.sentences)}
        vecs = pool.vectors[[row[s.id] for s in cands]]
        cos: npt.NDArray[np.float64] = (vecs @ qv).astype(np.float64)
        return rel + cos

    def _covers(self, claim: ClaimInput, text: str) -> bool:
        return not uncovered(claim.text, text, given=claim.given, mode=self.coverage)

    @staticmethod
    def _runs(sents: list[Sentence]) -> list[list[Sentence]]:
        """Consecutive sentences of one chunk form one span."""
        runs: list[list[Sentence]] = []
        for s in sents:
            if runs and runs[-1][-1].chunk_id == s.chunk_id and runs[-1][-1].ord + 1 == s.ord:
                runs[-1].append(s)
            else:
                runs.append([s])
        return runs

    def _set_text(self, sents: list[Sentence], pool: EvidencePool,
                  about: Callable[[Sentence], str] | None = None) -> str:
        """The set's text, verbatim; with ``about`` (gechat.evidence.bridge.subjects), as the
        model reads it: a run that opens with a pronoun ("He was working as a software engineer
        at Tata Consultancy Services.") has its document's name before it in parentheses, since
        lifted out of its paragraph it says nothing about Sachin Warrier. Only in a document's
        opening chunk: deeper in a long one (a filing that opens "UNITED STATES SECURITIES AND
        EXCHANGE COMMISSION") a pronoun more likely stands for something nearer. The reader is
        shown the sentences verbatim; the names and numbers a claim needs are looked for in them
        alone."""
        parts = []
        for run in self._runs(sents):
            text = pool.span_text(run[0], run[-1]) if len(run) > 1 else run[0].text
            name = about(run[0]) if about is not None and pool.chunks[run[0].chunk_id].ord == 0 else ""
            if name and opens_unnamed(text) and not content_keys(name) <= content_keys(text):
                text = f"({name}) {text}"
            parts.append(text)
        return " ".join(parts)


def link_share(claim_keys: frozenset[str], sents: list[Sentence], about: Callable[[Sentence], str]) -> float:
    """How well a set's documents are named: for each sentence whose document (``about``) is
    about a name, the share of the name's words that the claim or another sentence of the set
    holds; the least of these (1.0 when every document is about no name). A multi-hop fact is
    told in texts that name each other ("The team played at the Colisée." + "The Colisée
    seats 3,677."), while a sentence of a paragraph about someone else only looks like a hop,
    and it is most often named in part: "Kasper Hvidt" by "Kasper", "Shawnee State Fishing
    Lake" by a question about Brown State Fishing Lake (3 of 4 words), where the paragraph the
    question means is named whole."""
    keys = [content_keys(s.text) for s in sents]
    return min((bridge.name_share(about(s), claim_keys.union(*(k for j, k in enumerate(keys) if j != i)))
                for i, s in enumerate(sents)), default=1.0)


def contributes(claim_keys: frozenset[str], sents: list[Sentence]) -> bool:
    """Every sentence of a set tells part of the claim that the others do not (a word of the
    claim only it has); otherwise the set is one sentence of evidence plus a passenger that the
    cross-encoder happened to like, and the reader would be shown text that proves nothing."""
    covers = [claim_keys & content_keys(s.text) for s in sents]
    return all(c - frozenset().union(*(o for j, o in enumerate(covers) if j != i)) for i, c in enumerate(covers))


# words a sentence opens with that stand for a name given before it
_STANDS_IN = frozenset(["he", "she", "it", "they", "his", "her", "its", "their", "this", "these"])


def opens_unnamed(text: str) -> bool:
    """Whether a sentence opens with a word standing in for its paragraph's subject ("He was",
    "Its capital", "This battle") rather than with a name ("This Is Spinal Tap is", "He Knows
    You're Alone is")."""
    toks = text.split()
    return bool(toks) and toks[0].lower().strip(",") in _STANDS_IN and not (len(toks) > 1 and toks[1][:1].isupper())
