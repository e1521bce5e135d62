"""Role-swap negatives (issue 4): the hallucination a grounded answer most often hides.

A wrong answer that a retrieved passage itself names ("Moonstruck ... directed by Norman
Jewison and written by John Patrick Shanley" => "John Patrick Shanley directed the film")
shares almost every word with its evidence, so a small cross-encoder trained on general NLI
calls it entailed. These pairs teach it that who did what matters: from an entailed pair
whose hypothesis names something the premise names too, replace that name (or number) with
another one of the same kind that the premise names and the hypothesis does not. The result
is labelled "not entailment" (contradiction or neutral: a swap may make either).

Skipped where a swap could still be true: the two names stand side by side in a list ("A and
B co-founded X"), one name holds a word of the other (an alias, a short form), or the two
numbers are equal. Built only from train sources (``training/nli_data.py``); each made pair
keeps its source's licence and group, so VitaminC's page split still holds.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable

from training.nli_data import LABELS, NOT_ENTAILMENT, Pair

ENTAIL = LABELS.index("entailment")
_LINK = {"of", "the", "de", "van", "von", "da", "la", "le", "du", "del", "der", "and"}
_WORD = re.compile(r"[A-Za-z][\w'’.&-]*|\d[\d,]*(?:\.\d+)?")
_JUNK = re.compile(r"[:()]|-[LR][RSC]B-")  # VitaminC's "Title -LRB-film-RRB-:" page prefix
_MONTHS = {"january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
           "saturday", "sunday"}
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?$")
_YEAR = re.compile(r"(1[0-9]|20)\d\d$")
# what may stand between two names of one list: "A and B", "A, B", "A or B", "A (B"
_LISTED = re.compile(r"[\s,;/&(]*(?:and|or|&|as well as)?[\s,;/&(\"']*", re.I)


def names(text: str) -> list[tuple[str, str]]:
    """(kind, span): runs of capitalised words ("name"; a lone sentence-opening word is not
    one), years and other numbers, in order."""
    words = [(m.group(), m.start()) for m in _WORD.finditer(text)]
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(words):
        w, start = words[i]
        if _NUMBER.match(w):
            out.append(("year" if _YEAR.match(w) else "number", w.rstrip(".,")))
            i += 1
            continue
        if not w[0].isupper():
            i += 1
            continue
        j = i + 1
        while j < len(words):
            k = j
            while k < len(words) and words[k][0].lower() in _LINK:
                k += 1  # "Rookie of the Year": links count only between capitalised words
            if k < len(words) and words[k][0][0].isupper() and not _NUMBER.match(words[k][0]):
                j = k + 1
            else:
                break
        end = words[j - 1][1] + len(words[j - 1][0])
        span = text[start:end].rstrip(".,'’")
        opens = start == 0 or text[:start].rstrip().endswith((".", "!", "?", '"', ":"))
        if _JUNK.search(span) or (opens and j == i + 1):
            pass
        elif span.split()[0].lower() in _MONTHS:
            out.append(("date", span))
        else:
            out.append(("name", span))
        i = j
    return out


def _listed_together(premise: str, a: str, b: str) -> bool:
    for x, y in ((a, b), (b, a)):
        for m in re.finditer(re.escape(x), premise):
            rest = premise[m.end():]
            gap = _LISTED.match(rest)
            if gap is not None and rest[gap.end():].startswith(y):
                return True
    return False


def related(a: str, b: str) -> bool:
    wa, wb = set(a.lower().split()), set(b.lower().split())
    return bool(wa & wb) or a.lower() in b.lower() or b.lower() in a.lower()


def _body(premise: str) -> str:
    """The premise without VitaminC's "Page title: " opening."""
    head, sep, rest = premise.partition(": ")
    return rest if sep and _JUNK.search(head + ":") and len(head) < 80 else premise


def swap(pair: Pair, rng: random.Random) -> Pair | None:
    """One role swap of an entailed ``pair``, or None when no safe swap exists."""
    in_premise = list(dict.fromkeys(names(_body(pair.premise))))
    whole = {s for _, s in in_premise}
    in_hyp = [(k, s) for k, s in names(pair.hypothesis) if s in whole]  # a whole name, not a piece
    if not in_hyp:
        return None
    options = []
    for kind, old in in_hyp:
        for k2, new in in_premise:
            if k2 != kind or new in pair.hypothesis or related(old, new):
                continue
            if kind != "name" and new.replace(",", "") == old.replace(",", ""):
                continue
            if _listed_together(pair.premise, old, new):
                continue
            options.append((old, new))
    if not options:
        return None
    old, new = rng.choice(options)
    hypothesis = re.sub(rf"(?<![\w-]){re.escape(old)}(?![\w-])", lambda _: new, pair.hypothesis, count=1)
    if hypothesis == pair.hypothesis:
        return None
    return Pair(pair.premise, hypothesis, NOT_ENTAILMENT, f"swap_{pair.source}", pair.group)


def swap_pairs(pairs: Iterable[Pair], rng: random.Random, limit: int | None = None, *,
               originals: bool = False) -> list[Pair]:
    """Role swaps of the entailed pairs among ``pairs``, at most ``limit``; with ``originals``,
    each swap follows the entailed pair it was made from (tagged as a swap source too).

    Trained alone, swaps teach a shortcut instead of the lesson: in a first try (10,484 VitaminC
    swaps beside 4,000 VitaminC pairs) the model learned "a VitaminC-style premise with names =>
    not entailment" and called 697 of the 748 entailed pairs among the first 1,500 VitaminC dev
    pairs contradictions. With its
    original beside it, only the swapped name tells a swap apart."""
    out: list[Pair] = []
    made = 0
    for p in pairs:
        if p.label != ENTAIL:
            continue
        s = swap(p, rng)
        if s is not None:
            if originals:
                out.append(Pair(p.premise, p.hypothesis, ENTAIL, s.source, p.group))
            out.append(s)
            made += 1
            if limit is not None and made >= limit:
                break
    return out
