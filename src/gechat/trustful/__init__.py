"""TrustfulLLM's dual decoder: one causal LM read twice, over the prompt and over the guided
context, with cross-attention from the prompt's hidden states to the context's.

Needs the ``trustful`` extra (transformers, gguf, peft) and torch; nothing here is imported by
``import gechat``.
"""
