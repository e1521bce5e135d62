"""What every benchmark records: machine, date, exact command; and how it writes results."""

from __future__ import annotations

import json
import os
import platform
import shlex
import statistics
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

RESULTS = Path("benchmarks") / "results"  # relative to the repository root, where benchmarks run


def machine() -> dict[str, Any]:
    cpu = platform.processor() or ""
    try:
        info: dict[str, str] = {}
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            info.setdefault(key.strip(), value.strip())
        # "AMD EPYC" names several generations whose speeds differ by 2x: family and model tell them apart
        cpu = info.get("model name", cpu)
        if "cpu family" in info:
            avx512 = ", AVX-512" if "avx512f" in info.get("flags", "").split() else ""
            cpu += f" (family {info['cpu family']}, model {info.get('model', '?')}{avx512})"
    except OSError:
        pass
    mem_gib = 0.0
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem_gib = round(kb / 1024 / 1024, 1)
    except (OSError, ValueError, IndexError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": mem_gib,
            "python": platform.python_version(), "os": platform.platform()}


def command() -> str:
    return "python " + " ".join(shlex.quote(a) for a in [os.path.relpath(sys.argv[0]), *sys.argv[1:]])


def median(xs: list[float]) -> float:
    return float(statistics.median(xs)) if xs else 0.0


def write(name: str, flat: dict[str, Any], markdown_body: str, meta: dict[str, Any],
          results: Path | None = None) -> Path:
    """Writes results/<name>.json (flat keys + meta) and results/<name>.md (a table a person reads)."""
    out = results or RESULTS
    out.mkdir(parents=True, exist_ok=True)
    now = datetime.now(UTC).isoformat(timespec="seconds")
    # this run's date, command and machine, whatever ``meta`` copied from an earlier run
    meta = {k: v for k, v in meta.items() if k not in ("date", "command", "machine")}
    info = {"date": now, "command": command(), "machine": machine(), **meta}
    (out / f"{name}.json").write_text(json.dumps({**flat, "meta": info}, indent=2) + "\n")
    m = info["machine"]
    head = (f"# Benchmark: {name}\n\n- date: {now}\n- command: `{info['command']}`\n"
            f"- machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, Python {m['python']}\n")
    for k, v in meta.items():
        head += f"- {k}: {v}\n"
    path = out / f"{name}.md"
    path.write_text(head + "\n" + markdown_body.rstrip() + "\n")
    return path
