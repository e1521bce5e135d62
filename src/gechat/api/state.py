"""What the routes share, kept on ``app.state`` and handed to them as dependencies."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Path, Request

from gechat.api.jobs import JobStore
from gechat.api.models import WS_ID_PATTERN
from gechat.api.uploads import UploadLimit
from gechat.api.workspaces import WorkspaceHandle, WorkspaceRegistry
from gechat.settings import Settings


@dataclass
class ServerState:
    settings: Settings
    workspaces: WorkspaceRegistry
    jobs: JobStore
    upload_limit: UploadLimit


def get_state(request: Request) -> ServerState:
    state: ServerState = request.app.state.gechat
    return state


State = Annotated[ServerState, Depends(get_state)]
WsId = Annotated[str, Path(pattern=WS_ID_PATTERN, description="Letters, digits, _ and -; at most 64.")]


async def get_handle(ws: WsId, state: State) -> AsyncIterator[WorkspaceHandle]:
    """The workspace, counted in flight until the response is sent (a streamed one too): a
    delete waits for it. Async, so entering and leaving never wait for a worker thread."""
    with state.workspaces.get(ws).using() as h:
        yield h


Handle = Annotated[WorkspaceHandle, Depends(get_handle)]
