"""Copy a trained, exported and calibrated cross-encoder into the package as the default model.

    python training/ship_nli.py RUN_DIR ONNX_DIR [--fp32] [--earlier STAGE1_DIR]

RUN_DIR is what train_nli.py wrote (its config and run log travel with the model, so the
shipped files say how they were made); ONNX_DIR is what export_onnx.py and calibrate_nli.py
wrote. The int8 file is shipped unless --fp32. A run that continued from an earlier
checkpoint (``train_nli.py --init``) names it with --earlier; that stage's config and log are
shipped too, as stage1_*. MODEL_CARD.md in the target is kept.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gechat.models.entail.onnx import PACKAGED_NLI_DIR
from gechat.models.manager import write_manifest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("onnx_dir", type=Path)
    ap.add_argument("--fp32", action="store_true")
    ap.add_argument("--target", type=Path, default=PACKAGED_NLI_DIR)
    ap.add_argument("--earlier", type=Path, default=None, help="the run this one continued from (--init)")
    args = ap.parse_args()
    if not (args.onnx_dir / "calibration.json").is_file():
        sys.exit(f"{args.onnx_dir} has no calibration.json: run training/calibrate_nli.py first")
    args.target.mkdir(parents=True, exist_ok=True)
    for old in args.target.iterdir():
        if old.name != "MODEL_CARD.md":
            old.unlink()
    model = "model.onnx" if args.fp32 else "model.int8.onnx"
    for name in (model, "tokenizer.json", "labels.json", "calibration.json"):
        shutil.copy2(args.onnx_dir / name, args.target / name)
    for name in ("train_config.json", "run_log.jsonl"):
        shutil.copy2(args.run_dir / name, args.target / name)
        if args.earlier is not None:
            shutil.copy2(args.earlier / name, args.target / f"stage1_{name}")
    old = json.loads((args.onnx_dir / "manifest.json").read_text())
    manifest = write_manifest(args.target, max_tokens=old.get("max_tokens", 256),
                              max_logit_diff_vs_torch=old.get("max_logit_diff_vs_torch", {}))
    print(json.dumps({k: v["bytes"] for k, v in manifest["files"].items()}, indent=1))  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
