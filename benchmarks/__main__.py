"""``python -m benchmarks`` (``make bench``): the whole benchmark suite, one table, one CSV.

Usage::

    python -m benchmarks                      # everything: a new record (~10 min on 2 cores)
    python -m benchmarks --quick              # tiny sizes (the smoke test); never a record
    python -m benchmarks --only transport,overhead --repeats 5
    python -m benchmarks --render             # rewrite the docs' figure blocks from the records
    make bench BENCH_ARGS="--only ray,sweep"

Every figure is measured in this run, side by side with what it is compared to; repeated
figures are medians (the table shows the range). The machine (CPU count and model) and its load
before and after are recorded (section ``machine``). Output: the table on stdout and one CSV
(:func:`output_path`): a full run adds a dated record ``<out>/records/<UTC time>.csv`` (kept in
git); ``--quick`` writes ``<out>/quick.csv`` and ``--only`` a subset ``<out>/partial.csv``
(both git-ignored), so neither touches a record. Method and reading: ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from benchmarks.common import Row, cpu_model, format_table, load_snapshot, write_csv

SECTIONS = (
    "env",
    "transport",
    "recovery",
    "overhead",
    "vector",
    "training",
    "ray",
    "memory",
    "fidelity",
    "hops",
    "dynamics",
    "multiagent",
    "sweep",
)
DEFAULT_OUT = Path(__file__).resolve().parent / "results"
RECORDS_DIR = "records"
RECORD_STAMP = "%Y-%m-%dT%H%MZ"


def _section_runner(name: str, quick: bool, repeats: int) -> Callable[[], list[Row]]:
    if name == "env":
        from benchmarks.bench_env import speed_rows

        return lambda: speed_rows(quick, 1 if quick else repeats)
    if name == "transport":
        from benchmarks.bench_transport import rows

        if quick:
            return lambda: rows(sim_s=1, repeats=1, links=["50mbps_40ms_bdp"])
        return lambda: rows(sim_s=10, repeats=repeats)
    if name == "recovery":
        from benchmarks.bench_recovery import rows

        return lambda: rows(sim_s=2 if quick else 20, repeats=1 if quick else repeats)
    if name == "overhead":
        from benchmarks.bench_overhead import rows

        return lambda: rows(steps=300 if quick else 3000, repeats=1 if quick else repeats)
    if name == "vector":
        from benchmarks.bench_vec import vec_rows

        return lambda: vec_rows(quick, repeats)
    if name == "training":
        from benchmarks.bench_vec import ppo_rows

        return lambda: ppo_rows(quick, max(1, (repeats + 1) // 2))
    if name == "ray":
        from benchmarks.bench_vec import ray_rows

        return lambda: ray_rows(quick, max(1, (repeats + 1) // 2))
    if name == "memory":
        from benchmarks.bench_env import memory_rows

        return lambda: memory_rows(quick)
    if name == "fidelity":
        from benchmarks.bench_env import fidelity_rows

        return lambda: fidelity_rows(quick, seeds=repeats)
    if name == "hops":
        from benchmarks.bench_hops import rows

        return lambda: rows(quick, 1 if quick else repeats)
    if name == "dynamics":
        from benchmarks.bench_dynamics import rows

        return lambda: rows(quick, 1 if quick else repeats)
    if name == "multiagent":
        from benchmarks.bench_multiagent import rows

        return lambda: rows(quick, 1 if quick else max(1, (repeats + 1) // 2))
    if name == "sweep":
        from benchmarks.bench_sweep import rows

        return lambda: rows(quick)
    raise ValueError(name)


def output_path(out: Path, quick: bool, chosen: list[str], started: datetime) -> Path:
    """Where a run's CSV goes: a new dated record only for a full run (all sections, full
    sizes); ``quick.csv`` for ``--quick`` and ``partial.csv`` for a subset of sections, so that
    neither overwrites a record."""
    if quick:
        return out / "quick.csv"
    if set(chosen) != set(SECTIONS):
        return out / "partial.csv"
    return out / RECORDS_DIR / f"{started.strftime(RECORD_STAMP)}.csv"


def _host_row(started: datetime) -> Row:
    """The machine the run is on: CPU count (value), model, Python and the start time (note)."""
    snap_note = (
        f"{cpu_model()}; Python {platform.python_version()} on {platform.machine()}; "
        f"started {started.strftime('%Y-%m-%d %H:%M UTC')}"
    )
    return Row("machine", "CPUs (nproc)", float(os.cpu_count() or 1), "", note=snap_note)


def _machine_rows(when: str, snap: dict) -> list[Row]:
    note = (
        f"5 / 15 min: {snap['load5']:.2f} / {snap['load15']:.2f}; {snap['cpus']} CPUs "
        "(shared: other jobs' load counts here)"
    )
    return [
        Row("machine", f"load average (1 min), {when}", snap["load1"], "", note=note),
        Row(
            "machine",
            f"CPU used by other processes, {when}",
            snap["others_cpu_percent"],
            "%",
            note="sum over processes not of this run, sampled over 1 s (100 % = one core)",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes (smoke test)")
    ap.add_argument(
        "--only",
        default=",".join(SECTIONS),
        help=f"comma-separated sections (default: all of {','.join(SECTIONS)})",
    )
    ap.add_argument("--repeats", type=int, default=5, help="measurements per figure (median)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder for the CSV files")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument(
        "--render",
        action="store_true",
        help="measure nothing: rewrite the figure blocks of README.md and docs/benchmarks.md "
        "from the records in <out>/records (with --check: only report blocks that differ)",
    )
    ap.add_argument("--check", action="store_true", help="with --render: change no file")
    args = ap.parse_args(argv)
    if args.render:
        from benchmarks.render import render_main

        return render_main(args.out / RECORDS_DIR, check=args.check)
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = sorted(set(chosen) - set(SECTIONS))
    if unknown:
        ap.error(f"--only: unknown section(s) {unknown}; known: {list(SECTIONS)}")
    if args.repeats < 1:
        ap.error("--repeats: must be >= 1")

    started = datetime.now(timezone.utc)
    rows: list[Row] = [_host_row(started), *_machine_rows("before", load_snapshot())]
    failed = []
    for name in chosen:
        print(f"[bench] {name} ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        try:
            rows += _section_runner(name, args.quick, args.repeats)()
        except Exception as exc:  # one broken section must not hide the others' figures
            traceback.print_exc()
            failed.append(name)
            rows.append(
                Row(
                    name,
                    "section failed",
                    float("nan"),
                    "",
                    0,
                    status="error",
                    note=f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}",
                )
            )
        print(
            f"[bench] {name} done in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True
        )
    rows += _machine_rows("after", load_snapshot())
    wall = (datetime.now(timezone.utc) - started).total_seconds()
    rows.append(
        Row("machine", "suite wall time", wall, "s", note="--quick" if args.quick else "full")
    )

    print(format_table(rows, markdown=args.markdown))
    path = output_path(args.out, args.quick, chosen, started)
    write_csv(rows, path)
    print(f"\nwritten: {path}")
    targets = [r for r in rows if r.target]
    met = sum(r.status == "met" for r in targets)
    print(
        f"targets: {met} met, {sum(r.status == 'missed' for r in targets)} missed, "
        f"{sum(r.status == 'skipped' for r in rows)} skipped"
    )
    if failed:
        print(f"sections that failed: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
