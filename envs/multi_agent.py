"""Every flow an agent: :class:`LeoMultiAgentCCEnv`, a PettingZoo ``ParallelEnv``.

N flows share a bottleneck; each is an agent that sets its own windows every step, with
LeoCC-v0's observation and action spaces, and a reward with optional fairness terms. Train it
with SB3 through parameter sharing (one policy for all agents) with
:class:`leogym.agents.sb3.multi_agent_vec.MultiAgentVecEnv`; see docs/multi_agent.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv  # type: ignore[import-untyped]

from leogym import schema
from leogym.envs.actions import cc_action_space, check_action
from leogym.envs.config import EnvConfig
from leogym.envs.controls import apply_controls, control_action, current_controls
from leogym.envs.episode import Episode, EpisodeSampler
from leogym.envs.features import FeatureTable
from leogym.envs.multi_flow import set_flow_controls, set_flow_count
from leogym.envs.observer import FlowObserver
from leogym.envs.rewards import StepMetrics, get_reward
from leogym.scenario import load_scenario
from leogym.scenario.config import ScenarioConfig
from leogym.scenario.flows import connection_path_count, expanded_flows, flow_names
from leogym.schema import bounded
from leogym.simulation import Measurements, Simulation, jain_index

__all__ = ["FairnessConfig", "LeoMultiAgentCCEnv", "fairness_rewards"]


@dataclass
class FairnessConfig:
    """The fairness terms of the multi-agent reward (all 0: each agent's own reward alone).

    Agent ``i``'s reward in a step is::

        r_i = (1 - team) * base_i + team * mean_j(base_j)
              + jain * J - share * |N * s_i - 1|

    where ``base_i`` is the env's reward (``reward``, e.g. ``leo``) over flow ``i``'s own
    measurements, ``J`` is Jain's index of the agents' goodputs in the step (1 for an equal
    split, ``1/N`` when one flow takes everything), and ``s_i`` is flow ``i``'s share of the
    agents' goodput in the step (``|N s_i - 1|`` is 0 at the fair share). Both fairness terms
    are 0 in a step in which no agent delivered anything.

    :param jain: weight of Jain's index (added to every agent's reward).
    :param share: weight of the distance from the fair share (subtracted).
    :param team: how much of each agent's own reward is replaced by the agents' mean, in [0, 1].
    """

    jain: float = field(default=0.0, metadata=bounded(-1e6, 1e6))
    share: float = field(default=0.0, metadata=bounded(-1e6, 1e6))
    team: float = field(default=0.0, metadata=bounded(0.0, 1.0))


def fairness_rewards(base: np.ndarray, goodput: np.ndarray, cfg: FairnessConfig) -> np.ndarray:
    """The agents' rewards from their own rewards ``base`` and their goodputs in the step
    (:class:`FairnessConfig` gives the formula)."""
    base = np.asarray(base, dtype=np.float64)
    r = (1.0 - cfg.team) * base + cfg.team * float(base.mean())
    g = np.asarray(goodput, dtype=np.float64)
    total = float(g.sum())
    if total > 0:
        j = jain_index(g)
        r = r + cfg.jain * j - cfg.share * np.abs(len(g) * g / total - 1.0)
    return r


# PettingZoo ships no type information (no py.typed): ParallelEnv is Any to mypy.
class LeoMultiAgentCCEnv(ParallelEnv[str, np.ndarray, np.ndarray]):  # type: ignore[misc]
    """Multi-agent congestion control: every flow on a shared bottleneck is an agent.

    ## Description
    The connection under study (flow 0) and every ``mpquic`` flow of the scenario's
    ``traffic.flows`` are agents (their ``cc`` becomes ``external``); ``tcp`` and
    ``udp_onoff`` flows stay native background. Each step (``step_ms``), every agent rescales
    its own flow's windows. Agents are named after their flows (``connection``, ``peer.0``,
    ...). The default scenario, ``bottleneck4``, puts N = 4 flows (``n_flows``) on one
    20 Mbit/s satellite access link (40 ms RTT).

    ## Action Space
    Per agent, LeoCC-v0's: ``Box(-1, 1, (max_paths,), float32)`` or
    ``MultiDiscrete([5] * max_paths)``, over the flow's subflows (``cc_target`` ``cwnd`` or
    ``pacing``).

    ## Observation Space
    Per agent, LeoCC-v0's, over its own flow's subflows (``feature_names``).

    ## Rewards
    ``reward`` (default ``leo``) over each flow's own measurements, combined with the
    fairness terms of :class:`FairnessConfig` (``fairness={"jain": ..., "share": ...,
    "team": ...}``).

    ## Starting State
    Empty connections; every flow starts at its ``start_s``.

    ## Episode End
    Every agent is truncated after ``episode_s`` (all at once), or terminated when the
    connection's file (a ``file`` workload) completes; ``agents`` is then empty.

    ## Arguments
    LeoCC-v0's env options (``step_ms``, ``episode_s``, ``action_mode``, ``action_scale``,
    ``cc_target``, ``observation``, ``reward``, ``transport``, ``scheduler``,
    ``sample_scenarios``; ``cc`` is ``external``), plus ``scenario`` (default
    ``bottleneck4``), ``n_flows`` (``None``: the scenario's flows; else the connection and
    ``n_flows - 1`` copies of the scenario's one ``mpquic`` entry) and ``fairness``.
    ``infos[agent]`` holds the flow's goodput, delay and loss of the step, its share of the
    agents' goodput (``share``; ``None`` when none delivered) and Jain's index over the
    agents (``jain``; ``None`` likewise).

    ## Vectorized environment
    One ns-3 simulator per process. :class:`~leogym.agents.sb3.multi_agent_vec.MultiAgentVecEnv`
    presents the agents to SB3 as one ``VecEnv`` (one slot per agent).

    ## Version History
    * v0: initial release.
    """

    metadata: dict[str, Any] = {"name": "leogym_multi_agent_cc_v0", "render_modes": []}

    #: Draws each episode's scenario when set, as :attr:`LeoEnv.episode_sampler
    #: <leogym.envs.leo_env.LeoEnv.episode_sampler>`.
    episode_sampler: EpisodeSampler | None = None

    def __init__(
        self,
        *,
        scenario: Any = "bottleneck4",
        n_flows: int | None = None,
        fairness: FairnessConfig | dict[str, float] | None = None,
        render_mode: str | None = None,
        **kwargs: Any,
    ) -> None:
        if render_mode is not None:
            raise ValueError(f"render_mode: this env renders nothing (got {render_mode!r})")
        self.render_mode = render_mode
        if kwargs.get("cc", "external") != "external":
            raise ValueError(
                f"cc: every flow is an agent here, so cc is 'external' (got {kwargs['cc']!r})"
            )
        kwargs["cc"] = "external"
        reward = kwargs.pop("reward", "leo")
        self.config = EnvConfig.from_kwargs(scenario=None, reward=reward, **kwargs)
        self.fairness: FairnessConfig = schema.check(
            schema.build(FairnessConfig, fairness, "fairness"), "fairness"
        )
        self._reward_fn = get_reward(self.config.reward.name)
        self._weights = self.config.reward.weights()

        sc: ScenarioConfig = load_scenario(scenario)
        if n_flows is not None:
            sc = set_flow_count(sc, n_flows)
        named = expanded_flows(sc)
        # Each agent sets its flow's windows, or the gains on residual_base's in the residual
        # mode (core_settings().cc is then residual+<base>).
        cc = self.config.core_settings().cc
        controls = [cc for _, fc in named if fc.transport == "mpquic"]
        if controls:
            sc = set_flow_controls(sc, controls, field="scenario.traffic.flows")
        # Every flow is driven here; the scenario is extended to the episode (as in LeoCC-v0).
        sc = self.config.fit_scenario(sc, flows_driven=True)
        self.scenario = sc
        self.config.scenario = sc
        names = flow_names(sc)
        #: The agents' flow indices (0 the connection, then the mpquic flows).
        self.agent_flows: dict[str, int] = {names[0]: 0}
        for j, (name, fc) in enumerate(expanded_flows(sc)):
            if fc.transport == "mpquic":
                self.agent_flows[name] = j + 1
        self.possible_agents: list[str] = list(self.agent_flows)
        self.agents: list[str] = []
        self.n_paths = connection_path_count(sc)
        max_paths = self.config.observation.max_paths
        for name, fc in named:
            if fc.transport == "mpquic" and len(fc.routes) > max_paths:
                raise ValueError(
                    f"observation.max_paths: flow {name!r} has {len(fc.routes)} subflows, "
                    f"more than max_paths={max_paths}"
                )
        if self.n_paths > max_paths:
            raise ValueError(
                f"observation.max_paths: the connection has {self.n_paths} paths, more than "
                f"max_paths={max_paths}"
            )
        self.features = FeatureTable(self.config.observation)
        self._observation_space = spaces.Box(
            low=self.features.low, high=self.features.high, dtype=np.float32
        )
        self._action_space = cc_action_space(
            self.config.action_mode, max_paths, self.config.residual_alternate is not None
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._action_space)
        self.step_s = self.config.step_ms / 1000.0
        self.max_steps = int(round(self.config.episode_s / self.step_s))
        self._packet_bytes = int(sc.traffic.packet_bytes)
        self._np_random: np.random.Generator | None = None
        self._episode: Episode | None = None
        self._sim: Simulation | None = None
        self._observers: dict[str, FlowObserver] = {}
        self._last: Measurements | None = None
        self._steps = 0
        self._rate_scale = 1.0

    # ------------------------------------------------------------------ PettingZoo API
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        """LeoCC-v0's observation space (the same object for every agent)."""
        return self._observation_space

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        """LeoCC-v0's action space (the same object for every agent)."""
        return self._action_space

    @property
    def feature_names(self) -> list[str]:
        """Name and unit of every observation entry, in order (as LeoCC-v0's)."""
        return self.features.names

    @property
    def simulation(self) -> Simulation | None:
        """The episode's native simulation (``None`` before :meth:`reset`)."""
        return self._sim

    @property
    def last_measurements(self) -> Measurements | None:
        """What the core measured in the last step (``None`` right after reset)."""
        return self._last

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, dict[str, Any]]]:
        """Start an episode; ``seed`` seeds the env's generator (the first reset without one
        draws a random seed), from which each episode's seed is drawn."""
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        self._close_sim()
        episode = Episode.draw(
            self.config,
            self.scenario,
            self._np_random,
            self.features,
            flows=self.agent_flows.values(),
            sampler=self.episode_sampler,
        )
        self._episode = episode
        self.episode_scenario = episode.scenario
        self.timeline = episode.timeline
        self._rate_scale = episode.rate_scale
        self._observers = {a: episode.observers[f] for a, f in self.agent_flows.items()}
        self._sim = episode.sim
        self._steps = 0
        self._last = None
        self.agents = list(self.possible_agents)
        obs = {agent: o.reset() for agent, o in self._observers.items()}
        infos = {
            agent: {"episode_seed": episode.seed, "flow": f}
            for agent, f in self.agent_flows.items()
        }
        return obs, infos

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, np.ndarray],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Apply every live agent's action and run one step."""
        if self._sim is None or self._sim.closed:
            if self._sim is not None and self._sim.taken_over:
                raise RuntimeError(
                    "another leogym env in this process has reset since this one did, and ns-3 "
                    "runs one simulator per process: reset this env again"
                )
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise RuntimeError("the episode is over: call reset()")
        if not isinstance(actions, dict):
            raise ValueError(
                f"actions: must be a dict of agent -> action (got {type(actions).__name__})"
            )
        unknown = sorted(set(actions) - set(self.agents), key=str)
        if unknown:
            raise ValueError(
                f"actions: unknown or finished agent(s) {unknown} (agents: {self.agents})"
            )
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise ValueError(f"actions: no action for agent(s) {missing}")
        assert self._episode is not None
        following = self._episode.following
        values: dict[int, np.ndarray] = {}
        for agent in self.agents:
            try:
                checked = check_action(self._action_space, actions[agent])
            except ValueError as exc:
                raise ValueError(f"actions[{agent!r}]: {exc}") from None
            f = self.agent_flows[agent]
            o = self._observers[agent]
            current = current_controls(self.config, self._last, f, o.n_paths)
            values[f] = control_action(
                self.config, checked, current, self._packet_bytes, following.get(f)
            )
        apply_controls(self._sim, self.config, values, following)
        t0 = self._sim.now
        m = self._sim.step(self.step_s)
        t1 = self._sim.now
        self._steps += 1
        self._last = m
        agents = list(self.agents)
        obs = {a: self._observers[a].update(m, self._np_random) for a in agents}
        metrics = [self._observers[a].metrics(m, t0, t1) for a in agents]
        base = np.array([self._reward_fn(x, self._weights) for x in metrics], dtype=np.float64)
        goodput = np.array([x.goodput_bps for x in metrics], dtype=np.float64)
        reward = fairness_rewards(base, goodput, self.fairness)
        if not np.isfinite(reward).all():
            raise FloatingPointError(
                f"reward is not finite ({reward.tolist()}); metrics: {metrics}"
            )
        terminated = bool(m.completed)
        truncated = (not terminated) and self._steps >= self.max_steps
        total = float(goodput.sum())
        jain = jain_index(goodput) if total > 0 else math.nan
        infos = {
            a: self._info(metrics[i], goodput[i] / total if total > 0 else math.nan, jain, m, t1)
            for i, a in enumerate(agents)
        }
        rewards = {a: float(reward[i]) for i, a in enumerate(agents)}
        terms = dict.fromkeys(agents, terminated)
        truncs = dict.fromkeys(agents, truncated)
        if terminated or truncated:
            self.agents = []
        return obs, rewards, terms, truncs, infos

    def render(self) -> None:
        """Nothing to render."""
        return None

    def close(self) -> None:
        """Close the simulation (idempotent)."""
        self._close_sim()

    def state(self) -> np.ndarray:
        """The agents' observations side by side (for centralised critics)."""
        return np.concatenate([self._observers[a].observation() for a in self.possible_agents])

    # ------------------------------------------------------------------ internals
    def _close_sim(self) -> None:
        episode, self._episode, self._sim = self._episode, None, None
        if episode is not None:
            episode.close()

    def _info(
        self, x: StepMetrics, share: float, jain: float, m: Measurements, t: float
    ) -> dict[str, Any]:
        return {
            "sim_time_s": t,
            "goodput_bps": x.goodput_bps,
            "delay_s": x.delay_s,
            "loss_rate": x.loss_rate,
            "capacity_bps": x.capacity_bps,
            "share": float(share) if math.isfinite(share) else None,
            "jain": float(jain) if math.isfinite(jain) else None,
        }
