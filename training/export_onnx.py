"""Export a trained NLI checkpoint to ONNX (fp32 and dynamic int8) for torch-free serving.

    python training/export_onnx.py CHECKPOINT_DIR OUT_DIR [--per-channel] [--weights int8]

Writes model.onnx, model.int8.onnx, tokenizer.json, labels.json (the checkpoint's id2label)
and manifest.json (sha256 and size of every file, plus the largest logit difference of each
ONNX file against PyTorch on a few pairs), which the loader checks.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from gechat.models.entail.verifier import quant_recipe
from gechat.models.manager import write_manifest

PROBE = [("A man is playing a guitar on stage.", "A person plays music."),
         ("The company reported revenue of $5.2 billion in 2022.", "Revenue in 2022 was under $1 billion."),
         ("Paris is the capital of France.", "The Eiffel Tower is in Berlin.")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--per-channel", action="store_true",
                    help="int8 weights with a scale per output channel, not one per matrix (see the model card: "
                         "one scale per matrix erased what a fine-tuning stage had learnt)")
    ap.add_argument("--weights", choices=("uint8", "int8"), default="uint8",
                    help="quantized weight type (default uint8: onnxruntime's int8-weight kernels saturate "
                         "on CPUs without VNNI, e.g. AVX2-only AMD EPYC; see docs/grounding-model.md)")
    args = ap.parse_args()
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    args.out.mkdir(parents=True, exist_ok=True)
    tok = AutoTokenizer.from_pretrained(args.checkpoint)
    model = AutoModelForSequenceClassification.from_pretrained(args.checkpoint).eval()
    enc = tok([p for p, _ in PROBE], [h for _, h in PROBE], padding=True, return_tensors="pt")
    names = ["input_ids", "attention_mask", "token_type_ids"]
    fp32 = args.out / "model.onnx"
    with torch.inference_mode():
        ref = model(**enc).logits.numpy()
        torch.onnx.export(model, (enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]), str(fp32),
                          input_names=names, output_names=["logits"], opset_version=17, dynamo=False,
                          dynamic_axes={n: {0: "batch", 1: "seq"} for n in names} | {"logits": {0: "batch"}})
    int8 = args.out / "model.int8.onnx"
    weight_type = QuantType.QUInt8 if args.weights == "uint8" else QuantType.QInt8
    quantize_dynamic(str(fp32), str(int8), weight_type=weight_type, per_channel=args.per_channel)
    tok.backend_tokenizer.save(str(args.out / "tokenizer.json"))
    (args.out / "labels.json").write_text(json.dumps({"id2label": model.config.id2label}, indent=1) + "\n")
    feeds = {n: enc[n].numpy() for n in names}
    diffs = {}
    for f in (fp32, int8):
        out = ort.InferenceSession(str(f), providers=["CPUExecutionProvider"]).run(None, feeds)[0]
        diffs[f.name] = float(np.abs(out - ref).max())
    write_manifest(args.out, max_logit_diff_vs_torch=diffs, max_tokens=256,
                   recipe=quant_recipe(args.weights, args.per_channel))
    print(json.dumps(diffs))


if __name__ == "__main__":
    main()
