"""Health, workspaces, and the ingestion jobs' status and events."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response
from fastapi.responses import StreamingResponse

import gechat
from gechat.api.jobs import FINISHED
from gechat.api.models import Health, JobOut, WorkspaceCreate, WorkspaceList, WorkspaceOut
from gechat.api.problems import responses
from gechat.api.state import State, WsId
from gechat.api.streaming import POLL_S, SSE_DOC, SSE_HEADERS, relay, sse

router = APIRouter(prefix="/v1")
JobId = Annotated[str, Path(pattern=r"^[0-9a-f]{32}$")]


@router.get("/health", tags=["server"], responses=responses())
def health() -> Health:
    """Always open, even with an API key set."""
    return Health(version=gechat.__version__)


@router.get("/workspaces", tags=["workspaces"], responses=responses(401))
def list_workspaces(state: State) -> WorkspaceList:
    return WorkspaceList(workspaces=state.workspaces.ids())


@router.post("/workspaces", status_code=201, tags=["workspaces"], responses=responses(400, 401, 409))
def create_workspace(body: WorkspaceCreate, state: State, response: Response) -> WorkspaceOut:
    state.workspaces.create(body.id)
    response.headers["Location"] = f"/v1/workspaces/{body.id}"
    return WorkspaceOut(id=body.id)


@router.delete("/workspaces/{ws}", tags=["workspaces"], responses=responses(401, 404, 409))
def delete_workspace(ws: WsId, state: State) -> WorkspaceOut:
    """Removes the workspace, its documents and its uploaded files; waits for its running job."""
    state.workspaces.delete(ws)
    return WorkspaceOut(id=ws)


@router.get("/jobs/{job_id}", tags=["jobs"], responses=responses(401, 404))
def job_status(job_id: JobId, state: State) -> JobOut:
    """Jobs are kept in memory: a server restart forgets them (not the documents they added)."""
    return state.jobs.get(job_id)


@router.get("/jobs/{job_id}/events", tags=["jobs"], response_class=StreamingResponse,
            responses={**responses(401, 404), 200: {"description": "Server-sent events: `progress` "
                                                    "(the job as JSON) on every change, then one `done`.", **SSE_DOC}})
def job_events(job_id: JobId, state: State) -> StreamingResponse:
    jobs = state.jobs
    jobs.get(job_id)  # an unknown job is a 404, not an empty stream
    seen, finished = -1, False

    def get() -> str | None:
        nonlocal seen, finished
        if finished:
            return None
        job, version = jobs.wait(job_id, seen, POLL_S)
        if version == seen:
            return ""
        seen = version
        finished = job.state in FINISHED
        return sse("done" if finished else "progress", job.model_dump_json())

    return StreamingResponse(relay(get), media_type="text/event-stream", headers=SSE_HEADERS)
