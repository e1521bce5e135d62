"""Step ``verify``: the verifier reads again a claim that one passage supports, and only that."""

from __future__ import annotations

from typing import Any

from gechat.evidence import SELECTORS
from gechat.evidence.base import ClaimInput
from gechat.evidence.candidates import Candidates
from gechat.evidence.chain import EvidenceChain
from gechat.evidence.scoring import NliScores
from gechat.evidence.sets import SentenceSets
from gechat.evidence.steps import ClaimState
from gechat.evidence.verdict import Verdicts
from gechat.evidence.verify import SecondReading
from gechat.models.entail.fake import FakeEntailment
from gechat.settings import Settings
from tests.unit.test_evidence_objective import Scripted, context, pool


def _run(fast: Scripted, verifier: Scripted | None, claim: str) -> tuple[ClaimState, SecondReading]:
    ctx = context(fast)
    state = ClaimState(claim=ClaimInput(text=claim, source="answer"))
    second = SecondReading(verifier, threshold=0.4)
    for step in (Candidates(60), NliScores(), SentenceSets(top=3), second, Verdicts()):
        step.run([state], ctx)  # type: ignore[attr-defined]
    return state, second


def test_a_one_passage_support_stands_only_if_the_verifier_reads_it_too() -> None:
    first = pool().sentences[0].text
    fast = Scripted({first: (0.9, 0.0)})
    # the verifier reads the same sentence against the same claim, and does not find it
    state, step = _run(fast, Scripted({first: (0.1, 0.2)}), "The claim.")
    assert state.verdict == "unsupported" and step.read == 1
    assert "verifier" in state.note and [e.text for e in state.evidence] == [first]  # the closest still shown
    state, _ = _run(fast, Scripted({first: (0.8, 0.0)}), "The claim.")
    assert state.verdict == "supported"
    # without a verifier the step reads nothing
    state, step = _run(fast, None, "The claim.")
    assert state.verdict == "supported" and step.read == 0


def test_a_set_from_two_places_is_left_to_the_fast_model() -> None:
    s = [x.text for x in pool().sentences]
    fast = Scripted({s[0]: (0.3, 0.0), s[2]: (0.3, 0.0), f"{s[0]} {s[2]}": (0.95, 0.0)})
    state, step = _run(fast, Scripted({}), "The red Alpha is as old as Beta.")
    assert state.verdict == "supported" and [e.text for e in state.evidence] == [s[0], s[2]] and step.read == 0


def test_the_verifier_is_loaded_only_for_the_packaged_fast_model() -> None:
    s = Settings.load("test")

    def verify(**deps: Any) -> SecondReading:
        chain = SELECTORS.create("nli-objective", s, **deps)
        assert isinstance(chain, EvidenceChain)
        (found,) = [x for x in chain.steps if x.name == "verify"]
        assert isinstance(found, SecondReading)
        return found

    assert verify(scorer=FakeEntailment()).verifier is None  # a test's or a user's own model
    mine = Scripted({})
    assert verify(scorer=FakeEntailment(), verifier=mine).verifier is mine  # given: used


def test_a_table_row_is_left_to_the_value_checks() -> None:
    from gechat.evidence.base import EvidencePool

    row = "Total capital expenditures | 2020: $ 1,822 | 2019: $ 1,654"
    ctx = context(Scripted({row: (0.9, 0.0)}))
    ctx.pool = EvidencePool.from_texts([row])
    state = ClaimState(claim=ClaimInput(text="Capital expenditures in 2020 were $1,822 million.", source="answer"))
    second = SecondReading(Scripted({}), threshold=0.4)
    for step in (Candidates(60), NliScores(), second, Verdicts()):
        step.run([state], ctx)  # type: ignore[attr-defined]
    assert state.verdict == "supported" and second.read == 0


