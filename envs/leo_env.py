"""The shared machinery of leogym's envs: episode lifecycle, native stepping, observations,
rewards and info. Concrete envs (:mod:`~leogym.envs.cc_env`, :mod:`~leogym.envs.scheduler_env`,
:mod:`~leogym.envs.joint_env`) only define their action spaces and how actions are applied.

The native ns-3 simulation is opened in :meth:`LeoEnv.reset` through
:class:`leogym.simulation.Simulation` (the one road into the core, shared with the paper
reproductions), never in ``__init__``, so envs can be constructed in a parent process (for space
inspection) and stepped in worker processes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from leogym.envs.actions import check_action
from leogym.envs.config import EnvConfig
from leogym.envs.features import FeatureTable, path_frame
from leogym.envs.rewards import StepMetrics, get_reward, step_metrics

from leogym.scenario import ScenarioConfig
from leogym.scenario.flows import connection_path_count
from leogym.scenario.forecast import HandoverOracle
from leogym.simulation import Measurements, Simulation

__all__ = ["LeoEnv"]

_MAX_SEED = 2**31 - 2


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
    #: curriculum (:mod:`leogym.agents.curriculum`) mixes its configurations in this way.
    episode_sampler: Callable[[ScenarioConfig, np.random.Generator], ScenarioConfig] | None = None

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
        self.action_space = self._make_action_space()
        self._sim: Simulation | None = None
        self._oracle: HandoverOracle | None = None
        self._frames: deque[np.ndarray] = deque(maxlen=self.config.observation.history)
        self._steps = 0
        self._packet_bytes = int(self.scenario.traffic.packet_bytes)
        self._rate_scale = 1.0

    # ------------------------------------------------------------------ subclass hooks
    def _make_action_space(self) -> spaces.Space:
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
        from leogym.scenario import build_timeline, sample_scenario

        episode_seed = int(self.np_random.integers(1, _MAX_SEED))
        scenario = self.scenario
        if self.episode_sampler is not None:
            scenario = self.episode_sampler(scenario, self.np_random)
        elif self.config.sample_scenarios:
            scenario = sample_scenario(scenario, self.np_random)
        self.episode_scenario = scenario
        self.timeline = build_timeline(scenario, seed=episode_seed)
        # rate_scale k: the simulation runs at 1/k of the rates; throughput figures are
        # scaled back up by k (docs/benchmarks.md, "Fidelity knobs").
        self._rate_scale = float(self.timeline.rate_scale)
        self._oracle = self.timeline.oracle(self.config.observation.handover_forecast)
        # ns-3 runs one simulator per process: opening this one closes any other env's (that
        # env's step() then says so). Vectorised envs live in separate processes.
        self._sim = Simulation.open(
            self.config.core_settings(), scenario, episode_seed, timeline=self.timeline
        )
        self._steps = 0
        self._min_rtt = np.inf
        self._last: Measurements | None = None
        self._reset_controls()
        frame = self._frame(self._zero_measurements(), 0.0)
        self._frames.clear()
        blank = np.zeros_like(frame)
        for _ in range(self.config.observation.history - 1):
            self._frames.append(blank)
        self._frames.append(frame)
        return self._observation(), {"sim_time_s": 0.0, "episode_seed": episode_seed}

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
        t0 = float(self._sim.now)
        m = self._sim.step(self.step_s)
        t1 = float(self._sim.now)
        self._steps += 1
        self._last = m
        self._frames.append(self._frame(m, t1))
        metrics = self._step_metrics(m, t0, t1)
        reward = float(self._reward_fn(metrics, self._weights))
        if not np.isfinite(reward):
            raise FloatingPointError(f"reward is not finite ({reward}); metrics: {metrics}")
        terminated = m.completed
        truncated = (not terminated) and self._steps >= self.max_steps
        info = self._info(m, metrics, t0, t1)
        return self._observation(), reward, terminated, truncated, info

    def render(self) -> np.ndarray | None:
        """With ``render_mode="rgb_array"``: a per-path dashboard (see :mod:`.render`)."""
        if self.render_mode != "rgb_array":
            return None
        from leogym.envs.render import render_paths

        if self._oracle is None:
            return render_paths(np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, bool))
        t = float(self._sim.now) if self._sim is not None else 0.0
        last = self._last or self._zero_measurements()
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
    def _close_sim(self) -> None:
        sim, self._sim = self._sim, None
        if sim is not None:
            sim.close()

    @property
    def simulation(self) -> Simulation | None:
        """The episode's native simulation (``None`` before :meth:`reset` and after
        :meth:`close`)."""
        return self._sim

    @property
    def last_measurements(self) -> Measurements | None:
        """What the native core measured in the last step (``None`` right after reset)."""
        return self._last

    def _zero_measurements(self) -> _ZeroMeasurements:
        return _ZeroMeasurements(self.n_paths)

    def _frame(self, m: Measurements | _ZeroMeasurements, t: float) -> np.ndarray:
        # The hot path of every step (features.path_frame: no intermediate objects).
        assert self._oracle is not None
        return path_frame(
            self.features,
            self._oracle,
            t,
            packet_bytes=self._packet_bytes,
            rate_scale=self._rate_scale,
            cwnd=m.cwnd_bytes,
            inflight=m.bytes_in_flight,
            srtt=m.srtt_s,
            min_rtt=m.min_rtt_s,
            rttvar=m.rttvar_s,
            delivery_rate=m.delivery_rate_bps,
            sent=m.sent_packets,
            lost=m.lost_packets,
            rto=m.rto_count,
            loss_state=m.in_loss_state,
            to_rto=m.time_to_rto_s,
            state=m.path_state,
            rng=self.np_random,
            ce=m.ce_packets,
            queue_delay=m.queue_delay_s,
        )

    def _observation(self) -> np.ndarray:
        return np.concatenate(list(self._frames)).astype(np.float32)

    def _step_metrics(self, m: Measurements, t0: float, t1: float) -> StepMetrics:
        assert self._oracle is not None
        mid = 0.5 * (t0 + t1)
        capacity = float(self._oracle.capacity(mid).sum()) * self._rate_scale
        metrics, self._min_rtt = step_metrics(
            t0,
            t1,
            goodput_bytes=m.goodput_bytes,
            delivered_bytes=m.delivered_bytes,
            srtt_s=m.srtt_s,
            min_rtt_s=m.min_rtt_s,
            sent_packets=m.sent_packets,
            lost_packets=m.lost_packets,
            capacity_bps=capacity,
            min_rtt_so_far=self._min_rtt,
            rate_scale=self._rate_scale,
            queue_delay_s=m.queue_delay_s,
            ce_packets=m.ce_packets,
            propagation_rtt_s=self._oracle.propagation_rtt(mid),
            sharing_flows=sharing_flows(m),
        )
        return metrics

    def _info(self, m: Measurements, metrics: StepMetrics, t0: float, t1: float) -> dict[str, Any]:
        assert self._oracle is not None
        handovers = self._oracle.handovers_between(t0, t1)
        return {
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
            "flow_packets": np.asarray(m.flow_packets, dtype=np.float64).copy(),
            "flow_owd_mean_s": np.asarray(m.flow_owd_mean_s, dtype=np.float64).copy(),
            "flow_queue_delay_s": np.asarray(m.flow_queue_delay_s, dtype=np.float64).copy(),
            "reorder_buffer_bytes": float(m.reorder_buffer_bytes),
            "hol_delay_s": m.hol_delay_s,
            "completion_time_s": _finite_or_none(m.completion_time_s),
        }


def sharing_flows(m: Measurements) -> int:
    """How many flows delivered data in step ``m``, the connection counted always: the flows
    that share the capacity, for the fair-share term (an approximation on hop networks, where
    not every flow crosses every link of the connection)."""
    others = np.asarray(m.flow_goodput_bytes[1:], dtype=np.float64)
    return 1 + int(np.count_nonzero(others > 0))


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


class _ZeroMeasurements:
    """The measurements the first observation is built from (before any step): all zero."""

    def __init__(self, n_paths: int) -> None:
        z = np.zeros(n_paths)
        self.cwnd_bytes = self.bytes_in_flight = self.srtt_s = self.min_rtt_s = z
        self.rttvar_s = self.delivery_rate_bps = self.lost_packets = self.sent_packets = z
        self.path_state = z
        self.rto_count = self.in_loss_state = z
        self.ce_packets = self.queue_delay_s = z
        self.time_to_rto_s = np.full(n_paths, np.inf)
