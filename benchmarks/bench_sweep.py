"""A Hydra multirun of evaluations three ways: one after another, in parallel locally, on Ray.

Run: ``python -m benchmarks.bench_sweep [--quick]`` (or through ``python -m benchmarks``).

The same ``leogym-eval -m`` sweep (scenario ``default``, 20 s episodes, CUBIC and OLIA, seeds
0-2, two jobs over ``env.step_ms=100,200``; with ``--quick``: ``tiny``, 3 s, seeds 0-1) runs with

* Hydra's ``basic`` launcher (the jobs one after another in one process),
* ``hydra/launcher=local`` (hydra-submitit-launcher: one process per job, in parallel), and
* Hydra's ``basic`` launcher with ``eval.backend=ray`` (each job's episodes as Ray tasks on a
  local Ray instance started for the job; a sweep through Ray itself, with no Hydra launcher
  plugin),

and every job's ``results.parquet`` is compared across the three, all columns but the episode's
wall time. Ray is optional (the ``distributed`` extra); when it cannot be imported the Ray rows
say so (status ``skipped``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from benchmarks.common import Row, measure

__all__ = ["run_sweep", "compare_sweeps", "ray_available", "rows"]

SWEEP = [
    "baseline=[cubic,olia]",
    "eval.n_workers=1",
    "eval.plots=false",
    "eval.traces=false",
    "eval.progress=false",
]
LAUNCHERS = {
    "basic": [],
    "local": ["hydra/launcher=local"],
    "ray": ["eval.backend=ray", "ray.num_cpus=2"],
}
_STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\]")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("RAY_AUTH_MODE", "disabled")  # a throw-away local instance
    env.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    return env


def ray_available() -> str:
    """Empty if Ray imports, else the import error."""
    proc = subprocess.run(
        [sys.executable, "-c", "import ray"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
        check=False,
    )
    if proc.returncode == 0:
        return ""
    lines = proc.stderr.strip().splitlines()
    return lines[-1] if lines else f"exit code {proc.returncode}"


def run_sweep(
    launcher: str,
    sweep_dir: Path,
    step_ms: list[int],
    episode_s: float,
    scenario: str = "tiny",
    seeds: tuple[int, ...] = (0, 1),
) -> float:
    """Run the evaluation sweep with ``launcher``; return its wall-clock seconds.

    :raises RuntimeError: the sweep failed (with the end of its output).
    """
    args = [
        sys.executable,
        "-m",
        "leogym.agents.evaluate",
        "-m",
        *LAUNCHERS[launcher],
        *SWEEP,
        f"scenario={scenario}",
        f"env.episode_s={episode_s:g}",
        "eval.seeds=[" + ",".join(str(x) for x in seeds) + "]",
        "env.step_ms=" + ",".join(str(s) for s in step_ms),
        f"hydra.sweep.dir={sweep_dir}",
    ]
    t0 = time.perf_counter()
    proc = subprocess.run(
        args, capture_output=True, text=True, env=_env(), timeout=900, check=False
    )
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(
            f"{launcher} sweep failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
        )
    return wall


def _job_interval(job: Path) -> tuple[datetime, datetime]:
    stamps = []
    for line in (job / "evaluate.log").read_text().splitlines():
        m = _STAMP.match(line)
        if m:
            stamps.append(datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f"))
    return min(stamps), max(stamps)


def jobs_overlap(sweep_dir: Path) -> bool:
    """Whether the sweep's jobs ran at the same time (their log intervals intersect)."""
    spans = [_job_interval(j) for j in sorted(sweep_dir.iterdir()) if (j / "evaluate.log").exists()]
    return len(spans) > 1 and max(s for s, _ in spans) < min(e for _, e in spans)


