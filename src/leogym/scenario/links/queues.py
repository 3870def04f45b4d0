"""Drop-tail queue sizes: packets, bytes, or a multiple of the bandwidth-delay product."""

from __future__ import annotations

import math

import numpy as np

from leogym.scenario.config import MAX_QUEUE_PACKETS, QueueConfig
from leogym.scenario.errors import field_error

__all__ = ["MAX_QUEUE_PACKETS", "check_queue", "resolve_queue_packets"]


def resolve_queue_packets(
    queue: QueueConfig,
    packet_bytes: int,
    rate_bps: np.ndarray,
    rtt_s: np.ndarray,
    outages: np.ndarray,
    times: np.ndarray,
    field: str = "scenario.paths[].queue.size",
) -> int:
    """Queue limit in packets of ``packet_bytes``.

    ``bdp``: ``size * mean(rate) * mean(rtt) / 8 / packet_bytes``, with the means taken over the
    samples outside outages (propagation RTT, i.e. without queueing).

    :param queue: the queue config.
    :param packet_bytes: size of a full data packet.
    :param rate_bps: the bottleneck rate of the path over time.
    :param rtt_s: the propagation RTT of the path over time.
    :param outages: ``(k, 2)`` outage intervals, excluded from the means.
    :param times: sample times.
    :param field: the queue's config field, named in errors.
    :return: at least ``queue.min_packets``.
    :raises ScenarioConfigError: the queue resolves to more than :data:`MAX_QUEUE_PACKETS`
        packets (e.g. a BDP multiple of an absurd rate or delay).
    """
    if queue.unit == "packets":
        packets = float(queue.size)
    elif queue.unit == "bytes":
        packets = queue.size / packet_bytes
    else:
        up = np.ones(len(times), dtype=bool)
        for a, b in np.asarray(outages).reshape(-1, 2):
            up &= ~((times >= a) & (times < b))
        if not up.any():
            up[:] = True
        bdp_bytes = float(np.mean(rate_bps[up])) * float(np.mean(rtt_s[up])) / 8.0
        packets = queue.size * bdp_bytes / packet_bytes
    if not math.isfinite(packets) or max(packets, queue.min_packets) > MAX_QUEUE_PACKETS:
        raise field_error(
            field,
            f"resolves to {packets:.4g} packets of {packet_bytes} B, more than the "
            f"{MAX_QUEUE_PACKETS:g} a path's queue may hold (check the path's rates and delays)",
            queue.size,
        )
    return max(int(queue.min_packets), int(math.ceil(packets - 1e-9)))


def check_queue(qp: str, q: QueueConfig) -> None:
    """A queue's size in whole packets within the core's limit, and its discipline's
    parameters (``qp`` is its field path)."""
    if q.unit == "packets" and float(q.size) != int(q.size):
        raise field_error(f"{qp}.size", "must be a whole number of packets", q.size)
    if q.unit == "packets" and q.size > MAX_QUEUE_PACKETS:
        raise field_error(f"{qp}.size", f"must be <= {MAX_QUEUE_PACKETS} packets", q.size)
    _queue_discipline(qp, q)


def _queue_discipline(qp: str, q: QueueConfig) -> None:
    """Relations between a queue's discipline parameters (ranges are on the fields)."""
    if q.ecn and q.discipline == "droptail":
        raise field_error(f"{qp}.ecn", "drop-tail cannot mark; choose an AQM discipline", True)
    if q.ecn and q.ecn_handling != "pass":
        raise field_error(
            f"{qp}.ecn_handling",
            "a link that cannot carry ECN cannot mark: use 'pass' or turn ecn off",
            q.ecn_handling,
        )
    native = q.native()
    if q.discipline in ("codel", "fq_codel") and native["target_ms"] >= q.interval_ms:  # type: ignore[operator]
        raise field_error(
            f"{qp}.target_ms", f"must be below interval_ms ({q.interval_ms})", native["target_ms"]
        )
    if q.discipline == "red" and q.max_th <= q.min_th:
        raise field_error(f"{qp}.max_th", f"must be above min_th ({q.min_th})", q.max_th)
