"""Step ``derived``: a figure the answer computed (a ratio, a margin, a growth rate, a sum or a
difference) is checked by computing it again from the table rows the model read.

No sentence states "revenue grew 11.5%" when the filing gives revenue for two years; a reader
checks it with a calculator. For a claim no evidence supports, this step takes the claim's
value and the kind of computation its words name ("margin", "ratio", "% of" divide; "grew",
"fell", "increase" compare two periods; "total", "combined" add; "difference" subtracts),
then tries that computation on the figures of the best-scored table rows among its
candidates (``values.row_cells``: each figure in its table's unit, with its column's
period). Only a figure written with three or more significant digits is checked this way (a
shorter one is matched by chance). The operands must fit the claim: of the claim's years where it names any (one
period for a ratio or a sum, two for a change), and from rows whose label shares a word with
the claim or its question. When the result agrees with the claim's value as a reader rounds
(``values.agree``; a change must also go the way the claim says), the claim is supported,
its evidence is the operand rows, and the note shows the arithmetic with every value used and
where it stands. A result that does not agree proves nothing (the answer may have used other
rows), so this step contradicts only a claim whose own written arithmetic is wrong ("$12,500 +
$4,200 + $2,800 = $29,500": ``arithmetic.miscomputed``), whatever its evidence. The arithmetic
is ours; no LLM is asked. A superlative ("brought in the most cash") is checked by comparing
the rows the question offers (``extremes``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import combinations, permutations
from typing import Literal

import numpy as np

from gechat.documents.tables import row_label
from gechat.evidence.arithmetic import Miscount, miscomputed, plain, rests_on
from gechat.evidence.comparing import CHANGE
from gechat.evidence.dates import years
from gechat.evidence.extremes import extreme
from gechat.evidence.steps import ClaimState, EvidenceContext, active
from gechat.evidence.values import CELL_KINDS, Quantity, agree, claimed, quantities, row_cells, stated
from gechat.lexical import META, content_keys
from gechat.retrieve.synonyms import Synonyms

Op = Literal["ratio", "change", "sum", "difference"]
# the words that name a computation; general English, read on the claim and its question
_CUES: dict[Op, re.Pattern[str]] = {
    "ratio": re.compile(r"(?i)\b(?:ratio|margin|percent(?:age)? of|share of|proportion|divided|as a percent"
                        r"|return on|coverage)\b|% of\b"),
    "change": CHANGE,
    "sum": re.compile(r"(?i)\b(?:total|combined|sum|together|aggregate)\b"),
    "difference": re.compile(r"(?i)\b(?:difference|gap|net change)\b"),
}
_DOWN = re.compile(r"(?i)\b(?:decreas\w*|declin\w*|fell|fall|drop\w*|lower|down)\b")
_UP = re.compile(r"(?i)\b(?:increas\w*|gr[eo]w(?:th|s|n)?|rose|rise[sn]?|higher|up)\b")
_TOTAL = re.compile(r"(?i)\btotal\b")
_DIGITS = re.compile(r"\d+")
TOP_ROWS = 8  # table rows among the best-scored candidates whose figures are operands
# a figure written with fewer significant digits ("1.1%", "$1.8 billion") is matched by chance
# by some ratio of a filing's many rows: on the FinanceBench dev filings, 2 of 320 changed
# figures came out supported that way, and no right answer
MIN_DIGITS = 3


@dataclass(frozen=True)
class Operand:
    index: int  # of the candidate sentence (a table row) it comes from
    label: str  # the row's label
    head: str  # its column's header
    periods: frozenset[str]
    value: Quantity


class DerivedFigures:
    name = "derived"

    def __init__(self, top: int = TOP_ROWS, synonyms: Synonyms | None = None) -> None:
        self.top = top
        self.synonyms = synonyms

    def run(self, states: list[ClaimState], ctx: EvidenceContext) -> None:
        wrongs: list[Miscount] = []
        for state in active(states):
            wrong = miscomputed(state.claim.answer())
            if wrong:
                wrongs.append(wrong)
                _contradict(state, ctx, wrong.note, wrong.operands)
        for state in active(states):
            # "The growth is 20.0%" after a step that got 20.0% wrong rests on that step
            wrong = None if state.passes else rests_on(state.claim.answer(), wrongs, state.claim.given)
            if wrong:
                _contradict(state, ctx, wrong.note, wrong.operands)
                continue
            if state.probs is None or state.f is None or not state.candidates:
                continue
            # the rows compared show a superlative better than any sentence the model passed
            # ("our most significant sources of liquidity" for "brought in the most cash")
            compared = extreme(state)
            if compared is not None and not compared.holds:  # the table shows another option
                _contradict_by(state, ctx, compared.note, compared.rows)
                continue
            found = None if state.passes or compared is not None else derive(state, self.top, self.synonyms)
            if compared is not None:
                rows, note = compared.rows, compared.note
            elif found is not None:
                rows, note = sorted({o.index for o in found[0]}), found[1]
            else:
                continue
            state.verdict = "supported"
            state.passes = True
            state.evidence = [ctx.evidence(state.claim, [state.candidates[i]], state.probs[i], float(state.f[i]))
                              for i in rows]
            state.note = note


def _contradict(state: ClaimState, ctx: EvidenceContext, note: str, operands: tuple[Quantity, ...]) -> None:
    """Contradicted by arithmetic, shown with the candidates that state the figures it used
    rather than the closest reading."""
    _contradict_by(state, ctx, note, _stating(state, operands) if state.probs is not None else [])


def _contradict_by(state: ClaimState, ctx: EvidenceContext, note: str, rows: list[int]) -> None:
    """Contradicted, shown with the candidates ``rows``."""
    state.verdict, state.passes, state.note = "contradicted", False, note
    if state.probs is not None and state.f is not None:
        state.evidence = [ctx.evidence(state.claim, [state.candidates[i]], state.probs[i], float(state.f[i]))
                          for i in rows]


def _stating(state: ClaimState, values: tuple[Quantity, ...]) -> list[int]:
    """The candidates that state one of ``values``, in a form of the same kind. A plain small
    number ("/ 2" for an average, "* 100" for a percentage) is the arithmetic's, not a figure
    of the documents: any sentence states one."""
    figures = [v for v in values if v.kind != "number" or abs(v.value) > 100]
    return [i for i, s in enumerate(state.candidates)
            if any(v.kind == q.kind and agree(v, q) for v in figures for q in stated(s.text))]


def derive(state: ClaimState, top: int = TOP_ROWS,
           synonyms: Synonyms | None = None) -> tuple[list[Operand], str] | None:
    """The operands and the note of the computations from the candidates' table rows that give
    the claim's values, or None. Every value of the claim must be one: computed, or stated by
    an operand row ("grew 11.5% to $17,606 million"); one value right is no support for a
    sentence whose other value is wrong. A row's label may name the claim's quantity by
    another name of the user's vocabulary (``synonyms``: "revenue" is the row "Total net
    sales")."""
    claim = state.claim
    words = f"{claim.given} {claim.text}"
    if synonyms is not None:
        words = synonyms.expand(words)
    ops = [op for op, cue in _CUES.items() if cue.search(claim.text)]
    targets = list(claimed(claim.answer(), claim.given))
    if not ops or not targets:
        return None
    operands = _operands(state, top, content_keys(words) - META)
    used: list[Operand] = []
    notes: list[str] = []
    quoted: list[Quantity] = []
    computed: list[Quantity] = []
    for target in targets:
        found = _computed(state, target, ops, operands)
        if found is None:
            quoted.append(target)
            continue
        computed.append(target)
        used += [o for o in found[0] if o not in used]
        notes.append(found[1])
    if not notes:
        return None
    for target in quoted:
        between = _between(target, computed)
        if between:  # "a drop of 2.2%" from the claim's own 36.8% and 34.6%, both computed
            notes.append(between)
            continue
        stating = next((o for o in used + operands if agree(target, o.value)), None)
        if stating is None:
            return None
        if stating not in used:
            used.append(stating)
    return used, "; ".join(notes)


