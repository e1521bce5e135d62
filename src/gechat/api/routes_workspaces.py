"""Health, workspaces, and the ingestion jobs: status, events, a workspace's list, cancel."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request, Response
from fastapi.responses import StreamingResponse

import gechat
from gechat.api.access import visible
from gechat.api.jobs import FINISHED
from gechat.api.models import Health, JobList, JobOut, WorkspaceCreate, WorkspaceList, WorkspaceOut
from gechat.api.problems import responses
from gechat.api.state import Handle, State, WsId
from gechat.api.streaming import POLL_S, SSE_DOC, SSE_HEADERS, relay, sse

router = APIRouter(prefix="/v1")
JobId = Annotated[str, Path(pattern=r"^[0-9a-f]{32}$")]


@router.get("/health", tags=["server"], responses=responses())
def health() -> Health:
    """Always open, even with an API key set."""
    return Health(version=gechat.__version__)


@router.get("/workspaces", tags=["workspaces"], responses=responses(401))
def list_workspaces(state: State, request: Request) -> WorkspaceList:
    """With API keys in force, only the workspaces the key has a grant on."""
    return WorkspaceList(workspaces=visible(request, state.workspaces.ids()))


@router.post("/workspaces", status_code=201, tags=["workspaces"], responses=responses(400, 401, 409))
def create_workspace(body: WorkspaceCreate, state: State, response: Response) -> WorkspaceOut:
    state.workspaces.create(body.id)
    response.headers["Location"] = f"/v1/workspaces/{body.id}"
    return WorkspaceOut(id=body.id)


@router.delete("/workspaces/{ws}", tags=["workspaces"], responses=responses(401, 404, 409))
def delete_workspace(ws: WsId, state: State) -> WorkspaceOut:
    """Removes the workspace, its documents, its uploaded files and its jobs; cancels its
    running job first (what it had added goes with the workspace)."""
    state.workspaces.get(ws)  # a 404 before anything is cancelled
    state.jobs.cancel_workspace(ws)
    state.workspaces.delete(ws)
    state.jobs.forget_workspace(ws)
    return WorkspaceOut(id=ws)


@router.get("/workspaces/{ws}/jobs", tags=["jobs"], responses=responses(401, 404))
def workspace_jobs(h: Handle, state: State) -> JobList:
    """The workspace's jobs, newest first: those running and queued, and the latest finished."""
    return JobList(jobs=state.jobs.list(h.id))


@router.get("/jobs/{job_id}", tags=["jobs"], responses=responses(401, 404))
def job_status(job_id: JobId, state: State) -> JobOut:
    """Jobs are stored: a restart resumes an unfinished one (`resumed` counts how often), or
    fails it with the reason when its uploaded files are gone."""
    return state.jobs.get(job_id)


@router.delete("/jobs/{job_id}", tags=["jobs"], responses=responses(401, 404))
def cancel_job(job_id: JobId, state: State) -> JobOut:
    """Cancels a queued or running job, and answers once it has stopped (a second or two, also
    in the middle of parsing a big file): `cancelled`, the files added so far kept, the rest
    marked `cancelled` and their uploads removed. A finished job is answered as it is."""
    return state.jobs.cancel(job_id)


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
