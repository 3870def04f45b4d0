"""The envs by Gymnasium's and SB3's own rules, determinism, vectorisation and bad actions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import leogym  # noqa: F401  (registers the ids)
from leogym.envs.actions import InvalidActionError

ENV_IDS = ["leogym/LeoCC-v0", "leogym/LeoScheduler-v0", "leogym/LeoJoint-v0"]
SHORT = {"scenario": "tiny", "episode_s": 2.0, "step_ms": 100.0}


@pytest.mark.native
@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("action_mode", ["continuous", "discrete"])
def test_gymnasium_check_env_zero_warnings(env_id: str, action_mode: str) -> None:
    from gymnasium.utils.env_checker import check_env

    env = gym.make(env_id, action_mode=action_mode, **SHORT)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    env.close()


@pytest.mark.native
@pytest.mark.parametrize("env_id", ["leogym/LeoCC-v0", "leogym/LeoJoint-v0"])
@pytest.mark.parametrize("alternate", [None, "maco"])
def test_the_residual_mode_passes_both_checkers(env_id: str, alternate: str | None) -> None:
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    kw = {"action_mode": "residual", "residual_base": "bbr3", "residual_alternate": alternate}
    env = gym.make(env_id, **kw, **SHORT)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
        sb3_check_env(env.unwrapped, warn=True)
    env.close()


@pytest.mark.native
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_sb3_check_env_zero_warnings(env_id: str) -> None:
    from stable_baselines3.common.env_checker import check_env

    env = gym.make(env_id, **SHORT)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped, warn=True)
    env.close()


def test_feature_names_have_units_and_match_space() -> None:
    env = gym.make("leogym/LeoCC-v0", observation={"history": 3}, **SHORT)
    names = env.unwrapped.feature_names
    assert len(names) == env.observation_space.shape[0]
    assert all("[" in n and n.endswith("]") for n in names)
    assert any("time_to_handover [10 s]" in n for n in names)
    assert any("snr [10 dB]" in n for n in names)
    env.close()


def test_ablation_switches_remove_features() -> None:
    full = gym.make("leogym/LeoCC-v0", **SHORT)
    ablated = gym.make(
        "leogym/LeoCC-v0", observation={"handover_features": False, "snr_features": False}, **SHORT
    )
    names = ablated.unwrapped.feature_names
    assert not any("handover" in n or "snr" in n or "elevation" in n for n in names)
    per_path_full = len(full.unwrapped.features.per_path)
    assert len(ablated.unwrapped.features.per_path) == per_path_full - 5
    full.close()
    ablated.close()


def _rollout(env_id: str, seed: int, steps: int) -> list:
    env = gym.make(env_id, **{**SHORT, "episode_s": 3.0})
    obs, _ = env.reset(seed=seed)
    out = [obs.tolist()]
    rng = np.random.default_rng(0)
    for _ in range(steps):
        action = rng.uniform(-1, 1, env.action_space.shape).astype(np.float32)
        obs, r, term, trunc, info = env.step(action)
        out.append([obs.tolist(), r, term, trunc, info["goodput_bps"], info["rtt_s"].tolist()])
        if term or trunc:
            break
    env.close()
    return out


@pytest.mark.native
def test_same_seed_same_trajectory_across_processes() -> None:
    code = (
        "import json; from test_env_api import _rollout;"
        "print(json.dumps(_rollout('leogym/LeoCC-v0', 7, 20)))"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
        )
        for _ in range(2)
    ]
    a, b = (json.loads(r.stdout.strip().splitlines()[-1]) for r in runs)
    assert a == b
    c = _rollout("leogym/LeoCC-v0", 8, 20)
    assert c != a  # a different seed gives a different trajectory


@pytest.mark.native
def test_time_limit_is_truncation_not_termination() -> None:
    env = gym.make("leogym/LeoCC-v0", **SHORT)
    env.reset(seed=1)
    n = 0
    while True:
        _, _, term, trunc, info = env.step(np.zeros(env.action_space.shape, np.float32))
        n += 1
        if term or trunc:
            break
    assert trunc and not term
    assert n == 20 and info["sim_time_s"] == pytest.approx(2.0)
    env.close()


@pytest.mark.native
def test_reset_info_says_what_a_sampled_episode_drew() -> None:
    """With sample_scenarios, reset's info holds the draw (the episode's own scenario, the same
    for the same seed); a fixed scenario draws nothing and says nothing."""
    env = gym.make("leogym/LeoCC-v0", scenario="starlink_geometric", sample_scenarios=True)
    _, info = env.reset(seed=4)
    drawn = info["scenario_draw"]
    scenario = env.unwrapped.episode_scenario
    assert drawn["terminal_lat_deg"] == scenario.terminal.lat_deg
    assert drawn["epoch_utc_s"] == scenario.epoch_utc_s
    assert env.reset(seed=5)[1]["scenario_draw"] != drawn
    assert env.reset(seed=4)[1]["scenario_draw"] == drawn
    env.close()
    fixed = gym.make("leogym/LeoCC-v0", **SHORT)
    assert "scenario_draw" not in fixed.reset(seed=4)[1]
    fixed.close()


@pytest.mark.native
@pytest.mark.parametrize(
    "bad", [np.full(4, np.nan, np.float32), np.full(4, 5.0, np.float32), np.zeros(3, np.float32)]
)
def test_bad_action_raises_and_env_recovers(bad: np.ndarray) -> None:
    env = gym.make("leogym/LeoCC-v0", **SHORT)
    env.reset(seed=3)
    env.step(np.zeros(4, np.float32))
    with pytest.raises(InvalidActionError):
        env.step(bad)
    obs, _ = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    env.step(np.zeros(4, np.float32))
    env.close()


@pytest.mark.native
def test_baseline_cc_runs_through_the_same_api() -> None:
    env = gym.make("leogym/LeoCC-v0", cc="cubic", **SHORT)
    obs, _ = env.reset(seed=0)
    total = 0.0
    for _ in range(10):
        obs, _, _, _, info = env.step(np.ones(4, np.float32))  # ignored: CUBIC is in charge
        total += info["goodput_bps"]
    assert total > 0
    env.close()


@pytest.mark.native
def test_async_vector_env_runs_one_simulator_per_process() -> None:
    envs = gym.make_vec("leogym/LeoCC-v0", num_envs=2, vectorization_mode="async", **SHORT)
    obs, _ = envs.reset(seed=[1, 2])
    assert obs.shape[0] == 2
    for _ in range(3):
        obs, rew, term, trunc, info = envs.step(np.zeros((2, 4), np.float32))
    assert np.all(np.isfinite(rew))
    envs.close()


@pytest.mark.native
def test_sb3_subproc_vec_env() -> None:
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    # Workers started by forkserver/spawn import nothing: the "module:id" form imports leogym.
    venv = make_vec_env(
        "leogym:leogym/LeoScheduler-v0",
        n_envs=2,
        vec_env_cls=SubprocVecEnv,
        env_kwargs=SHORT,
        seed=5,
    )
    venv.reset()
    for _ in range(3):
        venv.step(np.zeros((2, 4), np.float32))
    venv.close()


@pytest.mark.native
def test_second_env_in_process_takes_over_the_simulator() -> None:
    a = gym.make("leogym/LeoCC-v0", **SHORT)
    b = gym.make("leogym/LeoCC-v0", **SHORT)
    a.reset(seed=0)
    b.reset(seed=0)
    with pytest.raises(RuntimeError, match="one simulator per process"):
        a.step(np.zeros(4, np.float32))
    a.reset(seed=0)  # a takes it back; b must reset now
    a.step(np.zeros(4, np.float32))
    with pytest.raises(RuntimeError, match="reset"):
        b.step(np.zeros(4, np.float32))
    a.close()
    b.close()


@pytest.mark.native
def test_rgb_array_render() -> None:
    env = gym.make("leogym/LeoCC-v0", render_mode="rgb_array", **SHORT)
    env.reset(seed=0)
    env.step(np.zeros(4, np.float32))
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert frame.shape[0] == 48 * 2  # tiny has two paths
    env.close()


@pytest.mark.native
@pytest.mark.slow
def test_memory_is_stable_over_200_resets() -> None:
    import psutil

    env = gym.make("leogym/LeoCC-v0", **SHORT)
    proc = psutil.Process()
    for i in range(20):  # warm-up: allocator pools, imports, first builds
        env.reset(seed=i)
        env.step(np.zeros(4, np.float32))
    rss0 = proc.memory_info().rss
    for i in range(200):
        env.reset(seed=i)
        env.step(np.zeros(4, np.float32))
    growth_mb = (proc.memory_info().rss - rss0) / 2**20
    env.close()
    assert growth_mb < 20.0, f"RSS grew by {growth_mb:.1f} MB over 200 resets"


@pytest.mark.native
@pytest.mark.slow
def test_ppo_learns_better_than_random_on_tiny() -> None:
    """6000 PPO steps (150 short episodes) beat a random policy's return: the signal is
    learnable."""
    from stable_baselines3 import PPO

    kwargs = {"scenario": "tiny", "episode_s": 4.0, "step_ms": 100.0}
    env = gym.make("leogym/LeoCC-v0", **kwargs)

    def mean_return(policy, episodes: int = 3) -> float:
        totals = []
        for ep in range(episodes):
            obs, _ = env.reset(seed=1000 + ep)
            done, total = False, 0.0
            while not done:
                action = policy(obs)
                obs, r, term, trunc, _ = env.step(action)
                total += r
                done = term or trunc
            totals.append(total)
        return float(np.mean(totals))

    rng = np.random.default_rng(0)
    random_return = mean_return(lambda o: rng.uniform(-1, 1, 4).astype(np.float32))
    model = PPO("MlpPolicy", env, n_steps=256, batch_size=64, seed=0, verbose=0)
    model.learn(total_timesteps=6000)
    trained_return = mean_return(lambda o: model.predict(o, deterministic=True)[0])
    env.close()
    assert trained_return > random_return, (trained_return, random_return)


@pytest.mark.native
def test_loss_rate_follows_the_configured_random_loss() -> None:
    """With a 2 % Bernoulli loss on the downlinks and queues too large to overflow, every loss
    the transport declares is a random drop of the link, and the loss rate is 2 % within a
    binomial 99.9 % interval: the number in the config, seen by the Aurora reward's loss term."""
    from leogym.scenario import load_scenario

    p = 0.02
    cfg = load_scenario("tiny")
    for path in cfg.paths:
        path.loss_down = p
        path.loss_up = 0.0
        path.queue.size = 20.0  # BDPs
    env = gym.make("leogym/LeoCC-v0", scenario=cfg, cc="cubic", episode_s=6.0, step_ms=100.0)
    env.reset(seed=4)
    sent = lost = random_drops = 0
    rates = []
    done = False
    while not done:
        _, _, term, trunc, info = env.step(np.zeros(4, np.float32))
        sent += int(info["sent_packets"].sum())
        lost += int(info["losses"]["detected"].sum())
        random_drops += int(info["losses"]["random"].sum())
        rates.append(info["loss_rate"])
        done = term or trunc
    env.close()
    assert lost == random_drops > 0
    half_width = 3.29 * (p * (1 - p) / sent) ** 0.5
    assert abs(lost / sent - p) < half_width, (lost / sent, half_width)
    assert max(rates) > 0


