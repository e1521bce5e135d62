"""Training the dual decoder on a tiny model: seeded order, noise passages, checkpoints that
resume, and an adapter that reloads to the same model and refuses a changed file."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import torch

from gechat.errors import ModelError
from gechat.trustful import data
from gechat.trustful.load import WEIGHTS, load_trained, read_adapter
from gechat.trustful.text import context_text, question_messages
from gechat.trustful.train import TrainConfig, examples_at, train
from tests.unit.trustful_support import tiny_lm, tiny_tokenizer

LIMIT = 12


@pytest.fixture(scope="module")
def tok() -> Any:
    exs = data.training_set()[:LIMIT]
    texts = [t for ex in exs for t in (ex.question, ex.answer, *ex.passages)]
    texts += [m["content"] for m in question_messages("q", ["p"])]
    return tiny_tokenizer(texts)


def _cfg(tmp_path: Path, **kw: Any) -> TrainConfig:
    cfg = TrainConfig(out=tmp_path / "adapter", run_dir=tmp_path / "run", steps=3, batch=2, limit=LIMIT,
                      max_context_tokens=96, max_prompt_tokens=160, checkpoint_every=2, warmup=1)
    cfg.adapter = replace(cfg.adapter, layers=(1, 2), inner=16, heads=2, lora_r=4)
    return replace(cfg, **kw)


def test_the_training_mix_keeps_the_test_rows_out() -> None:
    exs = data.training_set()
    mix = data.mix_summary(exs)
    assert mix["halueval"] == data.HALUEVAL_TRAIN and set(mix) == {"halueval", "twowiki", "hotpotqa", "musique"}
    test_ids = {(e.source, e.id) for e in data.test_set(20, 20, 20)}
    assert not test_ids & {(e.source, e.id) for e in exs}
    assert all(ex.passages for ex in exs)


def test_noise_passages_come_from_other_examples() -> None:
    exs = data.training_set()[:50]
    ex = exs[3]
    got = data.with_noise(ex, exs, 2.0, random.Random(0))
    noise = [p for p in got if p not in ex.passages]
    assert set(ex.passages) <= set(got) and len(noise) == 2 * len(ex.passages)
    assert data.with_noise(ex, exs, 0.0, random.Random(0)) == list(ex.passages)


def test_the_example_order_is_fixed_by_the_seed(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path)
    assert [examples_at(s, 10, cfg) for s in range(8)] == [examples_at(s, 10, cfg) for s in range(8)]
    seen = [i for s in range(5) for i in examples_at(s, 10, cfg)]
    assert sorted(seen) == list(range(10))  # one epoch covers every example once
    assert examples_at(0, 10, cfg) != examples_at(0, 10, replace(cfg, seed=1))


def test_training_saves_an_adapter_that_reloads_to_the_same_model(tmp_path: Path, tok: Any) -> None:
    vocab = len(tok)
    summary = train(_cfg(tmp_path), lm_and_tok=(tiny_lm(vocab), tok))
    assert summary["steps"] == 3 and summary["skipped_steps"] == 0
    _, state, card = read_adapter(tmp_path / "adapter")
    assert card["data_mix"] and card["noise_per_gold_passage"] == 1.0 and card["run"]["steps"] == 3
    assert any(k.startswith("lora.") for k in state) and any(k.startswith("blocks.") for k in state)
    assert any(float(v.abs().sum()) > 0 for k, v in state.items() if "lora_B" in k)  # LoRA moved

    trained = train(_cfg(tmp_path / "again"), lm_and_tok=(tiny_lm(vocab), tok))
    assert trained["loss_first_25"] == summary["loss_first_25"]  # seeded: the same run twice

    model, _ = load_trained(tiny_lm(vocab), tmp_path / "adapter")
    ids = torch.tensor([tok(context_text(["the magazine"]))["input_ids"]])
    guide = model.encode(ids)
    prompt = torch.tensor([tok.apply_chat_template(question_messages("which magazine"), tokenize=True,
                                                   add_generation_prompt=True)["input_ids"]])
    again, _ = load_trained(tiny_lm(vocab), tmp_path / "adapter")
    assert torch.allclose(model(prompt, guide=guide).logits, again(prompt, guide=again.encode(ids)).logits)


def test_a_stopped_run_resumes_where_it_stopped(tmp_path: Path, tok: Any) -> None:
    vocab = len(tok)
    train(_cfg(tmp_path, steps=2), lm_and_tok=(tiny_lm(vocab), tok))
    train(_cfg(tmp_path, steps=4), resume=True, lm_and_tok=(tiny_lm(vocab), tok))
    log = [json.loads(x) for x in (tmp_path / "run" / "run_log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [1, 2, 3, 4]
    straight = _cfg(tmp_path / "straight", steps=4)
    train(straight, lm_and_tok=(tiny_lm(vocab), tok))
    log2 = [json.loads(x) for x in (straight.run_dir / "run_log.jsonl").read_text().splitlines()]
    assert [r["loss"] for r in log] == pytest.approx([r["loss"] for r in log2], abs=2e-3)


def test_a_changed_adapter_file_is_refused(tmp_path: Path, tok: Any) -> None:
    train(_cfg(tmp_path, steps=1), lm_and_tok=(tiny_lm(len(tok)), tok))
    weights = tmp_path / "adapter" / WEIGHTS
    raw = bytearray(weights.read_bytes())
    raw[-1] ^= 0xFF
    weights.write_bytes(bytes(raw))
    with pytest.raises(ModelError, match="sha256"):
        load_trained(tiny_lm(len(tok)), tmp_path / "adapter")
    with pytest.raises(ModelError, match="no trustful adapter"):
        read_adapter(tmp_path / "nowhere")
