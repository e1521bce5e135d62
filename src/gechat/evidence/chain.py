"""Answers to "where was the director of film X born?": the answer is a fact about a person the
question names only by a role, so it is told in two places ("X is a 1938 film directed by P."
and "P was born in Y."). The cross-encoder usually finds the sentence that holds the answer,
calls the claim supported and stops there, so the reader sees no sentence tying P to X (on
2WikiMultihopQA dev questions the evidence for these "compositional" questions reached F1
0.65, against 0.75-0.90 for the other kinds). Here X's sentence naming the person of the role
is found, then the person's sentence holding the answer's words; the two are the evidence and
``Claim.note`` names the chain.

Only a chain found whole, whose second sentence holds every content word of the answer,
decides; anything else goes to the entailment model as before, so this rule never calls an
answer contradicted on its own reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gechat.evidence.base import PARENS, QUALIFIER, EvidencePool
from gechat.evidence.compare import following, mentions
from gechat.evidence.kin import about, parent, same_person
from gechat.lexical import content_keys
from gechat.types import Sentence

# the words that tie a person of the role to the work or person the question names
_CUES: dict[str, tuple[str, ...]] = {
    "director": ("direct",), "composer": ("compos", "music", "score"), "producer": ("produc",),
    "author": ("written", "writer", "author", "wrote", "novel by"), "writer": ("written", "writer", "wrote"),
    "screenwriter": ("screenplay", "written", "writer"), "performer": ("perform", "sung", "sang", "recorded"),
    "singer": ("sung", "sang", "singer", "recorded"), "founder": ("found",), "creator": ("creat",),
    "husband": ("husband", "married", "wife of", "widow of", "spouse"),
    "wife": ("wife", "married", "husband of", "widow", "spouse"), "spouse": ("married", "husband", "wife", "spouse"),
}
_ROLES = "|".join([*_CUES, "father", "mother"])
_KINDS = r"(?:the\s+)?(?:film|movie|song|album|single|novel|book|play|series|tv\s+series|show|opera|poem|band)\s+"
_OF = re.compile(rf"\bthe\s+({_ROLES})\s+of\s+(?:{_KINDS})?(.+?)\s*\?", re.IGNORECASE)
_POSSESSIVE = re.compile(rf"^(.+?)['’]s?\s+({_ROLES})\b", re.IGNORECASE)
# a name after a cue: capitalised words, with the particles names hold ("Lorenzo de Medici",
# "Charles Emmanuel II, Duke of Savoy")
_PARTICLE = r"(?:of|de|del|della|di|da|du|la|le|von|van|der|den|y|bin|ibn)"
# Linear: a name starts at a word start ((?<!...)), and its words, particles and spaces are
# taken whole (possessive): a long capitalised word is read once, not once per letter.
_WORD = r"[A-ZÀ-Þ][\w'’.-]*+"
_BARE = rf"(?<![\w'’.-]){_WORD}(?:\s++(?:{_PARTICLE}\s++)*+{_WORD})+"
_NAME = re.compile(rf"{_BARE}(?:,\s+{_BARE})?")
_NEAR = 60  # characters between a cue and the name it introduces: "married the stage actress Lillian Russell"
# the lowercase words a name or title may hold between capitalised ones
LOWER_OK = frozenset(["of", "de", "del", "della", "di", "da", "du", "la", "le", "von", "van", "der", "den", "and",
                      "the", "y", "in", "on", "at", "for", "to", "a"])


@dataclass(frozen=True)
class ChainQuestion:
    role: str  # "director", "husband", "father"...
    subject: str  # the work or person the role belongs to


def parse(question: str) -> ChainQuestion | None:
    """The role and its subject of "… the director of film X …?" or "… X's husband …?"."""
    q = question.strip().replace("“", '"').replace("”", '"')
    m = _OF.search(q)
    if m is not None:
        role, subject = m.group(1).lower(), _leading_name(m.group(2))
    else:
        m = _POSSESSIVE.search(q.rstrip("?"))
        if m is None:
            return None
        role, subject = m.group(2).lower(), _trailing_name(m.group(1))
    if not subject or not content_keys(subject):
        return None
    return ChainQuestion(role, subject)


def _leading_name(text: str) -> str:
    """The capitalised run at the start ("Le Pont Du Nord work at" -> "Le Pont Du Nord"),
    after up to four lowercase words that describe it ("the war film "Paths Of Glory""); a parenthesis
    ("(1923 Film)") is the title's qualifier, not its name."""
    tokens = PARENS.sub("", text).replace('"', " ").split()
    lead = next((i for i, t in enumerate(tokens[:5]) if capital(t)), 0)
    if any(t.lower() == "of" or t.lower() in _CUES for t in tokens[:lead]):
        return ""  # "the father of the composer of song X": a chain of two roles, not read here
    out = capital_run(tokens[lead:])
    if lead and len(out) < 2:
        return ""  # "the father of modern American shipbuilding": a lone word after a description
    return " ".join(out).strip(" ,")


