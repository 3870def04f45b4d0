"""One road into the simulator: the paper reproductions (``leogym-reproduce``) and the envs
(``leogym-eval``, ``leogym-run``) open their simulations through ``leogym.simulation`` and get
bit-identical measurements for the same scenario, algorithm and seed.

Before this road existed the two built their native configs separately and drifted apart (the
reproductions sent MACO the slant range, the envs did not). These tests run each paper's
algorithm on its paper's scenario both ways and compare every series.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import leogym  # noqa: F401  (registers the env ids)
from leogym.agents.reproduce.common import _SERIES_KEYS, algorithms, run_simulation
from leogym.scenario import load_scenario

# Every test steps the compiled core
pytestmark = pytest.mark.native

STEP_S = 0.1
STEPS = 125  # 12.5 s: MACO's and the freeze scenario's first handover is at 12 s

CASES = [
    # (env id, scenario, cc, scheduler, the window has a handover): MACO (seed paper 000),
    # ALCS (001: its 40 MB file completes in about 7 s, before the first handover at 12 s),
    # StarQUIC's freeze (002)
    ("leogym/LeoCC-v0", "maco", "maco", "minrtt", True),
    ("leogym/LeoScheduler-v0", "alcs_stin", "cubic", "alcs", False),
    ("leogym/LeoCC-v0", "freeze", "freeze+cubic", "minrtt", True),
]


@pytest.mark.parametrize(("env_id", "scenario", "cc", "scheduler", "handover"), CASES)
def test_reproduction_and_env_roads_measure_the_same(
    env_id: str, scenario: str, cc: str, scheduler: str, handover: bool
) -> None:
    env = gym.make(
        env_id,
        scenario=scenario,
        cc=cc,
        scheduler=scheduler,
        step_ms=STEP_S * 1000,
        episode_s=STEPS * STEP_S,
    )
    _, info = env.reset(seed=11)
    episode_seed = info["episode_seed"]
    by_env: dict[str, list[np.ndarray]] = {k: [] for k in _SERIES_KEYS}
    goodput = []
    handovers = 0
    for _ in range(STEPS):
        _, _, terminated, truncated, info = env.step(env.action_space.sample())
        m = env.unwrapped.last_measurements
        for k in _SERIES_KEYS:
            by_env[k].append(m.per_path(k).astype(np.float64))
        goodput.append(float(m.goodput_bytes))
        handovers += len(info["handover_times_s"])
        if terminated or truncated:
            break
    env.close()
    assert (handovers > 0) == handover

    series = run_simulation(
        load_scenario(scenario),
        algorithms(cc, scheduler),
        seed=episode_seed,
        duration_s=STEPS * STEP_S,
        step_s=STEP_S,
    )
    assert len(series.t) == len(goodput)
    np.testing.assert_array_equal(series.goodput_bytes, goodput)
    for k in _SERIES_KEYS:
        np.testing.assert_array_equal(series.per_path[k], np.vstack(by_env[k]), err_msg=k)
    assert series.goodput_bytes.sum() > 0
