"""One LEOTP run: the task's scenario with its condition applied, the algorithm under test put
on it, the simulation stepped in 1 s bins, and each measured flow's summary (throughput, one-way
delays against the route's propagation, source traffic, first-copy recovery times).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from leogym.agents.reproduce.common import algorithms, transport
from leogym.agents.reproduce.leotp.experiments import (
    ALGORITHMS,
    GROUPS,
    ROUTES,
    STEP_S,
    WIRE_BYTES,
    Algorithm,
    unavailable,
)


def _scenario(task: Mapping[str, Any]) -> Any:
    """The task's scenario with its condition applied (loss, switching interval, route)."""
    from leogym.scenario import load_scenario, sample_scenario

    g, cond = task["group"], task["condition"]
    if g == "starlink":
        sc = load_scenario(ROUTES[str(cond)])
        sc = sample_scenario(sc, np.random.default_rng(1800 + int(task["seed"])))
    elif g == "dumbbell":
        sc = load_scenario("leotp_dumbbell" if cond == "same" else "leotp_dumbbell_rtt")
    else:
        sc = load_scenario(GROUPS[g].scenario)
    if g in ("chain5", "chain5_file"):
        for link in sc.hops.links:
            link.loss, link.loss_up = float(cond), None
    if g == "parallel":
        route = sc.hops.routes[0]
        route.steps[1].t_s = float(cond)
        route.repeat_s = 2.0 * float(cond)
    if g == "dumbbell":
        k = float(task.get("time_scale", 1.0))
        for fl in sc.traffic.flows:
            fl.start_s *= k
            fl.stop_s = None if fl.stop_s is None else fl.stop_s * k
    sc.duration_s = float(task["duration_s"])
    return sc


def _under_test(sc: Any, algo: Algorithm, task: Mapping[str, Any]) -> tuple[Any, Any, list[int]]:
    """The scenario and env settings that run ``algo``, and the flows to measure.

    leogym's own transport is the connection under study (flow 0), except in the dumbbell,
    where its three flows become ``mpquic`` flows. Any other algorithm replaces (dumbbell) or
    joins (one flow on the connection's route) the scenario's flows, and the connection is
    idle: a 1-byte file sent 1 ms before the end. The flows go through the scenario loader, as
    a YAML file's would (nested parameters become their config classes, and are checked).
    """
    from leogym.scenario import load_scenario

    file_bytes = task.get("file_bytes")
    data = dataclasses.asdict(sc)
    traffic = data["traffic"]
    if task["group"] == "dumbbell":
        spec = dict(algo.flow) if algo.flow is not None else {"transport": "mpquic", "cc": algo.cc}
        traffic["flows"] = [
            {
                **spec,
                "name": fl.name,
                "routes": list(fl.routes),
                "start_s": fl.start_s,
                "stop_s": fl.stop_s,
            }
            for fl in sc.traffic.flows
        ]
        measured = list(range(1, len(sc.traffic.flows) + 1))
        algo_cc = None
    elif algo.cc is not None:
        traffic["flows"] = []
        if file_bytes:
            traffic.update(workload="file", file_bytes=int(file_bytes))
        measured, algo_cc = [0], algo.cc
    else:
        assert algo.flow is not None
        route = sc.hops.paths[0] if sc.hops.nodes else sc.paths[0].name
        extra: dict[str, Any] = (
            {"workload": "file", "file_bytes": int(file_bytes)} if file_bytes else {}
        )
        traffic["flows"] = [{**algo.flow, "name": "under_test", "routes": [route], **extra}]
        measured, algo_cc = [1], None
    if algo_cc is None:
        traffic.update(workload="file", file_bytes=1, start_s=max(sc.duration_s - 1e-3, 0.0))
    settings = algorithms(algo_cc or "cubic", "minrtt", **transport(task))
    return load_scenario(data), settings, measured


def _route_of(sc: Any, flow: int) -> int:
    """The route (index) of measured flow ``flow``: the connection's first path, or the flow's
    only route."""
    from leogym.scenario.flows import expanded_flows, route_index

    if flow == 0:
        if sc.hops.nodes:
            return [r.name for r in sc.hops.routes].index(sc.hops.paths[0])
        return 0
    _, fc = expanded_flows(sc)[flow - 1]
    return route_index(sc, fc.routes[0])


def _route_arrays(tl: Any, route: int, wire_bytes: int) -> tuple[np.ndarray, ...]:
    """Along ``route`` in the data direction, on the timeline grid: the propagation delay (s),
    the store-and-forward serialisation of one ``wire_bytes`` packet (s) and the number of
    links."""
    net = tl.network
    times = tl.times
    prop = net.collapse(route, times).delay_down_s
    ser = np.zeros(len(times))
    links = np.zeros(len(times))
    r = net.routes[route]
    step = np.clip(np.searchsorted(r.step_times_s, times, side="right") - 1, 0, None)
    for k, nodes in enumerate(r.nodes):
        sel = step == k
        links[sel] = len(nodes) - 1
        for u, v in zip(nodes[:-1].tolist(), nodes[1:].tolist(), strict=True):
            ln = net.links[net.link_between(u, v)]
            rate = ln.arrays.rate_down_bps if ln.a == u else ln.arrays.rate_up_bps
            ser[sel] += wire_bytes * 8.0 / rate[sel]
    return prop, ser, links


def _bin_means(values: np.ndarray, tl: Any, n_bins: int) -> np.ndarray:
    """Means of a grid array over the measurement steps ``(k STEP_S, (k + 1) STEP_S]``."""
    per = int(round(STEP_S / tl.dt_s))
    out = np.empty(n_bins)
    for k in range(n_bins):
        out[k] = float(np.mean(values[k * per + 1 : (k + 1) * per + 1]))
    return out


