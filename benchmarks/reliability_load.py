"""A bounded load test: concurrent clients asking, uploading, listing and deleting at once against
``gechat serve --preset test`` (fake models) on 127.0.0.1.

Every answer must be one the API documents for that operation (an ask in a workspace being
deleted: 404 or 409, never a 5xx); a dropped connection or a timeout is an error too. After
the run, no workspace whose last word was a DELETE 200 may be listed or on disk, and the
server's log may hold no traceback.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import numpy as np
from tests.conftest import free_port

WORKSPACES = ("w0", "w1", "w2", "w3", "w4")
QUESTION = "When was the Eiffel Tower completed?"
TEXT = ("The Eiffel Tower is in Paris. It was completed in 1889 for the World's Fair.\n\n"
        "The tower is 330 metres tall. Gustave Eiffel's company designed and built it.\n")
# the answers each operation may give under load; anything else is an error
EXPECTED: dict[str, set[int]] = {
    "ask": {200, 404, 409}, "ask_stream": {200, 404, 409}, "upload": {202, 404, 409},
    "list": {200, 404, 409}, "delete": {200, 404, 409}, "create": {201, 409},
}
MIX = (("ask", 40), ("ask_stream", 15), ("upload", 20), ("list", 12), ("delete", 7), ("create", 6))


@dataclass
class LoadResult:
    clients: int
    ops: int = 0
    errors: list[str] = field(default_factory=list)
    latency_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, dict[int, int]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(int)))
    reappeared: list[str] = field(default_factory=list)
    server_tracebacks: int = 0
    seconds: float = 0.0

    def percentiles(self, op: str) -> tuple[float, float, float]:
        xs = np.array(self.latency_ms.get(op) or [0.0])
        return float(np.percentile(xs, 50)), float(np.percentile(xs, 90)), float(np.percentile(xs, 99))


def _start(root: Path, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "GECHAT_LLM_CACHE": "false"}
    with log.open("wb") as out:
        server = subprocess.Popen([sys.executable, "-m", "gechat.cli", "serve", "--preset", "test", "--root",
                                   str(root), "--host", "127.0.0.1", "--port", str(port)],
                                  stdout=out, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{base}/v1/health", timeout=1).status_code == 200:
                return server, base
        except httpx.TransportError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the server did not start; see {log}")
        time.sleep(0.2)


def _one(c: httpx.Client, op: str, ws: str, tag: str) -> httpx.Response:
    if op == "ask":
        return c.post(f"/v1/workspaces/{ws}/ask", json={"question": QUESTION})
    if op == "ask_stream":
        r = c.post(f"/v1/workspaces/{ws}/ask?stream=true", json={"question": QUESTION})
        if r.status_code == 200 and "event: answer" not in r.text:
            raise RuntimeError("a stream ended without its answer: " + r.text[-200:])
        return r
    if op == "upload":
        return c.post(f"/v1/workspaces/{ws}/documents",
                      files=[("files", (f"{tag}.txt", f"{TEXT}\nNote {tag} is about Paris.\n".encode()))])
    if op == "list":
        return c.get(f"/v1/workspaces/{ws}/documents")
    if op == "delete":
        return c.delete(f"/v1/workspaces/{ws}")
    return c.post("/v1/workspaces", json={"id": ws})


def run(work: Path, clients: int = 50, ops_per_client: int = 12, seed: int = 0) -> LoadResult:
    root, log = work / "root", work / "server.log"
    work.mkdir(parents=True, exist_ok=True)
    server, base = _start(root, log)
    res = LoadResult(clients)
    events: list[tuple[float, str, str]] = []  # (when answered, workspace, created|deleted)
    lock = threading.Lock()
    try:
        with httpx.Client(base_url=base, timeout=120) as c:
            for ws in WORKSPACES:
                c.post("/v1/workspaces", json={"id": ws})
                c.post(f"/v1/workspaces/{ws}/documents", files=[("files", ("tower.txt", TEXT.encode()))])
            time.sleep(2)  # the first documents: most asks then have something to answer from

        def client(i: int) -> None:
            rng = random.Random(seed * 1000 + i)
            ops, weights = zip(*MIX, strict=True)
            with httpx.Client(base_url=base, timeout=120) as c:
                for n in range(ops_per_client):
                    op, ws = rng.choices(ops, weights)[0], rng.choice(WORKSPACES)
                    t0 = time.perf_counter()
                    try:
                        r = _one(c, op, ws, f"c{i}-{n}")
                        code: int | str = r.status_code
                    except (httpx.HTTPError, RuntimeError) as e:  # dropped, timed out, cut short
                        code = f"{type(e).__name__}: {e}"[:160]
                    ms = (time.perf_counter() - t0) * 1000
                    with lock:
                        res.ops += 1
                        res.latency_ms[op].append(ms)
                        if isinstance(code, int):
                            res.statuses[op][code] += 1
                        if not isinstance(code, int) or code not in EXPECTED[op]:
                            res.errors.append(f"{op} {ws}: {code}")
                        elif (op, code) in (("delete", 200), ("create", 201)):
                            events.append((time.monotonic(), ws, "deleted" if op == "delete" else "created"))

        threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        res.seconds = time.perf_counter() - t0
        last: dict[str, str] = {}
        for _, ws, what in sorted(events):
            last[ws] = what
        with httpx.Client(base_url=base, timeout=60) as c:
            listed = set(c.get("/v1/workspaces").json()["workspaces"])
        for ws, what in last.items():
            if what == "deleted" and (ws in listed or (root / ws).exists()):
                res.reappeared.append(ws)
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    text = log.read_text(errors="replace")
    res.server_tracebacks = text.count("Traceback")
    return res
