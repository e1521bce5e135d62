"""Settings by group: a settings file's tables, the flat object, and back."""

from __future__ import annotations

from pathlib import Path

import pytest

from gechat.errors import ConfigError
from gechat.settings import Settings
from gechat.settings_groups import GROUPS


def test_every_setting_is_in_exactly_one_group() -> None:
    fields = set(Settings.model_fields) - {"models_dir", "cache_dir", "preset"}
    mapped = [f for names in GROUPS.values() for f in names.values()]
    assert sorted(mapped) == sorted(fields)


def test_a_file_of_tables_loads_into_the_flat_settings(tmp_path: Path) -> None:
    f = tmp_path / "gechat.toml"
    f.write_text('top_k_chunks = 5\n\n[llm]\nbackend = "ollama"\nmodel = "qwen2.5:7b"\n\n'
                 '[evidence]\nclaim_atoms = "llm"\n\n[tuning]\nbeta = 0.1\n')
    s = Settings.load("default", file=f)
    assert (s.llm_backend, s.llm_model, s.claim_atoms, s.beta) == ("ollama", "qwen2.5:7b", "llm", 0.1)
    groups = s.grouped()
    assert groups["llm"]["backend"] == "ollama" and groups["tuning"]["beta"] == 0.1
    assert groups["retrieval"]["top_k_chunks"] == 5  # a flat key in a file still works


def test_an_unknown_key_in_a_table_is_refused_with_the_keys_it_takes(tmp_path: Path) -> None:
    f = tmp_path / "gechat.toml"
    f.write_text('[llm]\nmodle = "x"\n')
    with pytest.raises(ConfigError, match=r"unknown setting llm\.modle") as e:
        Settings.load("default", file=f)
    assert "backend" in (e.value.hint or "")


def test_the_careful_preset_has_the_verifier_decide() -> None:
    careful, default = Settings.load("careful"), Settings.load("default")
    assert (careful.entailment, careful.contradicted_threshold) == ("cascade", 0.7)
    assert (default.entailment, default.contradicted_threshold) == ("onnx", None)
