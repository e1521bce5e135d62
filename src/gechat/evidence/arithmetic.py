"""A claim's own arithmetic, redone: "$12,500 + $4,200 + $2,800 = $29,500" is false whatever
the documents say.

A small model writes its sums out and gets them wrong (asked a services agreement for the
total monthly fee, the 1.5B model answered "$12,500 + $4,200 + $2,800 = $29,500"). When a
claim writes a chain of values joined by + - × / and an "=" before its result, the chain is
computed (× and / before + and -, as written otherwise) and compared with the result as a
reader rounds it (``values.agree``). A result that does not agree makes the claim
*contradicted*, with the arithmetic in its note. Only plain chains are read: no brackets, a
percentage only as the result of a division ("1,200 / 10,000 = 12%") or beside other
percentages.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from gechat.evidence.values import Quantity, agree, located

_OP = re.compile(r"[ \t]*([+\-−–×x*/÷])[ \t]*")
_EQUALS = re.compile(r"[ \t]*=[ \t]*")
_BRACKETS = re.compile(r"[()\[\]]")  # "(253 + 282) / 2": the order is the brackets', not read here
_OPS = {"+": "+", "-": "-", "−": "-", "–": "-", "×": "*", "x": "*", "*": "*", "/": "/", "÷": "/"}


class Miscount(NamedTuple):
    """A chain whose written result is wrong: what to tell the reader, and the result's place."""

    note: str  # "its arithmetic is wrong: $12,500 + $4,200 + $2,800 = 19,500, not $29,500"
    start: int  # the written result in the text
    end: int
    right: str  # the result redone, written as the text writes it: "$19,500"
    operands: tuple[Quantity, ...]  # the values the chain adds, subtracts, multiplies or divides


def miscomputed(text: str) -> Miscount | None:
    """The first chain of ``text`` whose written result is wrong, or None."""
    spans = located(text) if "=" in text else ()
    if not spans:
        return None
    chain: list[tuple[str, Quantity]] = []  # (operator before it, value)
    begin = 0  # where the chain starts
    for (start, end, q), nxt in zip(spans, [*spans[1:], None], strict=True):
        if q.kind == "year" or nxt is None:
            chain = []
            continue
        between = text[end:nxt[0]]
        if not chain:
            chain, begin = [("", q)], start
        if (m := _OP.fullmatch(between)) and nxt[2].kind != "year":
            chain.append((_OPS[m.group(1)], nxt[2]))
        elif _EQUALS.fullmatch(between) and len(chain) > 1 and not _BRACKETS.search(text, begin, end):
            wrong = _check(chain, nxt[2])
            if wrong:
                at = nxt[0] + len(text[nxt[0]:nxt[1]]) - len(text[nxt[0]:nxt[1]].lstrip())
                written = text[at:nxt[1]].rstrip()
                return Miscount(wrong[0], at, at + len(written), _written(wrong[1], written),
                                tuple(q for _, q in chain))
            chain = []
        else:
            chain = []
    return None


def _check(chain: list[tuple[str, Quantity]], result: Quantity) -> tuple[str, float] | None:
    """(the note, the right result in the result's unit) when the written result is wrong."""
    kinds = {q.kind for _, q in chain}
    ops = {op for op, _ in chain[1:]}
    percent_of = result.kind == "percent" and ops == {"/"} and "percent" not in kinds
    unit_mix = len(kinds | {result.kind}) > 1 and not kinds <= {"number", "count"}
    scaled_percent = "percent" in kinds and bool(ops - {"+", "-"})
    if not percent_of and (unit_mix or scaled_percent):
        return None  # units the chain does not say how to combine
    value = _evaluate([(op, q.value) for op, q in chain])
    if value is None:
        return None
    if percent_of:
        value *= 100
    if result.scale > 1 and all(q.scale == 1 for _, q in chain):
        value *= result.scale  # "15,785 + 8,250 = 24,035 million": the operands in the result's unit
    got = Quantity(value=value, kind=result.kind, decimals=9, scale=1.0, scaled=result.scaled, hedge="", text="",
                   key="")
    if agree(result, got):
        return None
    written = " ".join(f"{op} {q.text.strip()}" if op else q.text.strip() for op, q in chain)
    value /= result.scale
    right = f"{plain(value)}{'%' if percent_of else ''}"
    return f"its arithmetic is wrong: {written} = {right}, not {result.text.strip()}", value


def plain(value: float) -> str:
    """A computed figure as a note shows it: four significant digits, whole from 1,000 on."""
    return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"


_FIGURE = re.compile(r"(\D*?)(\d[\d,]*(?:\.\d+)?)(.*)", re.DOTALL)


def _written(value: float, result: str) -> str:
    """``value`` written as ``result`` is: its sign or currency before, its unit after, its
    decimals and thousands separators ("$29,500" gives "$19,500")."""
    m = _FIGURE.fullmatch(result)
    if m is None:
        return f"{value:,.4g}"
    head, digits, tail = m.groups()
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    body = f"{value:,.{decimals}f}" if "," in digits or abs(value) >= 10_000 else f"{value:.{decimals}f}"
    return f"{head}{body}{tail}"


def _evaluate(terms: list[tuple[str, float]]) -> float | None:
    """× and / first, then + and -, left to right."""
    sums: list[float] = []
    sign = 1.0
    product: float | None = None
    for op, value in terms:
        if op in ("", "+", "-"):
            if product is not None:
                sums.append(sign * product)
            sign, product = (-1.0 if op == "-" else 1.0), value
        elif product is None:
            return None
        elif op == "*":
            product *= value
        elif value == 0:
            return None
        else:
            product /= value
    if product is not None:
        sums.append(sign * product)
    return sum(sums)


__all__ = ["Miscount", "miscomputed", "plain"]
