"""Can a team trust the server? Kill points, a bounded load test, and what the other
reliability parts measured, in one report: results/reliability.{md,json}.

- kill points (benchmarks/kill_points.py): ``gechat add`` killed with SIGKILL at each point of
  adding a document; consistent = the reopened workspace is whole, the embedder recorded, a
  re-add works, another embedder is refused, a question is answered.
- load (benchmarks/reliability_load.py): concurrent clients asking, uploading, listing and
  deleting workspaces at once against a real ``gechat serve`` on 127.0.0.1 with fake models.
- fuzz: copied from results/fuzz.json when that part has run.
- jobs resumed after a restart, cross-workspace reads: hooks for the parts that measure them;
  None until they exist.

    nice -n 10 python benchmarks/reliability.py [--clients 50] [--ops 12] [--skip-kill] [--skip-probes]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from benchmarks import kill_points, reliability_load
from benchmarks.common import RESULTS, write

FUZZ_KEYS = ("fuzz_inputs", "fuzz_uncaught", "fuzz_over_5s", "fuzz_peak_mb")


def _fuzz() -> dict[str, object]:
    """The fuzz part's figures, when results/fuzz.json exists."""
    path = RESULTS / "fuzz.json"
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    return {k: data.get(k) for k in FUZZ_KEYS}


def _jobs_probe() -> int | None:
    """HOOK for the persistent jobs part: jobs resumed after a server restart. That part adds
    benchmarks/reliability_jobs.py with ``probe() -> int``; None while it is absent."""
    try:
        from benchmarks import reliability_jobs  # type: ignore[attr-defined]
    except ImportError:
        return None
    return int(reliability_jobs.probe())


def _access_probe() -> int | None:
    """HOOK for the access-control part: reads that crossed into a workspace the key has no grant
    on (should be 0). That part adds benchmarks/reliability_access.py with ``probe() -> int``."""
    try:
        from benchmarks import reliability_access  # type: ignore[attr-defined]
    except ImportError:
        return None
    return int(reliability_access.probe())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--ops", type=int, default=12, help="operations per client")
    ap.add_argument("--skip-kill", action="store_true", help="no kill points")
    ap.add_argument("--skip-probes", action="store_true", help="not the other parts' probes (minutes)")
    ap.add_argument("--name", default="reliability")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="gechat-reliability-") as tmp:
        trials = [] if args.skip_kill else kill_points.run_all(Path(tmp) / "kill")
        load = reliability_load.run(Path(tmp) / "load", clients=args.clients, ops_per_client=args.ops)

    consistent = sum(t.consistent for t in trials)
    ask_p99 = max(load.percentiles("ask")[2], load.percentiles("ask_stream")[2])
    flat: dict[str, object] = {
        "kill_points_consistent": consistent,
        "kill_points_tried": len(trials),
        "load_clients": load.clients,
        "load_ops": load.ops,
        "load_errors": len(load.errors),
        "load_reappeared": len(load.reappeared),
        "load_server_tracebacks": load.server_tracebacks,
        "ask_p99_ms_fake_models": round(ask_p99, 1),
        "load_seconds": round(load.seconds, 1),
        **{k: None for k in FUZZ_KEYS}, **_fuzz(),
        "jobs_resumed_after_restart": None if args.skip_probes else _jobs_probe(),
        "cross_workspace_reads": None if args.skip_probes else _access_probe(),
    }
    body = ["## Kill points", "",
            f"{consistent}/{len(trials)} consistent after `kill -9` of `gechat add` "
            "(test hook GECHAT_TEST_KILL_AT; gechat.store.consistency checks the reopened database).", "",
            "| point | killed | documents after kill | embedder | re-add | other embedder refused | ask | "
            "graph resumed | consistent |", "|---|---|---|---|---|---|---|---|---|"]
    for t in trials:
        graph = "-" if t.graph_complete is None else ("yes" if t.graph_complete else "NO")
        body.append(f"| {t.point} | {'yes' if t.killed else 'NO'} | {t.documents} | {t.embedder or '-'} | "
                    f"exit {t.readd_rc} | {'yes' if t.other_embedder_refused else 'NO'} | exit {t.ask_rc} | "
                    f"{graph} | {'yes' if t.consistent else 'NO: ' + '; '.join(t.failures())} |")
    body += ["", "## Load", "",
             f"{load.clients} concurrent clients, {load.ops} operations in {load.seconds:.1f} s against "
             "`gechat serve --preset test` (fake models) on 127.0.0.1; mix: "
             + ", ".join(f"{op} {w}%" for op, w in reliability_load.MIX) + ".", "",
             f"- errors (5xx, an answer the operation does not document, dropped connections): {len(load.errors)}",
             f"- workspaces back after their DELETE 200: {len(load.reappeared)}",
             f"- tracebacks in the server log: {load.server_tracebacks}", "",
             "| operation | n | p50 ms | p90 ms | p99 ms | answers |", "|---|---|---|---|---|---|"]
    for op, _ in reliability_load.MIX:
        p50, p90, p99 = load.percentiles(op)
        answers = ", ".join(f"{code}: {n}" for code, n in sorted(load.statuses[op].items()))
        body.append(f"| {op} | {len(load.latency_ms[op])} | {p50:.0f} | {p90:.0f} | {p99:.0f} | {answers} |")
    if load.errors:
        body += ["", "Errors (first 20):", ""] + [f"- {e}" for e in load.errors[:20]]
    body += ["", "## From the other parts", "",
             "| key | value |", "|---|---|"]
    for key in (*FUZZ_KEYS, "jobs_resumed_after_restart", "cross_workspace_reads"):
        value = flat[key]
        body.append(f"| {key} | {'not measured yet' if value is None else value} |")
    meta = {"load_mix": dict(reliability_load.MIX), "ops_per_client": args.ops,
            "models": "fake LLM, hashing embedder, fake entailment (test preset)"}
    print(write(args.name, flat, "\n".join(body), meta))


if __name__ == "__main__":
    main()
