"""Hard wrong claims for the oracle suites, and the FinanceBench dev / test halves."""

from __future__ import annotations

from gechat.eval.datasets import financebench, financebench_split
from gechat.eval.negatives import changed_number, same_kind
from gechat.evidence.values import agree, quantities


def test_the_figure_changes_by_5_to_50_percent_written_as_the_answer_writes_it() -> None:
    for seed in ("a", "b", "c", "d", "e", "f"):
        wrong = changed_number("Capital spending was $1,577 million in FY2018.", seed)
        assert wrong is not None and wrong != "Capital spending was $1,577 million in FY2018."
        assert wrong.endswith(" million in FY2018.")  # the year and the scale stay
        (old,), (new,) = quantities("$1,577 million"), quantities(wrong)
        assert 0.05 <= abs(new.value - old.value) / old.value <= 0.5 + 1e-9
        assert not agree(old, new)
    assert changed_number("Capital spending was $1,577 million.", "a") == changed_number(
        "Capital spending was $1,577 million.", "a")  # the same claims on every run


def test_an_amount_is_changed_before_a_figure_in_a_name_and_no_figure_gives_none() -> None:
    wrong = changed_number("3M spent $1.6 billion.", "seed")
    assert wrong is not None and wrong.startswith("3M spent $") and "1.6" not in wrong
    assert changed_number("No, the company did not.", "seed") is None
    assert changed_number("In 2019.", "seed") is None


def test_financebench_halves_split_by_filing() -> None:
    items = financebench()
    splits = {i.pdf.stem: financebench_split(i) for i in items}
    names = sorted(splits)
    assert {splits[n] for n in names[: len(names) // 2]} == {"dev"}
    assert {splits[n] for n in names[len(names) // 2:]} == {"test"}


def test_reliability_bins_and_expected_calibration_error() -> None:
    from gechat.eval.metrics import expected_calibration_error, reliability

    conf, gold = [0.05, 0.15, 0.95, 0.85, 0.9], [False, False, True, True, False]
    rows = reliability(conf, gold)
    assert [(lo, n) for lo, _, _, n in rows] == [(0.0, 1), (0.1, 1), (0.8, 1), (0.9, 2)]
    assert rows[-1][2] == 0.5  # of the two claims at 0.9-1.0, one is true
    # per bin |confidence - share true|, weighted: (0.05 + 0.15 + 0.15 + 2 * 0.425) / 5
    assert abs(expected_calibration_error(conf, gold) - 0.24) < 1e-9
    assert expected_calibration_error([1.0, 0.0], [True, False]) == 0.0


def test_same_kind_draws_a_year_a_figure_or_a_name_from_the_passages() -> None:
    text = ("Anna Berg was born in 1950 in Oslo. Carl Dahl was born in 1961. The team won 12 titles "
            "and 30% of its games. The club plays in Bergen.")
    assert same_kind("1950", "When was Anna Berg born?", text, "q1") == "1961"
    assert same_kind("12", "How many titles did the team win?", text, "q2") is None  # the other figures are years
    assert same_kind("12", "How many titles?", text + " It has 40 players.", "q2") == "40"
    assert same_kind("30%", "What share of games did it win?", text, "q2") is None  # no other percentage
    name = same_kind("Carl Dahl", "Who was born in 1961?", text, "q3")
    assert name is not None and name != "Carl Dahl" and len(name.split()) == 2
    assert same_kind("Oslo", "Where was Anna Berg born?", text, "q4") == "Bergen"  # one word, not the question's
    assert same_kind("a small town", "Where?", text, "q5") is None  # not a year, figure or name
