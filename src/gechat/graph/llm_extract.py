"""The LLM extractor: one JSON-schema-constrained call per unit of consecutive chunks.

The schema is compiled into a grammar (llama.cpp) or sent as ``response_format`` (servers),
so the output always parses, except when the model runs into the token cap: then the
complete items before the cut are kept. Small-model failure modes are handled after
parsing: empty names, repeated entities, relations to unlisted names, and names that are
not in the text (invented) are dropped and counted.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gechat.graph.base import ChunkText, EntityFound, Extraction, RelationFound, normalise, sentences_with
from gechat.models.llm.cache import CachedLLM
from gechat.prompts import PROMPTS

TYPES = ["person", "organization", "location", "product", "work", "event", "concept", "other"]
MAX_ENTITIES = 10
MAX_RELATIONS = 10


def _schema() -> dict[str, Any]:
    text = {"type": "string", "maxLength": 120}
    return {
        "type": "object",
        "properties": {
            "entities": {"type": "array", "maxItems": MAX_ENTITIES, "items": {
                "type": "object",
                "properties": {"name": {"type": "string", "maxLength": 60}, "type": {"enum": TYPES},
                               "description": text},
                "required": ["name", "type", "description"]}},
            "relations": {"type": "array", "maxItems": MAX_RELATIONS, "items": {
                "type": "object",
                "properties": {"source": {"type": "string", "maxLength": 60},
                               "target": {"type": "string", "maxLength": 60},
                               "keywords": {"type": "string", "maxLength": 40}, "description": text,
                               "strength": {"type": "integer", "minimum": 1, "maximum": 10}},
                "required": ["source", "target", "keywords", "description", "strength"]}},
        },
        "required": ["entities", "relations"],
    }


SCHEMA = _schema()


def parse_partial(text: str) -> Any:
    """JSON, or the longest prefix that closes into JSON (an output cut by the token cap)."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    stack: list[str] = []
    in_str = esc = False
    cuts: list[tuple[int, str]] = []
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch in "[{":
            stack.append("]" if ch == "[" else "}")
        elif ch in "]}" and stack:
            stack.pop()
            cuts.append((i + 1, "".join(reversed(stack))))
    for end, closers in reversed(cuts):
        try:
            return json.loads(text[:end] + closers)
        except ValueError:
            continue
    return None


class LLMExtractor:
    name = "llm"
    uses_llm = True

    def __init__(self, llm: CachedLLM, *, gleaning: int = 0, max_tokens: int = 700) -> None:
        self.llm, self.gleaning, self.max_tokens = llm, gleaning, max_tokens

    def _call(self, messages: list[Any]) -> Any:
        done = self.llm.complete(messages, max_tokens=self.max_tokens, json_schema=SCHEMA)
        return parse_partial(done.text)

    def extract(self, unit: Sequence[ChunkText]) -> list[Extraction]:
        text = "\n".join(c.text for c in unit)
        messages: list[Any] = [{"role": "system", "content": PROMPTS["graph_system"]},
                               {"role": "user", "content": PROMPTS["graph_user"].format(text=text)}]
        data = self._call(messages)
        failed = not isinstance(data, dict)
        items = data if isinstance(data, dict) else {}
        for _ in range(self.gleaning):
            names = ", ".join(str(e.get("name", "")) for e in items.get("entities", []) if isinstance(e, dict))
            more = self._call([*messages, {"role": "assistant", "content": json.dumps(items)},
                               {"role": "user", "content": PROMPTS["graph_glean"].format(names=names or "nothing")}])
            if isinstance(more, dict):
                for k in ("entities", "relations"):
                    items.setdefault(k, []).extend(more.get(k) or [])
        return split_by_chunk(items, unit, failed)


def split_by_chunk(items: dict[str, Any], unit: Sequence[ChunkText], failed: bool) -> list[Extraction]:
    """Place each entity in every chunk that names it and each relation where its ends meet."""
    out = {c.id: Extraction(chunk_id=c.id, failed=failed) for c in unit}
    first = out[unit[0].id]
    where: dict[str, dict[int, list[int]]] = {}  # key -> chunk id -> sentence ids
    canon: dict[str, EntityFound] = {}
    for raw in items.get("entities") or []:
        name = str(raw.get("name", "")).strip() if isinstance(raw, dict) else ""
        key = normalise(name)
        if len(key) < 2 or key in canon:
            first.dropped += 1  # empty or repeated
            continue
        found = {c.id: ids for c in unit if (ids := sentences_with(name, c.sentences))}
        if not found:
            first.dropped += 1  # invented: not in the text
            continue
        where[key] = found
        canon[key] = EntityFound(name, str(raw.get("type") or "other"), str(raw.get("description") or ""), [])
        for cid, ids in found.items():
            e = canon[key]
            out[cid].entities.append(EntityFound(e.name, e.type, e.description, ids))
    seen: set[tuple[str, str]] = set()
    for raw in items.get("relations") or []:
        if not isinstance(raw, dict):
            first.dropped += 1
            continue
        a, b = normalise(str(raw.get("source", ""))), normalise(str(raw.get("target", "")))
        if a not in where or b not in where or a == b or (a, b) in seen or (b, a) in seen:
            first.dropped += 1  # an end that is not a kept entity, a loop, or a repeat
            continue
        seen.add((a, b))
        both = [cid for cid in where[a] if cid in where[b]]
        cid = both[0] if both else next(iter(where[a]))
        shared = [s for s in where[a].get(cid, []) if s in set(where[b].get(cid, []))]
        ids = shared or sorted(set(where[a].get(cid, [])) | set(where[b].get(cid, [])))
        strength = raw.get("strength")
        out[cid].relations.append(RelationFound(
            canon[a].name, canon[b].name, str(raw.get("keywords") or ""), str(raw.get("description") or ""),
            float(strength) if isinstance(strength, int | float) else 5.0, ids))
    return [out[c.id] for c in unit]


