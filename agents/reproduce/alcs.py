"""Reproduction of ALCS's main comparison (Wang et al., Table III and Fig. 7).

Setup (docs/specs/alcs.md#evaluation-set-up-in-the-paper, docs/specs/scenarios.md#the-alcs-testbed;
scenario
``conf/scenario/alcs_stin.yaml``): a satellite path (50 Mbit/s, RTT 52-68 ms, random loss 0.01 %
or 0.5 %) and a terrestrial path (100 Mbit/s, RTT 108 ms, loss 0.01 %), an outage-causing
satellite handover of 1 s every 15 s (the "accelerated motion"), drop-tail queues of one BDP,
uncoupled CUBIC on both paths [R], files of 40, 100 and 150 MB. The UTC phase of the handover
schedule is drawn per seed, so transfers meet the handovers at different points.
Schedulers: minRTT (Linux default), round-robin, ECF, BLEST and ALCS; ALCS ablations: k = one
segment (``KMode=1``) and without handover management. A calibration sweep (``CALIBRATIONS``)
repeats the comparison with smaller receive windows (head-of-line-limited) and with Linux's
slow-start cwnd validation, to check whether the paper's direction appears in another regime.

Metrics: completion time (the paper's primary metric; its "9.8-44.0 %" headline is a
completion-time reduction), the satellite share of the bytes sent, and the handover-induced
losses (packets the satellite link dropped in outages; the paper's Fig. 7 / Table I).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from leogym.agents.reproduce import judge
from leogym.agents.reproduce.common import (
    Table,
    algorithms,
    grid,
    pct_change,
    run_simulation,
    transport,
)

__all__ = ["CHECKS", "PAPER", "SIZES", "SCHEDULERS", "run_task", "tasks", "summarise"]

#: Table III: (file MB, satellite loss) -> scheduler -> completion time (s).
PAPER: dict[tuple[int, float], dict[str, float]] = {
    (40, 1e-4): {
        "minrtt": 11.183,
        "roundrobin": 13.045,
        "ecf": 10.722,
        "blest": 9.103,
        "alcs": 6.257,
    },
    (40, 5e-3): {
        "minrtt": 26.885,
        "roundrobin": 27.533,
        "ecf": 22.741,
        "blest": 21.482,
        "alcs": 18.719,
    },
    (100, 1e-4): {
        "minrtt": 44.647,
        "roundrobin": 28.048,
        "ecf": 22.169,
        "blest": 19.293,
        "alcs": 16.473,
    },
    (100, 5e-3): {
        "minrtt": 48.828,
        "roundrobin": 57.537,
        "ecf": 56.401,
        "blest": 48.162,
        "alcs": 42.201,
    },
    (150, 1e-4): {
        "minrtt": 59.151,
        "roundrobin": 41.102,
        "ecf": 43.981,
        "blest": 41.239,
        "alcs": 31.302,
    },
    (150, 5e-3): {
        "minrtt": 50.975,
        "roundrobin": 51.816,
        "ecf": 48.159,
        "blest": 42.424,
        "alcs": 38.286,
    },
}

#: label -> (scheduler, scheduler_params)
SCHEDULERS: dict[str, tuple[str, dict[str, float]]] = {
    "minrtt": ("minrtt", {}),
    "roundrobin": ("roundrobin", {}),
    "ecf": ("ecf", {}),
    "blest": ("blest", {}),
    "alcs": ("alcs", {}),
    "alcs k=1": ("alcs", {"KMode": 1.0}),
    "alcs no-HO": ("alcs", {"Handover": 0.0}),
}
BASELINES = ("minrtt", "roundrobin", "ecf", "blest")
EXPOSURE_MB = 100

#: Calibration sweep (docs/reproduction.md): transport settings under which the main
#: comparison is repeated, to test whether the paper's direction appears in another regime.
#: The receive windows bound the connection's flight, which makes head-of-line blocking
#: behind the slow path the limit (the regime BLEST and ECF were designed for, and the one
#: in which our baselines' completion times come closest to the paper's); "linux" lets a
#: half-used window keep growing in slow start as Linux TCP does (RFC 9002 7.8 forbids it).
CALIBRATIONS: dict[str, dict[str, Any]] = {
    "linux cwnd validation": {"cwnd_validation": "linux"},
    "384 KiB rwnd + linux cwnd validation": {
        "receive_window_bytes": 384 * 1024,
        "cwnd_validation": "linux",
    },
    "256 KiB rwnd": {"receive_window_bytes": 256 * 1024},
}
SWEEP_LABELS = BASELINES + ("alcs", "alcs k=1")


@dataclass(frozen=True)
class Size:
    seeds: int
    files_mb: tuple[int, ...]
    labels: tuple[str, ...]
    sweep_seeds: int
    sweep_files_mb: tuple[int, ...]
    sweep_calibrations: tuple[str, ...]


SIZES = {
    "full": Size(
        seeds=5,
        files_mb=(40, 100, 150),
        labels=tuple(SCHEDULERS),
        sweep_seeds=3,
        sweep_files_mb=(40, 100, 150),
        sweep_calibrations=tuple(CALIBRATIONS),
    ),
    "quick": Size(
        seeds=1,
        files_mb=(40,),
        labels=("minrtt", "blest", "alcs"),
        sweep_seeds=1,
        sweep_files_mb=(40,),
        sweep_calibrations=("256 KiB rwnd",),
    ),
}


#: The satellite path's random loss rates (Table III's two columns).
LOSSES = (1e-4, 5e-3)


def tasks(size: str, seeds: int | None = None) -> list[dict[str, Any]]:
    """Table III's cells, the handover exposure (Fig. 7 / Table I: every transfer starts 2 s
    before a handover) and the calibration sweep, one task per scheduler and seed."""
    sz = SIZES[size]
    n = sz.seeds if seeds is None else seeds
    cell = ("file_mb", "loss")
    main = grid(cell, label=sz.labels, file_mb=sz.files_mb, loss=LOSSES, seed=range(n),
                exposure=[False], calibration=[None])  # fmt: skip
    exposed = [lab for lab in sz.labels if lab in BASELINES + ("alcs",)]
    exposure = grid(label=exposed, file_mb=[EXPOSURE_MB], loss=[1e-4], seed=range(n),
                    exposure=[True], calibration=[None])  # fmt: skip
    swept = [lab for lab in SWEEP_LABELS if lab in sz.labels or size == "full"]
    sweep = grid(("calibration", *cell), label=swept, file_mb=sz.sweep_files_mb, loss=LOSSES,
                 seed=range(min(n, sz.sweep_seeds)), exposure=[False],
                 calibration=sz.sweep_calibrations)  # fmt: skip
    return main + exposure + sweep


def run_task(task: dict[str, Any]) -> dict[str, Any]:
    from leogym.scenario import load_scenario, sample_scenario

    sc = sample_scenario(load_scenario("alcs_stin"), np.random.default_rng(700 + task["seed"]))
    sat = sc.paths[0]
    sat.loss_down = sat.loss_up = float(task["loss"])
    sc.traffic.file_bytes = int(task["file_mb"] * 1_000_000)
    sc.duration_s = 300.0
    if task["exposure"]:
        from leogym.scenario import build_timeline

        h0 = float(build_timeline(sc, seed=task["seed"] + 1).paths[0].handovers[0])
        sc.traffic.start_s = h0 - 2.0 if h0 >= 2.0 else h0 + 13.0
    sched, params = SCHEDULERS[task["label"]]
    calibration = CALIBRATIONS[task["calibration"]] if task.get("calibration") else {}
    settings = algorithms("cubic", sched, scheduler_params=params, **transport(task, **calibration))
    r = run_simulation(sc, settings, seed=task["seed"] + 1, duration_s=sc.duration_s, step_s=0.1)
    pp = r.per_path
    sent = pp["sent_bytes"].sum(axis=0)
    end = r.t[-1] if len(r.t) else 0.0
    ho = r.meta["handovers"][0]
    start = float(sc.traffic.start_s)
    return {
        **task,
        "completion_s": r.completion_time_s,
        "sat_share": float(sent[0] / sent.sum()) if sent.sum() else math.nan,
        "lost": float(pp["lost_packets"].sum()),
        "outage_drops": float(pp["drops_outage"][:, 0].sum()),
        "handovers_in_transfer": int(np.sum((ho >= start) & (ho <= end))),
        "retransmitted": float(pp["retransmitted_packets"].sum()),
        "wall_s": r.wall_s,
    }


def _columns(labels: list[str]) -> list[str]:
    cols = ["file", "sat loss"]
    for lab in labels:
        cols += [f"paper {lab}", f"ours {lab}"] if lab in BASELINES + ("alcs",) else [f"ours {lab}"]
    return cols


def summarise(results: list[dict[str, Any]], size: str) -> list[Table]:
    sz = SIZES[size]
    sweep = [r for r in results if r.get("calibration")]
    results = [r for r in results if not r.get("calibration")]
    exposure = [r for r in results if r["exposure"]]
    results = [r for r in results if not r["exposure"]]
    labels = [lab for lab in sz.labels if any(r["label"] == lab for r in results)]
    seeds = len({r["seed"] for r in results})

    def mean(mb: int, loss: float, lab: str, key: str) -> float:
        v = [
            r[key]
            for r in results
            if r["file_mb"] == mb and r["loss"] == loss and r["label"] == lab
        ]
        return float(np.nanmean(v)) if v else math.nan

    cells = [(mb, loss) for mb in sz.files_mb for loss in (1e-4, 5e-3)]
    t = Table(
        f"ALCS (Wang et al.) Table III: completion time (s), paper vs leogym, scenario "
        f"'alcs_stin', CUBIC, {seeds} seed(s)",
        _columns(labels),
    )
    for mb, loss in cells:
        row: list[Any] = [f"{mb} MB", f"{loss:.2%}"]
        for lab in labels:
            if lab in BASELINES + ("alcs",):
                row.append(PAPER[(mb, loss)][lab])
            row.append(mean(mb, loss, lab, "completion_s"))
        t.add(*row)

    h = Table(
        "ALCS headline: completion-time change of ALCS against each baseline (%), "
        "paper vs leogym (negative = ALCS faster)",
        ["file", "sat loss"]
        + sum(([f"paper vs {b}", f"ours vs {b}"] for b in BASELINES if b in labels), []),
    )
    for mb, loss in cells:
        row = [f"{mb} MB", f"{loss:.2%}"]
        for b in BASELINES:
            if b not in labels:
                continue
            row.append(pct_change(PAPER[(mb, loss)]["alcs"], PAPER[(mb, loss)][b]))
            row.append(
                pct_change(
                    mean(mb, loss, "alcs", "completion_s"), mean(mb, loss, b, "completion_s")
                )
            )
        h.add(*row)
    h.notes.append(
        "paper headline: ALCS shortens completion time by 9.8 % (vs BLEST, 150 MB, "
        "0.5 %) to 44.0 % (vs minRTT, 40 MB, 0.01 %)."
    )

    f = Table(
        f"ALCS handover behaviour (Fig. 7, Table I): {EXPOSURE_MB} MB transfers started "
        "2 s before a handover, satellite loss 0.01 %; paper vs leogym",
        [
            "scheduler",
            "handovers crossed",
            "outage drops per handover",
            "retransmitted packets",
            "completion time (s)",
            "satellite share",
            "paper",
        ],
    )
    paper_note = {
        "alcs": "0 handover-induced retransmissions",
        "minrtt": "93.5 % of retransmissions from handovers",
        "roundrobin": "91.5 %",
        "blest": "98.5 %",
        "ecf": "96.6 %",
    }
    for lab in [x for x in labels if x in BASELINES + ("alcs",)]:
        v = [r for r in exposure if r["label"] == lab]
        if not v:
            continue
        hos = sum(r["handovers_in_transfer"] for r in v)
        f.add(
            lab,
            float(np.mean([r["handovers_in_transfer"] for r in v])),
            sum(r["outage_drops"] for r in v) / hos if hos else math.nan,
            float(np.mean([r["retransmitted"] for r in v])),
            float(np.nanmean([r["completion_s"] for r in v])),
            float(np.nanmean([r["sat_share"] for r in v])),
            paper_note.get(lab, "-"),
        )
    f.notes.append(
        "outage drops: packets the satellite link dropped during handover outages "
        "(each one is retransmitted: the paper's handover-induced retransmissions)."
    )
    return [t, h, f] + ([_sweep_table(sweep)] if sweep else [])


def _sweep_table(sweep: list[dict[str, Any]]) -> Table:
    """ALCS against the best baseline of each cell under each calibration."""
    seeds = len({r["seed"] for r in sweep})
    s = Table(
        f"ALCS calibration sweep: completion time (s) of ALCS and of the best baseline "
        f"(minRTT, RR, ECF, BLEST) per cell, {seeds} seed(s); paper vs leogym",
        [
            "calibration",
            "file",
            "sat loss",
            "best baseline",
            "CT best baseline",
            "CT alcs",
            "CT alcs k=1",
            "ours alcs vs best (%)",
            "ours alcs k=1 vs best (%)",
            "paper alcs vs best (%)",
        ],
    )
    for cal in [c for c in CALIBRATIONS if any(r["calibration"] == c for r in sweep)]:
        rows = [r for r in sweep if r["calibration"] == cal]
        for mb, loss in sorted({(r["file_mb"], r["loss"]) for r in rows}):
            cell = [r for r in rows if (r["file_mb"], r["loss"]) == (mb, loss)]

            def ct(lab: str, cell: list[dict[str, Any]] = cell) -> float:
                v = [r["completion_s"] for r in cell if r["label"] == lab]
                return float(np.nanmean(v)) if v else math.nan

            base = {b: ct(b) for b in BASELINES if not math.isnan(ct(b))}
            best = min(base, key=base.__getitem__)
            paper = PAPER[(mb, loss)]
            paper_best = min(paper[b] for b in BASELINES)
            s.add(
                cal,
                f"{mb} MB",
                f"{loss:.2%}",
                best,
                base[best],
                ct("alcs"),
                ct("alcs k=1"),
                pct_change(ct("alcs"), base[best]),
                pct_change(ct("alcs k=1"), base[best]),
                pct_change(paper["alcs"], paper_best),
            )
    s.notes.append(
        "calibrations: "
        + "; ".join(f"{k} = {v}" for k, v in CALIBRATIONS.items())
        + ". The main table above is the scenario as configured (6 MiB receive "
        "window, RFC 9002 cwnd validation)."
    )
    return s


def _main(res: judge.Results) -> list[Mapping[str, Any]]:
    """Table III's runs (neither exposure nor calibration)."""
    return [r for r in res if not r.get("calibration") and not r["exposure"]]


