"""Words that compare: "the most", "higher than", "outperforms".

A comparison is a claim about two things or more at once, which the cross-encoder reads
poorly: "SciBERT has the higher average score" read 0.28 against a pair that names both models
and no score. Such a claim stands only on a strong reading, or on the table compared
(``extremes``). A bound ("more than $1 billion") compares nothing; nor do dates here
("earlier", "older": a claim about two dates is read from the dates).
"""

from __future__ import annotations

import re

MOST = re.compile(r"(?i)\b(?:most|highest|largest|greatest|biggest)\b")
LEAST = re.compile(r"(?i)\b(?:least|lowest|smallest|fewest)\b")
# a comparison of two ("higher net sales than"), not a bound ("more than $1 billion")
MORE = re.compile(r"(?i)\b(?:more|higher|larger|greater|bigger)\b(?!\s+than\s+[$€£¥\d])")
LESS = re.compile(r"(?i)\b(?:less|fewer|lower|smaller)\b(?!\s+than\s+[$€£¥\d])")
# a change of a figure, not the figure: "grew more than" compares changes; "increase" names a computation
CHANGE = re.compile(r"(?i)\b(?:gr[eo]w(?:th|s|n)?|increas\w*|decreas\w*|declin\w*|rose|rise[sn]?|fell|fall"
                    r"|drop\w*|chang\w*|year[- ]over[- ]year|compared)\b")
_JUDGED = re.compile(r"(?i)\b(?:better|best|worse|worst|outperform\w*|underperform\w*)\b")


# an order in time or length: "came out earlier", "was born first", "lived longer"
_ORDER = re.compile(r"(?i)\b(?:earlier|earliest|later|latest|first|older|oldest|younger|youngest|longer|longest"
                    r"|shorter|shortest|sooner|recently)\b")


def orders(text: str) -> bool:
    """Whether ``text`` ranks things by a value, a figure's or a date's: it compares, or
    orders in time or length ("which came out earlier")."""
    return compares(text) or _ORDER.search(text) is not None


def compares(text: str) -> bool:
    """Whether ``text`` compares things: a comparative, a superlative or "outperforms", in
    lower case (a title's "More" names: "The More the Merrier")."""
    return any(m.group().islower() for p in (MOST, LEAST, MORE, LESS, _JUDGED) for m in p.finditer(text))


__all__ = ["CHANGE", "LEAST", "LESS", "MORE", "MOST", "compares", "orders"]
