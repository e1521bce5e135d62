"""Documents: upload (as a job), list, text, pages, page images, delete, finish a graph; and asking."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, File, Query, Request, Response, UploadFile
from fastapi.responses import StreamingResponse

from gechat.api.graph_status import graph_state
from gechat.api.locks import MODEL
from gechat.api.models import (
    AskRequest,
    DocumentList,
    DocumentOut,
    DocumentText,
    JobAccepted,
    JobOut,
    PageList,
    PageSize,
    Prepared,
)
from gechat.api.pages import render_png
from gechat.api.problems import ApiError, responses
from gechat.api.state import Handle, State
from gechat.api.streaming import SSE_DOC, SSE_HEADERS, ask_stream, check_question, sse_from_thread
from gechat.api.uploads import Upload, check, safe_name, save
from gechat.api.workspaces import WorkspaceHandle, holding
from gechat.types import Answer, Document

router = APIRouter(prefix="/v1/workspaces/{ws}", tags=["documents"])
DOC = "/documents/{doc_id}"


@router.post("/documents", status_code=202, responses=responses(400, 401, 404, 413, 415))
def upload(h: Handle, state: State, response: Response, files: Annotated[list[UploadFile], File(
        description="One or more of .pdf .docx .txt .md .html")]) -> JobAccepted:
    """Checks every file (type by suffix and first bytes, size) before keeping any, then adds
    them in a background job; poll `status_url` or follow `events_url`."""
    ups = [Upload(safe_name(f.filename), f.file) for f in files]
    for up in ups:
        check(up, state.upload_limit)
    return _accepted(state.jobs.submit(h, [save(up, h.uploads) for up in ups]), response)


@router.get("/documents", responses=responses(401, 404))
def list_documents(h: Handle) -> DocumentList:
    """Each with its graph's status: `partial` (or `none` where the workspace builds graphs)
    means a build was cut short; `POST .../documents/{doc_id}/graph` finishes it."""
    ws = h.workspace()
    return DocumentList(documents=[DocumentOut.of(d, graph_state(ws, d.id)) for d in ws.documents()])


@router.get(DOC, responses=responses(401, 404))
def get_document(h: Handle, doc_id: int) -> DocumentOut:
    return DocumentOut.of(_doc(h, doc_id), graph_state(h.workspace(), doc_id))


@router.post(DOC + "/graph", status_code=202, responses=responses(401, 404, 409))
def finish_graph(h: Handle, state: State, response: Response, doc_id: int) -> JobAccepted:
    """Queues a job that extends the document's graph with the chunks not in it yet: what a
    killed server, a cancel or a budget left partial. A complete graph's job ends at once."""
    doc = _doc(h, doc_id)
    if h.workspace().settings.graph == "none":
        raise ApiError(409, "this server builds no knowledge graph (graph = none)",
                       hint="start the server with graph = fast or llm to build graphs")
    return _accepted(state.jobs.submit_graph(h, doc), response)


@router.delete(DOC, responses=responses(401, 404, 409))
def delete_document(h: Handle, doc_id: int) -> DocumentOut:
    """Removes the document, its index and graph, and its uploaded file."""
    # after the running job and question: neither may see the document vanish halfway
    with holding(h.write_lock, MODEL):
        doc = _doc(h, doc_id)
        ws = h.workspace()
        ws.remove(doc.id)
        path = Path(doc.path)
        if path.parent == h.uploads.resolve() and all(d.path != doc.path for d in ws.documents()):
            path.unlink(missing_ok=True)
    return DocumentOut.of(doc)


@router.get(DOC + "/text", responses=responses(401, 404))
def document_text(h: Handle, doc_id: int) -> DocumentText:
    """The extracted text: evidence `start`/`end` offsets index it."""
    doc = _doc(h, doc_id)
    return DocumentText(doc_id=doc.id, text=h.workspace().store.document_text(doc.id))


