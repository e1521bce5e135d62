"""A tiny Qwen2 model and a word-level chat tokenizer, so the dual decoder's tests run in
seconds without the packaged weights."""

from __future__ import annotations

from typing import Any

import torch

SPECIALS = ["<unk>", "<pad>", "<|im_start|>", "<|im_end|>"]
TEMPLATE = ("{% for m in messages %}<|im_start|> {{ m.role }} {{ m.content }} <|im_end|> {% endfor %}"
            "{% if add_generation_prompt %}<|im_start|> assistant {% endif %}")


def tiny_tokenizer(texts: list[str]) -> Any:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = sorted({w for t in texts for w in t.split()} | {"system", "user", "assistant", "Question:",
                                                            "Context:", "[1]", "[2]", "[3]", "[4]"})
    vocab = {w: i for i, w in enumerate(SPECIALS + words)}
    inner = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    inner.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=inner, unk_token="<unk>", pad_token="<pad>",
                                  eos_token="<|im_end|>", additional_special_tokens=SPECIALS[2:])
    tok.chat_template = TEMPLATE
    return tok


def tiny_lm(vocab: int, seed: int = 0, layers: int = 4) -> Any:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    cfg = Qwen2Config(vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=layers,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048)
    return Qwen2ForCausalLM(cfg).eval()


def open_gates(model: Any, value: float = 0.8) -> None:
    """Blocks as after some training: a gate and an output projection that are not zero."""
    for block in model.blocks.values():
        torch.nn.init.constant_(block.gate, value)
        torch.nn.init.normal_(block.o.weight, std=0.2)
