"""Replaying measured Starlink traces: public trace files -> arrays on the Timeline grid.

Two public formats (docs/specs/starlink-dynamics.md#public-trace-formats, "Public trace formats and
licences"):

**LeoReplayer pair** (S10). ``bw_{n}.txt`` is a mahimahi trace (Netravali et al., USENIX ATC
2015, ``mm-link``): one integer millisecond timestamp per line, non-decreasing, each line one
1500-byte delivery opportunity, the file repeating shifted by its last timestamp (read by
:func:`leogym.scenario.links.terrestrial.read_mahimahi_trace`). The rate over a window ``[a, b)`` is
``1500 * 8 * (opportunities in [a, b)) / (b - a)``: one line per millisecond is 12 Mbit/s.
``delay_{n}.txt`` holds one one-way delay (ms, an integer in the published files; decimals are
accepted) per 10 ms, line ``k`` covering trace time ``[10 k, 10 (k + 1))`` ms, applied in both
directions (RTT = 2x); it repeats after ``10 * lines`` ms. The pair carries no loss: the path
keeps its own loss arrays.

**LENS IRTT CSV** (S11): one probe per line, ``timestamp,rtt,uplink,downlink``: the probe's
send time in ns, its RTT and its one-way up and down delays in ms. A probe lost in a known
direction has ``-1`` in that direction's column and ``rtt = 0`` (so ``rtt`` alone does not mark
it); one lost in an unknown direction (IRTT ``lost: true``) is ``-1,0,0`` with ``rtt = -1``. A
probe counts as lost when any of the three columns is ``-1``. An optional header line (any
first line that is not four numbers) is skipped. One-way delays rest on NTP and may be
negative, so only ``rtt`` is used for delay; the up/down columns only say which way a probe was
lost. The trace starts at its first probe and repeats after ``last - first + median probe
interval``. Per grid step ``[t, t + dt)`` the delay is the minimum RTT of the probes that came
back in it (the spec's "10 ms minimum per bin"), split ``up_share`` / ``1 - up_share`` over the
directions; steps without a returned probe hold the previous value. Loss: each lost probe
stands for the mean probe spacing (``period / probes``) of loss from its send time, and each
``loss_bin_s`` window gets the share of its time so covered (uplink: probes with
``uplink == -1``, which includes those lost in an unknown direction; downlink: probes with
``downlink == -1``, over the spacing of the probes that reached the server). On an evenly
probed trace that is the window's share of lost probes; a window without probes gets no loss,
so long probe gaps (a pinger's timeout after each loss) are not read as heavy loss, and the
replayed mean equals the trace's share of lost probes. A trace repeated into more than
:data:`MAX_TILED_PROBES` probes over the grid is refused. The trace carries no capacity.

**Alignment.** ``offset_s`` is the trace time at episode time 0, as for terrestrial traces.
Starlink reconfigures every 15 s at fixed UTC seconds (12/27/42/57); a trace recorded elsewhere
has its boundaries at trace times ``b + 15 k``. To put them on the scenario's schedule, whose
first boundary is at episode time ``s = (handover.offset_s - epoch_utc_s) mod 15``
(:func:`scenario_boundary_phase_s`), start the trace at :func:`aligned_offset_s`: the smallest
offset ``>= start_s`` with ``offset + s = b (mod 15)``. ``b`` comes from the trace's own tools
(LeoReplayer's ``traces/extract_reconfiguration.py``) or from
:func:`estimate_boundary_phase_s`, the phase of the 15 s-folded maximum of the delay, where the
boundary's RTT spike sits.

The readers of both formats are :mod:`leogym.scenario.links.trace_readers`; bad input raises
:class:`~leogym.scenario.errors.ScenarioConfigError` (a ``ValueError``) whose message is
``<field>: <file>:<line>: <what is wrong>``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from leogym.scenario.config.replay import ReplayConfig
from leogym.scenario.errors import ScenarioConfigError
from leogym.scenario.files import cached_read
from leogym.scenario.links.terrestrial import trace_capacity_bps
from leogym.scenario.links.trace_readers import (
    LEOREPLAYER_DELAY_STEP_S,
    IrttProbes,
    read_lens_irtt_csv,
    read_leoreplayer_delay,
    read_mahimahi_bw,
)

__all__ = [
    "MAX_TILED_PROBES",
    "check_replay_files",
    "check_replay_span",
    "replay_path",
    "ReplayArrays",
    "mahimahi_rate_bps",
    "leoreplayer_delay_s",
    "irtt_delay_loss",
    "replay_leoreplayer",
    "replay_lens_irtt",
    "scenario_boundary_phase_s",
    "aligned_offset_s",
    "estimate_boundary_phase_s",
]

# --- resampling onto the grid -----------------------------------------------------------


def mahimahi_rate_bps(
    trace_ms: np.ndarray,
    times_s: np.ndarray,
    bin_s: float = 0.1,
    offset_s: float = 0.0,
    min_rate_bps: float = 1e5,
) -> np.ndarray:
    """Rate of a looping mahimahi trace at each of ``times_s`` (bit/s), held per ``bin_s``
    window (windows aligned to ``offset_s``); empty windows get ``min_rate_bps``.

    The spec (section 6) bins LeoReplayer ``bw`` files to 100 ms, the default.
    """
    return trace_capacity_bps(trace_ms, np.asarray(times_s, float), bin_s, offset_s, min_rate_bps)


def leoreplayer_delay_s(
    delay_ms: np.ndarray,
    times_s: np.ndarray,
    offset_s: float = 0.0,
    step_s: float = LEOREPLAYER_DELAY_STEP_S,
) -> np.ndarray:
    """One-way delay (s) at each of ``times_s``: the 10 ms step of the looping delay trace
    that holds trace time ``offset_s + t`` (the value at the sample instant)."""
    tau = offset_s + np.asarray(times_s, dtype=np.float64)
    k = np.floor(tau / step_s + 1e-9).astype(np.int64) % len(delay_ms)
    return np.asarray(delay_ms, dtype=np.float64)[k] * 1e-3


def _hold(values: np.ndarray, ok: np.ndarray, default: float) -> np.ndarray:
    """Forward-fill ``values`` where ``ok`` is False (leading gaps take the first good one)."""
    if ok.all():
        return values
    if not ok.any():
        return np.full(len(values), default)
    idx = np.where(ok, np.arange(len(values)), -1)
    idx = np.maximum.accumulate(idx)
    idx[idx < 0] = int(np.flatnonzero(ok)[0])
    return values[idx]


#: Most probe instances a replay may lay out (the trace repeated over the replayed span):
#: about 10 bytes each per array, so a few hundred MB at most. A 10 ms LENS trace reaches it
#: after about 28 h of scenario time; a trace that repeats every few nanoseconds, at once.
MAX_TILED_PROBES = 20_000_000


def _check_tiles(probes: IrttProbes, lo: float, hi: float, field: str) -> tuple[int, int]:
    """The first and last repetition of the trace that ``[lo, hi)`` touches.

    :raises ScenarioConfigError: they hold more than :data:`MAX_TILED_PROBES` probes.
    """
    p = probes.period_s
    k0, k1 = math.floor(lo / p), math.floor(hi / p)
    count = (k1 - k0 + 1) * len(probes.t_s)
    if count > MAX_TILED_PROBES:
        raise ScenarioConfigError(
            field,
            f"{probes.source}: the trace repeats every {p:.6g} s with {len(probes.t_s)} probes; "
            f"replaying {hi - lo:.6g} s would lay out {count:.3g} probes (at most "
            f"{MAX_TILED_PROBES:.0e}): the trace is too short for this scenario",
        )
    return k0, k1


def _tile(
    probes: IrttProbes, lo: float, hi: float, field: str = "replay.csv"
) -> tuple[np.ndarray, np.ndarray]:
    """Trace times of the looping probes in ``[lo, hi)`` and their probe indices.

    :raises ScenarioConfigError: the span would repeat the trace into more than
        :data:`MAX_TILED_PROBES` probes (a trace far too short for the scenario).
    """
    p = probes.period_s
    k0, k1 = _check_tiles(probes, lo, hi, field)
    t = np.concatenate([probes.t_s + k * p for k in range(k0, k1 + 1)])
    i = np.tile(np.arange(len(probes.t_s)), k1 - k0 + 1)
    m = (t >= lo) & (t < hi)
    return t[m], i[m]


def _loss_measure(starts: np.ndarray, hold_s: float, edges: np.ndarray) -> np.ndarray:
    """Time covered by the intervals ``[s, s + hold_s)`` in each window between consecutive
    ``edges`` (overlaps counted twice). ``starts`` must be sorted."""
    csum = np.concatenate([[0.0], np.cumsum(starts)])
    n_full = np.searchsorted(starts, edges - hold_s, side="right")
    n_began = np.searchsorted(starts, edges, side="right")
    covered = n_full * hold_s + (n_began - n_full) * edges - (csum[n_began] - csum[n_full])
    return np.diff(covered)


def irtt_delay_loss(
    probes: IrttProbes,
    times_s: np.ndarray,
    dt_s: float,
    offset_s: float = 0.0,
    loss_bin_s: float = 1.0,
    up_share: float = 0.5,
    field: str = "replay.csv",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Delay and loss of a LENS IRTT trace on the grid (see the module docstring).

    Loss: each lost probe stands for the trace's mean probe spacing (``period / probes``; for
    the downlink, ``period / probes that reached the server``) of loss from its send time, and
    a ``loss_bin_s`` window gets the share of its time so covered. A window without probes
    therefore gets no loss from them, and the replayed mean equals the trace's share of lost
    probes whatever the gaps between probes; on an evenly probed trace a window's value is its
    share of lost probes.

    :return: ``(delay_down_s, delay_up_s, loss_down, loss_up)``.
    :raises ScenarioConfigError: the trace is too short for the grid (:func:`_tile`).
    """
    times = np.asarray(times_s, dtype=np.float64)
    n = len(times)
    n_probes = len(probes.t_s)
    n_reached = n_probes - int(probes.lost_up.sum())
    hold_up = probes.period_s / n_probes
    hold_down = probes.period_s / max(n_reached, 1)
    lo = offset_s + times[0] - max(hold_up, hold_down)
    t, i = _tile(probes, lo, offset_s + times[-1] + max(dt_s, loss_bin_s), field)
    # delay: minimum RTT of the returned probes in each grid step
    step = np.floor((t - offset_s) / dt_s + 1e-9).astype(np.int64)
    keep = (step >= 0) & (step < n) & np.isfinite(probes.rtt_ms[i])
    best = np.full(n, np.inf)
    np.minimum.at(best, step[keep], probes.rtt_ms[i[keep]])
    first = probes.rtt_ms[np.isfinite(probes.rtt_ms)]
    rtt = _hold(best, np.isfinite(best), float(first[0]) if len(first) else 0.0)
    # loss: time share of each loss_bin_s window covered by the lost probes' spans
    win_of_step = np.floor(times / loss_bin_s + 1e-9).astype(np.int64)
    nwin = int(win_of_step[-1]) + 1
    edges = np.arange(nwin + 1, dtype=np.float64) * loss_bin_s
    rel = t - offset_s
    p_up = _loss_measure(rel[probes.lost_up[i]], hold_up, edges) / loss_bin_s
    p_down = _loss_measure(rel[probes.lost_down[i]], hold_down, edges) / loss_bin_s
    rtt_s = rtt * 1e-3
    return (
        rtt_s * (1.0 - up_share),
        rtt_s * up_share,
        np.clip(p_down[win_of_step], 0.0, 1.0),
        np.clip(p_up[win_of_step], 0.0, 1.0),
    )


