"""Congestion-signal features and reward: the CE fraction and the queue sojourn a path's
packets saw (``observation.congestion_features``, ``reward="congestion_signals"``).

References: the reward's arithmetic (Aurora's linear utility, Jay et al. ICML 2019 §4, with
the measured queue delay and a CE term), and a drop-tail queue's arithmetic (an overloaded FIFO
of L packets holds a packet about L transmission times).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from leogym.envs.features import PathInputs, PathMeasurements
from leogym.envs.rewards import RewardWeights, StepMetrics, get_reward, step_metrics


def test_congestion_signal_reward_arithmetic() -> None:
    m = StepMetrics(
        goodput_bps=20e6,
        delay_s=0.3,  # RTT: ignored by this reward
        min_delay_s=0.05,
        loss_rate=0.01,
        capacity_bps=25e6,
        step_s=0.1,
        queue_delay_s=0.004,
        ce_fraction=0.05,
    )
    w = RewardWeights()
    expected = 0.01 * (10 * 20 - 1000 * 0.004 - 2000 * 0.01 - 500 * 0.05)
    assert get_reward("congestion_signals")(m, w) == pytest.approx(expected)
    assert get_reward("congestion_signals")(m, RewardWeights(ce=0.0)) == pytest.approx(
        0.01 * (200 - 4 - 20)
    )


def test_step_metrics_weights_queue_delay_by_delivered_bytes() -> None:
    metrics, _ = step_metrics(
        0.0,
        0.1,
        goodput_bytes=1000,
        delivered_bytes=np.array([3000.0, 1000.0, 0.0]),
        srtt_s=np.array([0.05, 0.05, 0.05]),
        min_rtt_s=np.array([0.04, 0.04, 0.04]),
        sent_packets=np.array([10, 10, 0]),
        lost_packets=np.array([0, 0, 0]),
        capacity_bps=1e7,
        min_rtt_so_far=np.inf,
        rate_scale=1.0,
        queue_delay_s=np.array([0.010, 0.002, np.nan]),
        ce_packets=np.array([2, 1, 0]),
    )
    assert metrics.queue_delay_s == pytest.approx((3 * 0.010 + 1 * 0.002) / 4)
    assert metrics.ce_fraction == pytest.approx(3 / 20)


def _env(**kw: Any) -> Any:
    return gym.make(
        "leogym/LeoCC-v0",
        scenario="tiny",
        cc="cubic",
        step_ms=100,
        episode_s=6.0,
        observation={"congestion_features": True, "handover_features": False},
        **kw,
    ).unwrapped


def test_congestion_features_follow_the_measurements() -> None:
    env = _env()
    obs, _ = env.reset(seed=3)
    names = env.feature_names
    ce_col = names.index("t-0/path0/ce_fraction [fraction]")
    q_col = names.index("t-0/path0/queue_delay [100 ms]")
    assert obs[ce_col] == 0.0 and obs[q_col] == 0.0
    seen = 0
    for _ in range(40):
        obs, *_ = env.step(np.zeros(env.action_space.shape, dtype=np.float32))
        m = env.last_measurements
        q = float(m.queue_delay_s[0])
        if np.isfinite(q):
            seen += 1
            assert obs[q_col] == pytest.approx(q / 0.1, rel=1e-6, abs=1e-7)
        assert obs[ce_col] == 0.0  # no ECN: nothing marked
    assert seen > 30
    env.close()


def test_congestion_features_off_keep_the_layout() -> None:
    on = _env()
    off = gym.make(
        "leogym/LeoCC-v0",
        scenario="tiny",
        cc="cubic",
        observation={"handover_features": False},
    ).unwrapped
    assert on.observation_space.shape[0] == off.observation_space.shape[0] + 2 * 4
    assert not any("ce_fraction" in n for n in off.feature_names)
    on.close()
    off.close()


def test_the_ce_fraction_is_clipped_to_one() -> None:
    # CE reports lag the sends by a round trip: a step can report more marks than it sent.
    env = _env()
    env.reset(seed=0)
    n = env.n_paths
    m = dataclasses.replace(
        PathMeasurements.zero(n),
        sent_packets=np.full(n, 4.0),
        ce_packets=np.full(n, 6.0),
        queue_delay_s=np.full(n, np.nan),
    )
    inputs = PathInputs(m, env._oracle, 1.0, packet_bytes=1500, rate_scale=1.0)
    frame = env.features.frame(inputs)
    per_path = len(env.features.per_path)
    names = [f.key for f in env.features.per_path]
    assert frame[names.index("ce_fraction")] == 1.0
    assert frame[names.index("queue_delay")] == 0.0
    assert len(frame) == per_path * env.features.cfg.max_paths
    env.close()


def _l4s_env(**kw: Any) -> Any:
    """Prague with ECN on l4s_dualpi2 (its DualPI2 access link), 200 ms steps."""
    return gym.make(
        "leogym/LeoCC-v0",
        scenario="l4s_dualpi2",
        cc="prague",
        step_ms=200,
        transport={"ecn": True},
        **kw,
    ).unwrapped


def test_ce_fraction_feature_under_l4s_marking() -> None:
    # Prague with ECN through the DualPI2 access link of l4s_dualpi2: its ECT(1) packets are
    # marked from 0.8 ms of L4S sojourn, so the feature is the step's CE count over the
    # packets sent, and the path's queue delay stays sub-millisecond (RFC 9332's L4S aim).
    env = _l4s_env(
        episode_s=8.0,
        observation={"congestion_features": True, "handover_features": False},
        reward="congestion_signals",
    )
    env.reset(seed=1)
    col = env.feature_names.index("t-0/path0/ce_fraction [fraction]")
    marked, delays = 0, []
    for _ in range(40):
        obs, reward, *_ = env.step(np.zeros(env.action_space.shape, dtype=np.float32))
        m = env.last_measurements
        sent, ce = float(m.sent_packets[0]), float(m.ce_packets[0])
        expected = min(ce / sent, 1.0) if sent > 0 else 0.0
        assert obs[col] == pytest.approx(expected, rel=1e-6)
        marked += ce > 0
        if np.isfinite(m.queue_delay_s[0]):
            delays.append(float(m.queue_delay_s[0]))
    assert int(m.ecn_state[0]) == 3  # capable
    assert marked > 20
    assert float(np.median(delays[10:])) < 0.001
    env.close()


def test_ecn_and_dualpi2_episodes_repeat_bit_for_bit() -> None:
    # DualPI2 draws its marks from an ns-3 random stream: the same seed must give the same
    # observations and rewards, another seed a different episode (background loss, marks).
    def episode(seed: int) -> np.ndarray:
        env = _l4s_env(episode_s=4.0, observation={"congestion_features": True})
        obs, _ = env.reset(seed=seed)
        out = [obs]
        for _ in range(20):
            obs, reward, *_ = env.step(np.zeros(env.action_space.shape, dtype=np.float32))
            out += [obs, np.array([reward], dtype=np.float32)]
        env.close()
        return np.concatenate(out)

    first = episode(3)
    assert np.array_equal(first, episode(3))
    assert not np.array_equal(first, episode(4))
