"""Shared machinery of the reproduction experiments: scenario -> native simulation -> series.

The experiments drive ``leogym._core.Simulation`` directly with a scenario's Timeline
(:func:`leogym.scenario.build_timeline`), so that they can choose the transport settings of each
paper (scheduler, cross traffic, subflow mapping) without going through an env. The algorithm
under test is always the native one, selected by name as the env would select it.
"""

from __future__ import annotations

import copy
import csv
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "RunSeries",
    "native_config",
    "native_paths",
    "run_simulation",
    "Table",
    "progress",
    "pct_change",
]

#: Keys of the per-step measurement dict kept as time series (per path unless noted).
_SERIES_KEYS = (
    "cwnd_bytes",
    "srtt_s",
    "min_rtt_s",
    "latest_rtt_s",
    "delivered_bytes",
    "sent_bytes",
    "lost_packets",
    "retransmitted_packets",
    "drops_outage",
    "drops_random",
    "drops_overflow",
    "suppressed_losses",
    "path_state",
    "pacing_rate_bps",
    "in_outage",
)


@dataclass
class RunSeries:
    """Per-step series of one simulation run.

    :ivar t: end time of each step (s), shape ``(n,)``.
    :ivar per_path: measurement name -> array ``(n, n_paths)``.
    :ivar goodput_bytes: in-order bytes delivered to the application per step, ``(n,)``.
    :ivar cross_rx_bytes: bytes received per cross-traffic flow per step, ``(n, n_flows)``.
    :ivar completion_time_s: the file's completion time (NaN if not completed).
    :ivar wall_s: wall-clock seconds the run took.
    """

    t: np.ndarray
    per_path: dict[str, np.ndarray]
    goodput_bytes: np.ndarray
    cross_rx_bytes: np.ndarray
    completion_time_s: float
    wall_s: float
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def step_s(self) -> float:
        return float(self.t[1] - self.t[0]) if len(self.t) > 1 else float(self.t[0])

    def goodput_mbps(self) -> np.ndarray:
        """Application goodput per step (Mbit/s)."""
        return self.goodput_bytes * 8e-6 / self.step_s

    def path_rate_mbps(self) -> np.ndarray:
        """Per-path acknowledged rate per step (Mbit/s), ``(n, n_paths)``."""
        return self.per_path["delivered_bytes"] * 8e-6 / self.step_s


def native_config(
    scenario: Any,
    *,
    cc: str,
    scheduler: str,
    seed: int,
    cc_params: dict[str, float] | None = None,
    scheduler_params: dict[str, float] | None = None,
    cross_traffic: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The ``config`` dict of ``_core.Simulation`` for a scenario's traffic section.

    :param scenario: a :class:`~leogym.scenario.ScenarioConfig`.
    :param cc: congestion controller name (``"freeze+cubic"`` allowed).
    :param scheduler: scheduler name.
    :param seed: ns-3 run number (the RngRun); the RNG seed is fixed at 1.
    :param cross_traffic: override the scenario's cross traffic (native dicts); ``None`` uses
        the scenario's, expanding ``count``.
    :param extra: further native keys (``subflow_paths``, ``start_s``, ...).
    """
    tr = scenario.traffic
    if cross_traffic is None:
        cross_traffic = []
        for c in tr.cross_traffic:
            d: dict[str, Any] = {
                "kind": c.kind,
                "path": int(c.path),
                "direction": c.direction,
                "start_s": float(c.start_s),
            }
            if c.stop_s is not None:
                d["stop_s"] = float(c.stop_s)
            if c.kind == "udp_onoff":
                d.update(rate_bps=c.rate_mbps * 1e6, on_s=c.on_s, off_s=c.off_s)
            cross_traffic.extend(copy.deepcopy(d) for _ in range(int(c.count)))
    cfg: dict[str, Any] = {
        "seed": 1,
        "run": int(seed),
        "packet_bytes": int(tr.packet_bytes),
        "cc": cc,
        "cc_params": dict(cc_params or {}),
        "scheduler": scheduler,
        "scheduler_params": dict(scheduler_params or {}),
        "workload": tr.workload,
        "cross_traffic": cross_traffic,
        "start_s": float(tr.start_s),
    }
    if tr.workload == "file":
        cfg["file_bytes"] = int(tr.file_bytes)
    cfg.update(extra)
    return cfg


def native_paths(scenario: Any, timeline: Any) -> list[dict[str, Any]]:
    """The timeline's native path dicts plus ``slant_range_m`` for satellite paths (from the
    elevation and the shell altitude), which MACO's link budget reads through the oracle."""
    from leogym.scenario.geometry import slant_range_at_elevation_km
    from leogym.scenario.presets import resolve_constellation

    paths = timeline.to_native()
    try:
        altitude = resolve_constellation(scenario.constellation).altitude_km
    except Exception:  # noqa: BLE001 - TLE constellations have no single altitude
        altitude = 0.0
    for d in paths:
        if d.get("kind") == "satellite" and altitude > 0:
            elev = np.asarray(d["elevation_deg"], dtype=np.float64)
            km = slant_range_at_elevation_km(altitude, np.clip(elev, 0.0, 90.0))
            km = np.where(np.isfinite(elev), km, np.nan)
            d["slant_range_m"] = np.ascontiguousarray(km * 1e3, dtype=np.float64)
    return paths


