"""Typed values: amounts, percentages and counts read from text and compared as a reader would.

"$1.2 billion" and "1,200 million" are the same amount; "32,765" in a filing's table (in
millions) is "$32.8 billion" rounded; "12.5%" is "0.125"; "(1,234)" is negative, and agrees
with "1,234" (a statement's outflow is the amount a reader names); "about 280M" and "more
than 280M" agree with "280 million" within a reader's tolerance. Years ("2019") are not
values here: they say which value, and the lexical checks match them as written.

Used twice: a claim's number is covered when its evidence states the same value in another
form (``agreeing_keys``); a claim whose value differs from one a sentence states for the
same thing is contradicted (``gechat.evidence.conflicts``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal, NamedTuple

from gechat.documents.tables import MARKER, SEPARATOR, UNIT_SCALE, row_label, row_unit
from gechat.evidence.dates import years
from gechat.lexical import CLAUSE_NUMBER, LOCATOR, number_keys, restates_words

Kind = Literal["money", "percent", "number", "count", "year"]

# A number as written: "1,234.5", "0.125", "32.8"; an optional currency sign before it, a
# scale word or letter and a percent sign after it, a parenthesis around it for a negative.
# Linear: each part is a possessive run of one character class, tried once per position; a
# match starts only where no word character or point precedes.
_QUANTITY = re.compile(
    r"(?<![\w.,])(?P<sign>[$€£¥](?=\(\d))?+(?P<open>\()?(?P<cur>[$€£¥])?[ \t]?+"
    r"(?P<num>\d{1,3}+(?:,\d{3})++(?:\.\d++)?+|\d++(?:\.\d++)?+)(?![\d,]?\d)"
    r"(?P<shut>(?<=\d)\)(?=[ \t]?+(?:thousand|million|billion|trillion|mn|bn)\b))?+"
    r"(?:[ \t]?+(?P<scale>thousand|million|billion|trillion|mn|bn|[kKmMbB])(?![\w]))?+"
    r"[ \t]?+(?P<pct>%|percent\b|per cent\b)?+(?P<close>\))?"
)
_SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9,
           "b": 1e9, "trillion": 1e12}
# words just before a value that loosen it: "about 280M", "more than 280M", "under 5%"
_ABOUT = ("about", "approximately", "approx.", "around", "roughly", "nearly", "almost", "some", "~", "circa")
_MORE = ("more than", "over", "above", "at least", "exceeding", "exceeds", "exceeded", "in excess of", "upwards of")
_LESS = ("less than", "under", "below", "at most", "up to", "fewer than")
LOOSE, BOUND = 0.10, 2.0  # a hedged value agrees within 10%; "more than 10" with up to 20, "less than 10" 5
# a table column that counts things ("Total Number of Shares Purchased", "Treasury Stock
# Shares"), unless it says it holds an amount ("Ordinary Shares Amount", "Price Paid per Share")
_COUNT_HEAD = re.compile(r"(?i)\b(?:number of|shares|employees|headcount)\b")
_AMOUNT_HEAD = re.compile(r"(?i)\b(?:amount|price|value|cost|paid|dollars?|per share)\b|[$€£¥]")
_PERCENT_HEAD = re.compile(r"(?i)%|\bper[ \t]?+cent(?:age)?+\b")  # "% of Total: 14.6", "Percent change"


@dataclass(frozen=True)
class Quantity:
    value: float  # the number times its scale word; a percentage as written (12.5 for 12.5%)
    kind: Kind
    decimals: int  # digits after the point as written: the precision the writer claims
    scale: float  # what one unit of the digits is worth ("billion": 1e9)
    scaled: bool  # a scale word or currency sign says what unit the digits are in
    hedge: Literal["", "about", "more", "less"]
    text: str  # as written
    key: str  # the digits' key as ``lexical.number_keys`` writes it


@lru_cache(maxsize=8192)
def quantities(text: str) -> tuple[Quantity, ...]:
    """Every value written in ``text``, in order."""
    return tuple(q for _, _, q in located(text))


@lru_cache(maxsize=8192)
def located(text: str) -> tuple[tuple[int, int, Quantity], ...]:
    """Every value written in ``text``, in order, with where it starts and ends."""
    out = []
    for m in _QUANTITY.finditer(text):
        num, scale_word, pct, cur = m["num"], (m["scale"] or ""), m["pct"], m["cur"] or m["sign"]
        digits = num.replace(",", "")
        value = float(digits)
        scale = _SCALES.get(scale_word.lower(), 1.0)
        # a bare capital M or B after a number is a scale only with money or alone ("280M"),
        # not a unit letter glued to a model name; "5 m" (metres) is left alone
        if scale_word in ("m", "b", "k") and not cur:
            scale = 1.0
        # "thirty (30) days": the figure of the number words before it, as contracts write it
        paren = bool(m["open"] and (m["close"] or m["shut"])) and not restates_words(text, m.start())
        if not (cur or pct or scale_word) and ((paren and "," not in num and "." not in num and len(digits) <= 2)
                                               or _day_of_month(text, m.start(), m.end(), digits)
                                               or _clause_number(text, m.start(), m.end(), num)):
            continue  # "(1)", "(2)": the markers of a list; "February 1, 2018": a date's day; "2.2 Invoices"
        # "(1,577)" and "$(1,806) million" are accounting negatives; "($1.8 bn)" is an aside in prose
        negative = paren and (not scale_word or bool(m["shut"]))
        if pct:
            kind: Kind = "percent"
        elif cur:
            kind = "money"
        elif scale == 1.0 and "," not in num and "." not in num and 1800 <= value <= 2100 and len(digits) == 4:
            kind = "year"
        else:
            kind = "number"
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        q = Quantity(value=(-value if negative else value) * scale, kind=kind, decimals=decimals, scale=scale,
                     scaled=bool(cur or scale != 1.0 or pct), hedge=_hedge(text, m.start()),
                     text=m.group().strip(" \t"), key=_key(num))
        out.append((m.start(), m.end(), q))
    return tuple(_ranged(text, out))


_RANGE = re.compile(r"[ \t]*+(?:[-–—]|to)[ \t]*+")  # between a range's two bounds


def _ranged(text: str, spans: list[tuple[int, int, Quantity]]) -> list[tuple[int, int, Quantity]]:
    """A range's first bound in the unit written once, after its second: "30-40%" is 30% to
    40%, "$1.7 to $1.9 billion" $1.7 billion to $1.9 billion ("30" alone had read as a count)."""
    for k in range(len(spans) - 1):
        (start, end, a), (nxt, _, b) = spans[k], spans[k + 1]
        if a.kind in ("number", "money") and a.scale == 1.0 and a.value >= 0 and _RANGE.fullmatch(text, end, nxt) \
                and (b.scale != 1.0 or (b.kind == "percent" and a.kind == "number")):
            kind = "percent" if b.kind == "percent" else "money" if "money" in (a.kind, b.kind) else b.kind
            spans[k] = (start, end, replace(a, value=a.value * b.scale, kind=kind, scale=b.scale, scaled=True))
    return spans


_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
          r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")  # a month's name, in full or short
_MONTH_BEFORE = re.compile(rf"(?i)\b{_MONTH}[ \t]+$")
_MONTH_AFTER = re.compile(rf"(?i)^[ \t]*{_MONTH}(?![a-z])")


def _day_of_month(text: str, start: int, end: int, digits: str) -> bool:
    return (digits.isdigit() and len(digits) <= 2 and 1 <= int(digits) <= 31
            and bool(_MONTH_BEFORE.search(text[max(0, start - 12):start]) or _MONTH_AFTER.match(text[end:end + 12])))


def _clause_number(text: str, start: int, end: int, num: str) -> bool:
    """Whether a dotted number opening a line or the text ("2.2 Invoices are due ...") numbers a
    clause or a section (``lexical.CLAUSE_NUMBER``): it says where, not how much."""
    if "." not in num or "," in num:
        return False
    line = start  # the number must open its line: read back over spaces only (linear in the text)
    while line > 0 and text[line - 1] in " \t":
        line -= 1
    if line > 0 and text[line - 1] != "\n":
        return False
    m = CLAUSE_NUMBER.match(text, line)
    return m is not None and start < m.end() and end <= m.end()


def _key(num: str) -> str:
    (key,) = number_keys(num) or {num}
    return key


def _hedge(text: str, start: int) -> Literal["", "about", "more", "less"]:
    before = " ".join(text[max(0, start - 24):start].lower().split())
    if before.endswith(_ABOUT):
        return "about"
    if before.endswith(_MORE):
        return "more"
    if before.endswith(_LESS):
        return "less"
    return ""


def _unit(q: Quantity, reading: float) -> float:
    """Half a unit of the last digit ``q`` was written with, at ``reading`` (one of its
    readings): the rounding a reader allows."""
    ratio = abs(reading / q.value) if q.value else 1.0
    return 0.5 * 10.0 ** -_precision(q) * q.scale * ratio


def _precision(q: Quantity) -> int:
    """The decimals ``q`` claims. An amount in thousands, millions or billions written with
    cents' two decimals ("$8.70" answering "in USD billions") follows the currency's way of
    writing, not the writer's precision: its closing zeros claim nothing ($8.70 billion is
    $8.7 billion; 3M's net PP&E of $8,738 million is that). An amount of plain dollars keeps
    its cents ("$3.10 a share" is not $3.14)."""
    if q.kind == "money" and q.scale >= 1e3 and q.decimals == 2:
        written = "".join(ch for ch in q.text if ch.isdigit() or ch == ".")
        return len(written.rpartition(".")[2].rstrip("0"))
    return q.decimals


def _readings(q: Quantity, other: Quantity) -> list[float]:
    """The values ``q`` may stand for next to ``other``: a bare table figure may be in
    thousands, millions or billions (the table's header says which, out of reach here)."""
    if q.kind == "percent" and other.kind == "number":
        return [q.value / 100]
    # only a figure written as a table's amounts are ("1,577", "349", "32.8"): "1" read in
    # millions is anything from 0.5 to 1.5 million ("1.2 million employees" on "Item 1")
    if q.scaled or other.kind == "percent" or not other.scaled or not (q.decimals > 0 or abs(q.value) >= 100):
        return [q.value]
    return [q.value * 10 ** k for k in (0, 3, 6, 9)]


def comparable(a: Quantity, b: Quantity) -> bool:
    """Whether two values can be of one quantity: years are not values; money may stand as a
    bare figure in a table; a percentage as a fraction."""
    if "year" in (a.kind, b.kind):
        return False
    kinds = {a.kind, b.kind}
    return len(kinds) == 1 or kinds in ({"money", "number"}, {"percent", "number"}, {"count", "number"})


def agree(claim: Quantity, source: Quantity) -> bool:
    """Whether ``source`` states the value ``claim`` states, allowing for the rounding of the
    less precise of the two, and 10% either way (or the direction a hedge gives) when either
    is hedged ("about 280M", "more than 280M")."""
    if not comparable(claim, source):
        return False
    for c in _readings(claim, source):
        for s in _readings(source, claim):
            if _close(claim, c, source, s):
                return True
    return False


def _close(claim: Quantity, c: float, source: Quantity, s: float) -> bool:
    # magnitudes: "(1,577)" in a cash flow statement is the outflow a reader calls "$1,577
    # million of capital spending"; which sign a figure carries is the table's convention
    c, s = abs(c), abs(s)
    tol = max(_unit(claim, c), _unit(source, s), 1e-9 * max(abs(c), abs(s)))
    if abs(c - s) <= tol:
        return True
    # a bound holds near it, on its side: "more than 10 seconds" is no reading of "737 MAX"
    if claim.hedge == "more" and c - tol <= s <= BOUND * c + tol:
        return True
    if claim.hedge == "less" and c / BOUND - tol <= s <= c + tol:
        return True
    if claim.hedge or source.hedge:
        return abs(c - s) <= LOOSE * max(abs(c), abs(s))
    return False


ASSERTED = ("money", "percent")  # kinds of value a claim asserts even when its question states them
_GROUPED = re.compile(r"\d{1,3}(?: \d{3})+")  # thousands set apart by spaces


def claimed(text: str, given: str = "") -> list[Quantity]:
    """The values ``text`` states as its own: not years (they say which value), nor numbers of
    the question ``given`` (they name things: "3M"; an amount or a percentage of it must still
    be shown: ``unshown``), nor numbers that say where something is ("listed on page 26")."""
    asked = number_keys(given)
    return [q for q in quantities(LOCATOR.sub(" ", text)) if q.kind != "year" and q.key not in asked]


def restated(answer: str, given: str) -> list[Quantity]:
    """The amounts and percentages ``answer`` takes from its question ``given``: a question's
    "3M" names a thing, but "Yes, it increases by 3% a year" asserts its 3%."""
    asked = number_keys(given)
    return [q for q in quantities(LOCATOR.sub(" ", answer)) if q.kind in ASSERTED and q.key in asked] if asked else []


def unshown(answer: str, given: str, evidence: str) -> list[str]:
    """The values ``answer`` restates from its question that ``evidence`` states in no form (5% for 3%)."""
    values = restated(answer, given)
    found = stated(evidence) if values else ()
    return [q.text for q in values if not any(agree(q, f) for f in found)]


def stated(text: str) -> tuple[Quantity, ...]:
    """The values ``text`` states; a table row's in the unit its table gives them (``cell_values``),
    a bare figure in a column that counts things as a count, in one of percentages as one."""
    cells = row_cells(text)
    if not cells:  # "Table 1" names a table; "1" is no value it states
        return quantities(LOCATOR.sub(" ", text))
    return tuple(r for c in cells for q in cell_values(c, not row_unit(text)) for r in _as_headed(q, c.head))


def _as_headed(q: Quantity, head: str) -> tuple[Quantity, ...]:
    if q.kind != "number":
        return (q,)
    if _counts(head):
        return (replace(q, kind="count"),)
    return (q, replace(q, kind="percent")) if _PERCENT_HEAD.search(head) else (q,)


def cell_values(cell: Cell, unscaled: bool) -> tuple[Quantity, ...]:
    """A table row's cell's values ("Permit: 98 452" is one figure). With ``unscaled`` (a row
    without its table's unit: "Free cash flow | 2017: $ 8,376", "in millions" in the sentence
    above) an amount with no scale word that is all the cell holds may be in any scale."""
    value = cell.value.strip()
    found = quantities(value.replace(" ", ",") if _GROUPED.fullmatch(value) else value)
    q = found[0] if unscaled and len(found) == 1 and found[0].text == value else None
    return (replace(q, scaled=False),) if q is not None and q.kind == "money" and q.scale == 1.0 else found


def _counts(head: str) -> bool:
    return bool(_COUNT_HEAD.search(head)) and not _AMOUNT_HEAD.search(head)


def mistyped(claim: str, evidence: str, question: str = "") -> list[str]:
    """The claim's amounts and percentages that ``evidence`` writes with the same digits only
    as counts of things ("$7,138,475" of revenue is not "Total Number of Shares Purchased:
    7,138,475", though the entailment model reads them as the same), or only in another
    stated unit ("$0.55 billion" is not "a dividend of $0.55 per share"); a bare figure is
    in the unit ``question`` asks for, if it names one."""
    found = stated(evidence)
    return [q.text for q in in_asked_unit(quantities(claim), question)
            if _only_otherwise(q, [s for s in found if s.key == q.key])]


# the unit a question asks its figure in: "(in USD billions)", "Answer in $ millions", "in
# thousands of dollars"
_ASKED_UNIT = re.compile(r"(?i)\bin[ \t]++(?P<cur>usd\b|us\$|\$|(?:us[ \t]++)?dollars\b)?+[ \t]*+"
                         r"(?P<scale>thousand|million|billion)s?+\b(?P<of>[ \t]++of[ \t]++(?:us[ \t]++)?dollars\b)?+")


def in_asked_unit(values: tuple[Quantity, ...], question: str) -> tuple[Quantity, ...]:
    """``values`` with each figure that has no scale word (nor a percent) read in the unit
    ``question`` asks for: "0.55" or "$0.55" answering "How much (in USD billions) was
    paid?" is $0.55 billion, and no dividend of "$0.55 per share" states it."""
    m = _ASKED_UNIT.search(question) if question else None
    if m is None:
        return values
    scale = _SCALES[m["scale"].lower()]
    kind: Kind = "money" if m["cur"] or m["of"] else "number"
    return tuple(replace(q, value=q.value * scale, kind=kind, scale=scale, scaled=True)
                 if (q.kind == "number" and not q.scaled) or (q.kind == "money" and q.scale == 1.0) else q
                 for q in values)


def _only_otherwise(q: Quantity, same: list[Quantity]) -> bool:
    if not same or (q.kind in ("money", "percent") and all(s.kind == "count" for s in same)):
        return bool(same)
    if q.kind == "percent":  # "26.7%" is not "26.7M tokens" nor "$26.7 million"
        return all(s.kind == "money" or (s.kind != "percent" and s.scale > 1) for s in same)
    return q.scale > 1 and all(s.scaled and s.scale != q.scale and not agree(q, s) for s in same)


def agreeing_keys(claim: str, evidence: str) -> frozenset[str]:
    """The number keys of ``claim``'s values that ``evidence`` states in some form."""
    found = stated(evidence)
    return frozenset(q.key for q in quantities(claim) if q.kind != "year" and any(agree(q, s) for s in found))




CELL_KINDS = ("money", "number", "count", "percent")  # the kinds of value a table cell states


class Cell(NamedTuple):
    head: str  # the column's header ("FY2022"; "" for a column with none)
    periods: frozenset[str]  # the years the header names
    value: str  # the cell's text, in the table's unit


def row_cells(text: str) -> list[Cell]:
    """Every cell of a canonical table row ("Net income | 2018: $ 5,363 | 2017: $ 4,869
    (Millions)", ``gechat.documents.tables``), in order, each with the years of its column's
    header (or, where that names none, of the row's label); [] for any other text. The table's
    unit is written into each cell ("$ 5,363 million"), except in a per-share row of a table
    "in millions, except per share data"."""
    label = row_label(text)
    if label is None:
        return []
    unit = row_unit(text)
    scale = UNIT_SCALE.search(unit)
    if scale and "except" in unit.lower() and "per share" in label.lower():
        scale = None
    out = []
    for part in text.removesuffix(unit).rstrip().split(SEPARATOR)[1:]:
        head, _, value = part.partition(": ") if ": " in part else ("", "", part)
        # a cell's "(25)" is a small negative, not a list's marker (read as a magnitude)
        bare = value[1:] if value[:1] in ("$", "€", "£", "¥") else value
        bare = bare[1:] if bare[:1].isspace() else bare
        if MARKER.fullmatch(bare):
            value = f"{value[:len(value) - len(bare)]}-{bare[1:-1]}"
        # a column that names no period holds the period its row names ("Liability balance
        # at June 30, 2022 | Employee Costs: $ 97")
        # a column of percentages is in none of the table's units ("% of Total: 14.6")
        if scale and not _PERCENT_HEAD.search(head):
            value = f"{value} {scale.group(1).lower()}"
        out.append(Cell(head, years(head) or years(label), value))
    return out


def stating(values: list[Quantity], text: str) -> list[Cell]:
    """The cells of the table row ``text`` that state one of ``values``; [] for any other text."""
    return [c for c in row_cells(text) if any(agree(v, f) for v in values for f in cell_values(c, not row_unit(text)))]


def narrow(text: str, wanted: frozenset[str] | set[str], *, strict: bool = False) -> str:
    """A table row cut to its label and the cells of the periods ``wanted`` (and, unless
    ``strict``, cells of no period: "Fourth Quarter" of a row whose label names the year), with
    the table's unit: "Net income | 2017: $ 4,869 (Millions)" of the row above for 2017. Any
    other text, or a row with no cell of those periods, comes back whole."""
    cells = row_cells(text)
    if not wanted or not any(c.periods & wanted for c in cells):
        return text
    unit = row_unit(text)
    parts = text.removesuffix(unit).rstrip().split(SEPARATOR)
    kept = [parts[0]] + [part for part, c in zip(parts[1:], cells, strict=True)
                         if (not c.periods and not strict) or c.periods & wanted]
    return SEPARATOR.join(kept) + (f" {unit}" if unit else "")


__all__ = ["Cell", "Quantity", "agree", "agreeing_keys", "comparable", "located", "narrow",
           "quantities", "restated", "row_cells", "stated", "stating", "unshown"]
