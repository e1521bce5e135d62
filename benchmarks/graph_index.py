"""Graph indexing cost and yield: gechat's LLM and fast extractors against LightRAG.

    python benchmarks/graph_index.py [--runs llm,fast,lightrag,fast-10k] [--pdf PATH] [--tenk NAME]

One local OpenAI-compatible server (benchmarks/openai_server.py) serves the packaged
Qwen2.5-Coder-1.5B (llama.cpp, 32k context, no cache) and the MiniLM embedder; gechat's
LLM extractor and LightRAG (lightrag-hku, in its own virtualenv: benchmarks/lightrag_venv.py)
both index the same PDF's text through it, one after the other, and the server counts every
call and token. The fast extractor (spaCy, no LLM) indexes the same PDF and a FinanceBench
10-K. Each run's figures are merged into benchmarks/results/graph_index.{md,json} as it
ends, so runs can be made separately (--runs) and a failure loses nothing before it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import RESULTS, command, write
from gechat.documents import load_document
from gechat.graph.fast import load_spacy
from gechat.pipeline import Workspace
from gechat.settings import Settings

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
PDF = DATA / "pdfs" / "N18-3011.pdf"
TENK = "ADOBE_2022_10K"
MODEL = "qwen2.5-coder-1.5b"


def graph_figures(ws: Workspace) -> dict[str, Any]:
    counts = ws.store.graph.counts()
    cost = next(iter(ws.store.graph.cost_by_document().values()), {})
    return {"entities": counts["entities"], "relations": counts["relations"], "chunks": counts["chunks_done"],
            "failed_chunks": counts["chunks_failed"], "stored_llm_calls": cost.get("llm_calls", 0)}


def run_gechat_llm(pdf: Path, work: Path, server: Any, name: str = "gechat-llm") -> dict[str, Any]:
    s = Settings.load("default", llm_backend="openai", llm_base_url=server.url, llm_model=MODEL, llm_cache=False,
                      graph="llm", llm_timeout_s=900)
    ws = Workspace(_fresh(work / name), s)
    ws.embedder.embed(["warm up"])
    server.reset()
    t0 = time.perf_counter()
    (res,) = ws.add([pdf])
    seconds = time.perf_counter() - t0
    st = server.snapshot()
    if res.status != "added" or res.graph is None:
        raise SystemExit(f"gechat could not index {pdf}: {res.error or res.graph_error}")
    return {"seconds": round(seconds, 1), "graph_seconds": round(res.steps.get("graph", 0.0), 1),
            "llm_calls": st.calls, "prompt_tokens": st.prompt_tokens, "completion_tokens": st.completion_tokens,
            "llm_tokens": st.prompt_tokens + st.completion_tokens, "dropped_items": res.graph.dropped,
            "pages": res.document.n_pages if res.document else 0, **graph_figures(ws)}


def run_fast(pdf: Path, work: Path) -> dict[str, Any]:
    ws = Workspace(_fresh(work / f"fast-{pdf.stem}"), Settings.load("default", graph="fast"))
    t = time.perf_counter()
    ws.embedder.embed(["warm up"])
    load_spacy()
    load_s = time.perf_counter() - t
    (res,) = ws.add([pdf])
    if res.status != "added" or res.document is None:
        raise SystemExit(f"could not index {pdf}: {res.error}")
    pages = res.document.n_pages
    return {"seconds": round(res.seconds, 1), "model_load_seconds": round(load_s, 1), "pages": pages,
            "pages_per_second": round(pages / res.seconds, 2),
            "steps": {k: round(v, 1) for k, v in res.steps.items()}, **graph_figures(ws)}


def run_lightrag_peer(pdf: Path, work: Path, server: Any, timeout_s: int, name: str = "lightrag") -> dict[str, Any]:
    from lightrag_venv import LIGHTRAG_VERSION, ensure_lightrag_venv, ensure_tiktoken_cache, lightrag_root, run_lightrag

    root = lightrag_root()
    ensure_lightrag_venv(root)
    ensure_tiktoken_cache(root)
    text = work / f"{pdf.stem}.txt"
    text.write_text(load_document(pdf, max_bytes=1 << 30).text, encoding="utf-8")  # the text gechat indexes too
    server.reset()
    t0 = time.perf_counter()
    out = run_lightrag(text, server.url, MODEL, _fresh(work / name), timeout_s, root=root)
    st = server.snapshot()
    return {"version": out.get("version", LIGHTRAG_VERSION), "seconds": round(time.perf_counter() - t0, 1),
            "insert_seconds": out.get("seconds"), "llm_calls": st.calls, "prompt_tokens": st.prompt_tokens,
            "completion_tokens": st.completion_tokens, "llm_tokens": st.prompt_tokens + st.completion_tokens,
            "entities": out.get("entities"), "relations": out.get("relations"), "chunks": out.get("chunks"),
            "failed_chunks": out.get("failed_chunks"), "truncated_calls": out.get("llm_calls_truncated"),
            "error": out.get("error"), "errors": out.get("errors", [])[:5]}


def excerpt(pdf: Path, pages: int, work: Path) -> Path:
    """The first ``pages`` pages of ``pdf`` as their own PDF (LLM graph runs on a whole 10-K
    take hours on 2 cores; both systems get the same excerpt)."""
    import pymupdf

    out = work / f"{pdf.stem}-p1-{pages}.pdf"
    with pymupdf.open(pdf) as doc:
        doc.select(list(range(min(pages, len(doc)))))
        doc.save(out)
    return out


def _fresh(path: Path) -> Path:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def flatten(runs: dict[str, dict[str, Any]]) -> dict[str, object]:
    flat: dict[str, object] = {}
    g, lr, fast = runs.get("gechat_llm", {}), runs.get("lightrag", {}), runs.get("fast", {})
    if g:
        flat.update({"gechat_llm_tokens": g["llm_tokens"], "gechat_index_seconds": g["seconds"],
                     "gechat_llm_calls": g["llm_calls"], "gechat_entities": g["entities"],
                     "gechat_relations": g["relations"], "gechat_failed_chunks": g["failed_chunks"]})
    if lr:
        flat.update({"lightrag_llm_tokens": lr["llm_tokens"], "lightrag_index_seconds": lr["seconds"],
                     "lightrag_llm_calls": lr["llm_calls"], "lightrag_entities": lr["entities"],
                     "lightrag_relations": lr["relations"], "lightrag_failed_chunks": lr["failed_chunks"]})
    if g and lr and g["llm_tokens"]:
        flat["token_ratio_lightrag_over_gechat"] = round(lr["llm_tokens"] / g["llm_tokens"], 2)
        flat["time_ratio_lightrag_over_gechat"] = round(lr["seconds"] / g["seconds"], 2)
    if fast:
        flat.update({"fast_pages_per_second": fast["pages_per_second"], "fast_index_seconds": fast["seconds"],
                     "fast_entities": fast["entities"], "fast_relations": fast["relations"]})
    g10, lr10 = runs.get("gechat_llm_10k", {}), runs.get("lightrag_10k", {})
    for prefix, r in (("gechat_10k", g10), ("lightrag_10k", lr10)):
        if r:
            flat.update({f"{prefix}_llm_tokens": r["llm_tokens"], f"{prefix}_index_seconds": r["seconds"],
                         f"{prefix}_failed_chunks": r["failed_chunks"], f"{prefix}_entities": r["entities"],
                         f"{prefix}_relations": r["relations"]})
    tenk = runs.get("fast_10k", {})
    if tenk:
        flat.update({"fast_10k_pages": tenk["pages"], "fast_10k_seconds": tenk["seconds"],
                     "fast_10k_pages_per_second": tenk["pages_per_second"],
                     "fast_seconds_per_100_pages": round(100 / tenk["pages_per_second"], 1)})
    return flat


ROWS = [("LLM calls", "llm_calls"), ("prompt tokens", "prompt_tokens"), ("completion tokens", "completion_tokens"),
        ("LLM tokens", "llm_tokens"), ("index seconds", "seconds"), ("chunks", "chunks"),
        ("failed chunks", "failed_chunks"), ("entities", "entities"), ("relations", "relations")]


def table(runs: dict[str, dict[str, Any]], cols: list[tuple[str, str]]) -> list[str]:
    lines = ["| | " + " | ".join(c for c, _ in cols) + " |", "|---|" + "---|" * len(cols)]
    for label, key in ROWS:
        cells = [str(runs.get(k, {}).get(key, "–")) for _, k in cols]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def markdown(runs: dict[str, dict[str, Any]], pdf: Path, tenk: str) -> str:
    cols = [("gechat LLM extractor", "gechat_llm"), ("LightRAG", "lightrag"), ("gechat fast extractor", "fast")]
    lines = [f"## {pdf.name}: the same text, model and server", "", *table(runs, cols)]
    if "gechat_llm_10k" in runs or "lightrag_10k" in runs:
        pages = (runs.get("gechat_llm_10k") or runs.get("lightrag_10k") or {}).get("pdf", "")
        lines += ["", f"## The first pages of {tenk} ({pages}): the same text, model and server", "",
                  *table(runs, [("gechat LLM extractor", "gechat_llm_10k"), ("LightRAG", "lightrag_10k")])]
    t = runs.get("fast_10k")
    if t:
        lines += ["", f"## Fast extractor on a 10-K ({tenk}, {t['pages']} pages)", "",
                  f"{t['seconds']} s in all ({t['pages_per_second']} pages/s; steps {t['steps']}), "
                  f"models loaded beforehand in {t['model_load_seconds']} s; "
                  f"{t['entities']} entities, {t['relations']} relations."]
    lr = runs.get("lightrag", {})
    if lr.get("error") or lr.get("errors"):
        lines += ["", f"LightRAG reported: {lr.get('error') or ''} {lr.get('errors')}"]
    lines += ["", "Runs (each merged in as it ended):", ""]
    lines += [f"- {name}: {r.get('date')}, `{r.get('command')}`" for name, r in runs.items()]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", default="llm,fast,fast-10k,lightrag",
                    help="which runs; the others' figures are kept from earlier runs (in --work/runs.json)")
    ap.add_argument("--pdf", type=Path, default=PDF)
    ap.add_argument("--tenk", default=TENK, help="FinanceBench PDF name for the fast extractor's 10-K run")
    ap.add_argument("--work", type=Path, default=REPO / ".cache" / "graph_index")
    ap.add_argument("--lightrag-timeout", type=int, default=3 * 3600)
    ap.add_argument("--tenk-pages", type=int, default=5,
                    help="pages of the 10-K for the LLM runs llm-10k and lightrag-10k (hours for all of it)")
    args = ap.parse_args()
    runs_wanted = [r.strip() for r in args.runs.split(",") if r.strip()]
    args.work.mkdir(parents=True, exist_ok=True)
    state_path = args.work / "runs.json"
    runs: dict[str, dict[str, Any]] = json.loads(state_path.read_text()) if state_path.exists() else {}

    def report() -> None:
        meta = {"models": f"{MODEL} (Q4_K_M, llama.cpp, 32k context, no LLM cache) behind a local "
                          "OpenAI-compatible server; all-MiniLM-L6-v2 int8 embeddings; spaCy en_core_web_sm",
                "pdf": args.pdf.name, "tenk": args.tenk}
        write("graph_index", flatten(runs), markdown(runs, args.pdf, args.tenk), meta)

    def save(name: str, figures: dict[str, Any]) -> None:
        runs[name] = {**figures, "date": time.strftime("%Y-%m-%d %H:%M"), "command": command()}
        state_path.write_text(json.dumps(runs, indent=1))
        report()
        print(f"{name}: {json.dumps(runs[name])}", flush=True)

    if "fast" in runs_wanted:
        save("fast", run_fast(args.pdf, args.work))
    if "fast-10k" in runs_wanted:
        save("fast_10k", run_fast(DATA / "financebench" / "pdfs" / f"{args.tenk}.pdf", args.work))
    if {"llm", "lightrag", "llm-10k", "lightrag-10k"} & set(runs_wanted):
        from gechat.models import EMBEDDERS, LLMS
        from openai_server import LocalServer

        s = Settings.load("default", llm_cache=False, llm_context=32768)
        with LocalServer(LLMS.create(s.llm_backend, s), EMBEDDERS.create(s.embedder, s), MODEL) as server:
            if "llm" in runs_wanted:
                save("gechat_llm", run_gechat_llm(args.pdf, args.work, server))
            if "lightrag" in runs_wanted:
                save("lightrag", run_lightrag_peer(args.pdf, args.work, server, args.lightrag_timeout))
            part = excerpt(DATA / "financebench" / "pdfs" / f"{args.tenk}.pdf", args.tenk_pages, args.work)
            if "llm-10k" in runs_wanted:
                save("gechat_llm_10k", {**run_gechat_llm(part, args.work, server, "gechat-llm-10k"), "pdf": part.name})
            if "lightrag-10k" in runs_wanted:
                save("lightrag_10k", {**run_lightrag_peer(part, args.work, server, args.lightrag_timeout,
                                                          "lightrag-10k"), "pdf": part.name})
    report()  # --runs "" rewrites the report from the runs kept in --work
    print(f"wrote {RESULTS / 'graph_index.md'}")


if __name__ == "__main__":
    main()