def _flow_metrics(
    series: Mapping[str, np.ndarray], warm: np.ndarray, prop: np.ndarray, ser: np.ndarray
) -> dict[str, Any]:
    """One measured flow's summary over the bins after the warm-up (``warm``)."""
    pk = series["packets"][warm]
    w = pk / pk.sum() if pk.sum() > 0 else None

    def weighted(x: np.ndarray) -> float:
        if w is None:
            return math.nan
        v = x[warm]
        ok = np.isfinite(v) & (pk > 0)
        return float(np.sum(v[ok] * pk[ok]) / np.sum(pk[ok])) if ok.any() else math.nan

    owd = weighted(series["owd_mean_s"])
    ideal = weighted(prop)
    gp = series["goodput_bytes"] * 8e-6 / STEP_S
    maxes = series["owd_max_s"][warm]
    return {
        "goodput_mbps": float(np.mean(gp[warm])) if warm.any() else math.nan,
        "bins_mbps": gp.tolist(),
        "owd_ms": owd * 1e3,
        "owd_p50_ms": weighted(series["owd_p50_s"]) * 1e3,
        "owd_p99_ms": weighted(series["owd_p99_s"]) * 1e3,
        "owd_max_ms": float(np.nanmax(maxes)) * 1e3 if np.isfinite(maxes).any() else math.nan,
        "link_queue_ms": weighted(series["queue_s"]) * 1e3,
        "ideal_ms": ideal * 1e3,
        "serialisation_ms": weighted(ser) * 1e3,
        "queueing_ms": (owd - ideal) * 1e3,
        "sent_packets": float(np.sum(series["sent"])),
        "delivered_bytes": float(np.sum(series["goodput_bytes"])),
    }


#: ``Simulation.recovery_stats`` keys -> the run's keys (ms; counts as they are).
RECOVERY_KEYS = {
    "clean": "first_copies_clean",
    "retransmitted": "first_copies_retransmitted",
    "owd_median_s": "clean_owd_median_ms",
    "retransmitted_owd_mean_s": "retx_owd_mean_ms",
    "retransmitted_owd_median_s": "retx_owd_median_ms",
    "recovery_time_mean_s": "recovery_mean_ms",
    "recovery_time_median_s": "recovery_median_ms",
}


def _recovery(stats: Mapping[str, Any]) -> dict[str, float]:
    """A flow's first-copy delays since the start of the run (``Simulation.recovery_stats``:
    each TCP segment or LEOTP chunk from its first transmission to its first arrival; NaN and
    zero counts for leogym's transport): the paper's Fig. 10 recovery time, the retransmitted
    copies' delay less the median delay of the copies never retransmitted."""
    out = {}
    for key, name in RECOVERY_KEYS.items():
        v = float(stats[key])
        out[name] = v if key in ("clean", "retransmitted") else v * 1e3
    return out


def run_task(task: dict[str, Any]) -> dict[str, Any]:
    """Run one task (or skip it when its algorithm is not available) and summarise it."""
    import time

    from leogym.simulation import Simulation

    label = task["algorithm"]
    reason = unavailable(label)
    if reason is not None:
        return {**task, "skipped": reason}
    algo = ALGORITHMS[label]
    sc, settings, measured = _under_test(_scenario(task), algo, task)
    file_bytes = task.get("file_bytes")
    keys = {
        "goodput_bytes": "flow_goodput_bytes",
        "packets": "flow_packets",
        "owd_mean_s": "flow_owd_mean_s",
        "owd_p50_s": "flow_owd_p50_s",
        "owd_p99_s": "flow_owd_p99_s",
        "owd_max_s": "flow_owd_max_s",
        "queue_s": "flow_queue_delay_s",
        "sent": "flow_sent_packets",
    }
    rows: dict[str, list[np.ndarray]] = {k: [] for k in keys}
    t0 = time.perf_counter()
    completion = math.nan
    with Simulation.open(settings, sc, int(task["seed"]) + 1) as sim:
        tl = sim.timeline
        n_steps = int(round(float(task["duration_s"]) / STEP_S))
        got = 0.0
        for k in range(n_steps):
            m = sim.step(STEP_S)
            for key, attr in keys.items():
                value = getattr(m, attr, None)
                arr = np.full(len(sim.flow_names), np.nan) if value is None else value
                rows[key].append(np.asarray(arr, dtype=np.float64)[measured].copy())
            if file_bytes:
                got += float(np.sum(rows["goodput_bytes"][-1]))
                if got >= float(file_bytes) * len(measured):
                    completion = (k + 1) * STEP_S
                    break
        arrays = [_route_arrays(tl, _route_of(sc, f), WIRE_BYTES) for f in measured]
        recovery = [_recovery(sim.recovery_stats(f)) for f in measured]
    n_bins = len(rows["goodput_bytes"])
    times = (np.arange(n_bins) + 1) * STEP_S
    warm = times > float(task["warmup_s"])
    if file_bytes:
        warm = np.ones(n_bins, dtype=bool)
    flows = []
    for j in range(len(measured)):
        series = {k: np.array([r[j] for r in v]) for k, v in rows.items()}
        prop, ser, links = (_bin_means(a, tl, n_bins) for a in arrays[j])
        flows.append(_flow_metrics(series, warm, prop, ser))
        flows[-1]["route_links"] = float(np.mean(links))
        flows[-1].update(recovery[j])
    out: dict[str, Any] = {**task, "flows": flows, "wall_s": time.perf_counter() - t0}
    if file_bytes:
        sent = flows[0]["sent_packets"] * algo.payload_bytes
        out["completion_s"] = completion
        out["source_bytes"] = sent
        done = not math.isnan(completion)
        out["source_overhead_mb"] = (sent - float(file_bytes)) / 1e6 if done else math.nan
    return out
