"""How a text frames a value: as an outcome or an expectation, as an amount or a change.

A value the source only expects is no evidence that it happened.

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

A value the source gives only as a change is no evidence for it as an amount: "Net sales
increased by $150 million, or 1%, in fiscal year 2023" entailed "Amcor's net sales in fiscal
2023 were $150 million" for the packaged model (tried as a user; its net sales were $14,694
million). The text gives the value as a change when the words just before it are a verb or
noun of change ("increased", "declined by", "an increase of", a cell's "Change:"); the claim
states it as an amount when no word of change stands in its clause before the value nor after
it up to the next comma or value ("were $150 million, or 1% higher" states the $150 million
as an amount). Where the claim has such a word in that reach, it is left to the model (a
loose reading of the claim: "los" of "loss" also matches "Los Angeles", which only leaves
more to the model). The other way round, a value the claim gives as a change ("reduces the
standard deviation by 7.8") is not held by a text that writes it only as an amount, with no
word of change near it ("7.8 vs 14.0": 7.8 was the deviation, the change 6.2).
"""

from __future__ import annotations

import re

from gechat.evidence.values import Quantity, agree, claimed, located

# the source tells of the value as expected, planned or projected
_EXPECTS = re.compile(
    r"(?i)\b(?:expect(?:s|ed|ing)?|anticipat(?:e|es|ed|ing)|forecast(?:s|ed|ing)?|project(?:s|ed|ing)?\s+to|"
    r"outlook|intend(?:s|ed)?\s+to|plan(?:s|ned)?\s+to|aim(?:s|ed)?\s+to|estimated\s+to|predict(?:s|ed)?)\b")
# the claim leaves room for it not to have happened
_MOOD = re.compile(
    r"(?i)\b(?:expect\w*|anticipat\w*|forecast\w*|project\w*|outlook|guidance|intend\w*|plan\w*|aim\w*|"
    r"target\w*|estimat\w*|predict\w*|will|would|could|may|might|should|shall|can|likely|goal\w*)\b")
_CLAUSE_END = re.compile(r"[.;](?:\s|$)|,\s+(?:and|but|while|which|whereas)\b")
# the words just before a value that make it a change (not "gain" or "loss": amounts; not
# "up" or "down": "paid down $500 million" is an amount)
_CHANGE_BEFORE = re.compile(
    r"(?i)\b(?:increas|decreas|rose|rise|rising|grew|grow|declin|fell|fall|drop|jump|climb|improv|reduc|"
    r"higher|lower|change)[a-z]*\s*:?\s+(?:by\s+|of\s+)?(?:approximately\s+|about\s+|nearly\s+|almost\s+)?$")
# any word of change in the claim's reach of its value
_CHANGE_WORD = re.compile(
    r"(?i)\b(?:increas|decreas|rose|rise|rising|risen|grew|grow|declin|fell|fall|drop|jump|climb|improv|reduc|"
    r"higher|lower|more|less|change|up|down|gain|los|add|cut|expan|shr[iu]nk|swing|swung|differ|delta|"
    r"surge|plung|slip|slid|boost|lift)\w*")
_REACH_END = re.compile(r"[,;]|[.](?:\s|$)")


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
        at = _places(v, spans)
        if at and all(_expected(text, start) for start in at):
            out.append(v.text)
    return out


def as_changes(text: str) -> frozenset[str]:
    """The keys of the values ``text`` writes as changes ("Net sales increased by $150 million"),
    which say nothing of the level a claim states."""
    return frozenset(q.key for start, _, q in located(text)
                     if _CHANGE_BEFORE.search(text, max(0, start - 40), _after_space(text, start)))


def states_change(text: str) -> bool:
    """Whether ``text`` speaks of a change at all (a word of change anywhere in it)."""
    return _CHANGE_WORD.search(text) is not None


