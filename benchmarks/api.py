"""Latency through the REST API as the web page sees it, and 20 clients asking at once.

    python benchmarks/api.py [--pdf PATH] [--questions N] [--clients 20] [--name api]

Starts `gechat serve` (default settings: the packaged 1.5B LLM) on a free loopback port with
an empty LLM cache, uploads the PDF through the API, asks one warm-up question (the models
load; not counted), then asks the latency benchmark's questions one at a time, streamed,
timing the first answer token and the final answer with evidence as a client receives them.
Then 20 clients each ask a different question at the same moment: all must be answered,
with no error. The server answers one question at a time (one local model), so the last
client waits for the 19 before it. Writes benchmarks/results/api.{md,json}.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import median, write
from gechat.settings import Settings
from latency import PDF, QUESTIONS

# Different questions from the timed ones, so no client is answered from the LLM cache.
CROWD = [
    "What is the goal of the Semantic Scholar literature graph?",
    "Which node types does the literature graph contain?",
    "Which edge types connect the nodes of the literature graph?",
    "How are authors disambiguated?",
    "What does the entity linking component link mentions to?",
    "Which model architecture is used for entity extraction?",
    "What are LM embeddings?",
    "How is the training data for entity extraction obtained?",
    "What is ScienceParse used for?",
    "How are paper metadata extracted from PDFs?",
    "What is the role of the knowledge base in the system?",
    "Which fields of study does Semantic Scholar cover?",
    "How is the system deployed in production?",
    "What evaluation metric is used for entity linking?",
    "What are the main challenges of building the literature graph?",
    "How are citations between papers detected?",
    "What is the purpose of the entity linking candidate generation step?",
    "How do the authors measure precision of the extracted entities?",
    "What future work do the authors describe?",
    "Which related systems do the authors compare with?",
]


# The timed questions reworded: typed as on the page (see typed_ask); reworded so that none is
# answered from the LLM cache the plain run filled.
TYPED = [
    "How large is the Semantic Scholar literature graph, in nodes?",
    "Which knowledge bases ground the entity mentions?",
    "What type of graph is the literature graph?",
    "By how many F1 points did LM embeddings improve entity extraction?",
    "How many papers were used to evaluate entity extraction and linking?",
    "What is the F1 score of ScienceParse on paper titles?",
    "How big is the held-out PubMed Central test set?",
    "For how many papers is the metadata released publicly?",
    "Which organisation funds the UMLS metathesaurus?",
    "Why is yield reported rather than recall?",
]
TYPING_CPS = 5.0  # characters per second: 60 words a minute, a fast typist (less time to read ahead)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(work: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "GECHAT_CACHE_DIR": str(work / "llm-cache")}  # empty: every answer is generated
    log = (work / "server.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "gechat.cli", "serve", "--port", str(port), "--root",
                             str(work / "root")], env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(base + "/v1/health", timeout=2).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            time.sleep(0.3)
        if proc.poll() is not None:
            break
    proc.kill()
    raise SystemExit(f"the server did not start; see {work / 'server.log'}")


def ingest(base: str, ws: str, pdf: Path) -> float:
    httpx.post(f"{base}/v1/workspaces", json={"id": ws}, timeout=30).raise_for_status()
    t0 = time.monotonic()
    with pdf.open("rb") as f:
        r = httpx.post(f"{base}/v1/workspaces/{ws}/documents", files=[("files", (pdf.name, f))], timeout=120)
    r.raise_for_status()
    url = base + r.json()["status_url"]
    while (job := httpx.get(url, timeout=30).json())["state"] not in ("done", "failed"):
        time.sleep(0.5)
    if job["state"] != "done" or job["files"][0]["status"] != "added":
        raise SystemExit(f"ingestion failed: {job}")
    return time.monotonic() - t0


def ask(base: str, ws: str, question: str) -> dict[str, Any]:
    """Streams one answer; seconds to the first token and to the final answer, as received."""
    out: dict[str, Any] = {"question": question, "ok": False, "error": None, "first_token_s": None}
    t0 = time.monotonic()
    try:
        with httpx.stream("POST", f"{base}/v1/workspaces/{ws}/ask?stream=true", json={"question": question},
                          timeout=httpx.Timeout(30, read=1200)) as r:
            if r.status_code != 200:
                r.read()
                out["error"] = f"HTTP {r.status_code}: {r.text[:200]}"
                return out
            event = ""
            for line in r.iter_lines():
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    if event == "token" and out["first_token_s"] is None:
                        out["first_token_s"] = time.monotonic() - t0
                    elif event == "answer":
                        answer = json.loads(line[6:])
                        out.update(ok=True, claims=len(answer["claims"]), supported=sum(
                            c["verdict"] == "supported" for c in answer["claims"]), text=answer["text"])
                    elif event == "error":
                        out["error"] = line[6:]
    except httpx.HTTPError as e:
        out["error"] = f"{type(e).__name__}: {e}"
    out["full_s"] = time.monotonic() - t0
    return out


def typed_ask(base: str, ws: str, question: str, cps: float = TYPING_CPS) -> dict[str, Any]:
    """The page's read-ahead, replayed: the question is typed at ``cps`` characters a second,
    and each finished word (from the third on) sends the text so far to /ask/prepare, without
    waiting for the one before (the server lets the newest displace it), as app.js does.
    Enter comes right after the last character; times count from Enter."""
    url = f"{base}/v1/workspaces/{ws}/ask/prepare"
    sent: list[threading.Thread] = []

    def send(q: str) -> None:
        def run() -> None:
            with contextlib.suppress(httpx.HTTPError):  # only a head start
                httpx.post(url, json={"question": q}, timeout=300)

        sent.append(t := threading.Thread(target=run, daemon=True))
        t.start()

    t0 = time.monotonic()
    for i, ch in enumerate(question, 1):
        time.sleep(max(0.0, t0 + i / cps - time.monotonic()))
        if ch in " ,.;:?!" and len(question[:i].split()) >= 3:
            send(question[:i].strip())
    out = ask(base, ws, question)
    out["prepares"] = len(sent)
    return out


def crowd(base: str, ws: str, questions: list[str]) -> tuple[list[dict[str, Any]], float]:
    results: list[dict[str, Any]] = [{} for _ in questions]
    go = threading.Barrier(len(questions))

    def client(i: int) -> None:
        go.wait()  # all send at the same moment
        results[i] = ask(base, ws, questions[i])

    threads = [threading.Thread(target=client, args=(i,)) for i in range(len(questions))]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, time.monotonic() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pdf", type=Path, default=PDF)
    ap.add_argument("--questions", type=int, default=len(QUESTIONS))
    ap.add_argument("--clients", type=int, default=len(CROWD))
    ap.add_argument("--name", default="api", help="results file name (benchmarks/results/NAME.md, .json)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gechat-api-bench-"))
    proc, base = start_server(work)
    try:
        ingest_s = ingest(base, "bench", args.pdf)
        print(f"ingested {args.pdf.name} in {ingest_s:.1f} s", flush=True)
        warm = ask(base, "bench", "What is this paper about?")
        print(f"warm-up: {warm['full_s']:.1f} s", flush=True)
        timed = []
        for q, _ in QUESTIONS[: args.questions]:
            timed.append(r := ask(base, "bench", q))
            print(f"  first token {r['first_token_s'] or float('nan'):.2f} s, answer {r['full_s']:.1f} s: {q}",
                  flush=True)
        typed = []
        for q in TYPED[: args.questions]:
            typed.append(r := typed_ask(base, "bench", q))
            print(f"  typed: first token {r['first_token_s'] or float('nan'):.2f} s, answer {r['full_s']:.1f} s: "
                  f"{q}", flush=True)
        many, wall = crowd(base, "bench", CROWD[: args.clients])
        print(f"{args.clients} clients at once: {sum(r['ok'] for r in many)} answered in {wall:.0f} s", flush=True)
    finally:
        proc.terminate()
        proc.wait(30)
    report(args, timed, typed, many, wall, ingest_s, warm)


def report(args: argparse.Namespace, timed: list[dict[str, Any]], typed: list[dict[str, Any]],
           many: list[dict[str, Any]], wall: float, ingest_s: float, warm: dict[str, Any]) -> None:
    firsts = [r["first_token_s"] for r in timed if r["first_token_s"] is not None]
    fulls = [r["full_s"] for r in timed if r["ok"]]
    typed_firsts = [r["first_token_s"] for r in typed if r["first_token_s"] is not None]
    typed_fulls = [r["full_s"] for r in typed if r["ok"]]
    errors = [r for r in timed + typed + many if not r["ok"]]
    crowd_ok = len(many) > 0 and all(r["ok"] and r["error"] is None for r in many)
    flat: dict[str, object] = {
        "first_token_seconds_median": round(median(firsts), 2) if firsts else None,
        "first_token_seconds_max": round(max(firsts), 2) if firsts else None,
        "full_answer_seconds_median": round(median(fulls), 2) if fulls else None,
        "full_answer_seconds_max": round(max(fulls), 2) if fulls else None,
        "typed_first_token_seconds_median": round(median(typed_firsts), 2) if typed_firsts else None,
        "typed_first_token_seconds_max": round(max(typed_firsts), 2) if typed_firsts else None,
        "typed_full_answer_seconds_median": round(median(typed_fulls), 2) if typed_fulls else None,
        "typing_chars_per_second": TYPING_CPS,
        "sequential_questions": len(timed),
        "sequential_ok": sum(r["ok"] for r in timed),
        "concurrent_clients": len(many),
        "concurrent_clients_answered": sum(r["ok"] for r in many),
        "concurrent_clients_ok": crowd_ok,
        "concurrent_wall_seconds": round(wall, 1),
        "concurrent_last_answer_seconds": round(max(r["full_s"] for r in many), 1) if many else None,
        "ingest_seconds": round(ingest_s, 1),
        "warmup_seconds": round(warm["full_s"], 1),
        "errors": len(errors),
    }
    rows = ["| # | question | first token s | answer + evidence s | claims (supported) |", "|---|---|---|---|---|"]
    for i, r in enumerate(timed, 1):
        ft = f"{r['first_token_s']:.2f}" if r["first_token_s"] is not None else "-"
        rows.append(f"| {i} | {r['question']} | {ft} | {r['full_s']:.1f} | "
                    f"{r.get('claims', '-')} ({r.get('supported', '-')}) |")
    typed_rows = ["| # | question | prepares sent | first token s | answer + evidence s | claims (supported) |",
                  "|---|---|---|---|---|---|"]
    for i, r in enumerate(typed, 1):
        ft = f"{r['first_token_s']:.2f}" if r["first_token_s"] is not None else "-"
        typed_rows.append(f"| {i} | {r['question']} | {r['prepares']} | {ft} | {r['full_s']:.1f} | "
                          f"{r.get('claims', '-')} ({r.get('supported', '-')}) |")
    crowd_rows = ["| client | answered | seconds to answer | error |", "|---|---|---|---|"]
    for i, r in enumerate(sorted(many, key=lambda r: r["full_s"]), 1):
        crowd_rows.append(f"| {i} | {'yes' if r['ok'] else 'no'} | {r['full_s']:.1f} | {r['error'] or ''} |")
    body = "\n".join([
        f"Through `gechat serve` on 127.0.0.1 (HTTP, streamed server-sent events), {args.pdf.name} uploaded "
        f"through the API ({ingest_s:.1f} s), empty LLM cache, models loaded by one warm-up question "
        f"({warm['full_s']:.1f} s, not counted). Seconds are as the client receives them.",
        "", f"Median first answer token: **{flat['first_token_seconds_median']} s**; median full answer with "
        f"evidence: **{flat['full_answer_seconds_median']} s** (asked cold: the question arrives whole).",
        "", *rows, "",
        "## Typed on the page (read-ahead)", "",
        f"The same questions reworded, typed at {TYPING_CPS:g} characters a second with the page's read-ahead "
        "(each finished word from the third on sends the text so far to `/ask/prepare`; the newest displaces "
        "an older one, and the question stops it; Enter right after the last character; seconds from Enter). "
        "Median first token: "
        f"**{flat['typed_first_token_seconds_median']} s**; median full answer: "
        f"**{flat['typed_full_answer_seconds_median']} s**.", "", *typed_rows, "",
        f"## {len(many)} clients asking at once", "",
        f"All answered, no errors: **{crowd_ok}** ({flat['concurrent_clients_answered']} of {len(many)} answered, "
        f"{wall:.0f} s for all). The server runs one question at a time on its one local model, so clients "
        "queue; each stream stays open (keep-alive comments) until its turn.", "", *crowd_rows,
    ])
    settings = Settings.load("default")  # what the server ran with (the same environment)
    meta = {"pdf": args.pdf.name, "llm": settings.llm_model, "embedder": settings.embedder,
            "entailment": settings.entailment, "clients": len(many),
            "settings": settings.model_dump(mode="json", exclude={"models_dir", "cache_dir"})}
    print(write(args.name, flat, body, meta))


if __name__ == "__main__":
    main()
