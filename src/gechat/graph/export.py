"""The graph as NetworkX, for export (GraphML, JSON) and for `gechat graph stats`."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import networkx as nx

from gechat.errors import GechatError
from gechat.store.base import GraphStore

FORMATS = ("graphml", "json")


def to_networkx(tables: GraphStore) -> nx.Graph:
    """Entities and relations with their provenance (chunk and sentence ids) as attributes."""
    chunks: dict[int, set[int]] = defaultdict(set)
    sentences: dict[int, set[int]] = defaultdict(set)
    for eid, cid, sids in tables.entity_mentions():
        chunks[eid].add(cid)
        sentences[eid].update(sids)
    rel_chunks: dict[int, set[int]] = defaultdict(set)
    for rid, cid, _ in tables.relation_mentions():
        rel_chunks[rid].add(cid)
    g: nx.Graph = nx.Graph()
    for e in tables.entities():
        # GraphML holds scalars only: id lists go as space-separated strings
        g.add_node(e.id, name=e.name, type=e.type, description=e.description, mentions=e.n_mentions,
                   chunks=" ".join(map(str, sorted(chunks[e.id]))),
                   sentences=" ".join(map(str, sorted(sentences[e.id]))))
    for r in tables.relations():
        g.add_edge(r.src, r.dst, keywords=r.keywords, description=r.description, weight=r.weight,
                   chunks=" ".join(map(str, sorted(rel_chunks[r.id]))))
    return g


def export(tables: GraphStore, path: Path, fmt: str) -> nx.Graph:
    if fmt not in FORMATS:
        raise GechatError(f"unknown export format {fmt!r}", hint=f"choose one of: {', '.join(FORMATS)}")
    g = to_networkx(tables)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if fmt == "graphml":
            nx.write_graphml(g, path)
        else:
            path.write_text(json.dumps(nx.node_link_data(g, edges="edges"), indent=1))
    except OSError as e:
        raise GechatError(f"cannot write {path}: {e.strerror}") from None
    return g


def stats(tables: GraphStore) -> dict[str, Any]:
    g = to_networkx(tables)
    degrees = sorted((d for _, d in g.degree()), reverse=True)
    top = sorted(g.degree(), key=lambda nd: -nd[1])[:10]
    return {**tables.counts(), "components": nx.number_connected_components(g) if len(g) else 0,
            "mean_degree": round(sum(degrees) / len(degrees), 2) if degrees else 0.0,
            "top_entities": [(g.nodes[n]["name"], d) for n, d in top]}
