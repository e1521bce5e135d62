"""Entity resolution: one node per real-world thing, however the text names it.

A name first goes by its normalised key ("The Semantic Scholar's" -> "semantic scholar").
A new key is compared with the known entities' names by embedding; the few nearest
(cosine >= ``SHORTLIST``) are then checked by rule, because embeddings alone both miss
aliases ("M365 Business Basic" / "Microsoft 365 Business Basic": 0.61 with MiniLM) and
join different things ("... Business Basic" / "... Business Premium": 0.78). A pair is
one entity when the short name abbreviates the long one's differing words, or when the
embedding agrees (>= ``threshold``), the numbers are the same and one name's words contain
the other's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from gechat.graph.base import normalise
from gechat.models.embed_base import Embedder
from gechat.store.base import Connection, EntityRow, GraphStore

SHORTLIST = 0.55
_SUFFIXES = {"inc", "inc.", "corp", "corp.", "corporation", "co", "co.", "company", "ltd", "ltd.", "llc", "plc",
             "limited", "group", "the"}
# types an extractor gives when it does not know; they may join any type
LOOSE_TYPES = {"other", "concept", ""}


def _words(key: str) -> list[str]:
    return [w for w in key.split() if w not in _SUFFIXES]


def _initials(words: Sequence[str]) -> str:
    return "".join(w if w.isdigit() else w[0] for w in words if w)


def abbreviates(short: str, long: str) -> bool:
    """'m365 business basic' abbreviates 'microsoft 365 business basic'; 'ai2' does not
    abbreviate 'allen institute for artificial intelligence' (the 2 is nowhere)."""
    a, b = _words(short), _words(long)
    common = set(a) & set(b)
    ra = [w for w in a if w not in common]
    rb = [w for w in b if w not in common and w not in {"of", "for", "and", "&"}]
    if len(ra) != 1 or len(rb) < 2:
        return False
    return ra[0].replace(".", "") == _initials(rb)


def contains(a: str, b: str) -> bool:
    wa, wb = set(_words(a)), set(_words(b))
    return bool(wa) and bool(wb) and (wa <= wb or wb <= wa)


def same_numbers(a: str, b: str) -> bool:
    return re.findall(r"\d+", a) == re.findall(r"\d+", b)


def is_alias(a: str, b: str, cosine: float, threshold: float) -> bool:
    """Whether keys ``a`` and ``b`` name one entity (see the module docstring)."""
    if _words(a) == _words(b):
        return True  # differ only by a company suffix ("apple inc" / "apple")
    short, long = sorted((a, b), key=len)
    if abbreviates(short, long):
        return True
    return cosine >= threshold and same_numbers(a, b) and contains(a, b)


def name_vectors(tables: GraphStore, embedder: Embedder, rows: Sequence[EntityRow]) -> dict[int, np.ndarray]:
    """Every entity's name embedding; those a re-derivation cleared (the name changed) are
    embedded now and stored, for resolution and search alike."""
    vecs = {i: v for i, v in tables.vectors("name_vec").items() if v is not None}
    missing = [e for e in rows if e.id not in vecs]
    if missing:
        fresh = embedder.embed([e.name for e in missing])
        vecs.update(zip([e.id for e in missing], fresh, strict=True))
        tables.save_vectors("name_vec", list(zip([e.id for e in missing], fresh, strict=True)))
    return vecs


class Resolver:
    """Maps names to entity ids, creating entities as needed (inside the caller's transaction)."""

    def __init__(self, tables: GraphStore, embedder: Embedder | None, threshold: float = 0.9) -> None:
        self.tables, self.embedder, self.threshold = tables, embedder, threshold
        self._keys: dict[str, int] = {}
        self._ids: list[int] = []
        self._names: list[str] = []
        self._types: list[str] = []
        self._matrix = np.zeros((0, 0), np.float32)
        self._loaded = False

    def _load(self) -> None:
        """The known entities' name vectors (embedding the ones a re-derivation cleared)."""
        self._loaded = True
        if self.embedder is None:
            return
        rows = self.tables.entities()
        vecs = name_vectors(self.tables, self.embedder, rows)
        self._ids = [e.id for e in rows]
        self._names = [normalise(e.name) for e in rows]
        self._types = [e.type for e in rows]
        self._matrix = (np.stack([np.asarray(vecs[i], np.float32) for i in self._ids]) if rows
                        else np.zeros((0, self.embedder.dim), np.float32))

    def resolve(self, db: Connection, names: Sequence[tuple[str, str]]) -> list[int]:
        """Entity ids for (name, type) pairs, in order."""
        if not self._loaded:
            self._load()
        out: list[int | None] = []
        new: list[int] = []  # positions whose key is unknown
        for i, (name, _) in enumerate(names):
            key = normalise(name)
            eid = self._keys.get(key)
            if eid is None:
                eid = self.tables.entity_for_key(key)
                if eid is not None:
                    self._keys[key] = eid
            out.append(eid)
            if eid is None:
                new.append(i)
        # one embedding per distinct new key (relations repeat their ends' names many times)
        first: dict[str, int] = {}
        for i in new:
            first.setdefault(normalise(names[i][0]), i)
        vecs = (dict(zip(first, self.embedder.embed([names[i][0] for i in first.values()]), strict=True))
                if self.embedder is not None and first else {})
        for i in new:
            name, type_ = names[i]
            key = normalise(name)
            if key in self._keys:  # an earlier name in this batch created it
                out[i] = self._keys[key]
                continue
            vec = vecs.get(key)
            eid = self._alias(key, type_, vec)
            if eid is None:
                eid = self.tables.new_entity(db, name, type_, vec)
                if vec is not None:
                    self._append(eid, key, type_, vec)
            self._keys[key] = eid
            out[i] = eid
        return [int(e) for e in out if e is not None]

    def _append(self, eid: int, key: str, type_: str, vec: np.ndarray) -> None:
        n = len(self._ids)
        if n >= len(self._matrix):  # grow by doubling: appending row by row would copy O(n^2)
            grown = np.zeros((max(64, 2 * n), len(vec)), np.float32)
            grown[:n] = self._matrix[:n]
            self._matrix = grown
        self._matrix[n] = vec
        self._ids.append(eid)
        self._names.append(key)
        self._types.append(type_)

    def _alias(self, key: str, type_: str, vec: np.ndarray | None) -> int | None:
        if vec is None or not self._ids:
            return None
        sims = self._matrix[: len(self._ids)] @ vec
        for idx in np.argsort(-sims)[:5]:
            if sims[idx] < SHORTLIST:
                break
            other_type = self._types[idx]
            if type_ != other_type and type_ not in LOOSE_TYPES and other_type not in LOOSE_TYPES:
                continue
            if is_alias(key, self._names[idx], float(sims[idx]), self.threshold):
                return int(self._ids[idx])
        return None
