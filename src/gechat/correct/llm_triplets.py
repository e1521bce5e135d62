"""Knowledge triplets written by the LLM (``correct_triplets = "llm"``), JSON-constrained.

The sentences go to the model numbered, a batch at a time; each triplet it returns names its
sentence. HC edits the answer where a triplet's words are, so a subject or object the model
did not copy word for word from its sentence (it paraphrased, or invented) is dropped: every
triplet kept has the character spans of its parts, as the ``fast`` extractor's do.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from gechat.correct.triplets import Span, Triplet, named_span
from gechat.graph.llm_extract import parse_partial
from gechat.models.llm.cache import CachedLLM
from gechat.prompts import PROMPTS

_TOKEN = re.compile(r"\S+")
_MARKS = "\"'.,;:!?()[]{}«»“”‘’"
BATCH_CHARS = 1200  # sentences per call: a few, so the 1.5B model keeps their numbers apart
MAX_TRIPLETS = 24
TOKENS_PER_TRIPLET = 40

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"triplets": {"type": "array", "maxItems": MAX_TRIPLETS, "items": {
        "type": "object",
        "properties": {"sentence": {"type": "integer"}, "subject": {"type": "string"},
                       "relation": {"type": "string"}, "object": {"type": "string"}},
        "required": ["sentence", "subject", "relation", "object"]}}},
    "required": ["triplets"],
}


def _batches(texts: Sequence[str]) -> list[list[int]]:
    out: list[list[int]] = [[]]
    size = 0
    for k, text in enumerate(texts):
        if out[-1] and size + len(text) > BATCH_CHARS:
            out.append([])
            size = 0
        out[-1].append(k)
        size += len(text)
    return [b for b in out if b]


def find(text: str, part: str) -> Span | None:
    """Where ``part`` is in ``text``, case, spacing and the marks around words aside ('"Human',
    'China.'); None when it is not there. Word by word, no pattern built from the model's text."""
    words = [w.strip(_MARKS) for w in part.lower().split()]
    words = [w for w in words if w]
    if not words:
        return None
    cores = []
    for m in _TOKEN.finditer(text):
        tok = m.group()
        core = tok.strip(_MARKS)
        if core:
            at = m.start() + tok.index(core)
            cores.append((at, at + len(core), core.lower()))
    n = len(words)
    for i in range(len(cores) - n + 1):
        if all(cores[i + j][2] == w for j, w in enumerate(words)):
            return cores[i][0], cores[i + n - 1][1]
    return None


class LLMTriplets:
    """Triplets of each text, one LLM call per batch of texts (cached like every call)."""

    name = "llm"

    def __init__(self, llm: CachedLLM) -> None:
        self.llm = llm

    def __call__(self, texts: Sequence[str]) -> list[Triplet]:
        out: list[Triplet] = []
        for batch in _batches(texts):
            listing = "\n".join(PROMPTS["triplets_item"].format(n=n + 1, text=" ".join(texts[k].split()))
                                for n, k in enumerate(batch))
            done = self.llm.complete([{"role": "system", "content": PROMPTS["triplets_system"]},
                                      {"role": "user", "content": PROMPTS["triplets_user"].format(sentences=listing)}],
                                     max_tokens=TOKENS_PER_TRIPLET * min(MAX_TRIPLETS, 4 * len(batch)),
                                     json_schema=SCHEMA)
            data = parse_partial(done.text)
            items = data.get("triplets") if isinstance(data, dict) else None
            for item in items if isinstance(items, list) else []:
                t = _triplet(item, batch, texts)
                if t is not None:
                    out.append(t)
        return out


def _triplet(item: Any, batch: list[int], texts: Sequence[str]) -> Triplet | None:
    """The model's triplet with its spans in its sentence; None when it cannot be placed."""
    if not isinstance(item, dict):
        return None
    n, subject, relation, obj = (item.get(k) for k in ("sentence", "subject", "relation", "object"))
    if not isinstance(n, int) or not 1 <= n <= len(batch):
        return None
    if not all(isinstance(x, str) and x.strip() for x in (subject, relation, obj)):
        return None
    k = batch[n - 1]
    text = texts[k]
    s, o = find(text, str(subject)), find(text, str(obj))
    if s is None or o is None or s == o:
        return None
    return Triplet(text[s[0]:s[1]], " ".join(str(relation).lower().split()), text[o[0]:o[1]], k, s, o,
                   named_span(text, s), named_span(text, o))


__all__ = ["LLMTriplets", "find"]
