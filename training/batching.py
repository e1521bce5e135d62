"""Loss and batching shared by the cross-encoder trainers; torch only, so a GPU machine without
gechat's dependencies can import it."""

from __future__ import annotations

import random

import torch


def loss_fn(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Cross-entropy; a two-way "not entailment" label is the mass of the other two classes."""
    logp = torch.log_softmax(logits, dim=-1)
    three = labels >= 0
    losses = torch.zeros_like(labels, dtype=logp.dtype)
    if three.any():
        losses[three] = -logp[three].gather(1, labels[three].unsqueeze(1)).squeeze(1)
    if (~three).any():
        losses[~three] = -torch.logsumexp(logp[~three, :2], dim=-1)
    return losses.mean()


def bucketed(lengths: list[int], size: int, rng: random.Random, window: int = 50) -> list[list[int]]:
    """Index batches of similar length: shuffle, sort within windows of `window` batches, shuffle batches."""
    order = list(range(len(lengths)))
    rng.shuffle(order)
    out: list[list[int]] = []
    span = size * window
    for w in range(0, len(order), span):
        chunk = sorted(order[w : w + span], key=lambda i: lengths[i])
        out += [chunk[i : i + size] for i in range(0, len(chunk), size)]
    rng.shuffle(out)
    return out
