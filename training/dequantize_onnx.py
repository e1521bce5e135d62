"""Turn a shipped int8 ONNX cross-encoder back into a trainable Hugging Face checkpoint.

    python training/dequantize_onnx.py ONNX_DIR OUT_DIR

A later training stage can then start from exactly the model users have (``train_nli.py
--init OUT_DIR``), even when the fp32 checkpoint it was exported from was not kept: every int8
weight becomes (q - zero_point) * scale, the fp32 biases and LayerNorms are copied as they
are. The ONNX file names each MatMul by its module path, which gives the parameter's name.
Prints the largest logit difference of the rebuilt model against the ONNX file on a few pairs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from training.export_onnx import PROBE
from training.nli_data import LABELS
from training.train_nli import base_model_path


def _dequantized(inits: dict[str, np.ndarray], stem: str) -> np.ndarray:
    q = inits[f"{stem}_quantized"].astype(np.float32)
    return (q - inits[f"{stem}_zero_point"].astype(np.float32)) * inits[f"{stem}_scale"].astype(np.float32)


def state_dict(onnx_file: Path) -> dict[str, torch.Tensor]:
    graph = onnx.load(str(onnx_file)).graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    out = {name: torch.from_numpy(a.copy()) for name, a in inits.items()
           if name.startswith(("bert.", "classifier.")) and not name.endswith(("_scale", "_zero_point", "_quantized"))}
    for name in inits:
        if name.startswith("bert.embeddings.") and name.endswith(".weight_quantized"):
            stem = name.removesuffix("_quantized")
            out[stem] = torch.from_numpy(_dequantized(inits, stem))
    for node in graph.node:
        if node.op_type != "MatMulInteger":
            continue
        stem = node.input[1].removesuffix("_quantized")
        if stem.endswith(".weight_Transposed"):  # pooler and classifier keep their names
            param = stem.removesuffix("_Transposed")
        else:  # "/bert/encoder/layer.0/attention/self/query/MatMul_output_0_output_quantized"
            path = node.output[0].split("/MatMul_output")[0].strip("/")
            param = path.replace("/", ".") + ".weight"
        out[param] = torch.from_numpy(_dequantized(inits, stem).T.copy())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("onnx_dir", type=Path)
    ap.add_argument("out", type=Path)
    args = ap.parse_args()
    import onnxruntime as ort

    onnx_file = args.onnx_dir / "model.int8.onnx"
    base = base_model_path()
    config = AutoConfig.from_pretrained(base, num_labels=3, id2label=dict(enumerate(LABELS)),
                                        label2id={name: i for i, name in enumerate(LABELS)})
    model = AutoModelForSequenceClassification.from_config(config)
    missing, unexpected = model.load_state_dict(state_dict(onnx_file), strict=False)
    missing = [m for m in missing if not m.endswith("position_ids")]
    if missing or unexpected:
        sys.exit(f"cannot map the ONNX weights: missing {missing}, unexpected {unexpected}")
    tok = AutoTokenizer.from_pretrained(base)
    args.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(args.out)
    tok.save_pretrained(args.out)
    enc = tok([p for p, _ in PROBE], [h for _, h in PROBE], padding=True, return_tensors="pt")
    with torch.inference_mode():
        ref = model.eval()(**enc).logits.numpy()
    feeds = {n: enc[n].numpy() for n in ("input_ids", "attention_mask", "token_type_ids")}
    got = ort.InferenceSession(str(onnx_file), providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    print(json.dumps({"max_logit_diff_vs_onnx": float(np.abs(got - ref).max()),
                      "argmax_agrees": bool((got.argmax(1) == ref.argmax(1)).all())}))


if __name__ == "__main__":
    main()
