"""Several flows on one bottleneck: per-flow observations, the flows' set-up, and
``leogym/LeoMultiFlowCC-v0``, in which the agent drives flow 0 among N.

Flow 0 is the connection under study; flows ``1..`` are the scenario's ``traffic.flows``
(:func:`leogym.scenario.flows.flow_names`). An ``mpquic`` flow whose ``cc`` is ``external``
takes its windows from Python (``Simulation.apply(flow_cwnd_bytes={flow: ...})``), and the
core reports each of its subflows like one of the connection's paths (``Measurements.subflow_*``).
:class:`~leogym.envs.observer.FlowObserver` turns those into the observation and the reward
metrics of LeoCC-v0, for any flow: the same features, units and bounds
(:mod:`leogym.envs.features`), the same handover oracle read on the flow's own routes
(:func:`~leogym.envs.episode.flow_timeline`). The multi-agent env
(:mod:`leogym.envs.multi_agent`) builds on the same pieces.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from leogym.envs.actions import check_action
from leogym.envs.cc_env import LeoCCEnv
from leogym.envs.config import external_flows
from leogym.envs.controls import apply_controls, control_action, current_controls
from leogym.envs.observer import FlowObserver
from leogym.native import cc_algorithms, core, is_cc_algorithm
from leogym.scenario import load_scenario
from leogym.scenario.config import MAX_FLOWS, FlowConfig, ScenarioConfig
from leogym.scenario.flows import expanded_flows
from leogym.schema import FieldError
from leogym.simulation import jain_index

__all__ = [
    "LeoMultiFlowCCEnv",
    "set_flow_count",
    "set_flow_controls",
]


# --------------------------------------------------------------------------- scenario set-up
def set_flow_count(
    scenario: ScenarioConfig, n_flows: int, field: str = "n_flows"
) -> ScenarioConfig:
    """The scenario with ``n_flows`` flows in all: the connection and ``n_flows - 1`` copies of
    its one ``mpquic`` entry of ``traffic.flows`` (its ``count``); other entries (tcp,
    udp_onoff background) stay as they are.

    :raises ValueError: naming ``field``: ``n_flows`` out of range, or a scenario without
        exactly one ``mpquic`` entry to repeat.
    """
    if isinstance(n_flows, bool) or not isinstance(n_flows, (int, np.integer)):
        raise ValueError(f"{field}: must be an int (got {n_flows!r})")
    if not 1 <= int(n_flows) <= MAX_FLOWS:
        raise ValueError(f"{field}: must be in [1, {MAX_FLOWS}] (got {n_flows})")
    flows = list(scenario.traffic.flows)
    mp = [i for i, fc in enumerate(flows) if fc.transport == "mpquic"]
    if len(mp) != 1:
        raise ValueError(
            f"{field}: needs a scenario whose traffic.flows has exactly one mpquic entry to "
            f"repeat (scenario {scenario.name!r} has {len(mp)})"
        )
    if n_flows == 1:
        del flows[mp[0]]
    else:
        flows[mp[0]] = dataclasses.replace(flows[mp[0]], count=int(n_flows) - 1)
    traffic = dataclasses.replace(scenario.traffic, flows=flows)
    return load_scenario(dataclasses.replace(scenario, traffic=traffic))


def set_flow_controls(
    scenario: ScenarioConfig, controls: Sequence[str], field: str = "others"
) -> ScenarioConfig:
    """The scenario with the congestion control of each of its ``mpquic`` flows (in flow
    order, ``count`` expanded) replaced by ``controls``: a leogym controller name
    (``_core.cc_algorithms()``: ``cubic``, ``bbr``, ... or ``external``, the agent's), or an
    ns-3 TCP congestion control (``_core.tcp_variants()``: ``TcpCubic``, ``TcpBbr``, ...),
    which turns the flow into an ns-3 TCP flow on its one route. Entries with ``count`` are
    expanded into one entry per flow (names kept); other flows stay as they are.

    :raises ValueError: naming ``field[i]``: an unknown name, a count that does not match, or
        a TCP control for a flow with several routes.
    """
    named = expanded_flows(scenario)
    mp = [j for j, (_, fc) in enumerate(named) if fc.transport == "mpquic"]
    if len(controls) != len(mp):
        raise ValueError(
            f"{field}: {len(controls)} entries for the {len(mp)} mpquic flows of scenario "
            f"{scenario.name!r}"
        )
    leogym_cc = set(cc_algorithms())
    tcp_cc = set(core().tcp_variants())
    flows: list[FlowConfig] = []
    which = dict(zip(mp, controls, strict=True))
    for j, (name, fc) in enumerate(named):
        fc = dataclasses.replace(fc, name=name, count=1)
        if j in which:
            k = mp.index(j)
            cc = which[j]
            if not isinstance(cc, str):
                raise ValueError(f"{field}[{k}]: must be a controller name (got {cc!r})")
            if is_cc_algorithm(cc):
                fc = dataclasses.replace(fc, cc=cc)
            elif cc.removeprefix("ns3::") in tcp_cc:
                if len(fc.routes) != 1:
                    raise ValueError(
                        f"{field}[{k}]: {cc!r} is an ns-3 TCP control, and flow {name!r} has "
                        f"{len(fc.routes)} routes (TCP takes one)"
                    )
                fc = dataclasses.replace(fc, transport="tcp", cc=cc)
            else:
                raise ValueError(
                    f"{field}[{k}]: unknown congestion control {cc!r}; leogym's: "
                    f"{sorted(leogym_cc)}; ns-3 TCP: {sorted(tcp_cc)}"
                )
        flows.append(fc)
    traffic = dataclasses.replace(scenario.traffic, flows=flows)
    return load_scenario(dataclasses.replace(scenario, traffic=traffic))


def _finite_or_none(x: float) -> float | None:
    return x if np.isfinite(x) else None


# --------------------------------------------------------------------------- the single-agent env
class LeoMultiFlowCCEnv(LeoCCEnv):
    """Congestion control of one flow among N on a shared bottleneck.

    ## Description
    LeoCC-v0 with company: the agent drives flow 0, the connection under study, while the
    scenario's other flows share the bottleneck with it. Each of the scenario's ``mpquic``
    flows runs a native congestion control (CUBIC, BBR, ... or an ns-3 TCP one) or a frozen
    policy (any object with ``predict(obs)``: an SB3 model, a leogym baseline, a copy of the
    agent), which sees its own flow's observation, in LeoCC-v0's layout, and sets its flow's
    windows. Use it for TCP-friendliness (the agent against CUBIC flows) and for coexistence
    (the agent against copies of itself). The default scenario, ``bottleneck4``, puts four
    flows on one 20 Mbit/s satellite access link (40 ms RTT).

    ## Action Space
    As LeoCC-v0: ``Box(-1, 1, (max_paths,), float32)`` (``continuous``) or
    ``MultiDiscrete([5] * max_paths)`` (``discrete``), rescaling flow 0's windows (or pacing
    rates with ``cc_target="pacing"``).

    ## Observation Space
    As LeoCC-v0: flow 0's per-path features (``env.unwrapped.feature_names``).

    ## Rewards
    As LeoCC-v0 (default ``"leo"``), over flow 0's measurements.

    ## Starting State
    As LeoCC-v0; every flow starts at its ``start_s`` (0 in ``bottleneck4``).

    ## Episode End
    As LeoCC-v0: truncation after ``episode_s``; termination when flow 0's file completes.

    ## Arguments
    LeoCC-v0's, plus ``n_flows`` (``None``: the scenario's flows; else the connection plus
    ``n_flows - 1`` copies of the scenario's one ``mpquic`` entry of ``traffic.flows``) and
    ``others``: ``None`` (the scenario's flows as they are), one control for every
    ``mpquic`` flow, or a list with one per ``mpquic`` flow; a control is a leogym controller
    name (``"cubic"``, ``"bbr"``, ...), an ns-3 TCP name (``"TcpCubic"``, ``"TcpBbr"``: that
    flow becomes ns-3 TCP) or a policy object. ``competitors`` (instead of ``others``): a pool
    of such controls drawn per episode, for training beside other flows (``train.competitors``,
    docs/workflows.md): each reset draws a peer count uniformly from ``peers`` (``[min, max]``,
    default ``[0, 3]``; 0 leaves the connection alone) and each peer's control uniformly from
    the pool, from a stream of its own seeded by the reset's seed; ``reset``'s ``info`` lists
    them (``competitors``; ``"policy"`` for a policy object). ``info`` adds each flow's goodput
    (``flow_goodput_bps``) and Jain's index over the flows in the step (``jain_flows``;
    ``None`` when no flow delivered).

    ## Vectorized environment
    One ns-3 simulator per process, as LeoCC-v0.

    ## Version History
    * v0: initial release.
    """

    drives_flows = True  # through others (checked below)

    def __init__(
        self,
        render_mode: str | None = None,
        *,
        n_flows: int | None = None,
        others: Any = None,
        competitors: Sequence[Any] | None = None,
        peers: Sequence[int] = (0, 3),
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("scenario", "bottleneck4")
        super().__init__(render_mode=render_mode, **kwargs)
        scenario = self.scenario
        if n_flows is not None:
            scenario = set_flow_count(scenario, n_flows)
        if competitors is not None and others is not None:
            raise ValueError("competitors: draws the others per episode; leave others unset")
        self._policies: dict[int, Any] = {}
        if others is not None:
            n_mp = sum(fc.transport == "mpquic" for _, fc in expanded_flows(scenario))
            items = list(others) if isinstance(others, (list, tuple)) else [others] * n_mp
            scenario, self._policies = self._with_controls(scenario, items, "others")
        undriven = [i for i in external_flows(scenario) if i + 1 not in self._policies]
        if undriven:  # (after set_flow_controls, entry i of traffic.flows is flow i + 1)
            raise FieldError(
                f"scenario.traffic.flows[{undriven[0]}].cc",
                "'external' needs a policy to drive it: pass one in others",
            )
        self._competitors = (
            None if competitors is None else self._check_competitors(scenario, competitors, peers)
        )
        self._peers = (int(peers[0]), int(peers[1])) if competitors is not None else (0, 0)
        self._base_scenario = scenario
        self._draw_rng: np.random.Generator | None = None
        self.scenario = scenario
        self.config.scenario = scenario
        self._observers: dict[int, FlowObserver] = {}
        self._policy_state: dict[int, Any] = {}
        self._policy_start = True

    def _with_controls(
        self, scenario: ScenarioConfig, items: Sequence[Any], field: str
    ) -> tuple[ScenarioConfig, dict[int, Any]]:
        """``scenario`` with its ``mpquic`` flows run by ``items`` (controller names or policy
        objects, in flow order), and the policies by flow index."""
        mp_flows = [
            j + 1 for j, (_, fc) in enumerate(expanded_flows(scenario)) if fc.transport == "mpquic"
        ]
        # A policy drives its flow as the agent drives flow 0: windows, or gains on the
        # same base controller in the residual mode.
        residual = self.config.action_mode == "residual"
        policy_cc = self.config.core_settings().cc if residual else "external"
        controls: list[str] = []
        policies: dict[int, Any] = {}
        for k, item in enumerate(items):
            if isinstance(item, str):
                if item == "external":
                    raise ValueError(
                        f"{field}[{k}]: 'external' needs a policy to drive it; pass the policy "
                        "object"
                    )
                controls.append(item)
            elif callable(getattr(item, "predict", None)):
                controls.append(policy_cc)
                if k < len(mp_flows):
                    policies[mp_flows[k]] = item
            else:
                raise ValueError(
                    f"{field}[{k}]: must be a controller name or an object with predict(obs) "
                    f"(got {item!r})"
                )
        return set_flow_controls(scenario, controls, field), policies

    def _check_competitors(
        self, scenario: ScenarioConfig, competitors: Sequence[Any], peers: Sequence[int]
    ) -> list[Any]:
        """The competitor pool, checked: every entry runs beside the connection, and the
        scenario takes every peer count of ``peers``."""
        if isinstance(competitors, (str, bytes)) or not isinstance(competitors, Sequence):
            raise ValueError(f"competitors: must be a list (got {competitors!r})")
        if not competitors:
            raise ValueError("competitors: must name at least one competitor")
        if (
            not isinstance(peers, Sequence)
            or len(peers) != 2
            or any(isinstance(p, bool) or not isinstance(p, (int, np.integer)) for p in peers)
            or not 0 <= peers[0] <= peers[1] <= 63
        ):
            raise ValueError(
                f"peers: must be [min, max] with 0 <= min <= max <= 63 (got {peers!r})"
            )
        set_flow_count(scenario, int(peers[1]) + 1, "peers")
        pool = set_flow_count(scenario, len(competitors) + 1, "competitors")
        self._with_controls(pool, list(competitors), "competitors")  # every entry, checked
        return list(competitors)

    def _draw_competitors(self) -> list[Any]:
        """This episode's peers: a count in ``peers``, each drawn from the pool uniformly."""
        assert self._competitors is not None and self._draw_rng is not None
        lo, hi = self._peers
        n = int(self._draw_rng.integers(lo, hi + 1))
        picks = self._draw_rng.integers(0, len(self._competitors), size=n)
        return [self._competitors[int(i)] for i in picks]

    @property
    def flow_names(self) -> list[str]:
        """Every flow's name, flow 0 (the agent's) first."""
        from leogym.scenario.flows import flow_names

        return flow_names(self.scenario)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if self._competitors is not None:
            if seed is not None or self._draw_rng is None:
                # the peers' own stream: the episode's draws do not move with the pool
                self._draw_rng = np.random.default_rng([int(seed), 1] if seed is not None else None)
            drawn = self._draw_competitors()
            scenario = set_flow_count(self._base_scenario, len(drawn) + 1, "peers")
            self.scenario, self._policies = self._with_controls(scenario, drawn, "competitors")
            self.config.scenario = self.scenario
        obs, info = super().reset(seed=seed, options=options)
        if self._competitors is not None:
            info["competitors"] = [c if isinstance(c, str) else "policy" for c in drawn]
        assert self._episode is not None
        self._observers = {f: self._episode.observers[f] for f in self._policies}
        for o in self._observers.values():
            o.reset()
        self._policy_state = dict.fromkeys(self._policies)
        self._policy_start = True
        return obs, info

    def _observed_flows(self) -> tuple[int, ...]:
        return tuple(self._policies)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = super().step(action)
        m = self._last
        if m is not None:
            for o in self._observers.values():
                o.update(m)
            g = np.asarray(m.flow_goodput_bytes, dtype=np.float64)
            dt = max(m.interval_s, 1e-9)
            info["flow_goodput_bps"] = g * 8.0 / dt * self._rate_scale
            info["jain_flows"] = _finite_or_none(jain_index(g))
        return obs, reward, terminated, truncated, info

    def _apply_action(self, action: np.ndarray) -> None:
        super()._apply_action(action)
        if not self._policies:
            return
        assert self._sim is not None and self._episode is not None
        following = self._episode.following
        values: dict[int, np.ndarray] = {}
        for f, policy in self._policies.items():
            o = self._observers[f]
            out = policy.predict(
                o.observation(),
                state=self._policy_state[f],
                episode_start=np.array([self._policy_start]),
                deterministic=True,
            )
            a, self._policy_state[f] = out if isinstance(out, tuple) else (out, None)
            try:
                checked = check_action(self.action_space, a)
            except ValueError as exc:
                raise ValueError(
                    f"others: the policy of flow {f} gave a bad action: {exc}"
                ) from None
            current = current_controls(self.config, self._last, f, o.n_paths)
            values[f] = control_action(
                self.config, checked, current, self._packet_bytes, following.get(f)
            )
        self._policy_start = False
        apply_controls(self._sim, self.config, values, following)
