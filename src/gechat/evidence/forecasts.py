"""A value the source only expects is no evidence that it happened.

Filings, earnings releases and plans state figures as expectations: "Net sales are expected to
be between $47.75 billion and $50.75 billion" (Amazon's guidance for a quarter still to come).
The packaged entailment model reads such a sentence as proof of "Amazon's total net sales in
2017 were between $47.75 billion and $50.75 billion" (0.96): it matches the figures and not
the mood. A claim that states a value as an outcome (no word of expectation, plan or
possibility of its own) is held to a source that states that value as an outcome too: where
every place the source gives the value sits in a clause that opens with an expectation
("expected to", "anticipates", "plans to", "forecast", "outlook"), the value is missing from
it. Not "guidance" (in a filing, also the accounting standards' guidance), nor "target" (also
a company), nor "projected" without "to" (a pension's "projected benefit obligation" is
reported, not expected). A clause ends at a full stop, a semicolon or a comma before "and", "but",
"while", "which" or "whereas"; "Revenue rose 10% to $5 billion, and we expect further growth"
still states its $5 billion as an outcome.
"""

from __future__ import annotations

import re

from gechat.evidence.values import agree, claimed, located

# the source tells of the value as expected, planned or projected
_EXPECTS = re.compile(
    r"(?i)\b(?:expect(?:s|ed|ing)?|anticipat(?:e|es|ed|ing)|forecast(?:s|ed|ing)?|project(?:s|ed|ing)?\s+to|"
    r"outlook|intend(?:s|ed)?\s+to|plan(?:s|ned)?\s+to|aim(?:s|ed)?\s+to|estimated\s+to|predict(?:s|ed)?)\b")
# the claim leaves room for it not to have happened
_MOOD = re.compile(
    r"(?i)\b(?:expect\w*|anticipat\w*|forecast\w*|project\w*|outlook|guidance|intend\w*|plan\w*|aim\w*|"
    r"target\w*|estimat\w*|predict\w*|will|would|could|may|might|should|shall|can|likely|goal\w*)\b")
_CLAUSE_END = re.compile(r"[.;](?:\s|$)|,\s+(?:and|but|while|which|whereas)\b")


def foretold(answer: str, given: str, text: str) -> list[str]:
    """The values ``answer`` (beyond its question ``given``) states as outcomes that ``text``
    gives only as expected ones, as the answer writes them; [] when the answer has a word of
    expectation itself or states no value."""
    values = claimed(answer, given)
    if not values or _MOOD.search(answer):
        return []
    spans = located(text)
    out = []
    for v in values:
        at = [start for start, _, q in spans if q.key == v.key or agree(v, q)]
        if at and all(_expected(text, start) for start in at):
            out.append(v.text)
    return out


def _expected(text: str, start: int) -> bool:
    """Whether the clause that holds the value starting at ``start`` opens with an expectation
    before it."""
    opening = max((m.end() for m in _CLAUSE_END.finditer(text, 0, start)), default=0)
    return _EXPECTS.search(text, opening, start) is not None


__all__ = ["foretold"]
