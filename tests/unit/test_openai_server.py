"""The benchmark's local OpenAI-compatible server (what LightRAG and gechat share in
graph_index.py), driven by gechat's own OpenAI-compatible client, with the fakes."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx

from gechat.graph.llm_extract import SCHEMA
from gechat.models.embed import HashingEmbedder
from gechat.models.llm.fake import FakeLLM
from gechat.models.llm.openai_compat import OpenAICompatLLM

# the benchmark scripts import each other by module name, as they do when run
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from openai_server import LocalServer


def test_complete_stream_schema_embeddings_and_counts() -> None:
    with LocalServer(FakeLLM(), HashingEmbedder(), "m") as server:
        client = OpenAICompatLLM("m", base_url=server.url, api_key_env="")
        done = client.complete([{"role": "user", "content": "Excerpts:\n[1] (a, page 1)\nParis is big.\n"}],
                               max_tokens=50, json_schema=SCHEMA)
        assert done.text.startswith("{") and "entities" in done.text
        streamed = "".join(client.stream([{"role": "user", "content": "hello"}], max_tokens=20))
        assert streamed
        r = httpx.post(f"{server.url}/embeddings", json={"model": "m", "input": ["a b", "c"]})
        assert r.status_code == 200 and len(r.json()["data"]) == 2
        bad = httpx.post(f"{server.url}/chat/completions", json={"model": "m"})
        assert bad.status_code == 400 and "error" in bad.json()
        st = server.snapshot()
        assert st.calls == 2 and st.prompt_tokens > 0 and st.completion_tokens > 0
        assert st.embed_calls == 1 and st.embed_inputs == 2
