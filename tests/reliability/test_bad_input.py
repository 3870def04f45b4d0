"""Bad input never aborts the interpreter: property-based fuzzing of every input surface,
corrupt files (mahimahi traces, TLEs, SB3 checkpoints) included.

Each class of input (see ``fuzz_targets.py``) runs in its own worker subprocess, so an abort
(``NS_FATAL_ERROR`` -> SIGABRT, a segfault) or a hang is detected, attributed to the input that
caused it, and counted, instead of killing the test run. Every example must end in a clear
Python exception naming the field, or be accepted (clipped where Gymnasium's conventions say
so) and then run through the rest of the pipeline.
"""

from __future__ import annotations

import datetime
import os
import platform
from pathlib import Path

import pytest
from fuzz_edges import FINE as EDGE_FINE
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
#: The classes of issue 33, each with an oracle (fuzz_edges.py): (examples in CI, at full
#: size, wall-clock limit in CI (s), category). Their workers run under a memory cap.
EDGE_TARGETS = {
    "time_fields": (50, 2000, 180, "bad input"),
    "rates": (50, 2000, 180, "bad input"),
    "flow_names": (40, 1000, 180, "bad input"),
    "episode_length": (12, 300, 240, "bad input"),
    "tiny_trace": (30, 500, 180, "corrupt file"),
    "zoo_names": (30, 500, 180, "bad input"),
}
#: Outcomes that are not defects (see fuzz_targets.py; fuzz_edges.FINE for the edge targets).
FINE = ("accepted", "clear_error", "clear_error_late", "upstream_error")
SEED = 20261121
#: GiB an edge target's examples may allocate beyond what its worker holds once set up.
EDGE_MEMORY_GIB = 3.0


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


@pytest.mark.native  # every edge target runs its accepted inputs, zoo_names through leogym-eval
@pytest.mark.parametrize("target", list(EDGE_TARGETS))
def test_edge_inputs_are_refused_or_run_in_bounded_time(
    target: str, tmp_path: Path, record
) -> None:
    """Issue 33's classes, each generated with its verdict: every input the oracle calls
    invalid gets a clear error naming the field, every valid one runs with each ``reset()`` and
    ``step()`` within its bound; no abort, no hang, nothing silently accepted."""
    ci, full, limit, category = EDGE_TARGETS[target]
    n = sized(ci, full)
    res = run_fuzz_worker(
        target,
        n,
        SEED,
        tmp_path,
        timeout_s=limit * (10 if n == full else 1),
        extra=["--memory-gib", str(EDGE_MEMORY_GIB)],
    )
    report = res.report or {}
    outcomes = dict(report.get("outcomes", {}))
    if res.returncode != 0:
        outcomes["worker_failed"] = 1
    hung = res.returncode == -9 and "timeout" in res.stderr
    record(
        Figure(
            id=f"edge/{target}",
            category=category,
            what=report.get("description", target),
            cases=report.get("examples", n),
            outcomes=outcomes,
            aborts=1 if res.died and not hung else 0,
            notes=f"died on: {res.last_input}" if res.died else "",
            extra={
                "oracle": True,
                "hangs": int(hung),
                "wall_s": report.get("wall_s"),
                "cpu_s": report.get("cpu_s"),
                "timings": report.get("timings"),
                "slowest_s": report.get("slowest_s"),
                "slowest_input": report.get("slowest_input"),
                "date": datetime.date.today().isoformat(),
                "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
                f"Python {platform.python_version()}",
                "samples": {
                    k: v[:3] for k, v in report.get("samples", {}).items() if k != "accepted"
                },
            },
        )
    )
    assert res.died is None, (
        f"the worker died with {res.died} on input: {res.last_input}\n{res.stderr}"
    )
    assert res.returncode == 0, res.stderr
    assert report["examples"] == n
    defects = {k: v for k, v in outcomes.items() if k not in EDGE_FINE}
    assert not defects, f"{defects}: {report['samples']}"
    assert outcomes.get("accepted", 0) > 0 and outcomes.get("clear_error", 0) > 0, outcomes


@pytest.mark.native
def test_the_harness_detects_and_attributes_an_abort(tmp_path: Path) -> None:
    """The worker is made to call abort() at its 5th example: the parent sees SIGABRT and
    names that example, and the test run goes on."""
    res = run_fuzz_worker("actions", 20, SEED, tmp_path, timeout_s=120, extra=["--abort-at", "4"])
    assert res.died == "SIGABRT"
    assert res.report is None
    assert res.last_input is not None and "valid=" in res.last_input
