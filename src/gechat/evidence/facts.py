"""Step ``facts``: a reasoning step that states no fact is labelled ``no fact``, not checked.

A step about the documents themselves ("This information is directly provided in the first
sentence of the introduction") or one that only restates the question holds nothing a
source sentence could support or refute, yet the cross-encoder gives such text a weak
P_entail against the sentence it points at, enough to pass. Such a claim is finished with
the verdict ``no fact``: shown greyed, never counted as supported.

The test is lexical and holds for any text: the step's content words, less the question's
and less the words that only talk about documents, reading and answering, leave nothing.
A number counts as a fact unless it only locates text ("page 3", "excerpt [2]"). A step that
only says it answers the question ("This directly answers the question by providing the cap
on liability for each party") states no fact unless it names something or gives a number the
question does not. An answer claim is one only when it also points into the documents ("The
authors of the S2ORC paper are listed in the abstract of the paper": where, not who); any other
is left to the model: "Yes." to a question asserts the question.
"""

from __future__ import annotations

import re

from gechat.evidence.steps import ClaimState, EvidenceContext, active
from gechat.lexical import LOCATOR, META, content_keys, fact_keys

# read as whole words: its 5-letter key "inter" is also "interest" and "international"
_INTERPRET = re.compile(r"\binterpret\w*", re.IGNORECASE)
# a part of the document named by its quoted heading: "the "NOTES TO CONSOLIDATED FINANCIAL
# STATEMENTS" section" says where, like "page 3"
_PART = r"(?:sections?|tables?|parts?|headings?|chapters?|notes?|items?|statements?)"
_QUOTED = r"[\"“][^\"”]{1,100}[\"”]"
_NAMED_PART = re.compile(rf"(?:\b(?:under|in|from|at)\s+the\s+)?{_QUOTED}\s+{_PART}\b"
                         rf"|\b{_PART}\s+(?:titled\s+|entitled\s+|called\s+)?{_QUOTED}", re.IGNORECASE)


# a step about the answer itself: "This directly answers the question by providing the cap on
# liability for each party" (its words name what was asked, not a fact of the documents)
_ANSWERS = re.compile(r"^\W*(?:this|that|it|these)\b[^.;:]{0,40}?\b(?:answers|addresses|responds\s+to)\s+"
                      r"(?:the|this|your|our)\s+question\b", re.IGNORECASE)


# a step about what the documents hold: "The other excerpts provide additional information
# about research and development expenses", "The document provides sales data for each
# segment" (what it is about, not what it says; "The table shows that ..." states a fact)
_HOLDS = re.compile(r"^\W*+(?:[\w']++\s++){0,3}?(?:excerpts?|documents?|text|passages?|sources?|tables?|sections?|"
                    r"reports?|filings?|paragraphs?|context)\s+(?:also\s+|do(?:es)?\s+not\s+)?(?:provides?|"
                    r"contains?|gives?|includes?|offers?|presents?|has|have|shows?|lists?)\s+(?:[\w'-]++\s++){0,3}?"
                    r"(?:information|data|details|figures|numbers|breakdown|overview)\b(?!\s+that\b)", re.IGNORECASE)


# what is being told, like META's "number" and "amount": "The total number of papers is given
# in the first line of the table" says where; kept out of META, whose other users (sets,
# verdicts) must count "total revenue" as what a claim is about
_TOTAL = content_keys("total totals")
# how the step was reached, not what it found: "This information is directly provided in the
# text, without needing to infer or calculate anything"
_REASONING = content_keys("need needs needed needing infer inferred inferring inference calculate calculated "
                          "calculating calculation compute computed computing look looking anything something")
# the parts of a document an answer may point to instead of answering
_WHERE = content_keys("document text paper article report filing passage excerpt source section chapter "
                      "introduction abstract conclusion summary sentence paragraph page line table figure "
                      "appendix footnote exhibit")


def states_no_fact(text: str, question: str = "") -> bool:
    """Whether ``text`` says nothing beyond the question but where something is written, or
    only that it answers the question or what the documents hold information about (no name
    or number the question lacks)."""
    if (_ANSWERS.match(text) or _HOLDS.match(text)) and not fact_keys(text) - fact_keys(question) - META:
        return True
    keys = content_keys(_INTERPRET.sub(" ", LOCATOR.sub(" ", _NAMED_PART.sub(" ", text))))
    return not (keys - content_keys(question) - META - _TOTAL - _REASONING)


class NoFact:
    name = "facts"

    def run(self, states: list[ClaimState], ctx: EvidenceContext) -> None:
        for state in active(states):
            claim = state.claim
            if states_no_fact(claim.text, claim.given) and (
                    claim.source == "thought" or (content_keys(claim.text) - content_keys(claim.given)) & _WHERE):
                state.verdict = "no fact"
                state.note = "states no fact to check: it says where something is written or restates the question"
