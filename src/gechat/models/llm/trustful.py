"""The TrustfulLLM backend: the dual decoder behind the LLM protocol.

Messages with the role ``context`` are the guided context: they are read once by the context
pass and never enter the prompt. The answer stage sends them when the LLM says ``guided``; any
other stage's messages have none, and the model then answers as its plain (LoRA-tuned)
decoder. Loading takes about a minute on a CPU (the GGUF is dequantised), so it happens on the
first call, once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gechat.models.llm.base import Completion, Message

CONTEXT_ROLE = "context"


class TrustfulLLM:
    guided = True

    def __init__(self, adapter: Path, models_dir: Path, *, threads: int | None = None,
                 max_context_tokens: int = 1024, base: str | None = None) -> None:
        from gechat.trustful.load import read_card

        self.adapter, self.models_dir, self.threads = adapter, models_dir, threads
        self.max_context_tokens = max_context_tokens
        card = read_card(adapter)  # fails fast (and cheaply) on a missing or damaged adapter
        self.base = base or str(card["base"])
        self.name = f"trustful:{self.base}:{str(card['sha256'])[:16]}"
        self._model: Any = None
        self._tok: Any = None
        self._lock = threading.Lock()

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._model is None:
                import torch

                from gechat.trustful.load import load_base, load_trained

                if self.threads:
                    torch.set_num_threads(self.threads)
                lm, tok = load_base(self.base, self.models_dir)
                self._model, _ = load_trained(lm, self.adapter)
                self._tok = tok
            return self._model, self._tok

    def _ids(self, messages: list[Message]) -> tuple[list[int], list[int]]:
        from gechat.trustful import text

        _, tok = self._load()
        context = "\n\n".join(m["content"] for m in messages if m["role"] == CONTEXT_ROLE)
        prompt = [m for m in messages if m["role"] != CONTEXT_ROLE]
        ctx = text.context_ids(tok, context, self.max_context_tokens) if context.strip() else []
        return text.prompt_ids(tok, prompt), ctx

    def stream(self, messages: list[Message], *, max_tokens: int = 512, temperature: float = 0.0,
               stop: list[str] | None = None, seed: int = 0) -> Iterator[str]:
        for piece, _, _ in self._run(messages, max_tokens, temperature, stop, seed):
            yield piece

    def complete(self, messages: list[Message], *, max_tokens: int = 512, temperature: float = 0.0,
                 stop: list[str] | None = None, json_schema: dict[str, Any] | None = None,
                 seed: int = 0) -> Completion:
        # json_schema: the dual decoder has no constrained decoding; callers parse leniently
        t0 = time.monotonic()
        out, prompt_n, gen_n = [], 0, 0
        for piece, n_prompt, n_gen in self._run(messages, max_tokens, temperature, stop, seed):
            out.append(piece)
            prompt_n, gen_n = n_prompt, n_gen
        return Completion(text="".join(out), prompt_tokens=prompt_n, completion_tokens=gen_n,
                          seconds=time.monotonic() - t0)

    def _run(self, messages: list[Message], max_tokens: int, temperature: float,
             stop: list[str] | None, seed: int) -> Iterator[tuple[str, int, int]]:
        """(new text, prompt tokens, generated tokens) as tokens come; stops at a stop string."""
        import torch

        from gechat.trustful import text

        model, tok = self._load()
        prompt, ctx = self._ids(messages)
        n_prompt = len(prompt) + len(ctx)
        with torch.no_grad():
            guide = model.encode(torch.tensor([ctx])) if ctx else None
            ids: list[int] = []
            shown = ""
            for tid in model.generate(torch.tensor([prompt]), guide, max_new_tokens=max_tokens,
                                      stop_ids=text.stop_ids(tok), temperature=temperature, seed=seed):
                ids.append(tid)
                full = tok.decode(ids, skip_special_tokens=True)
                if full.endswith("\ufffd"):  # half of a multi-byte character: wait for the rest
                    continue
                cut = _stop_at(full, stop)
                if cut is not None:
                    if cut > len(shown):
                        yield full[len(shown):cut], n_prompt, len(ids)
                    return
                # hold back a tail that may be the start of a stop string still being written
                ready = len(full) - _open_stop(full, stop)
                if ready > len(shown):
                    yield full[len(shown):ready], n_prompt, len(ids)
                    shown = full[:ready]
            if len(shown) < len(full := tok.decode(ids, skip_special_tokens=True)):
                yield full[len(shown):], n_prompt, len(ids)
            if not ids:
                yield "", n_prompt, 0


def _open_stop(textual: str, stop: list[str] | None) -> int:
    """The length of the longest end of ``textual`` that begins some stop string."""
    return max((n for s in stop or () for n in range(min(len(s) - 1, len(textual)), 0, -1)
                if s.startswith(textual[-n:])), default=0)


def _stop_at(textual: str, stop: list[str] | None) -> int | None:
    hits = [textual.find(s) for s in stop or () if s and s in textual]
    return min(hits) if hits else None
