"""LightRAG (PyPI ``lightrag-hku``) as a peer in the graph-indexing benchmark: the side that
runs in LightRAG's own venv (``lightrag_venv.run_lightrag`` starts it there).

``python lightrag_peer.py --text FILE --base-url URL --model M --workdir DIR --out JSON``
indexes one text file with LightRAG against our OpenAI-compatible server
(``openai_server.LocalServer``) and writes what it built.

It applies the three changes DESIGN.md found LightRAG needs on 2 CPU cores (otherwise it
times out and retries forever): a completion cap of 1024 tokens, an LLM time-out of 900 s,
and a server context of 32k tokens (the caller's ``llm_context=32768``). Everything else is
LightRAG's own default (chunking, gleaning, concurrency, prompts).
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import shutil
import sys
from pathlib import Path
from typing import Any

COMPLETION_CAP = 1024  # max_tokens on every LightRAG LLM call
LLM_TIMEOUT_S = 900  # per LLM request (the server queues requests; waiting counts)
# LightRAG hard-splits any chunk longer than this before extraction; it must stay above
# its own chunk size (1200 tiktoken tokens) so its chunking is left as it is. MiniLM reads
# only the first 256 word pieces of a text in any case.
EMBED_MAX_TOKENS = 8192


# --- __main__: runs in the LightRAG venv ----------------------------------------------------

_CHUNK_DONE = re.compile(r"Chunk (\d+) of (\d+) extracted (\d+) Ent \+ (\d+) Rel (\S+)")


class _Records(logging.Handler):
    """Keeps LightRAG's log records (INFO and up) for counting chunks and errors."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


_BLOCKED: list[str] = []


def _loopback_only() -> None:
    """Refuse every connection that leaves this machine (LightRAG must run offline).

    Attempts are refused with ``OSError`` and listed under ``errors`` in the result.
    """
    import socket

    original = socket.socket.connect
    original_ex = socket.socket.connect_ex

    def allowed(sock: socket.socket, address: Any) -> bool:
        if sock.family not in (socket.AF_INET, socket.AF_INET6):
            return True
        host = str(address[0]) if isinstance(address, tuple) and address else ""
        return host in ("localhost", "::1") or host.startswith("127.")

    def connect(sock: socket.socket, address: Any) -> None:
        if not allowed(sock, address):
            _BLOCKED.append(str(address))
            raise OSError(f"network disabled for the LightRAG peer: {address}")
        original(sock, address)

    def connect_ex(sock: socket.socket, address: Any) -> int:
        if not allowed(sock, address):
            _BLOCKED.append(str(address))
            raise OSError(f"network disabled for the LightRAG peer: {address}")
        return original_ex(sock, address)

    socket.socket.connect = connect  # type: ignore[method-assign,assignment]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign,assignment]


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