@router.get(DOC + "/pages", responses=responses(401, 404))
def document_pages(h: Handle, doc_id: int) -> PageList:
    """Page sizes in PDF points, to place evidence boxes (also in points) on page images."""
    doc = _doc(h, doc_id)
    pages = h.workspace().store.pages(doc.id)
    return PageList(doc_id=doc.id, kind=doc.kind, pages=[
        PageSize(number=p.number, width=p.width, height=p.height, start=p.start, end=p.end) for p in pages])


@router.get(DOC + "/pages/{n}.png", response_class=Response, responses={
    **responses(401, 404), 200: {"description": "The page as a PNG", "content": {"image/png": {}}}})
def page_image(h: Handle, doc_id: int, n: int,
               scale: Annotated[float, Query(gt=0, le=4, description="Pixels per PDF point")] = 1.5) -> Response:
    doc = _doc(h, doc_id)
    if doc.kind != "pdf":
        raise ApiError(404, f"document {doc.id} is a {doc.kind} file: only PDFs have page images",
                       hint=f"GET /v1/workspaces/{h.id}/documents/{doc.id}/text has its text")
    if not 1 <= n <= doc.n_pages:
        raise ApiError(404, f"no page {n}: the document has {doc.n_pages}", hint="pages are numbered from 1")
    png = render_png(Path(doc.path), n, scale)
    return Response(png, media_type="image/png", headers={"Cache-Control": "private, max-age=3600"})


@router.post("/ask", tags=["ask"], response_model=Answer, responses={
    **responses(400, 401, 404, 409, 503),
    200: {"description": "The answer; with `Accept: text/event-stream` or `?stream=true`, server-sent events: "
                         "`stage`, `token` (text deltas as generated), then one `answer` (this schema), "
                         "or `error` (a problem)", **SSE_DOC}})
def ask(body: AskRequest, h: Handle, request: Request,
        stream: Annotated[bool, Query(description="Stream server-sent events")] = False) -> Answer | Response:
    """Answers from this workspace's documents, every claim with verbatim evidence and a verdict.
    One question at a time per server: there is one local model."""
    ws = h.for_retriever(body.retriever)
    question = check_question(ws, body.question)  # refusals are problems, before any stream starts
    if stream or "text/event-stream" in request.headers.get("accept", ""):
        return StreamingResponse(sse_from_thread(lambda: ask_stream(ws, question, body.correct), h.asking),
                                 media_type="text/event-stream", headers=SSE_HEADERS)
    with MODEL.for_question():
        return ws.ask(question, correct=body.correct)


@router.post("/ask/prepare", tags=["ask"], responses=responses(400, 401, 404, 409, 503))
def prepare(body: AskRequest, h: Handle) -> Prepared:
    """Has the model read the excerpts this question retrieves, so that asking it, or a
    question that retrieves the same excerpts, starts answering at once: the page sends the
    question here while it is still being typed. Never waits: when the model is busy with
    a question, it does nothing; a question asked while it reads, or a newer read-ahead,
    stops it (what was read so far is kept)."""
    ws = h.for_retriever(body.retriever)
    question = check_question(ws, body.question)
    with MODEL.for_read_ahead() as stop:
        if stop is None:
            return Prepared(prepared=False, busy=True)
        return Prepared(prepared=ws.prepare(question, stop=stop), busy=False)


def _accepted(job: JobOut, response: Response) -> JobAccepted:
    status_url = f"/v1/jobs/{job.id}"
    response.headers["Location"] = status_url
    return JobAccepted(job_id=job.id, status_url=status_url, events_url=f"{status_url}/events")


def _doc(h: WorkspaceHandle, doc_id: int) -> Document:
    for d in h.workspace().documents():
        if d.id == doc_id:
            return d
    raise ApiError(404, f"no document {doc_id} in workspace {h.id!r}",
                   hint=f"GET /v1/workspaces/{h.id}/documents lists them")
