"""What the LEOTP runs measured, read back from the results: the mean over seeds of one
quantity (NaN where not run, skipped or not measured), the derived figures (the recovery-time
cut, source-overhead slopes, throughput drops, the dumbbell's Jain index and shares) and the
metrics (functions of the results) that the verdict rows compare.

The underscored names are this package's own helpers (:mod:`.rows` and :mod:`.tables` use
them), not an interface for other code.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from leogym.agents.reproduce import judge
from leogym.agents.reproduce.common import pct_change
from leogym.agents.reproduce.judge import Results
from leogym.agents.reproduce.leotp.experiments import (
    ALGORITHMS,
    BL_TARGETS,
    FAR,
    FIG11_LOSSES,
    STEP_S,
    TCPS,
    WAVE,
)
from leogym.simulation.fairness import jain_index


def _runs(results: Results, group: str, cond: Any, label: str) -> list:
    return [
        r
        for r in results
        if r["group"] == group and r["condition"] == cond and r["algorithm"] == label
    ]


def _skipped(results: Results, label: str) -> str | None:
    """Why ``label`` never ran (``None`` if at least one of its runs did, or it has none)."""
    runs = [r for r in results if r["algorithm"] == label]
    if runs and all("skipped" in r for r in runs):
        return str(runs[0]["skipped"])
    return None


def _value(results: Results, group: str, cond: Any, label: str, key: str, flow: int = 0) -> float:
    """Mean over seeds of one measured quantity (NaN: not run, skipped or not measured)."""
    vals = []
    for r in _runs(results, group, cond, label):
        if "skipped" in r:
            continue
        v = r[key] if key in r else r["flows"][flow][key]
        vals.append(float(v))
    vals = [v for v in vals if not math.isnan(v)]
    return float(np.mean(vals)) if vals else math.nan


def _cell(results: Results, label: str, value: float) -> Any:
    """A table cell: the value, or "not yet available" for a skipped algorithm."""
    if _skipped(results, label) is not None:
        return "not yet available"
    return value


def _cells(res: Results, group: str, cond: Any, label: str, keys: Sequence[str]) -> list[Any]:
    """The table cells of ``keys`` for one (group, condition, algorithm)."""
    return [_cell(res, label, _value(res, group, cond, label, k)) for k in keys]


def _fmt(v: float, unit: str = "", digits: int = 2) -> str:
    return "-" if math.isnan(v) else f"{v:.{digits}f}{unit}"


def _has(x: float) -> bool:
    return not math.isnan(x)


def _cond_labels(results: Results, group: str) -> tuple[list, list[str]]:
    """The conditions and algorithm labels of ``group`` present in ``results`` (in order)."""
    conds: list[Any] = []
    labels: list[str] = []
    for r in results:
        if r["group"] != group:
            continue
        if r["condition"] not in conds:
            conds.append(r["condition"])
        if r["algorithm"] not in labels:
            labels.append(r["algorithm"])
    order = list(ALGORITHMS)
    return conds, sorted(labels, key=order.index)


def _mean_or_nan(v: Sequence[float]) -> float:
    return float(np.nanmean(v)) if len(v) else math.nan


def _dumbbell_shares(r: Mapping[str, Any]) -> tuple[float, float, list[float]]:
    """A dumbbell run's mean per-bin Jain index over the bins where two or more flows have run
    at least 10 % of their life (to let a joining flow start), the same over the bins where
    all three have, and each flow's share of the goodput in the three-flow window."""
    k = float(r.get("time_scale", 1.0))
    starts = np.array([0.0, 200.0, 400.0]) * k
    stops = starts + 600.0 * k
    settle = 60.0 * k
    bins = np.array([f["bins_mbps"] for f in r["flows"]])
    t = (np.arange(bins.shape[1]) + 0.5) * STEP_S
    active = (t[None, :] >= starts[:, None] + settle) & (t[None, :] < stops[:, None])
    two, three = [], []
    for j in range(bins.shape[1]):
        on = active[:, j]
        if on.sum() >= 2:
            jain = jain_index(bins[on, j])
            two.append(jain)
            if on.sum() == 3:
                three.append(jain)
    all3 = active.all(axis=0)
    totals = bins[:, all3].sum(axis=1)
    shares = (totals / totals.sum()).tolist() if totals.sum() > 0 else [math.nan] * 3
    return _mean_or_nan(two), _mean_or_nan(three), shares


