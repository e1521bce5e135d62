"""LightRAG (PyPI ``lightrag-hku``) as a peer in the graph-indexing benchmark.

Two halves in one file:

* functions our benchmark calls, in our venv: ``ensure_lightrag_venv`` builds a separate
  virtualenv with LightRAG pinned (its dependencies clash with ours, and it must never pull
  torch/CUDA); ``ensure_tiktoken_cache`` writes tiktoken's ``o200k_base`` encoding from the
  npm package ``js-tiktoken`` (tiktoken would download it; no such host is reachable here);
  ``run_lightrag`` runs the second half in that venv and returns its JSON;
* ``__main__``, run by the LightRAG venv's python: index one text file with LightRAG against
  our OpenAI-compatible server (``openai_server.LocalServer``) and write what it built.

It applies the three changes DESIGN.md found LightRAG needs on 2 CPU cores (otherwise it
times out and retries forever): a completion cap of 1024 tokens, an LLM time-out of 900 s,
and a server context of 32k tokens (the caller's ``llm_context=32768``). Everything else is
LightRAG's own default (chunking, gleaning, concurrency, prompts).

Nothing here imports LightRAG at module level: our venv does not have it.
"""

from __future__ import annotations

import argparse
import ast
import base64
import hashlib
import io
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import venv
from pathlib import Path
from typing import Any

LIGHTRAG_VERSION = "1.5.7"
LIGHTRAG_REQUIREMENT = f"lightrag-hku=={LIGHTRAG_VERSION}"
# lightrag-hku 1.5.7's own dependencies pull no torch; should a pin ever change that, the
# local CPU build is installed first (any other torch spec pulls gigabytes of CUDA)
TORCH_REQUIREMENT = "torch==2.13.0"
JS_TIKTOKEN = "js-tiktoken@1.0.21"
ENCODING = "o200k_base"

COMPLETION_CAP = 1024  # max_tokens on every LightRAG LLM call
LLM_TIMEOUT_S = 900  # per LLM request (the server queues requests; waiting counts)
# LightRAG hard-splits any chunk longer than this before extraction; it must stay above
# its own chunk size (1200 tiktoken tokens) so its chunking is left as it is. MiniLM reads
# only the first 256 word pieces of a text in any case.
EMBED_MAX_TOKENS = 8192

_STAMP = ".gechat-lightrag.json"
_FORBIDDEN_PREFIXES = ("torch", "nvidia-", "triton")


def _venv_python(venv_dir: Path) -> Path:
    return venv_dir / "bin" / "python"


def _pip(python: Path, *args: str, capture: bool = False) -> subprocess.CompletedProcess[str]:
    cmd = [str(python), "-m", "pip", "--disable-pip-version-check", *args]
    return subprocess.run(cmd, check=True, text=True, capture_output=capture)


def ensure_lightrag_venv(root: Path) -> Path:
    """The LightRAG virtualenv ``root/venv``, built (or rebuilt) unless its stamp says it is done.

    Returns the venv's python. The stamp is written last, so an interrupted build is redone.
    """
    venv_dir = Path(root) / "venv"
    python = _venv_python(venv_dir)
    stamp = venv_dir / _STAMP
    want = {"requirement": LIGHTRAG_REQUIREMENT, "python": f"{sys.version_info.major}.{sys.version_info.minor}"}
    try:
        if python.exists() and json.loads(stamp.read_text()) == want:
            return python
    except (OSError, ValueError):
        pass
    venv_dir.parent.mkdir(parents=True, exist_ok=True)
    venv.EnvBuilder(with_pip=True, clear=True, symlinks=True).create(venv_dir)

    # resolve first: if anything would bring torch, install the local CPU build first
    with tempfile.TemporaryDirectory() as tmp:
        report_path = Path(tmp) / "report.json"
        _pip(python, "install", "-qq", "--dry-run", "--report", str(report_path), LIGHTRAG_REQUIREMENT)
        report = json.loads(report_path.read_text())
    names = {str(item["metadata"]["name"]).lower() for item in report.get("install", [])}
    if any(n.startswith(_FORBIDDEN_PREFIXES) for n in names):
        _pip(python, "install", "-qq", TORCH_REQUIREMENT)
    _pip(python, "install", "-qq", LIGHTRAG_REQUIREMENT)

    installed = json.loads(_pip(python, "list", "--format=json", capture=True).stdout)
    cuda = sorted(p["name"] for p in installed if p["name"].lower().startswith(("nvidia-", "triton")))
    if cuda:
        raise RuntimeError(f"the LightRAG venv pulled CUDA packages {cuda}; remove {venv_dir} and check the pins")
    stamp.write_text(json.dumps(want))
    return python


