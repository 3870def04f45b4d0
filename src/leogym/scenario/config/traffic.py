"""The schema of a scenario's workload: the connection's traffic, cross traffic and the flows
beside it (``docs/scenario.md``, "Flows")."""

from __future__ import annotations

from dataclasses import dataclass, field

from leogym.scenario.config.limits import (
    CORE_MAX_S,
    MAX_FLOWS,
    MAX_PACKET_BYTES,
    OFF_PERIOD,
    ON_PERIOD,
    UDP_RATE,
)
from leogym.schema import bounded, choice, duration

__all__ = [
    "CrossTrafficConfig",
    "LeotpFlowConfig",
    "FlowConfig",
    "TCP_TIMER_FIELDS",
    "TrafficConfig",
]


@dataclass
class CrossTrafficConfig:
    """Competing traffic on one path's bottleneck."""

    path: int = field(default=0, metadata=bounded(0))
    #: ``tcp_bulk`` or ``udp_onoff``.
    kind: str = field(default="tcp_bulk", metadata=choice("tcp_bulk", "udp_onoff"))
    #: ``down`` (server->client, same as the data) or ``up``.
    direction: str = field(default="down", metadata=choice("down", "up"))
    count: int = field(default=1, metadata=bounded(1, 1000))
    #: Sending rate while on (udp_onoff), Mbit/s (at most :data:`MAX_UDP_RATE_MBPS`).
    rate_mbps: float = field(default=1.0, metadata=UDP_RATE)
    #: On and off durations (udp_onoff), s; ``off_s`` 0 = always on.
    on_s: float = field(default=1.0, metadata=ON_PERIOD)
    off_s: float = field(default=1.0, metadata=OFF_PERIOD)
    start_s: float = field(default=0.0, metadata=duration(0.0, CORE_MAX_S))
    #: ``None`` = until the end.
    stop_s: float | None = field(default=None, metadata=duration(0.0, CORE_MAX_S))
    #: ``tcp_bulk`` only: the TCP negotiates ECN (ns-3's ``UseEcn``; ECT(0) with the default
    #: NewReno), so an AQM with ``queue.ecn`` marks it instead of dropping.
    ecn: bool = False


@dataclass
class LeotpFlowConfig:
    """The LEOTP parameters of a ``transport: leotp`` flow (docs/scenario.md, "Flows";
    cpp/doc/leotp.md). A full Data packet carries ``traffic.packet_bytes`` of UDP payload (the
    21-byte LEOTP header and the data)."""

    #: ``A`` full LEOTP, ``B`` hop-by-hop congestion control without cache, ``C`` cache and
    #: in-network repair with end-to-end congestion control, ``D`` no Midnodes (the paper's
    #: Table II).
    variant: str = field(default="A", metadata=choice("A", "B", "C", "D"))
    #: BL_tar, the sending buffer each node holds (full packets); at least one packet.
    target_buffer_packets: float = field(default=5.0, metadata=bounded(1.0, 1e6))
    #: Cache of each Midnode, in 4096-byte blocks (65536 = 256 MB); at least one block.
    cache_blocks: int = field(default=65536, metadata=bounded(1, 2**40))
    #: Share of the route's satellites (and routers) that host a Midnode, drawn with the
    #: episode seed; ground stations always host one.
    midnode_fraction: float = field(default=1.0, metadata=bounded(0.0, 1.0))


