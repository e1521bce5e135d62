"""Claims to ground: the answer's sentences, then (optionally) the reasoning steps."""

from __future__ import annotations

import re

from gechat.answer.base import Draft
from gechat.documents import split_sentences
from gechat.evidence.base import ClaimInput, as_answer_to
from gechat.types import PageInfo, ParsedDocument, Span

# An honest "the documents don't say" is not a factual claim about the documents.
_ABSTAIN = re.compile(
    r"\b(?:(?:do|does|did) not (?:say|state|mention|contain|provide|specify)|not (?:mentioned|stated|"
    r"specified|provided)|no (?:information|mention)|cannot be determined|unable to (?:find|determine))\b",
    re.I,
)
_MIN_WORDS = 3
_YES_NO = frozenset(("yes", "no"))
# "3. Net income was ..." in a numbered answer: the list number is no value of the claim
_LIST_MARK = re.compile(r"^(?:\(?\d{1,2}[.)]|[-*•])\s+(?=\S)")
# An answer as short as "0.7 billion" or "Chief of Protocol" states nothing on its own: it is
# checked as the answer to the question, in the form the grounding model was trained on.
_FRAGMENT_WORDS = 5
_VERB = re.compile(r"\b(?:is|are|was|were|be|been|has|have|had|do|does|did|will|would|can|could|may|might|"
                   r"\w+(?:ed|es))\b", re.I)


def split_text(text: str) -> list[str]:
    doc = ParsedDocument(text=text, kind="text", title="", pages=[PageInfo(number=1, start=0, end=len(text))],
                         blocks=[Span(start=0, end=len(text))])
    return [s.text for s in split_sentences(doc)]


def stands_alone(text: str) -> bool:
    """Whether an answer is a sentence of its own ("Amcor is a global leader in packaging"),
    checked as it is written, not as the answer to the question (the form kept for a fragment,
    ``as_answer_to``): longer than a fragment, with a verb."""
    return len(text.split()) > _FRAGMENT_WORDS and bool(_VERB.search(text))


def is_abstention(text: str) -> bool:
    return bool(_ABSTAIN.search(text))


def make_claims(draft: Draft, *, from_thoughts: bool, question: str = "") -> list[ClaimInput]:
    claims: list[ClaimInput] = []
    seen: set[str] = set()
    parts = [(s, "answer") for s in split_text(draft.text)]
    if from_thoughts:
        parts += [(s, "thought") for t in draft.thoughts for s in split_text(t)]
    for text, source in parts:
        text = _LIST_MARK.sub("", text)
        key = re.sub(r"\W+", " ", text.lower()).strip()
        figure = any(c.isdigit() for c in key)
        # "-es" also ends plurals: "168 stores" is a figure too short to be a sentence
        fragment = (source == "answer" and bool(question) and len(text.split()) <= _FRAGMENT_WORDS
                    and (not _VERB.search(text) or (figure and len(key.split()) < _MIN_WORDS)))
        # a bare figure ("6,701") or name ("Carlo Rovelli", "SciBERT") is the whole answer to
        # the question: it is checked, not dropped as too short to state anything (a bare
        # "Yes" / "No" still is: the answer's other sentences say what it means)
        named = any(w[:1].isupper() for w in text.split()) and key not in _YES_NO
        short = len(key.split()) < _MIN_WORDS and not (fragment and (figure or named))
        if short or key in seen or is_abstention(text):
            continue
        seen.add(key)
        if fragment:
            text = as_answer_to(question, text)
        claims.append(ClaimInput(text=text, source=source, given=question))  # type: ignore[arg-type]
    return claims
