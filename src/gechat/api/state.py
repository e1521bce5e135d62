"""What the routes share, kept on ``app.state`` and handed to them as dependencies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Path, Request

from gechat.api.jobs import JobStore
from gechat.api.models import WS_ID_PATTERN
from gechat.api.workspaces import WorkspaceHandle, WorkspaceRegistry
from gechat.settings import Settings


@dataclass
class ServerState:
    settings: Settings
    workspaces: WorkspaceRegistry
    jobs: JobStore
    max_upload_bytes: int


def get_state(request: Request) -> ServerState:
    state: ServerState = request.app.state.gechat
    return state


State = Annotated[ServerState, Depends(get_state)]
WsId = Annotated[str, Path(pattern=WS_ID_PATTERN, description="Letters, digits, _ and -; at most 64.")]


def get_handle(ws: WsId, state: State) -> WorkspaceHandle:
    return state.workspaces.get(ws)


Handle = Annotated[WorkspaceHandle, Depends(get_handle)]