async def _index(args: argparse.Namespace) -> dict[str, Any]:
    import time

    import httpx
    import lightrag
    import numpy as np
    from lightrag import LightRAG
    from lightrag.utils import EmbeddingFunc, TruncatedResponse

    workdir = Path(args.workdir).resolve()
    storage = workdir / "rag"
    if storage.exists():
        shutil.rmtree(storage)  # a fresh index: no LLM cache from an earlier run
    storage.mkdir(parents=True)
    calls_path = workdir / "llm_calls.jsonl"
    calls_path.unlink(missing_ok=True)

    handler = _Records()
    logging.getLogger("lightrag").addHandler(handler)

    base = args.base_url.rstrip("/")
    client = httpx.AsyncClient(timeout=httpx.Timeout(LLM_TIMEOUT_S, connect=10.0))
    calls: list[dict[str, Any]] = []

    async def llm_func(
        prompt: str,
        system_prompt: str | None = None,
        history_messages: list[dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> str:
        messages: list[dict[str, Any]] = []
        if system_prompt:
            messages.append({"role": "system", "content": system_prompt})
        messages.extend(history_messages or [])
        messages.append({"role": "user", "content": prompt})
        asked = kwargs.get("max_tokens")
        payload: dict[str, Any] = {
            "model": args.model,
            "messages": messages,
            "max_tokens": min(int(asked), COMPLETION_CAP) if asked else COMPLETION_CAP,
            "temperature": float(kwargs.get("temperature", 0.0)),
            "seed": 0,
        }
        if isinstance(kwargs.get("response_format"), dict):
            payload["response_format"] = kwargs["response_format"]
        t0 = time.perf_counter()
        record: dict[str, Any] = {"n": len(calls) + 1, "prompt_chars": sum(len(str(m["content"])) for m in messages)}
        calls.append(record)
        try:
            r = await client.post(f"{base}/chat/completions", json=payload)
            if r.status_code != 200:
                raise RuntimeError(f"LLM server answered HTTP {r.status_code}: {r.text[:300]}")
            data = r.json()
            choice = data["choices"][0]
            text = str(choice["message"].get("content") or "")
            record.update(finish_reason=choice.get("finish_reason"), usage=data.get("usage"), text=text)
        except Exception as e:
            record["error"] = f"{type(e).__name__}: {e}"
            raise
        finally:
            record["seconds"] = round(time.perf_counter() - t0, 3)
            with calls_path.open("a") as fh:
                fh.write(json.dumps(record) + "\n")
        # as LightRAG's own OpenAI binding does: a cut-off answer is marked (never cached)
        return TruncatedResponse(text) if choice.get("finish_reason") == "length" else text

    async def embed_func(texts: list[str], **_: Any) -> Any:
        r = await client.post(f"{base}/embeddings", json={"model": args.model, "input": list(texts)})
        if r.status_code != 200:
            raise RuntimeError(f"embedding server answered HTTP {r.status_code}: {r.text[:300]}")
        rows = sorted(r.json()["data"], key=lambda d: d["index"])
        return np.array([d["embedding"] for d in rows], dtype=np.float32)

    embed_dim = args.embed_dim or len((await embed_func(["dimension probe"]))[0])
    rag = LightRAG(
        working_dir=str(storage),
        llm_model_func=llm_func,
        llm_model_name=args.model,
        default_llm_timeout=LLM_TIMEOUT_S,
        embedding_func=EmbeddingFunc(
            embedding_dim=embed_dim,
            max_token_size=EMBED_MAX_TOKENS,
            func=embed_func,
        ),
    )
    errors: list[str] = []
    text = Path(args.text).read_text(encoding="utf-8", errors="replace")
    await rag.initialize_storages()
    t0 = time.perf_counter()
    try:
        await rag.ainsert(text, file_paths=Path(args.text).name)
    except Exception as e:  # recorded, then the storage is still counted
        errors.append(f"ainsert: {type(e).__name__}: {e}")
    seconds = time.perf_counter() - t0
    try:
        await rag.finalize_storages()
    except Exception as e:
        errors.append(f"finalize_storages: {type(e).__name__}: {e}")
    await client.aclose()
    logging.getLogger("lightrag").removeHandler(handler)

    # what LightRAG itself said per chunk ("Chunk i of n extracted E Ent + R Rel chunk-id")
    per_chunk: dict[str, tuple[int, int]] = {}
    announced_total = 0
    for rec in handler.records:
        msg = rec.getMessage()
        m = _CHUNK_DONE.search(msg)
        if m:
            announced_total = max(announced_total, int(m.group(2)))
            per_chunk[m.group(5)] = (int(m.group(3)), int(m.group(4)))
        elif rec.levelno >= logging.ERROR and not msg.startswith("Traceback"):
            errors.append(msg[:500])

    # what it stored
    docs = _read_json(storage / "kv_store_doc_status.json")
    chunk_store = _read_json(storage / "kv_store_text_chunks.json")
    chunk_ids: set[str] = set(chunk_store)
    for doc in docs.values():
        if isinstance(doc, dict):
            chunk_ids.update(doc.get("chunks_list") or [])
            if doc.get("status") == "failed":
                errors.append(f"document failed: {str(doc.get('error_msg'))[:500]}")
    chunks = max(len(chunk_ids), announced_total, len(per_chunk))
    # a chunk failed when its extraction (initial + gleaning, parsed by LightRAG) gave no
    # entity or relation, or when it never finished (an error stopped it)
    failed_ids = sorted(cid for cid, (e, r) in per_chunk.items() if e + r == 0)
    unfinished = chunks - len(per_chunk)
    entities = relations = 0
    graph_file = storage / "graph_chunk_entity_relation.graphml"
    if graph_file.exists():
        import networkx as nx

        graph = nx.read_graphml(graph_file)
        entities, relations = graph.number_of_nodes(), graph.number_of_edges()
    errors.extend(f"blocked a network connection to {a}" for a in _BLOCKED)
    return {
        "version": lightrag.__version__,
        "seconds": round(seconds, 2),
        "llm_calls": len(calls),
        "llm_calls_truncated": sum(1 for c in calls if c.get("finish_reason") == "length"),
        "chunks": chunks,
        "failed_chunks": len(failed_ids) + unfinished,
        "failed_chunk_ids": failed_ids,
        "entities": entities,
        "relations": relations,
        "per_chunk": {cid: {"entities": e, "relations": r} for cid, (e, r) in per_chunk.items()},
        "errors": errors,
        "llm_calls_file": str(calls_path),
        "settings": {
            "completion_cap": COMPLETION_CAP,
            "llm_timeout_s": LLM_TIMEOUT_S,
            "llm_max_async": rag.llm_model_max_async,
            "chunk_token_size": rag.chunk_token_size,
            "max_gleaning": rag.entity_extract_max_gleaning,
            "embedding_dim": embed_dim,
        },
    }


def main(argv: list[str] | None = None) -> int:
    import asyncio

    parser = argparse.ArgumentParser(description="Index one text file with LightRAG against a local OpenAI server.")
    parser.add_argument("--text", required=True, type=Path)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--workdir", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--embed-dim", type=int, default=0, help="0: ask the server (one probe embedding)")
    args = parser.parse_args(argv)
    # run as a script, this file's folder heads sys.path: keep our benchmark modules from
    # shadowing anything LightRAG or its dependencies import
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    _loopback_only()
    result = asyncio.run(_index(args))
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "per_chunk"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
