"""Ingestion jobs: uploaded files are added in a background thread, one job at a time.

Jobs are durable: every state change is written to the job records (job_store.py: the
server's ``jobs.sqlite``, or the shared PostgreSQL store, where several API replicas share
them). The worker *claims* the oldest queued job from the records, so with several replicas
each job runs on exactly one of them; it renews its claim while it runs, and a job whose
claim lapsed (its server was killed) is claimed again and resumed: its files already added
are kept, a file caught halfway is added again, which the store sees as its own duplicate,
and its graph is finished; when its uploaded files are gone, it fails with that reason.
A single server resumes its own unfinished jobs as it starts. Uploaded files that no
document and no job points to are removed on start.

One worker thread per server runs the jobs in order, because adding is CPU-bound (parsing,
embedding, the graph) and two at once would only share the same cores. A job survives its
client: the request that started it returns at once (202), progress is polled or streamed,
and ``cancel`` stops it (job_guard.py says how, and why nothing is left half-written), also
when another replica runs it.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gechat.api.graph_status import finish_url, graph_state, unfinished
from gechat.api.job_guard import CANCELLED, SHUTDOWN, Guard, Stopped, StopReason
from gechat.api.job_run import (
    ParseGuard,
    clean_uploads,
    discard,
    end_files,
    graph_cost,
    llm_access,
    now,
    result_fields,
    resume,
    stopped_fields,
)
from gechat.api.job_store import RENEW_S, StoredJob, open_jobs
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
POLL_S = 0.25  # how often a wait looks at the records for a job another replica runs
IDLE_S = 1.0  # how often an idle worker looks for jobs submitted through another replica
LOST = StopReason("failed", "another server took this job over after this one stopped renewing its claim")


@dataclass
class _Job:
    """The job this server runs."""

    stored: StoredJob
    handle: WorkspaceHandle
    guard: Guard
    detached: bool = False  # its claim passed to another server: nothing more is written

    @property
    def out(self) -> JobOut:
        return self.stored.out

    @property
    def files(self) -> list[SavedFile]:
        return self.stored.files


class JobStore:
    def __init__(self, root: Path, settings: Settings, keep: int = 200) -> None:
        self.root, self.settings = root, settings
        self.keep = keep  # finished jobs remembered; older ones are forgotten first
        self.owner = uuid.uuid4().hex  # this server, in the records' claims
        self.db = open_jobs(settings, root)
        self._changed = threading.Condition()
        self._wake = threading.Event()
        self._threads: list[threading.Thread] = []
        self._running: _Job | None = None
        self._closed = threading.Event()
        self._registry: WorkspaceRegistry | None = None

    # --- start and stop ---
    def start(self, registry: WorkspaceRegistry) -> None:
        """Resumes or fails the jobs a previous run left unfinished (a single server; replicas
        claim a lapsed job when its claim runs out), removes orphan uploads, and starts the
        worker (the server's startup). An app started again after a shutdown (an ASGI host may
        run the lifespan more than once) reopens the records."""
        if self._closed.is_set():
            self.db = open_jobs(self.settings, self.root)
            self._threads, self._closed = [], threading.Event()
        self._registry = registry
        if not self.db.shared:
            self.db.release()
            for stored in self.db.load(unfinished=True):
                if resume(stored, registry, self.db):
                    stored.out.state = "queued"
                    self.db.save(stored)
                    log.info("job %s resumed after a restart", stored.out.id)
        clean_uploads(registry, self.db)
        self._start_threads()

    def close(self, timeout: float = 5.0) -> None:
        """Stops the running job at its next progress report, and the worker. Nothing is saved
        from then on, so the stored jobs stay as they were, and the next start (or another
        replica, once the claim runs out) resumes them."""
        self._closed.set()
        running = self._running
        if running is not None:
            running.guard.stop(SHUTDOWN)
        self._wake.set()
        for t in self._threads:
            t.join(timeout)
        if not any(t.is_alive() for t in self._threads):  # its job stopped: another replica may take it now
            self.db.release(self.owner)
        self.db.close()

    # --- the API's side ---
    def submit(self, handle: WorkspaceHandle, files: list[SavedFile]) -> JobOut:
        out = JobOut(id=uuid.uuid4().hex, workspace=handle.id, state="queued", created_at=now(),
                     files=[FileProgress(name=f.name) for f in files])
        return self._submit(StoredJob(out, files, None, self.db.next_seq()))

    def submit_graph(self, handle: WorkspaceHandle, doc: Document) -> JobOut:
        """A job that finishes ``doc``'s graph where an earlier build stopped."""
        out = JobOut(id=uuid.uuid4().hex, workspace=handle.id, kind="graph", state="queued", created_at=now(),
                     files=[FileProgress(name=Path(doc.path).name, document=DocumentOut.of(doc))])
        return self._submit(StoredJob(out, [], doc.id, self.db.next_seq()))

    def get(self, job_id: str) -> JobOut:
        return self.wait(job_id, -1, 0)[0]

    def wait(self, job_id: str, seen: int, timeout: float) -> tuple[JobOut, int]:
        """The job once its version passes ``seen`` (or after ``timeout``), and that version."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                stored = self._find(job_id)
                left = deadline - time.monotonic()
                if stored.version > seen or left <= 0:
                    return stored.out.model_copy(deep=True), stored.version
                self._changed.wait(min(left, POLL_S))  # woken at once by this server's own changes

    def list(self, ws_id: str) -> list[JobOut]:
        return [j.out for j in sorted(self.db.load(ws_id), key=lambda j: -j.seq)]

    def cancel(self, job_id: str, wait_s: float = 10.0) -> JobOut:
        """A queued job ends at once; a running one at its next progress report (about a second,
        also while parsing; a second more when another replica runs it), which this waits for
        (up to ``wait_s``). A finished job is answered as it is."""
        with self._changed:
            stored = self._find(job_id)
            if stored.out.state == "queued":
                # a queued job is never this server's running one: ``stored`` is the records' own copy
                gone = end_files(stored, CANCELLED)
                stored.out.state, stored.out.finished_at = "cancelled", now()
                if self.db.save(stored, if_state="queued"):  # not claimed meanwhile
                    for f in gone:
                        discard(f)
                    self._changed.notify_all()
                    return stored.out
                stored = self._find(job_id)  # claimed first: it runs now
            if stored.out.state not in FINISHED:
                running = self._running
                if running is not None and running.out.id == job_id:
                    running.guard.stop(CANCELLED)
                else:
                    self.db.ask_cancel(job_id)
        self._until(lambda: self._find(job_id).out.state in FINISHED, wait_s)
        return self.get(job_id)

    def cancel_workspace(self, ws_id: str, wait_s: float = 10.0) -> None:
        """Cancels the workspace's jobs and waits (a while) for its running one to stop."""
        for stored in self.db.load(ws_id, unfinished=True):
            self.cancel(stored.out.id, wait_s=0)
        self._until(lambda: not self.db.load(ws_id, unfinished=True), wait_s)

    def forget_workspace(self, ws_id: str) -> None:
        """Drops the jobs of a deleted workspace."""
        self.db.delete([j.out.id for j in self.db.load(ws_id)])

    def _until(self, done: Callable[[], bool], wait_s: float) -> None:
        deadline = time.monotonic() + wait_s
        with self._changed:
            while not done() and (left := deadline - time.monotonic()) > 0:
                self._changed.wait(min(left, POLL_S))

    def _submit(self, stored: StoredJob) -> JobOut:
        with self._changed:
            self.db.save(stored)
            self.db.trim(self.keep)
        self._start_threads()
        self._wake.set()
        return stored.out.model_copy(deep=True)

    def _find(self, job_id: str) -> StoredJob:
        running = self._running
        stored = running.stored if running is not None and running.out.id == job_id else self.db.get(job_id)
        if stored is None:
            raise ApiError(404, f"no job {job_id!r}", hint="a deleted workspace's jobs are dropped, and only the "
                                                           f"newest {self.keep} finished jobs are kept")
        return stored

    # --- the worker ---
    def _start_threads(self) -> None:
        with self._changed:
            if self._threads or self._registry is None:
                return
            self._threads = [threading.Thread(target=self._work, name="gechat-jobs", daemon=True),
                             threading.Thread(target=self._watch, name="gechat-jobs-watch", daemon=True)]
        for t in self._threads:
            t.start()

    def _watch(self) -> None:
        renewed = 0.0
        while not self._closed.wait(WATCH_S):
            job = self._running
            if job is None:
                continue
            job.guard.watch()
            if time.monotonic() - renewed >= RENEW_S:
                renewed = time.monotonic()
                owned, cancel = self.db.renew(job.out.id, self.owner)
                if not owned:
                    job.detached = True
                    job.guard.stop(LOST)
                elif cancel:
                    job.guard.stop(CANCELLED)

    def _work(self) -> None:
        while not self._closed.is_set():
            try:
                stored = self.db.claim(self.owner)
            except Exception:  # the database away for a moment: look again later
                log.exception("claiming a job failed")
                stored = None
            if stored is None:
                self._wake.wait(IDLE_S)
                self._wake.clear()
                continue
            try:
                self._take(stored)
            except BaseException as e:  # a bug (or a stray stop): the job fails, the worker lives on
                log.exception("job %s failed", stored.out.id)
                with self._changed:
                    stored.out.state, stored.out.finished_at = "failed", now()
                    stored.out.error = ErrorInfo(message=f"internal error: {type(e).__name__}")
                    self.db.save(stored)
            finally:
                with self._changed:
                    self._running = None
                    self._changed.notify_all()

    def _take(self, stored: StoredJob) -> None:
        """Runs a job this server claimed (a ``running`` one was cut off elsewhere: resumed)."""
        assert self._registry is not None
        if self._closed.is_set():  # claimed as the server stopped: its claim lapses, or is released
            return
        if stored.out.state == "running" and not resume(stored, self._registry, self.db):
            return
        try:
            handle = self._registry.get(stored.out.workspace)
        except ApiError:  # deleted while the job waited
            self.db.delete([stored.out.id])
            return
        job = _Job(stored, handle, Guard(self.settings.job_timeout_s, self.settings.job_memory_mb))
        with self._changed:
            self._running = job
            self._set(job, state="running", started_at=job.out.started_at or now())
        self._run(job)

    def _run(self, job: _Job) -> None:
        guard = job.guard
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
            if reason is SHUTDOWN or reason is LOST:  # its uploads stay: it resumes
                return
            with self._changed:
                for f in end_files(job.stored, reason):
                    discard(f)
                self._set(job, state=reason.state, finished_at=now(),
                          error=None if reason.state == "cancelled" else ErrorInfo(message=reason.message,
                                                                                   hint=reason.hint))
            return
        except GechatError as e:
            with self._changed:
                for f in end_files(job.stored, StopReason("failed", e.message, e.hint)):
                    discard(f)
                self._set(job, state="failed", finished_at=now(), error=ErrorInfo(message=e.message, hint=e.hint))
            return
        with self._changed:
            self._set(job, state="done", finished_at=now())

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
                guard.check()  # a stop that came during a parse the file then failed on its own: no report since
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
            fields = stopped_fields(ws, job.out.workspace, f, guard.reason or CANCELLED)
            if fields is not None:  # added already (its graph partial); else end_files marks it
                self._file(job, i, **fields)
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

    # --- state changes: each is saved, bumps the version and wakes the event streams ---
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
        if not self._closed.is_set() and not job.detached:  # a job stopped by the shutdown stays unfinished
            self.db.save(job.stored)
        self._changed.notify_all()

