"""The dual decoder's structure: shared weights, cross-attention over the context pass's
states, zero-initialised blocks equal to the plain decoder, cached generation."""

from __future__ import annotations

import pytest
import torch

from gechat.trustful.model import DualDecoder
from tests.unit.trustful_support import open_gates, tiny_lm

VOCAB = 50


@pytest.fixture
def model() -> DualDecoder:
    return DualDecoder(tiny_lm(VOCAB), (1, 2), inner=16, heads=2).eval()


def _ids(seed: int, n: int) -> torch.Tensor:
    return torch.randint(4, VOCAB, (1, n), generator=torch.Generator().manual_seed(seed))


def test_both_passes_run_the_same_decoder_weights(model: DualDecoder) -> None:
    ids = {id(p) for p in model.parameters()}
    decoder = {id(p) for p in model.lm.parameters()}
    blocks = {id(p) for p in model.blocks.parameters()}
    assert ids == decoder | blocks  # no second copy of the decoder anywhere
    calls: list[int] = []
    model.decoder_layers()[0].register_forward_hook(lambda m, a, o: calls.append(a[0].shape[1]))
    guide = model.encode(_ids(1, 9))
    model(_ids(2, 5), guide=guide)
    assert calls == [9, 5]  # one layer object served the context pass, then the prompt pass


def test_untrained_blocks_leave_the_decoder_unchanged(model: DualDecoder) -> None:
    prompt = _ids(2, 6)
    plain = model(prompt).logits
    guided = model(prompt, guide=model.encode(_ids(1, 8))).logits
    assert torch.equal(plain, guided)


def test_untrained_blocks_learn_from_the_first_step(model: DualDecoder) -> None:
    """The output projection starts at zero with the gate open, so the first loss already
    reaches the block's output projection (a closed gate would only move the gate itself)."""
    model.train()
    out = model(_ids(2, 6), guide=model.encode(_ids(1, 8)), labels=_ids(2, 6))
    out.loss.backward()
    for block in model.blocks.values():
        assert float(torch.tanh(block.gate)) > 0.5
        assert block.o.weight.grad is not None and float(block.o.weight.grad.abs().sum()) > 0


def test_cross_attention_reads_the_context_pass_states(model: DualDecoder) -> None:
    context = _ids(1, 8)
    guide = model.encode(context)
    hidden = model.lm.model(input_ids=context, output_hidden_states=True).hidden_states
    for layer in model.layers:  # the output of decoder layer i is hidden_states[i + 1]
        assert torch.allclose(guide.states[layer], hidden[layer + 1])
    seen: list[torch.Tensor] = []
    block = model.blocks[str(model.layers[0])]
    block.register_forward_hook(lambda m, a, o: seen.append(a[1]))
    model(_ids(2, 5), guide=guide)
    assert len(seen) == 1 and torch.equal(seen[0], guide.states[model.layers[0]])


def test_context_changes_the_output_and_a_masked_context_does_not(model: DualDecoder) -> None:
    open_gates(model)
    prompt = _ids(2, 6)
    plain = model(prompt).logits
    a = model(prompt, guide=model.encode(_ids(1, 8))).logits
    b = model(prompt, guide=model.encode(_ids(3, 8))).logits
    assert not torch.allclose(a, plain) and not torch.allclose(a, b)
    context = _ids(1, 8)
    masked = model(prompt, guide=model.encode(context, torch.zeros_like(context, dtype=torch.bool))).logits
    assert torch.allclose(masked, plain)
    assert torch.isfinite(masked).all()


def test_padding_in_the_context_is_ignored(model: DualDecoder) -> None:
    open_gates(model)
    prompt, context = _ids(2, 6), _ids(1, 8)
    alone = model(prompt, guide=model.encode(context)).logits
    padded = torch.cat([context, torch.ones((1, 4), dtype=torch.long)], dim=1)
    mask = torch.cat([torch.ones((1, 8), dtype=torch.bool), torch.zeros((1, 4), dtype=torch.bool)], dim=1)
    assert torch.allclose(alone, model(prompt, guide=model.encode(padded, mask)).logits, atol=1e-5)


def test_cached_generation_equals_recomputing_every_step(model: DualDecoder) -> None:
    open_gates(model)
    prompt, guide = _ids(2, 6), model.encode(_ids(1, 8))
    got = list(model.generate(prompt, guide, max_new_tokens=6, stop_ids=set()))
    ids, want = prompt, []
    with torch.no_grad():
        for _ in range(6):
            tok = int(model(ids, guide=guide).logits[0, -1].argmax())
            want.append(tok)
            ids = torch.cat([ids, torch.tensor([[tok]])], dim=1)
    assert got == want


def test_generation_stops_and_samples_reproducibly(model: DualDecoder) -> None:
    prompt = _ids(2, 6)
    first = list(model.generate(prompt, None, max_new_tokens=5, stop_ids=set()))
    assert list(model.generate(prompt, None, max_new_tokens=5, stop_ids={first[0]})) == []
    a = list(model.generate(prompt, None, max_new_tokens=8, stop_ids=set(), temperature=1.0, top_p=0.9, seed=3))
    b = list(model.generate(prompt, None, max_new_tokens=8, stop_ids=set(), temperature=1.0, top_p=0.9, seed=3))
    assert a == b and len(a) == 8


def test_layers_outside_the_decoder_are_refused() -> None:
    with pytest.raises(ValueError, match=r"not in 0\.\.3"):
        DualDecoder(tiny_lm(VOCAB), (2, 7))
