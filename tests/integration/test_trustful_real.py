"""The shipped TrustfulLLM adapter on the packaged 0.5B model: it loads (sha256-checked),
reads the guided context, and answers `ask` end to end with evidence and HC unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from gechat.models import LLMS
from gechat.models.llm.base import Message
from gechat.pipeline import Workspace
from gechat.settings import Settings
from gechat.trustful.load import PACKAGED_ADAPTER, read_adapter
from gechat.trustful.text import question_messages

pytestmark = pytest.mark.slow

KNOWLEDGE = ("Arthur's Magazine (1844-1846) was an American literary periodical published in Philadelphia "
             "in the 19th century. First for Women is a woman's magazine published by Bauer Media Group in the USA.")


def test_the_packaged_adapter_matches_its_card_and_the_packaged_base() -> None:
    from gechat.models.manager import PACKAGED

    cfg, state, card = read_adapter(PACKAGED_ADAPTER)
    assert card["base"] == cfg.base == "qwen2.5-coder-0.5b"
    assert card["base_sha256"] == PACKAGED["qwen2.5-coder-0.5b"].sha256
    assert card["run"]["steps"] > 0 and card["data_mix"]["halueval"] > 0
    assert sum(v.numel() for v in state.values()) * 2 < 50_000_000  # fp16, under 50 MB


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings.load("default", llm_backend="trustful", cache_dir=tmp_path_factory.mktemp("cache"))


def test_the_guided_context_reaches_the_answer(settings: Settings) -> None:
    llm = LLMS.create("trustful", settings)
    question = "Where was Arthur's Magazine published?"
    guided: list[Message] = [question_messages(question)[0], {"role": "context", "content": KNOWLEDGE},
                             question_messages(question)[1]]
    with_context = llm.complete(guided, max_tokens=24)
    without = llm.complete(question_messages(question), max_tokens=24)
    assert with_context.text.strip() and with_context.prompt_tokens > without.prompt_tokens
    assert "".join(llm.stream(guided, max_tokens=24)) == with_context.text
    # the trained blocks are open: the context pass moves the prompt side's next-token scores
    import torch

    from gechat.trustful.text import context_ids, prompt_ids

    model, tok = llm._load()  # type: ignore[attr-defined]
    prompt = torch.tensor([prompt_ids(tok, question_messages(question))])
    guide = model.encode(torch.tensor([context_ids(tok, KNOWLEDGE, 512)]))
    with torch.no_grad():
        assert not torch.allclose(model(prompt, guide=guide).logits, model(prompt).logits)


def test_ask_answers_with_the_dual_decoder(settings: Settings, tmp_path: Path) -> None:
    doc = tmp_path / "magazines.txt"
    doc.write_text(KNOWLEDGE + "\n")
    ws = Workspace(tmp_path / "ws", settings.model_copy(update={"graph": "fast"}))
    try:
        ws.add([doc])
        answer = ws.ask("Where was Arthur's Magazine published?", correct=True)
    finally:
        ws.close()
    assert answer.text.strip()
    assert all(c.verdict in ("supported", "unsupported", "contradicted", "no fact") for c in answer.claims)
