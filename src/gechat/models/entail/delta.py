"""The verifier's fine-tuned delta, merged into its base encoder's weights.

The delta holds low-rank factors (``<module>.lora_a``, ``<module>.lora_b``) for the encoder's
linear layers, plus whole tensors (LayerNorms, the classification head) that replace the
base's. The fine-tuned weight is ``W + scale * B @ A``. This module imports nothing from
gechat, so the training script can load it by path on a machine without gechat's
dependencies, and works on numpy arrays as on torch tensors.
"""

from __future__ import annotations

from typing import Any

# The linear layers of each MPNet encoder layer that get low-rank factors.
LORA_TARGETS = ("attention.attn.q", "attention.attn.k", "attention.attn.v", "attention.attn.o",
                "intermediate.dense", "output.dense")


def is_target(module_name: str) -> bool:
    return ".encoder.layer." in module_name and module_name.endswith(LORA_TARGETS)


def merge(base: dict[str, Any], delta: dict[str, Any], scale: float) -> dict[str, Any]:
    """Base weights with the delta applied; keys are the fine-tuned model's parameter names."""
    out = dict(base)
    for key, value in delta.items():
        if key.endswith(".lora_b"):
            continue
        if key.endswith(".lora_a"):
            module = key.removesuffix(".lora_a")
            weight = module + ".weight"
            if weight not in base:
                raise KeyError(f"the delta adapts {module}, which the base model does not have")
            out[weight] = base[weight] + scale * (delta[module + ".lora_b"] @ value)
        else:
            out[key] = value
    return out
