"""Writers of synthetic traces in the public Starlink formats that leogym replays.

Every trace here is made up (constant rates, known steps, known delays, a known loss pattern),
so tests can check the readers against arithmetic; no measured trace is shipped. Formats:
``src/leogym/scenario/links/replay.py`` and docs/specs/starlink-dynamics.md#public-trace-formats.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path


def write_lines(path: Path, lines: Iterable[object]) -> Path:
    """Write one item per line."""
    path.write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")
    return path


def mahimahi_steps(segments: Sequence[tuple[int, int]]) -> list[int]:
    """Timestamps (ms) of a mahimahi trace made of ``(duration_ms, per_ms)`` segments: in each
    millisecond ``m = 1, 2, ...`` of a segment, ``per_ms`` delivery opportunities (each 1500 B,
    so ``per_ms`` lines per ms are ``12 * per_ms`` Mbit/s). The last timestamp (the period)
    is the total duration."""
    out: list[int] = []
    start = 0
    for duration_ms, per_ms in segments:
        for m in range(start + 1, start + duration_ms + 1):
            out.extend([m] * per_ms)
        start += duration_ms
    return out


def write_mahimahi(path: Path, segments: Sequence[tuple[int, int]]) -> Path:
    """A mahimahi bandwidth trace (LeoReplayer ``bw_{n}.txt``) of :func:`mahimahi_steps`."""
    return write_lines(path, mahimahi_steps(segments))


def delay_steps(segments: Sequence[tuple[int, float]]) -> list[float]:
    """One-way delays (ms), one per 10 ms, from ``(lines, delay_ms)`` segments."""
    return [d for lines, d in segments for _ in range(lines)]


def write_delay(path: Path, segments: Sequence[tuple[int, float]]) -> Path:
    """A LeoReplayer delay file (``delay_{n}.txt``): integers where the delay is whole."""
    return write_lines(
        path, (int(d) if float(d).is_integer() else d for d in delay_steps(segments))
    )


def irtt_rows(
    count: int,
    interval_ms: float = 10.0,
    rtt_ms: Sequence[float] = (40.0,),
    lost_up_every: int = 0,
    lost_down_every: int = 0,
    lost_down_phase: int = 0,
    start_ns: int = 1_700_000_000_000_000_000,
) -> list[tuple[int, float, float, float]]:
    """LENS IRTT CSV rows ``(timestamp_ns, rtt, uplink, downlink)``.

    Probe ``k`` is sent at ``start_ns + k * interval_ms``; its RTT is ``rtt_ms[k % len]``,
    split evenly into the one-way columns. Probe ``k`` is lost upstream when
    ``k % lost_up_every == 0`` (``rtt = uplink = downlink = -1``), else downstream when
    ``k % lost_down_every == lost_down_phase`` (``rtt = downlink = -1``).
    """
    rows = []
    for k in range(count):
        ts = start_ns + round(k * interval_ms * 1e6)
        r = float(rtt_ms[k % len(rtt_ms)])
        if lost_up_every and k % lost_up_every == 0:
            rows.append((ts, -1.0, -1.0, -1.0))
        elif lost_down_every and k % lost_down_every == lost_down_phase:
            rows.append((ts, -1.0, r / 2, -1.0))
        else:
            rows.append((ts, r, r / 2, r / 2))
    return rows


def write_irtt_csv(
    path: Path, rows: Sequence[tuple[int, float, float, float]], header: bool = True
) -> Path:
    """A LENS IRTT CSV file of ``rows`` (optionally with a header line)."""
    lines = ["timestamp,rtt,uplink,downlink"] if header else []
    lines += [f"{ts},{r:g},{u:g},{d:g}" for ts, r, u, d in rows]
    return write_lines(path, lines)
