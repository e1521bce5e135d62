"""Kill-and-restart probe: does an ingestion job survive ``kill -9`` of the server?

    python benchmarks/reliability_jobs.py [--rounds 3] [--mb 3]

Starts the REST API (fake LLM, test preset: no model weights) as a subprocess on a free
127.0.0.1 port, and in each round uploads a big text file and a small one, waits until the
job is running, kills the server with SIGKILL, and starts it again on the same root. A round
is clean when the job then ends resumed and done, or failed with a reason (every second
round removes the uploaded files before the restart, so that is what it must do), and no
uploaded file is left that no document and no job uses. ``kill_restart_probe`` returns how
many of the interrupted jobs ended cleanly out of how many; ``probe`` is the count alone, for
benchmarks/reliability.py.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
SMALL = b"The Eiffel Tower is in Paris. It was completed in 1889.\n\nBerlin is the capital of Germany.\n"


@dataclass
class ProbeResult:
    clean: int
    total: int
    rounds: list[dict[str, Any]] = field(default_factory=list)


def big_text(mb: float, tag: str) -> bytes:
    """Many short paragraphs: parsing and splitting them takes seconds, so the kill lands mid-job.
    ``tag`` makes each round's file new (the same bytes again would be a quick duplicate)."""
    para = b"Alpha beta gamma delta. The river runs past the mill at dawn. Numbers like 42 appear here.\n\n"
    return f"Round {tag}.\n\n".encode() + para * int(mb * 1e6 / len(para))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """The API over fake workspaces in ``root``, as a subprocess on 127.0.0.1."""

    def __init__(self, root: Path, port: int, env: dict[str, str] | None = None) -> None:
        self.root, self.port, self.env = root, port, env or {}
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60.0) -> None:
        env = {**os.environ, **self.env, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        self.proc = subprocess.Popen([sys.executable, "-m", "benchmarks.reliability_jobs", "serve", str(self.root),
                                      str(self.port)], cwd=REPO, env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.url + "/v1/health", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def wait_job(url: str, job_id: str, until: tuple[str, ...], timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    job: dict[str, Any] = {}
    while time.monotonic() < deadline:
        job = httpx.get(f"{url}/v1/jobs/{job_id}", timeout=10).json()
        if job.get("state") in until:
            return job
        time.sleep(0.05)
    raise TimeoutError(f"job {job_id} stayed {job.get('state')!r}")


def orphans(server: Server, ws: str) -> list[str]:
    """Uploaded files that no document of the workspace and no unfinished job uses."""
    docs = httpx.get(f"{server.url}/v1/workspaces/{ws}/documents", timeout=10).json()["documents"]
    jobs = httpx.get(f"{server.url}/v1/workspaces/{ws}/jobs", timeout=10).json()["jobs"]
    used = {d["file_name"] for d in docs}
    used |= {f["name"] for j in jobs if j["state"] in ("queued", "running") for f in j["files"]}
    folder = server.root / ws / "uploads"
    return sorted(p.name for p in folder.iterdir() if p.name not in used) if folder.is_dir() else []


def kill_restart_probe(rounds: int = 3, *, mb: float = 3.0, root: Path | None = None,
                       timeout: float = 180.0) -> ProbeResult:
    """Kills the server mid-job ``rounds`` times; how many interrupted jobs ended cleanly."""
    with tempfile.TemporaryDirectory(prefix="gechat-restart-") as tmp:
        server = Server(Path(root or tmp) / "root", free_port())
        result = ProbeResult(0, rounds)
        server.start()
        try:
            httpx.post(server.url + "/v1/workspaces", json={"id": "probe"}, timeout=10)
            for k in range(rounds):
                lose = k % 2 == 1  # every second round the uploads are gone when it restarts
                big = big_text(mb, f"{k}-{time.time()}")
                files = [("files", (f"big-{k}.txt", big)), ("files", (f"small-{k}.txt", SMALL))]
                r = httpx.post(server.url + "/v1/workspaces/probe/documents", files=files, timeout=60)
                job_id = r.json()["job_id"]
                wait_job(server.url, job_id, ("running",), 60)
                time.sleep(0.3)
                server.kill()
                if lose:
                    for p in (server.root / "probe" / "uploads").glob(f"*-{k}.txt"):
                        p.unlink()
                server.start()
                job = wait_job(server.url, job_id, ("done", "failed", "cancelled"), timeout)
                left = orphans(server, "probe")
                ok = (job["state"] == "failed" and bool(job["error"])) if lose else (
                    job["state"] == "done" and job["resumed"] >= 1
                    and all(f["status"] in ("added", "duplicate") for f in job["files"]))
                clean = ok and not left
                result.clean += clean
                result.rounds.append({"round": k, "files_lost": lose, "state": job["state"],
                                      "resumed": job["resumed"], "error": job["error"], "orphans": left,
                                      "clean": clean})
        finally:
            server.stop()
        return result


def probe(rounds: int = 4) -> int:
    """For benchmarks/reliability.py: interrupted jobs that were resumed or failed cleanly
    (out of ``rounds``; kill_restart_probe has the whole result)."""
    return kill_restart_probe(rounds).clean


def serve(root: Path, port: int) -> None:
    import uvicorn

    from gechat.api import create_app
    from gechat.models.llm.cache import CachedLLM
    from gechat.models.llm.fake import FakeLLM
    from gechat.pipeline import Workspace
    from gechat.settings import Settings
    from gechat.types import Usage

    def fake_workspace(path: Path, settings: Settings) -> Workspace:
        return Workspace(path, settings, llm=CachedLLM(FakeLLM(lambda messages: "Answer: -"), None, Usage()))

    settings = Settings.load("test", cache_dir=root.parent / "cache", chunk_tokens=20, ingest_budget_s=0)
    uvicorn.run(create_app(root, settings, workspace_factory=fake_workspace), host="127.0.0.1", port=port,
                log_level="warning")


def main() -> None:
    if sys.argv[1:2] == ["serve"]:
        serve(Path(sys.argv[2]), int(sys.argv[3]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--mb", type=float, default=3.0, help="size of the big upload")
    args = ap.parse_args()
    res = kill_restart_probe(args.rounds, mb=args.mb)
    for r in res.rounds:
        print(r)
    print(f"{res.clean}/{res.total} interrupted jobs resumed or failed cleanly")


if __name__ == "__main__":
    main()