# --- whole paths ------------------------------------------------------------------------


@dataclass
class ReplayArrays:
    """Arrays a trace replaces on a path's grid; ``None`` where the trace says nothing (the
    path keeps its own array)."""

    delay_down_s: np.ndarray
    delay_up_s: np.ndarray
    rate_down_bps: np.ndarray | None = None
    rate_up_bps: np.ndarray | None = None
    loss_down: np.ndarray | None = None
    loss_up: np.ndarray | None = None


def replay_leoreplayer(
    bw_down: str | Path,
    delay: str | Path,
    times_s: np.ndarray,
    *,
    bw_up: str | Path | None = None,
    offset_s: float = 0.0,
    bin_s: float = 0.1,
    min_rate_bps: float = 1e5,
    field: str = "replay",
) -> ReplayArrays:
    """Read a LeoReplayer ``bw``/``delay`` pair and resample it onto ``times_s``.

    :param bw_down: mahimahi trace of the downlink; ``bw_up`` that of the uplink (``None``: as
        the downlink).
    :param delay: the 10 ms one-way delay file, applied to both directions.
    :param offset_s: trace time at episode time 0 (see :func:`aligned_offset_s`).
    """
    down_ms = read_mahimahi_bw(bw_down, f"{field}.bw_down")
    up_ms = read_mahimahi_bw(bw_up, f"{field}.bw_up") if bw_up is not None else down_ms
    d_ms = read_leoreplayer_delay(delay, f"{field}.delay")
    times = np.asarray(times_s, dtype=np.float64)
    one_way = leoreplayer_delay_s(d_ms, times, offset_s)
    return ReplayArrays(
        delay_down_s=one_way,
        delay_up_s=one_way.copy(),
        rate_down_bps=mahimahi_rate_bps(down_ms, times, bin_s, offset_s, min_rate_bps),
        rate_up_bps=mahimahi_rate_bps(up_ms, times, bin_s, offset_s, min_rate_bps),
    )


