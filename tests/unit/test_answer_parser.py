from __future__ import annotations

import pytest

from gechat.answer.parser import parse_cot

CASES = [
    ("Answer: Paris is the capital.\nThoughts:\n1. The text says Paris.\n2. So Paris.",
     "Paris is the capital.", ["The text says Paris.", "So Paris."]),
    ("**Answer:** Paris.\n\n**Thoughts:**\n- a step\n- b step", "Paris.", ["a step", "b step"]),
    ("Answer: { Paris } Thoughts: {1. first step 2. second with 3.5 million 3. third}",
     "Paris", ["first step", "second with 3.5 million", "third"]),
    ("Thoughts:\n1. x is y\n2. y is z\nAnswer: x is z.", "x is z.", ["x is y", "y is z"]),
    ("Answer: The cost is 3.5 million. 1. Step one. 2. Step two.",
     "The cost is 3.5 million.", ["Step one.", "Step two."]),
    ("### Answer\nThe answer is B.\n### Thoughts\n1. one\n2. two", "The answer is B.", ["one", "two"]),
    ("Answer: Paris.\n1. Step one.\n2. Step two.", "Paris.", ["Step one.", "Step two."]),
    ("1. step a\n2. step b\nSo the answer is 42.", "So the answer is 42.", ["step a", "step b"]),
    ("```\nAnswer: A\nThoughts:\nStep 1: look\nStep 2: see\n```", "A", ["look", "see"]),
    ("Just prose with no structure at all.", "Just prose with no structure at all.", []),
    ("Answer: multi\nline answer\nThoughts:\n1) first\n   continued\n2) second",
     "multi line answer", ["first continued", "second"]),
    ("", "", []),
]


@pytest.mark.parametrize(("raw", "answer", "thoughts"), CASES)
def test_parse_cot(raw: str, answer: str, thoughts: list[str]) -> None:
    got = parse_cot(raw)
    assert got.answer == answer
    assert got.thoughts == thoughts


def test_at_most_max_thoughts() -> None:
    raw = "Answer: A\nThoughts:\n" + "\n".join(f"{i}. step {i}" for i in range(1, 15))
    assert len(parse_cot(raw, max_thoughts=10).thoughts) == 10


def test_only_steps_last_step_concludes() -> None:
    got = parse_cot("Thoughts:\n1. The report says 5.\n2. So it is 5.")
    assert got.answer == "So it is 5."
    assert got.thoughts == ["The report says 5.", "So it is 5."]
