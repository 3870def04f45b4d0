"""The scenario's limits and shared ranges: what the native core accepts (sizes, rates, times)
and the range metadata (:mod:`leogym.schema`) several configs share."""

from __future__ import annotations

from leogym.schema import bounded, duration

#: Largest UDP payload of a data packet: a 9000-byte jumbo-frame IP MTU less the IPv4 (20 B)
#: and UDP (8 B) headers. The native core refuses larger ``packet_bytes`` too.
MAX_PACKET_BYTES = 9000 - 20 - 8
#: The native core's limit on a drop-tail queue (``queue_packets`` of a path).
MAX_QUEUE_PACKETS = 100_000_000
DAY_S = 86_400.0
#: Longest cross-traffic on/off period and stop time the native core takes (s).
CORE_MAX_S = 1e7
#: Most paths, and most cross-traffic flows, the native core builds.
MAX_PATHS = 254
MAX_CROSS_FLOWS = 15_000
#: Most flows beside the connection under study (``traffic.flows``, counted after ``count``).
MAX_FLOWS = 1024

POSITIVE = bounded(0.0, lo_open=True)
NON_NEGATIVE = bounded(0.0)
#: A per-packet loss probability (1 would drop everything).
PROBABILITY = bounded(0.0, 1.0, hi_open=True)
LATITUDE = bounded(-90.0, 90.0)
LONGITUDE = bounded(-180.0, 360.0)
#: An elevation mask: a satellite on the horizon is at 0 deg, at the zenith at 90 deg.
ELEVATION_MASK = bounded(0.0, 90.0, hi_open=True)
ATTENUATION = bounded(0.0, 1000.0)


#: Highest sending rate of a UDP on/off source (cross traffic and ``udp_onoff`` flows), Mbit/s:
#: 10 Gbit/s, the fastest link of the shipped scenarios (a gateway feeder) and far above any LEO
#: user terminal. A source faster than every link it crosses only fills the first queue, and
#: every packet is simulated: at 1e6 Mbit/s one 1 ms step took 200-600 times its simulated time.
MAX_UDP_RATE_MBPS = 1e4
#: Shortest on and (non-zero) off period of a UDP on/off source, s: 1 ms, the shortest env step
#: (``env.step_ms``). Every switch is an ns-3 event per source; below 1 ns a period became a
#: zero-delay loop and a step never returned, and a burst pattern finer than a step is not
#: seen as one by an agent (use a lower constant rate for it).
MIN_ONOFF_PERIOD_S = 1e-3
UDP_RATE = bounded(0.0, MAX_UDP_RATE_MBPS, lo_open=True)
#: Highest rate of a controlled hop link, Mbit/s: the same 10 Gbit/s. A faster link carries
#: its senders' packets just as fast, and every packet is simulated; 1e303 also overflowed the
#: queue's BDP at ``reset()``.
MAX_LINK_RATE_MBPS = MAX_UDP_RATE_MBPS
LINK_RATE = bounded(0.0, MAX_LINK_RATE_MBPS, lo_open=True)
ON_PERIOD = duration(MIN_ONOFF_PERIOD_S, CORE_MAX_S)
OFF_PERIOD = duration(
    0.0, CORE_MAX_S, nonzero_min=MIN_ONOFF_PERIOD_S, why="the shortest on/off period; 0: always on"
)

__all__ = [
    "MAX_PACKET_BYTES",
    "MAX_QUEUE_PACKETS",
    "DAY_S",
    "CORE_MAX_S",
    "MAX_PATHS",
    "MAX_CROSS_FLOWS",
    "MAX_FLOWS",
    "POSITIVE",
    "NON_NEGATIVE",
    "PROBABILITY",
    "LATITUDE",
    "LONGITUDE",
    "ELEVATION_MASK",
    "ATTENUATION",
    "MAX_UDP_RATE_MBPS",
    "MIN_ONOFF_PERIOD_S",
    "UDP_RATE",
    "MAX_LINK_RATE_MBPS",
    "LINK_RATE",
    "ON_PERIOD",
    "OFF_PERIOD",
]