# --- tiktoken's o200k_base, offline ------------------------------------------------------


def _site_packages(venv_dir: Path) -> Path:
    found = sorted(venv_dir.glob("lib/python3*/site-packages"))
    if not found:
        raise FileNotFoundError(f"no site-packages under {venv_dir}")
    return found[0]


def tiktoken_source(venv_dir: Path, encoding: str = ENCODING) -> tuple[str, str]:
    """(blob URL, expected sha256) of ``encoding`` as the installed tiktoken loads it.

    Read from ``tiktoken_ext/openai_public.py`` of the LightRAG venv: the cache file is
    named by the sha1 of that URL, and tiktoken checks the file against that hash.
    """
    path = _site_packages(venv_dir) / "tiktoken_ext" / "openai_public.py"
    tree = ast.parse(path.read_text())
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and fn.name == encoding:
            for call in ast.walk(fn):
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Name)
                    and call.func.id == "load_tiktoken_bpe"
                    and call.args
                    and isinstance(call.args[0], ast.Constant)
                ):
                    url = str(call.args[0].value)
                    expected = next(
                        (
                            str(k.value.value)
                            for k in call.keywords
                            if k.arg == "expected_hash" and isinstance(k.value, ast.Constant)
                        ),
                        "",
                    )
                    return url, expected
    raise ValueError(f"{path} has no load_tiktoken_bpe call for {encoding}")


def _js_tiktoken_ranks(root: Path, encoding: str) -> str:
    """The ``dist/ranks/<encoding>.js`` text of the npm package (packed once into ``root/npm``)."""
    npm_dir = root / "npm"
    npm_dir.mkdir(parents=True, exist_ok=True)
    name, version = JS_TIKTOKEN.rsplit("@", 1)
    tgz = npm_dir / f"{name}-{version}.tgz"
    if not tgz.exists():
        subprocess.run(
            ["npm", "pack", JS_TIKTOKEN, "--silent", "--pack-destination", str(npm_dir)],
            check=True,
            capture_output=True,
            text=True,
        )
    with tarfile.open(tgz) as tar:
        member = tar.extractfile(f"package/dist/ranks/{encoding}.js")
        if member is None:
            raise FileNotFoundError(f"{tgz} has no dist/ranks/{encoding}.js")
        return member.read().decode("utf-8")


def tiktoken_blob_from_js(js_text: str) -> bytes:
    """js-tiktoken's compressed ranks as tiktoken's ``.tiktoken`` file (base64 token, rank).

    The JS module is ``export default {"bpe_ranks": "...", ...}``; each line of
    ``bpe_ranks`` is ``prefix offset tok tok ...``: the tokens (already base64) take the
    ranks offset, offset+1, ...
    """
    start, end = js_text.index("{"), js_text.rindex("}")
    data = json.loads(js_text[start : end + 1])
    ranks: dict[str, int] = {}
    for line in str(data["bpe_ranks"]).split("\n"):
        if not line:
            continue
        _, offset, *tokens = line.split(" ")
        for i, token in enumerate(tokens):
            ranks[token] = int(offset) + i
    out = io.StringIO()
    for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        base64.b64decode(token, validate=True)  # fail loudly on a format change
        out.write(f"{token} {rank}\n")
    return out.getvalue().encode("ascii")


