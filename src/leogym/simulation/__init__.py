"""The one road into leogym's native ns-3 core.

``Simulation.open(settings, scenario, seed)`` builds the timeline and the native inputs, owns
the process-wide simulator, and returns typed :class:`Measurements` from ``step(dt)``; the envs,
the paper reproductions and the benchmarks all open their simulations here
(``docs/architecture.md``).
"""

from __future__ import annotations

from leogym.simulation.fairness import bottleneck_shares, flow_routes, flows_on_link, jain_index
from leogym.simulation.measurements import (
    CONNECTION_KEYS,
    FLOW_KEYS,
    LINK_KEYS,
    PER_PATH_KEYS,
    SUBFLOW_KEYS,
    Measurements,
)
from leogym.simulation.native_config import (
    native_config,
    native_flows,
    native_network,
    native_paths,
)
from leogym.simulation.simulation import Simulation, SimulationClosedError, check_settings
from leogym.simulation.transport import RecoveryParams, TransportOptions

__all__ = [
    "bottleneck_shares",
    "flow_routes",
    "flows_on_link",
    "jain_index",
    "CONNECTION_KEYS",
    "FLOW_KEYS",
    "LINK_KEYS",
    "Measurements",
    "PER_PATH_KEYS",
    "RecoveryParams",
    "SUBFLOW_KEYS",
    "Simulation",
    "SimulationClosedError",
    "TransportOptions",
    "check_settings",
    "native_config",
    "native_flows",
    "native_network",
    "native_paths",
]
