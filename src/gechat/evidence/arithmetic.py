"""A claim's own arithmetic, redone: "$12,500 + $4,200 + $2,800 = $29,500" is false whatever
the documents say.

A small model writes its sums out and gets them wrong (asked a services agreement for the
total monthly fee, the 1.5B model answered "$12,500 + $4,200 + $2,800 = $29,500"; asked a
filing for revenue growth, "(3,033 - 2,371) / 2,371 * 100 = 20.0%"). When a claim writes
values joined by + - × / and brackets, then "=" and its result, the expression is computed
as arithmetic reads it (brackets first, × and / before + and -) and compared with the result
as a reader rounds it (``values.agree``). A result that does not agree makes the claim
*contradicted*, with the arithmetic in its note. A percentage is read only as the result of
a division ("1,200 / 10,000 = 12%", with or without its "× 100") or beside other
percentages; years end an expression ("From 2018 - 2019 = 5%" is not a subtraction).
"""

from __future__ import annotations

import ast
import re
from typing import NamedTuple

from gechat.evidence.values import Quantity, agree, located, quantities
from gechat.lexical import number_keys

# what may stand between two values of one expression: closing brackets, an operator, opening brackets
_JOIN = re.compile(r"[ \t]*(\)[ \t]*)*([+\-−–×x*/÷])[ \t]*(\([ \t]*)*")
_EQUALS = re.compile(r"[ \t]*(\)[ \t]*)*=[ \t]*")
_OPS = {"+": "+", "-": "-", "−": "-", "–": "-", "×": "*", "x": "*", "*": "*", "/": "/", "÷": "/"}
_SHOWN = {"+": "+", "-": "-", "*": "×", "/": "/"}


class Miscount(NamedTuple):
    """An expression whose written result is wrong: what to tell the reader, and the result's place."""

    note: str  # "its arithmetic is wrong: $12,500 + $4,200 + $2,800 = 19,500, not $29,500"
    start: int  # the written result in the text
    end: int
    result: str  # the result as written: "$29,500"
    right: str  # the result redone, written as the text writes it: "$19,500"
    value: float  # the result redone, in the unit of ``Quantity.value``
    operands: tuple[Quantity, ...]  # the values the expression adds, subtracts, multiplies or divides


def miscomputed(text: str) -> Miscount | None:
    """The first expression of ``text`` whose written result is wrong, or None."""
    spans = located(text) if "=" in text else ()
    if not spans:
        return None
    # an expression: its tokens ("(", "-", ")" or a value's index into spans) so far
    tokens: list[str | int] = []
    for i, ((start, end, q), nxt) in enumerate(zip(spans, [*spans[1:], None], strict=True)):
        opens, closes = _brackets(text, start, end, q)
        if q.kind == "year" or nxt is None:
            tokens = []
            continue
        if not tokens:
            before = text[:start].rstrip(" \t")
            tokens = ["("] * (opens + len(before) - len(before.rstrip("(")))
        tokens.append(i)
        between = text[end:nxt[0]]
        if nxt[2].kind == "year":
            tokens = []
        elif m := _JOIN.fullmatch(between):
            tokens += [")"] * (closes + between.count(")")) + [_OPS[m.group(2)]] + ["("] * between.count("(")
            tokens += ["("] * _brackets(text, *nxt)[0]
        elif _EQUALS.fullmatch(between) and any(isinstance(t, str) and t not in "()" for t in tokens):
            tokens += [")"] * (closes + between.count(")"))
            wrong = _check(_balanced(tokens), spans, nxt[2])
            if wrong:
                at, written = _bare(text, nxt[0], nxt[1])
                return Miscount(wrong[0], at, at + len(written), written,
                                _written(wrong[1] / nxt[2].scale, written), wrong[1],
                                tuple(spans[t][2] for t in tokens if isinstance(t, int)))
            tokens = []
        else:
            tokens = []
    return None


def rests_on(text: str, wrongs: list[Miscount], given: str = "") -> Miscount | None:
    """The first value of ``text`` (not one of its question ``given``) that is the wrong result
    of one of ``wrongs`` and not its right one, as a Miscount placed in ``text``: "The growth
    was 20.0%" after a step "(3,033 - 2,371) / 2,371 * 100 = 20.0%" rests on that step."""
    asked = number_keys(given)
    for start, end, q in located(text):
        if q.kind == "year" or q.key in asked:
            continue
        for w in wrongs:
            result = [r for r in quantities(w.result) if r.kind == q.kind]
            right = Quantity(value=w.value, kind=q.kind, decimals=9, scale=1.0, scaled=q.scaled, hedge="", text="",
                             key="")
            if result and agree(result[0], q) and not agree(q, right):
                at, written = _bare(text, start, end)
                note = w.note.replace("its arithmetic", "it rests on a step whose arithmetic", 1)
                return w._replace(note=note, start=at, end=at + len(written), result=written,
                                  right=_written(w.value / q.scale, written))
    return None


