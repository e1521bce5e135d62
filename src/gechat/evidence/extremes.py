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
comparison. A row that is not the extreme proves nothing by itself (an option may sit in a
table the candidates lack): the claim is contradicted only where the question offers its
options by name ("SPECTER or SciBERT") and the table holds every one. Over figures of both
signs a claim about an outflow or a loss ("the largest outflow") reads the other way; it is
left alone, as is a claim that compares changes ("grew more than"). A bound ("more than $1
billion") is no comparison. In a table of no periods the column is the one whose header names
the most words of the claim and its question ("Avg." for "average").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gechat.documents.tables import row_label, row_unit
from gechat.evidence.comparing import CHANGE, LEAST, LESS, MORE, MOST
from gechat.evidence.dates import years
from gechat.evidence.rows import abbreviated
from gechat.evidence.steps import ClaimState
from gechat.evidence.values import Cell, Quantity, agree, cell_values, claimed, row_cells
from gechat.lexical import META, META_WORDS, content_keys, offered, words

# what a figure of the other sign means: money going out, lost or spent
_OUTGOING = re.compile(r"(?i)\b(?:outflows?|loss(?:es)?|lost|used|spen[dt]|spending|expenses?|costs?|paid|deficits?)\b")
NAMED_SHARE = 0.5  # of a row label's words the question must name for the row to be an option


@dataclass(frozen=True)
class Option:
    index: int  # of the candidate (a table row)
    label: str
    value: Quantity  # its figure in the claim's period
    head: str  # that figure's column header


@dataclass(frozen=True)
class Comparison:
    rows: list[int]  # the candidates compared
    note: str
    holds: bool  # the claim's row is the extreme it says; False: the table shows another


def extreme(state: ClaimState) -> Comparison | None:
    """What the candidates' table rows show of the claim's comparison: that it holds (its rows
    and the note that shows the comparison), that it does not (only where the table holds
    every option the question offers by name: "SPECTER or SciBERT"), or nothing."""
    claim = state.claim
    said = claim.answer()  # not the question it may quote ("which brought in the most (or lost the least)")
    up = bool(MOST.search(said) or MORE.search(said))
    if up == bool(LEAST.search(said) or LESS.search(said)) or CHANGE.search(said):
        return None
    asked = content_keys(claim.given) - META
    wanted = years(said) or years(claim.given)
    figures = [q for q in claimed(said, claim.given) if q.kind != "year"]
    before, than, after = said.partition(" than ")
    found: dict[bool, tuple[list[int], list[str]]] = {True: ([], []), False: ([], [])}
    measure = [w for w in words(f"{said} {claim.given}") if w not in META_WORDS]
    for options in _tables(state, asked, wanted, measure).values():
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
        holds = all(mine > o.value.value if up else mine < o.value.value for o in others)
        if holds and not all(any(agree(q, o.value) for o in compared) for q in figures):
            continue
        if not holds and not _every_option(claim.given, options):
            continue  # an option may sit in a table the candidates lack
        values = [o.value.value for o in compared]
        best = next(o for o in compared if o.value.value == (max(values) if up else min(values)))
        word = ("higher" if up else "lower") if than or len(compared) == 2 else ("highest" if up else "lowest")
        shown = "; ".join(f"'{o.label}': {o.value.text} (p. {state.candidates[o.index].page})" for o in compared)
        note = f"compared {shown}: the {word} is '{best.label}'" + ("" if holds else f", not '{chosen[0].label}'")
        found[holds][0].extend(o.index for o in compared)
        found[holds][1].append(note)
    # every table that shows it: a filing repeats its statements' totals in the discussion
    for holds in (True, False):
        rows, notes = found[holds]
        if rows:
            return Comparison(rows, "; and ".join(notes), holds)
    return None


def _every_option(question: str, options: list[Option]) -> bool:
    """Whether the question offers its options by name and each is a row among ``options``
    (a name its column's header holds is the measure: "nDCG" of "on recommendation nDCG,
    SPECTER or Citeomatic")."""
    heads = content_keys(" ".join(o.head for o in options))
    named = [keys for keys in offered(question) if not keys <= heads]
    return bool(named) and all(any(keys <= content_keys(o.label) for o in options) for keys in named)


def _own_words(option: Option, options: list[Option]) -> frozenset[str]:
    """The words of an option's label that no other option's label has: "operating" of
    "Total cash provided by operating activities" beside "Total cash used in investing
    activities"; the claim names its row by them."""
    others = frozenset().union(*(content_keys(o.label) for o in options if o is not option))
    return content_keys(option.label) - META - others


def _tables(state: ClaimState, asked: frozenset[str], wanted: frozenset[str],
            measure: list[str]) -> dict[tuple[object, ...], list[Option]]:
    """The options among the candidates, by table (page and column headers), each with its
    figure in the wanted period (or in a table's only column, or in the one column whose
    header names a ``measure`` word)."""
    out: dict[tuple[object, ...], list[Option]] = {}
    for i, sentence in enumerate(state.candidates):
        cells = row_cells(sentence.text)
        label = row_label(sentence.text) or ""
        keys = content_keys(label) - META
        if not cells or not keys or len(keys & asked) < NAMED_SHARE * len(keys):
            continue
        column = _column(cells, wanted, measure)
        if column is None:
            continue
        found = cell_values(column, not row_unit(sentence.text))
        if len(found) != 1:
            continue
        table = (sentence.doc_id, sentence.page, tuple(c.head for c in cells))
        if any(o.label == label for o in out.get(table, [])):  # a row repeated: the first reading
            continue
        out.setdefault(table, []).append(Option(i, label, found[0], column.head))
    return out


def _column(cells: list[Cell], wanted: frozenset[str], measure: list[str]) -> Cell | None:
    """The cell of the wanted period; among several (or in a table of no periods), the one
    whose header names the most ``measure`` words ("Recomm. nDCG" for "recommendation
    nDCG" over "Cite nDCG"; "Avg." for "average score"), when one does."""
    column = [c for c in cells if c.periods & wanted] if wanted else cells
    if len(column) > 1:
        keys = content_keys(" ".join(measure)) - META
        named = [len((content_keys(c.head) - META) & keys | abbreviated(measure, [c.head])) for c in column]
        most = max(named)
        column = [c for c, n in zip(column, named, strict=True) if n == most] if most else []
    return column[0] if len(column) == 1 else None


__all__ = ["extreme"]
