"""Answers to "which film is an American fantasy movie, A or B?": the option whose own
sentences say it, when the other's do not. As with "are A and B both X?"
(gechat.evidence.both), the cross-encoder reads the whole claim against one sentence and
cannot weigh a choice told in two paragraphs, so the question is cut into one claim per
option ("A Wrinkle in Time is an American fantasy movie"), each read against the sentences
naming its option. An answer naming the chosen option is supported when it says no more
than the question, and one naming the other option is contradicted.

Comparisons of amount or order ("which band has more members", "who was born first") are
not read this way: no one option's sentence says "more".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gechat.evidence import both
from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.evidence.compare import OPTIONS, mentions
from gechat.evidence.compare import parse as temporal
from gechat.lexical import STOPWORDS, content_keys, words
from gechat.models.entail.base import EntailmentScorer
from gechat.types import Sentence

# "Which film is ...", "Who was inducted ...", "What university was founded ...": the asked
# kind (up to three words) and the predicate from its verb on
_HEAD = re.compile(r"(?:^|[\"“])\s*(?:which|what|who)\s+(?:([\w'-]+(?:\s+[\w'-]+){0,2}?)\s+)?"
                   r"(is|was|are|were|has|had|have)\s+(.+)$", re.IGNORECASE)
_AMOUNT = re.compile(r"\b(?:more|most|less|least|fewer|greater|larger|largest|smaller|smallest|higher|highest|"
                     r"lower|lowest|bigger|biggest|longer|longest|shorter|shortest|better|best|further|farther|"
                     r"\w+er\s+than)\b", re.IGNORECASE)
_SINGULAR = {"are": "is", "were": "was", "have": "has"}
_DENY = frozenset(["not", "no", "neither", "nor", "never"])


@dataclass(frozen=True)
class WhichQuestion:
    options: tuple[str, str]
    predicate: str  # from the verb on, singular: "is an American fantasy movie"


def parse(question: str) -> WhichQuestion | None:
    """A question asking which of two named options something is, or None."""
    found = list(OPTIONS.finditer(question))
    if not found or temporal(question) is not None:
        return None
    m = found[-1]
    head = _HEAD.search(question[: m.start()].strip())
    if head is None or _AMOUNT.search(head.group(3)):
        return None
    a, b = (both.name_of(o) for o in (m.group(1), m.group(2)))
    pred = f"{_SINGULAR.get(head.group(2).lower(), head.group(2).lower())} {head.group(3).strip(' ,')}"
    if not (content_keys(a) and content_keys(b)) or len(words(pred)) < 2:
        return None
    return WhichQuestion((a, b), pred)


def claimed(claim: ClaimInput, q: WhichQuestion) -> int | None:
    """The option the answer names, when it names one and not the other and denies nothing
    ("B is not a wrestler" names B but does not choose it)."""
    said = set(words(claim.answer().replace("n't", " not")))
    if said & _DENY:
        return None
    named = [i for i, o in enumerate(q.options) if {w for w in words(o) if w not in STOPWORDS} <= said]
    return named[0] if len(named) == 1 else None


@dataclass(frozen=True)
class Choice:
    option: int  # the option its sentences say it of
    sentences: list[Sentence]  # each option's most entailing sentence
    note: str


def decide(pool: EvidencePool, q: WhichQuestion, scorer: EntailmentScorer, unsaid: float) -> Choice | None:
    """The option whose sentences entail its claim (P >= both.SAID) while the other's stay
    below ``unsaid``; None otherwise or when an option is not named."""
    if not all(mentions(pool, o) for o in q.options):
        return None
    a, b = q.options
    ra = both.read_claim(pool, a, b, f"{a} {q.predicate}", scorer)
    rb = both.read_claim(pool, b, a, f"{b} {q.predicate}", scorer)
    if ra is None or rb is None:
        return None
    if ra.p_entail >= both.SAID and rb.p_entail < unsaid:
        winner = 0
    elif rb.p_entail >= both.SAID and ra.p_entail < unsaid:
        winner = 1
    else:
        return None
    return Choice(winner, [ra.entailing, rb.entailing], both.noted(ra, rb))
