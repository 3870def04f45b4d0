"""Bad input never aborts the interpreter: property-based fuzzing of every input surface,
corrupt files (mahimahi traces, TLEs, SB3 checkpoints) included.

Each class of input (see ``fuzz_targets.py``) runs in its own worker subprocess, so an abort
(``NS_FATAL_ERROR`` -> SIGABRT, a segfault) or a hang is detected, attributed to the input that
caused it, and counted, instead of killing the test run. Every example must end in a clear
Python exception naming the field, or be accepted (clipped where Gymnasium's conventions say
so) and then run through the rest of the pipeline.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reliability_support import Figure, run_fuzz_worker, sized

#: target -> (examples in CI, examples at full size, wall-clock limit in CI (s), category)
TARGETS = {
    "scenario": (300, 3000, 240, "bad input"),
    "env_kwargs": (300, 3000, 180, "bad input"),
    "actions": (1000, 10000, 180, "bad input"),
    "reset": (300, 3000, 180, "bad input"),
    "sim_config": (500, 5000, 180, "bad input"),
    "sim_paths": (500, 5000, 180, "bad input"),
    "sim_network": (300, 3000, 180, "bad input"),
    "sim_methods": (500, 5000, 180, "bad input"),
    "trace_file": (300, 3000, 180, "corrupt file"),
    "tle_file": (300, 3000, 180, "corrupt file"),
    "checkpoint": (300, 3000, 180, "corrupt file"),
}
#: Outcomes that are not defects (see fuzz_targets.py).
FINE = ("accepted", "clear_error", "clear_error_late", "upstream_error")
SEED = 20261121


#: Targets whose accepted inputs are run on the compiled core (checkpoints are loaded by SB3 only).
NATIVE_TARGETS = set(TARGETS) - {"checkpoint"}


@pytest.mark.parametrize(
    "target",
    [pytest.param(t, marks=pytest.mark.native if t in NATIVE_TARGETS else ()) for t in TARGETS],
)
def test_bad_input_gets_a_clear_error_and_never_aborts(target: str, tmp_path: Path, record) -> None:
    ci, full, limit, category = TARGETS[target]
    n = sized(ci, full)
    res = run_fuzz_worker(target, n, SEED, tmp_path, timeout_s=limit * (10 if n == full else 1))
    report = res.report or {}
    outcomes = dict(report.get("outcomes", {}))
    if res.returncode != 0:
        outcomes["worker_failed"] = 1
    record(
        Figure(
            id=f"{category.replace(' ', '_')}/{target}",
            category=category,
            what=report.get("description", target),
            cases=report.get("examples", n),
            outcomes=outcomes,
            aborts=1 if res.died else 0,
            notes=f"died on: {res.last_input}" if res.died else "",
            extra={
                "wall_s": report.get("wall_s"),
                "slowest_s": report.get("slowest_s"),
                "samples": {
                    k: v[:3]
                    for k, v in report.get("samples", {}).items()
                    if k not in ("accepted", "clear_error")
                },
            },
        )
    )
    assert res.died is None, (
        f"the worker died with {res.died} on input: {res.last_input}\n{res.stderr}"
    )
    assert res.returncode == 0, res.stderr
    assert report["examples"] == n
    defects = {k: v for k, v in outcomes.items() if k not in FINE}
    assert not defects, f"{defects}: {report['samples']}"
    # the strategy must reach both sides: accepted inputs and rejected ones
    assert outcomes.get("accepted", 0) > 0 and outcomes.get("clear_error", 0) > 0, outcomes


@pytest.mark.native
def test_the_harness_detects_and_attributes_an_abort(tmp_path: Path) -> None:
    """The worker is made to call abort() at its 5th example: the parent sees SIGABRT and
    names that example, and the test run goes on."""
    res = run_fuzz_worker("actions", 20, SEED, tmp_path, timeout_s=120, extra=["--abort-at", "4"])
    assert res.died == "SIGABRT"
    assert res.report is None
    assert res.last_input is not None and "valid=" in res.last_input
