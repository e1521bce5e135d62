"""LlamaCppLLM's request mapping and locking, with a stand-in for llama_cpp.Llama."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from gechat.errors import ModelError
from gechat.models.llm.base import Message
from gechat.models.llm.llamacpp import LlamaCppLLM, SharedLlama

MSG: list[Message] = [{"role": "user", "content": "hi"}]


class StubLlama:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def create_chat_completion(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        if kwargs.get("stream"):
            return iter(
                [
                    {"choices": [{"delta": {"role": "assistant"}}]},
                    {"choices": [{"delta": {"content": "Hel"}}]},
                    {"choices": [{"delta": {"content": "lo"}}]},
                    {"choices": [{"delta": {}, "finish_reason": "stop"}]},
                ]
            )
        if len(kwargs["messages"][0]["content"]) > 100:
            raise ValueError("Requested tokens (5000) exceed context window of 4096")
        return {
            "choices": [{"message": {"role": "assistant", "content": "Hello"}}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 2, "total_tokens": 13},
        }


def _llm() -> tuple[LlamaCppLLM, StubLlama]:
    stub = StubLlama()
    llm = LlamaCppLLM(Path("stub.gguf"), name="stub")
    llm._shared = SharedLlama(llama=stub, path=Path("stub.gguf"), n_ctx=4096, n_threads=1)
    return llm, stub


def test_complete_maps_parameters_and_usage() -> None:
    llm, stub = _llm()
    out = llm.complete(MSG, max_tokens=7, temperature=0.1, stop=["\n"], seed=5)
    assert (out.text, out.prompt_tokens, out.completion_tokens) == ("Hello", 11, 2)
    assert stub.calls[-1] == {
        "messages": MSG,
        "max_tokens": 7,
        "temperature": 0.1,
        "stop": ["\n"],
        "seed": 5,
    }
    schema = {"type": "object"}
    llm.complete(MSG, json_schema=schema)
    assert stub.calls[-1]["response_format"] == {"type": "json_object", "schema": schema}


def test_stream_yields_text_deltas() -> None:
    llm, stub = _llm()
    assert list(llm.stream(MSG, max_tokens=3)) == ["Hel", "lo"]
    assert stub.calls[-1]["stream"] is True


def test_context_overflow_is_a_model_error() -> None:
    llm, _ = _llm()
    with pytest.raises(ModelError) as e:
        llm.complete([{"role": "user", "content": "x" * 200}])
    assert "llm_context" in e.value.hint


def test_same_thread_reentry_during_stream_fails_fast() -> None:
    llm, _ = _llm()
    gen = llm.stream(MSG)
    assert next(gen) == "Hel"
    with pytest.raises(ModelError):
        llm.complete(MSG)  # would deadlock without the owner check
    gen.close()
    assert llm.complete(MSG).text == "Hello"  # the lock was released by close()


def test_threads_are_serialised() -> None:
    shared = SharedLlama(llama=None, path=Path("x.gguf"), n_ctx=1, n_threads=1)
    inside = 0
    peak = 0
    lock = threading.Lock()

    def work() -> None:
        nonlocal inside, peak
        with shared.use():
            with lock:
                inside += 1
                peak = max(peak, inside)
            time.sleep(0.01)
            with lock:
                inside -= 1

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak == 1


def test_default_name_includes_size(tmp_path: Path) -> None:
    f = tmp_path / "m.gguf"
    f.write_bytes(b"GGUF1234")
    assert LlamaCppLLM(f).name == "llamacpp:m.gguf:8"
