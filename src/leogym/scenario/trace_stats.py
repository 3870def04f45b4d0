"""``leogym-trace-stats``: the per-slot statistics of docs/specs/starlink-dynamics.md, measured
on a trace file and on a preset's simulated timelines, side by side.

A trace is read into a :class:`Series`: capacity samples (bit/s on an even grid), RTT probes
(send time, RTT, lost or not) or both, and where the file has a wall clock, the UTC time of its
first sample. Slot boundaries are Starlink's :12/:27/:42/:57 UTC schedule where there is a wall
clock, else the trace's own boundary phase: the 15 s-folded capacity minimum (the stall) for a
capacity trace, the 15 s-folded RTT maximum (the spike) for an RTT trace. Only whole slots
inside the trace count (no wrap-around). The statistics (:func:`slot_stats`):

* capacity: slot means over ``[b + 0.5 s, next b)`` (after the stall), the sd of the log ratio
  of consecutive slot means, the lag-1 correlation of the log slot means, P5/P95 of slot mean
  over the median slot mean, the median stall over every boundary in the trace (the longest run
  of near-zero capacity, below 10 % of the mean of the 15 s around the boundary, starting within
  0.3 s of it);
* RTT: each slot's minimum RTT (the base RTT) and the steps between consecutive slots' minima
  (median |step|, shares within 3 ms and above 10 ms), the boundary spike (highest RTT within
  ``[b - 0.2, b + 1]`` s above the next slot's minimum, median);
* loss: the share of lost probes, overall, inside the boundary windows ``[b - 0.2, b + 1]`` s and
  outside them.

The same statistics are taken on a preset's timelines (``--preset default``: the bundled
scenario's satellite path, ``--duration-s`` 3600, ``--seeds`` 5), cut into windows as long as
the trace (its whole slots plus one) when it is shorter: the band is the P5-P95 of the windows'
figures (what a trace that long would show), or the min-max over the seeds for a trace as long
as the runs; each trace figure is marked inside or outside it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from leogym.scenario.errors import ScenarioConfigError, regular_file
from leogym.scenario.links.trace_readers import (
    LEOREPLAYER_DELAY_STEP_S,
    read_lens_irtt_csv,
    read_leoreplayer_delay,
    read_mahimahi_bw,
)
from leogym.scenario.loader import load_scenario
from leogym.scenario.timeline_builder import build_timeline, resolved_epoch_utc_s

__all__ = ["Series", "read_series", "slot_stats", "preset_stats", "main"]

#: Starlink's slot period (s) and the UTC second of its first boundary in each minute.
SLOT_S = 15.0
UTC_PHASE_S = 12.0
#: Capacity resolution of a mahimahi trace for the slot statistics (s).
CAPACITY_STEP_S = 0.001
#: The boundary window of the loss and spike statistics, relative to a boundary (s).
WINDOW_S = (-0.2, 1.0)
#: A slot mean skips this much after its boundary (the stall and recovery), s.
SKIP_S = 0.5
#: A stall is capacity below this share of the slot median, starting this close to a boundary.
STALL_SHARE = 0.1
STALL_START_S = 0.3


@dataclass
class Series:
    """A trace reduced to what the slot statistics need.

    :param cap_bps: capacity samples, sample ``k`` over ``[k * cap_step_s, (k + 1) * cap_step_s)``.
    :param probe_t_s: RTT probe send times (s from the series start); ``probe_rtt_ms`` NaN = lost.
    :param utc_start_s: UTC epoch seconds of time 0, or ``None`` (no wall clock).
    :param boundary_s: explicit boundary phase (series seconds), overriding the estimate.
    """

    cap_bps: np.ndarray | None = None
    cap_step_s: float = CAPACITY_STEP_S
    probe_t_s: np.ndarray | None = None
    probe_rtt_ms: np.ndarray | None = None
    utc_start_s: float | None = None
    boundary_s: float | None = None
    #: RTT samples on an even grid (LeoReplayer delay x 2; a simulated timeline), for the phase
    #: estimate and the spike; ``None`` = use the probes.
    rtt_grid_ms: np.ndarray | None = None
    rtt_grid_step_s: float = LEOREPLAYER_DELAY_STEP_S

    @property
    def span_s(self) -> float:
        """Length of the series (s)."""
        spans = []
        if self.cap_bps is not None:
            spans.append(len(self.cap_bps) * self.cap_step_s)
        if self.probe_t_s is not None and len(self.probe_t_s):
            spans.append(float(self.probe_t_s[-1]))
        if self.rtt_grid_ms is not None:
            spans.append(len(self.rtt_grid_ms) * self.rtt_grid_step_s)
        return min(spans) if spans else 0.0


# --- readers -------------------------------------------------------------------------------


def _mahimahi_capacity(path: str, field: str) -> np.ndarray:
    ms = read_mahimahi_bw(path, field)
    counts = np.bincount(ms, minlength=int(ms[-1]) + 1)[: int(ms[-1])]
    return counts * 1500.0 * 8.0 / CAPACITY_STEP_S


def _ping(path: str, field: str) -> Series:
    """A ``ping`` log as the MMSys '24 data publish it: ``epoch\\tseq\\trtt_ms`` per line, the
    time the probe completed, ``-1`` = no reply. Send time = completion - RTT; a lost probe is
    put 0.1 s after the previous completion."""
    p = regular_file(path, field)
    done: list[float] = []
    rtt: list[float] = []
    with p.open("r", encoding="utf-8", errors="replace") as fh:
        for lineno, raw in enumerate(fh, start=1):
            cols = raw.split()
            if not cols:
                continue
            try:
                if len(cols) != 3:
                    raise ValueError
                t, r = float(cols[0]), float(cols[2])
            except ValueError:
                raise ScenarioConfigError(
                    field, f"{p}:{lineno}: expected 'epoch seq rtt_ms', got {raw.strip()[:60]!r}"
                ) from None
            if not (math.isfinite(t) and math.isfinite(r)) or (r < 0 and r != -1):
                raise ScenarioConfigError(field, f"{p}:{lineno}: bad time or RTT {raw.strip()!r}")
            done.append(t)
            rtt.append(r)
    if len(done) < 2:
        raise ScenarioConfigError(field, f"{p}: ping log has fewer than two probes")
    d = np.asarray(done)
    rt = np.asarray(rtt)
    lost = rt == -1
    send = d - np.where(lost, 0.0, rt * 1e-3)
    prev = np.concatenate([[d[0] - 5.0], d[:-1]])
    send[lost] = prev[lost] + 0.1
    order = np.argsort(send, kind="stable")
    t0 = float(send[order[0]])
    return Series(
        probe_t_s=send[order] - t0,
        probe_rtt_ms=np.where(lost, np.nan, rt)[order],
        utc_start_s=t0,
    )


def _iperf3(path: str, field: str) -> Series:
    """An iperf3 ``--json`` result: the capacity of its reporting intervals (0.1-1 s)."""
    p = regular_file(path, field)
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
        intervals = doc["intervals"]
        start = doc["start"]["timestamp"]["timesecs"]
        sums = [
            (float(x["sum"]["start"]), float(x["sum"]["end"]), float(x["sum"]["bits_per_second"]))
            for x in intervals
        ]
    except (ValueError, KeyError, TypeError) as exc:
        raise ScenarioConfigError(field, f"{p}: not an iperf3 JSON result ({exc})") from None
    if len(sums) < 2:
        raise ScenarioConfigError(field, f"{p}: iperf3 result has fewer than two intervals")
    step = float(np.median([b - a for a, b, _ in sums]))
    if not 0.05 <= step <= 1.0:
        raise ScenarioConfigError(field, f"{p}: interval {step:g} s, expected 0.1-1 s")
    return Series(
        cap_bps=np.asarray([v for _, _, v in sums]),
        cap_step_s=step,
        utc_start_s=float(start) + sums[0][0],
    )


def read_series(fmt: str, files: Sequence[str], field: str = "trace") -> Series:
    """Read a trace: ``leoreplayer`` (bw [delay]), ``mahimahi`` (bw), ``lens_irtt`` (csv),
    ``ping`` (log) or ``iperf3`` (json).

    :raises ScenarioConfigError: a bad file or a wrong number of files, naming ``field``.
    """
    want = {"leoreplayer": (1, 2), "mahimahi": (1, 1), "lens_irtt": (1, 1), "ping": (1, 1)}
    lo, hi = want.get(fmt, (1, 1))
    if not lo <= len(files) <= hi:
        raise ScenarioConfigError(field, f"format {fmt!r} takes {lo}-{hi} files, got {len(files)}")
    if fmt in ("leoreplayer", "mahimahi"):
        s = Series(cap_bps=_mahimahi_capacity(files[0], f"{field}.bw"))
        if len(files) == 2:
            s.rtt_grid_ms = 2.0 * read_leoreplayer_delay(files[1], f"{field}.delay")
        return s
    if fmt == "lens_irtt":
        probes = read_lens_irtt_csv(files[0], f"{field}.csv")
        return Series(
            probe_t_s=probes.t_s, probe_rtt_ms=probes.rtt_ms, utc_start_s=probes.start_ns * 1e-9
        )
    if fmt == "ping":
        return _ping(files[0], f"{field}.ping")
    if fmt == "iperf3":
        return _iperf3(files[0], f"{field}.iperf3")
    raise ScenarioConfigError(f"{field}.format", f"unknown format {fmt!r}")


# --- statistics ----------------------------------------------------------------------------


def _fold_phase(values: np.ndarray, step_s: float, pick: str) -> float:
    nb = max(int(round(SLOT_S / step_s)), 1)
    v = np.asarray(values, dtype=float)
    ok = np.isfinite(v)
    ph = np.arange(len(v)) % nb
    tot = np.bincount(ph[ok], weights=v[ok], minlength=nb)
    cnt = np.bincount(ph[ok], minlength=nb)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = tot / cnt
    mean = np.where(cnt > 0, mean, np.nan)
    k = np.nanargmin(mean) if pick == "min" else np.nanargmax(mean)
    return float(k * step_s)


def boundary_phase_s(s: Series) -> float:
    """Series time of the first slot boundary phase, in ``[0, 15)``."""
    if s.boundary_s is not None:
        return float(s.boundary_s % SLOT_S)
    if s.utc_start_s is not None:
        return float((UTC_PHASE_S - s.utc_start_s) % SLOT_S)
    if s.cap_bps is not None:
        # 10 ms bins: the folded minimum is the stall
        k = max(int(round(0.01 / s.cap_step_s)), 1)
        n = len(s.cap_bps) // k * k
        return _fold_phase(s.cap_bps[:n].reshape(-1, k).mean(axis=1), k * s.cap_step_s, "min")
    if s.rtt_grid_ms is not None:
        return _fold_phase(s.rtt_grid_ms, s.rtt_grid_step_s, "max")
    assert s.probe_t_s is not None and s.probe_rtt_ms is not None
    grid = np.full(int(s.span_s / 0.1) + 1, np.nan)
    idx = (s.probe_t_s / 0.1).astype(int)
    ok = np.isfinite(s.probe_rtt_ms)
    np.fmin.at(grid, idx[ok], s.probe_rtt_ms[ok])
    return _fold_phase(grid, 0.1, "max")


def _stall_ms(c: np.ndarray, st: float, b: float) -> float:
    """Longest run of capacity below ``STALL_SHARE`` of the surrounding slot-length mean that
    starts within ``STALL_START_S`` of boundary ``b`` (ms); NaN if ``b`` is too near an end."""
    lo, hi = int(round((b - STALL_START_S) / st)), int(round((b + 1.0) / st))
    if hi > len(c):
        return float("nan")
    ref = c[max(int(round((b - SLOT_S / 2) / st)), 0) : int(round((b + SLOT_S / 2) / st))]
    runs = _runs_below(c[lo:hi], STALL_SHARE * float(ref.mean()))
    return max((ln for i, ln in runs if i * st <= 2 * STALL_START_S), default=0) * st * 1e3


def _runs_below(x: np.ndarray, limit: float) -> list[tuple[int, int]]:
    """(start, length) of each run of ``x < limit``."""
    low = np.concatenate([[False], x < limit, [False]]).astype(np.int8)
    d = np.diff(low)
    starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
    return [(int(a), int(b - a)) for a, b in zip(starts, ends, strict=True)]


def slot_stats(s: Series) -> dict[str, float]:
    """The per-slot statistics of ``s`` (module docstring); NaN where the series has no data
    for one."""
    phase = boundary_phase_s(s)
    bounds = np.arange(phase, s.span_s + 1e-9, SLOT_S)
    out: dict[str, float] = {"slots": float(max(len(bounds) - 1, 0)), "phase_s": phase}
    nan = float("nan")
    if s.cap_bps is not None and len(bounds) >= 3:
        c, st = s.cap_bps, s.cap_step_s
        means = [
            float(c[int(round((a + SKIP_S) / st)) : int(round(z / st))].mean())
            for a, z in zip(bounds[:-1], bounds[1:], strict=True)
        ]
        stalls = [_stall_ms(c, st, b) for b in bounds if b >= STALL_START_S]
        stalls = [x for x in stalls if math.isfinite(x)]
        lm = np.log(np.maximum(np.asarray(means), 1.0))
        out["cap_mean_mbps"] = float(np.mean(c)) / 1e6
        out["sd_log_ratio"] = float(np.std(np.diff(lm), ddof=1)) if len(lm) >= 3 else nan
        out["lag1"] = float(np.corrcoef(lm[:-1], lm[1:])[0, 1]) if len(lm) >= 4 else nan
        rel = np.asarray(means) / np.median(means)
        out["p5"], out["p95"] = (float(x) for x in np.percentile(rel, [5, 95]))
        out["stall_med_ms"] = float(np.median(stalls))
    if s.probe_t_s is not None and s.probe_rtt_ms is not None and len(bounds) >= 3:
        t, r = s.probe_t_s, s.probe_rtt_ms
        slot = np.searchsorted(bounds, t, side="right") - 1
        inside = (slot >= 0) & (slot < len(bounds) - 1)
        mins = np.full(len(bounds) - 1, np.nan)
        ok = inside & np.isfinite(r)
        np.fmin.at(mins, slot[ok], r[ok])
        _rtt_steps(out, mins)
        lost = ~np.isfinite(r)
        rel = t - bounds[np.clip(slot, 0, len(bounds) - 1)]
        nxt = bounds[np.clip(slot + 1, 0, len(bounds) - 1)] - t
        win = (rel <= WINDOW_S[1]) | (nxt <= -WINDOW_S[0])
        out["loss"] = float(lost.mean())
        out["loss_in_window"] = float(lost[win].mean()) if win.any() else nan
        out["loss_outside"] = float(lost[~win].mean()) if (~win).any() else nan
        spikes = []
        for k in range(1, len(bounds) - 1):
            w = (t >= bounds[k] + WINDOW_S[0]) & (t < bounds[k] + WINDOW_S[1]) & np.isfinite(r)
            if w.any() and np.isfinite(mins[k]):
                spikes.append(float(r[w].max() - mins[k]))
        out["spike_med_ms"] = float(np.median(spikes)) if spikes else nan
    elif s.rtt_grid_ms is not None and len(bounds) >= 3:
        g, st = s.rtt_grid_ms, s.rtt_grid_step_s
        mins = np.asarray(
            [
                g[int(round(a / st)) : int(round(z / st))].min()
                for a, z in zip(bounds[:-1], bounds[1:], strict=True)
            ]
        )
        _rtt_steps(out, mins)
        spikes = [
            float(
                g[int(round((b + WINDOW_S[0]) / st)) : int(round((b + WINDOW_S[1]) / st))].max()
                - mins[k]
            )
            for k, b in enumerate(bounds[1:-1], start=1)
        ]
        out["spike_med_ms"] = float(np.median(spikes))
    return out


def _rtt_steps(out: dict[str, float], mins: np.ndarray) -> None:
    steps = np.abs(np.diff(mins))
    steps = steps[np.isfinite(steps)]
    nan = float("nan")
    out["rtt_step_med_ms"] = float(np.median(steps)) if len(steps) else nan
    out["p_step_le_3ms"] = float(np.mean(steps <= 3.0)) if len(steps) else nan
    out["p_step_gt_10ms"] = float(np.mean(steps > 10.0)) if len(steps) else nan


# --- presets -------------------------------------------------------------------------------


def preset_series(name: str, duration_s: float, seed: int) -> Series:
    """The satellite path of bundled scenario ``name`` (``duration_s``, ``seed``) as a series:
    its downlink capacity, its RTT on the grid and, as probes every grid step, its loss drawn
    from the loss arrays (uplink, then downlink)."""
    cfg = dataclasses.replace(load_scenario(name), duration_s=duration_s)
    cfg.sampling = dataclasses.replace(cfg.sampling, epoch_utc_s=[])
    tl = build_timeline(load_scenario(cfg), seed=seed)
    (sat,) = [p for p in tl.paths if p.kind == "satellite"][:1]
    dt = tl.dt_s
    rtt = (sat.delay_down_s + sat.delay_up_s) * 1e3
    rng = np.random.default_rng(seed)
    p_lost = 1.0 - (1.0 - sat.loss_up) * (1.0 - sat.loss_down)
    lost = rng.random(len(rtt)) < p_lost
    epoch = resolved_epoch_utc_s(cfg)
    phase = (cfg.handover.offset_s - epoch) % cfg.handover.period_s
    return Series(
        cap_bps=np.asarray(sat.rate_down_bps, dtype=float),
        cap_step_s=dt,
        probe_t_s=np.asarray(tl.times, dtype=float),
        probe_rtt_ms=np.where(lost, np.nan, rtt),
        boundary_s=float(phase),
    )


def window(s: Series, start_s: float, length_s: float) -> Series:
    """The part of ``s`` in ``[start_s, start_s + length_s)``, as a series starting at 0."""
    out = dataclasses.replace(s)
    if s.cap_bps is not None:
        a = int(round(start_s / s.cap_step_s))
        out.cap_bps = s.cap_bps[a : a + int(round(length_s / s.cap_step_s))]
    if s.probe_t_s is not None and s.probe_rtt_ms is not None:
        m = (s.probe_t_s >= start_s) & (s.probe_t_s < start_s + length_s)
        out.probe_t_s = s.probe_t_s[m] - start_s
        out.probe_rtt_ms = s.probe_rtt_ms[m]
    if s.rtt_grid_ms is not None:
        a = int(round(start_s / s.rtt_grid_step_s))
        out.rtt_grid_ms = s.rtt_grid_ms[a : a + int(round(length_s / s.rtt_grid_step_s))]
    out.boundary_s = (boundary_phase_s(s) - start_s) % SLOT_S
    if s.utc_start_s is not None:
        out.utc_start_s = s.utc_start_s + start_s
    return out


def preset_stats(
    name: str, duration_s: float = 3600.0, seeds: int = 5, window_s: float | None = None
) -> list[dict[str, float]]:
    """:func:`slot_stats` of preset ``name``'s timelines (seeds ``0 .. seeds-1``): one dict per
    seed, or with ``window_s`` shorter than ``duration_s``, one per ``window_s`` piece of each
    (what a trace of that length would show)."""
    out = []
    for k in range(seeds):
        s = preset_series(name, duration_s, k)
        if window_s is None or window_s >= duration_s:
            out.append(slot_stats(s))
            continue
        for i in range(int(duration_s // window_s)):
            out.append(slot_stats(window(s, i * window_s, window_s)))
    return out


def band(values: Sequence[float]) -> tuple[float, float]:
    """The band of a statistic over preset runs: min-max of up to 10 values (whole runs), else
    P5-P95 (trace-length windows)."""
    v = np.asarray([x for x in values if math.isfinite(x)], dtype=float)
    if len(v) <= 10:
        return float(v.min()), float(v.max())
    lo, hi = np.percentile(v, [5, 95])
    return float(lo), float(hi)


# --- CLI -----------------------------------------------------------------------------------

_ROWS = (
    ("slots", "whole slots", "{:.0f}"),
    ("phase_s", "boundary phase (s)", "{:.2f}"),
    ("cap_mean_mbps", "mean capacity (Mbit/s)", "{:.2f}"),
    ("sd_log_ratio", "sd of ln(slot mean ratio)", "{:.3f}"),
    ("lag1", "lag-1 corr of ln slot mean", "{:.3f}"),
    ("p5", "slot mean / median, P5", "{:.3f}"),
    ("p95", "slot mean / median, P95", "{:.3f}"),
    ("stall_med_ms", "median stall (ms)", "{:.1f}"),
    ("rtt_step_med_ms", "median |base-RTT step| (ms)", "{:.2f}"),
    ("p_step_le_3ms", "P(|step| <= 3 ms)", "{:.3f}"),
    ("p_step_gt_10ms", "P(|step| > 10 ms)", "{:.3f}"),
    ("spike_med_ms", "median boundary spike (ms)", "{:.1f}"),
    ("loss", "loss", "{:.4f}"),
    ("loss_in_window", "loss in boundary window", "{:.4f}"),
    ("loss_outside", "loss outside it", "{:.4f}"),
)


#: Rows that describe the series rather than Starlink: printed without a verdict.
_INFO = frozenset({"slots", "phase_s", "cap_mean_mbps"})


def format_table(trace: dict[str, float], bands: list[dict[str, float]] | None) -> str:
    """The statistics as a text table, with the preset's min-max band and inside/outside."""
    lines = []
    for key, label, fmt in _ROWS:
        v = trace.get(key, float("nan"))
        text = fmt.format(v) if math.isfinite(v) else "-"
        row = f"{label:30s} {text:>10s}"
        if bands:
            vals = [b.get(key, float("nan")) for b in bands]
            vals = [x for x in vals if math.isfinite(x)]
            if vals:
                lo, hi = band(vals)
                shown = f"{fmt.format(lo)}-{fmt.format(hi)}"
                verdict = ""
                if key not in _INFO and math.isfinite(v):
                    verdict = "inside" if lo <= v <= hi else "OUTSIDE"
                row += f"  {shown:>20s}  {verdict}"
        lines.append(row)
    return "\n".join(lines)


