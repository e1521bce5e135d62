"""Atomic claims (issue 34, 3a): the split, the LLM's split and its guard, and the verdict of a
claim of several facts."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from gechat.evidence.atoms import LLMDecomposer, Rules, combine, split_names
from gechat.evidence.base import ClaimInput
from gechat.evidence.candidates import Candidates
from gechat.evidence.chain import EvidenceChain
from gechat.evidence.scoring import NliScores
from gechat.evidence.verdict import Verdicts
from gechat.models.llm.fake import FakeLLM
from gechat.types import Claim
from tests.unit.test_evidence_objective import Scripted, context


def claim(text: str, given: str = "") -> ClaimInput:
    return ClaimInput(text=text, source="answer", given=given)


@pytest.mark.parametrize(("text", "atoms"), [
    ("Acme was founded by Alice Smith and Bob Jones.",
     ["Acme was founded by Alice Smith.", "Acme was founded by Bob Jones."]),
    ("He studied at Harvard, Yale, and Oxford.",
     ["He studied at Harvard.", "He studied at Yale.", "He studied at Oxford."]),
    ("J.P. Morgan and Citi lent it.", ["J.P. Morgan lent it.", "Citi lent it."]),
    # one relation, not several facts
    ("The merger between Acme and Beta closed in 2020.", ["The merger between Acme and Beta closed in 2020."]),
    ("Alice Smith and Bob Jones founded Acme together.", ["Alice Smith and Bob Jones founded Acme together."]),
    # a sentence's first word is capitalised anyway: ambiguous, left whole
    ("Shares of Apple and Microsoft rose.", ["Shares of Apple and Microsoft rose."]),
    # only names are split
    ("Revenue was $5 million in 2022 and $6 million in 2023.",
     ["Revenue was $5 million in 2022 and $6 million in 2023."]),
    # a name cut by a PDF's stray mark ("F¨arber") is not a name of the list: never cut in two
    ("The work of Saier and F¨arber is an update.", ["The work of Saier and F¨arber is an update."]),
    ("It was written by Smith and Jones (2020).",
     ["It was written by Smith (2020).", "It was written by Jones (2020)."]),
])
def test_split_names(text: str, atoms: list[str]) -> None:
    assert split_names(claim(text)) == atoms


def test_a_list_in_the_question_is_what_was_asked_about() -> None:
    q = "The answer to the question 'Are Tom Smith and Jerry Jones both cats?' is: "
    assert split_names(claim(q + "no", given=q)) == [q + "no"]


def test_llm_facts_are_used_unless_they_bring_a_name_or_number_the_claim_lacks() -> None:
    text = "Acme, founded in 1990, sells pumps in Europe."
    good = json.dumps({"facts": ["Acme was founded in 1990.", "Acme sells pumps in Europe."]})
    invented = json.dumps({"facts": ["Acme was founded in 1991.", "Acme sells pumps in Asia."]})
    llm = FakeLLM([good, invented, "not json"])
    atoms = LLMDecomposer(llm)
    assert atoms.split([claim(text)]) == [["Acme was founded in 1990.", "Acme sells pumps in Europe."]]
    assert llm.calls[0][1]["json_schema"]["required"] == ["facts"]
    assert atoms.split([claim(text)]) == [[text]]  # invented values: the rules' split (none here)
    assert atoms.split([claim(text)]) == [[text]]  # unreadable reply
    assert atoms.split([claim("Yes.")]) == [["Yes."]] and len(llm.calls) == 3  # too short to ask


def test_combine_needs_every_fact() -> None:
    def atom(verdict: str) -> Claim:
        return Claim(text=verdict, source="answer", verdict=verdict)  # type: ignore[arg-type]

    def verdict(*vs: str) -> str:
        return combine("c", "answer", [atom(v) for v in vs]).verdict

    assert verdict("supported", "supported") == "supported"
    assert verdict("supported", "unsupported") == "unsupported"
    assert verdict("supported", "contradicted") == "contradicted"
    assert verdict("supported", "no fact") == "supported"
    assert verdict("no fact", "no fact") == "no fact"


class ByPair(Scripted):
    """Entails only the (premise, hypothesis) pairs listed."""

    def __init__(self, pairs: dict[tuple[str, str], float]) -> None:
        super().__init__({})
        self.pairs = pairs

    def score(self, premises: Sequence[str], hypothesis: str) -> npt.NDArray[np.float32]:
        out = np.tile(np.array([0.05, 0.9, 0.05], dtype=np.float32), (len(premises), 1))
        for i, p in enumerate(premises):
            if (p, hypothesis) in self.pairs:
                out[i] = [0.0, 1.0 - self.pairs[(p, hypothesis)], self.pairs[(p, hypothesis)]]
        return out


def test_chain_checks_each_fact_with_its_own_evidence() -> None:
    whole = "It was painted by Alpha and Beta."
    steps = [Candidates(60), NliScores(), Verdicts(overlap=False)]
    # the whole sentence is entailed by one sentence that names only one painter
    scorer = ByPair({("Alpha is red.", whole): 0.9, ("Alpha is red.", "It was painted by Alpha."): 0.9})
    (alone,) = EvidenceChain(steps, context(scorer)).select([claim(whole)], context(scorer).pool)  # type: ignore[arg-type]
    assert alone.verdict == "supported" and not alone.atoms
    (out,) = EvidenceChain(steps, context(scorer), Rules()).select(  # type: ignore[arg-type]
        [claim(whole)], context(scorer).pool)
    assert [(a.text, a.verdict) for a in out.atoms] == [("It was painted by Alpha.", "supported"),
                                                       ("It was painted by Beta.", "unsupported")]
    assert out.text == whole and out.verdict == "unsupported"
    assert [e.text for e in out.evidence][:1] == ["Alpha is red."]
