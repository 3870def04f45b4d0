"""One episode of a leogym env, set up in one place for every env (LeoCC-v0 and its siblings,
LeoMultiFlowCC-v0, the PettingZoo env): the scenario drawn for it, its timeline, the native
simulation, and one :class:`~leogym.envs.observer.FlowObserver` per observed flow."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

import numpy as np

from leogym.envs.config import EnvConfig
from leogym.envs.features import FeatureTable
from leogym.envs.observer import FlowObserver
from leogym.scenario import ScenarioConfig, build_timeline, draw_scenario
from leogym.scenario.flows import expanded_flows, route_index
from leogym.scenario.hops.controlled import route_timeline
from leogym.scenario.timeline import Timeline
from leogym.simulation import Measurements, Simulation
from leogym.simulation.fairness import flow_windows

__all__ = ["Episode", "EpisodeSampler", "flow_timeline"]

#: Episode seeds are drawn from [1, MAX_SEED] (ns-3's RngRun takes them as they are).
MAX_SEED = 2**31 - 2

#: Draws an episode's scenario from the env's (``(scenario, rng) -> scenario``).
EpisodeSampler = Callable[[ScenarioConfig, np.random.Generator], ScenarioConfig]


class Episode:
    """An episode's scenario, timeline, simulation and observers.

    :param config: the env's options (the simulation runs :meth:`EnvConfig.core_settings`).
    :param scenario: the episode's scenario (already drawn).
    :param seed: the episode seed (timeline draws and ns-3's ``RngRun``).
    :param features: the observation layout.
    :param flows: the flows to observe (0 the connection).
    :param drawn: the values drawn for ``scenario``, by name
        (:attr:`leogym.scenario.ScenarioDraw.values`); empty when it was not drawn from the
        scenario's own distribution.
    """

    def __init__(
        self,
        config: EnvConfig,
        scenario: ScenarioConfig,
        seed: int,
        features: FeatureTable,
        flows: Iterable[int],
        drawn: dict[str, float | str] | None = None,
    ) -> None:
        self.scenario = scenario
        self.seed = seed
        self.drawn = dict(drawn or {})
        #: When each flow and cross-traffic source is scheduled to send (``flow_windows``).
        self.flow_windows = flow_windows(scenario)
        self.timeline = build_timeline(scenario, seed=seed)
        # rate_scale k: the simulation runs at 1/k of the rates; throughput figures are
        # scaled back up by k (docs/benchmarks.md, "Fidelity knobs").
        self.rate_scale = float(self.timeline.rate_scale)
        forecast = config.observation.handover_forecast
        packet_bytes = int(scenario.traffic.packet_bytes)
        self.observers: dict[int, FlowObserver] = {}
        for f in flows:
            tl = flow_timeline(self.timeline, scenario, f)
            self.observers[f] = FlowObserver(
                features, tl.oracle(forecast), f, len(tl.paths), packet_bytes, self.rate_scale
            )
        # ns-3 runs one simulator per process: opening this one closes any other env's (that
        # env's step() then says so). Vectorised envs live in separate processes.
        self.sim = Simulation.open(config.core_settings(), scenario, seed, timeline=self.timeline)
        #: Per flow, the controller each path follows under ``residual_alternate`` (1.0: the
        #: alternate), as last applied; the hysteresis of ``residual_switch_margin`` reads it.
        self.following: dict[int, np.ndarray] = {}

    @classmethod
    def draw(
        cls,
        config: EnvConfig,
        scenario: ScenarioConfig,
        rng: np.random.Generator,
        features: FeatureTable,
        flows: Iterable[int],
        sampler: EpisodeSampler | None = None,
    ) -> Episode:
        """A new episode: its seed, then its scenario (``sampler``'s draw when given, else the
        scenario's own distribution with ``config.sample_scenarios``, with the values drawn,
        else ``scenario``), both from ``rng``."""
        seed = int(rng.integers(1, MAX_SEED))
        drawn: dict[str, float | str] = {}
        if sampler is not None:
            scenario = sampler(scenario, rng)
        elif config.sample_scenarios:
            draw = draw_scenario(scenario, rng)
            scenario, drawn = draw.scenario, draw.values
        return cls(config, scenario, seed, features, flows, drawn)

    def step(self, dt_s: float) -> tuple[Measurements, float, float]:
        """Run ``dt_s`` seconds; the measurements and the interval's start and end times."""
        t0 = float(self.sim.now)
        m = self.sim.step(dt_s)
        return m, t0, float(self.sim.now)

    def close(self) -> None:
        """Close the simulation (idempotent)."""
        self.sim.close()


def flow_timeline(timeline: Timeline, scenario: ScenarioConfig, flow: int) -> Timeline:
    """The timeline of flow ``flow``'s routes: one path per subflow, for its handover oracle.

    Flow 0 is the connection: the timeline itself. For another flow, each route is the path of
    the same index (path topology, and hop networks built from the geometry, whose route ``i``
    is path ``i``), or, in a controlled hop network, the route collapsed end to end
    (:func:`leogym.scenario.hops.controlled.route_timeline`; the connection's own path where
    it is one of the connection's routes).
    """
    if flow == 0:
        return timeline
    _, fc = expanded_flows(scenario)[flow - 1]
    routes = [route_index(scenario, r) for r in fc.routes]
    net = timeline.network
    paths = []
    for r in routes:
        if net is None or not scenario.hops.nodes:
            paths.append(timeline.paths[r])
        elif r in net.path_routes:
            paths.append(timeline.paths[list(net.path_routes).index(r)])
        else:
            queue = int(timeline.paths[0].queue_packets)
            paths.append(route_timeline(net, r, timeline.times, timeline.duration_s, queue))
    return dataclasses.replace(
        timeline, paths=paths, network=None, sat_positions=None, geometry_times_s=None
    )