def _completion(mb: int, loss: float, label: str, res: judge.Results) -> float | None:
    """The mean completion time of ``label`` in a Table III cell (``None``: not run)."""
    key = (mb, loss, label)
    v = [r["completion_s"] for r in _main(res) if (r["file_mb"], r["loss"], r["label"]) == key]
    return float(np.nanmean(v)) if v else None


def _drops_per_handover(label: str, res: judge.Results) -> float:
    """Packets the satellite link lost in outages per handover crossed, exposure runs."""
    v = [r for r in res if not r.get("calibration") and r["exposure"] and r["label"] == label]
    hos = sum(r["handovers_in_transfer"] for r in v)
    return sum(r["outage_drops"] for r in v) / hos if hos else math.nan


def _baseline_drops(res: judge.Results) -> list[float] | None:
    """Every baseline's :func:`_drops_per_handover` (``None``: no exposure runs)."""
    if not any(r["exposure"] for r in res if not r.get("calibration")):
        return None
    labels = {r["label"] for r in _main(res)}
    return [_drops_per_handover(b, res) for b in BASELINES if b in labels]


def _faster(mb: int, loss: float, b: str) -> judge.Check:
    """ALCS's completion time below baseline ``b``'s in one cell (NaN: not faster)."""
    alcs, base = partial(_completion, mb, loss, "alcs"), partial(_completion, mb, loss, b)
    name = f"alcs_faster_than_{b}[{mb}MB,{loss}]"
    return judge.Check(name, (judge.Compare(alcs, "<", base),), needs=())


#: ALCS faster than every baseline (per cell, mean over seeds), and ALCS's handover drops
#: below every baseline's.
CHECKS = (
    *(_faster(mb, loss, b) for mb in SIZES["full"].files_mb for loss in LOSSES for b in BASELINES),
    judge.Check(
        "alcs_fewest_handover_drops",
        (judge.Compare(partial(_drops_per_handover, "alcs"), "<", _baseline_drops),),
        needs=(),
    ),
)