def test_where_the_fast_model_passes_nothing_the_verifier_reads_the_best_candidates_that_hold_the_claim() -> None:
    s = [x.text for x in pool().sentences]
    fast = Scripted({s[2]: (0.3, 0.0), s[0]: (0.2, 0.0)})  # below the threshold: nothing passes

    def run(verifier: Scripted, top: int = 3, first: Scripted = fast) -> tuple[ClaimState, SecondReading]:
        ctx = context(first, coverage="facts")
        state = ClaimState(claim=ClaimInput(text="Beta was built in 1990.", source="answer"))
        second = SecondReading(verifier, threshold=0.4, top=top)
        for step in (Candidates(60), NliScores(), SentenceSets(top=3), second, Verdicts()):
            step.run([state], ctx)  # type: ignore[attr-defined]
        return state, second

    state, step = run(Scripted({s[2]: (0.8, 0.0), s[0]: (0.9, 0.0)}))
    # "Alpha is red." lacks "Beta" and "1990": not read, whatever the verifier would say of it
    assert state.verdict == "supported" and [e.text for e in state.evidence] == [s[2]] and step.read == 1
    assert "verifier" in state.note
    state, step = run(Scripted({s[2]: (0.3, 0.0)}))
    assert state.verdict == "unsupported" and step.read == 1
    # only the ``top`` best-scored candidates are read: here "Alpha is red." alone, which lacks the names
    state, step = run(Scripted({s[2]: (0.8, 0.0)}), top=1, first=Scripted({s[2]: (0.3, 0.0), s[0]: (0.35, 0.0)}))
    assert state.verdict == "unsupported" and step.read == 0


def test_the_verifier_reads_a_candidate_under_the_heading_that_says_what_it_is_about() -> None:
    from gechat.evidence.base import EvidencePool
    from gechat.types import Chunk, Sentence

    text = "Each party shall protect Confidential Information. These obligations survive for five years."
    a = text.index("These")
    sents = [Sentence(id=1, doc_id=1, chunk_id=1, ord=0, page=1, start=0, end=a - 1, text=text[:a - 1],
                      context="Agreement > 4. Confidentiality"),
             Sentence(id=2, doc_id=1, chunk_id=1, ord=1, page=1, start=a, end=len(text), text=text[a:],
                      context="Agreement > 4. Confidentiality")]
    chunk = Chunk(id=1, doc_id=1, ord=0, start=0, end=len(text), text=text, sentence_ids=[1, 2])
    claim = "Confidentiality obligations survive for five years."
    under = f"4. Confidentiality. {text[a:]}"
    fast = Scripted({text[a:]: (0.2, 0.0)})  # read alone, below the threshold
    # the verifier finds the claim only in the sentence read under its heading
    for verifier, verdict in ((Scripted({under: (0.9, 0.0)}), "supported"),
                              (Scripted({text[a:]: (0.9, 0.0)}), "unsupported")):
        ctx = context(fast, coverage="facts")
        ctx.pool = EvidencePool(sentences=sents, chunks={1: chunk}, titles={1: "msa.md"})
        state = ClaimState(claim=ClaimInput(text=claim, source="answer"))
        for step in (Candidates(60), NliScores(), SecondReading(verifier, threshold=0.4), Verdicts()):
            step.run([state], ctx)  # type: ignore[attr-defined]
        assert state.verdict == verdict
        if verdict == "supported":  # shown as the document writes it, with the heading it was read under
            assert [e.text for e in state.evidence] == [text[a:]]
            assert "Confidentiality" in state.evidence[0].context


def test_a_passage_the_fast_model_passed_is_read_again_under_its_heading_too() -> None:
    from gechat.evidence.base import EvidencePool
    from gechat.types import Chunk, Sentence

    text = "This process results in about 684K training triples."
    sents = [Sentence(id=1, doc_id=1, chunk_id=1, ord=0, page=5, start=0, end=len(text), text=text,
                      context="SPECTER > Training Data")]
    chunk = Chunk(id=1, doc_id=1, ord=0, start=0, end=len(text), text=text, sentence_ids=[1])
    claim = "SPECTER is trained on 684K training triples."
    fast = Scripted({text: (0.9, 0.0)})
    for verifier, verdict in ((Scripted({f"SPECTER. {text}": (0.9, 0.0)}), "supported"),
                              (Scripted({text: (0.9, 0.0)}), "unsupported")):
        ctx = context(fast, coverage="facts")
        ctx.pool = EvidencePool(sentences=sents, chunks={1: chunk}, titles={1: "specter.pdf"})
        state = ClaimState(claim=ClaimInput(text=claim, source="answer"))
        for step in (Candidates(60), NliScores(), SecondReading(verifier, threshold=0.4), Verdicts()):
            step.run([state], ctx)  # type: ignore[attr-defined]
        assert state.verdict == verdict, state.note
