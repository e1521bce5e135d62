"""Figures in other units and layouts: a percentage is no amount with the same digits, and a
table cell of digit groups is one figure."""

from __future__ import annotations

from gechat.evidence.base import ClaimInput
from gechat.evidence.values import mistyped


def test_a_percentage_is_no_amount_or_scaled_figure_with_the_same_digits() -> None:
    tokens = "We use 146K query papers (around 26.7M tokens) for training."
    assert mistyped("26.7% of papers are from computer science.", tokens) == ["26.7%"]
    assert mistyped("Margins rose 5%.", "Margins rose $5 million.") == ["5%"]
    assert not mistyped("Margins rose 5%.", "Margins rose 5 percent, or $5 million.")
    assert not mistyped("Margins rose 26.7%.", "Margin: 26.7")  # a bare figure may be the percentage


def test_a_cell_of_digit_groups_is_one_figure() -> None:
    from gechat.evidence.steps import holds
    from gechat.evidence.values import stated

    row = "California | Permit: 98 452 | Handgun: 41 181 | Long Gun: 35 007 | *Other: 4 559 | **Multiple: 0"
    assert [q.value for q in stated(row)] == [98452, 41181, 35007, 4559, 0]
    assert holds(ClaimInput(text="California had 98,452 permit checks.", source="answer"), row)
    assert not holds(ClaimInput(text="California had 98 permit checks.", source="answer"), row)
    # in prose, two numbers stay two: "in 3 200-seat halls" is no 3,200
    assert [q.value for q in stated("They played in 3 200-seat halls.")] == [3, 200]
