"""Step ``facts``: a reasoning step that states no fact is labelled ``no fact``, not checked.

A step about the documents themselves ("This information is directly provided in the first
sentence of the introduction") or one that only restates the question holds nothing a
source sentence could support or refute, yet the cross-encoder gives such text a weak
P_entail against the sentence it points at, enough to pass. Such a claim is finished with
the verdict ``no fact``: shown greyed, never counted as supported.

The test is lexical and holds for any text: the step's content words, less the question's
and less the words that only talk about documents, reading and answering, leave nothing.
A number counts as a fact unless it only locates text ("page 3", "excerpt [2]"). Answer
claims are left to the model: "Yes." to a question asserts the question.
"""

from __future__ import annotations

import re

from gechat.evidence.steps import ClaimState, EvidenceContext, active
from gechat.lexical import LOCATOR, content_keys

# Words about documents, reading and answering: a step made of these (and the question's own
# words) says where something is written, not what is true.
META = content_keys(
    "document documents text paper article report filing passage passages excerpt excerpts source "
    "sources section sections chapter introduction abstract conclusion summary sentence sentences "
    "paragraph paragraphs page pages line lines table tables figure figures appendix footnote "
    "information info details detail context question questions answer answers query asked asks "
    "ask asking state states stated statement mention mentions mentioned mentioning provide provides "
    "provided providing give gives given say says said saying according directly clearly "
    "explicitly specifically indicate indicates indicated show shows shown describe describes "
    "described refer refers referred note notes noted find found look looking read reading based "
    "therefore thus hence also above below following first second third last previous next here "
    "relevant explicit specific part point step steps reasoning conclude determine identify need "
    "needed know known tell tells told check checked see seen directly not no yes only just "
    "answered answering asked question's correct correctly "
    # how it is written: "The information is presented in a straightforward manner, without
    # any additional context or interpretation"
    "present presents presented presenting straightforward manner way without additional "
    "explanation explain explained further making "
    # what is being told, not what it is: "These numbers are directly provided ..."
    "number numbers amount amounts value values data about regarding"
)
# read as whole words: its 5-letter key "inter" is also "interest" and "international"
_INTERPRET = re.compile(r"\binterpret\w*", re.IGNORECASE)
# a part of the document named by its quoted heading: "the "NOTES TO CONSOLIDATED FINANCIAL
# STATEMENTS" section" says where, like "page 3"
_PART = r"(?:sections?|tables?|parts?|headings?|chapters?|notes?|items?|statements?)"
_NAMED_PART = re.compile(rf"[\"“][^\"”]{{1,100}}[\"”]\s+{_PART}\b|\b{_PART}\s+(?:titled\s+|entitled\s+|called\s+)?"
                         rf"[\"“][^\"”]{{1,100}}[\"”]", re.IGNORECASE)


def states_no_fact(text: str, question: str = "") -> bool:
    """Whether ``text`` says nothing beyond the question but where something is written."""
    keys = content_keys(_INTERPRET.sub(" ", LOCATOR.sub(" ", _NAMED_PART.sub(" ", text))))
    return not (keys - content_keys(question) - META)


class NoFact:
    name = "facts"

    def run(self, states: list[ClaimState], ctx: EvidenceContext) -> None:
        for state in active(states):
            claim = state.claim
            if claim.source == "thought" and states_no_fact(claim.text, claim.given):
                state.verdict = "no fact"
                state.note = "states no fact to check: it says where something is written or restates the question"