def changed_only(answer: str, given: str, text: str) -> list[str]:
    """The values ``answer`` (beyond its question ``given``) states as amounts that ``text``
    gives only as changes, as the answer writes them."""
    values = claimed(answer, given)
    if not values:
        return []
    spans = located(text)
    claim_spans = located(answer)
    out = []
    for v in values:
        if any(_changing(answer, a, e, claim_spans) for a, e, q in claim_spans if q.key == v.key):
            continue
        at = _places(v, spans)
        if at and all(_CHANGE_BEFORE.search(text, max(0, start - 40), _after_space(text, start)) for start in at):
            out.append(v.text)
    return out


def amount_only(answer: str, given: str, text: str) -> list[str]:
    """The values ``answer`` (beyond its question ``given``) states as changes ("reduces the
    deviation by 7.8", "rose 12%") that ``text`` gives only as amounts ("7.8 vs 14.0"): no
    word of change in the reach of any place it writes them."""
    values = claimed(answer, given)
    claim_spans = located(answer)
    spans = located(text)
    out = []
    for v in values:
        if not any(q.key == v.key and _as_change(answer, a) for a, _, q in claim_spans):
            continue
        at = [(start, end) for start, end, q in spans if q.key == v.key or agree(v, q)]
        if at and not any(_told_as_change(text, start, end) for start, end in at):
            out.append(v.text)
    return out


_WORD = re.compile(r"[A-Za-z]+")


# a sign written before a value makes it a difference: "∆= + 2.3", "+1.5", "−0.4"
_SIGNED = re.compile(r"[+−∆Δ][ \t=]*+$")


def _told_as_change(text: str, start: int, end: int) -> bool:
    """Whether the value at ``start:end`` is written as a change: a sign before it, or a word
    of change right by it (two words before, three after, in its clause): "increased by $150
    million", "up 12%", "a 30-40% increase", "Change: 12", "+ 2.3 point absolute increase"."""
    before = text[_clause_start(text, start):_after_space(text, start)]
    stop = _REACH_END.search(text, end)
    near = _WORD.findall(before)[-2:] + _WORD.findall(text[end:stop.start() if stop else len(text)])[:3]
    return _SIGNED.search(before) is not None or any(_CHANGE_WORD.match(w) for w in near)


def _as_change(text: str, at: int) -> bool:
    """Whether the value at ``at`` is written as a change: right after a word of change
    ("increased by", "rose"), or after "by" in a clause with one ("reduces the deviation by")."""
    before = text[_clause_start(text, at):_after_space(text, at)]
    by = before.rstrip().endswith(" by") and _CHANGE_WORD.search(before) is not None
    return by or _CHANGE_BEFORE.search(before) is not None


def _places(value: Quantity, spans: tuple[tuple[int, int, Quantity], ...]) -> list[int]:
    """Where a text (its ``located`` spans) states ``value``, in any form."""
    return [start for start, _, q in spans if q.key == value.key or agree(value, q)]


def _clause_start(text: str, at: int) -> int:
    """Where the clause that holds ``at`` opens."""
    return max((m.end() for m in _CLAUSE_END.finditer(text, 0, at)), default=0)


def _after_space(text: str, at: int) -> int:
    """Where the value found at ``at`` starts, a space it was found with aside."""
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _changing(text: str, start: int, end: int, spans: tuple[tuple[int, int, object], ...]) -> bool:
    """Whether a word of change is in the reach of the value at ``start:end``: its clause
    before it, and after it up to the next comma, clause end or value."""
    opening = _clause_start(text, start)
    after = _REACH_END.search(text, end)
    stop = min([after.start() if after else len(text), *(a for a, _, _ in spans if a >= end)])
    return bool(_CHANGE_WORD.search(text, opening, start) or _CHANGE_WORD.search(text, end, stop))


def _expected(text: str, start: int) -> bool:
    """Whether the clause that holds the value starting at ``start`` opens with an expectation
    before it."""
    return _EXPECTS.search(text, _clause_start(text, start), start) is not None


__all__ = ["amount_only", "changed_only", "foretold"]