def compare_sweeps(a: Path, b: Path) -> tuple[int, list[str]]:
    """Compare every job's ``results.parquet`` of two sweep folders (wall times live apart, in
    ``timings.csv``, so the files themselves must be equal).

    :return: ``(rows compared, differences)``; no differences means identical results.
    """
    import pandas as pd

    jobs_a = sorted(p.parent.name for p in a.glob("*/results.parquet"))
    jobs_b = sorted(p.parent.name for p in b.glob("*/results.parquet"))
    if jobs_a != jobs_b or not jobs_a:
        return 0, [f"jobs differ: {jobs_a} vs {jobs_b}"]
    diffs: list[str] = []
    n = 0
    for job in jobs_a:
        x = pd.read_parquet(a / job / "results.parquet")
        y = pd.read_parquet(b / job / "results.parquet")
        x = x.sort_values("key").reset_index(drop=True)
        y = y.sort_values("key").reset_index(drop=True)
        n += len(x)
        if list(x.columns) != list(y.columns) or len(x) != len(y):
            diffs.append(f"job {job}: shape {x.shape} vs {y.shape}")
            continue
        for col in x.columns:
            if not x[col].equals(y[col]):
                diffs.append(f"job {job}: column {col}")
    return n, diffs


def rows(quick: bool = False) -> list[Row]:
    """Wall time of the sweep per launcher, parallelism, and result identity across them."""
    step_ms = [100, 200]
    episode_s = 3.0 if quick else 20.0
    scenario = "tiny" if quick else "default"
    seeds = (0, 1) if quick else (0, 1, 2)
    root = Path(tempfile.mkdtemp(prefix="leogym-bench-sweep-"))
    out: list[Row] = []
    try:
        walls: dict[str, float] = {}
        note = (
            f"leogym-eval -m: {scenario}, {episode_s:g} s episodes, CUBIC+OLIA x seeds "
            f"{list(seeds)}, env.step_ms={step_ms}: {len(step_ms)} jobs"
        )
        for launcher in ("basic", "local"):
            walls[launcher] = run_sweep(
                launcher, root / launcher, step_ms, episode_s, scenario=scenario, seeds=seeds
            )
            out.append(
                measure(
                    "sweep",
                    f"{launcher} launcher: sweep wall time",
                    "s",
                    [walls[launcher]],
                    note=note
                    if launcher == "basic"
                    else f"jobs ran in parallel: {jobs_overlap(root / launcher)}",
                )
            )
        out.append(
            measure(
                "sweep",
                "local (parallel) vs basic: speed-up",
                "x",
                [walls["basic"] / walls["local"]],
                note="process start-up per job included",
            )
        )
        n, diffs = compare_sweeps(root / "basic", root / "local")
        out.append(
            measure(
                "sweep",
                "results identical: local vs basic",
                "bool",
                [float(not diffs)],
                target=">= 1",
                note=f"{n} episodes compared" + (f"; {diffs[:3]}" if diffs else ""),
            )
        )
        why = ray_available()
        if why:
            for metric in (
                "eval.backend=ray: sweep wall time",
                "results identical: ray vs local",
            ):
                out.append(
                    Row(
                        "sweep",
                        metric,
                        float("nan"),
                        "",
                        0,
                        status="skipped",
                        note=f"Ray not importable ({why}); pip install -e '.[distributed]'",
                    )
                )
            return out
        walls["ray"] = run_sweep(
            "ray", root / "ray", step_ms, episode_s, scenario=scenario, seeds=seeds
        )
        out.append(
            measure(
                "sweep",
                "eval.backend=ray: sweep wall time",
                "s",
                [walls["ray"]],
                note="jobs one after another, each starting a local Ray instance",
            )
        )
        n, diffs = compare_sweeps(root / "local", root / "ray")
        out.append(
            measure(
                "sweep",
                "results identical: ray vs local",
                "bool",
                [float(not diffs)],
                target=">= 1",
                note=f"{n} episodes compared, every column" + (f"; {diffs[:3]}" if diffs else ""),
            )
        )
        return out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    from benchmarks.common import format_table

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    print(format_table(rows(args.quick)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
