"""The schema of the hop topology (``topology: hops``): :class:`HopsConfig` and the nodes,
links and routes of a controlled network (``docs/scenario.md``, "Path and hop topologies")."""

from __future__ import annotations

from dataclasses import dataclass, field

from leogym.scenario.config.limits import CORE_MAX_S, LINK_RATE, NON_NEGATIVE, PROBABILITY
from leogym.scenario.config.queue import QueueConfig
from leogym.schema import bounded, choice

__all__ = [
    "HopNodeConfig",
    "HopSquareWaveConfig",
    "HopLinkConfig",
    "HopRouteStepConfig",
    "HopRouteConfig",
    "HopsConfig",
]


@dataclass
class HopNodeConfig:
    """A node of a controlled hop network."""

    name: str = ""
    #: ``terminal``, ``satellite``, ``ground_station``, ``server`` or ``router``.
    kind: str = field(
        default="router",
        metadata=choice("terminal", "satellite", "ground_station", "server", "router"),
    )


@dataclass
class HopSquareWaveConfig:
    """A square wave on a controlled link's rate (both directions): ``+amplitude_mbps`` in the
    first half of each period, ``-amplitude_mbps`` in the second, counted from ``-phase_s``."""

    #: Half the peak-to-peak swing (Mbit/s); below each direction's rate. 0 = no wave.
    amplitude_mbps: float = field(default=0.0, metadata=NON_NEGATIVE)
    #: At most :data:`CORE_MAX_S`, like every time of a scenario (and at least two timeline
    #: steps: validation).
    period_s: float = field(default=2.0, metadata=bounded(0.0, CORE_MAX_S, lo_open=True))
    #: The wave is shifted this far earlier: at ``t = 0`` it is ``phase_s`` into its period.
    phase_s: float = field(default=0.0, metadata=bounded(0.0, CORE_MAX_S))


@dataclass
class HopLinkConfig:
    """A link of a controlled hop network: constant rate, delay and loss per direction.

    Direction ``down`` is ``a -> b``, ``up`` is ``b -> a``; ``*_up_*`` fields left at ``None``
    take the ``down`` value.
    """

    a: str = ""
    b: str = ""
    #: Empty = ``"<a>-<b>"``.
    name: str = ""
    #: At most :data:`MAX_LINK_RATE_MBPS`; at least 1 bit/s after ``rate_scale`` (validation).
    rate_mbps: float = field(default=10.0, metadata=LINK_RATE)
    rate_up_mbps: float | None = field(default=None, metadata=LINK_RATE)
    delay_ms: float = field(default=10.0, metadata=bounded(0.0, 10_000.0))
    delay_up_ms: float | None = field(default=None, metadata=bounded(0.0, 10_000.0))
    loss: float = field(default=0.0, metadata=PROBABILITY)
    loss_up: float | None = field(default=None, metadata=PROBABILITY)
    #: Drop-tail queue of each of its two transmitters; ``bdp`` is the link's rate times the
    #: propagation RTT of the longest route through it.
    queue: QueueConfig = field(default_factory=QueueConfig)
    #: ``[start, end)`` intervals (s) in which the link drops everything.
    outages: list[list[float]] = field(default_factory=list)
    #: A square wave on both directions' rates (``amplitude_mbps: 0`` = none).
    rate_square_wave: HopSquareWaveConfig = field(default_factory=HopSquareWaveConfig)


@dataclass
class HopRouteStepConfig:
    """The node list of a route from ``t_s`` on (until the next step)."""

    t_s: float = field(default=0.0, metadata=NON_NEGATIVE)
    nodes: list[str] = field(default_factory=list)


@dataclass
class HopRouteConfig:
    """A route: a fixed node list (``nodes``) or a timetable (``steps``), source first."""

    name: str = ""
    nodes: list[str] = field(default_factory=list)
    steps: list[HopRouteStepConfig] = field(default_factory=list)
    #: Repeat the ``steps`` timetable every this many seconds (0 = once); longer than the last
    #: step's ``t_s``.
    repeat_s: float = field(default=0.0, metadata=NON_NEGATIVE)
    #: ``make_before_break``: packets on the old node list drain after a step; or
    #: ``break_before_make``: every link of the route's other steps that the step in force does
    #: not use is in an outage while the step is in force.
    switch_mode: str = field(
        default="make_before_break", metadata=choice("make_before_break", "break_before_make")
    )


@dataclass
class HopsConfig:
    """The hop topology (``topology: hops``).

    Empty ``nodes``: the graph is built from the scenario's geometry (its satellite and
    terrestrial paths become chains of terminal, satellites, ground station and server).
    Otherwise it is this controlled network, and ``paths`` names the routes of the
    connection under study (the scenario's ``paths`` list is then empty).
    """

    nodes: list[HopNodeConfig] = field(default_factory=list)
    links: list[HopLinkConfig] = field(default_factory=list)
    routes: list[HopRouteConfig] = field(default_factory=list)
    #: Routes of the connection under study, in path order (controlled networks only).
    paths: list[str] = field(default_factory=list)
