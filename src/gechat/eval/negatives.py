"""Hard wrong claims for the oracle suites: close enough to the truth that only reading the
numbers tells them apart.

For an answer with a figure, the same answer with the figure changed by 5% to 50% (up or
down, chosen from the question's id, so every run grounds the same claims), written the way
the answer writes it: "$1,577 million" becomes "$1,877 million", "12.5%" becomes "10.9%".
Years are left alone: a claim about another year is another fact, not a wrong value.

For a QA answer that is neither a yes / no nor one of the question's options, a thing of the
same kind from the question's own passages (``same_kind``): another year for a year, another
figure of the same kind for a figure, another name for a name, none the question or the
answer holds; chosen from the question's id, so every run grounds the same claims.
"""

from __future__ import annotations

import hashlib
import re

from gechat.evidence.values import quantities
from gechat.lexical import content_keys

_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
# a name: capitalised words, "of" / "the" between them allowed; bounded runs, linear
_NAME = re.compile(r"[A-Z][\w'-]{1,30}(?:\s(?:(?:of|the|de|von|van)\s)?[A-Z][\w'-]{1,30}){0,4}")


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


def same_kind(answer: str, question: str, passages: str, seed: str) -> str | None:
    """Another year, figure or name from ``passages`` than ``answer``, of the same kind, that
    neither the answer nor the question holds; None when there is none (or the answer is none
    of these)."""
    a = answer.strip()
    pool: list[str]
    if _YEAR.fullmatch(a):
        pool = [str(y) for y in dict.fromkeys(_YEAR.findall(passages)) if y != a and y not in question]
    elif (mine := [q for q in quantities(a) if q.kind != "year"]) and any(c.isdigit() for c in a):
        kind, value = mine[0].kind, mine[0].value
        pool = list(dict.fromkeys(q.text for q in quantities(passages)
                                  if q.kind == kind and q.value != value and q.text not in question))
    elif _NAME.fullmatch(a):
        taken = content_keys(a) | content_keys(question)
        words = len(a.split())
        names = [n for n in dict.fromkeys(m.group() for m in _NAME.finditer(passages))
                 if content_keys(n) and not content_keys(n) & taken]
        # a name as long as the answer first: a person for a person, a place for a place
        pool = [n for n in names if len(n.split()) == words] or names
    else:
        return None
    if not pool:
        return None
    return pool[hashlib.sha256(seed.encode()).digest()[0] % len(pool)]


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


__all__ = ["changed_number", "same_kind"]
