"""The new, trained parameters of the dual decoder: gated cross-attention blocks."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        x32 = x.float()
        x32 = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return (x32 * self.weight.float()).to(dtype)


class CrossAttention(nn.Module):
    """CROSSATTN(H_p, H_g): the prompt's hidden states ask, the guided context's answer.

    Added to the residual stream through ``tanh(gate)``. The output projection starts at zero
    (the gate open), so an untrained block leaves the decoder exactly as it was, yet the first
    steps already move it: a closed scalar gate opens slowly under Adam (at most about lr per
    step), which kept a CPU run's blocks nearly shut. The attention is narrower than the
    decoder (``inner``) to keep the adapter small enough to ship."""

    def __init__(self, hidden: int, inner: int = 256, heads: int = 4) -> None:
        super().__init__()
        if inner % heads:
            raise ValueError(f"inner width {inner} is not a multiple of {heads} heads")
        self.heads = heads
        self.norm_q, self.norm_kv = RMSNorm(hidden), RMSNorm(hidden)
        self.q = nn.Linear(hidden, inner, bias=False)
        self.k = nn.Linear(hidden, inner, bias=False)
        self.v = nn.Linear(hidden, inner, bias=False)
        self.o = nn.Linear(inner, hidden, bias=False)
        nn.init.zeros_(self.o.weight)
        self.gate = nn.Parameter(torch.ones(1))

    def forward(self, x: torch.Tensor, ctx: torch.Tensor, ctx_mask: torch.Tensor) -> torch.Tensor:
        """x: (B, T, H) prompt states; ctx: (B, S, H) context states; ctx_mask: (B, S) bool,
        True where a context token is real. Rows with no real context token are left as is."""
        b, t, _ = x.shape
        s = ctx.shape[1]
        dtype = self.q.weight.dtype
        kv = self.norm_kv(ctx.to(dtype))
        q = self.q(self.norm_q(x.to(dtype))).view(b, t, self.heads, -1).transpose(1, 2)
        k = self.k(kv).view(b, s, self.heads, -1).transpose(1, 2)
        v = self.v(kv).view(b, s, self.heads, -1).transpose(1, 2)
        has = ctx_mask.any(dim=1)
        # a row with no context would attend to nothing (NaN); give it one key, then zero it
        mask = ctx_mask | ~has[:, None]
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None, None, :])
        out = self.o(out.transpose(1, 2).reshape(b, t, -1))
        out = torch.where(has[:, None, None], out, torch.zeros_like(out))
        return x + (torch.tanh(self.gate) * out).to(x.dtype)
