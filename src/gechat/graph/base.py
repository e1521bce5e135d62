"""Graph extraction: what an extractor sees (chunks with their sentences) and returns.

Every entity and relation an extractor returns carries the ids of the sentences it was
found in; a name the model gives that is not in the chunk is dropped, never stored.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from rapidfuzz import fuzz

from gechat.types import Sentence

# a name must appear in the chunk this well (rapidfuzz partial ratio) to count as found
FOUND_RATIO = 90.0


@dataclass(frozen=True)
class ChunkText:
    id: int
    doc_id: int
    text: str
    sentences: Sequence[Sentence]


@dataclass
class EntityFound:
    name: str
    type: str
    description: str
    sentence_ids: list[int]


@dataclass
class RelationFound:
    source: str
    target: str
    keywords: str
    description: str
    strength: float
    sentence_ids: list[int]
    kind: str = "extracted"  # extracted | probed | svo | cooccur


@dataclass
class Extraction:
    """One chunk's entities and relations; ``failed`` when the extractor got nothing usable."""

    chunk_id: int
    entities: list[EntityFound] = field(default_factory=list)
    relations: list[RelationFound] = field(default_factory=list)
    failed: bool = False
    dropped: int = 0  # invented (not in the chunk), repeated or malformed items


class Extractor(Protocol):
    name: str
    uses_llm: bool

    def extract(self, unit: Sequence[ChunkText]) -> list[Extraction]:
        """One result per chunk of ``unit`` (consecutive chunks of one document), in order."""
        ...


_ARTICLES = re.compile(r"^(the|a|an)\s+")
_PUNCT = re.compile(r"[^\w&+\-. ]+")


def normalise(name: str) -> str:
    """The lookup key of a name: case, accents' forms, articles, possessives and punctuation folded."""
    s = unicodedata.normalize("NFKC", name).lower().strip()
    s = re.sub(r"['’]s\b", "", s)
    s = _PUNCT.sub(" ", s)
    s = _ARTICLES.sub("", " ".join(s.split()))
    return s.strip(" .-")


def sentences_with(name: str, sentences: Sequence[Sentence]) -> list[int]:
    """Ids of the sentences that contain ``name`` (exactly, ignoring case; else fuzzily)."""
    low = name.lower()
    exact = [s.id for s in sentences if low in s.text.lower()]
    if exact or len(name) < 4:
        return exact
    return [s.id for s in sentences if fuzz.partial_ratio(low, s.text.lower()) >= FOUND_RATIO]
