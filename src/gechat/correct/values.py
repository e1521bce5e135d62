"""A value the evidence contradicts, put right: the evidence's value in its place, and the
readings that show the sentence so corrected holds (a table row's cell looked up, a list of
values paired with a list of years), where the entailment model reads only digits."""

from __future__ import annotations

import re

from gechat.evidence.base import ClaimInput
from gechat.evidence.dates import years
from gechat.evidence.lookup import look_up
from gechat.evidence.periods import listed_by_year
from gechat.evidence.rows import quantity_words
from gechat.evidence.steps import holds
from gechat.evidence.values import agree, claimed, comparable, narrow, stated
from gechat.lexical import content_keys
from gechat.types import Claim, Edit, Evidence

_CURRENCY_SPACE = re.compile(r"([$€£¥]) ")


def value_edit(claim: Claim, a: int, sentence: str, question: str) -> Edit | None:
    """The claim's value the evidence contradicts, replaced by the evidence's (a value, not a
    name's digits: "3M" is no figure of "3M's net sales were ...", nor one the question gives)."""
    if not claim.evidence:
        return None
    # the value of the claim's year: a row's quarter columns name no year, and are not the year's
    wanted = years(claim.text)
    source = narrow(claim.evidence[0].text, wanted, strict=True)
    theirs = stated(source)
    for c in claimed(sentence, question):
        if c.kind == "year" or any(agree(c, s) for s in theirs):
            continue
        same_kind = [s for s in theirs if comparable(c, s)]
        # of a list of values for a list of years, the value of the claim's year
        year = listed_by_year(source).get(next(iter(wanted))) if len(wanted) == 1 and len(same_kind) > 1 else None
        same_kind = [year] if year is not None and comparable(c, year) else same_kind
        at = sentence.find(c.text)
        if len(same_kind) == 1 and at >= 0:
            new = _CURRENCY_SPACE.sub(r"\1", same_kind[0].text)  # "$ 4,869" as a table prints it
            return Edit(kind="replace", start=a + at, end=a + at + len(c.text), old=c.text, new=new,
                        triplet=[], reason=f"the source states {new}, not {c.text}", evidence=claim.evidence[0])
    return None


def _listed(source: str, fixed: str, question: str) -> bool:
    """Whether prose ``source`` that lists values for a list of years gives the value of
    ``fixed`` for its one year, and holds what else it says (its names, numbers and the words
    of its quantity, or the question does): the list read as a reader pairs it, which the
    model does not ("$2.2 billion, $4.2 billion, and $4.1 billion for 2015, 2016, and 2017")."""
    wanted = years(fixed)
    theirs = listed_by_year(source).get(next(iter(wanted))) if len(wanted) == 1 else None
    if theirs is None or not any(agree(q, theirs) for q in claimed(fixed, question)):
        return False
    said = content_keys(" ".join(quantity_words(fixed)))
    return said <= content_keys(f"{source} {question}") and holds(
        ClaimInput(text=fixed, source="answer", given=question), source)


def read_off(evidence: Evidence, fixed: str, question: str) -> bool:
    """Whether ``evidence`` bears out the corrected sentence ``fixed`` as a reader reads it: a
    table row's cell looked up (``evidence.lookup``), or a list of values for a list of years."""
    claim = ClaimInput(text=fixed, source="answer", given=question)
    return look_up(claim, evidence.sentences) is not None or _listed(evidence.text, fixed, question)


__all__ = ["read_off", "value_edit"]
