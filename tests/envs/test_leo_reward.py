"""The default reward, ``leo``: scale-free, and it charges the queue a sender builds, never the
geometry of a handover (issue: Aurora's "RTT above the episode's smallest RTT" charges a switch to
a 30 ms longer path like 30 ms of queueing). Its fair-share term is Sage's bell
``exp(-8(x/fair - 1)^2)`` (Yen et al., SIGCOMM 2023)."""

from __future__ import annotations

import dataclasses
import math

import gymnasium as gym
import numpy as np
import pytest

import leogym  # noqa: F401  (registers the ids)
from leogym.envs.config import RewardConfig
from leogym.envs.rewards import (
    RewardWeights,
    StepMetrics,
    aurora_reward,
    default_weights,
    leo_reward,
    step_metrics,
)

LEO = default_weights("leo")


def _step(**kw: float) -> StepMetrics:
    base = dict(
        goodput_bps=40e6,
        delay_s=0.030,
        min_delay_s=0.030,
        loss_rate=0.0,
        capacity_bps=50e6,
        step_s=0.1,
        queue_delay_s=0.0,
        propagation_rtt_s=0.030,
    )
    base.update(kw)
    return StepMetrics(**base)


def test_a_handover_to_a_longer_path_costs_nothing_without_a_queue() -> None:
    # Before: a 30 ms path. After a handover: a 60 ms path, same goodput, no queue. Aurora
    # (floor = the episode's smallest RTT, 30 ms) charges the 30 ms of new geometry as queueing.
    before = _step()
    after = _step(delay_s=0.060, propagation_rtt_s=0.060)
    assert leo_reward(after, LEO) == leo_reward(before, LEO)
    aurora = RewardWeights()
    assert aurora_reward(after, aurora) == pytest.approx(
        aurora_reward(before, aurora) - 0.01 * 1000 * 0.030
    )


def test_queueing_costs_in_units_of_the_path_rtt_and_throughput_in_capacity() -> None:
    # Same utilisation and RTT inflation on a 20 and a 200 Mbit/s path, 30 and 600 ms: same
    # reward (scale-free); a queue as long as the propagation RTT costs delay weight x 1.
    small = _step(goodput_bps=16e6, capacity_bps=20e6, queue_delay_s=0.015)
    large = _step(
        goodput_bps=160e6, capacity_bps=200e6, queue_delay_s=0.300, propagation_rtt_s=0.600
    )
    assert leo_reward(small, LEO) == pytest.approx(leo_reward(large, LEO))
    assert leo_reward(small, LEO) == pytest.approx(0.8 - 0.5 * 0.5)
    full_queue = _step(queue_delay_s=0.030)
    assert leo_reward(_step(), LEO) - leo_reward(full_queue, LEO) == pytest.approx(LEO.delay)
    # An outage on every path (capacity 0) gives no throughput term and no division by zero.
    assert leo_reward(_step(goodput_bps=0.0, capacity_bps=0.0), LEO) == 0.0


def test_the_fair_share_term_is_sages_bell() -> None:
    w = dataclasses.replace(LEO, fair=1.0)
    fair = _step(goodput_bps=10e6, fair_share_bps=10e6)
    half = _step(goodput_bps=5e6, fair_share_bps=10e6)
    drop = leo_reward(fair, w) - leo_reward(half, w)
    # Utilisation falls by 5/50 and the bell by 1 - exp(-8 * 0.25) = 0.8647.
    assert drop == pytest.approx(0.1 + (1 - math.exp(-2.0)))
    # Alone (fair_share_bps 0) or with the weight at its default 0, no fair-share term.
    assert leo_reward(_step(goodput_bps=5e6), w) == leo_reward(_step(goodput_bps=5e6), LEO)
    assert leo_reward(half, LEO) == leo_reward(_step(goodput_bps=5e6), LEO)


def test_step_metrics_weigh_propagation_and_share_the_capacity() -> None:
    m, _ = step_metrics(
        0.0,
        0.1,
        goodput_bytes=500_000,
        delivered_bytes=[300_000, 100_000],
        srtt_s=[0.04, 0.08],
        min_rtt_s=[0.03, 0.07],
        sent_packets=[300, 100],
        lost_packets=[0, 0],
        capacity_bps=60e6,
        min_rtt_so_far=np.inf,
        rate_scale=1.0,
        queue_delay_s=[0.01, 0.01],
        propagation_rtt_s=[0.03, 0.07],
        sharing_flows=3,
    )
    assert m.propagation_rtt_s == pytest.approx(0.75 * 0.03 + 0.25 * 0.07)
    assert m.fair_share_bps == pytest.approx(20e6)


def test_leo_is_the_default_and_weights_fall_back_per_reward() -> None:
    assert RewardConfig().name == "leo"
    assert RewardConfig().weights() == LEO
    assert RewardConfig(name="aurora").weights() == RewardWeights()
    assert RewardConfig(delay=2.0).weights() == dataclasses.replace(LEO, delay=2.0)
    assert RewardConfig(name="aurora", scale=1.0).weights().delay == 1000.0


@pytest.mark.native
def test_the_env_reports_the_leo_reward_of_its_own_metrics() -> None:
    env = gym.make("leogym/LeoCC-v0", cc="cubic", episode_s=3.0)
    env.reset(seed=2)
    rewards = []
    for _ in range(30):
        _, r, _, _, info = env.step(np.zeros(4, np.float32))
        rewards.append(r)
    env.close()
    # CUBIC fills the path: utilisation near one, reward in (0, 2] less the queue it builds.
    assert 0.3 < np.mean(rewards[10:]) < 2.0
    assert info["capacity_bps"] > 0


def test_ratio_features_are_scale_free() -> None:
    # Ten times the rate and twenty times the RTT with the same utilisation of the pipe: the
    # same ratios (delivered/sent, RTT inflation, window over the measured BDP).
    from leogym.envs.config import ObservationConfig
    from leogym.envs.features import FeatureTable, PathInputs, PathMeasurements

    table = FeatureTable(
        ObservationConfig(
            max_paths=1, ratio_features=True, handover_features=False, snr_features=False
        )
    )
    keys = [f.key for f in table.per_path]

    def ratios(rate_bps: float, rtt_s: float) -> np.ndarray:
        bdp = rate_bps * rtt_s / 8.0
        m = dataclasses.replace(
            PathMeasurements.zero(1),
            cwnd_bytes=np.array([1.5 * bdp]),
            srtt_s=np.array([1.2 * rtt_s]),
            min_rtt_s=np.array([rtt_s]),
            delivery_rate_bps=np.array([rate_bps]),
            delivered_bytes=np.array([0.9 * rate_bps * 0.1 / 8.0]),
            sent_packets=np.array([rate_bps * 0.1 / 8.0 / 1500.0]),
        )
        frame = table.frame(PathInputs(m, None, 0.0, packet_bytes=1500, rate_scale=1.0))
        names = ("delivered_over_sent", "rtt_inflation", "cwnd_over_bdp")
        return np.array([frame[keys.index(k)] for k in names])

    np.testing.assert_allclose(ratios(20e6, 0.03), [0.9, 1.2, 1.5], rtol=1e-6)
    np.testing.assert_allclose(ratios(200e6, 0.6), ratios(20e6, 0.03), rtol=1e-6)
