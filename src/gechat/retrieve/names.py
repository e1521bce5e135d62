"""A name that runs through a document does not tell its parts apart.

A 10-K names its company in most of its chunks, a contract its parties, a manual its
product. Embedded with the question, such a name pulls the chunks that say it most (a table
of contents, a cover page, the company overview) above the one that answers: on the
FinanceBench dev filings "Which activity brought in the most cash for Best Buy in FY2023?"
ranked the cash flow statement 37th. So for the chunks of a document where a capitalised word
of the question is in more than ``share`` of the chunks, the question is embedded again
without it, and each such chunk takes the better of its two cosines. The name still tells
documents apart: the chunks of a document where it is rare keep the whole question's score.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from gechat.lexical import STOPWORDS
from gechat.models.embed_base import Embedder
from gechat.store.base import Store

_NAME = re.compile(r"\b\w*[A-Z]\w*")  # a word with a capital: a name, an acronym, "FY2018"
_POSSESSIVE = r"(?:['\u2019]s)?"


def name_words(question: str) -> list[str]:
    """The question's distinct words with a capital letter, stopwords aside."""
    return [w for w in dict.fromkeys(_NAME.findall(question)) if w.lower() not in STOPWORDS and len(w) > 1]


def without(question: str, words: Sequence[str]) -> str:
    """The question with ``words`` (and their possessive) left out."""
    pattern = r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b" + _POSSESSIVE
    return " ".join(re.sub(pattern, " ", question).split())


def common_names(store: Store, question: str, share: float) -> dict[int, tuple[str, ...]]:
    """For each document where some, the question's names found in more than ``share`` of its chunks."""
    names = name_words(question)
    if not names or share >= 1.0:
        return {}
    spread = store.word_spread([w.lower() for w in names])
    out: dict[int, tuple[str, ...]] = {}
    for doc, shares in spread.items():
        common = tuple(w for w in names if shares.get(w.lower(), 0.0) > share)
        if common:
            out[doc] = common
    return out


def search_chunks(store: Store, embedder: Embedder, question: str, k: int, share: float) -> list[tuple[int, float]]:
    """The ``k`` best (chunk id, cosine) for ``question``, a document's common names discounted."""
    q = embedder.embed([question])[0]
    common = common_names(store, question, share)
    if not common or k <= 0:
        return store.search("chunk", q, k)
    depth = max(4 * k, 40)  # the candidates each query brings; the rest keep their rank below
    ids = [i for i, _ in store.search("chunk", q, depth)]
    groups: dict[tuple[str, ...], set[int]] = {}
    for doc, words in common.items():
        groups.setdefault(words, set()).add(doc)
    queries = {}
    for words in groups:
        text = without(question, words)
        if text.strip(" ?.!,"):
            queries[words] = embedder.embed([text])[0]
            ids += [i for i, _ in store.search("chunk", queries[words], depth) if i not in ids]
    doc_of = {c.id: c.doc_id for c in store.chunks(ids)}
    vecs = np.asarray(store.vectors("chunk", ids), np.float32)
    best = vecs @ np.asarray(q, np.float32)
    for words, docs in groups.items():
        if words not in queries:
            continue
        mine = np.array([doc_of.get(i) in docs for i in ids])
        best = np.where(mine, np.maximum(best, vecs @ np.asarray(queries[words], np.float32)), best)
    order = np.argsort(-best, kind="stable")[:k]
    return [(ids[j], float(best[j])) for j in order]
