"""Atomic claims: one fact each, so a sentence is supported only when every fact it states is.

An answer sentence often states several facts at once ("Acme was founded by Alice Smith and
Bob Jones", "Revenue was $5 million and net income $1 million"); one sentence of evidence may
support the first and say nothing of the second, and the cross-encoder, reading the whole
sentence, still entails it. Each claim is therefore split into atomic claims, each checked on
its own with its own evidence (FActScore and MiniCheck do the same):

- ``rules``: no model. A list of names joined by "and" ("Alice Smith, Bob Jones and Acme")
  in what the claim says beyond the question becomes one claim per name; nothing else is split.
- ``llm``: the LLM writes the facts as a JSON list (schema-constrained, cached like every LLM
  call, counted in the answer's usage). A fact that brings a name or number the claim does not
  hold is invented: then the rules' split is used instead.
- ``off``: every claim is one atom.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Protocol

from gechat.evidence.base import ClaimInput
from gechat.lexical import uncovered
from gechat.models.llm.base import LLM
from gechat.prompts import PROMPTS
from gechat.registry import Registry
from gechat.types import Claim, Evidence, Verdict

MAX_ATOMS = 6


class Decomposer(Protocol):
    name: str

    def split(self, claims: Sequence[ClaimInput]) -> list[list[str]]:
        """For each claim, its atomic claims as sentences (the claim itself when it states one fact)."""
        ...


DECOMPOSERS: Registry[Decomposer] = Registry("claim decomposer")

# A name: capitalised words, with the joining words names hold ("Bank of America"). Each
# word is a bounded run and the joins are literal: linear.
_WORD = r"[A-Z][\w'&-]{0,40}(?:\.[A-Z][\w'&-]{0,20}){0,3}"  # "J.P", never a sentence's final dot
_NAME = rf"{_WORD}(?:\.?\s(?:(?:of|the|de|la|van|von|der|du|y)\s)?{_WORD}){{0,6}}"  # "J.P. Morgan"
# two or more names joined by commas and a final "and" (an Oxford comma allowed)
# (the last name ends the word: "F" of "F¨arber", a PDF's split umlaut, is no name)
_LIST = re.compile(rf"(?<![\w-])({_NAME})((?:,\s{_NAME}){{0,8}}),?\sand\s({_NAME})(?=[\s.,;:!?)\]\"'’”]|$)")
_SPLIT_NAMES = re.compile(r",\s")
_JOINER = re.compile(r"\s(?:of|the|de|la|van|von|der|du|y)\s")
# words before a list that make it one relation, not several facts ("between A and B")
_TOGETHER = frozenset(("between", "among", "both", "versus", "vs", "and", "or", "nor"))
_AFTER_TOGETHER = frozenset(("together", "jointly", "respectively", "combined", "each"))


class Off:
    name = "off"

    def split(self, claims: Sequence[ClaimInput]) -> list[list[str]]:
        return [[c.text] for c in claims]


class Rules:
    name = "rules"

    def split(self, claims: Sequence[ClaimInput]) -> list[list[str]]:
        return [split_names(c) for c in claims]


def split_names(claim: ClaimInput) -> list[str]:
    """One claim per name of the first "A, B and C" list in what the claim adds to the
    question (a list the question itself holds is what was asked about, left whole)."""
    text, skip = claim.text, len(claim.text) - len(claim.answer())
    for m in _LIST.finditer(text, skip):
        before = text[:m.start()].split()
        after = {w.strip(".,;:!?").casefold() for w in text[m.end():].split()}
        if (before and before[-1].casefold() in _TOGETHER) or after & _AFTER_TOGETHER:
            continue
        if not text[:m.start()].strip() and _JOINER.search(m.group(1)):
            # a sentence's first word is capitalised anyway: "Shares of Apple and Microsoft"
            # and "Bank of America and Citi" look alike, so neither is split
            continue
        names = [m.group(1), *[n for n in _SPLIT_NAMES.split(m.group(2)) if n], m.group(3)]
        return [text[:m.start()] + n + text[m.end():] for n in names[:MAX_ATOMS]]
    return [text]


def _schema() -> dict[str, Any]:
    return {"type": "object", "required": ["facts"],
            "properties": {"facts": {"type": "array", "maxItems": MAX_ATOMS,
                                     "items": {"type": "string", "maxLength": 300}}}}


class LLMDecomposer:
    name = "llm"

    def __init__(self, llm: LLM, max_tokens: int = 240) -> None:
        self.llm, self.max_tokens = llm, max_tokens

    def split(self, claims: Sequence[ClaimInput]) -> list[list[str]]:
        return [self._one(c) for c in claims]

    def _one(self, claim: ClaimInput) -> list[str]:
        if len(claim.answer().split()) < 4:  # "Yes.", "In 1889.": one fact, no call
            return [claim.text]
        messages = [{"role": "system", "content": PROMPTS["atoms_system"]},
                    {"role": "user", "content": PROMPTS["atoms_user"].format(claim=claim.text)}]
        out = self.llm.complete(messages, max_tokens=self.max_tokens, json_schema=_schema())  # type: ignore[arg-type]
        facts = _facts(out.text)
        if not facts or any(uncovered(f, claim.text) for f in facts):
            return split_names(claim)  # nothing usable, or a name or number the claim lacks
        return facts if len(facts) > 1 else [claim.text]


def _facts(text: str) -> list[str]:
    try:
        data = json.loads(text)
    except ValueError:
        return []
    items = data.get("facts") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return []
    return [s.strip() for s in items if isinstance(s, str) and s.strip()][:MAX_ATOMS]


def combine(text: str, source: str, atoms: list[Claim]) -> Claim:
    """A claim of several atoms: contradicted if any atom is; supported if every atom that
    states a fact is; "no fact" if none does; else unsupported. Its evidence is its atoms'."""
    verdicts = [a.verdict for a in atoms]
    facts = [v for v in verdicts if v != "no fact"]
    verdict: Verdict
    if "contradicted" in verdicts:
        verdict = "contradicted"
    elif not facts:
        verdict = "no fact"
    elif all(v == "supported" for v in facts):
        verdict = "supported"
    else:
        verdict = "unsupported"
    seen: set[tuple[int, int, int]] = set()
    evidence: list[Evidence] = []
    for a in atoms:
        for e in a.evidence:
            if (e.doc_id, e.start, e.end) not in seen:
                seen.add((e.doc_id, e.start, e.end))
                evidence.append(e)
    missing = list(dict.fromkeys(w for a in atoms for w in a.missing))
    notes = "; ".join(a.note for a in atoms if a.note)
    return Claim(text=text, source=source, verdict=verdict, evidence=evidence, missing=missing,  # type: ignore[arg-type]
                 note=notes, atoms=atoms)


__all__ = ["DECOMPOSERS", "Decomposer", "LLMDecomposer", "Off", "Rules", "combine", "split_names"]
