"""The shared machinery of leogym's envs: episode lifecycle, native stepping, observations,
rewards and info. Concrete envs (:mod:`~leogym.envs.cc_env`, :mod:`~leogym.envs.scheduler_env`,
:mod:`~leogym.envs.joint_env`) only define their action spaces and how actions are applied.

The native ns-3 simulation is opened in :meth:`LeoEnv.reset` through
:class:`leogym.simulation.Simulation` (the one road into the core, shared with the paper
reproductions), never in ``__init__``, so envs can be constructed in a parent process (for space
inspection) and stepped in worker processes.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from leogym.envs.actions import check_action
from leogym.envs.config import EnvConfig, EnvOptions
from leogym.envs.episode import Episode, EpisodeSampler
from leogym.envs.features import FeatureTable, PathMeasurements
from leogym.envs.observer import FlowObserver
from leogym.envs.rewards import StepMetrics, get_reward
from leogym.scenario.flows import connection_path_count
from leogym.scenario.forecast import HandoverOracle
from leogym.simulation import Measurements, Simulation
from leogym.simulation.fairness import scheduled_seconds

__all__ = ["LeoEnv"]


class LeoEnv(gym.Env[np.ndarray, np.ndarray]):
    """Base class; use :class:`LeoCCEnv`, :class:`LeoSchedulerEnv` or :class:`LeoJointEnv`."""

    metadata: dict[str, Any] = {"render_modes": ["rgb_array"], "render_fps": 10}
    #: Defaults that differ per env: which controls the agent owns.
    default_cc: ClassVar[str] = "external"
    default_scheduler: ClassVar[str] = "minrtt"
    #: Whether the env drives the scenario's ``external`` flows itself (LeoMultiFlowCC-v0,
    #: through its ``others`` policies, checks them on its own); the others refuse such flows.
    drives_flows: ClassVar[bool] = False
    #: Draws each episode's scenario in place of ``sample_scenario`` when set (a picklable
    #: ``(scenario, rng) -> scenario``; ``VecEnv.set_attr`` sets it in worker processes). The
    #: curriculum (:mod:`leogym.agents.curriculum`) mixes its configurations in this way; the
    #: kwarg ``episode_sampler`` sets it when the env is made (``train.mixture``,
    #: :mod:`leogym.agents.mixture`).
    episode_sampler: EpisodeSampler | None = None

    def __init__(self, render_mode: str | None = None, **kwargs: Any) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode: must be None or one of {self.metadata['render_modes']} "
                f"(got {render_mode!r})"
            )
        self.render_mode = render_mode
        kwargs.setdefault("cc", self.default_cc)
        kwargs.setdefault("scheduler", self.default_scheduler)
        scenario = kwargs.pop("scenario", "tiny")
        self.episode_sampler = kwargs.pop("episode_sampler", None)
        if self.episode_sampler is not None and not callable(self.episode_sampler):
            raise TypeError(
                "episode_sampler: must be None or a callable (scenario, rng) -> scenario "
                f"(got {type(self.episode_sampler).__name__})"
            )
        reward = kwargs.pop("reward", "leo")
        custom_reward = reward if callable(reward) and not isinstance(reward, str) else None
        if custom_reward is not None:
            reward = {}  # the default weights; the name, checked against REWARDS, is set below
        self.config = EnvConfig.from_kwargs(scenario=None, reward=reward, **kwargs)
        if custom_reward is not None:
            self.config.reward.name = getattr(custom_reward, "__name__", "custom")
        self._reward_fn = custom_reward or get_reward(self.config.reward.name)

        from leogym.scenario import load_scenario

        # Checks of the options against the scenario; the scenario extended to the episode.
        self.scenario = self.config.fit_scenario(
            load_scenario(scenario), flows_driven=self.drives_flows
        )
        self.config.scenario = self.scenario
        self._weights = self.config.reward.weights()
        self.n_paths = connection_path_count(self.scenario)
        self.step_s = self.config.step_ms / 1000.0
        self.max_steps = self.config.max_steps
        self.features = FeatureTable(self.config.observation)
        self.observation_space = spaces.Box(
            low=self.features.low, high=self.features.high, dtype=np.float32
        )
        self.action_space = self.action_space_for(self.config)
        self._episode: Episode | None = None
        self._sim: Simulation | None = None
        self._oracle: HandoverOracle | None = None
        self._observer: FlowObserver | None = None
        self._steps = 0
        self._packet_bytes = int(self.scenario.traffic.packet_bytes)
        self._rate_scale = 1.0

    # ------------------------------------------------------------------ subclass hooks
    @classmethod
    def action_space_for(cls, options: EnvOptions) -> spaces.Space:
        """The action space of an env of this class built with ``options`` (an env's
        ``config``, or an ``env`` section of the apps' config), without building one: what
        the training config is checked against before anything runs."""
        raise NotImplementedError

    def _apply_action(self, action: np.ndarray) -> None:
        raise NotImplementedError

    def _reset_controls(self) -> None:
        """Initialise the agent-owned controls at the start of an episode."""

    # ------------------------------------------------------------------ public API
    @property
    def feature_names(self) -> list[str]:
        """Name and unit of every observation entry, in order."""
        return self.features.names

    @property
    def agent_controls_cc(self) -> bool:
        """The agent sets the windows (or rates, or, with ``action_mode="residual"``, the gains
        on ``residual_base``'s): ``cc="external"`` on leogym's transport (a LEOTP connection,
        ``connection="leotp"``, takes no actions)."""
        return self.config.cc == "external" and self.config.connection == "mpquic"

    @property
    def agent_controls_scheduler(self) -> bool:
        """The agent schedules packets: ``scheduler="external"`` on leogym's transport."""
        return self.config.scheduler == "external" and self.config.connection == "mpquic"

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self._close_sim()
        episode = Episode.draw(
            self.config,
            self.scenario,
            self.np_random,
            self.features,
            flows=(0, *self._observed_flows()),
            sampler=self.episode_sampler,
        )
        self._episode = episode
        self.episode_scenario = episode.scenario
        # An episode sampler may draw a world with fewer paths (up to observation.max_paths).
        self.n_paths = connection_path_count(episode.scenario)
        self.timeline = episode.timeline
        self._rate_scale = episode.rate_scale
        self._observer = episode.observers[0]
        self._oracle = self._observer.oracle
        self._sim = episode.sim
        self._steps = 0
        self._last: Measurements | None = None
        self._reset_controls()
        obs = self._observer.reset(self.np_random)
        info: dict[str, Any] = {"sim_time_s": 0.0, "episode_seed": episode.seed}
        if episode.drawn:  # env.sample_scenarios: the conditions this episode drew
            info["scenario_draw"] = dict(episode.drawn)
        return obs, info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._sim is None or self._sim.closed:
            if self._sim is not None and self._sim.taken_over:
                raise RuntimeError(
                    "another leogym env in this process has reset since this one did, and ns-3 "
                    "runs one simulator per process: call reset() on this env again, or step "
                    "several envs in subprocesses (AsyncVectorEnv / SubprocVecEnv)"
                )
            raise RuntimeError("call reset() before step()")
        checked = check_action(self.action_space, action)
        self._apply_action(checked)
        assert self._episode is not None and self._observer is not None
        m, t0, t1 = self._episode.step(self.step_s)
        self._steps += 1
        self._last = m
        obs = self._observer.update(m, self.np_random)
        metrics = self._observer.metrics(m, t0, t1)
        reward = float(self._reward_fn(metrics, self._weights))
        if not np.isfinite(reward):
            raise FloatingPointError(f"reward is not finite ({reward}); metrics: {metrics}")
        terminated = m.completed
        truncated = (not terminated) and self._steps >= self.max_steps
        info = self._info(m, metrics, t0, t1)
        return obs, reward, terminated, truncated, info

    def render(self) -> np.ndarray | None:
        """With ``render_mode="rgb_array"``: a per-path dashboard (see :mod:`.render`)."""
        if self.render_mode != "rgb_array":
            return None
        from leogym.envs.render import render_paths

        if self._oracle is None:
            return render_paths(np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, bool))
        t = float(self._sim.now) if self._sim is not None else 0.0
        last = self._last or PathMeasurements.zero(self.n_paths)
        capacity = self._oracle.capacity(t)
        rate = np.asarray(last.delivery_rate_bps, dtype=np.float64)
        utilisation = np.divide(rate, capacity, out=np.zeros_like(rate), where=capacity > 0)
        return render_paths(
            utilisation,
            np.asarray(last.srtt_s, dtype=np.float64),
            self._oracle.time_to_handover(t),
            capacity == 0,
        )

    def close(self) -> None:
        self._close_sim()
        super().close()

    # ------------------------------------------------------------------ internals
    def _observed_flows(self) -> tuple[int, ...]:
        """Flows observed beside the connection (LeoMultiFlowCC-v0: its policies' flows)."""
        return ()

    def _close_sim(self) -> None:
        episode, self._episode, self._sim = self._episode, None, None
        if episode is not None:
            episode.close()

    @property
    def simulation(self) -> Simulation | None:
        """The episode's native simulation (``None`` before :meth:`reset` and after
        :meth:`close`)."""
        return self._sim

    @property
    def last_measurements(self) -> Measurements | None:
        """What the native core measured in the last step (``None`` right after reset)."""
        return self._last

    def _info(self, m: Measurements, metrics: StepMetrics, t0: float, t1: float) -> dict[str, Any]:
        assert self._oracle is not None and self._episode is not None
        handovers = self._oracle.handovers_between(t0, t1)
        info = {
            "sim_time_s": t1,
            "goodput_bps": metrics.goodput_bps,
            "delay_s": metrics.delay_s,
            "loss_rate": metrics.loss_rate,
            "capacity_bps": metrics.capacity_bps,
            # 0 = no RTT sample yet on that path (the core reports NaN there).
            "rtt_s": _nan_to_zero(m.srtt_s),
            "cwnd_bytes": np.asarray(m.cwnd_bytes, dtype=np.float64).copy(),
            "delivered_bytes": np.asarray(m.delivered_bytes, dtype=np.float64).copy(),
            "sent_packets": np.asarray(m.sent_packets, dtype=np.int64).copy(),
            "losses": {
                "outage": np.asarray(m.drops_outage, dtype=np.int64).copy(),
                "random": np.asarray(m.drops_random, dtype=np.int64).copy(),
                "overflow": np.asarray(m.drops_overflow, dtype=np.int64).copy(),
                "detected": np.asarray(m.lost_packets, dtype=np.int64).copy(),
            },
            "handover_paths": np.array([p for p, _ in handovers], dtype=np.int64),
            "handover_times_s": np.array([t for _, t in handovers], dtype=np.float64),
            "cross_traffic_rx_bytes": np.asarray(m.cross_traffic_rx_bytes, dtype=np.float64).copy(),
            # Per flow: 0 is this connection, then the scenario's traffic.flows.
            "flow_goodput_bytes": np.asarray(m.flow_goodput_bytes, dtype=np.float64).copy(),
            # Seconds of the step each flow, then each cross-traffic source, was scheduled.
            "flow_scheduled_s": scheduled_seconds(self._episode.flow_windows, t0, t1),
            "flow_packets": np.asarray(m.flow_packets, dtype=np.float64).copy(),
            "flow_owd_mean_s": np.asarray(m.flow_owd_mean_s, dtype=np.float64).copy(),
            "flow_queue_delay_s": np.asarray(m.flow_queue_delay_s, dtype=np.float64).copy(),
            "reorder_buffer_bytes": float(m.reorder_buffer_bytes),
            "hol_delay_s": m.hol_delay_s,
            "completion_time_s": _finite_or_none(m.completion_time_s),
        }
        following = self._episode.following.get(0)
        if following is not None:  # residual_alternate: the controller each path followed
            info["follows_alternate"] = following.copy()
        return info


def _nan_to_zero(x: np.ndarray) -> np.ndarray:
    """A float64 copy of ``x`` with NaN as 0 (``np.nan_to_num(x, nan=0.0)``, fast when finite)."""
    out = np.array(x, dtype=np.float64)
    if not np.isfinite(out).all():
        out = np.nan_to_num(out, nan=0.0)
    return out


def _finite_or_none(x: float) -> float | None:
    """NaN (not completed) becomes None, which compares equal to itself in env checkers."""
    x = float(x)
    return x if np.isfinite(x) else None
