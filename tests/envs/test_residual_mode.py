"""``action_mode="residual"``: hybrid control in LeoCC-v0, LeoMultiFlowCC-v0 and the
multi-agent env. The native ``residual_base`` runs as usual and the action ``a`` sets each path's
window to ``2^a`` times the controller's (Orca's hybrid control, Abbasloo et al., SIGCOMM 2020).
The contract a learner relies on: an all-zero action is the base controller's own run, bit for
bit, observations and rewards included, and with ``residual_alternate`` a choice held
throughout is the chosen controller's own run; bad settings name their field."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import leogym  # noqa: F401  (registers the ids)
from leogym.agents.runtime.rollout import PolicyRef
from leogym.agents.sb3.env_factory import EnvFactory
from leogym.schema import FieldError

pytestmark = pytest.mark.native

SHORT = {"episode_s": 4.0, "step_ms": 100.0}


def _rollout(env_id: str, actions: np.ndarray | None, **kw: object) -> list[tuple]:
    env = gym.make(env_id, **SHORT, **kw)
    obs, _ = env.reset(seed=5)
    out = [(obs, 0.0)]
    a = np.zeros(env.action_space.shape, np.float32) if actions is None else actions
    while True:
        obs, r, term, trunc, info = env.step(a)
        out.append((obs, r, info["cwnd_bytes"]))
        if term or trunc:
            break
    env.close()
    return out


@pytest.mark.parametrize(
    ("scenario", "base"), [("default", "cubic"), ("default", "bbr3"), ("maco", "maco")]
)
def test_a_zero_action_is_the_base_controller_bit_for_bit(scenario: str, base: str) -> None:
    plain = _rollout("leogym/LeoCC-v0", None, scenario=scenario, cc=base)
    residual = _rollout(
        "leogym/LeoCC-v0", None, scenario=scenario, action_mode="residual", residual_base=base
    )
    assert len(plain) == len(residual) == 41
    for step, (x, y) in enumerate(zip(plain, residual, strict=True)):
        for a, b in zip(x, y, strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=f"step {step}")


@pytest.mark.parametrize(("choice", "alone"), [(-1.0, "bbr3"), (1.0, "maco")])
def test_a_choice_held_throughout_is_that_controller_bit_for_bit(choice: float, alone: str) -> None:
    # residual_alternate: the action's second half chooses the controller per path (> 0: the
    # alternate); with zero gains, either choice held is that controller's own env run.
    kw = {"scenario": "default", "action_mode": "residual", "residual_base": "bbr3"}
    env = gym.make("leogym/LeoCC-v0", **SHORT, **kw, residual_alternate="maco")
    assert env.action_space.shape == (8,)
    env.close()
    action = np.concatenate([np.zeros(4), np.full(4, choice)]).astype(np.float32)
    pair = _rollout("leogym/LeoCC-v0", action, **kw, residual_alternate="maco")
    plain = _rollout("leogym/LeoCC-v0", None, scenario="default", cc=alone)
    for step, (x, y) in enumerate(zip(plain, pair, strict=True)):
        for a, b in zip(x, y, strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=f"step {step}")


def _rollout_actions(actions: list[np.ndarray], **kw: object) -> list[tuple]:
    env = gym.make("leogym/LeoCC-v0", **SHORT, **kw)
    obs, _ = env.reset(seed=5)
    out = [(obs, 0.0)]
    for a in actions:
        obs, r, _, _, info = env.step(a)
        out.append((obs, r, info["cwnd_bytes"], info.get("follows_alternate")))
    env.close()
    return out


def test_the_switch_margin_holds_a_choice_until_the_entry_crosses_it() -> None:
    # With residual_switch_margin=0.5 a path keeps its controller while its entry stays in
    # (-0.5, 0.5]: the run equals the one whose choices are spelled out as -1/+1 at every step.
    kw = {"scenario": "default", "action_mode": "residual", "residual_base": "bbr3"}
    entries = [0.3, 0.6, 0.4, -0.2, 0.0, -0.5, 0.45, 0.9, -0.7, 0.1] * 4
    held, state = [], -1.0  # every path starts on the base
    for e in entries:
        state = 1.0 if e > 0.5 else -1.0 if e <= -0.5 else state
        held.append(state)
    assert held.count(1.0) > 10 and held.count(-1.0) > 10  # both controllers are followed

    def actions(choices: list[float]) -> list[np.ndarray]:
        return [np.concatenate([np.zeros(4), np.full(4, c)]).astype(np.float32) for c in choices]

    margin = _rollout_actions(
        actions(entries), **kw, residual_alternate="maco", residual_switch_margin=0.5
    )
    # the env reports the choice applied in each step, per path (info["follows_alternate"])
    assert [float(x[3][0]) for x in margin[1:]] == [(c + 1) / 2 for c in held]
    spelled = _rollout_actions(actions(held), **kw, residual_alternate="maco")
    sign = _rollout_actions(actions(entries), **kw, residual_alternate="maco")
    for step, (x, y) in enumerate(zip(spelled, margin, strict=True)):
        for a, b in zip(x, y, strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=f"step {step}")
    # and without the margin the same entries switch at their sign: another run
    assert any(
        not np.array_equal(np.asarray(x[2]), np.asarray(y[2]))
        for x, y in zip(sign[1:], margin[1:], strict=True)
    )


def test_the_switch_margin_is_per_flow_in_the_multi_flow_envs() -> None:
    from leogym.envs.actions import residual_controls

    gains, follow = residual_controls(np.array([0.0, 0.0, 0.7, 0.2]), 2, True, 0.5)
    assert follow is not None and follow.tolist() == [1.0, 0.0]
    _, follow = residual_controls(np.array([0.0, 0.0, 0.2, -0.5]), 2, True, 0.5, follow)
    assert follow is not None and follow.tolist() == [1.0, 0.0]
    np.testing.assert_array_equal(gains, [1.0, 1.0])
    kw = {
        "action_mode": "residual",
        "residual_base": "cubic",
        "residual_alternate": "bbr3",
        "residual_switch_margin": 0.5,
    }

    class Entries:
        def __init__(self, values: list[float]) -> None:
            self.values = iter(values)

        def predict(self, obs, state=None, episode_start=None, deterministic=True):
            return np.concatenate([np.zeros(4), np.full(4, next(self.values))]).astype(
                np.float32
            ), state

    multi = gym.make(
        "leogym/LeoMultiFlowCC-v0",
        **kw,
        others=[Entries([0.9, 0.1, -0.1]), "cubic", "maco"],
        **SHORT,
    )
    multi.reset(seed=1)
    seen = []
    for e in (0.1, 0.6, 0.2):
        multi.step(np.concatenate([np.zeros(4), np.full(4, e)]).astype(np.float32))
        following = multi.unwrapped._episode.following
        seen.append((following[0][0], following[1][0]))
    multi.close()
    assert seen == [(0.0, 1.0), (1.0, 1.0), (1.0, 1.0)]


@pytest.mark.parametrize("alternate", [None, "maco"])
def test_the_joint_env_takes_the_cc_action_first(alternate: str | None) -> None:
    # LeoJoint-v0 in the residual mode: LeoCC-v0's action (gains, then choices), then the
    # scheduler's weights; with the scheduler left to minRTT it is LeoCC-v0, bit for bit.
    kw = {"scenario": "default", "action_mode": "residual", "residual_base": "bbr3"}
    kw["residual_alternate"] = alternate
    width = 8 if alternate else 4
    cc = np.zeros(width, np.float32)
    if alternate:
        cc[4:] = 1.0  # follow MACO
    joint_env = gym.make("leogym/LeoJoint-v0", **SHORT, **kw, scheduler="minrtt")
    assert joint_env.action_space.shape == (width + 4,)
    joint_env.close()
    joint = _rollout(
        "leogym/LeoJoint-v0", np.concatenate([cc, np.ones(4)]), **kw, scheduler="minrtt"
    )
    alone = _rollout("leogym/LeoCC-v0", cc, **kw)
    for step, (x, y) in enumerate(zip(alone, joint, strict=True)):
        for a, b in zip(x, y, strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=f"step {step}")


def test_the_multi_flow_envs_take_the_alternate() -> None:
    from leogym.envs.multi_agent import LeoMultiAgentCCEnv

    kw = {"action_mode": "residual", "residual_base": "cubic", "residual_alternate": "bbr3"}
    env = LeoMultiAgentCCEnv(n_flows=2, **kw, **SHORT)
    assert {f.cc for f in env.scenario.traffic.flows} == {"residual+cubic+bbr3"}
    obs, _ = env.reset(seed=0)
    assert all(env.action_space(a).shape == (8,) for a in env.agents)
    env.step({a: np.ones(8, np.float32) for a in env.agents})
    env.close()

    class FollowAlternate:
        def predict(self, obs, state=None, episode_start=None, deterministic=True):
            return np.concatenate([np.zeros(4), np.ones(4)]).astype(np.float32), state

    others = [FollowAlternate(), "cubic", "maco"]
    multi = gym.make("leogym/LeoMultiFlowCC-v0", **kw, others=others, **SHORT)
    flows = multi.unwrapped.scenario.traffic.flows
    assert [f.cc for f in flows] == ["residual+cubic+bbr3", "cubic", "maco"]
    multi.reset(seed=1)
    for _ in range(3):
        multi.step(np.zeros(8, np.float32))
    multi.close()


def test_a_gain_moves_the_window_against_the_base() -> None:
    # In slow start before any loss the window scales with the gain: 2^-1 < 1 < 2^1.
    runs = [
        _rollout(
            "leogym/LeoCC-v0",
            np.full(4, a, np.float32),
            scenario="default",
            action_mode="residual",
            residual_base="cubic",
        )
        for a in (-1.0, 0.0, 1.0)
    ]
    cwnd = [float(np.sum(run[2][2])) for run in runs]
    assert cwnd[0] < cwnd[1] < cwnd[2]


def test_the_multi_flow_env_drives_policies_through_the_same_base() -> None:
    class Zero:
        def predict(self, obs, state=None, episode_start=None, deterministic=True):
            return np.zeros(4, np.float32), state

    env = gym.make(
        "leogym/LeoMultiFlowCC-v0",
        action_mode="residual",
        residual_base="cubic",
        others=[Zero(), "cubic", "cubic"],
        **SHORT,
    )
    flows = env.unwrapped.scenario.traffic.flows
    assert [f.cc for f in flows] == ["residual+cubic", "cubic", "cubic"]
    env.reset(seed=1)
    for _ in range(5):
        env.step(np.zeros(4, np.float32))
    env.close()


def test_the_multi_agent_env_runs_residual_agents() -> None:
    from leogym.envs.multi_agent import LeoMultiAgentCCEnv

    env = LeoMultiAgentCCEnv(n_flows=2, action_mode="residual", **SHORT)
    assert {f.cc for f in env.scenario.traffic.flows} == {"residual+cubic"}
    obs, _ = env.reset(seed=0)
    _, rewards, *_ = env.step({a: np.zeros(4, np.float32) for a in env.agents})
    assert set(rewards) == set(obs)
    env.close()


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"action_mode": "residual", "cc": "cubic"}, "env.cc"),
        ({"action_mode": "residual", "residual_base": "external"}, "env.residual_base"),
        ({"action_mode": "residual", "residual_base": "freeze+cubic"}, "env.residual_base"),
        ({"action_mode": "residual", "residual_base": "nope"}, "env.residual_base"),
        ({"residual_alternate": "maco"}, "env.residual_alternate"),
        (
            {"action_mode": "residual", "residual_base": "maco", "residual_alternate": "maco"},
            "env.residual_alternate",
        ),
        ({"action_mode": "residual", "residual_alternate": "nope"}, "env.residual_alternate"),
        (
            {"action_mode": "residual", "residual_alternate": "freeze+cubic"},
            "env.residual_alternate",
        ),
        ({"action_mode": "residual", "residual_switch_margin": 0.3}, "env.residual_switch_margin"),
        (
            {"action_mode": "residual", "residual_alternate": "maco", "residual_switch_margin": 1},
            "env.residual_switch_margin",
        ),
        (
            {
                "action_mode": "residual",
                "residual_alternate": "maco",
                "residual_switch_margin": -0.1,
            },
            "env.residual_switch_margin",
        ),
    ],
)
def test_bad_residual_settings_name_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(FieldError, match=field.replace(".", r"\.")):
        gym.make("leogym/LeoCC-v0", **kwargs)


def test_baselines_evaluate_beside_hybrid_agents() -> None:
    # experiment=hybrid puts the agents in the residual mode; its baselines (native controllers
    # that take no actions) still get envs they can run in.
    from leogym.agents.config import validate_config
    from leogym.agents.evaluate import baseline_policy
    from leogym.agents.runtime.app import compose, to_objects

    c = to_objects(compose("evaluate", ["experiment=hybrid", "env.episode_s=0.5"]))
    validate_config(c, ("env", "eval"))
    assert c.env.action_mode == "residual" and len(c.baseline) >= 4
    for key, spec in c.baseline.items():
        _, factory = baseline_policy(key, spec, c)
        env = gym.make(factory.env_id, scenario="tiny", **factory.kwargs)
        env.reset(seed=0)
        env.step(env.action_space.sample())
        env.close()


def _gain_baseline(gain: float | None, name: str = "maco") -> tuple[PolicyRef, EnvFactory]:
    from leogym.agents.config import BaselineSpec
    from leogym.agents.evaluate import baseline_policy
    from leogym.agents.runtime.app import compose, to_objects

    c = to_objects(compose("evaluate", ["env.episode_s=4", "scenario=maco"]))
    return baseline_policy("b", BaselineSpec(name=name, gain=gain), c)


def _episode(ref: PolicyRef, factory: EnvFactory, seed: int = 5) -> dict:
    from leogym.agents.config import MetricsConfig
    from leogym.agents.runtime.rollout import EpisodeTask, run_task

    env = EnvFactory(factory.env_id, factory.kwargs, "maco")
    task = EpisodeTask("k", ref, env, "maco", seed, MetricsConfig())
    return {k: v for k, v in run_task(task).items() if k not in ("wall_s", "policy")}


def test_a_fixed_gain_baseline_is_the_residual_env_under_a_constant_action() -> None:
    # baseline.<key>.gain: the control a learned residual is measured against. Gain 0 is the
    # baseline itself; gain a is exactly what the residual env does under the action a.
    plain, gain0, low = (_gain_baseline(g) for g in (None, 0.0, -0.25))
    assert low[1].kwargs["residual_base"] == "maco" and low[1].kwargs["cc"] == "external"
    a, b = _episode(*plain), _episode(*gain0)
    assert (a.pop("cc"), b.pop("cc")) == ("maco", "residual+maco")
    assert a == b
    ours = _episode(*low)
    env = gym.make(low[1].env_id, scenario="maco", **low[1].kwargs)
    env.reset(seed=5)
    rewards, done = [], False
    while not done:
        _, r, term, trunc, _ = env.step(np.full(env.action_space.shape, -0.25, np.float32))
        rewards.append(float(r))
        done = term or trunc
    env.close()
    assert ours["return"] == pytest.approx(sum(rewards), rel=0, abs=1e-9)
    assert ours["goodput_mbps"] < a["goodput_mbps"]  # a smaller window on a MACO path


@pytest.mark.parametrize(
    ("name", "gain", "match"),
    [
        ("freeze+cubic", 0.1, "residual mode's base"),
        ("leotp_d", 0.1, "connection='leotp'"),
    ],
)
def test_a_gain_on_a_baseline_without_a_residual_base_names_the_field(
    name: str, gain: float, match: str
) -> None:
    with pytest.raises(FieldError, match=r"baseline\.b\.gain.*" + match):
        _gain_baseline(gain, name)


def test_a_gain_outside_the_action_bounds_names_the_field() -> None:
    from leogym.agents.config import validate_config
    from leogym.agents.runtime.app import compose, to_objects

    c = to_objects(compose("evaluate", ["baseline=[maco]", "+baseline.maco.gain=1.5"]))
    with pytest.raises(FieldError, match=r"baseline\.maco\.gain: must be in \[-1, 1\]"):
        validate_config(c, ("eval",))
