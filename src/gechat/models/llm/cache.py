"""A persistent completion cache in front of any LLM, plus per-stage usage counting.

Local models are slow and the same prompt recurs constantly (re-asking a question,
re-running an evaluation), so completions are kept in SQLite keyed by everything that can
change the output. Streams and plain completions share keys: with the same parameters
they produce the same text.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from gechat.errors import ModelError
from gechat.models.llm.base import LLM, Completion, Message, Prefiller
from gechat.types import Usage

DEFAULT_STAGE = "other"


def cache_key(name: str, messages: list[Message], params: dict[str, Any]) -> str:
    canonical = json.dumps(
        {"llm": name, "messages": messages, "params": params},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class _Store:
    """key -> JSON value in SQLite; one connection shared by all threads behind a lock."""

    def __init__(self, path: Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            # WAL lets several gechat processes read while one writes
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.execute("CREATE TABLE IF NOT EXISTS completions (key TEXT PRIMARY KEY, value JSON NOT NULL)")
        except (OSError, sqlite3.Error) as e:
            raise ModelError(
                f"cannot open the LLM cache {path}: {e}",
                hint="delete the file, or set llm_cache = false",
            ) from None
        self._lock = threading.Lock()

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM completions WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            value = json.loads(row[0])
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        payload = json.dumps(value, ensure_ascii=False)
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO completions (key, value) VALUES (?, ?)", (key, payload))

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM completions").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


class CachedLLM:
    """Wraps ``inner``; with ``cache_path=None`` it only counts usage (no caching at all)."""

    def __init__(self, inner: LLM, cache_path: Path | None, usage: Usage | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.usage = usage if usage is not None else Usage()
        self._store = _Store(Path(cache_path)) if cache_path is not None else None
        self._local = threading.local()
        self._usage_lock = threading.Lock()
        # what the calls so far would have cost without the cache (hits replay the stored
        # counts of the original call): benchmarks report this, so a warm re-run reads the same
        self.cold: dict[str, float] = {"tokens": 0.0, "seconds": 0.0}
        self.spent_seconds = 0.0  # what the calls so far took, hits included

    @property
    def guided(self) -> bool:
        """Whether the inner model reads ``context`` messages in a pass of their own."""
        return bool(getattr(self.inner, "guided", False))

    # --- stages ---------------------------------------------------------------------------

    @property
    def current_stage(self) -> str:
        return str(getattr(self._local, "stage", DEFAULT_STAGE))

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Count calls made inside the block (in this thread) under ``name``."""
        previous = self.current_stage
        self._local.stage = name
        try:
            yield
        finally:
            self._local.stage = previous

    def _count(self, stage: str, *, hit: bool, prompt: int, completion: int, seconds: float,
               cold: dict[str, Any] | None = None) -> None:
        with self._usage_lock:
            self.spent_seconds += seconds
            if cold is None:
                self.cold["tokens"] += prompt + completion
                self.cold["seconds"] += seconds
            else:
                self.cold["tokens"] += int(cold.get("prompt_tokens", 0)) + int(cold.get("completion_tokens", 0))
                self.cold["seconds"] += float(cold.get("seconds", seconds))
            s = self.usage.stage(stage)
            s.calls += 1
            s.cache_hits += int(hit)
            s.prompt_tokens += prompt
            s.completion_tokens += completion
            s.seconds += seconds

    # --- the LLM protocol -----------------------------------------------------------------

    def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        json_schema: dict[str, Any] | None = None,
        seed: int = 0,
    ) -> Completion:
        stage = self.current_stage
        t0 = time.perf_counter()
        params = _params(max_tokens, temperature, stop, json_schema, seed)
        key = cache_key(self.name, messages, params)
        hit = self._hit(key)
        if hit is not None:
            seconds = time.perf_counter() - t0
            # a hit costs no tokens; the stored counts describe the original call
            self._count(stage, hit=True, prompt=0, completion=0, seconds=seconds, cold=hit)
            return Completion(
                text=hit["text"],
                prompt_tokens=int(hit.get("prompt_tokens", 0)),
                completion_tokens=int(hit.get("completion_tokens", 0)),
                seconds=seconds,
                cached=True,
            )
        out = self.inner.complete(
            messages,
            max_tokens=max_tokens,
            temperature=temperature,
            stop=stop,
            json_schema=json_schema,
            seed=seed,
        )
        if self._store is not None:
            self._store.put(
                key,
                out.model_dump(include={"text", "prompt_tokens", "completion_tokens", "seconds"}),
            )
        self._count(
            stage,
            hit=False,
            prompt=out.prompt_tokens,
            completion=out.completion_tokens,
            seconds=time.perf_counter() - t0,
        )
        return out.model_copy(update={"cached": False})

    def prefill(self, messages: list[Message], stop: Callable[[], bool] | None = None) -> bool:
        """Passed to the wrapped model when it can prefill; not counted as a call (it answers
        nothing). Callers skip it when the answer is cached (``has``)."""
        return isinstance(self.inner, Prefiller) and self.inner.prefill(messages, stop)

    def has(self, messages: list[Message], *, max_tokens: int = 512, temperature: float = 0.0,
            stop: list[str] | None = None, seed: int = 0) -> bool:
        """Whether this exact call is answered from the cache."""
        return self._hit(cache_key(self.name, messages, _params(max_tokens, temperature, stop, None, seed))) is not None

    def _hit(self, key: str) -> dict[str, Any] | None:
        """The stored call for ``key``, if there is a usable one."""
        if self._store is None:
            return None
        hit = self._store.get(key)
        return hit if hit is not None and isinstance(hit.get("text"), str) else None

    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int = 0,
    ) -> Iterator[str]:
        # the stage is read at call time: a generator body would only run at the first next()
        params = _params(max_tokens, temperature, stop, None, seed)
        return self._stream(self.current_stage, messages, params)

    def _stream(self, stage: str, messages: list[Message], params: dict[str, Any]) -> Iterator[str]:
        t0 = time.perf_counter()
        key = cache_key(self.name, messages, params)
        hit = self._hit(key)
        if hit is not None:
            self._count(stage, hit=True, prompt=0, completion=0, seconds=time.perf_counter() - t0, cold=hit)
            yield hit["text"]
            return
        pieces: list[str] = []
        completed = False
        try:
            inner = self.inner.stream(
                messages,
                max_tokens=params["max_tokens"],
                temperature=params["temperature"],
                stop=params["stop"] or None,
                seed=params["seed"],
            )
            for piece in inner:
                pieces.append(piece)
                yield piece
            completed = True
        finally:
            # streams report no token counts; one delta is about one token
            seconds = time.perf_counter() - t0
            self._count(stage, hit=False, prompt=0, completion=len(pieces), seconds=seconds)
            if completed and self._store is not None:
                self._store.put(
                    key,
                    {
                        "text": "".join(pieces),
                        "prompt_tokens": 0,
                        "completion_tokens": len(pieces),
                        "seconds": seconds,
                    },
                )

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def _params(
    max_tokens: int,
    temperature: float,
    stop: list[str] | None,
    json_schema: dict[str, Any] | None,
    seed: int,
) -> dict[str, Any]:
    return {
        "max_tokens": max_tokens,
        "temperature": temperature,
        "stop": list(stop) if stop else [],
        "json_schema": json_schema,
        "seed": seed,
    }