def _dumbbell(results: Results, cond: str, label: str) -> tuple:
    runs = [r for r in _runs(results, "dumbbell", cond, label) if "skipped" not in r]
    if not runs:
        return math.nan, math.nan, [math.nan] * 3
    vals = [_dumbbell_shares(r) for r in runs]
    return (
        float(np.nanmean([v[0] for v in vals])),
        float(np.nanmean([v[1] for v in vals])),
        np.nanmean(np.array([v[2] for v in vals]), axis=0).tolist(),
    )


def _m(group: str, cond: Any, label: str, key: str, flow: int = 0) -> judge.Metric:
    """A metric: the mean over seeds of ``key`` of one (group, condition, algorithm)."""
    return lambda res: _value(res, group, cond, label, key, flow)


def _sl(res: Results, route: str, label: str, key: str) -> float:
    return _value(res, "starlink", route, label, key)


def _on_far(label: str, key: str) -> judge.Metric:
    """A metric: ``key`` of ``label`` on Beijing-Hong Kong, -Paris and -New York."""
    return lambda res: [_sl(res, r, label, key) for r in FAR]


def _best_baseline(res: Results) -> list[float]:
    """The better of BBR's and PCC's throughput on each far route."""
    return [
        max(_sl(res, r, "BBR", "goodput_mbps"), _sl(res, r, "PCC", "goodput_mbps")) for r in FAR
    ]


def _recovery_cut(res: Results, loss: float) -> tuple[float, float, float]:
    """BBR's and LEOTP-A's mean recovery time (ms) at ``loss`` per hop, and LEOTP's cut of it
    (%, ``100 (1 - LEOTP / BBR)``; the paper's "reduces ... of average recovery time")."""
    bbr = _value(res, "chain5", loss, "BBR", "recovery_mean_ms")
    lt = _value(res, "chain5", loss, "LEOTP-A", "recovery_mean_ms")
    cut = 100.0 * (1.0 - lt / bbr) if _has(bbr) and _has(lt) and bbr > 0 else math.nan
    return bbr, lt, cut


def _cut_at(loss: float) -> judge.Metric:
    """A metric: LEOTP's cut of BBR's mean recovery time at ``loss`` per hop (%)."""
    return lambda res: _recovery_cut(res, loss)[2]


def _or(res: Results, label: str, text: str) -> str:
    """``text`` (``label``'s measured values) if ``label`` ran, else why not."""
    return text if _avail(label, res) == "measured" else _avail(label, res)


def _avail(label: str, res: Results) -> str:
    """Whether ``label`` ran: "not yet available", "not run at this size" or "measured"."""
    if _skipped(res, label) is not None:
        return "not yet available"
    if not any(r["algorithm"] == label for r in res):
        return "not run at this size"
    return "measured"


def _slope(res: Results, label: str) -> float:
    """Least-squares slope of the source overhead (MB) against the loss per hop (%)."""
    pts = [
        (float(c) * 100.0, _value(res, "chain5_file", c, label, "source_overhead_mb"))
        for c in FIG11_LOSSES
    ]
    pts = [p for p in pts if _has(p[1])]
    if len(pts) < 2:
        return math.nan
    x, y = np.array(pts).T
    return float(np.polyfit(x, y, 1)[0])


def _slope_ratio(res: Results) -> float:
    """LEOTP's source-overhead slope over BBR's."""
    sb, sl = _slope(res, "BBR"), _slope(res, "LEOTP-A")
    return sl / sb if _has(sl) and _has(sb) and sb else math.nan


def _file_mb(res: Results) -> float:
    size = [r["file_bytes"] for r in res if r["group"] == "chain5_file"]
    return size[0] / 1e6 if size else 100.0


def _derived_overhead(res: Results) -> float:
    """[D] BBR's source overhead at 1 % per hop: S P / (1 - P), P = 1 - 0.99^5."""
    p_e2e = 1.0 - 0.99**5
    return _file_mb(res) * p_e2e / (1.0 - p_e2e)


_BBR_OVERHEAD = _m("chain5_file", 0.01, "BBR", "source_overhead_mb")


def _overhead_error(res: Results) -> float:
    return abs(_BBR_OVERHEAD(res) - _derived_overhead(res))


def _drop(res: Results, label: str) -> float:
    a = _value(res, "chain5", 0.0, label, "goodput_mbps")
    b = _value(res, "chain5", 0.01, label, "goodput_mbps")
    return pct_change(b, a) if _has(a) and _has(b) else math.nan


