"""The one judge of the reproductions (``agents/reproduce/judge.py``): checks as rows of data,
ruled on by one function, with one rule for what cannot be measured."""

from __future__ import annotations

import math
from typing import Any

from leogym.agents.reproduce import judge
from leogym.agents.reproduce.common import grid


def _metric(key: str) -> judge.Metric:
    def get(res: judge.Results) -> Any:
        return res[0].get(key)

    return get


A, B, S = _metric("a"), _metric("b"), _metric("series")


def _rule(check: judge.Check, **values: Any) -> bool | None:
    return judge.judge([check], [values])[check.name]


def test_parts_and_their_operators() -> None:
    check = judge.Check("a_above_1.5x_b", (judge.Compare(A, ">=", B, scale=1.5),))
    assert _rule(check, a=3.0, b=2.0) is True
    assert _rule(check, a=2.9, b=2.0) is False
    both = judge.Check("two", (judge.Compare(A, ">", 1.0), judge.Compare(B, "<", 1.0)))
    assert _rule(both, a=2.0, b=0.5) is True and _rule(both, a=2.0, b=1.5) is False
    inside = judge.Check("in", (judge.Compare(A, "in", (0.1, 0.35)),))
    assert [_rule(inside, a=x) for x in (0.1, 0.35, 0.36)] == [True, True, False]
    rising = judge.Check("rising", (judge.Compare(S, "rising"),))
    flat = judge.Check("flat", (judge.Compare(S, "non-decreasing"),))
    assert _rule(rising, series=[1, 2, 3]) is True and _rule(rising, series=[1, 1, 3]) is False
    assert _rule(flat, series=[1, 1, 3]) is True and _rule(flat, series=[2, 1]) is False
    every = judge.Check("every", (judge.Compare(S, "<", A),))  # element by element
    assert (
        _rule(every, series=[1, 2], a=3.0) is True and _rule(every, series=[1, 4], a=3.0) is False
    )


def test_what_cannot_be_measured_is_not_a_no() -> None:
    check = judge.Check("a_above_b", (judge.Compare(A, ">", B),))
    assert _rule(check, a=1.0) is None  # B returns None: not run
    assert _rule(check, a=1.0, b=math.nan) is None  # a needed operand is NaN
    # needs=() : only None is unmeasured, and NaN compares false (a transfer that never ended)
    lax = judge.Check("lax", (judge.Compare(A, ">", B),), needs=())
    assert _rule(lax, a=1.0, b=math.nan) is False and _rule(lax, a=1.0) is None
    # needs names what must be measured; the rest compares as numpy does
    part = judge.Check("part", (judge.Compare(A, ">", 0.0), judge.Compare(B, ">", 0.0)), needs=(A,))
    assert _rule(part, a=1.0, b=math.nan) is False and _rule(part, a=math.nan, b=1.0) is None
    empty = judge.Check("empty", (judge.Compare(S, "<", 1.0),))
    assert _rule(empty, series=[]) is None


def test_verdict_text_and_directions() -> None:
    assert judge.holds({}) == ""
    assert judge.holds({"x": None}) == "n/a"
    assert judge.holds({"x": None}, "not yet measurable") == "not yet measurable"
    assert judge.holds({"x": True, "y": True}) == "yes"
    assert judge.holds({"x": True, "y": False}) == "NO"
    assert judge.holds({"x": True, "y": None}) == "yes (1 of 2 parts measured)"
    checks = [
        judge.Check("above", (judge.Compare(A, ">", 0.0),)),
        judge.Check("unmeasured", (judge.Compare(B, ">", 0.0),)),
    ]
    assert judge.directions(checks, [{"a": 1.0}]) == {"above": True}
    claim = judge.Claim("a positive", "> 0", A, tuple(checks), "a > 0")
    ((c, ours, verdict),) = judge.verdicts([claim], [{"a": 2.0}])
    assert (c, ours, verdict) == (claim, 2.0, "yes (1 of 2 parts measured)")


def test_grid_nests_the_axes_as_asked() -> None:
    assert grid(x=[1, 2], y="ab") == [
        {"x": 1, "y": "a"},
        {"x": 1, "y": "b"},
        {"x": 2, "y": "a"},
        {"x": 2, "y": "b"},
    ]
    # keys in the axes' order, the seed varying slowest
    runs = grid(("seed",), variant=["m", "o"], seed=range(2), size=[5])
    assert [list(r) for r in runs] == [["variant", "seed", "size"]] * 4
    assert [(r["seed"], r["variant"]) for r in runs] == [(0, "m"), (0, "o"), (1, "m"), (1, "o")]
