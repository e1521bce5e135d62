"""Step ``sets``: a fact told over two or three sentences, read as one premise.

When no single sentence supports the claim (or, with ``set_gain``, always), sets of 2 to
``set_max`` sentences are scored as one passage: a fact told over two adjacent sentences, or
a multi-hop fact told in two places ("A was born in X" + "X is in Y"). Sets grow by beam
search over the strongest candidates (by P_entail plus cosine to the claim) and their
neighbours, and stop growing when a bigger set entails no more. Among the sets that pass,
the highest F wins, so the length penalty keeps sets small; with ``named``, first the sets
about more of the question's names (``naming``), then, for a choice between options by a
value, those that give more of the options one (``valued``), then those where a sentence names
what another is about (``hopped``), then those joined by a name the claim lacks (``joined``:
the hops of a chain), and a set about more of the question's names replaces a single sentence
that passes. With ``bridges`` N, the first level also
pairs each of the N strongest candidates with the sentences tied to it by a name the claim
lacks that name the question's subject (``bridges``): the other hop of a chain.

No passengers: with ``contribution`` every sentence of a set must hold a word of the claim
(in its text, or in its own headings, which say whom its pronouns name) that the others
lack, or the set is one sentence of evidence plus one the model happened to
like, and the reader would be shown text that proves nothing; with ``needed`` the model must
agree: the set without any one of its sentences lacks a name or number of the claim, is about
less of the question's names (with ``named``), or entails at least ``needed`` less (else the
next best set that passes is taken). With ``linked`` the set must hang together: each
sentence reaches the question's names through names and numbers the sentences share (or their
chunk); a sentence about the subject plus one from elsewhere that only holds the answer's
value is no chain of evidence.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from gechat.documents.headings import nearest_heading, shared_path
from gechat.evidence.base import ClaimInput, says_nothing
from gechat.evidence.comparing import orders
from gechat.evidence.conflicts import conflict_in, known_names
from gechat.evidence.dates import years
from gechat.evidence.lists import lists_in
from gechat.evidence.steps import ClaimState, EvidenceContext, Probs, active, in_order, leans_back, runs
from gechat.evidence.subjects import anchored
from gechat.evidence.values import quantities
from gechat.lexical import LOCATOR, META, acronyms, content_keys, name_groups, name_words, offered
from gechat.models.entail.base import ENTAILMENT
from gechat.types import Evidence, Sentence

Ids = frozenset[int]
Names = tuple[frozenset[str], ...]  # the question's names, each as its words (``name_groups``)


class SentenceSets:
    name = "sets"

    def __init__(self, *, top: int, max_size: int = 2, gain: float | None = None,
                 anchors: int | None = None, step_anchors: int | None = None, beam: int = 3,
                 contribution: bool = True, linked: bool = False, needed: float | None = None,
                 named: bool = False, bridges: int = 0) -> None:
        self.top, self.max_size, self.gain, self.beam = top, max_size, gain, beam
        self.anchors, self.step_anchors, self.contribution = anchors, step_anchors, contribution
        self.needed, self.linked, self.named, self.bridges = needed, linked, named, bridges

    def run(self, states: list[ClaimState], ctx: EvidenceContext) -> None:
        for state in active(states):
            if state.probs is None or not state.evidence:
                continue  # nothing scored: no step read the candidates alone
            p_single = state.evidence[0].p_entail
            # with a supporting single, a set must entail ``gain`` more (beyond 1.0, no set can)
            # or, with ``named``, be about more of the question's names
            can_gain = self.gain is not None and p_single + self.gain <= 1.0
            if state.passes and not can_gain and not self.named:
                continue
            found = self.best_set(state, ctx)
            # a set replaces a supporting single only when it holds it and entails clearly more,
            # or names more of what the question asks about: the single sentence then told only
            # part of the claim (one hop of two: "She has been photographed by ... Terry
            # Richardson" for who is older, she or Terry Richardson). A set without it is another
            # reading the model happens to like better: "The effective tax rate for 2018 was
            # 23.4 percent" (0.70) gave way to an adjusted rate's sentence beside the tax table's
            # row (0.81)
            if found and (not state.passes or (found[0].p_entail >= p_single + (self.gain or 0.0)
                                               and _holds_single(found, state.evidence))
                          or self._about_more(state.claim, found, state.evidence)):
                state.evidence, state.passes = found, True

    def _about_more(self, claim: ClaimInput, found: list[Evidence], single: list[Evidence]) -> bool:
        """With ``named``: whether the set ``found`` is about more of the question's names than
        the evidence it would replace."""
        if not self.named:
            return False
        names = name_groups(claim.given or claim.text)
        # what the single's headings name, it is about already (a 10-K's title names the
        # company): a set that only adds a sentence stating that name would show a passenger
        # ("3M's strong balance sheet ..." beside the row that states the figure)
        return naming(names, [x for e in found for x in e.sentences], headed=1.0) > naming(
            names, [x for e in single for x in e.sentences], headed=1.0)

    def best_set(self, state: ClaimState, ctx: EvidenceContext) -> list[Evidence] | None:
        """Beam search over sets of 2..max_size sentences. The first level pairs each of the
        ``anchors`` strongest candidates (``step_anchors`` for a reasoning step; None: all of
        the ``top``) with the others of the ``top`` and with its neighbours; deeper levels
        grow the ``beam`` best sets by one sentence."""
        claim, cands, pool = state.claim, state.candidates, ctx.pool
        assert state.probs is not None
        by_pos = {(s.chunk_id, s.ord): s for s in pool.sentences}
        by_id = {s.id: s for s in pool.sentences}
        by_relevance = [cands[int(i)] for i in np.argsort(-_relevance(state, ctx))]
        top = [s.id for s in by_relevance[: self.top]]

        candidate_ids = {s.id for s in cands}  # a question is one when the claim reports what was asked

        def near(i: int) -> list[int]:
            s = by_id[i]
            return [n.id for n in (by_pos.get((s.chunk_id, s.ord - 1)), by_pos.get((s.chunk_id, s.ord + 1)))
                    if n is not None and not n.heading and (n.id in candidate_ids or not says_nothing(n.text))]

        def ordered(ids: Ids) -> list[Sentence]:
            return in_order([by_id[i] for i in ids])

        texts: dict[Ids, str] = {}

        def text(ids: Ids) -> str:
            if ids not in texts:
                texts[ids] = ctx.passage(ordered(ids), claim)
            return texts[ids]

        checked: dict[Ids, bool] = {}

        def covered(ids: Ids) -> bool:
            # asked of the same set when it is filtered, ranked and tested for passengers
            if ids not in checked:
                sents = ordered(ids)
                checked[ids] = ctx.covers_set(claim, sents, ctx.passage(sents, claim, rows=False))
            return checked[ids]

        n_anchors = self.step_anchors if claim.source == "thought" else self.anchors
        anchors = top[:n_anchors] if n_anchors is not None else top
        # a word about documents and answering ("provided", "referenced") is no part of the
        # fact: a sentence that only adds one ("provisions" shares the key) is a passenger
        claim_keys = content_keys(claim.text) - META
        names = name_groups(claim.given or claim.text)
        anchor = frozenset().union(*names)  # the question's name words, for ``linked``
        claim_names = name_words(claim.text)
        level = {frozenset((a, b)) for a in anchors for b in top if b != a}
        level |= {frozenset((a, n)) for a in anchors for n in near(a)}
        level |= {frozenset((a.id, b.id)) for a, b in bridges(by_relevance[: self.bridges], by_relevance, claim_names,
                                                              names)}
        scored: dict[Ids, tuple[Probs, float]] = {}

        def score(sets: list[Ids]) -> Probs:
            """Each set read as one passage by the model, its F (headings cost nothing) kept in ``scored``."""
            p = ctx.score([text(c) for c in sets], claim.text)
            f = ctx.objective(p[:, ENTAILMENT], [ctx.passage(ordered(c)) for c in sets])
            scored.update({c: (p[k], float(f[k])) for k, c in enumerate(sets)})
            return p

        best_p = float(state.probs[:, ENTAILMENT].max())
        for size in range(2, self.max_size + 1):
            # a set of the last size that lacks the claim's names or numbers could never pass
            # nor grow into one that does: it is not scored
            fresh = [c for c in level if len(c) == size and c not in scored
                     and (not self.contribution or contributes(claim_keys, ordered(c)))
                     and (not self.linked or linked(anchor, ordered(c)))
                     and (size < self.max_size or covered(c))]
            if not fresh:
                break
            p = score(fresh)
            if float(p[:, ENTAILMENT].max()) <= best_p:
                break  # a bigger set did not entail more: stop growing
            best_p = float(p[:, ENTAILMENT].max())
            beam = [fresh[int(k)] for k in np.argsort(-p[:, ENTAILMENT])[: self.beam]]
            level = {c | {x} for c in beam for x in [*top, *(n for i in c for n in near(i))] if x not in c}
        # a list told line by line is read whole, whatever its length (``lists``); each item must
        # tell part of the claim, its lead-in may say only what the list is of
        whole = [c for c in lists_in(pool.sentences, candidate_ids) if c not in scored and covered(c)
                 and (not self.contribution or contributes(claim_keys, ordered(c)[1:]))]
        if whole:
            score(whole)
        # with ``named``, the set that names more of what the question asks about wins, then a
        # set whose sentences are joined by a name (a chain), F breaks ties: the cross-encoder
        # reads "Shawnee State Fishing Lake is in Shawnee County" as well as "Brown State
        # Fishing Lake is in Brown County" for a claim on the latter

        about_: dict[Ids, float] = {}

        def about(c: Ids) -> float:  # read for the ranking and again for ``needed``
            if c not in about_:
                about_[c] = naming(names, ordered(c)) if self.named else 0.0
            return about_[c]

        # a choice between options by a value ("which came out earlier, A or B") rests on
        # the option's value: the sets that state one for more options first
        options = offered(claim.given) if self.named and claim.given and orders(claim.given) else ()

        def rank(c: Ids) -> tuple[float, float, bool, bool, float]:
            sents = ordered(c)
            return about(c), valued(options, sents), self.named and hopped(claim_names, sents), \
                self.named and joined(claim_names, sents), scored[c][1]

        # a set one of whose sentences states another value for the claim's quantity holds a
        # conflict, whatever the model reads: "Invoices are due within forty-five (45) days"
        # beside a cure period's "thirty (30) days" for invoices due within 30 days
        known = known_names(cands)
        passing = sorted((c for c, (p_, _) in scored.items() if p_[ENTAILMENT] >= ctx.supported
                          and covered(c) and anchored(claim.answer(), text(c), float(p_[ENTAILMENT]))
                          and conflict_in(claim, [x.text for x in ordered(c)], known) is None),
                         key=rank, reverse=True)
        single = {s.id: float(state.probs[k, ENTAILMENT]) for k, s in enumerate(cands)}
        for chosen in passing:
            p_set, f_set = scored[chosen]
            if self.needed is None or self._all_needed(chosen, float(p_set[ENTAILMENT]), single, scored, text, covered,
                                                       state, ctx, about):
                return [ctx.evidence(claim, run, p_set, f_set) for run in runs(ordered(chosen))]
        return None

    def _all_needed(self, ids: Ids, p_set: float, single: dict[int, float], scored: dict[Ids, tuple[Probs, float]],
                    text: Callable[[Ids], str], covered: Callable[[Ids], bool], state: ClaimState,
                    ctx: EvidenceContext,
                    about: Callable[[Ids], float]) -> bool:
        """Whether every sentence of a set is needed: without it the rest lacks a name or
        number of the claim, is ``about`` less of the question's names, or entails clearly less
        (``needed`` below the set). A sentence
        the set can do without is a passenger; the reader would be shown text that proves
        nothing. The rests are mostly single candidates, already scored."""
        assert self.needed is not None
        rests = [ids - {x} for x in ids]
        todo = [r for r in rests if not (len(r) == 1 and next(iter(r)) in single) and r not in scored]
        if todo:
            p = ctx.score([text(r) for r in todo], state.claim.text)
            scored.update({r: (p[k], 0.0) for k, r in enumerate(todo)})
        whole = about(ids)
        for rest in rests:
            if about(rest) < whole:
                continue  # the sentence left out ties the set to what the question asks about
            p_rest = single[next(iter(rest))] if len(rest) == 1 and next(iter(rest)) in single \
                else float(scored[rest][0][ENTAILMENT])
            if covered(rest) and p_rest > p_set - self.needed:
                return False
        return True


def _holds_single(found: list[Evidence], single: list[Evidence]) -> bool:
    """Whether the set ``found`` holds the sentences of the evidence it would replace."""
    return {x.id for e in single for x in e.sentences} <= {x.id for e in found for x in e.sentences}


def _relevance(state: ClaimState, ctx: EvidenceContext) -> npt.NDArray[np.float64]:
    """P_entail plus cosine to the claim: a hop of a multi-hop claim entails little on its own
    but is close in meaning, so the cosine finds the other hops."""
    assert state.probs is not None
    rel = state.probs[:, ENTAILMENT].astype(np.float64)
    pool = ctx.pool
    if state.vector is None or pool.vectors is None or len(pool.vectors) != len(pool.sentences):
        return rel
    row = {s.id: i for i, s in enumerate(pool.sentences)}
    vecs = pool.vectors[[row[s.id] for s in state.candidates]]
    cos: npt.NDArray[np.float64] = (vecs @ state.vector).astype(np.float64)
    return rel + cos


def contributes(claim_keys: frozenset[str], sents: list[Sentence]) -> bool:
    """Every sentence of a set tells part of the claim that the others do not: a word of the
    claim in its text or its own headings that the others' text lacks, and the headings it
    shares with them ("... semantic features in www.semanticscholar.org" adds nothing to a
    sentence of the same section under the title "... in Semantic Scholar"; "3M's strong
    balance sheet ..." nothing to a figure of 3M's 10-K, whose title names 3M). A sentence's
    own headings count because they say whom its pronouns name: "Born in Pittsburgh, he
    married Lillian Russell" under "Alexander Moore" is the hop to "Russell was born in
    Clinton" for the wife of Alexander Moore."""
    said = [content_keys(s.text) | acronyms(s.text) for s in sents]
    covers = [claim_keys & (said[i] | content_keys(s.context)) for i, s in enumerate(sents)]
    return all(c - frozenset().union(*(said[j] | content_keys(shared_path(sents[j].context, s.context))
                                       for j in range(len(sents)) if j != i))
               for i, (s, c) in enumerate(zip(sents, covers, strict=True)))


def linked(anchor: frozenset[str], sents: list[Sentence]) -> bool:
    """Whether a set hangs together. Its sentences tied to each other (a name or number of one
    in the other or its nearest heading, the same nearest heading, the same chunk), one of
    them holding a name or number of what the claim is asked about (``anchor``), in its text
    or anywhere in its heading path, the document's title included; or each group of tied
    sentences holding one in its text or nearest heading: two facts about two things the
    question names (a year is
    no thing: "Research, development and related expenses totaled $1.821 billion in 2018"
    and "The Company expects 2019 capital spending to be ..." as 3M's R&D spending in 2018 are
    two facts of 3M's 10-K, one of them about something else). Ties use the nearest heading
    only, since every sentence of a document shares the title. With no anchor (a question
    without names) the sentences need only be tied."""
    # "Table 2" and "(Table 9)" say where things are written, not what about: no tie
    said = [name_words(LOCATOR.sub(" ", s.text)) for s in sents]
    heads = [nearest_heading(s.context) for s in sents]
    names = [said[i] | name_words(heads[i]) for i in range(len(sents))]

    def tied(i: int, j: int) -> bool:
        # two headings tie only when they are one: "PART I" and "PART II" share a word
        return bool(said[i] & names[j] or said[j] & names[i]) or sents[i].chunk_id == sents[j].chunk_id \
            or (bool(heads[i]) and heads[i] == heads[j])

    group = list(range(len(sents)))  # each sentence's group: the smallest index it is tied to
    changed = True
    while changed:
        changed = False
        for i in range(len(sents)):
            for j in range(i + 1, len(sents)):
                if group[i] != group[j] and tied(i, j):
                    group[i] = group[j] = min(group[i], group[j])
                    changed = True
    groups = [[i for i in range(len(sents)) if group[i] == g] for g in set(group)]
    if len(groups) == 1:
        return not anchor or any((names[i] | name_words(s.context)) & anchor for i, s in enumerate(sents))
    things = anchor - years(" ".join(anchor))
    return bool(things) and all(any(names[i] & things for i in members) for members in groups)


def bridges(anchors: list[Sentence], cands: list[Sentence], claim_names: frozenset[str], names: Names,
            per_anchor: int = 5) -> list[tuple[Sentence, Sentence]]:
    """Pairs for the second hop of a chain: each anchor with the candidates (the first
    ``per_anchor``, in the order given) that share a name with it which the claim does not
    hold (``claim_names``; the thing that joins the hops, "the Androscoggin Bank Colisée") and that state, or
    sit under a heading naming, something the question names (``names``). The hop about the
    question's subject often entails nothing alone ("The team played its home games at the
    Androscoggin Bank Colisée.", P 0.01) and is far from the claim, so it is rarely among the
    strongest candidates."""
    about = [c for c in cands if naming(names, [c]) > 0]  # the same for every anchor
    out = []
    for a in anchors:
        via = name_words(a.text) - claim_names
        partners = [c for c in about if c.id != a.id and name_words(c.text) & via]
        out += [(a, c) for c in partners[:per_anchor]]
    return out


def naming(names: Names, sents: list[Sentence], *, headed: float = 0.5) -> float:
    """How much of what the question names (``names``: its ``name_groups``) the sentences are
    about, as a share of the names' words, each name read in one sentence (the one that
    holds most of it: "Kasper Hvidt" holds half of "Kasper Schmeichel", "Kasper Peter
    Schmeichel" all of it). A word counts 1 where that sentence states it under a heading
    that names it too ("Local H is an American rock band" in "Local H"); 1/2 where it is
    only stated in passing ("... with national acts including Local H" in "For Against") or
    only named by the headings (a heading says what a sentence is about, not that it states
    it), or ``headed`` for the latter where what a sentence is about is what counts."""
    if not names:
        return 0.0
    # a sentence that opens with a pronoun states what its nearest heading names
    held = [(name_words(s.text) | (name_words(nearest_heading(s.context)) if leans_back(s.text)
                                   else frozenset()), name_words(s.context)) for s in sents]
    return sum(max(len(g & text & head) + 0.5 * len(g & text - head) + headed * len(g & head - text)
                   for text, head in held)
               for g in names) / sum(len(g) for g in names)


def joined(claim_names: frozenset[str], sents: list[Sentence]) -> bool:
    """Whether each sentence of a set shares a whole name with another that the claim does
    not hold: the thing between the hops of a chain ("Her husband was the explorer Henri
    Coudreau." and "Henri Anatole Coudreau (6 May 1859 Sonnac - ...)"). A sentence about the
    question's subject and one about the answer, tied only by the names the claim already
    holds, tell two facts, not how they connect."""
    words = [name_words(s.text) for s in sents]
    names = [[g for g in name_groups(s.text) if g - claim_names] for s in sents]

    def tied(i: int, j: int) -> bool:
        return any(g <= words[j] for g in names[i]) or any(g <= words[i] for g in names[j])

    return all(any(tied(i, j) for j in range(len(sents)) if j != i) for i in range(len(sents)))


def hopped(claim_names: frozenset[str], sents: list[Sentence]) -> bool:
    """Whether one sentence of a set names what another is about: the name of its nearest
    heading that the claim does not hold. The hop of a chain ("She is the youngest daughter
    of ... Michael Eavis" for the sentence under "Michael Eavis"), where a sentence that
    only introduces the question's subject ("Emily Eavis (born 1979) is co-organiser of the
    Glastonbury Festival") shares a name with the other but says nothing of how they connect."""
    heads = [name_words(nearest_heading(s.context)) - claim_names for s in sents]
    said = [name_words(s.text) for s in sents]
    return any(heads[j] and heads[j] <= said[i] for i in range(len(sents)) for j in range(len(sents)) if i != j)


def valued(options: tuple[frozenset[str], ...], sents: list[Sentence]) -> float:
    """The share of the ``options`` (each as its keys) that a sentence of the set names, in its
    text or its nearest heading, and gives a value, a date or a figure: "It was released in
    1942." under "Huma Gun Anmogaldi" tells when that film came out, "Huma Gun Anmogaldi is a
    Bollywood film directed by Mehboob Khan." does not."""
    if not options:
        return 0.0
    told = [content_keys(s.text) | content_keys(nearest_heading(s.context)) for s in sents if quantities(s.text)]
    return sum(any(o <= t for t in told) for o in options) / len(options)