def replay_lens_irtt(
    csv: str | Path,
    times_s: np.ndarray,
    dt_s: float,
    *,
    offset_s: float = 0.0,
    loss_bin_s: float = 1.0,
    up_share: float = 0.5,
    field: str = "replay",
) -> ReplayArrays:
    """Read a LENS IRTT CSV file and resample its delay and loss onto ``times_s``."""
    probes = read_lens_irtt_csv(csv, f"{field}.csv")
    down, up, loss_down, loss_up = irtt_delay_loss(
        probes, times_s, dt_s, offset_s, loss_bin_s, up_share, f"{field}.csv"
    )
    return ReplayArrays(delay_down_s=down, delay_up_s=up, loss_down=loss_down, loss_up=loss_up)


# --- boundary alignment -----------------------------------------------------------------


def scenario_boundary_phase_s(epoch_utc_s: float, period_s: float, offset_s: float) -> float:
    """Episode time of the scenario's first slot boundary at or after 0, in ``[0, period_s)``
    (the phase of :func:`leogym.scenario.links.handover.slot_instants`)."""
    return float(np.mod(offset_s - epoch_utc_s, period_s))


def aligned_offset_s(
    trace_boundary_s: float,
    scenario_boundary_s: float,
    period_s: float = 15.0,
    start_s: float = 0.0,
) -> float:
    """The smallest trace offset ``>= start_s`` that puts the trace's slot boundaries
    (trace times ``trace_boundary_s + k * period_s``) on the scenario's (episode times
    ``scenario_boundary_s + k * period_s``).

    With the result as ``offset_s``, episode time ``scenario_boundary_s`` replays trace time
    ``trace_boundary_s (mod period_s)``.
    """
    shift = float(np.mod(trace_boundary_s - scenario_boundary_s - start_s, period_s))
    if period_s - shift < 1e-9:
        shift = 0.0
    return start_s + shift


