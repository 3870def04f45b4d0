"""Reproduction of "Multipath TCP over LEO Satellite Networks" (Du et al., IWCMC 2015).

Setup (docs/specs/scenarios.md#the-iridium-network-of-mptcp-over-leo; scenario
``conf/scenario/iridium_omsr.yaml``): the Iridium
constellation (66 satellites, 780 km, 86.4 deg), +Grid ISLs of 9 Mbit/s, 2 Mbit/s GSLs, 1000-byte
packets, 50-packet drop-tail queues, source S (15.51 N, 1 W) and destination D (17.4 N,
127.55 E), two link-disjoint routes (OMSR), handovers scripted at the paper's state boundaries
(subflow <A1,B1> at 66 and 96 s, <A2,B2> at 30 and 81 s) with a 100 ms break-before-make outage,
and 4 background TCP bulk flows per subflow bottleneck (their start times drawn in [0, 5] s per
seed). Runs last 150 s; measurements start at 15 s (the paper's windows).

The same experiment runs in the hop topology with ``tasks(size, scenario="mptcp_leo_hops")``
(``conf/scenario/mptcp_leo_hops.yaml``: the same scenario as a graph, where both subflows and
their background flows share S's access link while one satellite serves both).

Compared: single-path transfers over route P1 (our QUIC-like transport with NewReno or CUBIC
on one path; the paper's TCP Tahoe and Hybla) and the two-subflow multipath transfer with
LIA coupling (RFC 6356, the coupled CC the paper uses).

Metrics: received throughput (bytes acknowledged on all paths) in 0.2 s bins; at each handover
of the flow's paths, the smallest bin in the following second; the share of handovers with a
zero-throughput bin; mean throughput per state window (SS_bf 15-30 s, HS 30-96 s, SS_af
96-150 s; single-path windows 15-66, 66-96, 96-150 s).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from leogym.agents.reproduce import judge
from leogym.agents.reproduce.common import (
    Table,
    algorithms,
    grid,
    run_simulation,
    transport,
    with_cross_traffic,
)

__all__ = ["CHECKS", "PAPER", "SIZES", "VARIANTS", "run_task", "tasks", "summarise"]

PAPER = {
    "single_path_zero_at_handover": True,
    "multipath_zero_at_handover": False,
    "fair_share_mbps": 0.36,
}

#: label -> (cc, subflow paths)
VARIANTS: dict[str, tuple[str, list[int]]] = {
    "single-path NewReno": ("newreno", [0]),
    "single-path CUBIC": ("cubic", [0]),
    "multipath LIA": ("lia", [0, 1]),
}
BIN_S = 0.2
STEP_S = 0.05


@dataclass(frozen=True)
class Size:
    seeds: int
    duration_s: float


SIZES = {"full": Size(seeds=5, duration_s=150.0), "quick": Size(seeds=1, duration_s=100.0)}


#: The scenario of each topology: the paths as one link each, or the same network as a graph.
SCENARIOS = {"path": "iridium_omsr", "hops": "mptcp_leo_hops"}


def tasks(
    size: str, seeds: int | None = None, scenario: str = "iridium_omsr"
) -> list[dict[str, Any]]:
    """One task per (transfer, seed) on ``scenario`` (a value of :data:`SCENARIOS`)."""
    if scenario not in SCENARIOS.values():
        raise ValueError(
            f"scenario: must be one of {sorted(SCENARIOS.values())} (got {scenario!r})"
        )
    sz = SIZES[size]
    n = sz.seeds if seeds is None else seeds
    axes = {"label": VARIANTS, "seed": range(n), "duration_s": [sz.duration_s]}
    return grid(order=("seed",), **axes, scenario=[scenario])


def run_task(task: dict[str, Any]) -> dict[str, Any]:
    from leogym.scenario import CrossTrafficConfig, load_scenario

    sc = load_scenario(task.get("scenario", "iridium_omsr"))
    cc, subflows = VARIANTS[task["label"]]
    rng = np.random.default_rng(900 + task["seed"])
    cross = [
        CrossTrafficConfig(
            kind="tcp_bulk", path=p, direction="down", start_s=float(rng.uniform(0.0, 5.0))
        )
        for p in (0, 1)
        for _ in range(4)
    ]
    r = run_simulation(
        with_cross_traffic(sc, cross),
        algorithms(cc, "minrtt", **transport(task, subflow_paths=subflows)),
        seed=task["seed"] + 1,
        duration_s=task["duration_s"],
        step_s=STEP_S,
    )
    k = int(round(BIN_S / STEP_S))
    d = r.per_path["delivered_bytes"].sum(axis=1)
    n = len(d) // k
    rate = d[: n * k].reshape(n, k).sum(axis=1) * 8e-6 / BIN_S
    tb = r.t[k - 1 :: k][:n]
    handovers = sorted(
        {
            round(float(h), 3)
            for i, hs in enumerate(r.meta["handovers"])
            if i in subflows
            for h in hs
            if h + 1.0 <= tb[-1]
        }
    )
    minima = [float(rate[(tb > h) & (tb <= h + 1.0)].min()) for h in handovers]
    windows = (
        [(15, 66), (66, 96), (96, 150)] if subflows == [0] else [(15, 30), (30, 96), (96, 150)]
    )
    means = [
        float(rate[(tb > a) & (tb <= b)].mean()) if ((tb > a) & (tb <= b)).any() else math.nan
        for a, b in windows
    ]
    ho_mask = np.zeros(n, bool)
    for h in handovers:
        ho_mask |= (tb > h) & (tb <= h + 1.0)
    quiet = (tb > 15) & ~ho_mask
    return {
        **task,
        "handovers": handovers,
        "minima": minima,
        "window_means": means,
        "mean_mbps": float(rate[tb > 15].mean()),
        "zero_bins_elsewhere": float(np.mean(rate[quiet] == 0)) if quiet.any() else math.nan,
        "cross_mbps": float(r.cross_rx_bytes.sum(axis=0).mean() * 8e-6 / r.t[-1]),
        "cross_late_mbps": _cross_after(r.cross_rx_bytes, r.t, 15.0),
        "wall_s": r.wall_s,
    }


def _cross_after(rx: np.ndarray, t: np.ndarray, t0: float) -> float:
    """Mean rate (Mbit/s) of one background flow after ``t0`` (the paper's ~0.36 Mbit/s share)."""
    late = t > t0
    if not rx.size or not late.any():
        return math.nan
    return float(rx[late].sum(axis=0).mean() * 8e-6 / (t[late][-1] - t0))


def summarise(results: list[dict[str, Any]], size: str) -> list[Table]:
    seeds = len({r["seed"] for r in results})
    names = sorted({r.get("scenario", "iridium_omsr") for r in results}) or ["iridium_omsr"]
    t = Table(
        f"MPTCP over LEO (Du et al., IWCMC 2015): paper vs leogym, scenario "
        f"{', '.join(repr(x) for x in names)}, {seeds} seed(s)",
        [
            "transfer",
            "handovers",
            "zero-throughput handovers",
            "mean min. throughput after handover (Mbit/s)",
            "zero bins elsewhere",
            "mean throughput (Mbit/s)",
            "background flow (Mbit/s)",
            "paper",
        ],
    )
    for lab in VARIANTS:
        v = [r for r in results if r["label"] == lab]
        minima = [m for r in v for m in r["minima"]]
        zeros = sum(1 for m in minima if m == 0.0)
        paper = (
            "drops to zero at every handover" if lab.startswith("single") else "never drops to zero"
        )
        t.add(
            lab,
            len(minima),
            f"{zeros}/{len(minima)}",
            float(np.mean(minima)) if minima else math.nan,
            float(np.nanmean([r["zero_bins_elsewhere"] for r in v])),
            float(np.mean([r["mean_mbps"] for r in v])),
            float(np.nanmean([r.get("cross_late_mbps", math.nan) for r in v])),
            paper,
        )
    t.notes.append(
        f"throughput: bytes acknowledged on the transfer's paths per {BIN_S:g} s; "
        "'zero-throughput handover': a zero bin within 1 s after a handover of one "
        "of the transfer's paths; 'background flow': mean rate of one background TCP flow "
        "after 15 s (the paper: about 0.36 Mbit/s per TCP flow)."
    )
    w = Table(
        "Throughput per state window (Mbit/s): single path (SS_bf 15-66, HS 66-96, "
        "SS_af 96-150 s) and multipath (SS_bf 15-30, HS 30-96, SS_af 96-150 s)",
        ["transfer", "SS_bf", "HS", "SS_af", "paper"],
    )
    for lab in VARIANTS:
        means = np.array([r["window_means"] for r in results if r["label"] == lab], dtype=float)
        paper = (
            "Tahoe ~0.36 (fair share) in SS_bf, below it in HS"
            if lab.startswith("single")
            else "highest in SS_bf; HS and SS_af above SS_bf"
        )
        cells = [float(np.nanmean(means[:, i])) if means.size else math.nan for i in range(3)]
        w.add(lab, *cells, paper)
    return [t, w]


def _minima(kind: str, res: judge.Results) -> list[float]:
    """The smallest throughput bin after each handover, every ``kind`` transfer pooled."""
    return [m for r in res if r["label"].startswith(kind) for m in r["minima"]]


def _zero_share(res: judge.Results) -> float:
    """The share of single-path handovers with a zero bin (NaN: none)."""
    single = _minima("single", res)
    return float(np.mean([m == 0.0 for m in single])) if single else math.nan


def _above_zero_share(res: judge.Results) -> float:
    """The share of multipath handovers without a zero bin (NaN: none)."""
    multi = _minima("multi", res)
    return float(np.mean([m > 0 for m in multi])) if multi else math.nan


def _mean_minimum(kind: str, empty: float, res: judge.Results) -> float:
    """The mean of ``kind``'s minima (``empty`` when it has none)."""
    v = _minima(kind, res)
    return float(np.mean(v)) if v else empty


#: The paper's directions (no handover measured: a "no", not "not measured").
CHECKS = (
    judge.Check("single_path_zero_at_every_handover",
                (judge.Compare(_zero_share, "==", 1.0),), needs=()),
    judge.Check("multipath_mostly_above_zero",
                (judge.Compare(_above_zero_share, ">", 0.5),), needs=()),
    judge.Check("multipath_min_above_single",
                (judge.Compare(partial(_mean_minimum, "multi", math.nan), ">",
                               partial(_mean_minimum, "single", 0.0)),), needs=()),
)  # fmt: skip