@dataclass
class FlowConfig:
    """A flow beside the connection under study (docs/scenario.md, "Flows").

    It runs natively (no agent): leogym's multipath transport with a named congestion control
    and scheduler, ns-3's own TCP with any ``TcpCongestionOps``, or an on/off UDP source.
    """

    #: Name in measurements and results; empty = ``flow<i>``.
    name: str = ""
    #: ``mpquic`` (leogym's transport), ``tcp`` (ns-3 TCP), ``udp_onoff`` or ``leotp``.
    transport: str = field(default="tcp", metadata=choice("mpquic", "tcp", "udp_onoff", "leotp"))
    #: Congestion control: a core name for ``mpquic`` (``cubic``, ``lia``, ...), an ns-3
    #: ``TcpCongestionOps`` for ``tcp`` (``NewReno``, ``TcpCubic``, ``ns3::TcpBbr``, ...).
    cc: str = "NewReno"
    #: Scheduler of an ``mpquic`` flow.
    scheduler: str = "minrtt"
    #: The paths (path topology) or routes (hop topology) it uses, by name; ``mpquic`` may use
    #: several (one subflow each), ``tcp`` and ``udp_onoff`` exactly one.
    routes: list[str] = field(default_factory=list)
    #: ``bulk`` (until ``stop_s``) or ``file`` (``file_bytes``, then done).
    workload: str = field(default="bulk", metadata=choice("bulk", "file"))
    file_bytes: int = field(default=10_000_000, metadata=bounded(1, 2**50))
    start_s: float = field(default=0.0, metadata=duration(0.0, CORE_MAX_S))
    #: ``None`` = until the end.
    stop_s: float | None = field(default=None, metadata=duration(0.0, CORE_MAX_S, lo_open=True))
    #: This many identical flows (named ``<name>.<j>`` when more than one).
    count: int = field(default=1, metadata=bounded(1, MAX_FLOWS))
    #: ``udp_onoff``: sending rate while on (Mbit/s, at most :data:`MAX_UDP_RATE_MBPS`), on and
    #: off durations (s, at least :data:`MIN_ONOFF_PERIOD_S`; ``off_s`` 0 = always on).
    rate_mbps: float = field(default=1.0, metadata=UDP_RATE)
    on_s: float = field(default=1.0, metadata=ON_PERIOD)
    off_s: float = field(default=0.0, metadata=OFF_PERIOD)
    #: ``leotp`` flows: the protocol's parameters.
    leotp: LeotpFlowConfig = field(default_factory=LeotpFlowConfig)
    #: ``tcp`` flows: the retransmission timer's floor (ns-3's ``TcpSocketBase::MinRto``, s);
    #: ``None`` = ns-3's default, RFC 6298's 1 s (Linux uses 0.2 s).
    min_rto_s: float | None = field(default=None, metadata=duration(0.001, 60.0))
    #: ``tcp`` flows: the receiver's delayed-ACK timeout (ns-3's ``TcpSocket::DelAckTimeout``,
    #: s; RFC 1122 asks for less than 0.5 s); ``None`` = ns-3's default, 0.2 s (Linux's
    #: minimum is 0.04 s, ``TCP_DELACK_MIN``).
    delayed_ack_s: float | None = field(default=None, metadata=duration(0.001, 0.5, hi_open=True))
    #: ECN. ``tcp`` flows: ns-3's ``TcpSocketBase::UseEcn`` On at both ends, data ECT(0), or
    #: ECT(1) when ``cc`` is ``TcpDctcp`` (L4S; both ends then run DCTCP). ``mpquic`` flows: the
    #: transport's ECN, with the codepoint of the flow's controller. Refused for ``udp_onoff``
    #: and ``leotp`` (``traffic.flows[i].ecn``).
    ecn: bool = False
    #: ``tcp`` flows: RFC 6298's clock granularity G in RTO = SRTT + max(G, 4 RTTVAR) (ns-3's
    #: ``TcpSocketBase::ClockGranularity``, s); ``None`` = ns-3's default, 1 ms. Linux floors
    #: this term (not the whole RTO) at ``rto_min`` (0.2 s): G = 0.2 s with ``min_rto_s`` 0.2
    #: gives Linux's timer (docs/scenario.md, "Flows").
    rto_granularity_s: float | None = field(default=None, metadata=duration(1e-6, 60.0))


#: The ``FlowConfig`` fields that only a ``tcp`` flow takes (ns-3 socket timers), each passed
#: to the core under its own name when set.
TCP_TIMER_FIELDS = ("min_rto_s", "delayed_ack_s", "rto_granularity_s")


@dataclass
class TrafficConfig:
    """The workload of an episode."""

    #: ``bulk`` (send for the whole episode) or ``file`` (``file_bytes``, then done).
    workload: str = field(default="bulk", metadata=choice("bulk", "file"))
    file_bytes: int = field(default=10_000_000, metadata=bounded(1, 2**50))
    #: UDP payload of a full data packet: at most a 9000-byte jumbo frame's IP MTU less the
    #: IPv4 (20 B) and UDP (8 B) headers, 8972 B (the native core checks the same range).
    packet_bytes: int = field(default=1400, metadata=bounded(64, MAX_PACKET_BYTES))
    start_s: float = field(default=0.0, metadata=duration(0.0, CORE_MAX_S))
    cross_traffic: list[CrossTrafficConfig] = field(default_factory=list)
    #: Flows beside the connection under study, each with its own transport, congestion
    #: control, routes and timing (both topologies).
    flows: list[FlowConfig] = field(default_factory=list)
