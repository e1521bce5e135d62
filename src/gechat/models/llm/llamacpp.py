"""Local GGUF chat models through llama-cpp-python.

One ``Llama`` per weights file per process (``get_llama``): the answer LLM and the LLM
entailment scorer use the same file by default, and two copies of 1 GB of weights plus two
KV caches would double memory for nothing. A ``Llama`` is not thread-safe, so every user
takes the shared instance's lock.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gechat.errors import ModelError
from gechat.models.llm.base import Completion, Message


def default_threads() -> int:
    """CPU threads for llama.cpp: all available CPUs on small machines, half on big ones.

    llama.cpp's own default (half of ``cpu_count``) starves 2-4 core machines; on large
    ones half the logical CPUs is roughly the physical cores, which is what matmuls want.
    """
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        n = os.cpu_count() or 1
    return n if n <= 4 else n // 2


@dataclass
class SharedLlama:
    """A loaded model plus the lock that serialises its use across threads."""

    llama: Any  # llama_cpp.Llama; typed loosely so this module imports without llama_cpp
    path: Path
    n_ctx: int
    n_threads: int
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _owner: int | None = None

    @contextlib.contextmanager
    def use(self) -> Iterator[Any]:
        # A stream holds the lock between yields; calling the model again from the same
        # thread before the stream ends would deadlock, so say so instead.
        me = threading.get_ident()
        if self._owner == me:
            raise ModelError(
                f"the model {self.path.name} is busy in this thread (an unfinished stream?)",
                hint="consume or close the stream before calling the model again",
            )
        with self._lock:
            self._owner = me
            try:
                yield self.llama
            finally:
                self._owner = None


_CACHE: dict[tuple[str, int, int], SharedLlama] = {}
_CACHE_LOCK = threading.Lock()


def _import_llama_cpp() -> Any:
    try:
        import llama_cpp
    except ImportError as e:
        raise ModelError(
            f"llama-cpp-python is not installed ({e})",
            hint="pip install 'gechat[llm]'  (or choose llm_backend = ollama / openai)",
        ) from None
    return llama_cpp


def get_llama(path: Path, n_ctx: int = 4096, n_threads: int | None = None) -> SharedLlama:
    """The process-wide instance for this file and context size, loaded on first use."""
    threads = n_threads or default_threads()
    key = (str(Path(path).resolve()), n_ctx, threads)
    with _CACHE_LOCK:
        shared = _CACHE.get(key)
        if shared is not None:
            return shared
        llama_cpp = _import_llama_cpp()
        try:
            llama = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=threads,
                n_threads_batch=threads,
                n_gpu_layers=0,
                seed=0,
                verbose=False,  # keeps llama.cpp's load logs off stdout/stderr
            )
        except (ValueError, RuntimeError, OSError) as e:
            raise ModelError(
                f"cannot load GGUF model {path}: {e}",
                hint="check the file with `gechat models verify`, or re-pull it",
            ) from None
        shared = SharedLlama(llama=llama, path=Path(path), n_ctx=n_ctx, n_threads=threads)
        _CACHE[key] = shared
        return shared


@atexit.register
def _close_all() -> None:
    # close while the interpreter is whole: llama.cpp's __del__ at shutdown finds its
    # module globals gone and prints a TypeError traceback
    with _CACHE_LOCK:
        for shared in _CACHE.values():
            close = getattr(shared.llama, "close", None)
            if close is not None:
                close()


def clear_llama_cache() -> None:
    """Forget loaded models (tests; freeing memory). Instances in use stay alive."""
    with _CACHE_LOCK:
        _CACHE.clear()


PREFILL_SLICE = 64  # prompt tokens per step of a read-ahead: ~0.7 s on 2 cores, so a question waits no longer


class _Stopped(Exception):
    pass


class LlamaCppLLM:
    """The LLM protocol over a local GGUF file."""

    def __init__(
        self,
        path: Path,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        name: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        if name is None:
            # name and size stand in for a hash of a gigabyte (the cache key needs identity)
            size = self.path.stat().st_size if self.path.is_file() else 0
            name = f"llamacpp:{self.path.name}:{size}"
        self.name = name
        self._shared: SharedLlama | None = None

    @property
    def shared(self) -> SharedLlama:
        if self._shared is None:
            self._shared = get_llama(self.path, self.n_ctx, self.n_threads)
        return self._shared

    def _kwargs(self, max_tokens: int, temperature: float, stop: list[str] | None, seed: int) -> dict[str, Any]:
        return {
            "max_tokens": max_tokens,
            "temperature": temperature,
            "stop": list(stop or []),
            "seed": seed,
        }

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
        kwargs = self._kwargs(max_tokens, temperature, stop, seed)
        if json_schema is not None:
            # llama-cpp-python compiles the schema into a GBNF grammar
            kwargs["response_format"] = {"type": "json_object", "schema": json_schema}
        t0 = time.perf_counter()
        with self.shared.use() as llama:
            try:
                resp = llama.create_chat_completion(messages=list(messages), **kwargs)
            except ValueError as e:  # e.g. prompt longer than the context window
                raise ModelError(f"{self.name}: {e}", hint="raise llm_context or send less context") from None
        seconds = time.perf_counter() - t0
        usage = resp.get("usage") or {}
        return Completion(
            text=resp["choices"][0]["message"].get("content") or "",
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            seconds=seconds,
        )

    def prefill(self, messages: list[Message], stop: Callable[[], bool] | None = None) -> bool:
        """Reads the prompt into llama.cpp's KV cache: the next call whose prompt starts the
        same way reads only the rest. The prompt is read in slices so that ``stop`` halts it
        within one slice; the slices read stay in the cache. (The library reads prompts
        only on the way to a token, so one is generated and dropped.)"""
        with self.shared.use() as llama:
            whole = llama.eval  # the instance attribute below shadows the method for this call only

            def sliced(tokens: list[int]) -> None:
                for i in range(0, len(tokens), PREFILL_SLICE):
                    if stop is not None and stop():
                        raise _Stopped
                    whole(tokens[i : i + PREFILL_SLICE])

            llama.eval = sliced
            try:
                llama.create_chat_completion(messages=list(messages), **self._kwargs(1, 0.0, None, 0))
            except _Stopped:
                return False
            except ValueError as e:
                raise ModelError(f"{self.name}: {e}", hint="raise llm_context or send less context") from None
            finally:
                del llama.eval
        return True

    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int = 0,
    ) -> Iterator[str]:
        kwargs = self._kwargs(max_tokens, temperature, stop, seed)
        with self.shared.use() as llama:
            try:
                chunks = llama.create_chat_completion(messages=list(messages), stream=True, **kwargs)
                for chunk in chunks:
                    delta = chunk["choices"][0].get("delta") or {}
                    text = delta.get("content")
                    if text:
                        yield text
            except ValueError as e:
                raise ModelError(f"{self.name}: {e}", hint="raise llm_context or send less context") from None
