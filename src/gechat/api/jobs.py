"""Ingestion jobs: uploaded files are added in a background thread, one job at a time.

Jobs live in memory only: a restart forgets them (the documents they added stay). One
worker thread runs them in order, because adding is CPU-bound (parsing, embedding, the
graph) and two at once would only share the same cores. A job survives its client: the
HTTP request that started it returns at once (202), progress is polled or streamed.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType

from gechat.api.locks import MODEL, MUPDF_LOCK
from gechat.api.models import DocumentOut, ErrorInfo, FileProgress, GraphCost, JobOut, JobState
from gechat.api.problems import ApiError
from gechat.api.uploads import SavedFile
from gechat.api.workspaces import WorkspaceHandle
from gechat.errors import GechatError
from gechat.graph.build import Budget, BuildReport
from gechat.pipeline import AddResult, Workspace

log = logging.getLogger("gechat.api")
FINISHED: tuple[JobState, ...] = ("done", "failed")


@dataclass
class _Job:
    out: JobOut
    handle: WorkspaceHandle
    files: list[SavedFile]
    version: int = 0


class JobStore:
    def __init__(self, keep: int = 200) -> None:
        self.keep = keep  # finished jobs remembered; older ones are forgotten first
        self._jobs: dict[str, _Job] = {}
        self._changed = threading.Condition()
        self._queue: queue.Queue[_Job | None] = queue.Queue()
        self._worker: threading.Thread | None = None

    def submit(self, handle: WorkspaceHandle, files: list[SavedFile]) -> JobOut:
        out = JobOut(id=uuid.uuid4().hex, workspace=handle.id, state="queued", created_at=_now(),
                     files=[FileProgress(name=f.name) for f in files])
        job = _Job(out, handle, files)
        with self._changed:
            self._jobs[out.id] = job
            self._forget_old()
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name="gechat-jobs", daemon=True)
                self._worker.start()
        self._queue.put(job)
        return out.model_copy(deep=True)

    def get(self, job_id: str) -> JobOut:
        return self.wait(job_id, -1, 0)[0]

    def wait(self, job_id: str, seen: int, timeout: float) -> tuple[JobOut, int]:
        """The job once its version passes ``seen`` (or after ``timeout``), and that version."""
        with self._changed:
            job = self._jobs.get(job_id)
            if job is None:
                raise ApiError(404, f"no job {job_id!r}", hint="jobs are kept in memory: a server restart forgets them")
            self._changed.wait_for(lambda: job.version > seen, timeout)
            return job.out.model_copy(deep=True), job.version

    def close(self, timeout: float = 5.0) -> None:
        """Stops the worker after its current job."""
        self._queue.put(None)
        if self._worker is not None:
            self._worker.join(timeout)

    # --- the worker ---
    def _work(self) -> None:
        while (job := self._queue.get()) is not None:
            try:
                self._run(job)
            except Exception as e:  # a bug: the job fails, the worker lives on
                log.exception("job %s failed", job.out.id)
                self._update(job, state="failed", finished_at=_now(),
                             error=ErrorInfo(message=f"internal error: {type(e).__name__}"))

    def _run(self, job: _Job) -> None:
        self._update(job, state="running", started_at=_now())
        try:
            with job.handle.write_lock:
                ws = job.handle.workspace()  # fails if the workspace was deleted meanwhile
                budget = Budget()
                for i, f in enumerate(job.files):
                    self._add(job, ws, i, f, budget)
        except GechatError as e:
            for f, p in zip(job.files, job.out.files, strict=True):
                if p.status == "pending":
                    _discard(f)
            self._update(job, state="failed", finished_at=_now(), error=ErrorInfo(message=e.message, hint=e.hint))
            return
        self._update(job, state="done", finished_at=_now())

    def _add(self, job: _Job, ws: Workspace, i: int, f: SavedFile, budget: Budget) -> None:
        def progress(path: str, step: str) -> None:
            guard.step(step)
            self._file(job, i, step=step)

        def graph_progress(report: BuildReport) -> None:
            self._file(job, i, graph=_graph_cost(report))

        guard = _ParseGuard(f.path.suffix.lower() == ".pdf")
        # an LLM graph extractor shares the one local model with the questions
        llm = MODEL.for_question() if ws.settings.graph == "llm" else contextlib.nullcontext()
        with llm, guard:  # always LLM before MuPDF (no other order exists: no deadlock)
            (res,) = ws.add([f.path], progress=progress, budget=budget, graph_progress=graph_progress)
        if res.status == "failed" or (res.status == "duplicate" and res.document is not None
                                      and res.document.path != str(f.path)):
            _discard(f)
        self._file(job, i, **_result_fields(res))

    # --- state changes: each bumps the version and wakes the event streams ---
    def _update(self, job: _Job, **changes: object) -> None:
        with self._changed:
            for k, v in changes.items():
                setattr(job.out, k, v)
            job.version += 1
            self._changed.notify_all()

    def _file(self, job: _Job, i: int, **changes: object) -> None:
        with self._changed:
            for k, v in changes.items():
                setattr(job.out.files[i], k, v)
            job.version += 1
            self._changed.notify_all()

    def _forget_old(self) -> None:
        finished = [j for j in self._jobs.values() if j.out.state in FINISHED]
        for j in finished[: max(0, len(finished) - self.keep)]:
            del self._jobs[j.out.id]


class _ParseGuard:
    """Holds the MuPDF lock while a PDF is read and parsed, and no longer: embedding and the
    graph can take minutes, and page images should not wait for them."""

    def __init__(self, active: bool) -> None:
        self.active, self.held = active, False

    def __enter__(self) -> None:
        if self.active:
            MUPDF_LOCK.acquire()
            self.held = True

    def step(self, name: str) -> None:
        if self.held and name not in ("reading", "parsing"):
            MUPDF_LOCK.release()
            self.held = False

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        if self.held:
            MUPDF_LOCK.release()
            self.held = False


def _result_fields(res: AddResult) -> dict[str, object]:
    out: dict[str, object] = {"step": "done", "status": res.status, "seconds": round(res.seconds, 3)}
    if res.document is not None:
        out["document"] = DocumentOut.of(res.document)
    if res.error is not None:
        out["error"] = ErrorInfo(message=res.error.message, hint=res.error.hint or None)
    if res.graph is not None:
        out["graph"] = _graph_cost(res.graph)
    if res.graph_error is not None:
        out["graph_error"] = ErrorInfo(message=res.graph_error.message, hint=res.graph_error.hint or None)
    return out


def _graph_cost(r: BuildReport) -> GraphCost:
    c = r.cost
    return GraphCost(extractor=r.extractor, chunks_done=r.chunks_done, chunks_total=r.chunks_total,
                     chunks_failed=r.chunks_failed, llm_calls=c.llm_calls, cache_hits=c.cache_hits,
                     prompt_tokens=c.prompt_tokens, completion_tokens=c.completion_tokens,
                     seconds=round(c.seconds, 3), stopped=r.stopped)


def _discard(f: SavedFile) -> None:
    """Removes an upload no document points to (it failed, or duplicates a document added before)."""
    if f.created:
        f.path.unlink(missing_ok=True)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
