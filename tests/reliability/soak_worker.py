"""Soak: many episodes across scenario samples in one process; report JSON.

Usage::

    python tests/reliability/soak_worker.py --episodes N --out OUT.json

Episode ``i`` runs env ``ROTATION[i % 4]`` (three envs, four scenarios with per-episode
sampling, agent-controlled and native controllers) with ``reset(seed=i)`` and random actions
from a generator seeded with ``i``; its digest is a SHA-256 over every observation, reward,
flag and the info's numbers. Every ``REPEAT_EVERY`` episodes, episode 0 to 3 are replayed and
their digests must match the first time; at the end, the first ``REPLAY`` episodes are replayed
too. RSS is sampled (after ``gc.collect()`` and ``malloc_trim``) every ``RSS_EVERY`` episodes;
growth is the median of the last three samples minus the median of the first three after the
warm-up (allocator pools, imports, first builds).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import hashlib
import json
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import psutil

import leogym  # noqa: F401

ROTATION: list[tuple[str, dict[str, Any]]] = [
    ("leogym/LeoCC-v0", {"scenario": "default", "sample_scenarios": True}),
    (
        "leogym/LeoScheduler-v0",
        {"scenario": "leotp_starlink", "sample_scenarios": True, "action_mode": "discrete"},
    ),
    ("leogym/LeoJoint-v0", {"scenario": "alcs_stin", "sample_scenarios": True}),
    ("leogym/LeoCC-v0", {"scenario": "freeze", "sample_scenarios": True, "cc": "freeze+cubic"}),
]
EPISODE_S = 2.0
REPEAT_EVERY = 100
RSS_EVERY = 25
REPLAY = 20


def _rss_mb(proc: psutil.Process) -> float:
    """Resident memory after a garbage collection and, on glibc, handing freed heap pages
    back to the OS (otherwise allocator arenas make RSS swing by +-10 MB between samples)."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    return proc.memory_info().rss / 2**20


def episode(envs: list[gym.Env], i: int) -> str:
    env = envs[i % len(envs)]
    h = hashlib.sha256()
    obs, info = env.reset(seed=i)
    rng = np.random.default_rng(i)
    env.action_space.seed(int(rng.integers(2**31)))
    h.update(np.ascontiguousarray(obs).tobytes())
    done = False
    while not done:
        obs, reward, term, trunc, info = env.step(env.action_space.sample())
        h.update(np.ascontiguousarray(obs).tobytes())
        h.update(np.float64(reward).tobytes() + bytes([term, trunc]))
        for key in ("goodput_bps", "delay_s", "loss_rate", "sim_time_s"):
            h.update(np.float64(info[key]).tobytes())
        done = term or trunc
    return h.hexdigest()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    n = args.episodes
    warmup = max(50, n // 10)
    envs = [gym.make(env_id, episode_s=EPISODE_S, **kw) for env_id, kw in ROTATION]
    proc = psutil.Process()
    digests: dict[int, str] = {}
    errors: list[str] = []
    mismatches: list[int] = []
    repeats = 0
    rss: list[tuple[int, float]] = []
    t0 = time.perf_counter()
    for i in range(n):
        try:
            digests[i] = episode(envs, i)
        except Exception:  # noqa: BLE001 - counted and reported
            errors.append(f"episode {i}: {traceback.format_exc()[-1500:]}")
        if i and i % REPEAT_EVERY == 0:
            for j in range(min(4, i)):
                repeats += 1
                if j in digests and episode(envs, j) != digests[j]:
                    mismatches.append(j)
        if i + 1 == warmup or (i + 1) % RSS_EVERY == 0 or i + 1 == n:
            rss.append((i + 1, _rss_mb(proc)))
    for j in range(min(REPLAY, n)):
        repeats += 1
        if j in digests and episode(envs, j) != digests[j]:
            mismatches.append(j)
    for env in envs:
        env.close()
    after = [v for k, v in rss if k >= warmup]
    base = float(np.median(after[:3]))
    trend = float(np.median(after[-3:])) - base
    report = {
        "episodes": n,
        "warmup_episodes": warmup,
        "errors": len(errors),
        "error_samples": errors[:5],
        "repeats_checked": repeats,
        "mismatches": sorted(set(mismatches)),
        "rss_mb": rss,
        "rss_growth_mb": round(trend, 2),
        "rss_max_excursion_mb": round(max(after) - base, 2),
        "distinct_digests": len(set(digests.values())),
        "wall_s": round(time.perf_counter() - t0, 1),
        "rotation": [f"{e} {kw}" for e, kw in ROTATION],
        "episode_s": EPISODE_S,
    }
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
