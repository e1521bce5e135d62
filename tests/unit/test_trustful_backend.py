"""llm_backend = trustful: context messages go to the guided pass, never into the prompt, and
the answer stage sends them only to a guided model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gechat.answer.cot import CoTAnswerer
from gechat.errors import ModelError
from gechat.models.llm.base import Message
from gechat.models.llm.cache import CachedLLM
from gechat.models.llm.fake import FakeLLM
from gechat.models.llm.trustful import TrustfulLLM
from gechat.trustful.model import DualDecoder
from gechat.types import Chunk, ChunkHit
from tests.unit.trustful_support import open_gates, tiny_lm, tiny_tokenizer

WORDS = ["the", "magazine", "was", "started", "in", "1844", "by", "Arthur", "in", "Philadelphia",
         "which", "first", "answer"]


@pytest.fixture
def llm(tmp_path: Path) -> TrustfulLLM:
    from gechat.trustful.load import AdapterConfig, save_adapter
    from gechat.trustful.load import build as build_dual

    tok = tiny_tokenizer([" ".join(WORDS)])
    model = build_dual(tiny_lm(len(tok)), AdapterConfig(layers=(1, 2), inner=16, heads=2, lora_r=4))
    cfg = AdapterConfig(base="tiny", layers=(1, 2), inner=16, heads=2, lora_r=4)
    save_adapter(model, tmp_path / "a", cfg, {"base": "tiny"})
    out = TrustfulLLM(tmp_path / "a", tmp_path)
    dual = DualDecoder(tiny_lm(len(tok)), (1, 2), inner=16, heads=2).eval()
    open_gates(dual)
    out._model, out._tok = dual, tok  # the tiny model stands in for the loaded base
    return out


def _messages(context: str | None) -> list[Message]:
    msgs: list[Message] = [{"role": "system", "content": "answer"}]
    if context is not None:
        msgs.append({"role": "context", "content": context})
    return [*msgs, {"role": "user", "content": "which magazine"}]


def test_context_messages_feed_the_guided_pass_only(llm: TrustfulLLM) -> None:
    prompt, ctx = llm._ids(_messages("the magazine was started in 1844"))
    plain_prompt, none = llm._ids(_messages(None))
    assert prompt == plain_prompt and none == []
    assert ctx == llm._tok("the magazine was started in 1844", add_special_tokens=False)["input_ids"]


def test_the_context_changes_the_answer_and_streaming_matches(llm: TrustfulLLM) -> None:
    a = llm.complete(_messages("the magazine was started in 1844 by Arthur"), max_tokens=8)
    b = llm.complete(_messages("Philadelphia which first answer"), max_tokens=8)
    assert a.text != b.text and 1 <= a.completion_tokens <= 8
    assert a.prompt_tokens > llm.complete(_messages(None), max_tokens=8).prompt_tokens
    assert "".join(llm.stream(_messages("the magazine was started in 1844 by Arthur"), max_tokens=8)) == a.text


def test_stop_strings_cut_the_reply(llm: TrustfulLLM) -> None:
    full = llm.complete(_messages(None), max_tokens=8).text
    assert len(full) > 4
    stop = full[len(full) // 2:len(full) // 2 + 2]
    cut = llm.complete(_messages(None), max_tokens=8, stop=[stop]).text
    assert cut == full[:full.find(stop)]
    # a stop string that spans two tokens: nothing of it is handed out before it is complete
    words = full.split()
    across = f"{words[1][-1]} {words[2][0]}" if len(words) > 2 else stop
    pieces = list(llm.stream(_messages(None), max_tokens=8, stop=[across]))
    assert "".join(pieces) == full[:full.find(across)]


def test_a_missing_adapter_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no trustful adapter"):
        TrustfulLLM(tmp_path / "none", tmp_path)


class _Guided(FakeLLM):
    guided = True


def _hits() -> list[ChunkHit]:
    chunk = Chunk(id=1, doc_id=1, ord=0, text="Arthur's Magazine started in 1844.", page=1, start=0, end=34)
    return [ChunkHit(chunk=chunk, score=1.0, doc_title="mag.pdf")]


@pytest.mark.parametrize("prompt_context", [False, True])
def test_the_answerer_hands_a_guided_model_its_excerpts_as_context(tmp_path: Path, prompt_context: bool) -> None:
    llm: Any = CachedLLM(_Guided(), None)
    msgs = CoTAnswerer(llm, max_tokens=32, max_thoughts=2, prompt_context=prompt_context).messages("When?", _hits())
    assert [m["role"] for m in msgs] == ["system", "context", "user"]
    assert "1844" in msgs[1]["content"]
    assert ("1844" in msgs[2]["content"]) is prompt_context and "When?" in msgs[2]["content"]
    plain = CoTAnswerer(CachedLLM(FakeLLM(), None), max_tokens=32, max_thoughts=2).messages("When?", _hits())
    assert [m["role"] for m in plain] == ["system", "user"] and "1844" in plain[1]["content"]
