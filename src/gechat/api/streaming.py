"""Asking with the answer streamed as it is generated, and server-sent events.

``Workspace.ask`` returns only when everything is done; a person waiting on a local model
wants to read the answer as it comes. ``ask_stream`` is ``Workspace.ask_events`` with the
answerer's token stream (the same stages, the same final ``Answer``; only the usage counts
differ: a stream reports one completion token per delta and no prompt tokens); this module
turns the events into server-sent events.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager

import anyio

from gechat.api.problems import internal_problem, problem_of
from gechat.errors import GechatError, StoreError
from gechat.pipeline import AskEvent, Final, Stage, Token, Workspace
from gechat.types import Answer

log = logging.getLogger("gechat.api")
KEEPALIVE_S = 10.0  # an SSE comment this often keeps proxies from closing a quiet stream
POLL_S = 1.0  # how soon a stream notices its client has gone (and stops the model)
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}  # no proxy may buffer the stream
# for the OpenAPI schema: what each event of a stream holds (its `data` is one line of JSON)
SSE_DOC = {"content": {"text/event-stream": {"schema": {
    "type": "object", "required": ["data"],
    "properties": {"event": {"type": "string"}, "data": {"type": "string"}, "id": {"type": "string"}}}}}}


def check_question(ws: Workspace, question: str) -> str:
    """What asking refuses, refused before a stream starts (so it is a 4xx, not an event)."""
    try:
        return ws.check_question(question)
    except StoreError as e:
        if "no documents" in e.message:
            raise StoreError(e.message, hint="upload some: POST /v1/workspaces/{ws}/documents") from None
        raise


def ask_stream(ws: Workspace, question: str, correct: bool | None = None) -> Iterator[AskEvent]:
    """``Workspace.ask`` step by step: stages, then token deltas, then the final Answer."""
    return ws.ask_events(question, stream=True, correct=correct)


def final_answer(events: Iterator[AskEvent]) -> Answer:
    for e in events:
        if isinstance(e, Final):
            return e.answer
    raise AssertionError("ask_stream ended without an answer")


def sse(event: str, data: str) -> str:
    return f"event: {event}\ndata: {data}\n\n"  # data is one line of JSON: JSON escapes newlines


def encode(e: AskEvent) -> str:
    if isinstance(e, Token):
        return sse("token", json.dumps({"text": e.text}, ensure_ascii=False))
    if isinstance(e, Stage):
        return sse("stage", json.dumps({"stage": e.name}))
    return sse("answer", e.answer.model_dump_json())


def sse_from_thread(make: Callable[[], Iterator[AskEvent]],
                    hold: Callable[[], AbstractContextManager[object]]) -> AsyncIterator[str]:
    """Runs the events in their own thread, inside ``hold()`` (the model), and relays them as SSE text.

    One thread from start to end, because the LLM wrapper counts usage per thread; the
    relay only waits on a queue. When the client goes away the thread stops at the next
    token, which frees the model for the next question.
    """
    q: queue.Queue[str | None] = queue.Queue()
    cancel = threading.Event()

    def produce() -> None:
        try:
            with hold():
                if cancel.is_set():  # the client left while another question held the model
                    return
                events = make()
                try:
                    for e in events:
                        if cancel.is_set():
                            break
                        q.put(encode(e))
                finally:
                    close = getattr(events, "close", None)
                    if close is not None:
                        close()
        except GechatError as e:
            q.put(sse("error", problem_of(e).model_dump_json(exclude_none=True)))
        except Exception:
            log.exception("ask stream failed")
            q.put(sse("error", internal_problem().model_dump_json(exclude_none=True)))
        finally:
            q.put(None)

    threading.Thread(target=produce, name="gechat-ask", daemon=True).start()
    return relay(lambda: _next(q), cancel)


async def relay(get: Callable[[], str | None], cancel: threading.Event | None = None) -> AsyncIterator[str]:
    """Yields what ``get`` returns until None; ``get`` blocks (so it runs in a worker thread) for
    at most POLL_S and returns "" when there is nothing yet, so a gone client is noticed soon."""
    quiet_since = time.monotonic()
    try:
        while (item := await anyio.to_thread.run_sync(get)) is not None:
            now = time.monotonic()
            if item:
                yield item
                quiet_since = now
            elif now - quiet_since > KEEPALIVE_S:
                yield ": keepalive\n\n"
                quiet_since = now
    finally:
        if cancel is not None:
            cancel.set()


def _next(q: queue.Queue[str | None]) -> str | None:
    try:
        return q.get(timeout=POLL_S)
    except queue.Empty:
        return ""
