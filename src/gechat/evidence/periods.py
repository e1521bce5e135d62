"""Which period a value is given for: a claim's figure is no evidence when its source gives
it for other years ("capital spending of $1.7 billion" said of 2019 is none for FY2018)."""

from __future__ import annotations

import re
from itertools import pairwise

from gechat.evidence.dates import year_after, year_before, years
from gechat.evidence.values import Quantity, agree, claimed, located, stated, stating


def another_period(claim: str, evidence: str, *, answer: str | None = None, given: str = "") -> frozenset[str]:
    """The claim's years, when ``evidence`` states the claim's value (of ``answer``, what the
    claim adds to its question; default the whole claim; numbers of the question ``given``
    name things, "3M", and are no value) for other years only: "capital spending of $1.7
    billion" said of 2019 is no evidence for FY2018. Empty when the years agree, when either
    names none, or when the evidence does not state the value. In a table row the years are
    those of the columns holding the value: "Net income | 2018: $ 5,363 | 2017: $ 4,869"
    does not support 5,363 for 2017."""
    wanted, named = years(claim), years(evidence)
    if not wanted or not named:
        return frozenset()
    values = claimed(claim if answer is None else answer, given)
    cells = [c.periods for c in stating(values, evidence)]
    if cells:  # a table row: the periods are those of the columns stating the value
        return wanted if all(ys and not ys & wanted for ys in cells) else frozenset()
    if wanted & named:
        # a sentence of several years: the value is no evidence when it is written beside
        # other years only ("$5.2 billion in fiscal 2022, up from $4.8 billion in fiscal 2021")
        beside = [ys for q, ys in dated(evidence) if any(agree(v, q) for v in values)]
        return wanted if beside and all(ys and not ys & wanted for ys in beside) else frozenset()
    found = stated(evidence)
    return wanted if any(agree(v, f) for v in values for f in found) else frozenset()


# what may stand between a value and the year it is given for, after it: at most two small
# words ("$4.8 billion in fiscal 2021", "$4.8 billion (2021)"); no comma, no clause break, no
# name ("59 Chief Executive Officer 2018" is an age and a title). Before it, nothing but a
# colon or a parenthesis ("2021: $4.8 billion"): words there were mostly a clause about
# another thing ("goal set in fiscal 2018 to reach $600 million by fiscal 2021").
_BESIDE = re.compile(r"[ \t(:]*+(?:(?:[a-z]++|[Ff]iscal)[ \t(:]++){0,2}+")
_LIST_GAP = re.compile(r"[ \t]*+,?+[ \t]*+(?:(?:and|or)[ \t]++)?+")  # between two items of a list


def dated(text: str) -> list[tuple[Quantity, frozenset[str]]]:
    """Each value of prose ``text`` (years aside) with the year written beside it (see
    ``_BESIDE``): which period a figure is given for. Values or years in a list ("$12.0
    billion, $17.3 billion, and $18.4 billion in 2015, 2016, and 2017") pair in order, as
    with "respectively": such a value is left undated, and so is one with a year on each side."""
    if "respectively" in text.lower():
        return []
    spans = [span for span in located(text) if span[2].kind != "year"]
    out = []
    for k, (start, end, q) in enumerate(spans):
        after_end = spans[k + 1][0] if k + 1 < len(spans) else len(text)
        before_start = spans[k - 1][1] if k else 0
        listed = (k + 1 < len(spans) and _LIST_GAP.fullmatch(text, end, after_end)) or \
            (k and _LIST_GAP.fullmatch(text, before_start, start))
        m = _BESIDE.match(text, end, after_end)
        after = year_after(text, m.end()) if m else None
        before = year_before(text, before_start + len(text[before_start:start].rstrip(" \t(:)")))
        year = None if listed or (after and before) else (after or before)
        out.append((q, frozenset([year] if year else [])))
    return out


def listed_by_year(text: str) -> dict[str, Quantity]:
    """Each year's value in prose that lists two or more values, then as many years, each list
    joined by commas and "and" ("Operating income was $2.2 billion, $4.2 billion, and $4.1
    billion for 2015, 2016, and 2017"): paired in order, as the reader pairs them; {} for any
    other text."""
    spans = located(text)
    values = [(a, b, q) for a, b, q in spans if q.kind != "year"]
    dates = [(a, b, q) for a, b, q in spans if q.kind == "year"]
    if len(values) < 2 or len(values) != len(dates) or values[-1][1] > dates[0][0]:
        return {}
    for items in (values, dates):
        if not all(_LIST_GAP.fullmatch(text, one[1], two[0]) for one, two in pairwise(items)):
            return {}
    out: dict[str, Quantity] = {}
    for (_, _, q), (_, _, y) in zip(values, dates, strict=True):
        out |= dict.fromkeys(years(y.text), q)
    return out if len(out) == len(values) else {}


__all__ = ["another_period", "dated", "listed_by_year"]
