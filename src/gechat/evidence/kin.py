"""Answers to "who is X's paternal grandfather?": the answer is the parent of a parent, told in
two places ("X ... was the son of P." and "P ... was the son of G."). An NLI cross-encoder reads
one premise against "the paternal grandfather of X is G" and cannot follow the chain (on
2WikiMultihopQA dev questions its evidence for these reached F1 0.50, against 0.65-0.90 for
the other kinds). Here X's sentence naming the parent is found, then the parent's sentence
naming the grandparent; when the grandparent is the answer's person, the two (or three)
sentences are the evidence and ``Claim.note`` names the chain.

Only a chain that is found whole and ends in the answer's person decides; anything else (a
parent not named, another grandparent found) goes to the entailment model as before, so this
rule never calls an answer contradicted on its own reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gechat.evidence.base import QUALIFIER, EvidencePool
from gechat.evidence.compare import following, mentions
from gechat.lexical import content_keys
from gechat.types import Sentence

_SIDE = r"(paternal|maternal)\s+(grandfather|grandmother)"
_OF = re.compile(rf"\b(?:is|was)\s+(?:the\s+)?{_SIDE}\s+of\s+(.+?)\s*\?", re.IGNORECASE)
# (a name of at most 200 characters: each "is" starts a bounded search, so linear)
_POSSESSIVE = re.compile(rf"\b(?:is|was)\s+(.{{1,200}}?)['’]s?\s+{_SIDE}\s*\?", re.IGNORECASE)
# a name: capitalised words, with the particles and ordinal titles names hold
# ("Charles Howard, 1st Earl of Carlisle", "Gofraid ua Ímair", "Axel Julius De la Gardie")
NAME_WORD = r"[A-ZÀ-Þ][\w'’.-]*"  # a capitalised word of a name
_PARTICLE = r"(?:of|de|del|della|di|da|du|la|le|von|van|der|den|ua|mac|al|bin|ibn|the|y|zu)"
_BARE = rf"{NAME_WORD}(?:\s+(?:{_PARTICLE}\s+)*{NAME_WORD})*"
_NAME = rf"{_BARE}(?:,\s+(?:\d+(?:st|nd|rd|th)\s+)?{_BARE})?"  # "..., 1st Earl of Carlisle", "..., Duke of X"
# "son of [military commander] F[ (d. 941)][,] and [his wife] M"
_CHILD_OF = re.compile(rf"\b(?:son|daughter|child|heir)\s+of\s+(?:the\s+)?(?:[a-z]+\s+){{0,3}}?({_NAME})"
                       rf"(?:\s*\([^()]*\))?(?:,?\s+and\s+(?:(?:his|her)\s+(?:\w+\s+)?(?:wife|consort)\s+)?"
                       rf"(?:the\s+)?({_NAME}))?")
_WIFE = re.compile(rf"\bhis\s+(?:\w+\s+)?(?:wife|consort)\s+({_NAME})")
_TITLES = frozenset(["king", "queen", "emperor", "empress", "prince", "princess", "sir", "lady", "lord", "duke",
                     "duchess", "count", "countess", "saint", "st", "pope", "sultan", "shah", "maharaja"])
_PARENT = {
    "father": re.compile(rf"\b(?:his|her|whose|the)\s+father,?\s+(?:was\s+|is\s+)?(?:the\s+)?({_NAME})"),
    "mother": re.compile(rf"\b(?:his|her|whose|the)\s+mother,?\s+(?:was\s+|is\s+)?(?:the\s+)?({_NAME})"),
}
# a parent named alone after "son of" is the father unless a title says otherwise
_FEMALE = frozenset(["queen", "princess", "lady", "duchess", "countess", "empress", "baroness", "marchioness",
                     "mrs", "madame", "dame", "archduchess", "grand duchess"])


@dataclass(frozen=True)
class KinQuestion:
    person: str
    first: str  # the parent of the person: "father" (paternal) or "mother" (maternal)
    second: str  # that parent's parent: "father" (grandfather) or "mother" (grandmother)


def parse(question: str) -> KinQuestion | None:
    m = _OF.search(question)
    if m is not None:
        side, kin, person = m.group(1), m.group(2), m.group(3)
    else:
        m = _POSSESSIVE.search(question)
        if m is None:
            return None
        person, side, kin = m.group(1), m.group(2), m.group(3)
    person = QUALIFIER.sub("", re.sub(r"^(?:the\s+)", "", person.strip(" \"'“”"))).strip()
    if not content_keys(person):
        return None
    return KinQuestion(person, "father" if side.lower() == "paternal" else "mother",
                       "father" if kin.lower() == "grandfather" else "mother")


def parent(text: str, which: str) -> str | None:
    """The father or mother a sentence names: "his father was P", "son of F and M"."""
    found = _parent(text, which)
    return None if found is None else found.rstrip(".")  # the sentence's full stop is not the name's


def _parent(text: str, which: str) -> str | None:
    m = _PARENT[which].search(text)
    if m is not None:
        return m.group(1)
    m = _CHILD_OF.search(text)
    if m is None:
        return None
    one, two = m.group(1), m.group(2)
    if two is None and (wife := _WIFE.search(text, m.end(1))) is not None:
        two = wife.group(1)  # "son of F, Count of X, Y and Z, and his wife M"
    if two is not None:
        return one if which == "father" else two
    female = one.split()[0].lower() in _FEMALE
    return one if (which == "mother") == female else None


def about(pool: EvidencePool, name: str) -> list[Sentence]:
    """Sentences about a person: those naming them, then the next three of the first two (the
    parents are often told after the opening sentence: "He was the son of ...")."""
    # "Charles Howard, 1st Earl of Carlisle" may be told as "Charles Howard", "Emperor
    # Aurangzeb" as "Aurangzeb"
    bare = name.split(",")[0].strip()
    parts = bare.split()
    while len(parts) > 1 and parts[0].lower().strip(".") in _TITLES:
        parts = parts[1:]
    out: dict[int, Sentence] = {}
    for n in dict.fromkeys([name, bare, " ".join(parts)]):  # the fullest name's sentences first
        named = mentions(pool, n)[:6]
        later = [x for _, x in following(pool, named[:2], 3)]
        out.update((s.id, s) for s in [*named, *later] if s.id not in out)
    return list(out.values())


def _step(pool: EvidencePool, name: str, which: str, skip: set[int]) -> tuple[Sentence, str] | None:
    for s in about(pool, name):
        if s.id in skip:
            continue
        found = parent(s.text, which)
        if found is not None and not content_keys(found) <= content_keys(name):
            return s, found
    return None


def same_person(a: str, b: str) -> bool:
    """Whether two names are one person's: every content word of the shorter is in the longer."""
    ka, kb = content_keys(a), content_keys(b)
    return bool(ka and kb) and (ka <= kb or kb <= ka)


@dataclass(frozen=True)
class Chain:
    sentences: list[Sentence]
    parent: str
    grandparent: str


def find(pool: EvidencePool, q: KinQuestion) -> Chain | None:
    first = _step(pool, q.person, q.first, set())
    if first is None:
        return None
    s1, p1 = first
    second = _step(pool, p1, q.second, {s1.id})
    if second is None:
        return None
    s2, p2 = second
    return Chain([s1, s2], p1, p2)
