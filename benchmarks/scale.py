"""Past one machine: ingestion with and without Ray, retrieval at 10,000 and 100,000 chunks on
SQLite + usearch and PostgreSQL + pgvector (HNSW).

    python benchmarks/scale.py [--sizes 10000,100000] [--ingest-docs 24] [--queries 200]

Corpus: the distinct real paragraphs of the shared data (HaluEval knowledge, the MuSiQue
corpus, 2Wiki and HotpotQA contexts), embedded once by the packaged MiniLM. A document is 50
paragraphs, each one chunk and one sentence; copies of the corpus, each document's paragraphs
shuffled, make distinct documents (new sha256) until the store holds the size asked for. The
copies repeat vectors, so recall@10 counts a returned chunk as right when it is as close as the
exact 10th nearest (ties are not misses). Queries: HaluEval questions, embedded alike.

Retrieval: ``store.search("chunk", q, 10)`` after one warm-up query (SQLite builds its usearch
index there), p50/p99 over the queries. Ingestion: ``--ingest-docs`` text files of 10 distinct
paragraphs, added with the default settings (MiniLM int8, fast graph) to PostgreSQL by one
process (``Workspace.add``), then by Ray tasks on a local instance with 2 workers (Ray's start
counted). PostgreSQL: pgserver in a temporary folder, or $GECHAT_BENCH_POSTGRES_URL.
Writes benchmarks/results/scale.{md,json}.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import write
from gechat.models import EMBEDDERS
from gechat.pipeline import Workspace
from gechat.settings import Settings
from gechat.store.base import NewDocument, Store
from gechat.store.registry import open_store
from gechat.types import ChunkSpan, PageInfo, ParsedDocument, SentenceSpan, Span

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CACHE = Path(".cache/bench-scale")
PER_DOC = 50


def paragraphs() -> list[str]:
    out: list[str] = []
    for line in (DATA / "halueval" / "dataset_halueval_qa.jsonl").read_text().splitlines():
        out.append(json.loads(line)["knowledge"])
    out += [r["text"] for r in json.loads((DATA / "musique_train_sample" / "musique_train_corpus.json").read_text())]
    hot = json.loads((DATA / "hotpotqa_distractor_dev" / "hotpot_dev_distractor_v1_first70.json").read_text())
    out += ["".join(s) for r in hot for _, s in r["context"]]
    wiki = json.loads((DATA / "2wikimultihopqa_dev" / "sampled_ds_first350.json").read_text())
    for ctx in wiki["context"].values():
        out += ["".join(s) for _, s in (json.loads(ctx) if isinstance(ctx, str) else ctx)]
    return [p for p in dict.fromkeys(" ".join(p.split()) for p in out) if len(p) > 40]


def embedded(texts: list[str], settings: Settings, name: str) -> np.ndarray:
    key = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:12]
    path = CACHE / f"{name}-{settings.embedder}-{key}.npy"
    if path.exists():
        return np.load(path)
    embedder = EMBEDDERS.create(settings.embedder, settings)
    vecs = np.concatenate([embedder.embed(texts[i:i + 256]) for i in range(0, len(texts), 256)])
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, vecs)
    return vecs


def documents(texts: list[str], vecs: np.ndarray, embedder: str) -> Iterator[tuple[NewDocument, list[int]]]:
    """Documents of PER_DOC paragraphs, copy after copy, each copy's order shuffled; with the
    corpus index of each chunk."""
    copy = 0
    while True:
        order = list(range(len(texts)))
        random.Random(copy).shuffle(order)
        for start in range(0, len(order) - PER_DOC + 1, PER_DOC):
            idx = order[start:start + PER_DOC]
            body, spans = "", []
            for i in idx:
                spans.append((len(body), len(body) + len(texts[i])))
                body += texts[i] + "\n\n"
            sents = [SentenceSpan(start=a, end=b, text=body[a:b], page=1) for a, b in spans]
            chunks = [ChunkSpan(sentences=[k], start=a, end=b, text=body[a:b], n_tokens=(b - a) // 4)
                      for k, (a, b) in enumerate(spans)]
            parsed = ParsedDocument(text=body, kind="txt", title=f"copy {copy} part {start}",
                                    pages=[PageInfo(number=1, start=0, end=len(body))],
                                    blocks=[Span(start=0, end=len(body))])
            v = vecs[idx]
            sha = hashlib.sha256(f"{copy}:{start}:{body}".encode()).hexdigest()
            yield NewDocument(f"/corpus/{sha[:12]}.txt", sha, parsed, sents, chunks, v, v,
                              f"{embedder}/{v.shape[1]}"), idx
        copy += 1


def fill(store: Store, docs: Iterator[tuple[NewDocument, list[int]]], target: int,
         ids: list[int], rows: list[int]) -> float:
    """Inserts documents until the store holds ``target`` chunks; returns the seconds taken."""
    t = time.perf_counter()
    while len(ids) < target:
        doc, idx = next(docs)
        d = store.insert(doc)
        ids += store.chunk_ids(d.id)
        rows += idx
    return time.perf_counter() - t


def measure(store: Store, queries: np.ndarray, ids: list[int], rows: list[int], vecs: np.ndarray
            ) -> dict[str, float]:
    store.search("chunk", queries[0], 10)  # warm-up: SQLite builds or loads its index here
    matrix = vecs[np.array(rows)]
    times, recalls = [], []
    for q in queries:
        t = time.perf_counter()
        got = store.search("chunk", q, 10)
        times.append((time.perf_counter() - t) * 1000)
        exact = np.sort(matrix @ q)[::-1]
        tenth = exact[min(9, len(exact) - 1)]
        recalls.append(sum(s >= tenth - 1e-4 for _, s in got) / 10)
    return {"p50_ms": round(float(np.percentile(times, 50)), 2), "p99_ms": round(float(np.percentile(times, 99)), 2),
            "recall_at_10": round(float(np.mean(recalls)), 4), "exact": store.index_is_exact("chunk")}


def disk_mb(store: Store, folder: Path) -> float:
    schema = getattr(store, "schema", None)
    if schema is None:
        return round(sum(f.stat().st_size for f in folder.glob("*")) / 1e6, 1)
    with store.transaction() as db:
        row = db.execute("SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n "
                         "ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relkind = 'r'", (schema,)).fetchone()
    return round(int(row[0] or 0) / 1e6, 1)


def ingest(settings: Settings, texts: list[str], n_docs: int, work: Path) -> dict[str, float]:
    """Files per minute with one process and with Ray (2 local workers), and where the time goes:
    the cores one process keeps busy, Ray's wait for its first result (start, model loads), its
    rate after that, and each file's seconds on either path."""
    import resource

    from gechat.scale.ray_ingest import add_with_ray

    files = []
    for i in range(n_docs):
        f = work / f"doc{i:03d}.txt"
        f.write_text("\n\n".join(texts[i * 10:(i + 1) * 10]) + "\n")
        files.append(f)
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    t = time.perf_counter()
    ws = Workspace(work / "local", settings)
    results = ws.add(files)
    local = time.perf_counter() - t
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    assert all(r.status == "added" for r in results), [r.error for r in results if r.error]
    local_file_s = float(np.mean([r.seconds for r in results]))
    ws.close()
    done_at: list[float] = []
    t = time.perf_counter()
    results = add_with_ray(work / "ray2", settings, files, "local", workers=2,
                           on_done=lambda _: done_at.append(time.perf_counter()))
    ray2 = time.perf_counter() - t
    assert all(r.status == "added" for r in results), [r.error for r in results if r.error]
    first = done_at[0] - t
    steady = (len(done_at) - 1) / (done_at[-1] - done_at[0]) * 60 if len(done_at) > 1 else 0.0
    busy = (cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime) / local
    return {"ingest_docs_per_min_local": round(n_docs / local * 60, 1),
            "ingest_docs_per_min_ray2": round(n_docs / ray2 * 60, 1),
            "ingest_seconds_local": round(local, 1), "ingest_seconds_ray2": round(ray2, 1),
            "ingest_cores_busy_local": round(busy, 2), "ray2_seconds_to_first_file": round(first, 1),
            "ingest_docs_per_min_ray2_after_first": round(steady, 1),
            "ingest_file_seconds_local": round(local_file_s, 2),
            "ingest_file_seconds_ray2": round(float(np.mean([r.seconds for r in results])), 2)}


