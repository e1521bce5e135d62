"""Fine-tuning the dual decoder: LoRA on the decoder's attention projections plus the
cross-attention blocks, the loss on the answer's tokens only.

The run is seeded and resumable: the example order and each step's noise passages follow from
(seed, step), and a checkpoint (trainable tensors, optimiser, step) is written every
``checkpoint_every`` steps and when the time budget runs out, so a stopped run goes on with
``resume``. The context pass runs without gradients by default (``grad_through_context``):
the LoRA factors then learn from the prompt pass alone, which halves the cost on a CPU.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from gechat.errors import ModelError
from gechat.eval.datasets import DATA
from gechat.models.manager import PACKAGED, sha256_file
from gechat.trustful import data, text
from gechat.trustful.load import AdapterConfig, build, load_base, save_adapter, trainable_state
from gechat.trustful.model import DualDecoder

CHECKPOINT = "checkpoint.pt"
MAX_SKIPPED = 20
RUN_LOG = "run_log.jsonl"


@dataclass
class TrainConfig:
    out: Path
    run_dir: Path
    base: str = "qwen2.5-coder-0.5b"
    models_dir: Path = Path(".")
    device: str = "cpu"
    bf16: bool = False  # autocast the passes in bfloat16 (GPUs, and CPUs with AMX)
    steps: int = 300
    batch: int = 4
    lr: float = 2e-4  # LoRA factors
    block_lr: float = 1e-3  # the new cross-attention blocks
    warmup: int = 10
    noise: float = 1.0  # noise passages per gold passage in the guided context
    prompt_context: float = 0.5  # share of examples whose prompt holds the same passages too
    max_context_tokens: int = 384
    max_prompt_tokens: int = 512
    max_answer_tokens: int = 48
    grad_through_context: bool = False
    checkpoint_every: int = 25
    max_minutes: float | None = None
    seed: int = 0
    limit: int | None = None  # use only the first n training examples (smoke tests)
    data_root: Path = DATA
    tokenizer: str | None = None  # a saved tokenizer folder (skips rebuilding it from a GGUF)
    adapter: AdapterConfig = field(default_factory=AdapterConfig)


@dataclass
class Batch:
    prompt: torch.Tensor
    prompt_mask: torch.Tensor
    labels: torch.Tensor
    context: torch.Tensor
    context_mask: torch.Tensor


def make_batch(examples: list[data.Example], pool: list[data.Example], tok: Any, cfg: TrainConfig,
               rng: random.Random) -> Batch:
    end, pad = text.end_of_turn(tok), tok.pad_token_id if tok.pad_token_id is not None else 0
    rows, labels, ctx = [], [], []
    for ex in examples:
        passages = data.with_noise(ex, pool, cfg.noise, rng)
        in_prompt = passages if rng.random() < cfg.prompt_context else None
        p = text.prompt_ids(tok, text.question_messages(ex.question, in_prompt), cfg.max_prompt_tokens)
        a = [int(i) for i in tok(ex.answer.strip(), add_special_tokens=False)["input_ids"]]
        a = [*a[:cfg.max_answer_tokens], end]
        rows.append(p + a)
        labels.append([-100] * len(p) + a)
        ctx.append(text.context_ids(tok, text.context_text(passages), cfg.max_context_tokens))
    ids, mask = text.pad_right(rows, pad)
    lab, _ = text.pad_right(labels, -100)
    cids, cmask = text.pad_right(ctx, pad)
    return Batch(ids, mask, lab, cids, cmask)


def _order(n: int, seed: int, epoch: int) -> list[int]:
    order = list(range(n))
    random.Random(seed * 1_000_003 + epoch).shuffle(order)
    return order


def examples_at(step: int, n: int, cfg: TrainConfig) -> list[int]:
    """The example indices of ``step``: a fresh shuffle each epoch, the same on every run."""
    out = []
    for j in range(step * cfg.batch, (step + 1) * cfg.batch):
        epoch, pos = divmod(j, n)
        out.append(_order(n, cfg.seed, epoch)[pos])
    return out


def loss_of(model: DualDecoder, batch: Batch, cfg: TrainConfig) -> torch.Tensor:
    dev = torch.device(cfg.device)
    with torch.autocast(device_type=dev.type, dtype=torch.bfloat16, enabled=cfg.bf16):
        with torch.set_grad_enabled(cfg.grad_through_context):
            guide = model.encode(batch.context.to(dev), batch.context_mask.to(dev))
        out = model(batch.prompt.to(dev), guide=guide, attention_mask=batch.prompt_mask.long().to(dev),
                    labels=batch.labels.to(dev), use_cache=False)
    return out.loss  # type: ignore[no-any-return]


def _optimizer(model: DualDecoder, cfg: TrainConfig) -> torch.optim.Optimizer:
    lora = [p for p in model.lm.parameters() if p.requires_grad]
    blocks = list(model.blocks.parameters())
    return torch.optim.AdamW([{"params": lora, "lr": cfg.lr}, {"params": blocks, "lr": cfg.block_lr}],
                             weight_decay=0.0)


def _save_checkpoint(model: DualDecoder, opt: torch.optim.Optimizer, step: int, cfg: TrainConfig) -> None:
    state = {"step": step, "trainable": trainable_state(model), "optimizer": opt.state_dict()}
    tmp = cfg.run_dir / (CHECKPOINT + ".tmp")
    torch.save(state, tmp)
    tmp.replace(cfg.run_dir / CHECKPOINT)


def _restore(model: DualDecoder, opt: torch.optim.Optimizer, cfg: TrainConfig) -> int:
    path = cfg.run_dir / CHECKPOINT
    if not path.is_file():
        return 0
    from peft import set_peft_model_state_dict

    state = torch.load(path, map_location=cfg.device, weights_only=True)
    tr = state["trainable"]
    set_peft_model_state_dict(model.lm, {k[5:]: v for k, v in tr.items() if k.startswith("lora.")})
    model.blocks.load_state_dict({k[7:]: v for k, v in tr.items() if k.startswith("blocks.")})
    opt.load_state_dict(state["optimizer"])
    return int(state["step"])


def train(cfg: TrainConfig, *, resume: bool = False, lm_and_tok: tuple[Any, Any] | None = None,
          progress: Callable[[int, int, float], None] | None = None) -> dict[str, Any]:
    """Train (or go on training) and save the adapter to ``cfg.out``; the run's summary."""
    torch.manual_seed(cfg.seed)
    if cfg.device.startswith("cuda") and not cfg.bf16:
        # fp32 weights with TF32 matrix products: bf16 autocast turned an H200 run to NaN
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    cfg.run_dir.mkdir(parents=True, exist_ok=True)
    examples = data.training_set(cfg.data_root)[:cfg.limit]
    lm, tok = lm_and_tok or load_base(cfg.base, cfg.models_dir, tokenizer=cfg.tokenizer)
    model = build(lm, cfg.adapter).to(cfg.device)
    opt = _optimizer(model, cfg)
    start = _restore(model, opt, cfg) if resume else 0
    if not resume:
        (cfg.run_dir / RUN_LOG).write_text("")
    (cfg.run_dir / "train_config.json").write_text(json.dumps(asdict(cfg), indent=1, default=str))
    params = [p for g in opt.param_groups for p in g["params"]]
    t0, step, skipped = time.monotonic(), start, 0
    losses: list[float] = []
    model.train()
    while step < cfg.steps:
        rng = random.Random(cfg.seed * 7919 + step)
        batch = make_batch([examples[i] for i in examples_at(step, len(examples), cfg)], examples, tok, cfg, rng)
        t = time.monotonic()
        loss = loss_of(model, batch, cfg)
        opt.zero_grad(set_to_none=True)
        loss.backward()  # type: ignore[no-untyped-call]
        norm = torch.nn.utils.clip_grad_norm_(params, 1.0)
        # one overflowing gradient (bf16) would turn every weight into NaN through the
        # clipping; such a step is skipped and logged instead
        finite = bool(torch.isfinite(loss)) and bool(torch.isfinite(norm))
        if finite:
            for g, base in zip(opt.param_groups, (cfg.lr, cfg.block_lr), strict=True):
                g["lr"] = base * min(1.0, (step + 1) / max(1, cfg.warmup))  # linear warm-up
            opt.step()
            skipped = 0
        else:
            skipped += 1
            if skipped > MAX_SKIPPED:
                raise ModelError(f"training diverged: {skipped} steps in a row had a non-finite "
                                 f"loss or gradient (last checkpoint kept in {cfg.run_dir})",
                                 hint="lower --lr / --block-lr, or train without --bf16")
        step += 1
        losses.append(loss.item())
        with (cfg.run_dir / RUN_LOG).open("a") as f:
            f.write(json.dumps({"step": step, "loss": round(losses[-1], 4), "skipped": not finite,
                                "seconds": round(time.monotonic() - t, 2)}) + "\n")
        if progress:
            progress(step, cfg.steps, losses[-1])
        out_of_time = cfg.max_minutes is not None and (time.monotonic() - t0) / 60 >= cfg.max_minutes
        if step % cfg.checkpoint_every == 0 or out_of_time or step == cfg.steps:
            _save_checkpoint(model, opt, step, cfg)
        if out_of_time:
            break
    return _finish(model, cfg, examples, step, time.monotonic() - t0, losses)


