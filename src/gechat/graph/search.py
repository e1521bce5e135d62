"""Sub-graph search (GE-Chat step 4): from a thought to the source chunks and sentences.

Seeds: entities named in the text (lexical match of their names and aliases) and the
entities nearest by embedding (name + the sentences that describe it). Expansion: best-first over the
graph for ``hops`` hops, at most ``max_nodes`` nodes; a neighbour's score is its parent's
times ``decay``, scaled by how near the neighbour is to the text, so expansion follows
the thought rather than the hubs. Ranking: each reached entity adds its score to the
chunks and sentences it was found in (damped by how many chunks name it), and each
relation between two reached entities adds the smaller of their scores to its sentences:
the sentence that links a bridge entity to the next hop is what a multi-hop answer needs.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from gechat.graph.base import normalise
from gechat.graph.resolve import name_vectors
from gechat.models.embed_base import Embedder
from gechat.store.base import EntityRow, Store

MAX_NGRAM = 6


@dataclass
class SubgraphHit:
    nodes: dict[int, float] = field(default_factory=dict)  # entity id -> score
    chunks: list[tuple[int, float]] = field(default_factory=list)  # best first
    sentences: list[tuple[int, float]] = field(default_factory=list)


@dataclass
class _Loaded:
    generation: int
    graph: nx.Graph
    ids: list[int]
    row: dict[int, int]
    matrix: np.ndarray
    keys: dict[str, set[int]]
    entity_places: dict[int, list[tuple[int, list[int]]]]  # entity -> (chunk, sentences)
    relation_places: dict[int, list[tuple[int, list[int]]]]


class SubgraphSearch:
    def __init__(self, store: Store, embedder: Embedder, *, hops: int = 2, seeds: int = 5,
                 max_nodes: int = 60, decay: float = 0.5) -> None:
        self.store, self.embedder = store, embedder
        self.hops, self.seeds, self.max_nodes, self.decay = hops, seeds, max_nodes, decay
        self._loaded: _Loaded | None = None

    def is_empty(self) -> bool:
        return not self._load().ids

    def _load(self) -> _Loaded:
        tables = self.store.graph
        gen = tables.generation()
        if self._loaded is not None and self._loaded.generation == gen:
            return self._loaded
        entities = tables.entities()
        vecs = tables.vectors("vec")
        ent_places: dict[int, list[tuple[int, list[int]]]] = defaultdict(list)
        for eid, cid, sids in tables.entity_mentions():
            ent_places[eid].append((cid, sids))
        missing = [e.id for e in entities if vecs.get(e.id) is None]
        if missing:
            fresh = self._vectors(missing, ent_places, entities)
            vecs.update(zip(missing, fresh, strict=True))
            with self.store.transaction() as db:
                tables.set_vectors(db, "vec", list(zip(missing, fresh, strict=True)))
        g: nx.Graph = nx.Graph()
        g.add_nodes_from(e.id for e in entities)
        for r in tables.relations():
            g.add_edge(r.src, r.dst, id=r.id, weight=r.weight)
        keys: dict[str, set[int]] = defaultdict(set)
        for key, eid in tables.name_keys():
            keys[key].add(eid)
        rel_places: dict[int, list[tuple[int, list[int]]]] = defaultdict(list)
        for rid, cid, sids in tables.relation_mentions():
            rel_places[rid].append((cid, sids))
        ids = [e.id for e in entities]
        matrix = (np.stack([np.asarray(vecs[i], np.float32) for i in ids]) if ids
                  else np.zeros((0, self.embedder.dim), np.float32))
        self._loaded = _Loaded(gen, g, ids, {i: n for n, i in enumerate(ids)}, matrix, dict(keys),
                               dict(ent_places), dict(rel_places))
        return self._loaded

    def _vectors(self, ids: list[int], places: dict[int, list[tuple[int, list[int]]]],
                 entities: list[EntityRow]) -> np.ndarray:
        """An entity's search vector: its name's embedding plus the mean embedding of the
        sentences it was found in (its description, as the text gives it). Both are already
        computed (resolution, indexing), so a 100-page graph costs no extra model time."""
        names = name_vectors(self.store.graph, self.embedder, entities)
        sids = sorted({s for i in ids for _, ss in places.get(i, []) for s in ss})
        svecs = dict(zip(sids, self.store.vectors("sentence", sids), strict=True)) if sids else {}
        out = np.zeros((len(ids), self.embedder.dim), np.float32)
        for row, i in enumerate(ids):
            name_vec = np.asarray(names[i], np.float32)
            ctx = [svecs[s] for _, ss in places.get(i, []) for s in ss if s in svecs]
            v = name_vec + (np.mean(ctx, axis=0) if ctx else 0.0)
            out[row] = v / max(float(np.linalg.norm(v)), 1e-12)
        return out

    def lexical(self, text: str, keys: dict[str, set[int]]) -> set[int]:
        """Entities whose name or alias appears in ``text`` as whole words."""
        words = re.findall(r"[\w&+\-.]+", text)
        found: set[int] = set()
        for n in range(1, MAX_NGRAM + 1):
            for i in range(len(words) - n + 1):
                key = normalise(" ".join(words[i:i + n]))
                if len(key) >= 3 and key in keys:
                    found |= keys[key]
        return found

    def search(self, text: str, q: np.ndarray | None = None) -> SubgraphHit:
        """``q``: the text's embedding, when the caller has it already."""
        data = self._load()
        if not data.ids:
            return SubgraphHit()
        if q is None:
            q = self.embedder.embed([text])[0]
        sims = data.matrix @ q
        seeds: dict[int, float] = {}
        for eid in self.lexical(text, data.keys):
            seeds[eid] = 1.0 + float(sims[data.row[eid]])
        for idx in np.argsort(-sims)[: self.seeds]:
            eid = data.ids[int(idx)]
            seeds.setdefault(eid, float(sims[idx]))
        best = sorted(seeds.items(), key=lambda kv: -kv[1])[: 2 * self.seeds]
        nodes = self._expand(data, dict(best), sims)
        return self._rank(data, nodes)

    def _expand(self, data: _Loaded, seeds: dict[int, float], sims: np.ndarray) -> dict[int, float]:
        heap = [(-s, 0, eid) for eid, s in seeds.items()]
        heapq.heapify(heap)
        reached: dict[int, float] = {}
        while heap and len(reached) < self.max_nodes:
            neg, hop, eid = heapq.heappop(heap)
            if eid in reached:
                continue
            reached[eid] = -neg
            if hop >= self.hops:
                continue
            for nb in data.graph.neighbors(eid):
                if nb not in reached:
                    near = max(0.0, float(sims[data.row[nb]]))
                    heapq.heappush(heap, (neg * self.decay * (0.5 + 0.5 * near), hop + 1, nb))
        return reached

    def _rank(self, data: _Loaded, nodes: dict[int, float]) -> SubgraphHit:
        chunks: dict[int, float] = defaultdict(float)
        sentences: dict[int, float] = defaultdict(float)
        for eid, score in nodes.items():
            places = data.entity_places.get(eid, [])
            damp = 1.0 / math.log2(2 + len({c for c, _ in places}))
            for cid, sids in places:
                chunks[cid] += score * damp
                for sid in sids:
                    sentences[sid] += score * damp
        for u, v, attrs in data.graph.subgraph(nodes).edges(data=True):
            link = min(nodes[u], nodes[v])
            for cid, sids in data.relation_places.get(attrs["id"], []):
                chunks[cid] += link
                for sid in sids:
                    sentences[sid] += link
        return SubgraphHit(nodes, sorted(chunks.items(), key=lambda kv: -kv[1]),
                           sorted(sentences.items(), key=lambda kv: -kv[1]))
