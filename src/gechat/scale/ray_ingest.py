"""Bulk ingestion as Ray tasks: each file is parsed, embedded, stored and given its graph by a
Ray worker, which writes to the workspace's shared store (PostgreSQL).

A worker opens the workspace once and keeps it (and its models) for the files it gets. Each
file is one task; a document is written in one transaction and files are told apart by their
sha256, so a worker that dies mid-file leaves nothing, and Ray's retry adds the file once
(or, when the worker died after the commit, finds it stored and finishes its graph). Errors
come back per file, as ``gechat add`` reports them. The files must be readable by the workers
at the same paths (a shared file system) when the cluster has other machines.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gechat.errors import ConfigError, GechatError, first_line
from gechat.pipeline import AddResult, Workspace
from gechat.settings import Settings
from gechat.store.registry import scheme

LOCAL = "local"
_OPEN: dict[tuple[str, str], Workspace] = {}  # per worker process: the workspaces it has opened

OnDone = Callable[[AddResult], None]


def ingest_one(folder: str, settings_json: str, path: str) -> dict[str, Any]:
    """One file, in a Ray worker: what ``Workspace.add`` gives, as plain data."""
    key = (folder, settings_json)
    ws = _OPEN.get(key)
    if ws is None:
        ws = _OPEN[key] = Workspace(Path(folder), Settings.model_validate_json(settings_json))
    t0 = time.perf_counter()
    (res,) = ws.add([path])
    if res.status == "duplicate" and res.document is not None and ws.settings.graph != "none":
        # stored by an attempt that died before its graph was done: the build resumes there
        ws.build_graph([res.document.id])
    err = res.error
    return {"path": path, "status": res.status, "document": res.document,
            "error": None if err is None else (err.message, err.hint),
            "graph_error": None if res.graph_error is None else (res.graph_error.message, res.graph_error.hint),
            "seconds": time.perf_counter() - t0}


def _result(raw: dict[str, Any]) -> AddResult:
    def error(pair: tuple[str, str | None] | None) -> GechatError | None:
        return None if pair is None else GechatError(pair[0], pair[1])

    return AddResult(path=raw["path"], status=raw["status"], document=raw["document"], error=error(raw["error"]),
                     graph_error=error(raw["graph_error"]), seconds=raw["seconds"])


def check_store(settings: Settings, address: str) -> None:
    if scheme(settings.store) == "sqlite" and address != LOCAL:
        raise ConfigError("a Ray cluster's workers cannot write this machine's SQLite file",
                          hint="set store = postgresql://user@host/db (GECHAT_STORE), a database the workers "
                               "reach; docs/deploy.md")


def add_with_ray(folder: Path, settings: Settings, files: Sequence[Path], address: str = LOCAL,
                 workers: int | None = None, on_done: OnDone | None = None,
                 env: dict[str, str] | None = None) -> list[AddResult]:
    """Adds ``files`` to the workspace in ``folder`` as Ray tasks, one per file, on the cluster at
    ``address`` (``local``: a Ray instance started here with ``workers`` worker processes);
    ``on_done`` sees each file's result as it comes back. Results are in the files' order."""
    check_store(settings, address)
    try:
        import ray
    except ImportError:
        raise ConfigError("Ray is not installed", hint="pip install 'gechat[ray]'") from None
    started = not ray.is_initialized()
    runtime = {"env_vars": env} if env else None
    if started:
        try:
            if address == LOCAL:
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, runtime_env=runtime)
            else:
                ray.init(address=address, log_to_driver=False, runtime_env=runtime)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise ConfigError(f"cannot start or reach Ray at {address}: {str(e).splitlines()[0]}",
                              hint="--ray local starts one here; for a cluster, its address (ray://head:10001)"
                              ) from None
    task = ray.remote(num_cpus=1, max_retries=settings.ray_retries)(ingest_one)
    folder_s, settings_json = str(Path(folder).absolute()), settings.model_dump_json()
    refs = {task.remote(folder_s, settings_json, str(Path(f).absolute())): i for i, f in enumerate(files)}
    results: list[AddResult | None] = [None] * len(files)
    pending = list(refs)
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                i = refs[ref]
                try:
                    res = _result(ray.get(ref))
                except ray.exceptions.RayError as e:  # the worker died on every try, or the task raised
                    res = AddResult(path=str(files[i]), status="failed", error=GechatError(
                        f"{files[i]}: the Ray task failed: {first_line(e)}",
                        hint=f"retried {settings.ray_retries} times; nothing of it is stored half-way"))
                results[i] = res
                if on_done is not None:
                    on_done(res)
    finally:
        if started:
            ray.shutdown()
    return [r for r in results if r is not None]
