"""Answers to "which came first" questions: "Who is younger, A or B?" is decided by two dates,
one for each option, not by any one sentence. An NLI cross-encoder does not order dates, so it
scores such an answer about the same whichever option it names (on 2WikiMultihopQA tuning
questions the wrong option came out "supported" in 11 of 13). Here each option's date
sentence is found (through the person the question asks about when it names one: "the
director of A"), the dates are ordered, and the verdict follows from the order; the reader sees
both sentences and the comparison (``Claim.note``).

Only temporal comparisons between two named options are handled; anything else, or a case
where a date is not found, goes to the entailment model as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Generic, TypeVar

from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.lexical import STOPWORDS, words
from gechat.types import Sentence

_LATER = frozenset(["younger", "youngest", "later", "latest", "last", "newer", "newest", "recent",
                    "recently", "after"])
_EARLIER = frozenset(["older", "oldest", "elder", "earlier", "earliest", "first", "before", "sooner"])
_DEATH = frozenset(["died", "die", "dies", "death", "dead"])
_CLASS = frozenset(["which", "what"])  # "which author": a kind of option, not a role of one
# the question asks about a person tied to each option ("the director of A"), not the option
ROLES = frozenset([
    "director", "directors", "performer", "composer", "author", "writer", "producer", "creator", "founder",
    "father", "mother", "husband", "wife", "spouse", "singer", "artist", "screenwriter", "lyricist",
    "designer", "architect", "publisher"])
# the options: "..., A or B?" or "...: A or B?"
OPTIONS = re.compile(r"[,:]\s*([^,:?\"]+?)\s+or\s+([^,?\"]+?)\s*\?")  # also gechat.evidence.options
# "... born later, A or B?" where an option holds a comma ("Now, Voyager", "Sleep, My Love"):
# what follows the word of order and its comma, split at the last " or "
# (or with no comma before a capital: "Who was born first Neil LaBute or H. Bruce Humberstone?").
# Linear: an option is at most 200 characters, so each word of order starts a bounded search.
_AFTER_ORDER = re.compile(
    r"\b(?:" + "|".join(sorted(_LATER | _EARLIER)) + r")(?:\s*[,:]\s*|\s+(?=(?-i:[A-Z])))([^?\"]{1,200}?)\s+or\s+"
    r"([^?\"]{1,200}?)\s*\?", re.IGNORECASE)
# "Was A or B born first?": the options are the capitalised runs around "or"
_CAP_RUN = r"((?:[A-Z0-9][\w'’.&+-]*\s+)*[A-Z0-9][\w'’.&+-]*)"
_OPTIONS_INLINE = re.compile(
    rf"\b(?:[Ww]as|[Ww]ere|[Ii]s|[Aa]re|[Dd]id|[Dd]oes|[Dd]o)\s+{_CAP_RUN}\s+or\s+{_CAP_RUN}(?=\s+[a-z])")
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_MONTH = (r"(january|february|march|april|may|june|july|august|september|october|november|december"
          r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?")
_DATE = re.compile(
    rf"\b(?:(\d{{1,2}})\s+{_MONTH},?\s+(\d{{4}})|{_MONTH}\s+(\d{{1,2}}),?\s+(\d{{4}})|{_MONTH}\s+(\d{{4}})"
    r"|(1\d{3}|20\d{2}))\b", re.IGNORECASE)
# Linear: a run starts at a word start and takes each word and space whole (possessive), so a
# long capitalised word is read once, not once per letter.
_NAME = re.compile(r"(?<![\w'’.-])[A-Z][\w'’.-]*+(?:\s++[A-Z][\w'’.-]*+)+")

Date = tuple[int, int, int]  # (year, month, day); 0 where the text does not say


@dataclass(frozen=True)
class Comparison:
    options: tuple[str, str]
    latest_wins: bool
    death: bool  # the date compared is a death date
    role: str | None  # the person of each option whose date counts ("director")


def parse(question: str) -> Comparison | None:
    """A temporal comparison between two options, or None."""
    m = _AFTER_ORDER.search(question)
    if m is None:
        found = list(OPTIONS.finditer(question)) or list(_OPTIONS_INLINE.finditer(question))
        if not found:
            return None
        m = found[-1]
    a, b = m.group(1).strip(), m.group(2).strip()
    rest = set(words(question[: m.start(1)] + " " + question[m.end(2):]))
    later, earlier = bool(rest & _LATER), bool(rest & _EARLIER)
    if later == earlier or not _key_words(a) or not _key_words(b):
        return None
    # "Which author was born first": the options are authors, not works with one
    before = words(question[: m.start(1)])
    role = next((w for i, w in enumerate(before) if w in ROLES and (i == 0 or before[i - 1] not in _CLASS)), None)
    return Comparison((a, b), later, bool(rest & _DEATH), role)


def claimed_option(claim: ClaimInput, cmp: Comparison) -> int | None:
    """Which option the answer claim names as the winner. A claim that names one option names
    it, read against the question's direction ("B is older" for "who is younger" names A); one
    that names both says it of the first ("A is younger than B", "B was born before A"). None
    if it names neither, or both without a comparative word, or states a fact about one
    ("A was born in 1944")."""
    rest = claim.answer()
    seq = words(rest)
    said = set(seq)
    named = [i for i, o in enumerate(cmp.options) if _key_words(o) <= said]
    in_options = {w for o in cmp.options for w in words(o)}  # "First for Women" compares nothing
    comparative = next((w for w in seq if (w in _EARLIER or w in _LATER) and w not in in_options), None)
    if len(named) == 2 and comparative is not None:
        firsts = [seq.index(next(w for w in words(o) if w in said and w not in STOPWORDS)) for o in cmp.options]
        named = [int(firsts[1] < firsts[0])]
    if len(named) != 1:
        return None
    if comparative is None and said - _key_words(cmp.options[named[0]]) - STOPWORDS - set(words(claim.given)):
        return None  # a fact about the option, not the comparison's answer
    flipped = comparative is not None and (comparative in _LATER) != cmp.latest_wins
    return 1 - named[0] if flipped else named[0]


def _key_words(text: str) -> set[str]:
    return {w for w in words(text) if w not in STOPWORDS}


def dates(text: str) -> list[tuple[int, Date]]:
    """(position, date) of each date in the text, in order."""
    return [(pos, d) for pos, d, _ in _dates(text)]


def _dates(text: str) -> list[tuple[int, Date, str]]:
    """(position, date, the date as written) of each date in the text, in order."""
    out = []
    for m in _DATE.finditer(text):
        g = m.groups()
        if g[2]:  # 18 May 1836
            d = (int(g[2]), _month(g[1]), int(g[0]))
        elif g[5]:  # May 15, 1954
            d = (int(g[5]), _month(g[3]), int(g[4]))
        elif g[7]:  # May 1954
            d = (int(g[7]), _month(g[6]), 0)
        else:
            d = (int(g[8]), 0, 0)
        out.append((m.start(), d, m.group()))
    return out


def _month(abbrev: str) -> int:
    return next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(abbrev.lower()[:3]))


def event_date(text: str, death: bool) -> Date | None:
    """The sentence's birth (or first) date, or its death date: the one after "born" / "died",
    else the first, or for a death the second of a life span "(1900 – May 15, 1954)"."""
    found = _event(text, death)
    return None if found is None else found[0]


def _event(text: str, death: bool) -> tuple[Date, str] | None:
    """``event_date`` with the date as the text writes it, for the note."""
    found = _dates(text)
    if not found:
        return None
    cue = re.search(r"\b(died|death)\b" if death else r"\bborn\b", text, re.IGNORECASE)
    if cue:
        after = [(d, t) for pos, d, t in found if pos > cue.start()]
        if after:
            return after[0]
    if death:
        span = _SPAN.search(text)
        after = [(d, t) for pos, d, t in found if span and span.start(2) <= pos < span.end(2)]
        return after[0] if after else None
    return found[0][1], found[0][2]


# a life span "(1900 – May 15, 1954)": a year, then a dash (a hyphen only with a space or a
# digit on each side, so "Anne-Marie" is not one)
_SPAN = re.compile(r"\(([^()]*?\d{4}[^()]*?)\s*(?:[–—]|\s-\s|(?<=\d)-(?=\d))\s*([^()]*)\)")


T = TypeVar("T")
# what counts in one sentence (a date, a nationality) and how the text writes it, or None
Reader = Callable[[str], "tuple[T, str] | None"]


@dataclass
class Found(Generic[T]):
    sentences: list[Sentence]  # the path: the option's sentence, then the person's if any
    value: T
    text: str


@lru_cache(maxsize=8192)
def normal(text: str) -> str:
    """The text as its words joined by single spaces, where a name is searched for: memoised,
    since each option and person searches every sentence of the pool."""
    return " ".join(words(text))


def following(pool: EvidencePool, sentences: list[Sentence], k: int) -> list[tuple[Sentence, Sentence]]:
    """Each sentence paired with each of the next ``k`` sentences of its chunk (what is told
    of a name is often told a sentence or two after it is named)."""
    at = {(s.chunk_id, s.ord): s for s in pool.sentences}
    return [(s, nxt) for s in sentences for step in range(1, k + 1)
            if (nxt := at.get((s.chunk_id, s.ord + step))) is not None]


def mentions(pool: EvidencePool, name: str, skip: int | None = None) -> list[Sentence]:
    """Sentences holding every word of the name: those with the name as written first, then
    where it stands earliest (a sentence about the option names it first), then in document
    order."""
    keys = _key_words(name)
    if not keys:  # "The The": nothing to find it by
        return []
    phrase = normal(name)
    first = next(w for w in words(name) if w in keys)

    def rank(s: Sentence) -> tuple[int, int, int, int]:
        low = normal(s.text)
        at = low.find(phrase)
        return (0, at, s.doc_id, s.start) if at >= 0 else (1, low.find(first), s.doc_id, s.start)
    return sorted((s for s in pool.sentences if s.id != skip and keys <= set(normal(s.text).split())), key=rank)


def person_fact(pool: EvidencePool, sentence: Sentence, option: str, role: str, read: Reader[T],
                death: bool = False, strict: bool = True) -> Found[T] | None:
    """What counts about the person the option's sentence ties to it: a name after a word of
    the role ("directed by X" for "director"), or with ``strict`` off any name in it, found
    in a sentence about that person ("born", "died" or a life span) that says it."""
    role_key = role[:5]
    runs = [m for m in _NAME.finditer(sentence.text) if not _key_words(m.group()) <= _key_words(option)]
    if strict:  # the name right after the role word: "directed by X", not a festival later on
        runs = [m for m in runs if role_key in sentence.text[max(0, m.start() - 45): m.start()].lower()]
    for m in runs:
        for name in _names(m.group()):
            if _two_people(pool, name, death):
                return None
            for s in [*mentions(pool, name, skip=sentence.id)[:5], *_nicknamed(pool, name, sentence.id)]:
                fact = read(s.text) if _PERSONAL.search(s.text) else None
                if fact is not None:
                    return Found([sentence, s], *fact)
    return None


# a sentence about a person: "born", "died" or a life span ("death" is in titles: "Death for Sale")
_PERSONAL = re.compile(r"\b(born|died)\b|\([^()]*\d{4}[^()]*[–—-][^()]*\d{4}[^()]*\)", re.IGNORECASE)


def _names(run: str) -> list[str]:
    """The names a capitalised run may be: itself, then without its first words ("the
    Austrian-American John H. Auer"); each as written, then without initials, which the
    person's own sentence may spell out ("Paul L. Stein" is "Paul Ludwig Stein")."""
    parts = re.sub(r"('s|’s|\.)$", "", run).split()
    out: list[str] = []
    for i in range(len(parts) - 1):
        bare = [w for w in parts[i:] if not re.fullmatch(r"[A-Z]\.?", w)]
        out += [n for n in (" ".join(parts[i:]), " ".join(bare) if len(bare) >= 2 else "") if n and n not in out]
    return out


def _nicknamed(pool: EvidencePool, name: str, skip: int) -> list[Sentence]:
    """Sentences that open with the surname and a first name of the same first three letters
    ("Andy Sidaris" is "Andrew W. Sidaris ( February 20, 1931 – ...)"), when the name as
    written is found nowhere."""
    first, last = words(name)[0], words(name)[-1]
    if mentions(pool, name, skip=skip) or len(first) < 3:
        return []
    out = []
    for s in pool.sentences:
        head = normal(s.text).split()[:6]
        if s.id != skip and last in head and any(w[:3] == first[:3] for w in head[: head.index(last)]):
            out.append(s)
    return out


_LIFE = re.compile(r"\bborn\b|\([^()]*\d{4}[^()]*[–—-][^()]*\d{4}[^()]*\)", re.IGNORECASE)


def _openings(pool: EvidencePool, name: str) -> list[Sentence]:
    """The opening sentences of documents about the option: those that name it within their
    first five words ("Jerry Michael Glanville (born October 14, 1941) is ..."). They tell its
    dates; eight other sentences may name it first ("... Jerry Glanville was hired as coach")."""
    keys = _key_words(name)
    chunks = pool.chunks
    return [s for s in pool.sentences if s.ord == 0 and (c := chunks.get(s.chunk_id)) is not None and c.ord == 0
            and keys and keys <= set(normal(s.text).split()[:5])]


def _two_people(pool: EvidencePool, name: str, death: bool) -> bool:
    """Whether the documents tell of two people of one name: two sentences that open with it
    (within their first three words) and give a life date ("born", a life span) that differ.
    A footballer "Kenton Terry Richardson (born 26 July 1999)" beside the photographer
    "Terrence "Uncle Terry" Richardson (born August 14, 1965)": the texts cannot say which is
    meant, so the dates do not decide."""
    phrase = normal(name)
    years = set()
    for s in pool.sentences:
        low = normal(s.text)
        at = low.find(phrase)
        if at >= 0 and len(low[:at].split()) <= 3 and _LIFE.search(s.text):
            d = event_date(s.text, death)
            if d is not None:
                years.add(d[0])
    return len(years) > 1


def find(pool: EvidencePool, option: str, cmp: Comparison) -> Found[Date] | None:
    """The option's sentence and the date that counts for it."""
    return locate(pool, option, cmp.role, partial(_event, death=cmp.death), cmp.death)


def locate(pool: EvidencePool, option: str, role: str | None, read: Reader[T],
           death: bool = False) -> Found[T] | None:
    """The option's sentence and what counts for it (through the person of the role, if one).
    It may be told a sentence or two later ("Murray's Magazine was a monthly ... Sixty issues
    were published, from January 1887"), and so may the person ("It was written and directed
    by Jacques Deray")."""
    if role is None and _two_people(pool, option, death):
        return None

    def said(s: Sentence, strict: bool) -> Found[T] | None:
        if role is not None:
            return person_fact(pool, s, option, role, read, death, strict)
        fact = read(s.text)
        return None if fact is None else Found([s], *fact)

    opening = _openings(pool, option)
    named = [*opening, *(s for s in mentions(pool, option)[:8] if s not in opening)]
    later = following(pool, named[:2], 2)
    # with a role, a sentence that names it ("directed by") comes before any other name
    for strict in (True, False) if role is not None else (True,):
        for s in named:
            found = said(s, strict)
            if found is not None:
                return found
        for s, nxt in later:
            found = said(nxt, strict)
            if found is not None:
                return Found([s, *found.sentences], found.value, found.text)
    return None


def order(a: Date, b: Date) -> int:
    """-1 if a is earlier, 1 if later, 0 if the texts cannot tell (same year, a month unknown)."""
    if a[0] != b[0]:
        return -1 if a[0] < b[0] else 1
    for x, y in ((a[1], b[1]), (a[2], b[2])):
        if not x or not y:
            return 0
        if x != y:
            return -1 if x < y else 1
    return 0
