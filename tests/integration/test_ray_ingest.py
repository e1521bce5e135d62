"""gechat add --ray: files as Ray tasks on a local Ray instance with 2 worker processes,
writing to a real PostgreSQL; a worker killed inside a document's transaction is retried and
the file is stored once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gechat.settings import Settings
from gechat.store.registry import open_store

pytest.importorskip("ray")
pytestmark = pytest.mark.slow

TEXTS = [
    "The Eiffel Tower is in Paris. It was completed in 1889.\n",
    "Berlin is the capital of Germany. The Brandenburg Gate stands in Berlin.\n",
    "Rome is the capital of Italy. The Colosseum stands in Rome.\n",
    "Madrid is the capital of Spain. The Prado museum is in Madrid.\n",
]


def test_ray_adds_each_file_once_when_a_worker_dies_mid_file(postgres_url: str, tmp_path: Path) -> None:
    files = []
    for i, text in enumerate(TEXTS):
        f = tmp_path / f"doc{i}.txt"
        f.write_text(text)
        files.append(str(f))
    bad = tmp_path / "table.xyz"
    bad.write_text("not a document")
    marker = tmp_path / "killed-once"
    env = {**os.environ, "GECHAT_LLM_BACKEND": "fake", "GECHAT_EMBEDDER": "hashing", "GECHAT_ENTAILMENT": "fake",
           "GECHAT_LLM_CACHE": "false", "GECHAT_GRAPH": "fast", "GECHAT_STORE": postgres_url,
           "GECHAT_STORE_NAMESPACE": "ray", "GECHAT_TEST_KILL_AT": "vectors",
           "GECHAT_TEST_KILL_ONCE": str(marker), "RAY_DEDUP_LOGS": "0"}
    p = subprocess.run([sys.executable, "-m", "gechat.cli", "add", *files, str(bad), "-w", str(tmp_path / "ws"),
                        "--ray", "local", "--ray-workers", "2", "--preset", "test"],
                       capture_output=True, text=True, env=env, timeout=600)
    assert marker.exists(), p.stderr[-2000:]  # a worker was killed inside a document's transaction
    assert p.returncode == 1, p.stderr[-2000:]  # the bad file, reported
    assert p.stdout.count("added ") == 4, p.stdout + p.stderr[-3000:]
    assert "table.xyz" in p.stderr and "Traceback" not in p.stderr
    settings = Settings.load("test", store=postgres_url, store_namespace="ray")
    store = open_store(settings, tmp_path / "ws")
    try:
        docs = store.documents()
        assert len(docs) == 4 and len({d.sha256 for d in docs}) == 4
        assert store.problems() == []
        assert store.graph.counts()["chunks_done"] == sum(d.n_chunks for d in docs)
    finally:
        store.drop()


def test_ray_with_a_cluster_address_refuses_a_sqlite_store(tmp_path: Path) -> None:
    from gechat.errors import ConfigError
    from gechat.scale.ray_ingest import check_store

    with pytest.raises(ConfigError, match="cannot write this machine's SQLite file"):
        check_store(Settings.load("test", store="sqlite"), "ray://head:10001")
