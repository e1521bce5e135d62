"""Knowledge triplets (subject, relation, object) with where each part sits in its text.

HC compares what the answer states with what the retrieved text states as triplets, and
edits the answer at the words a triplet came from, so every part keeps its character span.
The ``fast`` extractor reads spaCy's dependency parse (the graph's packaged model, no LLM):
a verb's subject with each of its objects (direct, attribute, or through a preposition:
"founded in 1902"), one triplet per coordinated object ("include GoDaddy and Oray" gives two).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from gechat.graph.base import normalise
from gechat.graph.fast import load_spacy

_SUBJECTS = ("nsubj", "nsubjpass")
_OBJECTS = ("dobj", "attr", "oprd", "dative", "acomp")
_BE = frozenset(("is", "are", "was", "were", "be", "been", "being", "'s"))
Span = tuple[int, int]


@dataclass(frozen=True)
class Triplet:
    subject: str
    relation: str  # the verb as written, lowercased, with its preposition: "founded in"
    object: str
    source: int  # which of the texts it came from
    subject_span: Span  # offsets in that text
    object_span: Span
    # a name (a proper noun or a named entity), not a common noun: only a name the sources
    # never state is a sign of invention ("the company" may be worded otherwise)
    subject_named: bool = True
    object_named: bool = True

    @property
    def key(self) -> str:
        """The relation as compared: forms of "be" are one relation."""
        verb, _, prep = self.relation.partition(" ")
        return f"{'be' if verb in _BE else verb} {prep}".strip()

    def parts(self) -> list[str]:
        return [self.subject, self.relation, self.object]


Extract = Callable[[Sequence[str]], list["Triplet"]]  # the triplets of each text, Triplet.source its index


def fast_triplets(texts: Sequence[str]) -> list[Triplet]:
    """The triplets of each text, spaCy's parse."""
    nlp = load_spacy()
    out: list[Triplet] = []
    for k, doc in enumerate(nlp.pipe(list(texts), batch_size=64)):
        phrases = _phrases(doc)
        for verb in doc:
            if verb.pos_ not in ("VERB", "AUX"):
                continue
            subjects = [m for c in verb.children if c.dep_ in _SUBJECTS for m in _coordinated(c)]
            for subj in subjects:
                s = _span(phrases, subj)
                for obj, prep in _objects(verb):
                    for o_tok in _coordinated(obj):
                        o = _span(phrases, o_tok)
                        relation = f"{verb.text.lower()} {prep}".strip()
                        out.append(Triplet(doc.text[s[0]:s[1]], relation, doc.text[o[0]:o[1]], k, s, o,
                                           _named(doc, s), _named(doc, o)))
    return out


def _span(phrases: dict[int, Span], token: Any) -> Span:
    """The token's phrase, or the token alone."""
    return phrases.get(token.i, (token.idx, token.idx + len(token)))


@lru_cache(maxsize=512)
def _parsed(text: str) -> Any:
    return load_spacy()(text)


def named_span(text: str, span: Span) -> bool:
    """Whether the words of ``text`` at ``span`` are a name (for triplets found otherwise)."""
    return _named(_parsed(text), span)


def _named(doc: Any, span: Span) -> bool:
    """Whether the words at ``span`` are a name: a proper noun or part of a named entity."""
    return any(t.pos_ == "PROPN" or t.ent_type_ for t in doc if span[0] <= t.idx < span[1])


def _phrases(doc: Any) -> dict[int, Span]:
    """Each token's noun phrase or named entity, as a span (entities win: "Oray Inc.")."""
    out: dict[int, Span] = {}
    for chunk in doc.noun_chunks:
        start, end = chunk.start, chunk.end
        while start < end and doc[start].pos_ in ("DET", "PRON") and doc[start].dep_ != "nsubj":
            start += 1
        if start < end:
            for t in doc[start:end]:
                out[t.i] = (doc[start].idx, doc[end - 1].idx + len(doc[end - 1]))
    for ent in doc.ents:
        for t in ent:
            out[t.i] = (ent.start_char, ent.end_char)
    return out


def _objects(verb: Any) -> list[tuple[Any, str]]:
    objs = [(c, "") for c in verb.children if c.dep_ in _OBJECTS]
    for prep in (c for c in verb.children if c.dep_ in ("prep", "agent")):
        objs += [(g, prep.text.lower()) for g in prep.children if g.dep_ == "pobj"]
    return objs


