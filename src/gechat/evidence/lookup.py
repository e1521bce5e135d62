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
and a value in another column or another row proves nothing either way. No verdict but
*supported* comes from here; the row is the evidence, with a note saying which cell.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gechat.documents.tables import row_label
from gechat.evidence.base import ClaimInput
from gechat.evidence.dates import years
from gechat.evidence.derived import MIN_DIGITS, significant
from gechat.evidence.rows import names_quantity
from gechat.evidence.steps import ClaimState, EvidenceContext, active
from gechat.evidence.values import CELL_KINDS, Cell, claimed, in_asked_unit, stating
from gechat.types import Sentence


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
            if found is None:
                continue
            row, cells = found
            i = next((n for n, c in enumerate(state.candidates) if c.id == row.id), None)
            p, f = (state.probs[i], float(state.f[i])) if i is not None else (unread, 0.0)
            state.verdict, state.passes = "supported", True
            state.evidence = [ctx.evidence(state.claim, [row], p, f)]
            where = "; ".join(f"{c.head or 'its value'}: {c.value}" for c in cells)
            state.note = f"looked up in the table row '{row_label(row.text)}' (p. {row.page}): {where}"


def look_up(claim: ClaimInput, rows: Sequence[Sentence]) -> tuple[Sentence, list[Cell]] | None:
    """The first of ``rows`` (the candidates best-scored first, then the rows found by the
    claim's figures) that is a table row naming the claim's quantity and stating each of its
    values in a column of the claim's years, with the cells that state them; or None."""
    answer = claim.answer()
    # "$5409.00" answering "... Answer in USD millions." is $5,409 million
    values = [q for q in in_asked_unit(tuple(claimed(answer, claim.given)), claim.given) if q.kind in CELL_KINDS]
    if not values or any(significant(q.text) < MIN_DIGITS for q in values):
        return None
    wanted = years(claim.text) or years(claim.given)
    for row in rows:
        if row_label(row.text) is None:
            continue
        cells: list[Cell] = []
        for v in values:
            held = [c for c in stating([v], row.text) if not wanted or c.periods & wanted]
            if not held:
                break
            cells.append(held[0])
        else:
            if names_quantity(claim.text, row.text, values, given=claim.given, context=row.context):
                return row, cells
    return None


__all__ = ["TableLookup", "look_up"]
