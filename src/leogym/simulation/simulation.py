"""The one road into the native simulator: :class:`Simulation`.

Every caller opens its simulations here: the envs, the paper reproductions and the benchmarks.
A :class:`Simulation` builds the native inputs (:mod:`leogym.simulation.native_config`), owns
the process-wide ns-3 simulator, steps it, applies actions and hands back typed
:class:`~leogym.simulation.measurements.Measurements`.

ns-3 runs one simulator per process. Opening a simulation closes the one that is open in the
process, if any (it is then :attr:`Simulation.taken_over`); parallel simulations live in
separate processes (vectorised envs, evaluation workers, reproduction workers).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from leogym.native import core
from leogym.scenario.config import ScenarioConfig
from leogym.scenario.flows import flow_names
from leogym.scenario.timeline import Timeline
from leogym.scenario.timeline_builder import build_timeline
from leogym.schema import FieldError
from leogym.simulation.measurements import Measurements
from leogym.simulation.native_config import (
    AlgorithmSettings,
    native_config,
    native_field_paths,
    native_network,
    native_paths,
)

__all__ = ["Simulation", "SimulationClosedError", "check_settings"]

_LIVE: weakref.ReferenceType[Simulation] | None = None

#: Per-flow action values: ``{flow: values}``, a flow by index or by name.
FlowValues = (
    Mapping[int, npt.ArrayLike] | Mapping[str, npt.ArrayLike] | Mapping[int | str, npt.ArrayLike]
)


class SimulationClosedError(RuntimeError):
    """The simulation was closed, by :meth:`Simulation.close` or by a newer one taking over."""


class Simulation:
    """One packet-level ns-3 simulation of a scenario, with the connection under test.

    Open it with :meth:`open`; use it as a context manager or call :meth:`close`.
    """

    def __init__(self, native: Any, scenario: ScenarioConfig, timeline: Timeline, seed: int):
        """Use :meth:`open`."""
        self._native = native
        #: The scenario simulated (after sampling).
        self.scenario = scenario
        #: Its timeline: the arrays the links follow, and the handover oracle's ground truth.
        self.timeline = timeline
        #: The episode seed (the ns-3 ``RngRun`` and the timeline's seed).
        self.seed = seed
        #: Transport paths.
        self.n_paths = int(native.n_paths)
        #: Flow names, the connection first (the order of ``Measurements.flow_*``).
        self.flow_names = flow_names(scenario)
        #: Subflows of each flow (the connection: its transport paths; 0 for a flow that is not
        #: mpquic): the lengths ``apply(flow_cwnd_bytes=...)`` takes.
        self.flow_n_paths = [int(native.flow_n_paths(f)) for f in range(int(native.n_flows))]
        self._taken_over = False

    # ------------------------------------------------------------------ lifecycle
    @classmethod
    def open(
        cls,
        settings: AlgorithmSettings,
        scenario: ScenarioConfig,
        seed: int,
        *,
        timeline: Timeline | None = None,
        prefix: str = "env",
    ) -> Simulation:
        """Build the scenario's timeline (unless given) and the native simulation.

        :param settings: the algorithms and transport options (an ``EnvConfig``, or anything
            with ``cc``, ``scheduler``, ``cc_params``, ``scheduler_params`` and ``transport``).
        :param scenario: the episode's scenario (validated; after sampling).
        :param seed: the episode seed: the timeline's seed and the ns-3 ``RngRun``.
        :param timeline: the scenario's timeline for ``seed``, if the caller built it already.
        :param prefix: the config section the settings came from, for error messages
            (``env.cc: unknown congestion controller ...``).
        :raises FieldError: (a ``ValueError``) a setting the core rejects, named by its field.
        """
        global _LIVE
        seed = int(seed)
        if timeline is None:
            timeline = build_timeline(scenario, seed=seed)
        config = native_config(settings, scenario, seed, prefix)
        paths = native_paths(timeline)
        network = native_network(timeline)
        previous = _LIVE() if _LIVE is not None else None
        if previous is not None:
            previous._close(taken_over=True)
        try:
            native = core().Simulation(config, paths, network)
        except ValueError as exc:
            raise FieldError(str(exc)) from None
        sim = cls(native, scenario, timeline, seed)
        _LIVE = weakref.ref(sim)
        return sim

    def close(self) -> None:
        """Destroy the native simulation (idempotent)."""
        self._close(taken_over=False)

    def _close(self, taken_over: bool) -> None:
        global _LIVE
        native, self._native = self._native, None
        if native is None:
            return
        self._taken_over = taken_over
        if _LIVE is not None and _LIVE() is self:
            _LIVE = None
        native.close()

    def __enter__(self) -> Simulation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._native is None

    @property
    def taken_over(self) -> bool:
        """Closed because a newer simulation opened in this process."""
        return self._taken_over

    # ------------------------------------------------------------------ running
    @property
    def now(self) -> float:
        """Simulation time (s)."""
        return float(self._live().now)

    @property
    def done(self) -> bool:
        """The file workload has completed."""
        return bool(self._live().done)

    def step(self, dt_s: float) -> Measurements:
        """Run the simulation for ``dt_s`` seconds; the measurements of that interval."""
        return Measurements.from_native(self._live().step(dt_s))

    def apply(
        self,
        *,
        cwnd_bytes: np.ndarray | None = None,
        pacing_rate_bps: np.ndarray | None = None,
        weights: np.ndarray | None = None,
        path_choice: int | None = None,
        path_states: Mapping[int, str] | None = None,
        flow_cwnd_bytes: FlowValues | None = None,
        flow_pacing_rate_bps: FlowValues | None = None,
        flow_cwnd_gain: FlowValues | None = None,
        flow_follow_alternate: FlowValues | None = None,
    ) -> None:
        """Apply an agent's actions for the next step (each checked by the core).

        :param cwnd_bytes: per-path congestion windows (``cc="external"``).
        :param pacing_rate_bps: per-path pacing rates (``cc="external"``).
        :param weights: per-path traffic shares (``scheduler="external"``).
        :param path_choice: the one path that gets the next packets (``scheduler="external"``).
        :param path_states: ``{path: "active" | "standby" | "deactivated"}``.
        :param flow_cwnd_bytes: ``{flow: windows}``, one window per subflow
            (:attr:`flow_n_paths`), for ``mpquic`` flows whose ``cc`` is ``external``; a flow
            is its index (0 the connection) or its name (:attr:`flow_names`).
        :param flow_pacing_rate_bps: ``{flow: rates}`` (bit/s, 0 = unpaced), as
            ``flow_cwnd_bytes``.
        :param flow_cwnd_gain: ``{flow: gains}``, one per subflow, in [1/16, 16], for
            ``mpquic`` flows whose ``cc`` is ``residual+<base>``: each subflow's window and
            pacing rate become the base controller's times the gain until the next call
            (hybrid control, cpp/model/cc/mp-residual.h); gain 1 leaves the base untouched.
        :param flow_follow_alternate: ``{flow: choices}``, one per subflow, 0 or 1, for
            ``mpquic`` flows whose ``cc`` is ``residual+<base>+<alternate>``: which of the two
            controllers (both fed every event of the path) each subflow follows until the next
            call, 0 the base and 1 the alternate; the gain applies to the followed one.
        :raises ValueError: an action the configured algorithms do not take, or out of range;
            per-flow errors name the field and the flow (``flow_cwnd_bytes['peer.0']: ...``).
        """
        native = self._live()
        for field, values, setter in (
            ("flow_cwnd_bytes", flow_cwnd_bytes, native.set_flow_cwnd),
            ("flow_pacing_rate_bps", flow_pacing_rate_bps, native.set_flow_pacing_rate),
            ("flow_cwnd_gain", flow_cwnd_gain, native.set_flow_cwnd_gain),
            ("flow_follow_alternate", flow_follow_alternate, native.set_flow_follow_alternate),
        ):
            if values is None:
                continue
            for key, value in values.items():
                flow = self.flow_index(key, field)
                try:
                    setter(flow, value)
                except ValueError as exc:
                    message = str(exc).split(": ", 1)[-1]
                    raise ValueError(f"{field}[{self.flow_names[flow]!r}]: {message}") from None
        if path_states is not None:
            for path, state in path_states.items():
                native.set_path_state(path, state)
        if cwnd_bytes is not None:
            native.set_cwnd(cwnd_bytes)
        if pacing_rate_bps is not None:
            native.set_pacing_rate(pacing_rate_bps)
        if weights is not None:
            native.set_weights(weights)
        if path_choice is not None:
            native.set_path_choice(path_choice)

    def leotp_stats(self, flow: int | str, *, samples: bool = False) -> dict[str, Any]:
        """The state and counters of a ``leotp`` flow (given by index or name): its Consumer,
        its Producer and each of its Midnodes (cpp/doc/leotp.md, "Measurements").

        :param samples: add the per-chunk one-way delays as arrays.
        :raises ValueError: the flow does not exist or is not a ``leotp`` flow.
        """
        return dict(self._live().leotp_stats(self.flow_index(flow), samples))

    def recovery_stats(self, flow: int | str, *, samples: bool = False) -> dict[str, Any]:
        """The first-copy one-way delays of a flow's data since the start, and its recovery
        time (the retransmitted copies' median delay less the others' median; the LEOTP
        paper's Fig. 10 metric): each segment of an ns-3 TCP flow from its first
        transmission to its first arrival, each chunk of a LEOTP flow (or connection) likewise;
        zero counts and NaN for mpquic and UDP flows (cpp/doc/leotp.md, "Measurements").

        :param samples: add the delays as arrays (``owd_s``, ``retransmitted_owd_s``).
        :raises ValueError: the flow does not exist.
        """
        return dict(self._live().recovery_stats(self.flow_index(flow), samples))

    def flow_index(self, flow: int | str, field: str = "flow") -> int:
        """The index of a flow given by index (0 the connection) or by name.

        :raises ValueError: naming ``field``: no such flow.
        """
        if isinstance(flow, str):
            if flow not in self.flow_names:
                raise ValueError(f"{field}: no flow named {flow!r} (flows: {self.flow_names})")
            return self.flow_names.index(flow)
        if isinstance(flow, bool) or not isinstance(flow, (int, np.integer)):
            raise ValueError(f"{field}: a flow is an int index or a name, got {flow!r}")
        if not 0 <= int(flow) < len(self.flow_names):
            raise ValueError(
                f"{field}: flow {int(flow)} does not exist ({len(self.flow_names)} flows: "
                f"{self.flow_names})"
            )
        return int(flow)

    def _live(self) -> Any:
        if self._native is None:
            if self._taken_over:
                raise SimulationClosedError(
                    "this simulation was closed because another one opened in this process "
                    "(ns-3 runs one simulator per process)"
                )
            raise SimulationClosedError("the simulation is closed")
        return self._native


def check_settings(settings: AlgorithmSettings, prefix: str = "env") -> None:
    """Check the algorithms, their parameters and the transport options with the core's own
    config checker (names, ns-3 attribute names, types and ranges), building nothing.

    :param settings: as for :meth:`Simulation.open`.
    :param prefix: the config section the settings came from, for error messages.
    :raises FieldError: (a ``ValueError``) naming the user's field
        (``env.cc_params.Beta: value 2 is out of ...``).
    """
    config = {
        "cc": settings.cc,
        "cc_params": {str(k): float(v) for k, v in settings.cc_params.items()},
        "scheduler": settings.scheduler,
        "scheduler_params": {str(k): float(v) for k, v in settings.scheduler_params.items()},
        **settings.transport.native(),
    }
    config["field_paths"] = native_field_paths(config, prefix)
    try:
        core().validate_simulation_config(config)
    except ValueError as exc:
        raise FieldError(str(exc)) from None