def _between(target: Quantity, computed: list[Quantity]) -> str:
    """How ``target`` follows from two values of the claim already computed: their difference
    or the change from one to the other; "" when it does not."""
    for a, b in permutations(computed, 2):
        if a.kind != b.kind or b.value == 0:
            continue
        gap = replace(a, value=abs(a.value - b.value), decimals=9, hedge="", text="", key="")
        if agree(target, gap):
            return f"{target.text} is {a.text} - {b.text}"
        rate = replace(a, value=(a.value - b.value) / abs(b.value), kind="number", decimals=9, scale=1.0,
                       hedge="", text="", key="")
        if agree(target, rate):
            return f"{target.text} is ({a.text} - {b.text}) / {b.text}"
    return ""


def _computed(state: ClaimState, target: Quantity, ops: list[Op],
              operands: list[Operand]) -> tuple[list[Operand], str] | None:
    """The operands and the note of one computation that gives ``target``, or None."""
    claim = state.claim
    wanted = years(claim.text)
    # the way a change goes: 1 up, -1 down, 0 when the claim says neither (or both)
    direction = bool(_UP.search(claim.text)) - bool(_DOWN.search(claim.text))
    precise = significant(target.text) >= MIN_DIGITS
    for op in ops:
        # a share of a total is one computation per part the claim names, so a figure as
        # short as "87%" is no chance match there
        found = (_computations(op, operands, wanted, direction) if precise
                 else _shares(operands, wanted, content_keys(claim.text) - META) if op == "ratio" else iter(()))
        for used, value, formula in found:
            got = Quantity(value=value, kind="number" if op in ("ratio", "change") else target.kind,
                           decimals=9, scale=1.0, scaled=all(o.value.scaled for o in used), hedge="",
                           text="", key="")
            if agree(target, got):
                where = "; ".join(f"'{o.label}' {o.head}: {o.value.text} (p. {state.candidates[o.index].page})"
                                  for o in used)
                return used, f"computed {formula} = {_show(value, target, op)}, from {where}"
    return None