PROBE_SCHEMA_ITEM = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 1}, "related": {"type": "boolean"},
                   "keywords": {"type": "string", "maxLength": 40},
                   "description": {"type": "string", "maxLength": 120}},
    "required": ["n", "related", "keywords", "description"],
}


class RelationProber:
    """GE-Chat's relation probing, bounded: at most ``max_pairs`` pairs and one call per unit.

    Pairs are entities that share a sentence (then adjacent sentences) of the unit but got no
    relation; only those sentences are sent, not the whole unit.
    """

    def __init__(self, llm: CachedLLM, max_pairs: int = 6) -> None:
        self.llm, self.max_pairs = llm, max_pairs

    def pairs(self, unit: Sequence[ChunkText], found: Sequence[Extraction]) -> list[tuple[EntityFound, EntityFound,
                                                                                        list[int]]]:
        related = {frozenset((normalise(r.source), normalise(r.target))) for x in found for r in x.relations}
        order = {s.id: i for i, s in enumerate(s for c in unit for s in c.sentences)}
        ents: dict[str, EntityFound] = {}
        for x in found:
            for e in x.entities:
                ents.setdefault(normalise(e.name), e)
        out: list[tuple[int, EntityFound, EntityFound, list[int]]] = []
        keys = list(ents)
        for i, a in enumerate(keys):
            for b in keys[i + 1:]:
                if frozenset((a, b)) in related:
                    continue
                sa, sb = set(ents[a].sentence_ids), set(ents[b].sentence_ids)
                shared = sorted(sa & sb)
                gap = min((abs(order.get(x, 0) - order.get(y, 0)) for x in sa for y in sb), default=99)
                if shared or gap <= 1:
                    ids = shared or sorted(sa | sb)
                    out.append((0 if shared else gap, ents[a], ents[b], ids))
        out.sort(key=lambda t: t[0])
        return [(a, b, ids) for _, a, b, ids in out[: self.max_pairs]]

    def probe(self, unit: Sequence[ChunkText], found: Sequence[Extraction]) -> list[tuple[int, RelationFound]]:
        """(chunk id, relation) for each pair the model says is related."""
        pairs = self.pairs(unit, found)
        if not pairs:
            return []
        by_id = {s.id: s for c in unit for s in c.sentences}
        sids = sorted({i for _, _, ids in pairs for i in ids}, key=lambda i: (by_id[i].chunk_id, by_id[i].ord))
        text = " ".join(by_id[i].text for i in sids)
        listing = "\n".join(PROMPTS["probe_item"].format(n=n, a=a.name, b=b.name) for n, (a, b, _) in
                            enumerate(pairs, 1))
        schema = {"type": "object", "properties": {"pairs": {"type": "array", "maxItems": len(pairs),
                                                             "items": PROBE_SCHEMA_ITEM}}, "required": ["pairs"]}
        done = self.llm.complete([{"role": "system", "content": PROMPTS["probe_system"]},
                                  {"role": "user", "content": PROMPTS["probe_user"].format(text=text, pairs=listing)}],
                                 max_tokens=60 * len(pairs) + 20, json_schema=schema)
        data = parse_partial(done.text)
        out: list[tuple[int, RelationFound]] = []
        answered: set[int] = set()
        for raw in (data or {}).get("pairs", []) if isinstance(data, dict) else []:
            n = raw.get("n") if isinstance(raw, dict) else None
            if not isinstance(n, int) or not 1 <= n <= len(pairs) or n in answered or not raw.get("related"):
                continue
            answered.add(n)
            a, b, ids = pairs[n - 1]
            out.append((by_id[ids[0]].chunk_id, RelationFound(a.name, b.name, str(raw.get("keywords") or ""),
                                                              str(raw.get("description") or ""), 5.0, ids, "probed")))
        return out
