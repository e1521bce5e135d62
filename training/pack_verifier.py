"""Pack what training the verifier needs into one folder, small enough to carry to a GPU machine.

    python training/pack_verifier.py --base BASE_DIR --out .dev/verifier [--chunk-mb 38]

Writes ``data.jsonl.gz`` (the train mix, dev and held-out eval pairs, one JSON object a line
with a ``split``), and, with ``--base``, the base encoder's weights as per-row int8 with fp32
scales (``base.int8.pt``, a quarter of fp32; ``train_verifier.dequantize`` reads it back),
split into ``base.part-NN`` files of ``--chunk-mb`` so each fits one transfer, plus its config
and tokenizer. ``train_verifier.py
--packed`` reads the folder. The train mix is the shipped cross-encoder's
(``nli_data.training_mix``, licences there), plus the claim-style pairs and the role swaps
beside their originals (the swaps alone taught a shortcut, see the MiniLM model card), and the claim pairs of
the claim sets' tuning halves (``training/task_pairs.py``, ``--task`` times).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import sys
from collections import Counter
from pathlib import Path

import torch
from safetensors.torch import load_file

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from training.claim_pairs import claim_pairs
from training.nli_data import LABELS, Pair, evaluation_sets, training_mix
from training.swap_pairs import swap_pairs
from training.task_pairs import task_pairs

BASE_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")


def quantize(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Matrices as int8 rows with one fp32 scale each; everything else as it is."""
    out: dict[str, torch.Tensor] = {}
    for key, value in state.items():
        if value.dtype == torch.float32 and value.ndim == 2 and value.numel() > 65536:
            scale = value.abs().amax(dim=1, keepdim=True).clamp_min(1e-12) / 127.0
            out[key + ".q8"] = torch.round(value / scale).to(torch.int8)
            out[key + ".scale"] = scale
        else:
            out[key] = value
    return out


def row(pair: Pair, split: str) -> str:
    return json.dumps({"premise": pair.premise, "hypothesis": pair.hypothesis, "label": pair.label,
                       "source": pair.source, "split": split}, ensure_ascii=False)


def write_data(out: Path, *, seed: int, claims: int, swaps: int, dev_size: int, task: int) -> dict[str, object]:
    train, dev = training_mix(seed=seed)
    train += swap_pairs(train, random.Random(seed), limit=swaps, originals=True) if swaps else []
    train += claim_pairs(seed) * claims
    task_train, task_dev = task_pairs() if task else ([], [])
    train += task_train * task
    random.Random(seed).shuffle(train)
    dev = random.Random(seed).sample(dev, min(dev_size, len(dev))) + task_dev
    held = evaluation_sets()
    with gzip.open(out / "data.jsonl.gz", "wt", encoding="utf-8") as f:
        for split, pairs in (("train", train), ("dev", dev)):
            f.writelines(row(p, split) + "\n" for p in pairs)
        for pairs in held.values():
            f.writelines(row(p, "eval") + "\n" for p in pairs)
    return {"train_pairs": len(train), "dev_pairs": len(dev), "seed": seed, "claims_repeat": claims,
            "swaps_limit": swaps, "task_repeat": task, "train_sources": dict(Counter(p.source for p in train)),
            "train_labels": {LABELS[k] if k >= 0 else "not_entailment": v
                             for k, v in Counter(p.label for p in train).items()},
            "eval_pairs": {name: len(pairs) for name, pairs in held.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--base", type=Path, default=None, help="the base encoder's Hugging Face folder")
    ap.add_argument("--chunk-mb", type=float, default=38.0)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--claims", type=int, default=3, help="times the claim-style pairs are repeated")
    ap.add_argument("--swaps", type=int, default=6000, help="role-swap negatives, each beside its original")
    ap.add_argument("--dev-size", type=int, default=3000)
    ap.add_argument("--task", type=int, default=1,
                    help="times the tuning halves' claim pairs (training/task_pairs.py) are repeated; 0: none")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    info = write_data(args.out, seed=args.seed, claims=args.claims, swaps=args.swaps, dev_size=args.dev_size,
                      task=args.task)
    if args.base:
        for name in BASE_FILES:
            if (args.base / name).exists():
                shutil.copy(args.base / name, args.out / name)
        whole = args.out / "base.int8.pt"
        torch.save(quantize(load_file(args.base / "model.safetensors")), whole)
        data = whole.read_bytes()
        size = int(args.chunk_mb * 1e6)
        for i in range(0, len(data), size):
            (args.out / f"base.part-{i // size:02d}").write_bytes(data[i : i + size])
        whole.unlink()
    (args.out / "pack.json").write_text(json.dumps(info, indent=1) + "\n")
    print(json.dumps({k: v for k, v in info.items() if k.endswith("pairs")}))


if __name__ == "__main__":
    main()
