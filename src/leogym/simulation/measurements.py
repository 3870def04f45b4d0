"""What one step of the native simulation measured: :class:`Measurements`.

The native core returns a dict of NumPy arrays (``docs/architecture.md``, "Measurement keys");
:class:`Measurements` gives each entry a name, a type and a unit. Per-path entries are arrays of
shape ``(n_paths,)`` (one entry per transport path); connection entries are Python scalars.
Values are the core's, unconverted: same seed, same bits.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

__all__ = [
    "Measurements",
    "PER_PATH_KEYS",
    "CONNECTION_KEYS",
    "FLOW_KEYS",
    "SUBFLOW_KEYS",
    "LINK_KEYS",
]


@dataclass(frozen=True, slots=True)
class Measurements:
    """The measurements of the interval that a :meth:`Simulation.step` just ran.

    Counters (``*_bytes``, ``*_packets``, ``drops_*``, ``handovers``) count events inside the
    interval; gauges (``cwnd_bytes``, ``srtt_s``, ``path_state``, ...) are the values at its end.
    RTT estimates are NaN on a path without an RTT sample yet.
    """

    # ---- per transport path, shape (n_paths,)
    cwnd_bytes: np.ndarray
    bytes_in_flight: np.ndarray
    srtt_s: np.ndarray
    min_rtt_s: np.ndarray
    rttvar_s: np.ndarray
    latest_rtt_s: np.ndarray
    delivered_bytes: np.ndarray
    sent_bytes: np.ndarray
    sent_packets: np.ndarray
    delivery_rate_bps: np.ndarray
    send_rate_bps: np.ndarray
    lost_packets: np.ndarray
    retransmitted_packets: np.ndarray
    drops_outage: np.ndarray
    drops_random: np.ndarray
    drops_overflow: np.ndarray
    #: Drops by an AQM's own decision (RED, CoDel, PIE, ...) on the path's route.
    drops_aqm: np.ndarray
    #: Mean time the connection's data packets that arrived on the path spent in link queues,
    #: summed over their hops (s; NaN without packets or for a LEOTP connection): the AQM
    #: sojourn the path's traffic saw.
    queue_delay_s: np.ndarray
    #: bool: the path's link is in an outage at the end of the interval.
    in_outage: np.ndarray
    #: int8: 0 active, 1 standby, 2 deactivated.
    path_state: np.ndarray
    handovers: np.ndarray
    ssthresh_bytes: np.ndarray
    pacing_rate_bps: np.ndarray
    pto_count: np.ndarray
    rate_sample_bps: np.ndarray
    spurious_losses: np.ndarray
    suppressed_losses: np.ndarray
    persistent_congestion: np.ndarray
    reinjected_packets: np.ndarray
    #: Retransmission timeouts that fired in the interval (timer-based recoveries; 0 under
    #: ``rfc9002``, whose probe timeouts are ``pto_count``).
    rto_count: np.ndarray
    #: bool: the path is in timeout recovery at the end of the interval (the ``tcp``
    #: recovery's Loss state, Linux's TCP_CA_Loss: no new data while another path can take it).
    in_loss_state: np.ndarray
    #: Seconds until the path's tail-loss-probe or retransmission timer fires (timer-based
    #: recoveries; inf while neither is armed, and always under ``rfc9002``).
    time_to_rto_s: np.ndarray
    #: int8: the path's ECN validation (RFC 9000 §13.4.2): 0 off (``transport.ecn`` off, or a
    #: controller without an ECN response), 1 testing, 2 unknown, 3 capable, 4 failed.
    ecn_state: np.ndarray
    #: Data packets sent ECN-capable (ECT(0), or ECT(1) for an L4S controller) in the interval.
    ect_sent_packets: np.ndarray
    #: Increase of the peer's CE count (packets an AQM marked) in the interval, from ACK frames
    #: whose counts passed validation.
    ce_packets: np.ndarray
    # ---- per connection
    #: In-order bytes delivered to the application in the interval.
    goodput_bytes: int
    reorder_buffer_bytes: int
    #: Mean head-of-line delay of the bytes delivered in the interval.
    hol_delay_s: float
    completed: bool
    #: NaN until the file completes.
    completion_time_s: float
    #: Simulation time at the end of the interval.
    time_s: float
    interval_s: float
    #: Bytes received by each cross-traffic flow in the interval, shape ``(n_flows,)``.
    cross_traffic_rx_bytes: np.ndarray
    # ---- per flow, shape (n_flows,): 0 is the connection, then the scenario's traffic.flows
    # (leogym.scenario.flows.flow_names). Delays are over the data packets each flow's sink
    # received in the interval, measured per packet in the core; NaN without packets.
    #: Bytes delivered to each flow's application (the connection: its goodput_bytes).
    flow_goodput_bytes: np.ndarray
    #: Data packets whose one-way delay was measured.
    flow_packets: np.ndarray
    flow_owd_mean_s: np.ndarray
    #: Nearest-rank percentiles and maximum of the one-way delay.
    flow_owd_p50_s: np.ndarray
    flow_owd_p99_s: np.ndarray
    flow_owd_max_s: np.ndarray
    #: Mean time the packets waited in link queues (OWD less propagation and serialisation).
    flow_queue_delay_s: np.ndarray
    #: Congestion window at the end of the interval (bytes; an mpquic flow's summed over its
    #: subflows; NaN for on/off UDP).
    flow_cwnd_bytes: np.ndarray
    #: RTT at the end of the interval (s): an mpquic flow's smallest smoothed RTT over its
    #: subflows, an ns-3 TCP flow's latest RTT sample; NaN before the first and for UDP.
    flow_rtt_s: np.ndarray
    #: Data packets the flow's source sent in the interval (every transmission, counted at its
    #: IPv4 layer).
    flow_sent_packets: np.ndarray
    #: float: packets the flow's sender declared lost in the interval (an mpquic flow's summed
    #: over its subflows; NaN for flows of other transports).
    flow_lost_packets: np.ndarray
    # ---- per subflow, shape (n_subflows,): the subflows of every mpquic flow, the
    # connection's transport paths first, then each mpquic flow's in flow order (flows of
    # other transports have none). The same quantities as the per-path entries above.
    #: int: the flow each subflow belongs to (0 the connection).
    subflow_flow: np.ndarray
    subflow_cwnd_bytes: np.ndarray
    subflow_bytes_in_flight: np.ndarray
    subflow_srtt_s: np.ndarray
    subflow_min_rtt_s: np.ndarray
    subflow_rttvar_s: np.ndarray
    subflow_delivered_bytes: np.ndarray
    subflow_sent_packets: np.ndarray
    subflow_lost_packets: np.ndarray
    subflow_pacing_rate_bps: np.ndarray
    #: int8: 0 active, 1 standby, 2 deactivated.
    subflow_path_state: np.ndarray
    subflow_rto_count: np.ndarray
    #: bool
    subflow_in_loss_state: np.ndarray
    subflow_time_to_rto_s: np.ndarray
    #: int8, as ``ecn_state``.
    subflow_ecn_state: np.ndarray
    subflow_ect_sent_packets: np.ndarray
    subflow_ce_packets: np.ndarray
    #: As ``queue_delay_s`` (s; NaN without packets).
    subflow_queue_delay_s: np.ndarray
    # ---- per link, shape (n_links, 2): column 0 the link's down direction (a -> b), 1 up.
    # Path topology: one link per path (down = server -> client).
    #: Packets in the transmitter's drop-tail queue at the end of the interval.
    link_queue_packets: np.ndarray
    link_tx_bytes: np.ndarray
    #: Bits sent over the capacity the link offered in the interval.
    link_utilization: np.ndarray
    link_drops_outage: np.ndarray
    link_drops_random: np.ndarray
    link_drops_overflow: np.ndarray
    #: Drops by the discipline's own decision (``queue.discipline`` other than drop-tail).
    link_drops_aqm: np.ndarray
    #: ECN-capable packets dropped by a link that drops them (``queue.ecn_handling: drop``).
    link_drops_ecn: np.ndarray
    #: Packets an AQM marked ECN CE instead of dropping them (``queue.ecn``).
    link_mark_packets: np.ndarray
    #: Mean time in the queue of the packets that started transmission in the interval (s;
    #: NaN if none did).
    link_sojourn_s: np.ndarray
    #: Hop topology, per route: transit packets without a next hop (empty in path mode).
    route_drops_no_route: np.ndarray

    @classmethod
    def from_native(cls, values: dict[str, Any]) -> Measurements:
        """Wrap the dict that ``_core.Simulation.step`` returns (0-d arrays become scalars)."""
        return cls(
            **{k: values[k] for k in PER_PATH_KEYS},
            goodput_bytes=int(values["goodput_bytes"]),
            reorder_buffer_bytes=int(values["reorder_buffer_bytes"]),
            hol_delay_s=float(values["hol_delay_s"]),
            completed=bool(values["completed"]),
            completion_time_s=float(values["completion_time_s"]),
            time_s=float(values["time_s"]),
            interval_s=float(values["interval_s"]),
            cross_traffic_rx_bytes=values["cross_traffic_rx_bytes"],
            **{k: values[k] for k in FLOW_KEYS + SUBFLOW_KEYS + LINK_KEYS},
        )

    def flow_subflows(self, flow: int) -> np.ndarray:
        """Indices (into the ``subflow_*`` entries) of flow ``flow``'s subflows, in order
        (empty for a flow that is not mpquic)."""
        return np.flatnonzero(self.subflow_flow == flow)

    def per_path(self, name: str) -> np.ndarray:
        """A per-path entry by name (for code that iterates over :data:`PER_PATH_KEYS`)."""
        if name not in _PER_PATH_SET:
            raise KeyError(f"{name!r} is not a per-path measurement; known: {PER_PATH_KEYS}")
        value: np.ndarray = getattr(self, name)
        return value


_CONNECTION = (
    "goodput_bytes",
    "reorder_buffer_bytes",
    "hol_delay_s",
    "completed",
    "completion_time_s",
    "time_s",
    "interval_s",
    "cross_traffic_rx_bytes",
)
#: Names of the per-flow entries.
FLOW_KEYS: tuple[str, ...] = tuple(f.name for f in fields(Measurements) if f.name[:5] == "flow_")
#: Names of the per-subflow entries.
SUBFLOW_KEYS: tuple[str, ...] = tuple(
    f.name for f in fields(Measurements) if f.name[:8] == "subflow_"
)
#: Names of the per-link (and per-route) entries.
LINK_KEYS: tuple[str, ...] = tuple(
    f.name for f in fields(Measurements) if f.name[:5] in ("link_", "route")
)
#: Names of the per-path entries, in field order.
PER_PATH_KEYS: tuple[str, ...] = tuple(
    f.name
    for f in fields(Measurements)
    if f.name not in _CONNECTION
    and f.name not in FLOW_KEYS
    and f.name not in SUBFLOW_KEYS
    and f.name not in LINK_KEYS
)
#: Names of the connection entries, in field order.
CONNECTION_KEYS: tuple[str, ...] = _CONNECTION
_PER_PATH_SET = frozenset(PER_PATH_KEYS)