def _coordinated(head: Any) -> list[Any]:
    """``head`` and the tokens coordinated with it ("GoDaddy and Oray"), in text order."""
    members = [head]
    stack = [head]
    while stack:
        t = stack.pop()
        for c in t.children:
            if c.dep_ == "conj":
                members.append(c)
                stack.append(c)
    members.sort(key=lambda t: t.i)
    return members


@dataclass(frozen=True)
class NameList:
    """Names coordinated in one text ("GoDaddy and Oray"): each item's span and whether it is a name."""

    source: int
    items: tuple[Span, ...]
    named: tuple[bool, ...]


def name_lists(texts: Sequence[str]) -> list[NameList]:
    """The coordinated lists of two or more items in each text, whatever role they play."""
    nlp = load_spacy()
    out = []
    for k, doc in enumerate(nlp.pipe(list(texts), batch_size=64)):
        phrases = _phrases(doc)
        for head in doc:
            if head.dep_ == "conj" or not any(c.dep_ == "conj" for c in head.children):
                continue
            members = _coordinated(head)
            spans = tuple(_span(phrases, t) for t in members)
            out.append(NameList(k, spans, tuple(_named(doc, sp) for sp in spans)))
    return out


_CLAUSES = ("conj", "advcl", "relcl", "acl", "ccomp", "appos")


def clause_span(text: str, at: int) -> Span | None:
    """The clause of ``text`` that holds the word at offset ``at``, with the "and" or comma that
    joins it to the rest ("..., and aired on NBC", "Although X was part of the cast, "); None
    when the word is in the main clause, or the clause is nearly all of the text."""
    doc = _parsed(text)
    token = next((t for t in doc if t.idx <= at < t.idx + len(t)), None)
    while token is not None and token.dep_ not in _CLAUSES:
        token = token.head if token.head.i != token.i else None
    if token is None:
        return None
    i0, i1 = token.left_edge.i, token.right_edge.i + 1
    while i1 > i0 + 1 and doc[i1 - 1].text in (".", "!", "?", ";"):  # the sentence's end mark stays
        i1 -= 1
    while i0 > 0 and doc[i0 - 1].dep_ in ("cc", "punct") and doc[i0 - 1].text not in ('"', "'", "("):
        i0 -= 1
    if i0 == 0:  # a clause that opens the text takes the comma after it
        while i1 < len(doc) and doc[i1].dep_ == "punct" and doc[i1].text == ",":
            i1 += 1
    rest = [t for t in doc if (t.i < i0 or t.i >= i1) and not t.is_punct]
    if len(rest) < 3:
        return None
    # the space before it goes with it, or, when it opens the text, the space after it
    start = doc[i0 - 1].idx + len(doc[i0 - 1]) if i0 > 0 else 0
    end = doc[i1].idx if i0 == 0 and i1 < len(doc) else doc[i1 - 1].idx + len(doc[i1 - 1])
    if end >= len(text.rstrip()) and text.rstrip()[-1:] in (".", "!", "?"):  # "Acme Corp." ends it too
        end = len(text.rstrip()) - 1
    return start, end


def entities(text: str) -> list[tuple[str, str, int]]:
    """The named things and dates of ``text``: (as written, spaCy's label, offset)."""
    return [(e.text, e.label_, e.start_char) for e in load_spacy()(text).ents]


def names(texts: Sequence[str]) -> list[str]:
    """The things ``texts`` name (entities and noun phrases), each once by its key."""
    nlp = load_spacy()
    seen: dict[str, str] = {}
    for doc in nlp.pipe(list(texts), batch_size=64):
        for span in [*doc.ents, *doc.noun_chunks]:
            if span.label_ in ("CARDINAL", "ORDINAL", "PERCENT", "MONEY", "QUANTITY", "DATE", "TIME"):
                continue
            key = normalise(span.text)
            if key and not all(t.is_stop or t.pos_ == "PRON" for t in span):
                seen.setdefault(key, span.text)
    return list(seen.values())


__all__ = ["Extract", "NameList", "Triplet", "clause_span", "entities", "fast_triplets", "name_lists", "named_span",
           "names"]
