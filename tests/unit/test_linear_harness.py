"""The linear-time harness itself: it must pass linear code and catch the two failures it
exists for, a quadratic pattern and an exponential one."""

from __future__ import annotations

import re

from tests.linear import growths, not_linear, repeat_to

_QUADRATIC = re.compile(r"\s+x")  # searched over spaces: every start rescans the run
_EXPONENTIAL = re.compile(r"(?:a|aa)+$")  # a failing tail tries every split of the run


def test_linear_code_passes() -> None:
    assert not_linear(str.upper, [repeat_to("ab. ")], 20_000) == []


def test_a_quadratic_pattern_is_caught() -> None:
    slow = not_linear(_QUADRATIC.search, [repeat_to(" ")], 1_000)
    assert len(slow) == 1 and "x the input" in slow[0]


def test_an_exponential_pattern_is_stopped_and_reported() -> None:
    (g,) = growths(_EXPONENTIAL.search, [repeat_to("a", suffix="b")], 40, timeout=2.0)
    assert g.large_s == float("inf") and not g.linear
    assert "did not finish" in str(g)
