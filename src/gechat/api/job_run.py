"""What a job's worker needs around ``Workspace.add``: the locks it shares with questions and
page images, and the shapes its results are reported in."""

from __future__ import annotations

import contextlib
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

from gechat.api.locks import MODEL, MUPDF_LOCK
from gechat.api.models import DocumentOut, ErrorInfo, GraphCost
from gechat.api.uploads import SavedFile
from gechat.graph.build import BuildReport
from gechat.pipeline import AddResult, Workspace
from gechat.types import Document


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
