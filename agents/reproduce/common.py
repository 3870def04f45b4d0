"""Shared machinery of the reproduction experiments: scenario -> native simulation -> series.

The experiments open their simulations through :class:`leogym.simulation.Simulation`, the same
road the envs take (so ``leogym-reproduce`` and ``leogym-eval`` give the same numbers for the
same scenario, algorithm and seed), with each paper's transport settings (scheduler, cross
traffic, subflow mapping, receive window) expressed as an env config and a scenario. The
algorithm under test is always the native one, selected by name as the env selects it.
"""

from __future__ import annotations

import csv
import dataclasses
import itertools
import math
import time
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from leogym.envs.config import EnvConfig
from leogym.scenario.config import CrossTrafficConfig, ScenarioConfig
from leogym.schema import FieldError, check
from leogym.simulation import Simulation, TransportOptions
from leogym.simulation.transport import RECOVERIES, RecoveryParams

__all__ = [
    "RunSeries",
    "algorithms",
    "grid",
    "with_cross_traffic",
    "run_simulation",
    "Table",
    "progress",
    "pct_change",
    "RECOVERY_KEYS",
    "parse_recovery_param",
    "recovery_options",
    "recovery_values",
    "transport",
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
    "ssthresh_bytes",
    "pto_count",
    "rto_count",
    "persistent_congestion",
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


def algorithms(
    cc: str,
    scheduler: str,
    *,
    cc_params: dict[str, float] | None = None,
    scheduler_params: dict[str, float] | None = None,
    **transport: Any,
) -> EnvConfig:
    """The algorithms and transport options of a run, as the env config the envs use.

    :param cc: congestion controller name (``"freeze+cubic"`` allowed).
    :param scheduler: scheduler name.
    :param transport: :class:`~leogym.simulation.TransportOptions` fields (``subflow_paths``,
        ``receive_window_bytes``, ``cwnd_validation``, ...).
    """
    return EnvConfig.from_kwargs(
        scenario=None,
        cc=cc,
        scheduler=scheduler,
        cc_params=dict(cc_params or {}),
        scheduler_params=dict(scheduler_params or {}),
        transport=TransportOptions(**transport),
    )


#: Task keys that carry a loss-recovery preset to every run of an experiment
#: (``leogym-reproduce --recovery``/``--recovery-param``; absent: the core's default).
RECOVERY_KEYS = ("recovery", "recovery_params")

_TRUE = ("true", "on", "yes", "1")
_FALSE = ("false", "off", "no", "0")


def parse_recovery_param(text: str) -> tuple[str, Any]:
    """One ``--recovery-param KEY=VALUE`` as ``(key, value)``: the value read as the field of
    :class:`~leogym.simulation.transport.RecoveryParams` it sets asks (``true``/``false``,
    ``on``/``off`` for a switch, a number, or a string).

    :raises FieldError: naming ``--recovery-param`` for a malformed item, an unknown key or a
        value of the wrong kind (its range is checked by :func:`recovery_options`).
    """
    key, sep, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep or not key or not raw:
        raise FieldError("--recovery-param", f"must be KEY=VALUE (got {text!r})")
    hints = typing.get_type_hints(RecoveryParams)
    if key not in hints:
        raise FieldError("--recovery-param", f"unknown key {key!r}; known: {sorted(hints)}")
    kind = typing.get_args(hints[key])[0]  # X of X | None
    where = f"--recovery-param {key}"
    if kind is bool:
        if raw.lower() in _TRUE:
            return key, True
        if raw.lower() in _FALSE:
            return key, False
        raise FieldError(where, f"must be true or false (got {raw!r})")
    if kind in (int, float):
        try:
            number = float(raw)
        except ValueError:
            raise FieldError(where, f"must be a number (got {raw!r})") from None
        if kind is int:
            if not number.is_integer():
                raise FieldError(where, f"must be an integer (got {raw!r})")
            return key, int(number)
        return key, number
    return key, raw


def recovery_options(
    recovery: str | None = None, params: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The task entries that run an experiment under loss-recovery preset ``recovery`` with
    the overrides ``params`` (``{}`` when neither is given: the core's default, unchanged).

    Checked here, before any simulation, by the same rules as the env config
    (:class:`~leogym.simulation.TransportOptions`, :class:`RecoveryParams`).

    :raises FieldError: naming ``--recovery`` or ``--recovery-param``.
    """
    params = dict(params or {})
    if recovery in (None, RECOVERIES[0]) and not params:
        return {}  # the default: tasks and outputs exactly as without the option
    if recovery is not None and recovery not in RECOVERIES:
        raise FieldError("--recovery", f"must be one of {', '.join(RECOVERIES)} (got {recovery!r})")
    if params and recovery in (None, RECOVERIES[0]):
        raise FieldError(
            "--recovery-param",
            f"applies to the timer-based recoveries ({', '.join(RECOVERIES[1:])}), not to "
            f"{RECOVERIES[0]!r}; set --recovery (got {sorted(params)})",
        )
    try:
        rp = RecoveryParams(**params)
    except TypeError:
        raise FieldError("--recovery-param", f"unknown key(s) {sorted(params)}") from None
    try:
        check(TransportOptions(recovery=recovery, recovery_params=rp), "transport")
    except FieldError as exc:  # name the command-line option, not the config field
        message = str(exc)[len(exc.field) + 2 :]
        if exc.field == "transport.recovery":
            raise FieldError("--recovery", message) from None
        key = exc.field.rsplit(".", 1)[-1]
        raise FieldError(f"--recovery-param {key}", message) from None
    out: dict[str, Any] = {"recovery": recovery}
    if params:
        out["recovery_params"] = params
    return out


def recovery_values(task: Mapping[str, Any]) -> dict[str, Any]:
    """The loss-recovery settings ``task`` runs under, in full: the preset's name and values
    (``leogym._core.recovery_presets()``) with its overrides applied, and the overrides."""
    from leogym.native import core

    preset = task.get("recovery") or RECOVERIES[0]
    overrides = dict(task.get("recovery_params") or {})
    values = {**core().recovery_presets()[preset], **overrides}
    return {"recovery": preset, "recovery_params": overrides, "values": values}


def transport(task: Mapping[str, Any], **own: Any) -> dict[str, Any]:
    """The transport options of ``task``'s run: the experiment's own ``own`` (its
    calibration: ``subflow_paths``, ``receive_window_bytes``, ...) with the task's recovery
    preset (:data:`RECOVERY_KEYS`) merged in; its ``recovery_params`` override the
    calibration's, key by key. Without a preset in ``task`` this is ``own`` unchanged."""
    out = dict(own)
    if task.get("recovery") is not None:
        out["recovery"] = task["recovery"]
    if task.get("recovery_params"):
        base = own.get("recovery_params") or {}
        base = base.native() if isinstance(base, RecoveryParams) else dict(base)
        out["recovery_params"] = {**base, **task["recovery_params"]}
    return out


def with_cross_traffic(
    scenario: ScenarioConfig, flows: Sequence[CrossTrafficConfig]
) -> ScenarioConfig:
    """A copy of ``scenario`` whose cross traffic is ``flows`` (the paper's, not the preset's)."""
    traffic = dataclasses.replace(scenario.traffic, cross_traffic=list(flows))
    return dataclasses.replace(scenario, traffic=traffic)


def run_simulation(
    scenario: ScenarioConfig,
    settings: EnvConfig,
    *,
    seed: int,
    duration_s: float,
    step_s: float = 0.1,
    stop_when_done: bool = True,
    on_step: Callable[[float], None] | None = None,
) -> RunSeries:
    """Open the simulation (as the envs do), run it for ``duration_s`` and collect series.

    :param seed: the episode seed (the timeline's seed and the ns-3 ``RngRun``).
    :param on_step: called with the simulated time after every step (progress bars).
    """
    t0 = time.perf_counter()
    ts: list[float] = []
    series: dict[str, list[np.ndarray]] = {k: [] for k in _SERIES_KEYS}
    goodput: list[float] = []
    cross: list[np.ndarray] = []
    completion = math.nan
    with Simulation.open(settings, scenario, seed) as sim:
        tl = sim.timeline
        n = int(round(duration_s / step_s))
        for _ in range(n):
            m = sim.step(step_s)
            ts.append(m.time_s)
            for k in _SERIES_KEYS:
                series[k].append(np.asarray(m.per_path(k), dtype=np.float64).copy())
            goodput.append(float(m.goodput_bytes))
            cross.append(np.asarray(m.cross_traffic_rx_bytes, dtype=np.float64).copy())
            if on_step is not None:
                on_step(ts[-1])
            if m.completed:
                completion = m.completion_time_s
                if stop_when_done:
                    break
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


def grid(order: Sequence[str] = (), /, **axes: Iterable[Any]) -> list[dict[str, Any]]:
    """A paper's runs as data: one task per combination of the axes' values, its keys in the
    order the axes are given. The first axis of ``order`` varies slowest (default: the axes'
    own order; axes left out of ``order`` follow it); a constant is an axis of one value."""
    nest = [*order, *(k for k in axes if k not in order)]
    values = {k: list(axes[k]) for k in nest}
    return [
        {k: combo[nest.index(k)] for k in axes}
        for combo in itertools.product(*(values[k] for k in nest))
    ]


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
