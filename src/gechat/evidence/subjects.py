"""What a claim is about: the common noun that is its subject.

The cross-encoder gives a sentence that shares a claim's condition but speaks of another
thing a weak P_entail: in a services agreement "The service credit is only applicable if the
breach is not cured within 30 days after written notice" read 0.29 against "Either party may
terminate this Agreement for material breach if the breach is not cured within thirty (30)
days after written notice". Weak entailment is only evidence when the sentence speaks of the
claim's subject; strong entailment may paraphrase it ("net sales" for "revenue").

The subject is read with spaCy's parse (the fast graph's pipeline, already loaded for it):
the nominal subject of the main verb, when it is a common noun. A name is left to the names
check (``holds``), a pronoun to the headings; without spaCy no claim has a subject here.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from gechat.evidence.comparing import compares
from gechat.lexical import META, content_keys

STRONG = 0.5  # P_entail from which the model's reading stands without the subject named


@lru_cache(maxsize=4096)
def _parse(text: str) -> Any:
    """spaCy's parse of ``text`` (the fast graph's pipeline), or None without a working model;
    memoised: a claim is parsed for its subject, for what stands before its verb and for its
    keys, once."""
    try:
        from gechat.graph.fast import load_spacy

        return load_spacy()(text)
    except Exception:
        return None


def _subjects(text: str, *, reported: bool = False) -> Iterator[Any]:
    """The subjects of ``text``'s main verb, in order (with ``reported``, also those of the
    clause it reports: "The excerpt states that ..."); none without spaCy."""
    doc = _parse(text)
    for tok in doc if doc is not None else ():
        head = tok.head
        # a clause may be the subject: a title read as one ("These Boots Are Made for Walkin'
        # is a hit song"), "What the tenant pays is ..."
        if tok.dep_ in ("nsubj", "nsubjpass", "csubj", "csubjpass") and (
                head.dep_ == "ROOT" or (reported and head.dep_ == "ccomp" and head.head.dep_ == "ROOT")):
            yield tok


def _keys(tok: Any, pos: tuple[str, ...]) -> frozenset[str]:
    """The content keys of ``tok`` with its compounds of the parts of speech ``pos``, words
    about documents aside."""
    words = [c.text for c in tok.children if c.dep_ == "compound" and c.pos_ in pos] + [tok.text]
    return frozenset(content_keys(" ".join(words)) - META)


@lru_cache(maxsize=4096)
def subject_keys(claim: str) -> frozenset[str]:
    """The content keys of the common-noun subject of ``claim``'s main verb (with its compound
    nouns: "service credit"), or none."""
    tok = next(_subjects(claim), None)
    if tok is None or tok.pos_ != "NOUN" or tok.ent_type_:
        return frozenset()
    return _keys(tok, ("NOUN",))


@lru_cache(maxsize=4096)
def about_keys(claim: str) -> frozenset[str]:
    """The content keys of what ``claim`` is about, a name as well as a common noun: the
    subject of its main verb with its compounds ("Henry Roth", "service credit"); when that is a
    word about documents ("The excerpt states that ..."), the subject of the clause it reports.
    None for a pronoun, or without spaCy."""
    for tok in _subjects(claim, reported=True):
        if tok.pos_ not in ("NOUN", "PROPN"):
            return frozenset()
        if keys := _keys(tok, ("NOUN", "PROPN")):
            return keys
    return frozenset()


@lru_cache(maxsize=8192)
def subject_of(sentence: str) -> str:
    """The words of ``sentence``'s subject (the main verb's subject with all it governs), or the
    whole sentence when the parse finds none (a fragment, a table row), or without spaCy."""
    tok = next(_subjects(sentence), None)
    return sentence if tok is None else " ".join(t.text for t in tok.subtree)


@lru_cache(maxsize=8192)
def before_verb(sentence: str) -> str:
    """``sentence`` up to its main verb (the one its subject depends on): the subject with all
    that hangs on it, however the parse attached it ("The composer of film Before Sunset" of
    "... studied in Vienna"); "" when the parse finds no subject, or without spaCy."""
    tok = next(_subjects(sentence), None)
    return "" if tok is None else sentence[:tok.head.idx]


def kind_counted(text: str, start: int, end: int) -> frozenset[str]:
    """The content keys of the common nouns that say which kind of thing the figure
    ``text[start:end]`` counts: the compounds of the noun it numbers ("paper" of "12M unique
    paper nodes", "bibliography" of "100 bibliography entries"; not the "M" of "12M"); none
    without spaCy."""
    doc = _parse(text)
    tok = next((t for t in doc if t.idx <= start < t.idx + len(t)), None) if doc is not None else None
    while tok is not None and tok.pos_ == "NUM" and tok.dep_ in ("compound", "nummod") and tok.head is not tok:
        tok = tok.head  # "37 million paper nodes": from "37" through "million" to "nodes"
    if tok is None or tok.pos_ != "NOUN":
        return frozenset()
    kinds = [c.text for c in tok.children if c.dep_ == "compound" and c.pos_ == "NOUN" and not start <= c.idx < end]
    return frozenset(content_keys(" ".join(kinds)))


def speaks_of(claim: str, text: str) -> bool:
    """Whether ``text`` names the subject of ``claim`` (every word of it), or the claim has none."""
    keys = subject_keys(claim)
    return not keys or keys <= content_keys(text)


def anchored(claim: str, text: str, p_entail: float) -> bool:
    """Whether an entailment of ``p_entail`` by ``text`` may support ``claim``: a strong one
    always, a weak one only from a text that speaks of the claim's subject, and never for a
    claim that compares things (``comparing``)."""
    return p_entail >= STRONG or (speaks_of(claim, text) and not compares(claim))


__all__ = ["STRONG", "about_keys", "anchored", "before_verb", "kind_counted", "speaks_of", "subject_keys",
           "subject_of"]
