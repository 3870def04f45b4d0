"""Long runs: many episodes across scenario samples in one process (``soak_worker.py``), with
no exception, no memory growth and identical results whenever a seed is replayed.

Full size (LEOGYM_RELIABILITY_SIZE=full): 1,000 episodes; CI: 200.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from reliability_support import HERE, ROOT, Figure, sized

# Soak episodes run the compiled core.
pytestmark = pytest.mark.native

RSS_LIMIT_MB = 10.0


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_soak_many_episodes_one_process(tmp_path: Path, record) -> None:
    n = sized(200, 1000)
    out = tmp_path / "soak.json"
    proc = subprocess.run(
        [sys.executable, str(HERE / "soak_worker.py"), "--episodes", str(n), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=1700,
        check=False,
    )
    died = signal.Signals(-proc.returncode).name if proc.returncode < 0 else None
    report = json.loads(out.read_text()) if out.is_file() else {}
    record(
        Figure(
            id="long_run/soak",
            category="long run",
            what=f"{n} episodes in one process: 3 envs x 4 scenarios with per-episode sampling, "
            f"{report.get('episode_s')} s each; seeds replayed",
            cases=n,
            outcomes={
                "episodes_ok": n - report.get("errors", n),
                "exceptions": report.get("errors", 0),
                "replays_identical": report.get("repeats_checked", 0)
                - len(report.get("mismatches", [])),
            },
            aborts=1 if died else 0,
            notes=f"RSS growth {report.get('rss_growth_mb')} MB after warm-up (limit "
            f"{RSS_LIMIT_MB:g} MB), {report.get('wall_s')} s",
            extra={
                k: report.get(k)
                for k in (
                    "rss_mb",
                    "rss_growth_mb",
                    "rss_max_excursion_mb",
                    "mismatches",
                    "error_samples",
                    "wall_s",
                    "rotation",
                )
            },
        )
    )
    assert died is None and proc.returncode == 0, proc.stderr[-4000:]
    assert report["episodes"] == n
    assert report["errors"] == 0, report["error_samples"]
    assert report["mismatches"] == [], "a replayed seed gave a different trajectory"
    assert report["repeats_checked"] >= 20
    assert report["distinct_digests"] > n * 0.9, "episodes should differ across seeds"
    assert report["rss_growth_mb"] < RSS_LIMIT_MB, report["rss_mb"]
