"""The one judge of the reproductions: a paper's checks as rows of data, and one function that
rules on them.

A :class:`Check` names one direction or magnitude the paper reports and states it as parts,
each a :class:`Compare` (a measured metric, a comparison and its reference: a number, a range
or another metric, times a factor). A :class:`Claim` is one line of a verdict table: what the
paper claims, its figure, what we measured and the checks that decide it. :func:`judge` rules
on checks, :func:`holds` turns the rulings of one claim into its verdict text, and
:func:`directions` gives the ``paper directions`` line of ``leogym-reproduce``.

What cannot be ruled on: a metric that returns ``None`` (an algorithm this build lacks, a run
this size leaves out), or one of the check's ``needs`` that is NaN or empty; its check is then
``None``, not a "no". Any other NaN compares false, as in numpy (a transfer that never finished
is not faster).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Check", "Claim", "Compare", "Results", "directions", "holds", "judge", "verdicts"]

#: The per-run results of one experiment, as ``run_task`` returns them.
Results = Sequence[Mapping[str, Any]]
#: A measured quantity of the results: a number, a sequence of numbers, or ``None`` (not
#: measured).
Metric = Callable[[Results], Any]

_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
}


@dataclass(frozen=True)
class Compare:
    """One comparison: ``left OP scale * right + offset``, element by element where ``left``
    or ``right`` is a sequence (every element must hold).

    :ivar op: ``<``, ``<=``, ``>``, ``>=``, ``==``; ``in`` (``right`` is ``(low, high)``, both
        included), ``rising`` (``left`` strictly increasing) or ``non-decreasing``; ``right``
        is unused by the last two.
    """

    left: Metric
    op: str
    right: Metric | float | tuple[float, float] = 0.0
    scale: float = 1.0
    offset: float = 0.0

    def holds(self, a: Any, b: Any) -> bool:
        """Whether the comparison holds for the operands' values ``a`` and ``b``."""
        x = np.asarray(a, dtype=np.float64)
        if self.op in ("rising", "non-decreasing"):
            steps = np.diff(x)
            return bool(np.all(steps > 0 if self.op == "rising" else steps >= 0))
        y = np.asarray(b, dtype=np.float64)
        if self.op == "in":
            return bool(np.all((y[0] <= x) & (x <= y[1])))
        ref = self.scale * y + self.offset if self.offset else self.scale * y
        return bool(np.all(_OPS[self.op](x, ref)))


@dataclass(frozen=True)
class Check:
    """One named check: it holds when every part holds.

    :ivar needs: the metrics that must be measured (not NaN, not empty) for the check to be
        ruled on; ``None``: every metric the parts compare.
    """

    name: str
    parts: tuple[Compare, ...]
    needs: tuple[Metric, ...] | None = None

    def rule(self, res: Results) -> bool | None:
        """Whether the check holds on ``res`` (``None``: not measurable)."""
        values: dict[int, Any] = {}

        def value(m: Any) -> Any:
            if id(m) not in values:
                values[id(m)] = m(res) if callable(m) else m
            return values[id(m)]

        operands = [m for p in self.parts for m in (p.left, p.right) if callable(m)]
        for m in operands if self.needs is None else self.needs:
            v = value(m)
            if v is None or np.size(v) == 0 or bool(np.isnan(np.asarray(v, float)).any()):
                return None
        pairs = [(p, value(p.left), value(p.right)) for p in self.parts]
        if any(a is None or b is None for _, a, b in pairs):
            return None
        return all(p.holds(a, b) for p, a, b in pairs)


@dataclass(frozen=True)
class Claim:
    """One line of a verdict table.

    :ivar label: what the paper claims (the table's first text column).
    :ivar paper: the paper's figure, as printed.
    :ivar ours: what we measured, as printed (a number or a text) from the results.
    :ivar checks: the checks that decide it (none: a line shown without a verdict).
    :ivar criterion: the pass criterion in words.
    """

    label: str
    paper: Any
    ours: Metric
    checks: tuple[Check, ...] = ()
    criterion: str = ""


def judge(checks: Sequence[Check], res: Results) -> dict[str, bool | None]:
    """Rule on every check: check name -> holds (``None``: not measurable on ``res``)."""
    return {c.name: c.rule(res) for c in checks}


def holds(rulings: Mapping[str, bool | None], unmeasured: str = "n/a") -> str:
    """A claim's verdict: ``yes`` or ``NO`` over its measured checks, with ``(k of n parts
    measured)`` when some are not; ``unmeasured`` when none is; empty without checks."""
    if not rulings:
        return ""
    known = {k: v for k, v in rulings.items() if v is not None}
    if not known:
        return unmeasured
    verdict = "yes" if all(known.values()) else "NO"
    if len(known) < len(rulings):
        return f"{verdict} ({len(known)} of {len(rulings)} parts measured)"
    return verdict


def verdicts(
    claims: Sequence[Claim], res: Results, unmeasured: str = "n/a"
) -> list[tuple[Claim, Any, str]]:
    """Each claim with what we measured and its verdict (:func:`holds`)."""
    return [(c, c.ours(res), holds(judge(c.checks, res), unmeasured)) for c in claims]


def directions(checks: Sequence[Check], res: Results) -> dict[str, bool]:
    """The measurable checks' rulings (the ``paper directions`` line and the smoke tests)."""
    return {k: v for k, v in judge(checks, res).items() if v is not None}
