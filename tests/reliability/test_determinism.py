"""Same config and seed, same results, across processes and runs: the same short evaluation,
run twice in two processes (once with one worker, once with two), gives bit-identical
per-episode trace files and a bit-identical results table (wall-clock times go to timings.csv).

(Within one env, same seed -> same trajectory across processes: tests/envs/test_env_api.py.)
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from reliability_support import ROOT, Figure

pytestmark = [pytest.mark.timeout(600), pytest.mark.native]  # trajectories of the compiled core

EVAL = [
    "scenario=tiny",
    "env.episode_s=6",
    "eval.progress=false",
    "eval.plots=false",
    "baseline=[cubic,olia]",
    "eval.seeds=[0,1]",
]


def _evaluate(run_dir: Path, workers: int) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "leogym.agents.evaluate",
            *EVAL,
            f"eval.n_workers={workers}",
            f"hydra.run.dir={run_dir}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=500,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]


def _hashes(run_dir: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((run_dir / "traces").glob("*.parquet"))
    }


def test_same_config_same_seed_same_files(tmp_path: Path, record) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    _evaluate(a, 1)
    _evaluate(b, 2)
    ha, hb = _hashes(a), _hashes(b)
    assert len(ha) == 4 and ha == hb, "per-episode traces differ"
    ra = pd.read_parquet(a / "results.parquet")
    digest = [hashlib.sha256((d / "results.parquet").read_bytes()).hexdigest() for d in (a, b)]
    assert digest[0] == digest[1], "results.parquet differs"
    record(
        Figure(
            id="long_run/determinism",
            category="long run",
            what="the same evaluation (2 policies x 2 seeds) in two processes, 1 vs 2 workers",
            cases=len(ha),
            outcomes={"trace_files_bit_identical": len(ha), "result_rows_identical": len(ra)},
            notes="results.parquet bit-identical too (wall-clock times live in timings.csv)",
        )
    )
