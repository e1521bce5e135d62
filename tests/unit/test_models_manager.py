"""The model manager against fake part packages on sys.path (no real weights)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import uuid
from pathlib import Path

import pytest

from gechat.errors import ModelError
from gechat.models import manager
from gechat.models.manager import PackagedModel, Part


def _make_parts(root: Path, prefix: str, chunks: list[bytes]) -> tuple[Part, ...]:
    parts = []
    for i, data in enumerate(chunks, start=1):
        pkg = root / f"{prefix}{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("raise RuntimeError('part packages must not be imported')\n")
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(data)
        parts.append(Part(f"fake-part-{prefix}{i}", f"{prefix}{i}", f"data/part{i:02d}.bin"))
    return tuple(parts)


@pytest.fixture
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, PackagedModel], bytes]:
    chunks = [os.urandom(1000), os.urandom(2500), b"tail"]
    blob = b"".join(chunks)
    prefix = f"fakepart_{uuid.uuid4().hex[:8]}_"
    site = tmp_path / "site"
    parts = _make_parts(site, prefix, chunks)
    monkeypatch.syspath_prepend(str(site))
    model = PackagedModel(
        name="tiny",
        filename="tiny.gguf",
        version="1.2.3",
        parts=parts,
        size=len(blob),
        sha256=hashlib.sha256(blob).hexdigest(),
        licence="test",
    )
    return {"tiny": model}, blob


def test_pull_joins_parts_in_order(tmp_path: Path, tiny: tuple[dict[str, PackagedModel], bytes]) -> None:
    table, blob = tiny
    seen: list[tuple[int, int]] = []
    out = manager.pull("tiny", tmp_path / "models", lambda d, t: seen.append((d, t)), table=table)
    assert out == tmp_path / "models" / "tiny.gguf"
    assert out.read_bytes() == blob
    assert out.stat().st_mode & 0o777 == 0o644
    assert seen[-1] == (len(blob), len(blob))
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    sidecar = json.loads((out.parent / "tiny.gguf.sha256").read_text())
    assert sidecar["sha256"] == table["tiny"].sha256
    assert manager.path("tiny", out.parent, table=table) == out
    # no temp files left behind
    assert sorted(p.name for p in out.parent.iterdir()) == ["tiny.gguf", "tiny.gguf.sha256"]


def test_list_models_reports_state(tmp_path: Path, tiny: tuple[dict[str, PackagedModel], bytes]) -> None:
    table, _ = tiny
    models = tmp_path / "models"
    (st,) = manager.list_models(models, table=table)
    assert (st.parts_installed, st.parts_total, st.joined, st.verified) == (3, 3, False, False)
    manager.pull("tiny", models, table=table)
    (st,) = manager.list_models(models, table=table)
    assert (st.joined, st.verified, st.path) == (True, True, models / "tiny.gguf")


def test_sidecar_avoids_rehash_and_notices_changes(
    tmp_path: Path, tiny: tuple[dict[str, PackagedModel], bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    table, blob = tiny
    models = tmp_path / "models"
    out = manager.pull("tiny", models, table=table)

    def boom(*a: object, **k: object) -> None:
        raise AssertionError("should not join again")

    monkeypatch.setattr(manager, "_join", boom)
    assert manager.pull("tiny", models, table=table) == out  # sidecar hit: no re-join
    assert manager.resolve_gguf("tiny", models, table=table) == out
    # a copied file (no sidecar) is re-hashed, not re-joined
    (models / "tiny.gguf.sha256").unlink()
    assert manager.path("tiny", models, table=table) is None
    assert manager.pull("tiny", models, table=table) == out
    assert manager.path("tiny", models, table=table) == out
    monkeypatch.undo()

    # a changed file (new mtime) is not trusted: path() says no, verify() re-hashes
    out.write_bytes(b"x" * len(blob))
    assert manager.path("tiny", models, table=table) is None
    assert manager.verify("tiny", models, table=table) is False
    out.write_bytes(blob)
    assert manager.verify("tiny", models, table=table) is True
    assert manager.path("tiny", models, table=table) == out


def test_checksum_mismatch_leaves_no_file(tmp_path: Path, tiny: tuple[dict[str, PackagedModel], bytes]) -> None:
    table, _ = tiny
    bad = {"tiny": dataclasses.replace(table["tiny"], sha256="0" * 64)}
    models = tmp_path / "models"
    with pytest.raises(ModelError) as e:
        manager.pull("tiny", models, table=bad)
    assert "checksum" in e.value.message
    assert "pip install --force-reinstall" in e.value.hint
    assert list(models.iterdir()) == []


def test_failure_midway_removes_temp_file(tmp_path: Path, tiny: tuple[dict[str, PackagedModel], bytes]) -> None:
    table, _ = tiny
    models = tmp_path / "models"

    def stop(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        manager.pull("tiny", models, stop, table=table)
    assert list(models.iterdir()) == []


def test_missing_part_names_package_and_pip_hint(tmp_path: Path, tiny: tuple[dict[str, PackagedModel], bytes]) -> None:
    table, _ = tiny
    m = table["tiny"]
    gone = Part("fake-missing-part", f"nosuchmodule_{uuid.uuid4().hex}", "data/part09.bin")
    broken = {"tiny": dataclasses.replace(m, parts=(*m.parts[:2], gone))}
    with pytest.raises(ModelError) as e:
        manager.pull("tiny", tmp_path / "models", table=broken)
    assert "fake-missing-part" in e.value.message
    assert e.value.hint == "pip install fake-missing-part==1.2.3"
    (st,) = manager.list_models(tmp_path / "models", table=broken)
    assert (st.parts_installed, st.parts_total) == (2, 3)


def test_resolve_gguf(tmp_path: Path, tiny: tuple[dict[str, PackagedModel], bytes]) -> None:
    table, blob = tiny
    own = tmp_path / "mine.gguf"
    own.write_bytes(b"GGUF")
    assert manager.resolve_gguf(str(own), tmp_path, table=table) == own
    assert manager.resolve_gguf("tiny", tmp_path / "m", table=table).read_bytes() == blob
    with pytest.raises(ModelError) as e:
        manager.resolve_gguf("llama-70b", tmp_path, table=table)
    assert "tiny" in e.value.hint
    with pytest.raises(ModelError):
        manager.resolve_gguf(str(tmp_path / "absent.gguf"), tmp_path, table=table)


def test_packaged_table_is_consistent() -> None:
    for name, m in manager.PACKAGED.items():
        assert m.name == name and m.filename.endswith((".gguf", ".zip"))
        assert len(m.sha256) == 64 and m.size > 0
        assert "Apache-2.0" in m.licence
        if m.filename.endswith(".gguf"):
            assert [p.file for p in m.parts] == [f"data/part{i:02d}.bin" for i in range(1, len(m.parts) + 1)]
    # the verifier's base: five parts of one zip, installed without their unrelated dependency
    mpnet = manager.PACKAGED["all-mpnet-base-v2"]
    assert [p.file[-3:] for p in mpnet.parts] == ["001", "002", "003", "004", "005"]
    assert "--no-deps" in mpnet.install_hint(mpnet.parts[:1])


def test_a_packaged_file_that_is_no_gguf_is_not_an_llm(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="unknown model"):
        manager.resolve_gguf("all-mpnet-base-v2", tmp_path)


def test_joined_file_survives_uninstalled_parts(tmp_path: Path, tiny: tuple[dict[str, PackagedModel], bytes]) -> None:
    table, _ = tiny
    models = tmp_path / "models"
    out = manager.pull("tiny", models, table=table)
    (models / "tiny.gguf.sha256").unlink()
    gone = tuple(Part(p.package, f"gone_{uuid.uuid4().hex}", p.file) for p in table["tiny"].parts)
    uninstalled = {"tiny": dataclasses.replace(table["tiny"], parts=gone)}
    assert manager.pull("tiny", models, table=uninstalled) == out