def estimate_boundary_phase_s(values: np.ndarray, step_s: float, period_s: float = 15.0) -> float:
    """Phase (trace time mod ``period_s``) of the slot boundaries of an evenly sampled delay
    trace: the start of the phase bin whose mean over all periods is highest (the boundary's
    RTT spike). ``values`` may hold NaN (lost probes), which are ignored.

    :param values: delay samples, sample ``k`` at trace time ``k * step_s``.
    :param step_s: sample spacing; ``period_s`` should be a whole number of steps.
    """
    v = np.asarray(values, dtype=np.float64)
    nbins = max(int(round(period_s / step_s)), 1)
    phase = np.arange(len(v)) % nbins
    ok = np.isfinite(v)
    total = np.bincount(phase[ok], weights=v[ok], minlength=nbins)
    count = np.bincount(phase[ok], minlength=nbins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, total / np.maximum(count, 1), -np.inf)
    return float(int(np.argmax(mean)) * step_s)


# --- files and checks ------------------------------------------------------------------------

T = TypeVar("T")


def _read_only(value: T) -> T:
    """``value`` with its arrays (or an :class:`IrttProbes`' arrays) made read-only: the
    file cache shares it between callers."""
    for a in value.__dict__.values() if isinstance(value, IrttProbes) else (value,):
        if isinstance(a, np.ndarray):
            a.flags.writeable = False
    return value


