"""GE-Chat's F(s) on hand-made candidates with a scripted entailment scorer."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from gechat.evidence.base import ClaimInput, EvidencePool, is_heading
from gechat.evidence.candidates import Candidates
from gechat.evidence.chain import EvidenceChain
from gechat.evidence.lengths import get_len_norm
from gechat.evidence.scoring import NliScores
from gechat.evidence.sets import SentenceSets, contributes
from gechat.evidence.steps import EvidenceContext
from gechat.evidence.verdict import Verdicts
from gechat.lexical import content_keys
from gechat.types import Chunk, Sentence

TEXT = "Alpha is red. Alpha is big. Beta is small and was built in 1990 by a team. Gamma."


class Scripted:
    """P(entail) / P(contra) looked up by premise text; everything else is neutral."""

    name = "scripted"

    def __init__(self, table: dict[str, tuple[float, float]]) -> None:
        self.table, self.calls = table, 0

    def score(self, premises: Sequence[str], hypothesis: str) -> npt.NDArray[np.float32]:
        self.calls += len(premises)
        rows = []
        for p in premises:
            e, c = self.table.get(p, (0.05, 0.05))
            rows.append([c, 1 - e - c, e])
        return np.asarray(rows, dtype=np.float32)


def pool() -> EvidencePool:
    spans = [(0, 13), (14, 27), (28, 74), (75, 81)]
    sents = [Sentence(id=i + 1, doc_id=1, chunk_id=1, ord=i, page=2, start=a, end=b, text=TEXT[a:b])
             for i, (a, b) in enumerate(spans)]
    chunk = Chunk(id=1, doc_id=1, ord=0, start=0, end=len(TEXT), text=TEXT,
                  sentence_ids=[s.id for s in sents])
    return EvidencePool(sentences=sents, chunks={1: chunk}, titles={1: "doc.pdf"})


def context(scorer: Scripted, *, supported: float = 0.5, contradicted: float = 0.6,
            coverage: str = "off") -> EvidenceContext:
    return EvidenceContext(pool=pool(), scorer=scorer, embedder=None, name="nli-objective", alpha=0.5,
                           beta=0.5, len_norm=get_len_norm("words"), len_ref=60, supported=supported,
                           contradicted=contradicted, coverage=coverage)  # type: ignore[arg-type]


def selector(scorer: Scripted, *, set_top: int = 3, set_max: int = 2, set_gain: float | None = None,
             set_anchors: int | None = None, step_anchors: int | None = None,
             set_contribution: bool = False, contra_overlap: bool = False, **ctx: object) -> EvidenceChain:
    """The default chain (candidates -> nli -> sets -> verdict), every check off unless asked."""
    sets = SentenceSets(top=set_top, max_size=set_max, gain=set_gain, anchors=set_anchors,
                        step_anchors=step_anchors, contribution=set_contribution)
    steps = [Candidates(60), NliScores(), sets, Verdicts(overlap=contra_overlap)]
    return EvidenceChain(steps, context(scorer, **ctx))  # type: ignore[arg-type, list-item]


def test_objective_values() -> None:
    f = context(Scripted({})).objective(np.array([0.9, 0.9], np.float32), ["one two three", "one " * 30])
    assert f[0] == pytest.approx(0.5 * 0.9 - 0.5 * 3 / 60)
    assert f[1] == pytest.approx(0.5 * 0.9 - 0.5 * 30 / 60)


def test_shorter_of_two_entailing_sentences_wins() -> None:
    p = pool()
    scorer = Scripted({p.sentences[0].text: (0.9, 0.0), p.sentences[2].text: (0.92, 0.0)})
    (claim,) = selector(scorer).select([ClaimInput(text="Alpha is red.", source="answer")], p)
    assert claim.verdict == "supported"
    ev = claim.evidence[0]
    assert ev.text == "Alpha is red." and (ev.start, ev.end, ev.page) == (0, 13, 2)
    assert TEXT[ev.start:ev.end] == ev.text
    assert ev.p_entail == pytest.approx(0.9)


def test_entailing_sentence_beats_shorter_non_entailing_one() -> None:
    p = pool()
    scorer = Scripted({p.sentences[2].text: (0.55, 0.0), "Gamma.": (0.3, 0.0)})
    (claim,) = selector(scorer).select([ClaimInput(text="Beta dates from 1990.", source="answer")], p)
    assert claim.verdict == "supported"
    assert claim.evidence[0].text == p.sentences[2].text


def test_adjacent_pair_when_no_single_sentence_entails() -> None:
    p = pool()
    pair_text = TEXT[0:27]
    scorer = Scripted({p.sentences[0].text: (0.4, 0.0), p.sentences[1].text: (0.3, 0.0),
                       pair_text: (0.8, 0.0)})
    (claim,) = selector(scorer).select([ClaimInput(text="Alpha is big and red.", source="answer")], p)
    assert claim.verdict == "supported"
    ev = claim.evidence[0]
    assert ev.text == pair_text and len(ev.sentences) == 2 and (ev.start, ev.end) == (0, 27)


def test_pair_that_does_not_entail_is_not_used() -> None:
    p = pool()
    scorer = Scripted({p.sentences[0].text: (0.4, 0.0)})
    (claim,) = selector(scorer).select([ClaimInput(text="Alpha is huge.", source="answer")], p)
    assert claim.verdict == "unsupported"
    assert claim.evidence[0].text == "Alpha is red."  # the closest, shown with the verdict


def test_contradiction_verdict() -> None:
    p = pool()
    scorer = Scripted({p.sentences[0].text: (0.05, 0.9)})
    (claim,) = selector(scorer).select([ClaimInput(text="Alpha is blue.", source="thought")], p)
    assert claim.verdict == "contradicted"
    assert claim.evidence[0].text == "Alpha is red." and claim.evidence[0].p_contradict == pytest.approx(0.9)


def test_thresholds_come_from_settings() -> None:
    p = pool()
    scorer = Scripted({p.sentences[0].text: (0.7, 0.0)})
    claims = [ClaimInput(text="Alpha is red.", source="answer")]
    assert selector(scorer, supported=0.6).select(claims, p)[0].verdict == "supported"
    assert selector(scorer, supported=0.8).select(claims, p)[0].verdict == "unsupported"


def test_no_candidates_is_unsupported_without_evidence() -> None:
    empty = EvidencePool(sentences=[], chunks={}, titles={})
    (claim,) = selector(Scripted({})).select([ClaimInput(text="x y z", source="answer")], empty)
    assert claim.verdict == "unsupported" and claim.evidence == []


@pytest.mark.parametrize("name", ["words", "max", "log", "none"])
def test_len_norms_in_unit_interval_and_monotone(name: str) -> None:
    fn = get_len_norm(name)
    vals = fn(["a", "a b c", "a " * 100], 60)
    assert all(0.0 <= v <= 1.0 for v in vals)
    assert vals[0] <= vals[1] <= vals[2]


def test_unknown_len_norm_is_a_clear_error() -> None:
    from gechat.errors import ConfigError

    with pytest.raises(ConfigError, match="len_norm"):
        get_len_norm("chars")


def test_bridge_pair_from_two_places_when_neither_sentence_entails() -> None:
    p = pool()
    joint = f"{p.sentences[0].text} {p.sentences[2].text}"  # not adjacent
    scorer = Scripted({p.sentences[0].text: (0.4, 0.0), p.sentences[2].text: (0.35, 0.0), joint: (0.85, 0.0)})
    (claim,) = selector(scorer).select([ClaimInput(text="The red Alpha is as old as Beta.", source="answer")], p)
    assert claim.verdict == "supported"
    assert [e.text for e in claim.evidence] == [p.sentences[0].text, p.sentences[2].text]
    assert all(TEXT[e.start:e.end] == e.text for e in claim.evidence)
    assert claim.evidence[0].p_entail == pytest.approx(0.85)


def test_three_sentence_set_when_no_pair_entails() -> None:
    p = pool()
    s = [x.text for x in p.sentences]
    three = f"{TEXT[0:27]} {s[3]}"  # sentences 1-2 are one span, then sentence 4
    scorer = Scripted({s[0]: (0.3, 0.0), s[1]: (0.2, 0.0), s[3]: (0.25, 0.0), TEXT[0:27]: (0.4, 0.0),
                       three: (0.9, 0.0)})  # the pair of 1-2 entails more than any single: grow
    (claim,) = selector(scorer, set_max=3).select([ClaimInput(text="Alpha, big and red, is Gamma.",
                                                              source="answer")], p)
    assert claim.verdict == "supported"
    assert [e.text for e in claim.evidence] == [TEXT[0:27], s[3]]
    assert claim.evidence[0].p_entail == pytest.approx(0.9)
    (capped,) = selector(scorer, set_max=2).select([ClaimInput(text="Alpha, big and red, is Gamma.",
                                                               source="answer")], p)
    assert capped.verdict == "unsupported"


def test_set_gain_lets_a_set_replace_a_passing_single() -> None:
    p = pool()
    s = [x.text for x in p.sentences]
    joint = f"{s[0]} {s[2]}"
    scorer = Scripted({s[0]: (0.6, 0.0), s[2]: (0.3, 0.0), joint: (0.95, 0.0)})
    claims = [ClaimInput(text="The red Alpha is as old as Beta.", source="answer")]
    assert [e.text for e in selector(scorer).select(claims, p)[0].evidence] == [s[0]]
    assert [e.text for e in selector(scorer, set_gain=0.2).select(claims, p)[0].evidence] == [s[0], s[2]]
    assert [e.text for e in selector(scorer, set_gain=0.4).select(claims, p)[0].evidence] == [s[0]]


def test_sets_stop_growing_when_bigger_sets_entail_no_more() -> None:
    p = pool()
    scorer = Scripted({x.text: (0.3, 0.0) for x in p.sentences})  # every set scores the default 0.05
    (claim,) = selector(scorer, set_max=4).select([ClaimInput(text="Nothing here.", source="answer")], p)
    assert claim.verdict == "unsupported"
    assert scorer.calls <= 4 + 6  # singles, then the pairs of one level only


def test_no_set_is_scored_when_the_single_leaves_no_room_for_set_gain() -> None:
    p = pool()
    s = [x.text for x in p.sentences]
    claims = [ClaimInput(text="Alpha is red.", source="answer")]
    sure = Scripted({s[0]: (0.97, 0.0)})  # a set would need 1.02: none is scored
    assert [e.text for e in selector(sure, set_gain=0.05).select(claims, p)[0].evidence] == [s[0]]
    assert sure.calls == len(s)
    room = Scripted({s[0]: (0.9, 0.0)})  # 0.95 is reachable: the sets are scored
    selector(room, set_gain=0.05).select(claims, p)
    assert room.calls > len(s)


def test_set_anchors_pair_only_the_strongest_candidates() -> None:
    p = pool()
    s = [x.text for x in p.sentences]
    strong, weak = Scripted({s[0]: (0.4, 0.0)}), Scripted({s[0]: (0.4, 0.0)})
    claims = [ClaimInput(text="Alpha is huge.", source="answer")]
    # set_top 4: all pairs of the 4 candidates (6) vs. pairs holding the strongest only (3)
    selector(strong, set_top=4).select(claims, p)
    selector(weak, set_top=4, set_anchors=1).select(claims, p)
    assert (strong.calls, weak.calls) == (4 + 6, 4 + 3)
    # a two-hop set with the strongest candidate is still found
    joint = f"{s[0]} {s[2]}"
    hop = Scripted({s[0]: (0.4, 0.0), s[2]: (0.1, 0.0), joint: (0.85, 0.0)})
    (claim,) = selector(hop, set_top=4, set_anchors=1).select(claims, p)
    assert claim.verdict == "supported" and [e.text for e in claim.evidence] == [s[0], s[2]]
    # reasoning steps take step_anchors, answers set_anchors
    step = [ClaimInput(text="Alpha is huge.", source="thought")]
    steps, answers = Scripted({s[0]: (0.4, 0.0)}), Scripted({s[0]: (0.4, 0.0)})
    selector(steps, set_top=4, step_anchors=1).select(step, p)
    selector(answers, set_top=4, step_anchors=1).select(claims, p)
    assert (steps.calls, answers.calls) == (4 + 3, 4 + 6)


@pytest.mark.parametrize(("text", "heading"), [
    ("1 Introduction", True), ("3.2 Related Work", True), ("4. Experiments and Results", True),
    ("Abstract", True), ("APPEARANCES:", True), ("NOTES:", True), ("Note: sales fell", False),
    ("Gamma.", False), ("Total revenue 1,234", False),
    ("2019", False), ("The graph has 280M nodes", False), ("1 The model reads every page of the report", False),
    # capitals or title case, short and unpunctuated: a heading, a label, a name standing alone
    ("NOTES TO CONSOLIDATED FINANCIAL STATEMENTS", True), ("First Quarter 2018 Guidance", True),
    ("Costs of Compliance", True), ("Alderson Reporting Company", True), ("Scott Derrickson", True),
    ("AWS | 2017: 4,331", False), ("Tuesday, January 13, 2009", False),
    # a list item's mark before a title: a rule's paragraph label
    ("(b) Affected ADs", True), ("(iv) Effective Date", True), ("(b) Sales rose 5%", False),
    ("Petitioner :", True), ("Revenue : $5 million", False),
])
def test_is_heading(text: str, heading: bool) -> None:
    assert is_heading(text) is heading


HEADED = "1 Introduction\nThe graph has more than 280M nodes."


def headed_pool() -> EvidencePool:
    sents = [Sentence(id=1, doc_id=1, chunk_id=1, ord=0, page=1, start=0, end=14, text=HEADED[0:14]),
             Sentence(id=2, doc_id=1, chunk_id=1, ord=1, page=1, start=15, end=len(HEADED), text=HEADED[15:])]
    chunk = Chunk(id=1, doc_id=1, ord=0, start=0, end=len(HEADED), text=HEADED, sentence_ids=[1, 2])
    return EvidencePool(sentences=sents, chunks={1: chunk}, titles={1: "doc.pdf"},
                        vectors=np.asarray([[1.0, 0.0], [0.6, 0.8]], np.float32))


def test_a_heading_is_never_evidence_even_when_it_scores_highest() -> None:
    p = headed_pool()
    # the heading alone would pass the threshold, and pair with the sentence beside it
    scorer = Scripted({"1 Introduction": (0.9, 0.0), p.sentences[1].text: (0.3, 0.0), HEADED: (0.95, 0.0)})
    (claim,) = selector(scorer).select([ClaimInput(text="The introduction gives the size.", source="thought")], p)
    assert claim.verdict == "unsupported"
    assert [e.text for e in claim.evidence] == [p.sentences[1].text]


def test_nearest_skips_what_it_is_told_to_skip() -> None:
    p = headed_pool()
    query = np.asarray([[1.0, 0.0]], np.float32)  # closest to the heading
    assert [s.id for s in p.nearest(query, None, 1)[0]] == [1]  # type: ignore[arg-type]
    assert [s.id for s in p.nearest(query, None, 1, skip=lambda s: is_heading(s.text))[0]] == [2]  # type: ignore[arg-type]
    assert p.nearest(query, None, 5, skip=lambda s: True) == [[]]  # type: ignore[arg-type]


def sents_of(*texts: str) -> list[Sentence]:
    return [Sentence(id=i, doc_id=1, chunk_id=1, ord=i, page=1, start=0, end=len(t), text=t)
            for i, t in enumerate(texts)]


def test_contributes_needs_a_claim_word_only_each_sentence_has() -> None:
    keys = content_keys("The director of Jaws was born in Cincinnati.")
    hops = sents_of("Jaws is a 1975 film directed by Steven Spielberg.", "Spielberg was born in Cincinnati.")
    assert contributes(keys, hops)
    passenger = sents_of("Jaws was directed by Spielberg, born in Cincinnati.", "The film is about a shark.")
    assert not contributes(keys, passenger)  # the second holds no word of the claim
    echo = sents_of("Jaws was directed by Spielberg.", "Spielberg directed Jaws in 1975.")
    assert not contributes(keys, echo)  # "Cincinnati" is in neither; all they share, both have


def test_set_contribution_keeps_passengers_out_of_the_evidence() -> None:
    p = pool()
    s = [x.text for x in p.sentences]
    claims = [ClaimInput(text="Alpha is big and red.", source="answer")]
    # the cross-encoder likes the pair of "Alpha is red." with the unrelated Gamma sentence
    liked = f"{s[0]} {s[3]}"
    scorer = Scripted({s[0]: (0.6, 0.0), s[3]: (0.1, 0.0), liked: (0.9, 0.0), TEXT[0:27]: (0.85, 0.0)})
    assert [e.text for e in selector(scorer, set_gain=0.1).select(claims, p)[0].evidence] == [s[0], s[3]]
    # each of the adjacent pair holds a claim word the other lacks ("red", "big"): it wins instead
    (claim,) = selector(scorer, set_gain=0.1, set_contribution=True).select(claims, p)
    assert [e.text for e in claim.evidence] == [TEXT[0:27]] and claim.verdict == "supported"


def test_contra_overlap_ignores_contradictions_by_unrelated_text() -> None:
    p = pool()
    s = [x.text for x in p.sentences]
    claims = [ClaimInput(text="The report covers 2019.", source="thought")]
    unrelated = Scripted({s[2]: (0.05, 0.9)})  # shares no word with the claim
    assert selector(unrelated).select(claims, p)[0].verdict == "contradicted"
    assert selector(unrelated, contra_overlap=True).select(claims, p)[0].verdict == "unsupported"
    related = Scripted({s[2]: (0.05, 0.9)})
    blue = [ClaimInput(text="Beta was built in 1985.", source="thought")]
    (claim,) = selector(related, contra_overlap=True).select(blue, p)
    assert claim.verdict == "contradicted" and claim.evidence[0].text == s[2]


class Notation(Scripted):
    """Entails only when the claim writes the value as the premise does, as the packaged model
    did with "81.1M" against "81.1 million" (0.15 against 0.92)."""

    def score(self, premises: Sequence[str], hypothesis: str) -> npt.NDArray[np.float32]:
        self.calls += len(premises)
        rows = [[0.0, 0.1, 0.9] if "81.1M papers" in p and "81.1M papers" in hypothesis else [0.05, 0.9, 0.05]
                for p in premises]
        return np.asarray(rows, dtype=np.float32)


def test_the_model_reads_the_claims_value_as_the_sentence_writes_it() -> None:
    p = EvidencePool.from_texts(["The corpus is large. The corpus consists of 81.1M papers."])
    claims = [ClaimInput(text="The corpus consists of 81.1 million papers.", source="answer"),
              ClaimInput(text="The corpus consists of 81.2 million papers.", source="answer")]
    right, wrong = selector(Notation({})).select(claims, p)
    assert right.verdict == "supported" and right.evidence[0].text == "The corpus consists of 81.1M papers."
    assert wrong.verdict != "supported"  # another value is never rewritten into the sentence's


def test_a_list_number_is_no_part_of_a_decimal() -> None:
    claim = content_keys("The corpus consists of 81.1 million papers.")
    assert "81.1" in claim and "1" not in claim
    assert not contributes(claim, [Sentence(id=1, doc_id=1, chunk_id=1, ord=0, page=1, start=0, end=30,
                                            text="1) Process the PDFs of each paper."),
                                   Sentence(id=2, doc_id=1, chunk_id=1, ord=1, page=1, start=31, end=70,
                                            text="The corpus consists of 81.1M papers.")])
