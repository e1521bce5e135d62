"""Ingestion jobs: uploaded files are added in a background thread, one job at a time.

Jobs are durable: every state change is written to ``<root>/jobs.sqlite`` (job_store.py
says why there), so a restart finds them. On start, unfinished jobs are queued again (their
files already added are kept; a file caught halfway is added again, which the store sees
as its own duplicate, and its graph is finished) or, when their uploaded files are gone,
failed with that reason; uploaded files that no document and no job points to are removed.

One worker thread runs the jobs in order, because adding is CPU-bound (parsing, embedding,
the graph) and two at once would only share the same cores. A job survives its client: the
request that started it returns at once (202), progress is polled or streamed, and
``cancel`` stops it (job_guard.py says how, and why nothing is left half-written).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from gechat.api.graph_status import finish_url, graph_state, unfinished
from gechat.api.job_guard import CANCELLED, SHUTDOWN, Guard, Stopped, StopReason
from gechat.api.job_run import ParseGuard, discard, document_at, graph_cost, llm_access, now, result_fields
from gechat.api.job_store import DB_NAME, JobDB, StoredJob
from gechat.api.models import DocumentOut, ErrorInfo, FileProgress, JobOut, JobState
from gechat.api.problems import ApiError
from gechat.api.uploads import SavedFile
from gechat.api.workspaces import WorkspaceHandle, WorkspaceRegistry
from gechat.errors import GechatError
from gechat.graph.build import Budget, BuildReport
from gechat.pipeline import Workspace
from gechat.settings import Settings
from gechat.types import Document

log = logging.getLogger("gechat.api")
FINISHED: tuple[JobState, ...] = ("done", "failed", "cancelled")
WATCH_S = 0.2  # how often the watchdog looks at the running job


@dataclass
class _Job:
    stored: StoredJob
    handle: WorkspaceHandle | None = None
    version: int = 0
    guard: Guard | None = None

    @property
    def out(self) -> JobOut:
        return self.stored.out

    @property
    def files(self) -> list[SavedFile]:
        return self.stored.files


class JobStore:
    def __init__(self, root: Path, settings: Settings, keep: int = 200) -> None:
        self.settings = settings
        self.keep = keep  # finished jobs remembered; older ones are forgotten first
        self.db = JobDB(root / DB_NAME)
        self._jobs = {j.out.id: _Job(j) for j in self.db.load()}
        self._changed = threading.Condition()
        self._queue: queue.Queue[_Job | None] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._running: _Job | None = None
        self._closed = threading.Event()

    # --- start and stop ---
    def start(self, registry: WorkspaceRegistry) -> None:
        """Resumes or fails the jobs a previous run left unfinished, removes orphan uploads,
        and starts the worker (the server's startup). An app started again after a shutdown
        (an ASGI host may run the lifespan more than once) reopens the store and reads it anew."""
        if self._closed.is_set():
            self.db = JobDB(self.db.path)
            self._jobs = {j.out.id: _Job(j) for j in self.db.load()}
            self._queue, self._threads, self._closed = queue.Queue(), [], threading.Event()
        with self._changed:
            todo = sorted((j for j in self._jobs.values() if j.out.state not in FINISHED), key=lambda j: j.stored.seq)
            for job in todo:
                self._recover(job, registry)
        self._clean_uploads(registry)
        self._start_threads()

    def close(self, timeout: float = 5.0) -> None:
        """Stops the running job at its next progress report, and the worker. Nothing is saved
        from then on, so the stored jobs stay as they were, and the next start resumes them."""
        self._closed.set()
        running = self._running
        if running is not None and running.guard is not None:
            running.guard.stop(SHUTDOWN)
        self._queue.put(None)
        for t in self._threads:
            t.join(timeout)
        self.db.close()

    # --- the API's side ---
    def submit(self, handle: WorkspaceHandle, files: list[SavedFile]) -> JobOut:
        out = JobOut(id=uuid.uuid4().hex, workspace=handle.id, state="queued", created_at=now(),
                     files=[FileProgress(name=f.name) for f in files])
        return self._submit(_Job(StoredJob(out, files, None, self.db.next_seq()), handle))

    def submit_graph(self, handle: WorkspaceHandle, doc: Document) -> JobOut:
        """A job that finishes ``doc``'s graph where an earlier build stopped."""
        out = JobOut(id=uuid.uuid4().hex, workspace=handle.id, kind="graph", state="queued", created_at=now(),
                     files=[FileProgress(name=Path(doc.path).name, document=DocumentOut.of(doc))])
        return self._submit(_Job(StoredJob(out, [], doc.id, self.db.next_seq()), handle))

    def get(self, job_id: str) -> JobOut:
        return self.wait(job_id, -1, 0)[0]

    def wait(self, job_id: str, seen: int, timeout: float) -> tuple[JobOut, int]:
        """The job once its version passes ``seen`` (or after ``timeout``), and that version."""
        with self._changed:
            job = self._find(job_id)
            self._changed.wait_for(lambda: job.version > seen, timeout)
            return job.out.model_copy(deep=True), job.version

    def list(self, ws_id: str) -> list[JobOut]:
        with self._changed:
            jobs = sorted((j for j in self._jobs.values() if j.out.workspace == ws_id), key=lambda j: -j.stored.seq)
            return [j.out.model_copy(deep=True) for j in jobs]

    def cancel(self, job_id: str, wait_s: float = 10.0) -> JobOut:
        """A queued job ends at once; a running one at its next progress report (about a second,
        also while parsing), which this waits for (up to ``wait_s``). A finished job is answered
        as it is."""
        with self._changed:
            job = self._find(job_id)
            if job.out.state == "queued":
                self._end_files(job, CANCELLED)
                self._set(job, state="cancelled", finished_at=now())
            elif job.out.state == "running" and job.guard is not None:
                job.guard.stop(CANCELLED)
            self._changed.wait_for(lambda: job.out.state in FINISHED, wait_s)
            return job.out.model_copy(deep=True)

    def cancel_workspace(self, ws_id: str, wait_s: float = 10.0) -> None:
        """Cancels the workspace's jobs and waits (a while) for its running one to stop."""
        with self._changed:
            ids = [j.out.id for j in self._jobs.values() if j.out.workspace == ws_id and j.out.state not in FINISHED]
        for i in ids:
            self.cancel(i, wait_s=0)
        with self._changed:
            self._changed.wait_for(lambda: self._running is None or self._running.out.workspace != ws_id, wait_s)

    def forget_workspace(self, ws_id: str) -> None:
        """Drops the jobs of a deleted workspace."""
        with self._changed:
            ids = [i for i, j in self._jobs.items() if j.out.workspace == ws_id]
            for i in ids:
                del self._jobs[i]
            self.db.delete(ids)

    def _submit(self, job: _Job) -> JobOut:
        with self._changed:
            self._jobs[job.out.id] = job
            self.db.save(job.stored)
            self._forget_old()
        self._start_threads()
        self._queue.put(job)
        return job.out.model_copy(deep=True)

    def _find(self, job_id: str) -> _Job:
        job = self._jobs.get(job_id)
        if job is None:
            raise ApiError(404, f"no job {job_id!r}", hint="a deleted workspace's jobs are dropped, and only the "
                                                           f"newest {self.keep} finished jobs are kept")
        return job

    # --- the worker ---
    def _start_threads(self) -> None:
        with self._changed:
            if self._threads:
                return
            self._threads = [threading.Thread(target=self._work, name="gechat-jobs", daemon=True),
                             threading.Thread(target=self._watch, name="gechat-jobs-watch", daemon=True)]
        for t in self._threads:
            t.start()

    def _watch(self) -> None:
        while not self._closed.wait(WATCH_S):
            job = self._running
            if job is not None and job.guard is not None:
                job.guard.watch()

    def _work(self) -> None:
        while (job := self._queue.get()) is not None:
            try:
                self._run(job)
            except BaseException as e:  # a bug (or a stray stop): the job fails, the worker lives on
                log.exception("job %s failed", job.out.id)
                self._update(job, state="failed", finished_at=now(),
                             error=ErrorInfo(message=f"internal error: {type(e).__name__}"))
            finally:
                with self._changed:
                    self._running = None
                    self._changed.notify_all()

    def _run(self, job: _Job) -> None:
        guard = Guard(self.settings.job_timeout_s, self.settings.job_memory_mb)
        with self._changed:
            if job.out.state != "queued" or job.handle is None:  # cancelled while it waited
                return
            job.guard, self._running = guard, job
            self._set(job, state="running", started_at=job.out.started_at or now())
        try:
            with job.handle.write_lock:
                ws = job.handle.workspace()  # fails if the workspace was deleted meanwhile
                if job.out.kind == "graph":
                    self._graph(job, ws, guard)
                else:
                    budget = Budget()
                    for i, f in enumerate(job.files):
                        if job.out.files[i].status == "pending":  # a resumed job skips what it did
                            guard.check()
                            self._add(job, ws, i, f, budget, guard)
        except Stopped:
            reason = guard.reason or StopReason("failed", "stopped")
            if reason is SHUTDOWN:  # its uploads stay: the next start resumes it
                return
            with self._changed:
                self._end_files(job, reason)
                self._set(job, state=reason.state, finished_at=now(),
                          error=None if reason.state == "cancelled" else ErrorInfo(message=reason.message,
                                                                                   hint=reason.hint))
            return
        except GechatError as e:
            with self._changed:
                self._end_files(job, StopReason("failed", e.message, e.hint))
                self._set(job, state="failed", finished_at=now(), error=ErrorInfo(message=e.message, hint=e.hint))
            return
        self._update(job, state="done", finished_at=now())

    def _add(self, job: _Job, ws: Workspace, i: int, f: SavedFile, budget: Budget, guard: Guard) -> None:
        def progress(path: str, step: str) -> None:
            guard.parsing(False)
            guard.check()  # before parsing is declared: a stop found here is never also interrupted
            guard.parsing(step == "parsing")
            pg.step(step)
            self._file(job, i, step=step)

        def graph_progress(report: BuildReport) -> None:
            guard.check()
            self._file(job, i, graph=graph_cost(report))

        pg = ParseGuard(f.path.suffix.lower() == ".pdf")
        try:
            with llm_access(ws), pg:  # always LLM before MuPDF (no other order exists: no deadlock)
                (res,) = ws.add([f.path], progress=progress, budget=budget, graph_progress=graph_progress)
                guard.parsing(False)
                if res.status == "duplicate" and res.document is not None and res.document.path == str(f.path) \
                        and f.created:
                    # this job added it before a restart: finish what the kill cut short
                    res.status = "added"
                    if unfinished(ws, res.document.id) is not None:
                        try:
                            res.graph = ws.graph_builder().build(res.document.id, budget, graph_progress)
                        except GechatError as e:  # as adding does: the document stays, its graph partial
                            res.graph_error = e
        except Stopped:
            guard.parsing(False)
            self._stopped_file(job, ws, i, f, guard.reason or CANCELLED)
            raise
        if res.status == "failed" or (res.status == "duplicate" and res.document is not None
                                      and res.document.path != str(f.path)):
            discard(f)
        fields = result_fields(res)
        g = unfinished(ws, res.document.id) if res.status == "duplicate" and res.document is not None else None
        if g is not None and res.document is not None:  # say so, not just "duplicate"
            fields["graph_error"] = ErrorInfo(
                message=f"already added, but its graph is {g.status} ({g.chunks_done}/{g.chunks_total} chunks)",
                hint=f"POST {finish_url(job.out.workspace, res.document)} finishes it")
        self._file(job, i, **fields)

    def _stopped_file(self, job: _Job, ws: Workspace, i: int, f: SavedFile, reason: StopReason) -> None:
        """The file a stop caught: added already (its graph partial), or not at all."""
        doc = document_at(ws, f.path)
        if doc is None:
            return  # _end_files marks it and removes the upload
        g = graph_state(ws, doc.id)
        err = None if g.status == "complete" or g.extractor is None else ErrorInfo(
            message=f"{reason.message}: the graph is {g.status} ({g.chunks_done}/{g.chunks_total} chunks)",
            hint=f"POST {finish_url(job.out.workspace, doc)} finishes it")
        self._file(job, i, step="done", status="added", document=DocumentOut.of(doc, g), graph_error=err)

    def _graph(self, job: _Job, ws: Workspace, guard: Guard) -> None:
        def progress(report: BuildReport) -> None:
            guard.check()
            self._file(job, 0, step="graph", graph=graph_cost(report))

        assert job.stored.doc_id is not None
        doc = next((d for d in ws.documents() if d.id == job.stored.doc_id), None)
        if doc is None:
            raise ApiError(404, f"document {job.stored.doc_id} was deleted before its graph was finished")
        t0 = time.perf_counter()
        with llm_access(ws):
            (report,) = ws.build_graph([doc.id], budget=Budget(), progress=progress)
        self._file(job, 0, step="done", status="added", graph=graph_cost(report), seconds=time.perf_counter() - t0,
                   document=DocumentOut.of(doc, graph_state(ws, doc.id)))

    def _recover(self, job: _Job, registry: WorkspaceRegistry) -> None:
        try:
            job.handle = registry.get(job.out.workspace)
        except ApiError:  # the workspace is gone, and with it the job's business
            del self._jobs[job.out.id]
            self.db.delete([job.out.id])
            return
        lost = ErrorInfo(message="the uploaded file was gone when the server restarted", hint="upload it again")
        for p, f in zip(job.out.files, job.files, strict=False):
            if p.status == "pending" and job.out.kind == "add" and not f.path.is_file():
                p.status, p.step, p.error = "failed", "done", lost
        if job.out.kind == "add" and all(p.status != "pending" for p in job.out.files):
            self._set(job, state="failed", finished_at=now(), error=ErrorInfo(
                message="the server stopped during this job, and its uploaded files are gone", hint=lost.hint))
            return
        self._set(job, state="queued", resumed=job.out.resumed + 1)
        self._queue.put(job)
        log.info("job %s resumed after a restart", job.out.id)

    def _clean_uploads(self, registry: WorkspaceRegistry) -> None:
        with self._changed:
            wanted = {str(f.path) for j in self._jobs.values() if j.out.state not in FINISHED for f in j.files}
        for ws_id in registry.ids():
            try:
                h = registry.get(ws_id)
                files = [p for p in h.uploads.iterdir() if p.is_file()] if h.uploads.is_dir() else []
                if files:
                    wanted |= {d.path for d in h.workspace().documents()}
            except (GechatError, OSError) as e:  # a broken workspace keeps its files; the rest go on
                log.warning("workspace %s: uploads not checked: %s", ws_id, e)
                continue
            for p in files:
                if str(p.resolve()) not in wanted:
                    p.unlink(missing_ok=True)
                    log.info("removed %s: no document or job uses it", p)

    # --- state changes: each is saved, bumps the version and wakes the event streams ---
    def _update(self, job: _Job, **changes: object) -> None:
        with self._changed:
            self._set(job, **changes)

    def _set(self, job: _Job, **changes: object) -> None:
        for k, v in changes.items():
            setattr(job.out, k, v)
        self._saved(job)

    def _file(self, job: _Job, i: int, **changes: object) -> None:
        with self._changed:
            for k, v in changes.items():
                setattr(job.out.files[i], k, v)
            self._saved(job)

    def _saved(self, job: _Job) -> None:
        if not self._closed.is_set():  # a job stopped by the shutdown stays unfinished, to resume
            self.db.save(job.stored)
        job.version += 1
        self._changed.notify_all()

    def _end_files(self, job: _Job, reason: StopReason) -> None:
        """Files the job did not get to: marked, their uploads removed (no document has them)."""
        for f, p in zip(job.files, job.out.files, strict=False):
            if p.status == "pending":
                discard(f)
                p.step, p.status = "done", reason.state
                p.error = None if reason.state == "cancelled" else ErrorInfo(message=reason.message, hint=reason.hint)
        if job.out.kind == "graph" and job.out.files and job.out.files[0].status == "pending":
            job.out.files[0].status = reason.state

    def _forget_old(self) -> None:
        finished = sorted((j for j in self._jobs.values() if j.out.state in FINISHED), key=lambda j: j.stored.seq)
        old = [j.out.id for j in finished[: max(0, len(finished) - self.keep)]]
        for i in old:
            del self._jobs[i]
        self.db.delete(old)