def postgres_url(work: Path) -> tuple[str, object]:
    url = os.environ.get("GECHAT_BENCH_POSTGRES_URL")
    if url:
        return url, None
    import pgserver

    server = pgserver.get_server(work / "pg", cleanup_mode="stop")
    return server.get_uri(), server


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000", help="store sizes in chunks, ascending")
    ap.add_argument("--ingest-docs", type=int, default=24, help="files for the ingestion rates (0: skip)")
    ap.add_argument("--queries", type=int, default=200)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    base = Settings.load("default")
    texts = paragraphs()
    print(f"{len(texts):,} distinct paragraphs", file=sys.stderr)
    vecs = embedded(texts, base, "paragraphs")
    questions = [json.loads(line)["question"]
                 for line in (DATA / "halueval" / "dataset_halueval_qa.jsonl").read_text().splitlines()]
    queries = embedded(questions[:args.queries], base, "queries")
    flat: dict[str, object] = {}
    lines = ["| store | chunks | p50 ms | p99 ms | recall@10 | search | insert s | disk MB |",
             "|---|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory(dir=".cache") as tmp:
        work = Path(tmp)
        url, server = postgres_url(work)
        engines = {"sqlite": base, "postgres": base.model_copy(update={"store": url, "store_namespace": "scale"})}
        for engine, settings in engines.items():
            store = open_store(settings, work / engine)
            docs, ids, rows, spent = documents(texts, vecs, base.embedder), [], [], 0.0
            for size in sizes:
                spent += fill(store, docs, size, ids, rows)
                m = measure(store, queries, ids, rows, vecs)
                size_mb = disk_mb(store, work / engine)
                tag = f"{size // 1000}k"
                flat.update({f"retrieval_p50_ms_{tag}_{engine}": m["p50_ms"],
                             f"retrieval_p99_ms_{tag}_{engine}": m["p99_ms"],
                             f"ann_recall_at_10_{engine}_{tag}": m["recall_at_10"],
                             f"disk_mb_{tag}_{engine}": size_mb})
                lines.append(f"| {engine} | {len(ids):,} | {m['p50_ms']} | {m['p99_ms']} | {m['recall_at_10']} | "
                             f"{'exact' if m['exact'] else 'ANN'} | {spent:.0f} | {size_mb} |")
                print(lines[-1], file=sys.stderr)
            if engine == "postgres":
                flat["ann_recall_at_10_postgres"] = flat[f"ann_recall_at_10_postgres_{sizes[-1] // 1000}k"]
            store.drop()
        body = ["## Retrieval (top 10 chunks by the question's vector)", "", *lines]
        if args.ingest_docs:
            rates = ingest(engines["postgres"], texts, args.ingest_docs, work)
            flat.update(rates)
            speedup = rates["ingest_docs_per_min_ray2"] / rates["ingest_docs_per_min_local"]
            flat["ray2_speedup"] = round(speedup, 2)
            body += ["", f"## Ingestion into PostgreSQL ({args.ingest_docs} files of 10 paragraphs, fast graph)", "",
                     "| path | docs/min | seconds |", "|---|---|---|",
                     f"| one process | {rates['ingest_docs_per_min_local']} | {rates['ingest_seconds_local']} |",
                     f"| Ray, 2 workers (start included) | {rates['ingest_docs_per_min_ray2']} | "
                     f"{rates['ingest_seconds_ray2']} |", "", f"Speed-up: {speedup:.2f}x.", "",
                     "Where the time goes: one process keeps "
                     f"{rates['ingest_cores_busy_local']} of the cores busy (CPU seconds / wall seconds); "
                     f"each file takes {rates['ingest_file_seconds_local']} s there and "
                     f"{rates['ingest_file_seconds_ray2']} s in a Ray worker (two workers share the cores); "
                     f"Ray's first file is back after {rates['ray2_seconds_to_first_file']} s (start, "
                     "workers, model loads), and after it Ray adds "
                     f"{rates['ingest_docs_per_min_ray2_after_first']} files a minute."]
        if server is not None:
            server.cleanup()  # type: ignore[attr-defined]
    meta = {"models": f"{base.embedder} (vectors)", "corpus": f"{len(texts):,} distinct paragraphs, "
            f"{PER_DOC} per document, copies shuffled", "postgres": "pgvector HNSW (m 16, ef_construction 64, "
            "ef_search 40), exact scan below ann_threshold", "sqlite": f"usearch HNSW above ann_threshold "
            f"({base.ann_threshold:,})"}
    print(f"wrote {write('scale', flat, chr(10).join(body), meta)}")


if __name__ == "__main__":
    main()
