"""Drop-tail queue sizes: packets, bytes, or a multiple of the bandwidth-delay product."""

from __future__ import annotations

import math

import numpy as np

from leogym.scenario.config import QueueConfig

__all__ = ["resolve_queue_packets"]


def resolve_queue_packets(
    queue: QueueConfig,
    packet_bytes: int,
    rate_bps: np.ndarray,
    rtt_s: np.ndarray,
    outages: np.ndarray,
    times: np.ndarray,
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
    :return: at least ``queue.min_packets``.
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
    return max(int(queue.min_packets), int(math.ceil(packets - 1e-9)))
