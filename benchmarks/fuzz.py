"""Fuzzing the document loaders: does any input escape as a crash, a hang or a memory blow-up?

    python benchmarks/fuzz.py [--n 10000] [--seed 0] [--workers 2] [--timeout 30] [--state FILE]

Inputs of every kind (pdf, docx, html, md, txt), input ``i`` made from ``(seed, i)`` alone:
small real files made here (and the small public PDFs in ../shared/data/pdfs when present),
mutated (bytes flipped, truncated, spliced, a slice repeated; a .docx's XML part rewritten
damaged, its compressed data corrupted, an entity bomb, an external entity, XML nested
10,000 deep; HTML nested 80,000 deep; glyph soup in a PDF; binary files and random bytes
under a document's name). Each input goes through what adding a file does before embedding
(``load_document``, ``split_sentences``, ``chunk_sentences``, default limits, no time budget)
in a worker subprocess; a worker that runs past ``--timeout`` or dies is replaced, and its
input counted. The only allowed outcomes are a document or a ``LoadError``.

Keys: ``fuzz_inputs``, ``fuzz_uncaught`` (any other exception, a crash or a timeout),
``fuzz_over_5s`` (inputs that took more than 5 s of CPU; ``fuzz_over_5s_wall``: of wall-clock
time, which a busy machine inflates), ``fuzz_peak_mb`` (the largest resident
memory of a worker while reading one input: its peak is reset before each). Targets: 0, 0,
under 1024. Results are appended to ``--state`` as they come, so a run that is stopped goes
on where it was. Writes benchmarks/results/fuzz.{md,json}. ``run_fuzz(n, seed)`` is the same
run for other code.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import time
from collections import Counter
from multiprocessing import get_context
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_inputs import Inputs

SLOW_S = 5.0


# --- workers ----------------------------------------------------------------------------------

def _peak_reset() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM, the peak resident size
        return True
    except OSError:
        return False


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _worker(conn: Connection) -> None:
    import resource

    import pymupdf

    from gechat.documents import chunk_sentences, load_document, split_sentences
    from gechat.errors import LoadError

    pymupdf.TOOLS.mupdf_display_errors(False)  # thousands of damaged files: their messages are noise here
    pymupdf.TOOLS.mupdf_display_warnings(False)

    # A runaway input fails here with MemoryError instead of taking the machine's memory.
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    folder = Path(tempfile.mkdtemp(prefix="gechat-fuzz-"))
    while True:
        task = conn.recv()
        if task is None:
            return
        i, suffix, data = task
        path = folder / f"input{suffix}"
        path.write_bytes(data)
        _peak_reset()
        t, cpu = time.perf_counter(), time.process_time()
        try:
            doc = load_document(path)
            chunk_sentences(split_sentences(doc), doc.text)
            outcome, detail = "loaded", ""
        except LoadError as e:
            outcome, detail = "refused", str(e)[:160]
        except Exception as e:  # what the fuzzing is for: anything else is a bug
            outcome, detail = "uncaught", f"{type(e).__name__}: {str(e)[:160]}"
        conn.send((i, outcome, detail, time.perf_counter() - t, time.process_time() - cpu, _peak_mb()))
        path.unlink(missing_ok=True)


class Pool:
    def __init__(self, workers: int) -> None:
        self.ctx = get_context("spawn")
        self.slots: list[tuple[Any, Connection] | None] = [None] * workers

    def start(self, k: int) -> tuple[Any, Connection]:
        parent, child = self.ctx.Pipe()
        proc = self.ctx.Process(target=_worker, args=(child,), daemon=True)
        proc.start()
        child.close()
        self.slots[k] = (proc, parent)
        return proc, parent

    def stop(self, k: int) -> None:
        slot = self.slots[k]
        if slot is not None:
            slot[0].kill()
            slot[0].join()
            self.slots[k] = None


def _run(n: int, seed: int, workers: int, timeout_s: float, state: Path | None) -> list[dict[str, Any]]:
    done: dict[int, dict[str, Any]] = {}
    if state is not None and state.exists():
        for line in state.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                done[rec["i"]] = rec
    todo = [i for i in range(n) if i not in done]
    inputs = Inputs()
    pool = Pool(workers)
    busy: dict[int, tuple[int, str, str, float]] = {}  # slot -> (input, suffix, how, sent at)
    out = state.open("a") if state is not None else None
    started, total = time.time(), len(todo)

    def record(rec: dict[str, Any]) -> None:
        done[rec["i"]] = rec
        if out is not None:
            out.write(json.dumps(rec) + "\n")
            out.flush()
        if len(done) % 500 == 0:
            print(f"{len(done)}/{n} inputs, {time.time() - started:.0f} s", file=sys.stderr, flush=True)

    try:
        while todo or busy:
            for k in range(workers):
                if k not in busy and todo:
                    i = todo.pop(0)
                    suffix, data, how = inputs.make(seed, i)
                    slot = pool.slots[k] or pool.start(k)
                    slot[1].send((i, suffix, data))
                    busy[k] = (i, suffix, how, time.perf_counter())
            conns = {pool.slots[k][1]: k for k in busy if pool.slots[k] is not None}  # type: ignore[index]
            for conn in wait(list(conns), timeout=1.0):
                k = conns[conn]  # type: ignore[index]
                i, suffix, how, _ = busy.pop(k)
                try:
                    _, outcome, detail, seconds, cpu, peak = conn.recv()  # type: ignore[union-attr]
                except (EOFError, OSError):  # the worker died: a crash in C code, or killed for memory
                    code = pool.slots[k][0].exitcode  # type: ignore[index]
                    pool.stop(k)
                    outcome, detail, seconds, cpu, peak = "crash", f"worker exit code {code}", 0.0, 0.0, 0.0
                record({"i": i, "kind": suffix, "how": how, "outcome": outcome, "detail": detail,
                        "seconds": round(seconds, 4), "cpu_s": round(cpu, 4), "peak_mb": round(peak, 1)})
            for k, (i, suffix, how, sent) in list(busy.items()):
                if time.perf_counter() - sent > timeout_s:
                    pool.stop(k)
                    busy.pop(k)
                    record({"i": i, "kind": suffix, "how": how, "outcome": "timeout",
                            "detail": f"over {timeout_s:g} s", "seconds": timeout_s, "cpu_s": timeout_s,
                            "peak_mb": 0.0})
    finally:
        for k in range(workers):
            slot = pool.slots[k]
            if slot is not None:
                with contextlib.suppress(OSError):
                    slot[1].send(None)
                pool.stop(k)
        if out is not None:
            out.close()
    print(f"{total} inputs run in {time.time() - started:.0f} s", file=sys.stderr)
    return [done[i] for i in range(n)]


def summarize(records: list[dict[str, Any]]) -> dict[str, float]:
    bad = [r for r in records if r["outcome"] in ("uncaught", "crash", "timeout")]
    return {"fuzz_inputs": float(len(records)), "fuzz_uncaught": float(len(bad)),
            "fuzz_over_5s": float(sum(r["cpu_s"] > SLOW_S for r in records)),
            "fuzz_over_5s_wall": float(sum(r["seconds"] > SLOW_S for r in records)),
            "fuzz_peak_mb": max((r["peak_mb"] for r in records), default=0.0),
            "fuzz_loaded": float(sum(r["outcome"] == "loaded" for r in records)),
            "fuzz_refused": float(sum(r["outcome"] == "refused" for r in records)),
            "fuzz_max_seconds": max((r["seconds"] for r in records), default=0.0),
            "fuzz_max_cpu_seconds": max((r["cpu_s"] for r in records), default=0.0)}


def run_fuzz(n: int = 10_000, seed: int = 0, workers: int = 2, timeout_s: float = 30.0,
             state: Path | None = None) -> dict[str, float]:
    """Runs ``n`` inputs made from ``seed``; the flat figures of ``summarize``."""
    return summarize(_run(n, seed, workers, timeout_s, state))


def report(records: list[dict[str, Any]], flat: dict[str, float], args: argparse.Namespace) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import write

    by_kind: dict[str, Counter[str]] = {}
    slowest: dict[str, float] = {}  # CPU seconds
    peak: dict[str, float] = {}
    for r in records:
        by_kind.setdefault(r["kind"], Counter())[r["outcome"]] += 1
        slowest[r["kind"]] = max(slowest.get(r["kind"], 0.0), r["cpu_s"])
        peak[r["kind"]] = max(peak.get(r["kind"], 0.0), r["peak_mb"])
    bad = Counter(r["detail"].partition(":")[0] if r["outcome"] == "uncaught" else r["outcome"]
                  for r in records if r["outcome"] in ("uncaught", "crash", "timeout"))
    top = sorted(records, key=lambda r: -r["cpu_s"])[:5]
    body = (f"- inputs: **{flat['fuzz_inputs']:.0f}**; uncaught exceptions, crashes and timeouts: "
            f"**{flat['fuzz_uncaught']:.0f}** (target 0); over 5 s of CPU: **{flat['fuzz_over_5s']:.0f}** (target 0; "
            f"over 5 s of wall-clock time, on a machine shared with other work: {flat['fuzz_over_5s_wall']:.0f}); "
            f"peak memory of a worker reading one input: **{flat['fuzz_peak_mb']:.0f} MB** (target under 1024)\n"
            f"- loaded {flat['fuzz_loaded']:.0f}, refused with a LoadError {flat['fuzz_refused']:.0f}; "
            f"slowest input {flat['fuzz_max_cpu_seconds']:.2f} s of CPU ({flat['fuzz_max_seconds']:.2f} s wall-clock)\n"
            f"- uncaught, by type: {dict(bad) or 'none'}\n\n"
            "| kind | loaded | refused | uncaught / crash / timeout | slowest CPU s | peak MB |\n"
            "|---|---|---|---|---|---|\n")
    for kind in sorted(by_kind):
        c = by_kind[kind]
        body += (f"| {kind} | {c['loaded']} | {c['refused']} | {c['uncaught'] + c['crash'] + c['timeout']} | "
                 f"{slowest[kind]:.2f} | {peak[kind]:.0f} |\n")
    body += ("\nSlowest inputs:\n\n| input | kind | made by | outcome | CPU s | wall s |\n"
             "|---|---|---|---|---|---|\n")
    for r in top:
        body += f"| {r['i']} | {r['kind']} | {r['how']} | {r['outcome']} | {r['cpu_s']:.2f} | {r['seconds']:.2f} |\n"
    meta = {"seed": args.seed, "workers": args.workers, "timeout_s": args.timeout,
            "note": "peak memory includes the worker's own ~170 MB of imports; input i is made from (seed, i)"}
    write("fuzz", {**flat, "by_kind": {k: dict(v) for k, v in by_kind.items()}, "uncaught_types": dict(bad)},
          body, meta)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--state", type=Path, default=None,
                    help="append each result here and skip inputs already in it (default: a file in the temp folder)")
    args = ap.parse_args()
    state = args.state or Path(tempfile.gettempdir()) / f"gechat-fuzz-seed{args.seed}.jsonl"
    records = _run(args.n, args.seed, args.workers, args.timeout, state)
    flat = summarize(records)
    report(records, flat, args)
    print(json.dumps(flat))


if __name__ == "__main__":
    main()
