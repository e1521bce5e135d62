"""Building a dual decoder: the base causal LM (packaged GGUF, a .gguf file, or a Hugging Face
model by path or id), LoRA on its attention projections, and a saved adapter.

An adapter is a folder: ``adapter.safetensors`` (LoRA factors and cross-attention blocks,
fp16), ``adapter_config.json`` (what to rebuild it with) and ``card.json`` (the model card:
base model, data, run, and the weights' sha256, checked on every load).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from gechat.errors import ModelError
from gechat.models import manager
from gechat.trustful.model import DEFAULT_LAYERS, DualDecoder

WEIGHTS, CONFIG, CARD = "adapter.safetensors", "adapter_config.json", "card.json"
PACKAGED_ADAPTER = Path(__file__).resolve().parents[1] / "models" / "data" / "trustful"
LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj")
_INSTALL = "pip install 'gechat[trustful]'  (transformers, gguf and peft; torch==2.13.0 first)"


@dataclass
class AdapterConfig:
    base: str = "qwen2.5-coder-0.5b"
    layers: tuple[int, ...] = DEFAULT_LAYERS
    inner: int = 256
    heads: int = 4
    lora_r: int = 8
    lora_alpha: int = 16
    lora_targets: tuple[str, ...] = LORA_TARGETS
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path) -> AdapterConfig:
        raw = json.loads(path.read_text())
        raw["layers"], raw["lora_targets"] = tuple(raw["layers"]), tuple(raw["lora_targets"])
        return cls(**raw)


def load_base(model: str, models_dir: Path, *, dtype: torch.dtype = torch.float32,
              tokenizer: str | None = None) -> tuple[Any, Any]:
    """(causal LM, tokenizer). GGUF weights are dequantised by transformers (needs ``gguf``);
    ``tokenizer`` names a saved tokenizer folder to use instead of rebuilding it from the GGUF."""
    try:
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as e:
        raise ModelError(f"the trustful model needs transformers: {e}", hint=_INSTALL) from e
    p = Path(model).expanduser()
    try:
        if model in manager.PACKAGED or p.suffix.lower() == ".gguf":
            gguf = manager.resolve_gguf(model, models_dir)
            tok = (AutoTokenizer.from_pretrained(tokenizer) if tokenizer
                   else AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name))
            lm = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=dtype)
        else:
            tok = AutoTokenizer.from_pretrained(tokenizer or model)
            lm = AutoModelForCausalLM.from_pretrained(model, dtype=dtype)
    except ModelError:
        raise
    except ImportError as e:
        raise ModelError(f"cannot read {model}: {e}", hint=_INSTALL) from e
    except (OSError, ValueError) as e:
        raise ModelError(f"cannot load the base model {model!r}: {str(e).splitlines()[0]}",
                         hint="give a packaged model name, a .gguf file, or a local Hugging Face "
                              "model folder (nothing is downloaded here)") from e
    lm.eval()  # type: ignore[no-untyped-call]
    return lm, tok


def with_lora(lm: Any, cfg: AdapterConfig) -> Any:
    """``lm`` wrapped by peft: its weights frozen, LoRA factors on ``cfg.lora_targets``."""
    try:
        from peft import LoraConfig, get_peft_model
    except ImportError as e:
        raise ModelError(f"training the trustful model needs peft: {e}", hint=_INSTALL) from e
    lora = LoraConfig(r=cfg.lora_r, lora_alpha=cfg.lora_alpha, lora_dropout=0.0,
                      target_modules=list(cfg.lora_targets), bias="none")
    return get_peft_model(lm, lora)


def build(lm: Any, cfg: AdapterConfig) -> DualDecoder:
    """A fresh trainable dual decoder: LoRA and the blocks' output projections at zero."""
    return DualDecoder(with_lora(lm, cfg), cfg.layers, inner=cfg.inner, heads=cfg.heads)


def trainable_state(model: DualDecoder) -> dict[str, torch.Tensor]:
    """The adapter's tensors: LoRA factors (peft's names) and the cross-attention blocks."""
    from peft import get_peft_model_state_dict

    state = {f"lora.{k}": v for k, v in get_peft_model_state_dict(model.lm).items()}
    state.update({f"blocks.{k}": v for k, v in model.blocks.state_dict().items()})
    return state


def save_adapter(model: DualDecoder, folder: Path, cfg: AdapterConfig, card: dict[str, Any]) -> str:
    """Write the adapter (fp16) and its card; the weights' sha256."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().to("cpu", torch.float16).contiguous() for k, v in trainable_state(model).items()}
    tmp = folder / (WEIGHTS + ".tmp")
    save_file(state, str(tmp))
    tmp.replace(folder / WEIGHTS)
    sha = manager.sha256_file(folder / WEIGHTS)
    (folder / CONFIG).write_text(json.dumps(asdict(cfg), indent=1))
    card = {**card, "sha256": sha, "bytes": (folder / WEIGHTS).stat().st_size,
            "saved": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}
    (folder / CARD).write_text(json.dumps(card, indent=1))
    return sha


def read_card(folder: Path) -> dict[str, Any]:
    """The adapter's model card, or a clear error when the folder holds no adapter."""
    missing = [n for n in (WEIGHTS, CONFIG, CARD) if not (folder / n).is_file()]
    if missing:
        raise ModelError(f"no trustful adapter in {folder} (missing {', '.join(missing)})",
                         hint="train one: python training/train_trustful.py --out FOLDER")
    card: dict[str, Any] = json.loads((folder / CARD).read_text())
    return card


def read_adapter(folder: Path) -> tuple[AdapterConfig, dict[str, torch.Tensor], dict[str, Any]]:
    """The adapter's config, tensors and card, after checking the tensors' sha256."""
    from safetensors.torch import load_file

    card = read_card(folder)
    if manager.sha256_file(folder / WEIGHTS) != card.get("sha256"):
        raise ModelError(f"{folder / WEIGHTS} does not match the sha256 in its card",
                         hint="the file is damaged or was changed; reinstall gechat or retrain it")
    return AdapterConfig.read(folder / CONFIG), load_file(str(folder / WEIGHTS)), card


def load_trained(lm: Any, folder: Path) -> tuple[DualDecoder, dict[str, Any]]:
    """``lm`` with the adapter in ``folder``: LoRA merged into the weights (plain decoder speed),
    cross-attention blocks attached. Returns the model and the adapter's card."""
    from peft import set_peft_model_state_dict

    cfg, state, card = read_adapter(folder)
    dtype = next(lm.parameters()).dtype
    peft_lm = with_lora(lm, cfg)
    lora = {k[5:]: v.to(dtype) for k, v in state.items() if k.startswith("lora.")}
    result = set_peft_model_state_dict(peft_lm, lora)
    unexpected = getattr(result, "unexpected_keys", [])
    if unexpected:
        raise ModelError(f"the adapter in {folder} does not fit this base model ({unexpected[0]} ...)")
    merged = peft_lm.merge_and_unload()
    model = DualDecoder(merged, cfg.layers, inner=cfg.inner, heads=cfg.heads)
    blocks = {k[7:]: v.to(dtype) for k, v in state.items() if k.startswith("blocks.")}
    model.blocks.load_state_dict(blocks)
    return model.eval(), card
