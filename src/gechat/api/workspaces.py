"""Workspaces on the server: one directory under the root per id, one Workspace object each.

A workspace's SQLite file is written by one thread at a time: ingestion and deletion hold
its ``write_lock``. Reads (listing, asking) need no lock; the store serialises its own
connection.
"""

from __future__ import annotations

import contextlib
import copy
import re
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from gechat.api.locks import MODEL, ModelAccess
from gechat.api.models import WS_ID_PATTERN
from gechat.api.problems import ApiError
from gechat.pipeline import Workspace
from gechat.retrieve import RETRIEVERS
from gechat.settings import Settings

WorkspaceFactory = Callable[[Path, Settings], Workspace]
_VALID = re.compile(WS_ID_PATTERN)
# a write waits this long for a running ingestion job or question, then gets a 409 to retry
WRITE_WAIT_S = 30.0


@contextlib.contextmanager
def holding(*locks: threading.Lock | ModelAccess, timeout: float = WRITE_WAIT_S) -> Iterator[None]:
    """Acquires the locks in order (always the same order everywhere: no deadlock), or 409."""
    with contextlib.ExitStack() as stack:
        for lock in locks:
            if not lock.acquire(timeout=timeout):
                raise ApiError(409, "the workspace is busy (adding documents or answering a question)",
                               hint="retry when the running job or question is finished")
            stack.callback(lock.release)
        yield


class WorkspaceHandle:
    def __init__(self, ws_id: str, path: Path, settings: Settings, factory: WorkspaceFactory) -> None:
        self.id, self.path = ws_id, path
        self.write_lock = threading.Lock()
        self.deleted = False
        self._settings, self._factory = settings, factory
        self._ws: Workspace | None = None
        self._views: dict[str, Workspace] = {}
        self._build = threading.Lock()

    @property
    def uploads(self) -> Path:
        return self.path / "uploads"

    def workspace(self) -> Workspace:
        with self._build:
            if self.deleted:
                raise _gone(self.id)
            if self._ws is None:
                self._ws = self._factory(self.path, self._settings)
            return self._ws

    def for_retriever(self, name: str | None) -> Workspace:
        """The workspace, or a view of it asking with another retriever.

        The view is a shallow copy: the store and the models are the same objects, only the
        settings and the retriever differ, so ``ask`` behaves exactly as the library's.
        """
        ws = self.workspace()
        if name is None or name == ws.settings.retriever:
            return ws
        if name not in RETRIEVERS.names():
            raise ApiError(422, f"unknown retriever {name!r}", hint=f"choose one of: {', '.join(RETRIEVERS.names())}")
        with self._build:
            view = self._views.get(name)
            if view is None:
                # built here first, so the copy shares them instead of loading its own
                _ = ws.embedder, ws.scorer, ws.llm
                view = copy.copy(ws)
                view.settings = ws.settings.model_copy(update={"retriever": name})
                view.__dict__.pop("retriever", None)
                self._views[name] = view
            return view

    def close(self) -> None:
        with self._build:
            if self._ws is not None:
                self._ws.close()
            self._ws, self._views = None, {}


class WorkspaceRegistry:
    def __init__(self, root: Path, settings: Settings, factory: WorkspaceFactory | None = None) -> None:
        self.root = root
        self.settings = settings
        self._factory: WorkspaceFactory = factory or Workspace
        self._handles: dict[str, WorkspaceHandle] = {}
        self._lock = threading.Lock()
        root.mkdir(parents=True, exist_ok=True)

    def ids(self) -> list[str]:
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and _VALID.fullmatch(p.name))

    def create(self, ws_id: str) -> WorkspaceHandle:
        _check_id(ws_id)
        with self._lock:
            path = self.root / ws_id
            if path.exists():
                raise ApiError(409, f"workspace {ws_id!r} already exists", hint="pick another id, or use it as it is")
            path.mkdir()
            return self._handle(ws_id)

    def get(self, ws_id: str) -> WorkspaceHandle:
        _check_id(ws_id)
        with self._lock:
            h = self._handles.get(ws_id)
            if h is not None:
                return h
            if not (self.root / ws_id).is_dir():
                raise _gone(ws_id)
            return self._handle(ws_id)

    def delete(self, ws_id: str) -> None:
        """Waits for the workspace's running job and any ask, then removes it and its files."""
        h = self.get(ws_id)
        with holding(h.write_lock, MODEL):
            with self._lock:
                h.deleted = True
                self._handles.pop(ws_id, None)
            h.close()
            shutil.rmtree(h.path, ignore_errors=True)

    def close(self) -> None:
        with self._lock:
            handles, self._handles = list(self._handles.values()), {}
        for h in handles:
            h.close()

    def _handle(self, ws_id: str) -> WorkspaceHandle:
        h = WorkspaceHandle(ws_id, self.root / ws_id, self.settings, self._factory)
        self._handles[ws_id] = h
        return h


def _check_id(ws_id: str) -> None:
    # the routes validate too; this guards every other caller against paths like "../x"
    if not _VALID.fullmatch(ws_id):
        raise ApiError(422, f"bad workspace id {ws_id!r}", hint="use letters, digits, _ and -; at most 64")


def _gone(ws_id: str) -> ApiError:
    return ApiError(404, f"no workspace {ws_id!r}", hint="GET /v1/workspaces lists them; POST creates one")
