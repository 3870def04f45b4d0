"""Action mapping and reward functions, checked against Aurora's published definitions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from gymnasium import spaces

from leogym.envs.actions import InvalidActionError, check_action, multiplicative_factor
from leogym.envs.rewards import RewardWeights, StepMetrics, aurora_reward, get_reward


def test_aurora_mapping_is_symmetric_and_matches_paper() -> None:
    # Jay et al. (ICML 2019) §4: x(1 + αa) for a >= 0, x / (1 − αa) for a < 0.
    a = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])
    f = multiplicative_factor(a, 0.5)
    np.testing.assert_allclose(f, [1 / 1.5, 1 / 1.25, 1.0, 1.25, 1.5])
    # +a then -a returns to the start.
    np.testing.assert_allclose(multiplicative_factor(a, 0.5) * multiplicative_factor(-a, 0.5), 1.0)


def test_aurora_reward_uses_paper_weights() -> None:
    # Aurora's linear utility 10·thr − 1000·lat − 2000·loss with throughput in Mbit/s and the
    # latency term on queueing delay: 20 Mbit/s, 30 ms above the floor, 1 % loss.
    m = StepMetrics(
        goodput_bps=20e6,
        delay_s=0.080,
        min_delay_s=0.050,
        loss_rate=0.01,
        capacity_bps=25e6,
        step_s=0.1,
    )
    expected = 0.01 * (10 * 20 - 1000 * 0.030 - 2000 * 0.01)
    assert aurora_reward(m, RewardWeights()) == pytest.approx(expected)
    assert get_reward("aurora") is aurora_reward


def test_unknown_reward_and_bad_weights_are_named() -> None:
    with pytest.raises(ValueError, match="reward.name"):
        get_reward("nope")
    with pytest.raises(ValueError, match="reward.delay"):
        RewardWeights(delay=math.nan)


@pytest.mark.parametrize(
    "action, match",
    [
        (np.array([np.nan, 0.0], dtype=np.float32), "NaN"),
        (np.array([np.inf, 0.0], dtype=np.float32), "NaN or infinity"),
        (np.array([0.0, 0.0, 0.0], dtype=np.float32), "shape"),
        (np.array([3.0, 0.0], dtype=np.float32), "outside"),
        ("fast", "numeric"),
    ],
)
def test_box_actions_are_rejected_clearly(action: object, match: str) -> None:
    space = spaces.Box(-1, 1, (2,), np.float32)
    with pytest.raises(InvalidActionError, match=match):
        check_action(space, action)


def test_discrete_actions() -> None:
    assert check_action(spaces.Discrete(3), 2) == 2
    with pytest.raises(InvalidActionError):
        check_action(spaces.Discrete(3), 3)
    with pytest.raises(InvalidActionError):
        check_action(spaces.MultiDiscrete([5, 5]), np.array([1.5, 2.0]))
    np.testing.assert_array_equal(check_action(spaces.MultiDiscrete([5, 5]), [4, 0]), [4, 0])