def _span(stats: dict[str, float]) -> float | None:
    """Trace-length window for the preset's band: the trace's whole slots plus one (NaN-free)."""
    n = stats.get("slots")
    return (n + 1.0) * SLOT_S if n else None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``leogym-trace-stats``."""
    ap = argparse.ArgumentParser(
        prog="leogym-trace-stats",
        description="Per-slot Starlink statistics of a trace, beside a preset's (with bands).",
    )
    ap.add_argument("files", nargs="*", help="trace file(s); leoreplayer: BW [DELAY]")
    ap.add_argument(
        "--format",
        default="leoreplayer",
        choices=("leoreplayer", "mahimahi", "lens_irtt", "ping", "iperf3"),
    )
    ap.add_argument("--boundary-s", type=float, default=None, help="trace boundary phase (s)")
    ap.add_argument("--preset", default=None, help="bundled scenario to compare (e.g. default)")
    ap.add_argument("--duration-s", type=float, default=3600.0)
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args(argv)
    try:
        trace: dict[str, float] = {}
        if args.files:
            s = read_series(args.format, args.files)
            if args.boundary_s is not None:
                s.boundary_s = args.boundary_s
            trace = slot_stats(s)
        span = _span(trace)
        bands = (
            preset_stats(args.preset, args.duration_s, args.seeds, span) if args.preset else None
        )
    except ValueError as exc:
        print(f"leogym-trace-stats: {exc}", file=sys.stderr)
        return 2
    header = f"{'statistic':30s} {'trace':>10s}"
    if bands:
        header += f"  {args.preset + ' band':>20s}"
    print(header)
    print(format_table(trace, bands))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
