"""Transport options of a simulated connection: the settings beside the CC and the scheduler.

Every field is optional: ``None`` leaves the native core's default in place (the defaults and
their references are in ``cpp/doc/transport.md``). The field names are the native config keys
(``recovery_params`` is the native ``recovery_params`` dict, its fields that dict's keys), and
each field's range or choices are the ones the core's config checker applies
(``cpp/bindings/simulation-config.cc``, ``ConfigFromDict``; ``recovery_params`` in
``cpp/bindings/recovery-config.cc``). The ranges are written here once, as field metadata, so a
bad value is reported naming the field when the env config is checked, before ns-3 is touched;
the core reads the same numbers from ``cpp/bindings/config-ranges.h``, which
``tools/generate_config_ranges.py`` generates from this metadata, and
``tests/simulation/test_ranges_agree.py`` checks that header and probes the core at every bound
and choice of every field.

Loss recovery is a preset (``recovery``) whose values ``recovery_params`` may override; the
presets and their values are ``leogym._core.recovery_presets()``:

* ``rfc9002`` (default): QUIC's loss detection and probe timeout (RFC 9002);
* ``tcp``: Linux 5.4 TCP as ALCS's testbed ran it: the RFC 6298 retransmission timer with
  Linux's 200 ms minimum, an RFC 8985 tail-loss probe, the RFC 5681 loss window and Linux
  MPTCP's Loss state;
* ``quic-draft``: the tail-loss-probe and RTO generation of draft-ietf-quic-recovery as the
  MACO authors' ns-3 QUIC module ran it;
* ``picoquic``: picoquic's retransmission timer and timeout handling (StarQUIC's stack).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from leogym.schema import FieldError, bounded, build, choice, duration

__all__ = [
    "TransportOptions",
    "RecoveryParams",
    "PATH_STATES",
    "RECOVERIES",
    "check_against_scenario",
    "check_env_subflow_paths",
]

#: States of a transport path (``initial_path_states``).
PATH_STATES = ("active", "standby", "deactivated")

#: Loss-recovery presets (``recovery``); the first is the core's default.
RECOVERIES = ("rfc9002", "tcp", "quic-draft", "picoquic")


@dataclass
class RecoveryParams:
    """Values that override the recovery preset's (``None``: the preset's value). They apply
    to the timer-based presets (``tcp``, ``quic-draft``, ``picoquic``); ``rfc9002`` takes none.

    :param min_rto_s: floor of the retransmission timeout (Linux's TCP_RTO_MIN is 0.2 s;
        RFC 6298 §2.4 recommends 1 s).
    :param max_rto_s: cap of the backed-off timeout (0: no cap); at least ``min_rto_s``.
    :param initial_rto_s: timeout before the first RTT sample (RFC 6298 §2.1: 1 s).
    :param rto_formula: timeout from the RTT estimate: ``"rfc6298"`` max(min, SRTT +
        max(G, 4·RTTVAR)) (RFC 6298 §2.3), ``"linux"`` SRTT + max(4·RTTVAR, min) (Linux's
        tcp_set_rto), ``"quic"`` max(min, SRTT + 4·RTTVAR + max_ack_delay)
        (draft-ietf-quic-recovery, picoquic).
    :param rto_backoff: growth per consecutive expiry: ``"double"`` (×2, RFC 6298 §5.5),
        ``"xor"`` (the ns-3 QUIC module's ``2 ^ n``: 2, 3, 0, 1, 6, 7, ...), ``"picoquic"``
        (1, 2, 4, 5, 6, 7, 8, 10, then ×1.25).
    :param tail_loss_probes: probes sent before the timeout fires (RFC 8985 §7: one;
        draft-ietf-quic-recovery: two).
    :param tlp_timing: ``"draft"`` (max(1.5·SRTT + max_ack_delay, 10 ms), or RFC 8985's
        2·SRTT under ``tcp``) or ``"module"`` (the ns-3 QUIC module's 1·SRTT).
    :param time_threshold_loss: declare packets lost by time as well as by packet count
        (RACK, RFC 8985; RFC 9002 §6.1.2).
    :param detect_lost_retransmissions: the loss thresholds apply to retransmissions too.
    :param rto_undo: restore cwnd and ssthresh after a spurious timeout (F-RTO, RFC 5682).
    :param slow_start_after_idle: restart from the initial window after an idle period
        (RFC 5681 §4.1).
    :param loss_state: a path in timeout recovery takes no new data while another path can
        (Linux MPTCP's TCP_CA_Loss rule).
    :param loss_window_packets: window after an expiry (RFC 5681 §3.1: one segment; 0: the
        window stays until the timeout is verified).
    :param rto_probes: new packets sent on each expiry (draft-ietf-quic-recovery: two).
    :param verified_window_packets: window once a timeout is verified (the drafts'
        kMinimumWindow, 2; 0: none).
    :param fast_retransmit: re-send the first packet of each loss detection at once, outside
        the window (TCP's fast retransmit, RFC 5681 §3.2 and RFC 6582; RFC 9002 waits for room).
    :param prr: proportional rate reduction in recovery (RFC 6937): send in proportion to what
        is delivered instead of waiting for the flight to fall below the reduced window.
    """

    min_rto_s: float | None = field(default=None, metadata=duration(0.0, 60.0))
    max_rto_s: float | None = field(default=None, metadata=duration(0.0, 3600.0))
    initial_rto_s: float | None = field(default=None, metadata=duration(0.001, 60.0))
    rto_formula: str | None = field(default=None, metadata=choice("rfc6298", "linux", "quic"))
    rto_backoff: str | None = field(default=None, metadata=choice("double", "xor", "picoquic"))
    tail_loss_probes: int | None = field(default=None, metadata=bounded(0, 2))
    tlp_timing: str | None = field(default=None, metadata=choice("draft", "module"))
    time_threshold_loss: bool | None = None
    detect_lost_retransmissions: bool | None = None
    rto_undo: bool | None = None
    slow_start_after_idle: bool | None = None
    loss_state: bool | None = None
    loss_window_packets: int | None = field(default=None, metadata=bounded(0, 100))
    rto_probes: int | None = field(default=None, metadata=bounded(0, 2))
    verified_window_packets: int | None = field(default=None, metadata=bounded(0, 100))
    fast_retransmit: bool | None = None
    prr: bool | None = None

    def native(self) -> dict[str, Any]:
        """The set values as the native ``recovery_params`` dict (unset ones left out)."""
        return {
            f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None
        }

    def _check_relations(self, path: str, error: type[FieldError]) -> None:
        lo, hi = self.min_rto_s, self.max_rto_s
        if lo is not None and hi is not None and hi > 0 and hi < lo:
            raise error(
                f"{path}.max_rto_s",
                f"must be >= min_rto_s ({lo:g} s) or 0 for no cap (got {hi:g})",
            )


@dataclass
class TransportOptions:
    """Optional transport settings of the native connection (``None``: the core's default).

    :param subflow_paths: topology path of each transport path (default: one per path, in
        order); a subset of the scenario's paths, each at most once (a path may be left out,
        e.g. ``[0]`` for single-path runs). An env maps observation and action ``i`` to
        topology path ``i``, so an env takes every path in order (or leaves this unset).
    :param receive_window_bytes: the receiver's flow-control window; at least one packet
        (``scenario.traffic.packet_bytes``), or nothing is ever delivered.
    :param send_buffer_bytes: the sender's send buffer (bytes the scheduler may hold unsent).
    :param cwnd_validation: ``"rfc9002"`` (RFC 9002 §7.8) or ``"linux"`` (slow start grows while
        cwnd < 2 × the window's peak flight, Linux's ``tcp_is_cwnd_limited``).
    :param reinject_on_pto: re-send a timed-out path's packets on the other paths.
    :param initial_rtt_s: RTT assumed before the first sample (RFC 9002 §6.2.2: 333 ms).
    :param ack_every: the receiver acknowledges every n-th ack-eliciting packet.
    :param max_ack_delay_s: the receiver's maximum ACK delay.
    :param pacing: pace packets at the CC's pacing rate.
    :param initial_path_states: ``active`` | ``standby`` | ``deactivated`` per transport path.
    :param tcp_buffer_bytes: socket buffers of ns-3 TCP cross-traffic flows (0: automatic, a
        send buffer of BDP + queue of the largest path and a receive buffer of twice that).
    :param recovery: loss-recovery preset, one of :data:`RECOVERIES` (default ``"rfc9002"``;
        see the module docstring).
    :param recovery_params: values overriding the preset's (:class:`RecoveryParams`); only
        with a timer-based ``recovery``.
    :param hystart: HyStart++ (RFC 9406) slow-start exit, for ``cc`` ``cubic`` and ``newreno``
        (and their wrappers); the core's default is off.
    :param ecn: ECN (RFC 9000 §13.4, RFC 9002 §7.1): data packets carry the controller's ECT
        codepoint while the path's ECN validation allows it, ACKs carry ECN counts, and a CE
        increase is a congestion event; the core's default is off.
    :param carrier: what carries the transport's packets on each path: ``"leo"`` (the
        default), leogym's 28-byte shim header straight on the link devices, or ``"udp"``, an
        ns-3 UDP socket over IPv4 per path, the reference. Both put the same bytes on the
        wire and give bit-identical measurements while every leogym flow runs (after a flow's
        ``stop_s``, UDP answers late ACKs with ICMP); ``"udp"`` costs several times the CPU
        (``cpp/doc/transport.md``, "Carriers"; the ``env`` bench section measures the ratio).
    """

    subflow_paths: list[int] | None = field(default=None, metadata=bounded(0, 253))
    receive_window_bytes: int | None = field(default=None, metadata=bounded(1024, 2**40))
    send_buffer_bytes: int | None = field(default=None, metadata=bounded(1024, 2**40))
    cwnd_validation: str | None = field(default=None, metadata=choice("rfc9002", "linux"))
    reinject_on_pto: bool | None = None
    initial_rtt_s: float | None = field(default=None, metadata=duration(1e-6, 60.0))
    ack_every: int | None = field(default=None, metadata=bounded(1, 1000))
    max_ack_delay_s: float | None = field(default=None, metadata=duration(0.0, 10.0))
    pacing: bool | None = None
    initial_path_states: list[str] | None = field(default=None, metadata=choice(*PATH_STATES))
    tcp_buffer_bytes: int | None = field(default=None, metadata=bounded(0, 2**30))
    recovery: str | None = field(default=None, metadata=choice(*RECOVERIES))
    recovery_params: RecoveryParams = field(default_factory=RecoveryParams)
    hystart: bool | None = None
    ecn: bool | None = None
    carrier: str | None = field(default=None, metadata=choice("leo", "udp"))

    def __post_init__(self) -> None:
        # A mapping (a dict, an OmegaConf DictConfig) or None, as gymnasium.make kwargs and
        # saved run configs give it, becomes a RecoveryParams; unknown keys are refused.
        params: Any = self.recovery_params
        if not isinstance(params, RecoveryParams):
            self.recovery_params = build(RecoveryParams, params, "env.transport.recovery_params")

    def native(self) -> dict[str, Any]:
        """The set options as native config entries (lists copied; unset options left out;
        ``recovery_params`` as a dict of its set values, left out when none is set)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, RecoveryParams):
                params = value.native()
                if params:
                    out[f.name] = params
            elif value is not None:
                out[f.name] = list(value) if isinstance(value, (list, tuple)) else value
        return out

    def _check_relations(self, path: str, error: type[FieldError]) -> None:
        paths = self.subflow_paths
        if paths is not None:
            if not paths:
                raise error(f"{path}.subflow_paths", "must name at least one path (got [])")
            repeated = sorted({p for p in paths if paths.count(p) > 1})
            if repeated:
                raise error(
                    f"{path}.subflow_paths",
                    f"must name each path at most once (path(s) {repeated} repeat; got {paths})",
                )
        # As the core: the timer settings have no meaning under RFC 9002's PTO.
        set_params = self.recovery_params.native()
        if set_params and self.recovery in (None, RECOVERIES[0]):
            raise error(
                f"{path}.recovery_params",
                f"applies to the timer-based recoveries ({', '.join(RECOVERIES[1:])}), not to "
                f"{RECOVERIES[0]!r}; set {path}.recovery (got {sorted(set_params)})",
            )

    @classmethod
    def coerce(cls, value: Any, where: str = "env.transport") -> TransportOptions:
        """A :class:`TransportOptions` from itself, ``None`` or a mapping of its fields
        (``recovery_params`` may be a mapping of :class:`RecoveryParams` fields).

        :raises ValueError: naming ``where`` for a non-mapping or an unknown key.
        """
        if (
            value is not None
            and not isinstance(value, cls)
            and hasattr(value, "keys")
            and "recovery_params" in value.keys()
        ):
            value = {k: value[k] for k in value.keys()}
            value["recovery_params"] = build(
                RecoveryParams, value["recovery_params"], f"{where}.recovery_params"
            )
        options: TransportOptions = build(cls, value, where)
        return options


def check_against_scenario(
    options: TransportOptions, n_paths: int, packet_bytes: int, where: str = "env.transport"
) -> None:
    """The transport options that depend on the scenario: ``subflow_paths`` names paths the
    scenario has, and ``receive_window_bytes`` holds at least one full packet.

    :param n_paths: the connection's paths in the scenario
        (:func:`leogym.scenario.flows.connection_path_count`).
    :param packet_bytes: ``scenario.traffic.packet_bytes``.
    :raises FieldError: naming ``<where>.<field>``.
    """
    for i, p in enumerate(options.subflow_paths or []):
        if p >= n_paths:
            raise FieldError(
                f"{where}.subflow_paths[{i}]",
                f"path {p} does not exist: the scenario's connection has {n_paths} path(s), "
                f"0 to {n_paths - 1}",
            )
    window = options.receive_window_bytes
    if window is not None and window < packet_bytes:
        raise FieldError(
            f"{where}.receive_window_bytes",
            f"must be >= one packet, scenario.traffic.packet_bytes ({packet_bytes} B); a "
            f"smaller window never lets a packet through (got {window})",
        )


def check_env_subflow_paths(
    options: TransportOptions, n_paths: int, where: str = "env.transport"
) -> None:
    """An env's ``subflow_paths``: unset, or every path in order (``[0, ..., n_paths - 1]``).
    An env's observation row and action entry ``i`` are topology path ``i`` (its measurements
    and its handover forecast), so a subset or another order would pair one path's forecast
    with another's measurements, or give the actions the wrong length.

    :raises FieldError: naming ``<where>.subflow_paths``.
    """
    paths = options.subflow_paths
    every = list(range(n_paths))
    if paths is not None and list(paths) != every:
        raise FieldError(
            f"{where}.subflow_paths",
            f"an env uses every path of the scenario in order, {every} (observation and "
            f"action i are path i); leave it unset, or run a subset of paths through "
            f"leogym.simulation.Simulation (got {list(paths)})",
        )
