"""Fine-tune TrustfulLLM's dual decoder and save its adapter.

    python training/train_trustful.py --out runs/trustful --max-minutes 40          # this CPU
    python training/train_trustful.py --out runs/trustful --device cuda --steps 1500 --batch 16
    python training/train_trustful.py --out runs/trustful --resume                  # go on after a stop

The run folder (``--run-dir``, default OUT/run) holds the checkpoint, ``run_log.jsonl`` (loss
and seconds per step) and ``train_config.json``; OUT gets ``adapter.safetensors``,
``adapter_config.json`` and ``card.json`` (data mix, settings, run summary, sha256).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gechat.errors import GechatError


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True, help="folder for the trained adapter")
    ap.add_argument("--run-dir", type=Path, help="checkpoint and run log (default OUT/run)")
    ap.add_argument("--base", default="qwen2.5-coder-0.5b", help="packaged model, .gguf file or HF folder")
    ap.add_argument("--models-dir", type=Path, help="where packaged models live (default: gechat's)")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    ap.add_argument("--bf16", action="store_true",
                    help="bfloat16 autocast (faster; an H200 run with it turned to NaN, fp32 + TF32 did not)")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--lr", type=float, default=2e-4, help="LoRA learning rate")
    ap.add_argument("--block-lr", type=float, default=1e-3, help="cross-attention learning rate")
    ap.add_argument("--warmup", type=int, default=10, help="steps of linear learning-rate warm-up")
    ap.add_argument("--inner", type=int, default=256, help="cross-attention width")
    ap.add_argument("--heads", type=int, default=4, help="cross-attention heads")
    ap.add_argument("--max-context-tokens", type=int, default=384, help="guided context cut at this length")
    ap.add_argument("--noise", type=float, default=1.0, help="noise passages per gold passage (0: none)")
    ap.add_argument("--prompt-context", type=float, default=0.5,
                    help="share of examples whose prompt also holds the passages")
    ap.add_argument("--grad-through-context", action="store_true",
                    help="back-propagate through the context pass too (about twice the cost)")
    ap.add_argument("--max-minutes", type=float, help="stop (with a checkpoint) after this long")
    ap.add_argument("--checkpoint-every", type=int, default=25)
    ap.add_argument("--resume", action="store_true", help="go on from the run folder's checkpoint")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, help="train on the first N examples only (smoke tests)")
    ap.add_argument("--data-root", type=Path, help="a copy of ../shared/data")
    ap.add_argument("--tokenizer", help="a saved tokenizer folder (skips rebuilding it from the GGUF)")
    args = ap.parse_args(argv)

    import torch
    from tqdm import tqdm

    from gechat.settings import Settings
    from gechat.trustful.load import AdapterConfig
    from gechat.trustful.train import TrainConfig, train

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("error: --device cuda, but torch sees no GPU", file=sys.stderr)
        return 2
    cfg = TrainConfig(out=args.out, run_dir=args.run_dir or args.out / "run", base=args.base,
                      models_dir=args.models_dir or Settings().models_dir, device=args.device,
                      bf16=args.bf16, steps=args.steps, batch=args.batch, lr=args.lr,
                      block_lr=args.block_lr, noise=args.noise, prompt_context=args.prompt_context,
                      grad_through_context=args.grad_through_context, max_minutes=args.max_minutes,
                      checkpoint_every=args.checkpoint_every, seed=args.seed, limit=args.limit,
                      warmup=args.warmup, max_context_tokens=args.max_context_tokens,
                      adapter=AdapterConfig(inner=args.inner, heads=args.heads))
    if args.data_root:
        cfg.data_root = args.data_root
    cfg.tokenizer = args.tokenizer
    bar = tqdm(total=cfg.steps, desc="training", unit="step")

    def progress(step: int, total: int, loss: float) -> None:
        bar.n = step
        bar.set_postfix(loss=f"{loss:.3f}")
        bar.refresh()

    try:
        summary = train(cfg, resume=args.resume, progress=progress)
    except GechatError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nstopped; the last checkpoint is kept: run again with --resume", file=sys.stderr)
        return 130
    finally:
        bar.close()
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
