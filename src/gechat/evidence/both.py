"""Answers to "are A and B both X?": yes only when A's own sentences say A is X and B's say B
is X; no when one option's sentences do not. A cross-encoder reading the whole claim ("the
answer to 'are A and B both American documentaries?' is: no") against one sentence cannot
weigh a yes or no spread over two paragraphs (on HaluEval-QA's questions of this kind it
supported the right answer less often than the hallucinated one). So the question is cut
into one short claim per option ("Freakonomics is an American documentary"), each is read
against the sentences that name its option, and the two readings decide; the reader sees
both sentences and the two readings (``Claim.note``).

Anything else (an option no sentence names, a reading between "said" and "not said", an
answer that says neither yes nor no) goes to the entailment model as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.evidence.bridge import docs_named, leading_name, same_name, subjects
from gechat.evidence.compare import following, mentions, normal
from gechat.evidence.same import nationalities
from gechat.lexical import content_keys, words
from gechat.models.entail.base import ENTAILMENT, EntailmentScorer
from gechat.types import Sentence

# the question, quoted in an oracle claim or standing alone: its verb and its body
_QUESTION = re.compile(r"(?:^|[\"“])\s*(are|were|is|was)\s+([^\"”]+?)\s*\?", re.IGNORECASE)
_BOTH = re.compile(r"\bboth\b", re.IGNORECASE)
# Linear: (?<!\s) starts a match only where a run of spaces starts, and the run is taken whole
# (possessive), so a long run is read once, not once per space.
_AND = re.compile(r",?(?<!\s)\s++and\s+")
# where a noun phrase's head ends: "types | of plant", "cocktails | based on tequila"
_AFTER_HEAD = frozenset(["of", "in", "on", "at", "from", "for", "by", "with", "to", "that", "which", "who",
                         "based", "located", "made", "founded", "known", "written", "directed", "owned"])
_IRREGULAR = {"genera": "genus", "people": "person", "men": "man", "women": "woman", "children": "child",
              "species": "species", "series": "series", "media": "medium", "phyla": "phylum"}
_DENIED = re.compile(r"\bnot\s+both\b|\bneither\b|\bonly\s+one\b", re.IGNORECASE)
_PLAIN = content_keys("yes no both not neither nor only one")


@dataclass(frozen=True)
class BothQuestion:
    splits: tuple[tuple[str, str, str], ...]  # each way to read (A, B, what both are said to be)
    past: bool  # "were": the options' claims say "was"


def parse(question: str) -> BothQuestion | None:
    """A question whether two options are both something, or None. "Are A and B both X?" is
    read one way; "are both A and B X?" leaves B's end open ("both Kings of Leon American rock
    bands"), so every end is kept and :func:`find` picks the one the documents name."""
    m = _QUESTION.search(question)
    if m is None or re.search(r"\bsame\b", m.group(2), re.IGNORECASE):
        return None
    body, past = m.group(2), m.group(1).lower() in ("were", "was")
    if len(_BOTH.findall(body)) == 2 and _BOTH.match(body):  # "were both A and B both X"
        body = _BOTH.sub("", body, count=1).strip()
    if len(_BOTH.findall(body)) != 1:
        return None
    before, after = (p.strip(" ,") for p in _BOTH.split(body))
    splits: list[tuple[str, str, str]] = []
    if before:  # "A and B both X"
        parts = _AND.split(before)
        splits = [(" and ".join(parts[:i]), " and ".join(parts[i:]), after) for i in range(1, len(parts))]
    else:  # "both A and B X"
        parts = _AND.split(after)
        for i in range(1, len(parts)):
            a, rest = " and ".join(parts[:i]), " and ".join(parts[i:]).split()
            splits += [(a, " ".join(rest[:k]), " ".join(rest[k:])) for k in range(len(rest) - 1, 0, -1)]
    splits = [(name_of(a), name_of(b), x) for a, b, x in splits]
    splits = [(a, b, x) for a, b, x in splits if words(a) and words(b) and words(x)]
    return BothQuestion(tuple(splits), past) if splits else None


