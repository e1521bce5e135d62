"""The dual decoder: a causal LM run over the guided context once, then over the prompt with
cross-attention into the context pass's hidden states at a few layers.

Both passes run the very same module (``self.lm``), so the decoder's weights and its LoRA
factors are shared by construction; only the cross-attention blocks are new. Forward hooks on
the chosen decoder layers either record the layer's output (context pass) or add the block's
output to it (prompt pass), so the decoder's own code is used unchanged.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from gechat.trustful.blocks import CrossAttention

# every fourth layer of a 24-layer decoder, stopping short of the last four, so the context
# pass can stop after layer 19 and the prompt side keeps four layers to use what it read
DEFAULT_LAYERS = (3, 7, 11, 15, 19)


@dataclass
class Guide:
    """The guided context's hidden states at each chosen layer, computed once per question."""

    states: dict[int, torch.Tensor]  # layer -> (B, S, H)
    mask: torch.Tensor  # (B, S) bool


class _StopPass(Exception):
    """Raised by the last recording hook: the context pass needs no later layer."""


class DualDecoder(nn.Module):
    def __init__(self, lm: Any, layers: tuple[int, ...] = DEFAULT_LAYERS, *, inner: int = 256,
                 heads: int = 4) -> None:
        super().__init__()
        self.lm = lm
        n = int(lm.config.num_hidden_layers)
        bad = [i for i in layers if not 0 <= i < n]
        if bad or not layers:
            raise ValueError(f"cross-attention layers {bad or layers} are not in 0..{n - 1}")
        self.layers = tuple(sorted(set(layers)))
        hidden = int(lm.config.hidden_size)
        self.blocks = nn.ModuleDict({str(i): CrossAttention(hidden, inner, heads) for i in self.layers})
        self._recording: dict[int, torch.Tensor] | None = None
        self._guide: Guide | None = None
        for i in self.layers:
            self.decoder_layers()[i].register_forward_hook(self._hook(i))

    # --- structure -------------------------------------------------------------------------

    def _inner(self) -> Any:
        """The decoder stack without its LM head (through a peft wrapper if there is one)."""
        m = self.lm.get_base_model() if hasattr(self.lm, "get_base_model") else self.lm
        return m.model

    def decoder_layers(self) -> Any:
        return self._inner().layers

    def _hook(self, i: int) -> Callable[..., Any]:
        def hook(module: nn.Module, args: Any, output: Any) -> Any:
            h = output[0] if isinstance(output, tuple) else output
            if self._recording is not None:
                self._recording[i] = h
                if i == self.layers[-1]:
                    raise _StopPass
                return None
            if self._guide is None:
                return None
            new = self.blocks[str(i)](h, self._guide.states[i], self._guide.mask)
            return (new, *output[1:]) if isinstance(output, tuple) else new
        return hook

    # --- the two passes ----------------------------------------------------------------------

    def encode(self, ids: torch.Tensor, mask: torch.Tensor | None = None) -> Guide:
        """The guided-context pass: (B, S) token ids, right-padded, ``mask`` True on real tokens."""
        mask = torch.ones_like(ids, dtype=torch.bool) if mask is None else mask.bool()
        self._recording = {}
        try:
            self._inner()(input_ids=ids, attention_mask=mask.long(), use_cache=False)
        except _StopPass:
            pass
        finally:
            states, self._recording = self._recording, None
        return Guide(states, mask)

    @contextlib.contextmanager
    def guided(self, guide: Guide | None) -> Iterator[None]:
        """Within this block the prompt pass attends to ``guide`` (None: the plain decoder)."""
        before, self._guide = self._guide, guide
        try:
            yield
        finally:
            self._guide = before

    def forward(self, input_ids: torch.Tensor, guide: Guide | None = None, **kwargs: Any) -> Any:
        with self.guided(guide):
            return self.lm(input_ids=input_ids, **kwargs)

    # --- generation --------------------------------------------------------------------------

    @torch.no_grad()
    def generate(self, prompt: torch.Tensor, guide: Guide | None, *, max_new_tokens: int,
                 stop_ids: set[int], temperature: float = 0.0, top_p: float = 1.0,
                 seed: int = 0) -> Iterator[int]:
        """Token ids one at a time: the prompt side keeps its KV cache, the guide is reused
        unchanged at every step (cross-attention needs no cache of its own)."""
        gen = torch.Generator().manual_seed(seed)
        with self.guided(guide):
            out = self.lm(input_ids=prompt, use_cache=True, logits_to_keep=1)
            for _ in range(max_new_tokens):
                tok = _pick(out.logits[0, -1].float(), temperature, top_p, gen)
                if tok in stop_ids:
                    return
                yield tok
                cache = _cache_of(out)
                out = self.lm(input_ids=torch.tensor([[tok]], device=prompt.device), cache=cache,
                              use_cache=True, logits_to_keep=1)


def _cache_of(out: Any) -> Any:
    """The KV cache of a forward pass (``cache`` in transformers 5, ``past_key_values`` before)."""
    cache = getattr(out, "cache", None)
    return cache if cache is not None else getattr(out, "past_key_values", None)


def _pick(logits: torch.Tensor, temperature: float, top_p: float, gen: torch.Generator) -> int:
    if temperature <= 0:
        return int(torch.argmax(logits))
    probs = torch.softmax(logits / temperature, dim=-1).cpu()
    if top_p < 1.0:
        sorted_p, order = torch.sort(probs, descending=True)
        keep = torch.cumsum(sorted_p, 0) - sorted_p < top_p
        probs = torch.zeros_like(probs).scatter(0, order[keep], sorted_p[keep])
    return int(torch.multinomial(probs, 1, generator=gen))
