"""A superlative or a comparison checked against a table: "operating activities brought in the
most cash in FY2023" holds when, in one table, the row the claim names has the highest figure
of that period among the rows the question offers; "X had higher sales than Y" when X's
figure is above those of the options named after "than".

No sentence of a filing says which of its lines was the largest; a reader compares the rows.
For a claim that says "the most", "highest", "largest" (or "the least", "lowest",
"smallest"), even one a sentence already passed (the comparison is better evidence than "our
most significant sources of liquidity" for "brought in the most cash"), this looks among its
candidates for the table rows (one table: one page, the same column headers) whose labels
the question names, most of each label's words being the question's: the options. The
claim must name exactly one of them (by a word of its label no other option has), and a
period (the claim's years, else the question's; a table of one column needs none). When that
row's figure is the highest (or lowest) of the options' figures in that period, with at
least two options compared, and every figure the claim states agrees with one of theirs,
the claim is supported: the options' rows are its evidence and the note shows the
comparison. A row that is not the extreme proves nothing (an option may sit in a table the
candidates lack), so this step never contradicts. Over figures of both signs a claim about
an outflow or a loss ("the largest outflow") reads the other way; it is left alone, as is a
claim that compares changes ("grew more than"). A bound ("more than $1 billion") is no
comparison.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gechat.documents.tables import row_label
from gechat.evidence.dates import years
from gechat.evidence.steps import ClaimState
from gechat.evidence.values import Quantity, agree, cell_values, claimed, row_cells, row_unit
from gechat.lexical import META, content_keys

_MOST = re.compile(r"(?i)\b(?:most|highest|largest|greatest|biggest)\b")
_LEAST = re.compile(r"(?i)\b(?:least|lowest|smallest|fewest)\b")
# a comparison of two ("higher net sales than"), not a bound ("more than $1 billion")
_MORE = re.compile(r"(?i)\b(?:more|higher|larger|greater|bigger)\b(?!\s+than\s+[$€£¥\d])")
_LESS = re.compile(r"(?i)\b(?:less|fewer|lower|smaller)\b(?!\s+than\s+[$€£¥\d])")
# a change named: "grew more than" compares changes, not the figures
CHANGE = re.compile(r"(?i)\b(?:gr[eo]w(?:th|s|n)?|increas\w*|decreas\w*|declin\w*|rose|rise[sn]?|fell|fall"
                    r"|drop\w*|chang\w*|year[- ]over[- ]year|compared)\b")
# what a figure of the other sign means: money going out, lost or spent
_OUTGOING = re.compile(r"(?i)\b(?:outflows?|loss(?:es)?|lost|used|spen[dt]|spending|expenses?|costs?|paid|deficits?)\b")
NAMED_SHARE = 0.5  # of a row label's words the question must name for the row to be an option


@dataclass(frozen=True)
class Option:
    index: int  # of the candidate (a table row)
    label: str
    value: Quantity  # its figure in the claim's period


def extreme(state: ClaimState) -> tuple[list[int], str] | None:
    """The candidates (rows) that show the claim's row to be the extreme it says, and the
    note that shows the comparison; None when the candidates do not show it."""
    claim = state.claim
    said = claim.answer()  # not the question it may quote ("which brought in the most (or lost the least)")
    up = bool(_MOST.search(said) or _MORE.search(said))
    if up == bool(_LEAST.search(said) or _LESS.search(said)) or CHANGE.search(said):
        return None
    asked = content_keys(claim.given) - META
    wanted = years(said) or years(claim.given)
    figures = [q for q in claimed(said, claim.given) if q.kind != "year"]
    before, than, after = said.partition(" than ")
    rows: list[int] = []
    notes: list[str] = []
    for options in _tables(state, asked, wanted).values():
        chosen = [o for o in options if _own_words(o, options) & content_keys(before)]
        # "X had higher sales than Y": X against those named after "than"; else against all
        others = ([o for o in options if _own_words(o, options) & content_keys(after)] if than
                  else [o for o in options if o not in chosen])
        if len(chosen) != 1 or not others or chosen[0] in others:
            continue
        compared = [chosen[0], *others]
        if min(o.value.value for o in compared) < 0 and _OUTGOING.search(said):
            continue
        mine = chosen[0].value.value
        if not all(mine > o.value.value if up else mine < o.value.value for o in others):
            continue
        if not all(any(agree(q, o.value) for o in compared) for q in figures):
            continue
        word = ("higher" if up else "lower") if than or len(compared) == 2 else ("highest" if up else "lowest")
        shown = "; ".join(f"'{o.label}': {o.value.text} (p. {state.candidates[o.index].page})" for o in compared)
        rows += [o.index for o in compared]
        notes.append(f"compared {shown}: the {word} is '{chosen[0].label}'")
    # every table that shows it: a filing repeats its statements' totals in the discussion
    return (rows, "; and ".join(notes)) if rows else None


def _own_words(option: Option, options: list[Option]) -> frozenset[str]:
    """The words of an option's label that no other option's label has: "operating" of
    "Total cash provided by operating activities" beside "Total cash used in investing
    activities"; the claim names its row by them."""
    others = frozenset().union(*(content_keys(o.label) for o in options if o is not option))
    return content_keys(option.label) - META - others


def _tables(state: ClaimState, asked: frozenset[str], wanted: frozenset[str]) -> dict[tuple[object, ...], list[Option]]:
    """The options among the candidates, by table (page and column headers), each with its
    figure in the wanted period (or in a table's only column)."""
    out: dict[tuple[object, ...], list[Option]] = {}
    for i, sentence in enumerate(state.candidates):
        cells = row_cells(sentence.text)
        label = row_label(sentence.text) or ""
        keys = content_keys(label) - META
        if not cells or not keys or len(keys & asked) < NAMED_SHARE * len(keys):
            continue
        column = [c for c in cells if c.periods & wanted] if wanted else cells
        if len(column) != 1 or (not wanted and len(cells) > 1):
            continue
        found = cell_values(column[0], not row_unit(sentence.text))
        if len(found) != 1:
            continue
        table = (sentence.doc_id, sentence.page, tuple(c.head for c in cells))
        if any(o.label == label for o in out.get(table, [])):  # a row repeated: the first reading
            continue
        out.setdefault(table, []).append(Option(i, label, found[0]))
    return out


__all__ = ["CHANGE", "extreme"]
