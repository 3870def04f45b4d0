"""Readers of the measured Starlink trace formats that :mod:`leogym.scenario.links.replay` replays
(the formats are described there): a LeoReplayer ``bw`` (mahimahi) and ``delay`` file, and a
LENS IRTT CSV. Bad input raises :class:`~leogym.scenario.errors.ScenarioConfigError` whose
message is ``<field>: <file>:<line>: <what is wrong>``."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from leogym.scenario.errors import ScenarioConfigError, regular_file
from leogym.scenario.links.terrestrial import read_mahimahi_trace

__all__ = [
    "LEOREPLAYER_DELAY_STEP_S",
    "MAX_TRACE_DELAY_MS",
    "IrttProbes",
    "read_leoreplayer_delay",
    "read_lens_irtt_csv",
    "read_mahimahi_bw",
]

#: Step of a LeoReplayer delay file: one line per 10 ms.
LEOREPLAYER_DELAY_STEP_S = 0.01
#: IRTT CSV marker of a lost direction.
_LOST = -1.0
#: Largest delay a trace line may hold (ms): a LeoReplayer one-way delay or a LENS RTT. Pings
#: time out after a few seconds; anything longer is not a path delay but a broken file.
MAX_TRACE_DELAY_MS = 10_000.0


def _open_text(path: str | Path, field: str) -> Path:
    return regular_file(path, field)


def _number(text: str, p: Path, lineno: int, field: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ScenarioConfigError(
            field, f"{p}:{lineno}: expected {what}, got {text[:40]!r}"
        ) from None
    if not math.isfinite(value):
        raise ScenarioConfigError(field, f"{p}:{lineno}: expected {what}, got {text[:40]!r}")
    return value


def read_mahimahi_bw(path: str | Path, field: str = "replay.bw") -> np.ndarray:
    """Read a mahimahi bandwidth trace (LeoReplayer ``bw_{n}.txt``).

    :return: the delivery-opportunity timestamps (ms), int64, non-decreasing.
    :raises ScenarioConfigError: missing or empty file, a line that is not a non-negative
        integer, a timestamp that goes back (each naming the file and line).
    """
    return read_mahimahi_trace(path, field)


def read_leoreplayer_delay(path: str | Path, field: str = "replay.delay") -> np.ndarray:
    """Read a LeoReplayer delay file: one one-way delay (ms) per 10 ms step.

    Blank lines are skipped (they are not steps).

    :return: the one-way delays (ms), float64, one per 10 ms step.
    :raises ScenarioConfigError: missing or empty file, an unparsable or non-finite line, a
        delay outside ``[0, MAX_TRACE_DELAY_MS]`` (each naming the file and line).
    """
    p = _open_text(path, field)
    values: list[float] = []
    with p.open("r", encoding="utf-8", errors="replace") as fh:
        for lineno, raw in enumerate(fh, start=1):
            text = raw.strip()
            if not text:
                continue
            value = _number(text, p, lineno, field, "a one-way delay in ms")
            if value < 0:
                raise ScenarioConfigError(
                    field, f"{p}:{lineno}: delay must be >= 0 ms, got {text[:40]}"
                )
            if value > MAX_TRACE_DELAY_MS:
                raise ScenarioConfigError(
                    field,
                    f"{p}:{lineno}: delay must be <= {MAX_TRACE_DELAY_MS:g} ms, got {text[:40]}",
                )
            values.append(value)
    if not values:
        raise ScenarioConfigError(field, f"{p}: delay trace is empty")
    return np.asarray(values, dtype=np.float64)


@dataclass(frozen=True)
class IrttProbes:
    """The probes of a LENS IRTT CSV file.

    :param t_s: send time of each probe relative to the first one (s), non-decreasing.
    :param rtt_ms: round-trip time (ms); NaN for a lost probe.
    :param lost_up: the probe was lost before the server (or in an unknown direction).
    :param lost_down: the probe reached the server and was lost on the way back.
    :param period_s: the length after which the trace repeats.
    :param source: the file it was read from (for error messages).
    :param start_ns: the first probe's send time as written (ns since the epoch in LENS files).
    """

    t_s: np.ndarray
    rtt_ms: np.ndarray
    lost_up: np.ndarray
    lost_down: np.ndarray
    period_s: float
    source: str = "<probes>"
    start_ns: int = 0


def read_lens_irtt_csv(path: str | Path, field: str = "replay.csv") -> IrttProbes:
    """Read a LENS IRTT CSV file (``timestamp(ns),rtt,uplink,downlink``; see the module
    docstring).

    :raises ScenarioConfigError: missing file, no probes, a line without four numeric columns,
        a timestamp that goes back, an RTT outside ``[0, MAX_TRACE_DELAY_MS]`` other than the
        ``-1`` loss marker (each naming the file and line).
    """
    p = _open_text(path, field)
    stamps: list[int] = []
    rtt: list[float] = []
    up_lost: list[bool] = []
    down_lost: list[bool] = []
    first_content = True
    with p.open("r", encoding="utf-8", errors="replace") as fh:
        for lineno, raw in enumerate(fh, start=1):
            text = raw.strip()
            if not text:
                continue
            cols = [c.strip() for c in text.split(",")]
            if first_content:
                first_content = False
                try:
                    [float(c) for c in cols]
                except ValueError:
                    continue  # a header line
            if len(cols) != 4:
                raise ScenarioConfigError(
                    field,
                    f"{p}:{lineno}: expected 4 columns timestamp,rtt,uplink,downlink, got "
                    f"{len(cols)}: {text[:60]!r}",
                )
            if not (cols[0].isascii() and cols[0].isdigit()) or len(cols[0]) > 21:
                raise ScenarioConfigError(
                    field,
                    f"{p}:{lineno}: expected a non-negative integer timestamp in ns, got "
                    f"{cols[0][:40]!r}",
                )
            ts = int(cols[0])
            if stamps and ts < stamps[-1]:
                raise ScenarioConfigError(
                    field,
                    f"{p}:{lineno}: timestamp {ts} ns goes back from {stamps[-1]} ns",
                )
            r = _number(cols[1], p, lineno, field, "an RTT in ms")
            u = _number(cols[2], p, lineno, field, "an uplink delay in ms")
            d = _number(cols[3], p, lineno, field, "a downlink delay in ms")
            if (r < 0 and r != _LOST) or r > MAX_TRACE_DELAY_MS:
                raise ScenarioConfigError(
                    field,
                    f"{p}:{lineno}: RTT must be in [0, {MAX_TRACE_DELAY_MS:g}] ms or -1 (lost), "
                    f"got {cols[1][:40]}",
                )
            lost = r == _LOST or u == _LOST or d == _LOST
            stamps.append(ts)
            lu = u == _LOST or (lost and d != _LOST)
            rtt.append(math.nan if lost else r)
            up_lost.append(lu)
            down_lost.append(lost and not lu)
    if not stamps:
        raise ScenarioConfigError(field, f"{p}: IRTT trace has no probes")
    t_ns = np.asarray(stamps, dtype=np.int64)
    t_s = (t_ns - t_ns[0]).astype(np.float64) * 1e-9
    gaps = np.diff(t_s)
    step = float(np.median(gaps)) if len(gaps) else 0.0
    period = float(t_s[-1]) + step
    if period <= 0:
        raise ScenarioConfigError(field, f"{p}: IRTT trace spans no time (one send instant)")
    return IrttProbes(
        t_s=t_s,
        rtt_ms=np.asarray(rtt, dtype=np.float64),
        lost_up=np.asarray(up_lost, dtype=bool),
        lost_down=np.asarray(down_lost, dtype=bool),
        period_s=period,
        source=str(p),
        start_ns=stamps[0],
    )
