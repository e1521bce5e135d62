"""Request and response bodies of the REST API (the OpenAPI schema is built from these).

Answers are the library's own ``gechat.types.Answer``; documents leave out the server's
file path (a client has no use for it, and it says where a person keeps their files).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from gechat.retrieve import RETRIEVERS
from gechat.types import Document

WS_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"

JobState = Literal["queued", "running", "done", "failed", "cancelled"]
JobKind = Literal["add", "graph"]
FileStatus = Literal["pending", "added", "duplicate", "failed", "cancelled"]
GraphStatus = Literal["complete", "partial", "none"]


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    version: str


class WorkspaceCreate(BaseModel):
    id: str = Field(pattern=WS_ID_PATTERN, description="Letters, digits, _ and -; at most 64.")


class WorkspaceOut(BaseModel):
    id: str


class WorkspaceList(BaseModel):
    workspaces: list[str]


class GraphState(BaseModel):
    status: GraphStatus = Field(description="complete: every chunk is in the graph; partial: some are (an "
                                            "interrupted build: POST .../graph finishes it); none: no chunk is")
    extractor: str | None = Field(description="The workspace's graph extractor; null: graphs are off")
    chunks_done: int
    chunks_total: int


class DocumentOut(BaseModel):
    id: int
    title: str
    file_name: str
    kind: str
    sha256: str
    n_pages: int
    n_sentences: int
    n_chunks: int
    added_at: str
    graph: GraphState | None = Field(default=None, description="How far the knowledge graph got (listings)")

    @classmethod
    def of(cls, d: Document, graph: GraphState | None = None) -> DocumentOut:
        return cls(id=d.id, title=d.title, file_name=Path(d.path).name, kind=d.kind, sha256=d.sha256,
                   n_pages=d.n_pages, n_sentences=d.n_sentences, n_chunks=d.n_chunks, added_at=d.added_at,
                   graph=graph)


class DocumentList(BaseModel):
    documents: list[DocumentOut]


class DocumentText(BaseModel):
    doc_id: int
    text: str = Field(description="The extracted text; evidence start/end index it (Unicode code points).")


class PageSize(BaseModel):
    number: int
    width: float = Field(description="PDF points (1/72 inch); 0 for documents without pages")
    height: float
    start: int = Field(description="Where the page's text starts in the document text")
    end: int


class PageList(BaseModel):
    doc_id: int
    kind: str
    pages: list[PageSize]


class ErrorInfo(BaseModel):
    message: str
    hint: str | None = None


class GraphCost(BaseModel):
    """How far a document's knowledge graph got and what it cost."""

    extractor: str
    chunks_done: int
    chunks_total: int
    chunks_failed: int = 0
    llm_calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    stopped: str | None = None


class FileProgress(BaseModel):
    name: str
    step: str = Field(default="queued", description="queued, reading, parsing, embedding, storing, graph, done")
    status: FileStatus = "pending"
    document: DocumentOut | None = None
    error: ErrorInfo | None = None
    graph: GraphCost | None = None
    graph_error: ErrorInfo | None = None
    seconds: float = 0.0


class JobOut(BaseModel):
    id: str
    workspace: str
    kind: JobKind = Field(default="add", description="add: upload files; graph: finish a document's graph")
    state: JobState
    created_at: str
    started_at: str | None = None
    finished_at: str | None = None
    files: list[FileProgress]
    error: ErrorInfo | None = Field(default=None,
                                    description="Why the job as a whole failed; per-file errors are in files")
    resumed: int = Field(default=0, description="How often a server restart picked this job up again")


class JobList(BaseModel):
    jobs: list[JobOut] = Field(description="Newest first")


class JobAccepted(BaseModel):
    job_id: str
    status_url: str
    events_url: str


class AskRequest(BaseModel):
    question: str = Field(min_length=1, max_length=4000)
    retriever: str | None = Field(default=None, description="default: the server's setting",
                                  json_schema_extra={"enum": [*RETRIEVERS.names(), None]})
    correct: bool | None = Field(default=None, strict=True, description=(
        "Also correct the answer (hallucination correction): the Answer's `corrected` holds the text and every "
        "edit; default: the server's setting"))


class Prepared(BaseModel):
    prepared: bool = Field(description="The model has read this question's excerpts: asking it now starts at once")
    busy: bool = Field(description="The model was answering another question; nothing was done")
