"""LightRAG (PyPI ``lightrag-hku``) as a peer in the graph-indexing benchmark: the side that
runs in our venv.

``ensure_lightrag_venv`` builds a separate virtualenv with LightRAG pinned (its dependencies
clash with ours, and it must never pull torch/CUDA); ``ensure_tiktoken_cache`` writes
tiktoken's ``o200k_base`` encoding from the npm package ``js-tiktoken`` (tiktoken would
download it; no such host is reachable here); ``run_lightrag`` runs ``lightrag_peer.py`` in
that venv and returns its JSON.

Nothing here imports LightRAG: our venv does not have it.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import venv
from pathlib import Path
from typing import Any

LIGHTRAG_VERSION = "1.5.7"
LIGHTRAG_REQUIREMENT = f"lightrag-hku=={LIGHTRAG_VERSION}"
# lightrag-hku 1.5.7's own dependencies pull no torch; should a pin ever change that, the
# local CPU build is installed first (any other torch spec pulls gigabytes of CUDA)
TORCH_REQUIREMENT = "torch==2.13.0"
JS_TIKTOKEN = "js-tiktoken@1.0.21"
ENCODING = "o200k_base"


_STAMP = ".gechat-lightrag.json"
_FORBIDDEN_PREFIXES = ("torch", "nvidia-", "triton")


def _venv_python(venv_dir: Path) -> Path:
    return venv_dir / "bin" / "python"


def _pip(python: Path, *args: str, capture: bool = False) -> subprocess.CompletedProcess[str]:
    cmd = [str(python), "-m", "pip", "--disable-pip-version-check", *args]
    return subprocess.run(cmd, check=True, text=True, capture_output=capture)


def ensure_lightrag_venv(root: Path) -> Path:
    """The LightRAG virtualenv ``root/venv``, built (or rebuilt) unless its stamp says it is done.

    Returns the venv's python. The stamp is written last, so an interrupted build is redone.
    """
    venv_dir = Path(root) / "venv"
    python = _venv_python(venv_dir)
    stamp = venv_dir / _STAMP
    want = {"requirement": LIGHTRAG_REQUIREMENT, "python": f"{sys.version_info.major}.{sys.version_info.minor}"}
    try:
        if python.exists() and json.loads(stamp.read_text()) == want:
            return python
    except (OSError, ValueError):
        pass
    venv_dir.parent.mkdir(parents=True, exist_ok=True)
    venv.EnvBuilder(with_pip=True, clear=True, symlinks=True).create(venv_dir)

    # resolve first: if anything would bring torch, install the local CPU build first
    with tempfile.TemporaryDirectory() as tmp:
        report_path = Path(tmp) / "report.json"
        _pip(python, "install", "-qq", "--dry-run", "--report", str(report_path), LIGHTRAG_REQUIREMENT)
        report = json.loads(report_path.read_text())
    names = {str(item["metadata"]["name"]).lower() for item in report.get("install", [])}
    if any(n.startswith(_FORBIDDEN_PREFIXES) for n in names):
        _pip(python, "install", "-qq", TORCH_REQUIREMENT)
    _pip(python, "install", "-qq", LIGHTRAG_REQUIREMENT)

    installed = json.loads(_pip(python, "list", "--format=json", capture=True).stdout)
    cuda = sorted(p["name"] for p in installed if p["name"].lower().startswith(("nvidia-", "triton")))
    if cuda:
        raise RuntimeError(f"the LightRAG venv pulled CUDA packages {cuda}; remove {venv_dir} and check the pins")
    stamp.write_text(json.dumps(want))
    return python


# --- tiktoken's o200k_base, offline ------------------------------------------------------


def _site_packages(venv_dir: Path) -> Path:
    found = sorted(venv_dir.glob("lib/python3*/site-packages"))
    if not found:
        raise FileNotFoundError(f"no site-packages under {venv_dir}")
    return found[0]


def tiktoken_source(venv_dir: Path, encoding: str = ENCODING) -> tuple[str, str]:
    """(blob URL, expected sha256) of ``encoding`` as the installed tiktoken loads it.

    Read from ``tiktoken_ext/openai_public.py`` of the LightRAG venv: the cache file is
    named by the sha1 of that URL, and tiktoken checks the file against that hash.
    """
    path = _site_packages(venv_dir) / "tiktoken_ext" / "openai_public.py"
    tree = ast.parse(path.read_text())
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and fn.name == encoding:
            for call in ast.walk(fn):
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Name)
                    and call.func.id == "load_tiktoken_bpe"
                    and call.args
                    and isinstance(call.args[0], ast.Constant)
                ):
                    url = str(call.args[0].value)
                    expected = next(
                        (
                            str(k.value.value)
                            for k in call.keywords
                            if k.arg == "expected_hash" and isinstance(k.value, ast.Constant)
                        ),
                        "",
                    )
                    return url, expected
    raise ValueError(f"{path} has no load_tiktoken_bpe call for {encoding}")


def _js_tiktoken_ranks(root: Path, encoding: str) -> str:
    """The ``dist/ranks/<encoding>.js`` text of the npm package (packed once into ``root/npm``)."""
    npm_dir = root / "npm"
    npm_dir.mkdir(parents=True, exist_ok=True)
    name, version = JS_TIKTOKEN.rsplit("@", 1)
    tgz = npm_dir / f"{name}-{version}.tgz"
    if not tgz.exists():
        subprocess.run(
            ["npm", "pack", JS_TIKTOKEN, "--silent", "--pack-destination", str(npm_dir)],
            check=True,
            capture_output=True,
            text=True,
        )
    with tarfile.open(tgz) as tar:
        member = tar.extractfile(f"package/dist/ranks/{encoding}.js")
        if member is None:
            raise FileNotFoundError(f"{tgz} has no dist/ranks/{encoding}.js")
        return member.read().decode("utf-8")


def tiktoken_blob_from_js(js_text: str) -> bytes:
    """js-tiktoken's compressed ranks as tiktoken's ``.tiktoken`` file (base64 token, rank).

    The JS module is ``export default {"bpe_ranks": "...", ...}``; each line of
    ``bpe_ranks`` is ``prefix offset tok tok ...``: the tokens (already base64) take the
    ranks offset, offset+1, ...
    """
    start, end = js_text.index("{"), js_text.rindex("}")
    data = json.loads(js_text[start : end + 1])
    ranks: dict[str, int] = {}
    for line in str(data["bpe_ranks"]).split("\n"):
        if not line:
            continue
        _, offset, *tokens = line.split(" ")
        for i, token in enumerate(tokens):
            ranks[token] = int(offset) + i
    out = io.StringIO()
    for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        base64.b64decode(token, validate=True)  # fail loudly on a format change
        out.write(f"{token} {rank}\n")
    return out.getvalue().encode("ascii")


def ensure_tiktoken_cache(root: Path) -> Path:
    """A directory for ``TIKTOKEN_CACHE_DIR`` holding ``o200k_base`` under tiktoken's file name.

    Needs ``ensure_lightrag_venv(root)`` first (the URL and hash come from its tiktoken).
    Verifies the sha256 against tiktoken's expected hash, then that the LightRAG venv
    loads the encoding with no network.
    """
    root = Path(root)
    venv_dir = root / "venv"
    cache_dir = root / "tiktoken"
    url, expected = tiktoken_source(venv_dir)
    target = cache_dir / hashlib.sha1(url.encode()).hexdigest()
    ok_stamp = cache_dir / f".{target.name}.verified"
    if target.exists() and ok_stamp.exists():
        return cache_dir
    blob = tiktoken_blob_from_js(_js_tiktoken_ranks(root, ENCODING))
    digest = hashlib.sha256(blob).hexdigest()
    if expected and digest != expected:
        raise RuntimeError(f"{ENCODING} from {JS_TIKTOKEN} has sha256 {digest}, tiktoken expects {expected}")
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    tmp.write_bytes(blob)
    tmp.replace(target)
    # the real check: tiktoken in the LightRAG venv loads it with the network cut off
    probe = (
        "import socket, tiktoken\n"
        "def _no_net(*a, **k): raise OSError('network disabled')\n"
        "socket.socket.connect = _no_net\n"
        "socket.create_connection = _no_net\n"
        f"enc = tiktoken.get_encoding({ENCODING!r})\n"
        "assert enc.decode(enc.encode('hello world')) == 'hello world'\n"
        "print(enc.n_vocab)\n"
    )
    subprocess.run(
        [str(_venv_python(venv_dir)), "-c", probe],
        check=True,
        capture_output=True,
        text=True,
        env=_offline_env(cache_dir),
    )
    ok_stamp.write_text(digest + "\n")
    return cache_dir


# --- running LightRAG ---------------------------------------------------------------------


def _offline_env(tiktoken_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "LLM_", "EMBEDDING_"))}
    env.update(
        {
            "TIKTOKEN_CACHE_DIR": str(tiktoken_dir),
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "NO_PROXY": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1",
        }
    )
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        env.pop(proxy, None)  # our server is on 127.0.0.1; nothing else is to be reached
    return env


def run_lightrag(
    text_file: Path,
    base_url: str,
    model: str,
    workdir: Path,
    timeout_s: int,
    *,
    root: Path | None = None,
) -> dict[str, Any]:
    """Index ``text_file`` with LightRAG (in its venv) against ``base_url``; its result JSON.

    ``workdir`` holds LightRAG's storage (``workdir/rag``, wiped first), its log
    (``lightrag.log``), every LLM call with its completion (``llm_calls.jsonl``) and the
    result (``result.json``). The venv and the tiktoken cache live under ``root``
    (default: ``lightrag_root()``), built on first use. On a time-out or a crash the
    answer is ``{"version", "error", ...}`` instead of the counts.
    """
    root = Path(root) if root is not None else lightrag_root()
    python = ensure_lightrag_venv(root)
    tiktoken_dir = ensure_tiktoken_cache(root)
    workdir = Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    out = workdir / "result.json"
    out.unlink(missing_ok=True)
    cmd = [
        str(python),
        str(Path(__file__).resolve().with_name("lightrag_peer.py")),
        "--text",
        str(Path(text_file).resolve()),
        "--base-url",
        base_url,
        "--model",
        model,
        "--workdir",
        str(workdir),
        "--out",
        str(out),
    ]
    log = workdir / "lightrag.log"
    with log.open("w") as fh:
        try:
            proc = subprocess.run(
                cmd,
                cwd=workdir,
                env=_offline_env(tiktoken_dir),
                stdout=fh,
                stderr=subprocess.STDOUT,
                timeout=timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return {"version": LIGHTRAG_VERSION, "error": f"timed out after {timeout_s}s", "log": str(log)}
    if not out.exists():
        tail = log.read_text(errors="replace")[-2000:]
        return {"version": LIGHTRAG_VERSION, "error": f"exit status {proc.returncode}", "log_tail": tail}
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def lightrag_root() -> Path:
    """Where the LightRAG venv and caches live: ``$GECHAT_LIGHTRAG_ROOT``, else ``.cache/lightrag``."""
    env = os.environ.get("GECHAT_LIGHTRAG_ROOT")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent / ".cache" / "lightrag"