def _cached(path: str, field: str, read: Callable[[str, str], T]) -> T:
    """``read(path, field)`` through the scenario's one file cache
    (:func:`~leogym.scenario.files.cached_read`): once per file version, errors not kept."""
    return cached_read(read.__name__, path, field, lambda p, f: _read_only(read(p, f)))


def check_replay_files(cfg: ReplayConfig, path: str) -> None:
    """Read (once per file version) every file ``cfg`` names, so that a missing or corrupt
    trace is reported naming its field (``<path>.bw_down``, ...) before anything is built."""
    if cfg.format == "leoreplayer":
        _cached(str(cfg.bw_down), f"{path}.bw_down", read_mahimahi_bw)
        if cfg.bw_up:
            _cached(cfg.bw_up, f"{path}.bw_up", read_mahimahi_bw)
        _cached(str(cfg.delay), f"{path}.delay", read_leoreplayer_delay)
    elif cfg.format == "lens_irtt" and cfg.csv:
        _cached(cfg.csv, f"{path}.csv", read_lens_irtt_csv)


def check_replay_span(cfg: ReplayConfig, duration_s: float, period_s: float, path: str) -> None:
    """Refuse a LENS trace that replaying ``duration_s`` would repeat into more than
    :data:`MAX_TILED_PROBES` probes (before anything is built), naming ``path.csv``.

    :param period_s: the scenario's slot period (the alignment moves the start by less).
    """
    if cfg.format != "lens_irtt" or not cfg.csv:
        return
    probes = _cached(cfg.csv, f"{path}.csv", read_lens_irtt_csv)
    lo = cfg.offset_s - probes.period_s
    hi = cfg.offset_s + period_s + duration_s + max(cfg.loss_bin_s, 1.0)
    _check_tiles(probes, lo, hi, f"{path}.csv")


def replay_path(
    cfg: ReplayConfig,
    times_s: np.ndarray,
    dt_s: float,
    *,
    scenario_boundary_s: float | None,
    period_s: float,
    min_rate_bps: float,
    field: str,
) -> dict[str, np.ndarray]:
    """The arrays ``cfg`` replaces on a path, by :class:`~leogym.scenario.timeline.PathTimeline`
    field name (only those the trace carries).

    :param scenario_boundary_s: episode time of the scenario's first slot boundary (phase,
        :func:`scenario_boundary_phase_s`); needed when ``cfg.trace_boundary_s`` is set.
    :param period_s: the scenario's slot period.
    """
    offset = cfg.offset_s
    if cfg.trace_boundary_s is not None:
        if scenario_boundary_s is None:
            raise ScenarioConfigError(
                f"{field}.trace_boundary_s", "needs handover.mode 'schedule' (slot boundaries)"
            )
        offset = aligned_offset_s(cfg.trace_boundary_s, scenario_boundary_s, period_s, offset)
    times = np.asarray(times_s, dtype=np.float64)
    if cfg.format == "leoreplayer":
        down = _cached(str(cfg.bw_down), f"{field}.bw_down", read_mahimahi_bw)
        up = _cached(cfg.bw_up, f"{field}.bw_up", read_mahimahi_bw) if cfg.bw_up else down
        d_ms = _cached(str(cfg.delay), f"{field}.delay", read_leoreplayer_delay)
        one_way = leoreplayer_delay_s(d_ms, times, offset)
        return {
            "delay_down_s": one_way,
            "delay_up_s": one_way.copy(),
            "rate_down_bps": mahimahi_rate_bps(down, times, cfg.bin_s, offset, min_rate_bps),
            "rate_up_bps": mahimahi_rate_bps(up, times, cfg.bin_s, offset, min_rate_bps),
        }
    if cfg.format == "lens_irtt":
        probes = _cached(str(cfg.csv), f"{field}.csv", read_lens_irtt_csv)
        dd, du, ld, lu = irtt_delay_loss(
            probes, times, dt_s, offset, cfg.loss_bin_s, cfg.up_share, f"{field}.csv"
        )
        return {"delay_down_s": dd, "delay_up_s": du, "loss_down": ld, "loss_up": lu}
    return {}
