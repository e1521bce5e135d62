"""The other option of a question that compares two: its sentence, when the evidence has only
one side.

"Which composer was from Norway, Ola Berg or Karl Lund?" is answered by "Ola Berg (1880 –
1950) was a Norwegian composer." That sentence proves what it says, but the reader cannot
check the answer without Karl Lund's sentence too ("Karl Lund was a Danish composer."): a
comparison rests on both sides. The entailment model finds the first (it holds the answer's
words) and has no reason to add the second. So when the question names two options and the
evidence of a supported answer mentions only one of them, the sentence about the other that
shares the most words with the evidence and the question is added. The verdict stays the
model's; this only completes what the reader sees. (Temporal comparisons and "the same
country?" are judged by gechat.evidence.compare and gechat.evidence.same, which read both
sides already.)
"""

from __future__ import annotations

import re

from gechat.evidence.base import PARENS, EvidencePool
from gechat.evidence.bridge import docs_named
from gechat.evidence.compare import OPTIONS, mentions
from gechat.lexical import content_keys
from gechat.types import Sentence

_CAP_RUN = r"((?:[A-Z0-9][\w'’.&+-]*\s+(?:(?:of|the|and|de|la|von|van)\s+)?)*[A-Z0-9][\w'’.&+-]*)"
_VERB = r"\b(?:[Ww]as|[Ww]ere|[Ii]s|[Aa]re|[Dd]id|[Dd]oes|[Dd]o|[Hh]as|[Hh]ave)\s+(?:both\s+)?"
_PATTERNS = (
    OPTIONS,  # "..., A or B?"
    # "Which band, A or B, had more members?"
    re.compile(r"^[^,]*\bwhich\b[^,]*,\s*([^,:?\"]+?)\s+or\s+([^,?\"]+?)\s*,", re.IGNORECASE),
    re.compile(rf"{_VERB}{_CAP_RUN}\s+or\s+{_CAP_RUN}(?=\s+[a-z])"),  # "Was A or B born first?"
    re.compile(rf"{_VERB}{_CAP_RUN}\s+and\s+{_CAP_RUN}(?=\s+[a-z])"),  # "Are A and B both ...?"
)


def options(question: str) -> tuple[str, str] | None:
    """The two options a question compares, without parenthesised qualifiers ("(Film)")."""
    q = question.replace("“", '"').replace("”", '"')
    for pattern in _PATTERNS:
        found = list(pattern.finditer(q))
        if found:
            a, b = (PARENS.sub("", g).strip(" .\"'") for g in found[-1].groups())
            if content_keys(a) and content_keys(b) and content_keys(a) != content_keys(b):
                return a, b
    return None


def _mentioned(name: str, sentences: list[Sentence]) -> bool:
    keys = content_keys(name)
    return any(keys <= content_keys(s.text) for s in sentences)


def find(pool: EvidencePool, question: str, evidence: list[Sentence]) -> Sentence | None:
    """The sentence about the option the evidence leaves out, when it leaves out exactly one."""
    opts = options(question)
    if opts is None:
        return None
    missing = [o for o in opts if not _mentioned(o, evidence)]
    if len(missing) != 1:
        return None
    names = content_keys(opts[0]) | content_keys(opts[1])
    # the same kind of fact as the evidence states for the other side ("Norwegian composer")
    wanted = (content_keys(" ".join(s.text for s in evidence)) | content_keys(question)) - names
    have = {s.id for s in evidence}
    found = [s for s in mentions(pool, missing[0]) if s.id not in have]
    if not found:
        return None
    # a sentence of the option's own document first (not "The Russian Toy Terrier ... unlike
    # the Manchester Terrier" for the Manchester Terrier); mentions() ranks a sentence about the
    # option first, and a stable sort keeps that order among equals
    own = docs_named(pool, missing[0])
    return max(found, key=lambda s: (s.doc_id in own, len((content_keys(s.text) - names) & wanted)))