def _dropped(label: str) -> judge.Metric:
    """A metric: ``label``'s throughput change from 0 to 1 % loss per hop (%)."""
    return lambda res: _drop(res, label)


def _switching(res: Results) -> tuple[list[str], float, float]:
    """The TCPs that ran on the parallel branches, the fastest and the slowest switching."""
    conds, labels = _cond_labels(res, "parallel")
    tcps = [lab for lab in TCPS if lab in labels and _skipped(res, lab) is None]
    return tcps, (min(conds) if conds else math.nan), (max(conds) if conds else math.nan)


def _at_fast(label: str) -> judge.Metric:
    """A metric: ``label``'s throughput at the fastest switching."""
    return lambda res: _value(res, "parallel", _switching(res)[1], label, "goodput_mbps")


def _measured_tcps_at_fast(res: Results) -> dict[str, float]:
    tcps, fast, _ = _switching(res)
    at1 = {lab: _value(res, "parallel", fast, lab, "goodput_mbps") for lab in TCPS}
    return {k: v for k, v in at1.items() if k in tcps and _has(v)}


def _vegas_and_lowest(which: int) -> judge.Metric:
    """A metric: Vegas's throughput at the fastest switching (0) or the lowest TCP's (1), if
    Vegas and another TCP were measured."""

    def metric(res: Results) -> float | None:
        measured = _measured_tcps_at_fast(res)
        if "Vegas" not in measured or len(measured) < 2:
            return None
        return measured["Vegas"] if which == 0 else min(measured.values())

    return metric


def _tcps_switching(which: int) -> judge.Metric:
    """A metric: every TCP's throughput at the fastest (1) or slowest (2) switching, if the
    two differ."""

    def metric(res: Results) -> list[float] | None:
        tcps, fast, slow = _switching(res)
        if not tcps or fast == slow:
            return None
        at = (fast, slow)[which - 1]
        return [_value(res, "parallel", at, lab, "goodput_mbps") for lab in tcps]

    return metric


def _wave_tcp_queueing(res: Results) -> dict[str, float]:
    q = {lab: _value(res, "wave", WAVE, lab, "queueing_ms") for lab in TCPS}
    return {k: v for k, v in q.items() if _has(v)}


def _bl_points(res: Results) -> list[tuple[float, float]]:
    """LEOTP-A's (throughput, queueing) at each ``BL_tar`` whose throughput was measured."""
    a = [
        (_value(res, "wave", WAVE, lab, "goodput_mbps"),
         _value(res, "wave", WAVE, lab, "queueing_ms"))
        for lab in BL_TARGETS
    ]  # fmt: skip
    return [x for x in a if _has(x[0])]


def _bl_targets(which: int) -> judge.Metric:
    """A metric: the throughput (0) or queueing (1) of :func:`_bl_points`, if two or more."""

    def metric(res: Results) -> list[float] | None:
        a = _bl_points(res)
        return [x[which] for x in a] if len(a) >= 2 else None

    return metric


def _dumbbell_metric(cond: str, label: str, which: int) -> judge.Metric:
    """A metric: :func:`_dumbbell`'s ``which`` (0 Jain 2-3 flows, 1 Jain 3 flows, 2 shares)."""
    return lambda res: _dumbbell(res, cond, label)[which]


def _largest_share(res: Results) -> float | None:
    """Which flow (0-2) got BBR's largest share with different RTTs (``None``: unmeasured)."""
    shares = _dumbbell(res, "different", "BBR")[2]
    return float(np.nanargmax(shares)) if all(_has(s) for s in shares) else None


def _others_on_sh(res: Results) -> list[float] | None:
    """BBR's, PCC's and LEOTP's throughput on Beijing-Shanghai, if all three were measured."""
    v = [_sl(res, "sh", k, "goodput_mbps") for k in ("BBR", "PCC", "LEOTP-A")]
    return v if all(_has(x) for x in v) else None


def _largest_tcp_queueing_sh(res: Results) -> float | None:
    q = [_sl(res, "sh", k, "queueing_ms") for k in TCPS]
    q = [v for v in q if _has(v)]
    return max(q) if q else None


def _reversed(metric: judge.Metric) -> judge.Metric:
    return lambda res: metric(res)[::-1]


def pct(c: Any) -> str:
    """A loss probability as a percentage label."""
    return f"{float(c) * 100:g} %"


def _name(label: str, res: Results) -> str:
    """An algorithm's row name; a skipped one says so."""
    return label if _skipped(res, label) is None else f"{label} (not yet available)"