@pytest.mark.native
def test_handover_forecast_realistic_hides_the_drawn_slot() -> None:
    """On ``default`` (per-slot dynamics) the realistic forecast observes the geometric RTT and
    capacity after the next handover, the oracle forecast the drawn ones; everything else in
    the observation is the same (leogym.scenario.forecast)."""
    from leogym.scenario.forecast import settled_sample

    obs = {}
    for mode in ("realistic", "oracle"):
        env = gym.make(
            "leogym/LeoCC-v0",
            scenario="default",
            episode_s=20.0,
            step_ms=100.0,
            observation={"handover_forecast": mode},
        )
        obs[mode], _ = env.reset(seed=3)
        names = env.unwrapped.feature_names
        tl = env.unwrapped.timeline
        env.close()
    p = tl.paths[0]
    th = float(p.handovers[0])
    _, after = settled_sample(tl, p, th)
    cap = names.index("t-0/path0/capacity_after_handover [100 Mbit/s]")
    rtt = names.index("t-0/path0/rtt_after_handover [100 ms]")
    g = p.geometric
    assert obs["realistic"][cap] == pytest.approx(g["rate_down_bps"][after] / 1e8, rel=1e-6)
    assert obs["oracle"][cap] == pytest.approx(p.rate_down_bps[after] / 1e8, rel=1e-6)
    geo_rtt = g["delay_down_s"][after] + g["delay_up_s"][after]
    assert obs["realistic"][rtt] == pytest.approx(geo_rtt / 0.1, rel=1e-6)
    assert obs["realistic"][cap] != obs["oracle"][cap]
    same = np.ones(len(names), dtype=bool)
    same[[cap, rtt]] = False
    np.testing.assert_array_equal(obs["realistic"][same], obs["oracle"][same])
