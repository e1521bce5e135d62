"""The grounding model's data mix keeps its evaluation sets clean (issue 4)."""

from __future__ import annotations

import pytest
from training.nli_data import LABELS, NEVER_USED, NLI_DIR, NOT_ENTAILMENT, SOURCES, evaluation_sets, training_mix

pytestmark = pytest.mark.skipif(not NLI_DIR.exists(), reason="shared NLI data not found")


@pytest.fixture(scope="module")
def mix() -> tuple[list, list]:  # type: ignore[type-arg]
    return training_mix(seed=13)


def test_no_evaluation_pair_is_trained_on(mix: tuple[list, list]) -> None:  # type: ignore[type-arg]
    train, dev = mix
    seen = {(p.premise, p.hypothesis) for p in train}
    for name, pairs in evaluation_sets().items():
        leaked = [p for p in pairs if (p.premise, p.hypothesis) in seen]
        assert not leaked, f"{len(leaked)} pairs of {name} are in the training mix"
    assert all(SOURCES[p.source].role == "train" for p in train)
    assert not any(p.source in {"anli_r1_test", "sick_test", "mnli_mismatched_gold"} for p in dev)


def test_unshippable_and_leaky_files_are_not_training_sources() -> None:
    train_files = {s.file for s in SOURCES.values() if s.role == "train"}
    assert not any(f.startswith(("anli/", "sick/")) for f in train_files)
    assert not set(NEVER_USED) & {s.file for s in SOURCES.values()}
    assert "mnli/mnli_train_subset_taxinli.jsonl.gz" not in train_files


def test_vitaminc_is_split_by_page(mix: tuple[list, list]) -> None:  # type: ignore[type-arg]
    train, dev = mix
    train_pages = {p.group for p in train if p.source == "vitaminc"}
    dev_pages = {p.group for p in dev if p.source == "vitaminc"}
    assert dev_pages and train_pages and not train_pages & dev_pages


def test_mix_is_reproducible_and_seeded() -> None:
    a, _ = training_mix(seed=1, max_per_source=50)
    b, _ = training_mix(seed=1, max_per_source=50)
    c, _ = training_mix(seed=2, max_per_source=50)
    assert a == b and a != c
    assert len(a) == 50 * sum(s.role == "train" for s in SOURCES.values())


def test_labels_are_three_way_or_marked_binary(mix: tuple[list, list]) -> None:  # type: ignore[type-arg]
    train, dev = mix
    assert {p.label for p in train + dev} <= {*range(len(LABELS)), NOT_ENTAILMENT}


def test_repeat_upweights_one_source_and_names_only_train_sources() -> None:
    once, _ = training_mix(seed=1, max_per_source=50)
    twice, _ = training_mix(seed=1, max_per_source=50, repeat={"mnli_dev_matched": 2})
    assert len(twice) == len(once) + 50
    assert sum(p.source == "mnli_dev_matched" for p in twice) == 100
    with pytest.raises(ValueError, match="sick_test"):
        training_mix(seed=1, max_per_source=50, repeat={"sick_test": 2})