def name_of(option: str) -> str:
    """The option as the documents name it: "the bands Tool" -> "Tool", "a Paloma" -> "Paloma"."""
    toks = option.split()
    first = next((i for i, t in enumerate(toks) if t[0].isupper() or t[0].isdigit()), 0)
    return " ".join(toks[first:]).strip(" ,")


def singular(what: str) -> str:
    """What one option is said to be: "American documentaries" -> "an American documentary";
    what is no plural noun ("American", "located in Michigan") stays as it is."""
    toks = what.split()
    if toks[0].lower() in _AFTER_HEAD or toks[0].lower().endswith("ed"):  # "in China", "located in ..."
        return what
    head = next((i - 1 for i, t in enumerate(toks) if i > 0 and t.lower() in _AFTER_HEAD), len(toks) - 1)
    word = toks[head]
    low = word.lower()
    if low in _IRREGULAR:
        one = _IRREGULAR[low]
    elif low.endswith("ies") and len(low) > 4:
        one = word[:-3] + "y"
    elif re.search(r"(?:ches|shes|sses|xes)$", low):
        one = word[:-2]
    elif low.endswith("s") and not re.search(r"(?:ss|us|is|'s)$", low) and len(low) > 3:
        one = word[:-1]
    else:
        return what
    if toks[0].lower() in ("the", "a", "an") or (head == 0 and toks[0][0].isupper() and len(toks) == 1):
        return " ".join([*toks[:head], one, *toks[head + 1:]])
    article = "an" if toks[0][0].lower() in "aeiou" else "a"
    return " ".join([article, *toks[:head], one, *toks[head + 1:]])


def claimed(claim: ClaimInput) -> bool | None:
    """Whether the answer says yes (both are), no, or neither: from its first word ("Yes, ...",
    "No, ..."), else from "not both", "neither", "only one" (no) or "both" (yes). Any other
    "not" may deny something else ("yes; neither was born in France"), so it does not count."""
    text = claim.answer().replace("n't", " not")
    said = words(text)
    if not said:
        return None
    if said[0] in ("yes", "no"):
        return said[0] == "yes"
    if _DENIED.search(text):
        return False
    return True if "both" in said else None


def bare(claim: ClaimInput, question: str) -> bool:
    """Whether the answer says no more than yes or no about what the question asks: every
    content word of it is the question's (or a yes, a no, a both)."""
    return content_keys(claim.answer()) <= content_keys(question) | _PLAIN


def statement(option: str, what: str, past: bool) -> str:
    """The claim about one option: "Freakonomics is an American documentary"."""
    return f"{option} {'was' if past else 'is'} {singular(what)}"


def _opens(what: str) -> bool:
    """Whether what both options are said to be may start here: a lower-case word, or a
    nationality ("American rock bands"), not the rest of a name ("Corman authors")."""
    first = what.split()[0]
    return first[0].islower() or nationalities(first) is not None


def find(pool: EvidencePool, q: BothQuestion) -> tuple[str, str, str] | None:
    """The reading of the question whose options the documents name: with the options as
    written in a sentence before those whose words only stand in one, and, for each, a
    reading where what both are said to be opens as such words do (:func:`_opens`) first,
    the longest B first."""
    def exact(name: str) -> bool:
        phrase = normal(name)
        return any(phrase in normal(s.text) for s in pool.sentences)

    def named(name: str) -> bool:
        return bool(mentions(pool, name))

    for opens in (True, False):
        for test in (exact, named):
            for a, b, x in q.splits:
                if (not opens or _opens(x)) and test(a) and test(b):
                    return a, b, x
    return None


