"""A count is a count of something: "100 bibliography entries" is not held by "100 LATEX parses".

Asked S2ORC's paper "How many bibliography entries does S2ORC contain?", the 1.5B model
answered "S2ORC contains 100 bibliography entries", and the packaged entailment model read
"we randomly sample S2ORC papers (500 GROBID PDF parses and 100 LATEX parses) and select one
linked bibliography entry from each sampled paper" as proof (0.93): the figure and the words
are all there, on different things. Papers, filings and reports state many counts side by
side, so a claim's figure followed by what it counts is held only where the text puts that
figure on the same thing (the words around it share one with the claim's), or states it bare.

The check is narrow on purpose: it fires only when the text names what the claim counts
elsewhere, away from the figure; a text that says "12 locations" for "12 stores" names no
store and is left to the model, which knows synonyms and the checks do not.
"""

from __future__ import annotations

import re

from gechat.documents.tables import row_label
from gechat.evidence.subjects import kind_counted
from gechat.evidence.values import located
from gechat.lexical import content_keys

SPAN = 4  # words read on each side of a figure, within its clause
# a clause ends at punctuation or a bracket; a figure's words never cross one
_CLAUSE = re.compile(r"[()\[\];:,.!?\"“”|]")
_TOKEN = re.compile(r"[A-Za-z][\w'-]*")
# words after a figure that make it a share, not a count: "12.5 percentage points" may be "12.5%"
_SHARE = content_keys("percent percentage percentages point points pp bps basis")


def _around(text: str, start: int, end: int) -> tuple[str, str]:
    """The words before the figure at ``text[start:end]`` and after it, up to SPAN each and
    never past the clause's edge."""
    left, right = text[:start], text[end:]
    cut = [m.end() for m in _CLAUSE.finditer(left)]
    left = left[cut[-1]:] if cut else left
    stop = _CLAUSE.search(right)
    right = right[:stop.start()] if stop else right
    return " ".join(_TOKEN.findall(left)[-SPAN:]), " ".join(_TOKEN.findall(right)[:SPAN])


def miscounted(answer: str, given: str, text: str) -> list[str]:
    """The counts of ``answer`` ("100 bibliography entries") that ``text`` states only on
    other things: as a share or an amount ("do not sum to 100%"), or, where the text names
    what the claim counts elsewhere, with a word after each place it writes the figure and
    none around it that is one of the claim's around its figure; or when the text never names
    the kind the claim counts ("12M paper nodes" against "12M nodes of this type", said of
    authors: the nouns compounded with the counted noun, parsed). ``given`` (the question) is
    not read: what a count counts is in the claim. Money, shares of a whole and years are
    the typed checks' business, and so is a canonical table row: its cell's header says what
    its figure is (``rows.unbound``)."""
    if row_label(text) is not None:
        return []
    out = []
    places = located(text)
    for start, end, q in located(answer):
        if q.kind not in ("number", "count"):
            continue
        before, after = _around(answer, start, end)
        counted = content_keys(after)
        same = [(s, e, t.kind) for s, e, t in places if t.key == q.key]
        if not counted or counted & _SHARE or not same:
            continue
        counts = [_around(text, s, e) for s, e, kind in same if kind in ("number", "count")]
        mine = counted | content_keys(before)
        if not counts or (counted & content_keys(text)
                          and all(a and not content_keys(f"{b} {a}") & mine for b, a in counts)) \
                or not kind_counted(answer, start, end) <= content_keys(text):
            out.append(answer[start:end].strip())
    return out


__all__ = ["miscounted"]
