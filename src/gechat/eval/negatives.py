"""Hard wrong claims for the oracle suites: close enough to the truth that only reading the
numbers tells them apart.

For an answer with a figure, the same answer with the figure changed by 5% to 50% (up or
down, chosen from the question's id, so every run grounds the same claims), written the way
the answer writes it: "$1,577 million" becomes "$1,877 million", "12.5%" becomes "10.9%".
Years are left alone: a claim about another year is another fact, not a wrong value.
"""

from __future__ import annotations

import hashlib

from gechat.evidence.values import quantities


def changed_number(answer: str, seed: str) -> str | None:
    """``answer`` with a figure changed by 5-50% (its first amount, else percentage, else
    other figure; never a year); None if it has none."""
    # an amount or a percentage first: a bare figure may be part of a name ("3M")
    order = {"money": 0, "percent": 1, "number": 2}
    figures = sorted((q for q in quantities(answer) if q.kind != "year" and q.value), key=lambda q: order[q.kind])
    if not figures:
        return None
    found = figures[0]
    digest = hashlib.sha256(seed.encode()).digest()
    change = 0.05 + 0.45 * digest[0] / 255  # 5% .. 50%
    factor = 1 + change if digest[1] % 2 else 1 - change
    start = answer.index(found.text)
    digits = next(t for t in _numbers(found.text))
    new = _format(float(digits.replace(",", "")) * factor, digits)
    if new == digits:
        return None
    text = found.text.replace(digits, new, 1)
    return answer[:start] + text + answer[start + len(found.text):]


def _numbers(text: str) -> list[str]:
    out, cur = [], ""
    for ch in text:
        if ch.isdigit() or (cur and ch in ",."):
            cur += ch
        elif cur:
            out.append(cur.rstrip(",."))
            cur = ""
    if cur:
        out.append(cur.rstrip(",."))
    return out


def _format(value: float, like: str) -> str:
    """``value`` written as ``like`` is: the same decimals, thousands commas if it has them."""
    decimals = len(like.split(".")[1]) if "." in like else 0
    text = f"{value:,.{decimals}f}" if "," in like else f"{value:.{decimals}f}"
    return text


__all__ = ["changed_number"]