def candidates(pool: EvidencePool, option: str, other: str) -> list[Sentence]:
    """The sentences that may say what the option is: those naming it, the two after the
    first two of them (what a paragraph tells of its subject often follows its first line)
    and the opening line of each document about it by name (which may name it in full:
    "Giuseppe Fortunino Francesco Verdi ... was an Italian opera composer"); none that names
    the other option, which would tell of that one. When a document is about the option, only
    that document's: another that lists it ("... with acts including Sum 41, Local H and
    Veruca Salt") tells of something else."""
    named = mentions(pool, option)[:8]
    later = [nxt for _, nxt in following(pool, named[:2], 2)]
    exact, loose = _about(pool, option)
    openings = [min((s for s in pool.sentences if s.doc_id == d), key=lambda s: s.start) for d in sorted(exact)]
    theirs = {s.id for s in mentions(pool, other)}
    found = [s for s in {s.id: s for s in [*named, *later, *openings]}.values() if s.id not in theirs]
    own = exact or loose
    return [s for s in found if s.doc_id in own] or found


def _about(pool: EvidencePool, option: str) -> tuple[set[int], set[int]]:
    """The documents about the option: those whose opening sentence opens with its name
    (gechat.evidence.bridge.subjects), or with it in full ("Giuseppe Fortunino Francesco
    Verdi" for Giuseppe Verdi); and those opening with a shorter or longer form of it
    ("Fuling" for "Fuling District"), which count only when no document has the name itself:
    a longer one may name something else (the Teatro Giuseppe Verdi, the species Silene
    menziesii of the genus Silene)."""
    about = subjects(pool)
    keys = content_keys(option)
    loose = set()
    for s in pool.sentences:
        name = content_keys(about(s))
        if name and (name <= keys or keys <= name):
            loose.add(s.doc_id)
    return docs_named(pool, option), loose


@dataclass(frozen=True)
class Reading:
    """What an option's sentences say of the claim about it: the most entailing one and its
    P(entailment)."""

    claim: str
    entailing: Sentence
    p_entail: float


def read(pool: EvidencePool, option: str, other: str, what: str, past: bool,
         scorer: EntailmentScorer) -> Reading | None:
    """The option's sentences read against "<option> is <what>", or None if none names it."""
    return read_claim(pool, option, other, statement(option, what, past), scorer)


def read_claim(pool: EvidencePool, option: str, other: str, text: str, scorer: EntailmentScorer) -> Reading | None:
    """The option's sentences (:func:`candidates`) read against ``text``, a claim about it."""
    sents = candidates(pool, option, other)
    if not sents:
        return None
    p = np.asarray(scorer.score([s.text for s in sents], text), dtype=np.float32)[:, ENTAILMENT]
    # of the sentences that say it, one whose subject is the option itself ("Silene is a genus
    # of flowering plants" before "Silene menziesii is a species of flowering plant")
    e = max(range(len(sents)), key=lambda k: (bool(p[k] >= SAID and same_name(leading_name(sents[k].text), option)),
                                              float(p[k])))
    return Reading(text, sents[e], float(p[e]))


# P(entailment) of each option's claim at which it counts as said: more likely than not
SAID = 0.5


@dataclass(frozen=True)
class Decision:
    both: bool  # whether both options are what the question asks
    sentences: list[Sentence]  # each option's most entailing sentence
    note: str


def decide(pool: EvidencePool, question: str, scorer: EntailmentScorer, unsaid: float) -> Decision | None:
    """Yes when each option's sentences entail its claim (P >= SAID), no when one option's do
    not even reach ``unsaid`` (the "supported" threshold), None otherwise or when the question
    is not of this kind or an option is not named."""
    q = parse(question)
    found = None if q is None else find(pool, q)
    if q is None or found is None:
        return None
    a, b, what = found
    ra, rb = read(pool, a, b, what, q.past, scorer), read(pool, b, a, what, q.past, scorer)
    if ra is None or rb is None:
        return None
    low = min(ra.p_entail, rb.p_entail)
    if unsaid <= low < SAID:
        return None
    return Decision(low >= SAID, [ra.entailing, rb.entailing], noted(ra, rb))


def noted(*readings: Reading) -> str:
    """What the reader is told of the readings (``Claim.note``): each claim, whether it counts
    as said, and its P(entailment)."""
    return "; ".join(f"{r.claim}: {'yes' if r.p_entail >= SAID else 'no'} (P(entailment) {r.p_entail:.2f})"
                     for r in readings)
