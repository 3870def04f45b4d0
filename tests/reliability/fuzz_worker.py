"""Run N hypothesis examples of one class of bad input in this process; report counts as JSON.

Usage::

    python tests/reliability/fuzz_worker.py TARGET --examples N --seed S --out OUT.json \
        --log LOG.jsonl

``TARGET`` is a name from :data:`fuzz_targets.TARGETS` or :data:`fuzz_edges.EDGE_TARGETS`.
Before each example the worker appends the example's description to ``LOG.jsonl`` (flushed),
so if the process dies (SIGABRT from an ``NS_FATAL_ERROR``, SIGSEGV, ...) the parent knows
which input killed it. When all examples have run, ``OUT.json`` holds::

    {"target": ..., "examples": n, "outcomes": {"accepted": a, "clear_error": c, ...},
     "samples": {"unclear_error": [...], ...}, "wall_s": ..., "slowest_s": ...}

Outcomes other than ``accepted`` and ``clear_error`` are defects; up to 20 samples of each are
kept with the input and the exception.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

from fuzz_edges import EDGE_TARGETS
from fuzz_targets import TARGETS, Outcome
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

MAX_SAMPLES = 20
ALL_TARGETS = {**TARGETS, **EDGE_TARGETS}


def limit_memory(gib: float) -> None:
    """Let this process map at most ``gib`` GiB more than it maps now (``RLIMIT_AS``): an
    unbounded allocation becomes a ``MemoryError`` here instead of the OOM killer's work."""
    import resource

    with open("/proc/self/status", encoding="ascii") as fh:
        kib = next(int(line.split()[1]) for line in fh if line.startswith("VmSize:"))
    cap = kib * 1024 + int(gib * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("target", choices=sorted(ALL_TARGETS))
    ap.add_argument("--examples", type=int, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--log", type=Path, required=True)
    ap.add_argument(
        "--abort-at",
        type=int,
        default=-1,
        help="call os.abort() at this example (tests the parent's detection)",
    )
    ap.add_argument(
        "--memory-gib",
        type=float,
        default=0.0,
        help="cap the memory the examples may add (GiB; 0: no cap)",
    )
    args = ap.parse_args(argv)

    target = ALL_TARGETS[args.target]()
    if args.memory_gib > 0:
        limit_memory(args.memory_gib)
    counts: Counter[str] = Counter()
    samples: dict[str, list[dict[str, Any]]] = {}
    slowest = [0.0, ""]
    log = open(args.log, "w", buffering=1, encoding="utf-8")  # noqa: SIM115 - closed below

    @hypothesis_seed(args.seed)
    @settings(
        max_examples=args.examples,
        database=None,
        deadline=None,
        derandomize=False,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(target.strategy())
    def run(example: Any) -> None:
        i = sum(counts.values())
        described = target.describe(example)
        log.write(json.dumps({"i": i, "input": described}) + "\n")
        log.flush()
        os.fsync(log.fileno())
        if i == args.abort_at:
            os.abort()
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            outcome: Outcome = target.run(example)
        dt = time.perf_counter() - t0
        if dt > slowest[0]:
            slowest[:] = [dt, described]
        kind = outcome.kind
        if caught and kind == "accepted":
            kind = "accepted_with_warning"
            outcome.detail = "; ".join(f"{w.category.__name__}: {w.message}" for w in caught[:3])
        counts[kind] += 1
        if kind not in ("accepted", "clear_error") or len(samples.get(kind, ())) < 3:
            bucket = samples.setdefault(kind, [])
            if len(bucket) < MAX_SAMPLES:
                bucket.append({"input": described, "detail": outcome.detail})

    t_start, cpu_start = time.perf_counter(), time.process_time()
    try:
        run()
    finally:
        target.close()
        log.close()
    report = {
        "target": args.target,
        "description": target.description,
        "examples": sum(counts.values()),
        "outcomes": dict(sorted(counts.items())),
        "samples": samples,
        "wall_s": round(time.perf_counter() - t_start, 3),
        "cpu_s": round(time.process_time() - cpu_start, 3),
        "timings": getattr(target, "timings", None),
        "slowest_s": round(slowest[0], 3),
        "slowest_input": slowest[1],
    }
    args.out.write_text(json.dumps(report, indent=1, default=repr) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