def base_identity(base: str, models_dir: Path) -> tuple[str, str | None]:
    """How the card names the base: a packaged model's name when the weights are its GGUF
    (checked by sha256, so a copy elsewhere counts), else the path or id as given."""
    if base in PACKAGED:
        return base, PACKAGED[base].sha256
    p = Path(base)
    if not p.is_file():
        return base, None
    sha = sha256_file(p)
    named = [m.name for m in PACKAGED.values() if m.sha256 == sha]
    return (named[0] if named else str(p)), sha


def _finish(model: DualDecoder, cfg: TrainConfig, examples: list[data.Example], step: int,
            seconds: float, losses: list[float]) -> dict[str, Any]:
    log = [json.loads(x) for x in (cfg.run_dir / RUN_LOG).read_text().splitlines() if x.strip()]
    ok = [r for r in log if not r.get("skipped") and r["loss"] == r["loss"]]
    tail = [r["loss"] for r in ok[-25:]]
    summary = {
        "steps": step, "steps_planned": cfg.steps, "examples_seen": step * cfg.batch,
        "train_minutes": round(sum(r["seconds"] for r in log) / 60, 1),
        "minutes_this_session": round(seconds / 60, 1),
        "skipped_steps": len(log) - len(ok),
        "loss_first_25": round(sum(r["loss"] for r in ok[:25]) / max(1, len(ok[:25])), 4),
        "loss_last_25": round(sum(tail) / max(1, len(tail)), 4),
        "device": cfg.device, "bf16": cfg.bf16, "torch": torch.__version__,
    }
    name, sha = base_identity(cfg.base, cfg.models_dir)
    cfg.adapter.base = name
    card = {"model": "gechat-trustful", "base": name, "base_sha256": sha,
            "data_mix": data.mix_summary(examples), "noise_per_gold_passage": cfg.noise,
            "prompt_context_share": cfg.prompt_context,
            "config": json.loads(json.dumps(asdict(cfg), default=str)), "run": summary}
    save_adapter(model, cfg.out, cfg.adapter, card)
    return summary
