"""What a job's worker needs around ``Workspace.add``: the locks it shares with questions and
page images, the shapes its results are reported in, and what a start (or a claim of a job
another server left) does with unfinished jobs and stray uploads."""

from __future__ import annotations

import contextlib
import logging
import time
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

from gechat.api.graph_status import finish_url, graph_state
from gechat.api.job_guard import StopReason
from gechat.api.job_store import StoredJob
from gechat.api.locks import MODEL, MUPDF_LOCK
from gechat.api.models import DocumentOut, ErrorInfo, GraphCost
from gechat.api.problems import ApiError
from gechat.api.uploads import SavedFile
from gechat.api.workspaces import WorkspaceRegistry
from gechat.errors import GechatError
from gechat.graph.build import BuildReport
from gechat.pipeline import AddResult, Workspace
from gechat.store.base import JobRecords
from gechat.types import Document

log = logging.getLogger("gechat.api")
# with replicas, an upload younger than this may be another server's, its job not yet submitted
UPLOAD_GRACE_S = 600.0


class ParseGuard:
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


def llm_access(ws: Workspace) -> AbstractContextManager[object]:
    """An LLM graph extractor shares the one local model with the questions."""
    return MODEL.for_question() if ws.settings.graph == "llm" else contextlib.nullcontext()


def document_at(ws: Workspace, path: Path) -> Document | None:
    return next((d for d in ws.documents() if d.path == str(path)), None)


def result_fields(res: AddResult) -> dict[str, object]:
    out: dict[str, object] = {"step": "done", "status": res.status, "seconds": round(res.seconds, 3)}
    if res.document is not None:
        out["document"] = DocumentOut.of(res.document)
    if res.error is not None:
        out["error"] = ErrorInfo(message=res.error.message, hint=res.error.hint or None)
    if res.graph is not None:
        out["graph"] = graph_cost(res.graph)
    if res.graph_error is not None:
        out["graph_error"] = ErrorInfo(message=res.graph_error.message, hint=res.graph_error.hint or None)
    return out


def graph_cost(r: BuildReport) -> GraphCost:
    c = r.cost
    return GraphCost(extractor=r.extractor, chunks_done=r.chunks_done, chunks_total=r.chunks_total,
                     chunks_failed=r.chunks_failed, llm_calls=c.llm_calls, cache_hits=c.cache_hits,
                     prompt_tokens=c.prompt_tokens, completion_tokens=c.completion_tokens,
                     seconds=round(c.seconds, 3), stopped=r.stopped)


def discard(f: SavedFile) -> None:
    """Removes an upload no document points to (it failed, or duplicates a document added before)."""
    if f.created:
        f.path.unlink(missing_ok=True)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def resume(stored: StoredJob, registry: WorkspaceRegistry, db: JobRecords) -> bool:
    """An unfinished job whose server stopped: True to run it again (``resumed`` counted).
    Dropped when its workspace is gone; failed, and saved so, when its uploads are gone."""
    try:
        registry.get(stored.out.workspace)
    except ApiError:  # the workspace is gone, and with it the job's business
        db.delete([stored.out.id])
        return False
    out = stored.out
    lost = ErrorInfo(message="the uploaded file was gone when the server restarted", hint="upload it again")
    for p, f in zip(out.files, stored.files, strict=False):
        if p.status == "pending" and out.kind == "add" and not f.path.is_file():
            p.status, p.step, p.error = "failed", "done", lost
    if out.kind == "add" and all(p.status != "pending" for p in out.files):
        out.state, out.finished_at = "failed", now()
        out.error = ErrorInfo(message="the server stopped during this job, and its uploaded files are gone",
                              hint=lost.hint)
        db.save(stored)
        return False
    out.resumed += 1
    return True


def clean_uploads(registry: WorkspaceRegistry, db: JobRecords) -> None:
    """Removes uploaded files that no document and no unfinished job uses (with replicas, only
    those older than ``UPLOAD_GRACE_S``)."""
    wanted = {str(f.path) for j in db.load(unfinished=True) for f in j.files}
    cutoff = time.time() - UPLOAD_GRACE_S if db.shared else float("inf")
    for ws_id in registry.ids():
        try:
            h = registry.get(ws_id)
            files = [p for p in h.uploads.iterdir() if p.is_file()] if h.uploads.is_dir() else []
            files = [p for p in files if p.stat().st_mtime < cutoff]
            if files:
                wanted |= {d.path for d in h.workspace().documents()}
        except (GechatError, OSError) as e:  # a broken workspace keeps its files; the rest go on
            log.warning("workspace %s: uploads not checked: %s", ws_id, e)
            continue
        for p in files:
            if str(p.resolve()) not in wanted:
                p.unlink(missing_ok=True)
                log.info("removed %s: no document or job uses it", p)


def end_files(stored: StoredJob, reason: StopReason) -> list[SavedFile]:
    """Marks the files the job did not get to; their uploads (no document has them) are for
    the caller to remove, once the change is saved."""
    gone = []
    for f, p in zip(stored.files, stored.out.files, strict=False):
        if p.status == "pending":
            gone.append(f)
            p.step, p.status = "done", reason.state
            p.error = None if reason.state == "cancelled" else ErrorInfo(message=reason.message, hint=reason.hint)
    if stored.out.kind == "graph" and stored.out.files and stored.out.files[0].status == "pending":
        stored.out.files[0].status = reason.state
    return gone


def stopped_fields(ws: Workspace, ws_id: str, f: SavedFile, reason: StopReason) -> dict[str, object] | None:
    """The file a stop caught, when it was added already (its graph maybe partial); None when
    it was not added at all."""
    doc = document_at(ws, f.path)
    if doc is None:
        return None
    g = graph_state(ws, doc.id)
    err = None if g.status == "complete" or g.extractor is None else ErrorInfo(
        message=f"{reason.message}: the graph is {g.status} ({g.chunks_done}/{g.chunks_total} chunks)",
        hint=f"POST {finish_url(ws_id, doc)} finishes it")
    return {"step": "done", "status": "added", "document": DocumentOut.of(doc, g), "graph_error": err}