def _trailing_name(text: str) -> str:
    """The capitalised run at the end ("What nationality is Clarice Orsini" -> "Clarice
    Orsini"; "... of Alessandro Ruspoli, 2Nd Prince Of Cerveteri" keeps its title)."""
    tokens = QUALIFIER.sub("", text).replace('"', " ").split()
    out: list[str] = []
    for t in reversed(tokens):
        if not (capital(t) or (out and t.lower() in LOWER_OK)):
            break
        out.insert(0, t)
    while out and not capital(out[0]):  # "of Alessandro ...": the particle was the question's
        out.pop(0)
    return " ".join(out).strip(" ,")


def capital_run(tokens: list[str], lower_ok: frozenset[str] = LOWER_OK, comma_ends: bool = False) -> list[str]:
    """The capitalised words ``tokens`` open with, and the ``lower_ok`` words between two of
    them ("Le Pont Du Nord", "Kiss and Run"); with ``comma_ends``, up to the first word that
    ends in a comma (also gechat.evidence.bridge)."""
    out: list[str] = []
    for i, t in enumerate(tokens):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if not (capital(t) or (out and t.lower() in lower_ok and capital(nxt))):
            break
        out.append(t)
        if comma_ends and t.endswith(","):
            break
    return out


def capital(token: str) -> bool:
    return bool(token) and (token[0].isupper() or token[0].isdigit())


def person(text: str, role: str, subject: str) -> str | None:
    """The person of the role a sentence names: the parent by kin's patterns, else the first
    name (two or more capitalised words) within a few words after a cue of the role, that is
    not the subject itself."""
    if role in ("father", "mother"):
        found = parent(text, role)
        return None if found is None or same_person(found, subject) else found
    low = text.lower()
    for cue in _CUES[role]:
        for at in (m.end() for m in re.finditer(rf"\b{re.escape(cue)}", low)):
            for m in _NAME.finditer(text, at, min(len(text), at + _NEAR + 40)):
                if m.start() - at > _NEAR:
                    break
                name = m.group().rstrip(".")
                if not same_person(name, subject) and not content_keys(name) <= content_keys(subject):
                    return name
    return None


@dataclass(frozen=True)
class Chain:
    sentences: list[Sentence]
    person: str


def find(pool: EvidencePool, q: ChainQuestion, answer: str) -> Chain | None:
    """The subject's sentence naming the person of the role, then another sentence, about the
    person, that holds every content word of ``answer``."""
    keys = content_keys(answer)
    if not keys:
        return None
    named = mentions(pool, q.subject)[:6]
    for s in [*named, *(x for _, x in following(pool, named[:2], 2))]:
        who = person(s.text, q.role, q.subject)
        if who is None:
            continue
        # the person's own sentence: the subject's may say "an Italian film", not the person
        for t in about(pool, who):
            if t.id != s.id and keys <= content_keys(t.text):
                return Chain([s, t], who)
    return None
