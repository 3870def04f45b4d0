"""Terrestrial path capacity: constant, mahimahi trace, or a seeded Markov chain.

mahimahi trace format (Netravali et al., "Mahimahi: Accurate Record-and-Replay for HTTP",
USENIX ATC 2015; ``mm-link``): one line per packet delivery opportunity, an integer number of
milliseconds since the start, non-decreasing; each opportunity delivers one 1500-byte MTU. When
the trace ends it repeats, shifted by its last timestamp. Capacity over a window ``[a, b)`` is
``1500 * 8 * (opportunities in [a, b)) / (b - a)``; we use windows of ``trace_bin_s`` aligned
to the episode start (plus ``trace_offset_s``). Windows with no opportunity get ``min_rate_mbps``
(the contract requires positive rates outside outages; a trace gap is a capacity dip, not a
link outage, because mahimahi keeps queued packets during a gap).

Markov model: the capacity holds one of ``markov_states_mbps`` for an exponentially distributed
time (mean ``markov_mean_dwell_s``), then jumps to a different state chosen uniformly. The first
state is uniform. All draws come from the path's seeded generator.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from leogym.scenario.errors import ScenarioConfigError, regular_file

__all__ = ["read_mahimahi_trace", "trace_capacity_bps", "markov_capacity_bps", "MTU_BYTES"]

#: mahimahi delivers one 1500-byte MTU per opportunity.
MTU_BYTES = 1500


def read_mahimahi_trace(path: str | Path, field: str) -> np.ndarray:
    """Read a mahimahi trace.

    :param path: the file.
    :param field: config field path used in error messages.
    :return: the timestamps (ms), int64, non-decreasing.
    :raises ScenarioConfigError: missing file, a non-integer or negative line (with its
        number), decreasing timestamps, or an empty trace / last timestamp 0.
    """
    p = regular_file(path, field)
    values: list[int] = []
    previous = 0
    with p.open("r", encoding="utf-8", errors="replace") as fh:
        for lineno, raw in enumerate(fh, start=1):
            text = raw.strip()
            if not text:
                continue
            # isdigit() alone admits '²' and other Unicode digits that int() refuses
            if not (text.isascii() and text.isdigit()) or len(text) > 15:
                raise ScenarioConfigError(
                    field,
                    f"{p}:{lineno}: expected a non-negative integer below 1e15 (ms), got "
                    f"{text[:40]!r}",
                )
            value = int(text)
            if value < previous:
                raise ScenarioConfigError(
                    field, f"{p}:{lineno}: timestamps must not decrease ({value} < {previous})"
                )
            previous = value
            values.append(value)
    if not values or values[-1] <= 0:
        raise ScenarioConfigError(field, f"{p}: trace is empty or its last timestamp is 0")
    return np.asarray(values, dtype=np.int64)


def _opportunities_before(trace_ms: np.ndarray, x_ms: np.ndarray) -> np.ndarray:
    """Number of delivery opportunities strictly before ``x_ms`` in the looping trace."""
    period = float(trace_ms[-1])
    x = np.asarray(x_ms, dtype=float)
    q = np.ceil(x / period) - 1.0
    rem = x - q * period
    count = q * len(trace_ms) + np.searchsorted(trace_ms, rem, side="left")
    return np.where(x <= 0, 0.0, count)


def trace_capacity_bps(
    trace_ms: np.ndarray,
    times_s: np.ndarray,
    bin_s: float,
    offset_s: float,
    min_rate_bps: float,
) -> np.ndarray:
    """Capacity of a looping mahimahi trace at each of ``times_s`` (bit/s, held per bin).

    :param trace_ms: timestamps from :func:`read_mahimahi_trace`.
    :param times_s: sample times (episode time).
    :param bin_s: averaging window.
    :param offset_s: where in the trace episode time 0 falls.
    :param min_rate_bps: floor for empty windows.
    """
    idx = np.floor(np.asarray(times_s) / bin_s + 1e-9)
    lo = (offset_s + idx * bin_s) * 1000.0
    hi = lo + bin_s * 1000.0
    count = _opportunities_before(trace_ms, hi) - _opportunities_before(trace_ms, lo)
    return np.maximum(count * MTU_BYTES * 8.0 / bin_s, min_rate_bps)


def markov_capacity_bps(
    states_mbps: list[float],
    mean_dwell_s: float,
    times_s: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Piecewise-constant capacity from the Markov model at each of ``times_s`` (bit/s)."""
    states = np.asarray(states_mbps, dtype=float) * 1e6
    end = float(times_s[-1]) if len(times_s) else 0.0
    starts = [0.0]
    which = [int(rng.integers(len(states)))]
    t = 0.0
    while True:
        t += float(rng.exponential(mean_dwell_s))
        if t > end:
            break
        if len(states) > 1:
            step = int(rng.integers(1, len(states)))
            which.append((which[-1] + step) % len(states))
        else:
            which.append(which[-1])
        starts.append(t)
    idx = np.searchsorted(np.asarray(starts), times_s, side="right") - 1
    return states[np.asarray(which)[idx]]