def _operands(state: ClaimState, top: int, topic: frozenset[str]) -> list[Operand]:
    """The figures of the best-scored table rows whose label shares a word with the claim."""
    assert state.f is not None
    out: list[Operand] = []
    rows = 0
    for i in np.argsort(-state.f, kind="stable"):
        text = state.candidates[int(i)].text
        cells = row_cells(text)
        label = row_label(text) or ""
        if not cells or not content_keys(label) & topic:
            continue
        rows += 1
        if rows > top:
            break
        for cell in cells:
            if not cell.head:  # a column with no header: which period it is stays unknown
                continue
            for q in quantities(cell.value):
                if q.kind in CELL_KINDS:
                    out.append(Operand(int(i), label, cell.head, cell.periods, q))
    return out


def _computations(op: Op, operands: list[Operand], wanted: frozenset[str],
                  direction: int) -> Iterator[tuple[list[Operand], float, str]]:
    """Every computation of kind ``op`` the operands allow: (operands, result, formula)."""
    if op == "change":
        for a, b in permutations(operands, 2):  # b earlier, a later, one row
            if a.index != b.index or a.label != b.label or not a.periods or not b.periods:
                continue
            if _DIGITS.sub("", a.head) != _DIGITS.sub("", b.head):  # a quarter's column against a year's
                continue
            if max(a.periods) <= max(b.periods) or b.value.value == 0:
                continue
            if len(wanted) == 1:  # "grew 12% in 2022": from the period before, in that row
                earlier = [o for o in operands if o.index == a.index and o.periods and max(o.periods) < max(a.periods)]
                if not wanted & a.periods or max(b.periods) != max(max(o.periods) for o in earlier):
                    continue
            elif not _periods(a, b, wanted, same=False):
                continue
            delta = a.value.value - b.value.value
            if direction and np.sign(delta) != direction:
                continue
            yield [a, b], delta / abs(b.value.value), f"({a.value.text} - {b.value.text}) / {b.value.text}"
            yield [a, b], abs(delta), f"{a.value.text} - {b.value.text}"
        return
    pairs = permutations(operands, 2) if op in ("ratio", "difference") else combinations(operands, 2)
    for a, b in pairs:
        if (a.index, a.label) == (b.index, b.label) or not _periods(a, b, wanted, same=True):
            continue
        if op == "ratio" and b.value.value:
            yield [a, b], a.value.value / b.value.value, f"{a.value.text} / {b.value.text}"
        elif op == "sum":
            yield [a, b], a.value.value + b.value.value, f"{a.value.text} + {b.value.text}"
        elif op == "difference":
            yield [a, b], a.value.value - b.value.value, f"{a.value.text} - {b.value.text}"


def _shares(operands: list[Operand], wanted: frozenset[str],
            said: frozenset[str]) -> Iterator[tuple[list[Operand], float, str]]:
    """Each part over its total: a cell over the row's "Total" column, or a row over the
    "Total" row of the same column, where the part's header (or label) has a word of the
    claim that the total's lacks ("Employee Costs: 81" of "Total Restructuring Costs: 93")."""
    for a, b in permutations(operands, 2):
        if b.value.value == 0 or (wanted and not (a.periods & wanted and b.periods & wanted)):
            continue
        if a.index == b.index and a.label == b.label:  # one row: a column over the total column
            part, whole = a.head, b.head
            if a.periods != b.periods:
                continue
        elif a.head == b.head and a.periods == b.periods:  # one column: a row over the total row
            part, whole = a.label, b.label
        else:
            continue
        if _TOTAL.search(whole) and not _TOTAL.search(part) and (content_keys(part) - content_keys(whole)) & said:
            yield [a, b], a.value.value / b.value.value, f"{a.value.text} / {b.value.text}"


def _periods(a: Operand, b: Operand, wanted: frozenset[str], *, same: bool) -> bool:
    """Operands of one period (``same``) or of two, each of the claim's years where it names
    any; figures under no year go together only by the same column header."""
    if not a.periods or not b.periods:
        return same and a.head == b.head
    if wanted and not (a.periods & wanted and b.periods & wanted):
        return False
    return (a.periods == b.periods) == same


def significant(text: str) -> int:
    """How many significant digits a figure is written with ("11.5%": 3, "0.05": 1)."""
    digits = "".join(ch for ch in text if ch.isdigit()).lstrip("0")
    return len(digits)


def _show(value: float, target: Quantity, op: Op) -> str:
    if target.kind == "percent" and op in ("ratio", "change"):
        return f"{value * 100:.2f}%"
    return plain(value)


__all__ = ["DerivedFigures", "Operand", "derive", "significant"]
