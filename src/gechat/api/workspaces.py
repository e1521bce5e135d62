"""Workspaces on the server: one directory under the root per id, one Workspace object each.

A workspace's SQLite file is written by one thread at a time: ingestion and deletion hold
its ``write_lock``. Reads (listing, asking) need no lock; the store serialises its own
connection.

Deleting a workspace while others use it: every request on a workspace is counted in flight
(``WorkspaceHandle.using``, entered by the routes' ``Handle`` dependency for the whole
request, a streamed answer included). A delete waits for the running job, then for the
requests in flight (refusing new ones with a 409 meanwhile), or answers 409 after
``wait_s``; then it marks the handle deleted, closes the database, and renames the folder
away in one step under the registry lock before removing it. So nothing can reopen the
database or recreate the folder after a delete: the handle refuses (404), and a new handle
is only made for a folder that exists.
"""

from __future__ import annotations

import contextlib
import copy
import re
import shutil
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

from gechat.api.locks import MODEL, ModelAccess
from gechat.api.models import WS_ID_PATTERN
from gechat.api.problems import ApiError
from gechat.pipeline import Workspace
from gechat.retrieve import RETRIEVERS
from gechat.settings import Settings
from gechat.store.registry import open_store

WorkspaceFactory = Callable[[Path, Settings], Workspace]
_VALID = re.compile(WS_ID_PATTERN)
# a write waits this long for a running ingestion job or question, then gets a 409 to retry
WRITE_WAIT_S = 30.0
TRASH = ".deleted-"  # a deleted workspace's folder, renamed, until removed; no id starts with a dot


@contextlib.contextmanager
def holding(*locks: WriteLock | threading.Lock | ModelAccess, timeout: float = WRITE_WAIT_S) -> Iterator[None]:
    """Acquires the locks in order (always the same order everywhere: no deadlock), or 409.
    For requests in flight only: waiting for a workspace's write lock, they step out of it."""
    with contextlib.ExitStack() as stack:
        for lock in locks:
            got = lock.acquire_for_request(timeout) if isinstance(lock, WriteLock) else lock.acquire(timeout=timeout)
            if not got:
                raise ApiError(409, "the workspace is busy (adding documents or answering a question)",
                               hint="retry when the running job or question is finished")
            stack.callback(lock.release)
        yield


class WriteLock:
    """A workspace's write lock (ingestion, removing a document, deleting the workspace).

    A request waiting for it is not counted in flight while it waits: a delete holds this lock
    while it waits for the requests in flight, and would otherwise wait for one that waits for
    it. Once it has the lock the request counts again (and finds the workspace deleted, if it is).
    """

    def __init__(self, handle: WorkspaceHandle) -> None:
        self._lock = threading.Lock()
        self._handle = handle

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        return self._lock.acquire(blocking, timeout)

    def release(self) -> None:
        self._lock.release()

    def locked(self) -> bool:
        return self._lock.locked()

    def __enter__(self) -> bool:
        return self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()

    def acquire_for_request(self, timeout: float) -> bool:
        self._handle._step(-1)
        try:
            return self._lock.acquire(timeout=timeout)
        finally:
            self._handle._step(+1)


class WorkspaceHandle:
    def __init__(self, ws_id: str, path: Path, settings: Settings, factory: WorkspaceFactory) -> None:
        self.id, self.path = ws_id, path
        self.write_lock = WriteLock(self)
        self.deleted = False
        self._settings, self._factory = settings, factory
        self._ws: Workspace | None = None
        self._views: dict[str, Workspace] = {}
        self._build = threading.Lock()
        self._flight = threading.Condition()  # guards the three below; lock order: _build, then _flight
        self._in_flight = 0
        self._closing = False

    @property
    def uploads(self) -> Path:
        return self.path / "uploads"

    @contextlib.contextmanager
    def using(self, *, join: bool = False) -> Iterator[WorkspaceHandle]:
        """Counts a request working in the workspace: a delete waits for it to finish. Refused
        once deleted (404), and while a delete waits for the others (409), unless ``join``: the
        thread of a request already counted (a streamed answer's) joins it."""
        with self._flight:
            if self.deleted:
                raise _gone(self.id)
            if self._closing and not join:
                raise ApiError(409, f"workspace {self.id!r} is being deleted",
                               hint="retry: it is gone once the delete returns (or still there if it was refused)")
            self._in_flight += 1
        try:
            yield self
        finally:
            self._step(-1)

    def _step(self, by: int) -> None:
        with self._flight:
            self._in_flight += by
            self._flight.notify_all()

    @contextlib.contextmanager
    def asking(self) -> Iterator[None]:
        """For a streamed answer's thread: in flight with its request, and holding the model."""
        with self.using(join=True), MODEL.for_question():
            yield

    def workspace(self) -> Workspace:
        with self._build:
            if self.deleted:
                raise _gone(self.id)
            if self._ws is None:
                if not self.path.is_dir():  # removed under us: never let the store create it again
                    raise _gone(self.id)
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

    def drain(self, timeout: float) -> bool:
        """Refuses new requests and waits for those in flight; False (and open again) after ``timeout``."""
        with self._flight:
            if self.deleted:
                raise _gone(self.id)
            self._closing = True
            if self._flight.wait_for(lambda: self._in_flight == 0, timeout):
                return True
            self._closing = False
            return False

    def mark_deleted(self) -> None:
        with self._build, self._flight:
            self.deleted, self._closing = True, False


class WorkspaceRegistry:
    def __init__(self, root: Path, settings: Settings, factory: WorkspaceFactory | None = None) -> None:
        self.root = root
        self.settings = settings
        self.wait_s = WRITE_WAIT_S  # how long a delete waits for the job and the requests in flight
        self._factory: WorkspaceFactory = factory or Workspace
        self._handles: dict[str, WorkspaceHandle] = {}
        self._lock = threading.Lock()
        root.mkdir(parents=True, exist_ok=True)
        for left in root.glob(TRASH + "*"):  # a server stopped while removing one
            shutil.rmtree(left, ignore_errors=True)

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
            if not (self.root / ws_id).is_dir():
                if h is not None:  # deleted through another server sharing this root
                    self._handles.pop(ws_id)
                    h.mark_deleted()
                    h.close()
                raise _gone(ws_id)
            return h if h is not None else self._handle(ws_id)

    def delete(self, ws_id: str) -> None:
        """Waits for the workspace's running job and the requests in flight (409 after
        ``wait_s``), then removes it and its files; nothing reopens it after."""
        h = self.get(ws_id)
        if not h.write_lock.acquire(timeout=self.wait_s):  # not ``holding``: this is no request in flight
            raise ApiError(409, f"workspace {ws_id!r} is busy adding documents",
                           hint="retry when the running job is finished; nothing was deleted")
        try:
            if not h.drain(self.wait_s):
                raise ApiError(409, f"workspace {ws_id!r} is busy: requests are still working in it",
                               hint="retry when they are answered; nothing was deleted")
            h.mark_deleted()
            h.close()
            open_store(self.settings, h.path).drop()  # a shared store's rows (the file goes below)
            trash = self.root / f"{TRASH}{ws_id}-{uuid.uuid4().hex[:8]}"
            with self._lock:
                self._handles.pop(ws_id, None)
                try:
                    h.path.rename(trash)  # gone from the listing at once, whatever rmtree meets
                except OSError:
                    trash = h.path
        finally:
            h.write_lock.release()
        shutil.rmtree(trash, ignore_errors=True)

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