def _brackets(text: str, start: int, end: int, q: Quantity) -> tuple[int, int]:
    """The brackets a located value's span holds before and after its figure; none for an
    accounting negative, whose brackets are its sign ("(699)")."""
    core = text[start:end].strip()
    return (0, 0) if q.value < 0 else (len(core) - len(core.lstrip("(")), len(core) - len(core.rstrip(")")))


def _bare(text: str, start: int, end: int) -> tuple[int, str]:
    """Where a located value's figure starts in ``text``, and the figure as written, without
    the spaces and brackets its span took along."""
    at = start + len(text[start:end]) - len(text[start:end].lstrip(" \t("))
    return at, text[at:end].rstrip(" \t)")


def _balanced(tokens: list[str | int]) -> list[str | int]:
    """``tokens`` without the brackets that open before its first value or close after its
    last and have no partner ("(the ratio 17,606 / 2 = 8,803)" reads "17,606 / 2")."""
    depth, low = 0, 0
    for t in tokens:
        depth += (t == "(") - (t == ")")
        low = min(low, depth)
    head = -low  # closers with no opener: drop as many at the end
    tail = depth - low  # openers with no closer: drop as many at the start
    out = list(tokens)
    while tail and out and out[0] == "(":
        out.pop(0)
        tail -= 1
    while head and out and out[-1] == ")":
        out.pop()
        head -= 1
    return out if not head and not tail else []


def _check(tokens: list[str | int], spans: tuple[tuple[int, int, Quantity], ...],
           result: Quantity) -> tuple[str, float] | None:
    """(the note, the right result) when the written result is wrong."""
    values = [spans[t][2] for t in tokens if isinstance(t, int)]
    ops = {t for t in tokens if isinstance(t, str) and t not in "()"}
    kinds = {q.kind for q in values}
    percent_of = result.kind == "percent" and "/" in ops and "percent" not in kinds
    units = {k for k in kinds | {result.kind} if k not in ("number", "count")}
    scaled_percent = "percent" in kinds and bool(ops - {"+", "-"})
    if not values or (not percent_of and (len(units) > 1 or scaled_percent)):
        return None  # units the expression does not say how to combine
    value = _evaluate("".join(repr(spans[t][2].value) if isinstance(t, int) else t for t in tokens))
    if value is None:
        return None
    if result.scale > 1 and all(q.scale == 1 for q in values):
        value *= result.scale  # "15,785 + 8,250 = 24,035 million": the operands in the result's unit
    if percent_of and not _times_hundred(tokens, spans):
        value *= 100  # "1,200 / 10,000 = 12%": a share written as a percentage
    got = Quantity(value=value, kind=result.kind, decimals=9, scale=1.0, scaled=result.scaled, hedge="", text="",
                   key="")
    if agree(result, got):
        return None
    shown = " ".join(_operand(spans[t][2]) if isinstance(t, int) else _SHOWN.get(t, t) for t in tokens)
    shown = shown.replace("( ", "(").replace(" )", ")")
    right = f"{plain(value / result.scale)}{'%' if percent_of else ''}"
    return f"its arithmetic is wrong: {shown} = {right}, not {result.text.strip(' ()')}", value


def _operand(q: Quantity) -> str:
    """A value as the expression wrote it, without the brackets around it ("(699)" keeps its own)."""
    return q.text.strip() if q.value < 0 else q.text.strip().strip("()")


def _times_hundred(tokens: list[str | int], spans: tuple[tuple[int, int, Quantity], ...]) -> bool:
    """The expression makes its share a percentage itself: "... / 2,371 * 100", "100 * ..."."""
    def hundred(t: str | int) -> bool:
        return isinstance(t, int) and spans[t][2].value == 100 and spans[t][2].kind == "number"
    return (len(tokens) > 2 and tokens[-2] == "*" and hundred(tokens[-1])) or \
        (len(tokens) > 2 and tokens[1] == "*" and hundred(tokens[0]))


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


def _evaluate(expression: str) -> float | None:
    """The value of an expression of numbers, + - * / and brackets; None when it is not one
    or divides by zero. Read from its syntax tree: nothing of it is run."""
    try:
        tree = ast.parse(expression, mode="eval").body
        return _value(tree)
    except (SyntaxError, ZeroDivisionError, ValueError):
        return None


def _value(node: ast.expr) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand)
    if isinstance(node, ast.BinOp):
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Div):
            return left / right
    raise ValueError("not arithmetic")


__all__ = ["Miscount", "miscomputed", "plain", "rests_on"]
