"""Token ids for the two passes: the chat-formatted prompt and the plain guided context."""

from __future__ import annotations

from typing import Any

import torch

from gechat.models.llm.base import Message
from gechat.prompts import PROMPTS


def context_text(passages: list[str]) -> str:
    return "\n\n".join(PROMPTS["trustful_context_item"].format(n=i, text=p.strip())
                       for i, p in enumerate(passages, 1))


def question_messages(question: str, passages: list[str] | None = None) -> list[Message]:
    """The prompt side: the question alone, or (``passages``) with the context in the prompt."""
    user = (PROMPTS["trustful_rag_user"].format(context=context_text(passages), question=question)
            if passages else PROMPTS["trustful_user"].format(question=question))
    return [{"role": "system", "content": PROMPTS["trustful_system"]}, {"role": "user", "content": user}]


def prompt_ids(tok: Any, messages: list[Message], limit: int | None = None) -> list[int]:
    """Chat-template ids ending with the assistant's turn; the front is cut past ``limit`` so
    the question and the turn marker survive."""
    ids = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
    if not isinstance(ids, list):  # transformers 5 returns a BatchEncoding
        ids = ids["input_ids"]
    ids = [int(i) for i in ids]
    return ids[-limit:] if limit and len(ids) > limit else ids


def context_ids(tok: Any, text: str, limit: int) -> list[int]:
    return [int(i) for i in tok(text, add_special_tokens=False)["input_ids"][:limit]]


def _special(tok: Any, name: str) -> int | None:
    """The id of special token ``name``, or None when the vocabulary lacks it."""
    i = tok.convert_tokens_to_ids(name)
    return i if isinstance(i, int) and i >= 0 and i != tok.unk_token_id else None


def stop_ids(tok: Any) -> set[int]:
    """The ids that end a reply: the tokenizer's end of sequence and the chat turn's end."""
    ids = {tok.eos_token_id} if tok.eos_token_id is not None else set()
    ids |= {i for name in ("<|im_end|>", "<|endoftext|>", "<|eot_id|>") if (i := _special(tok, name)) is not None}
    return ids


def end_of_turn(tok: Any) -> int:
    """The id a training target ends with, so the model learns to stop."""
    i = _special(tok, "<|im_end|>")
    if i is not None:
        return i
    if tok.eos_token_id is None:
        raise ValueError("the tokenizer has no end-of-turn or end-of-sequence token")
    return int(tok.eos_token_id)


def pad_right(rows: list[list[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(ids, mask) with every row right-padded to the longest."""
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.bool)
    for i, r in enumerate(rows):
        ids[i, :len(r)] = torch.tensor(r, dtype=torch.long)
        mask[i, :len(r)] = True
    return ids, mask
