"""Step ``lookup``: a claim that a quantity had a value in a period is supported by the table
row that names the quantity and states the value in that period's column.

The packaged entailment models read prose; against a table row they read digits. "The year
end FY2019 total amount of inventories for Best Buy is $5,409 million" scored 0.04 against
"Merchandise inventories | February 2, 2019: 5,409 | February 3, 2018: 5,209 ($ in
millions)", the very line a reader would point to. A reader checks such a claim by looking
the value up: the row's label (or the value's column header) names the quantity, the value
stands in the column of the claim's year, and agrees with the claim's figure as written
(units, scale and rounding allowed: ``values.agree``). This step does that for a claim no
passage supports, among the table rows the model has read (its candidates), best-scored
first:

- every value the claim states is in the row (a value written with fewer than three
  significant digits, "1.1%", is in some row of a filing by chance: such a claim is left to
  the model);
- where the claim names years, each of those cells sits in a column of one of them (a cell
  with no year in its header or label proves no period);
- the row names the claim's quantity (``rows.names_quantity``: most words of it in its label
  or column header, and all with the headings above; a paraphrase sharing no word,
  "capital expenditure" for "Purchases of property, plant and equipment", stays unsupported).

What it cannot see, it leaves alone: a figure the answer computed is the ``derived`` step's,
and a value in another column or another row proves nothing either way. The row is the
evidence, with a note saying which cell.

A claim the table states otherwise is *contradicted* ("3M's net sales in 2018 were $7,945
million" against "Net sales | 2018: $ 32,765 | 2017: $ 31,657 ($ in millions)"), and the
correction stage puts the row's value in, when all of this holds: the claim states one value
(three or more significant digits) for one year; no row supports it and no retrieved prose
states it;
a row names the quantity with no word the claim and its question do not say ("Adjusted
operating income" is not the operating income asked about; ``rows.names_quantity`` also
refuses a segment's or region's row), and states one value of the same kind, for the whole
year (a column or label naming a quarter or a span of months is another period), that
disagrees; and every row so found states the same value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from gechat.documents.tables import row_label, row_unit
from gechat.evidence.base import ClaimInput
from gechat.evidence.comparing import CHANGE
from gechat.evidence.dates import years
from gechat.evidence.derived import MIN_DIGITS, significant
from gechat.evidence.rows import measure_words, names_quantity
from gechat.evidence.steps import ClaimState, EvidenceContext, active
from gechat.evidence.values import (
    CELL_KINDS,
    Cell,
    Quantity,
    agree,
    cell_values,
    claimed,
    comparable,
    in_asked_unit,
    row_cells,
    stated,
    stating,
)
from gechat.lexical import content_keys
from gechat.types import Sentence

# a column or label of part of a year: another period than the year's
# "twelve months" is the whole year
_PART_OF_YEAR = re.compile(r"(?i)\b(?:quarters?|q[1-4]|(?<!twelve )(?<!12 )months?|weeks?|half|halves|ytd|"
                           r"year[- ]to[- ]date|first|second|third|fourth)\b")


class TableLookup:
    name = "lookup"

    def run(self, states: list[ClaimState], ctx: EvidenceContext) -> None:
        # no model read these rows: shown with a neutral reading, the note says how they were read
        unread = np.array([0.0, 1.0, 0.0], np.float32)
        for state in active(states):
            if state.passes or state.probs is None or state.f is None:
                continue
            order = [state.candidates[int(i)] for i in np.argsort(-state.f, kind="stable")]
            found = look_up(state.claim, order + ctx.pool.rows)
            if found is not None:
                row, cells = found
                state.verdict, state.passes = "supported", True
                where = "; ".join(f"{c.head or 'its value'}: {c.value}" for c in cells)
                state.note = f"looked up in the table row '{row_label(row.text)}' (p. {row.page}): {where}"
            elif state.verdict is None:
                other = stated_otherwise(state.claim, order + ctx.pool.rows, state.candidates)
                if other is None:
                    continue
                row, cell = other
                state.verdict, state.passes = "contradicted", False
                state.note = (f"the table row '{row_label(row.text)}' (p. {row.page}) states {cell.value.strip()} "
                              f"for {cell.head or 'the period'}")
            i = next((n for n, c in enumerate(state.candidates) if c.id == row.id), None)
            p, f = (state.probs[i], float(state.f[i])) if i is not None else (unread, 0.0)
            state.evidence = [ctx.evidence(state.claim, [row], p, f)]


def _values(claim: ClaimInput) -> list[Quantity]:
    """The claim's values a table cell may state, each with three or more significant digits
    (else none): "$5409.00" answering "... Answer in USD millions." is $5,409 million."""
    values = [q for q in in_asked_unit(tuple(claimed(claim.answer(), claim.given)), claim.given)
              if q.kind in CELL_KINDS]
    return [] if any(significant(q.text) < MIN_DIGITS for q in values) else values


def _wanted(claim: ClaimInput) -> frozenset[str]:
    return years(claim.text) or years(claim.given)


def look_up(claim: ClaimInput, rows: Sequence[Sentence]) -> tuple[Sentence, list[Cell]] | None:
    """The first of ``rows`` (the candidates best-scored first, then the rows found by the
    claim's figures) that is a table row naming the claim's quantity and stating each of its
    values in a column of the claim's years, with the cells that state them; or None."""
    values = _values(claim)
    if not values:
        return None
    wanted = _wanted(claim)
    parts = _parts(f"{claim.text} {claim.given}")
    for row in rows:
        if row_label(row.text) is None:
            continue
        cells: list[Cell] = []
        for v in values:
            # a quarter's column ("Three months ended December 31, 2018") states no figure of
            # the year, unless the claim names that part of it too
            held = [c for c in stating([v], row.text)
                    if (not wanted or c.periods & wanted) and _parts(c.head) <= parts]
            if not held:
                break
            cells.append(held[0])
        else:
            if names_quantity(claim.text, row.text, values, given=claim.given, context=row.context):
                return row, cells
    return None


def stated_otherwise(claim: ClaimInput, rows: Sequence[Sentence],
                     read: Sequence[Sentence]) -> tuple[Sentence, Cell] | None:
    """The first of ``rows`` that states another value than the claim's for the quantity it
    names, in the one year it names, with that cell; None unless every such row states that
    same value and no prose sentence ``read`` states the claim's (see the module's doc)."""
    values, wanted = _values(claim), _wanted(claim)
    # a change ("grew 12.5% in 2018") is no level a row states for the year
    if len(values) != 1 or len(wanted) != 1 or CHANGE.search(claim.answer()):
        return None
    mine = values[0]
    # prose that states the claim's value was the model's to read; a row states it as another
    # row's (a segment's) or another year's value
    if any(agree(mine, q) for s in read if row_label(s.text) is None for q in stated(s.text)):
        return None
    said = content_keys(f"{claim.text} {claim.given}")
    found: list[tuple[Sentence, Cell, Quantity]] = []
    for row in rows:
        label = row_label(row.text)
        if label is None or _PART_OF_YEAR.search(label) or not all(content_keys(w) <= said
                                                                   for w in measure_words(label)):
            continue
        for cell in row_cells(row.text):
            if cell.periods != wanted or _PART_OF_YEAR.search(cell.head):
                continue
            theirs = [q for q in cell_values(cell, not row_unit(row.text)) if _same_kind(mine, q)]
            if len(theirs) == 1 and not agree(mine, theirs[0]) and \
                    names_quantity(claim.text, row.text, theirs, given=claim.given, context=row.context):
                found.append((row, cell, theirs[0]))
    if not found or any(not agree(found[0][2], q) for _, _, q in found):
        return None
    return found[0][0], found[0][1]


def _parts(text: str) -> frozenset[str]:
    """The words of ``text`` that name a part of a year ("three months", "quarter")."""
    return frozenset(m.group(0).lower() for m in _PART_OF_YEAR.finditer(text))


def _same_kind(mine: Quantity, theirs: Quantity) -> bool:
    """``values.comparable``, but a percentage is no reading of a row's bare figure ("12.5%"
    of "32,765"); money or a count may stand as one."""
    return theirs.kind in CELL_KINDS and comparable(mine, theirs) and {mine.kind, theirs.kind} != {"percent", "number"}


__all__ = ["TableLookup", "look_up", "stated_otherwise"]