def ensure_tiktoken_cache(root: Path) -> Path:
    """A directory for ``TIKTOKEN_CACHE_DIR`` holding ``o200k_base`` under tiktoken's file name.

    Needs ``ensure_lightrag_venv(root)`` first (the URL and hash come from its tiktoken).
    Verifies the sha256 against tiktoken's expected hash, then that the LightRAG venv
    loads the encoding with no network.
    """
    root = Path(root)
    venv_dir = root / "venv"
    cache_dir = root / "tiktoken"
    url, expected = tiktoken_source(venv_dir)
    target = cache_dir / hashlib.sha1(url.encode()).hexdigest()
    ok_stamp = cache_dir / f".{target.name}.verified"
    if target.exists() and ok_stamp.exists():
        return cache_dir
    blob = tiktoken_blob_from_js(_js_tiktoken_ranks(root, ENCODING))
    digest = hashlib.sha256(blob).hexdigest()
    if expected and digest != expected:
        raise RuntimeError(f"{ENCODING} from {JS_TIKTOKEN} has sha256 {digest}, tiktoken expects {expected}")
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    tmp.write_bytes(blob)
    tmp.replace(target)
    # the real check: tiktoken in the LightRAG venv loads it with the network cut off
    probe = (
        "import socket, tiktoken\n"
        "def _no_net(*a, **k): raise OSError('network disabled')\n"
        "socket.socket.connect = _no_net\n"
        "socket.create_connection = _no_net\n"
        f"enc = tiktoken.get_encoding({ENCODING!r})\n"
        "assert enc.decode(enc.encode('hello world')) == 'hello world'\n"
        "print(enc.n_vocab)\n"
    )
    subprocess.run(
        [str(_venv_python(venv_dir)), "-c", probe],
        check=True,
        capture_output=True,
        text=True,
        env=_offline_env(cache_dir),
    )
    ok_stamp.write_text(digest + "\n")
    return cache_dir


# --- running LightRAG ---------------------------------------------------------------------


def _offline_env(tiktoken_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "LLM_", "EMBEDDING_"))}
    env.update(
        {
            "TIKTOKEN_CACHE_DIR": str(tiktoken_dir),
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "NO_PROXY": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1",
        }
    )
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        env.pop(proxy, None)  # our server is on 127.0.0.1; nothing else is to be reached
    return env


def run_lightrag(
    text_file: Path,
    base_url: str,
    model: str,
    workdir: Path,
    timeout_s: int,
    *,
    root: Path | None = None,
) -> dict[str, Any]:
    """Index ``text_file`` with LightRAG (in its venv) against ``base_url``; its result JSON.

    ``workdir`` holds LightRAG's storage (``workdir/rag``, wiped first), its log
    (``lightrag.log``), every LLM call with its completion (``llm_calls.jsonl``) and the
    result (``result.json``). The venv and the tiktoken cache live under ``root``
    (default: ``lightrag_root()``), built on first use. On a time-out or a crash the
    answer is ``{"version", "error", ...}`` instead of the counts.
    """
    root = Path(root) if root is not None else lightrag_root()
    python = ensure_lightrag_venv(root)
    tiktoken_dir = ensure_tiktoken_cache(root)
    workdir = Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    out = workdir / "result.json"
    out.unlink(missing_ok=True)
    cmd = [
        str(python),
        str(Path(__file__).resolve()),
        "--text",
        str(Path(text_file).resolve()),
        "--base-url",
        base_url,
        "--model",
        model,
        "--workdir",
        str(workdir),
        "--out",
        str(out),
    ]
    log = workdir / "lightrag.log"
    with log.open("w") as fh:
        try:
            proc = subprocess.run(
                cmd,
                cwd=workdir,
                env=_offline_env(tiktoken_dir),
                stdout=fh,
                stderr=subprocess.STDOUT,
                timeout=timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return {"version": LIGHTRAG_VERSION, "error": f"timed out after {timeout_s}s", "log": str(log)}
    if not out.exists():
        tail = log.read_text(errors="replace")[-2000:]
        return {"version": LIGHTRAG_VERSION, "error": f"exit status {proc.returncode}", "log_tail": tail}
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def lightrag_root() -> Path:
    """Where the LightRAG venv and caches live: ``$GECHAT_LIGHTRAG_ROOT``, else ``.cache/lightrag``."""
    env = os.environ.get("GECHAT_LIGHTRAG_ROOT")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent / ".cache" / "lightrag"


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