def run_simulation(
    scenario: Any,
    config: dict[str, Any],
    *,
    timeline_seed: int,
    duration_s: float,
    step_s: float = 0.1,
    stop_when_done: bool = True,
    on_step: Callable[[float], None] | None = None,
) -> RunSeries:
    """Build the timeline, run the native simulation for ``duration_s`` and collect series.

    :param on_step: called with the simulated time after every step (progress bars).
    """
    from leogym.native import core
    from leogym.scenario import build_timeline

    tl = build_timeline(scenario, seed=int(timeline_seed))
    paths = native_paths(scenario, tl)
    t0 = time.perf_counter()
    sim = core().Simulation(config, paths)
    ts: list[float] = []
    series: dict[str, list[np.ndarray]] = {k: [] for k in _SERIES_KEYS}
    goodput: list[float] = []
    cross: list[np.ndarray] = []
    completion = math.nan
    try:
        n = int(round(duration_s / step_s))
        for _ in range(n):
            m = sim.step(step_s)
            ts.append(float(m["time_s"]))
            for k in _SERIES_KEYS:
                series[k].append(np.asarray(m[k], dtype=np.float64).copy())
            goodput.append(float(np.asarray(m["goodput_bytes"])))
            cross.append(np.asarray(m["cross_traffic_rx_bytes"], dtype=np.float64).copy())
            if on_step is not None:
                on_step(ts[-1])
            if bool(np.asarray(m["completed"])):
                completion = float(np.asarray(m["completion_time_s"]))
                if stop_when_done:
                    break
    finally:
        sim.close()
    return RunSeries(
        t=np.asarray(ts),
        per_path={k: np.vstack(v) if v else np.zeros((0, 0)) for k, v in series.items()},
        goodput_bytes=np.asarray(goodput),
        cross_rx_bytes=np.vstack(cross) if cross and cross[0].size else np.zeros((len(ts), 0)),
        completion_time_s=completion,
        wall_s=time.perf_counter() - t0,
        meta={
            "handovers": [np.asarray(p.handovers) for p in tl.paths],
            "outages": [np.asarray(p.outages) for p in tl.paths],
            "rate_down_mean_bps": [float(np.mean(p.rate_down_bps)) for p in tl.paths],
        },
    )


def pct_change(new: float, base: float) -> float:
    """``100 (new - base) / base``."""
    return 100.0 * (new - base) / base if base else math.nan


@dataclass
class Table:
    """A paper-vs-ours table: printed with aligned columns and written as CSV."""

    title: str
    columns: Sequence[str]
    rows: list[list[Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, *row: Any) -> None:
        self.rows.append(list(row))

    @staticmethod
    def _fmt(v: Any) -> str:
        if isinstance(v, float):
            if math.isnan(v):
                return "-"
            return f"{v:.3g}" if abs(v) >= 1000 or abs(v) < 0.01 and v != 0 else f"{v:.2f}"
        return str(v)

    def render(self) -> str:
        cells = [list(map(str, self.columns))] + [[self._fmt(v) for v in r] for r in self.rows]
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.columns))]
        line = "  ".join("-" * w for w in widths)
        out = [self.title, line]
        for j, r in enumerate(cells):
            out.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
            if j == 0:
                out.append(line)
        out.append(line)
        out.extend(self.notes)
        return "\n".join(out)

    def write_csv(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(self.columns)
            for r in self.rows:
                w.writerow([f"{v:.6g}" if isinstance(v, float) else v for v in r])


def progress(total: float, desc: str, enabled: bool = True) -> Any:
    """A tqdm progress bar over simulated seconds (a no-op object when disabled)."""
    from tqdm import tqdm

    return tqdm(
        total=total,
        desc=desc,
        unit="sim-s",
        disable=not enabled,
        leave=False,
        bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} sim-s "
        "[{elapsed}<{remaining}]",
    )


def mean_over(values: Iterable[float]) -> float:
    v = [x for x in values if not math.isnan(x)]
    return float(np.mean(v)) if v else math.nan
