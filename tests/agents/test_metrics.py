"""Per-episode metrics against hand-computed values, and the atomic writes results rely on."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from leogym.agents.config import MetricsConfig
from leogym.agents.results.metrics import EpisodeRecorder, convergence_time, jain_index
from leogym.agents.results.table import ResultsStore, summarize
from leogym.agents.runtime.storage import atomic_write, atomic_write_parquet


def test_jain_index_matches_its_definition() -> None:
    # Jain, Chiu, Hawe (DEC-TR-301, 1984): J = (sum x)^2 / (n sum x^2); 1 when all equal,
    # 1/n when one user gets everything.
    assert jain_index([5, 5, 5, 5]) == pytest.approx(1.0)
    assert jain_index([1, 0, 0, 0]) == pytest.approx(0.25)
    assert jain_index([2, 1]) == pytest.approx(9 / 10)
    assert math.isnan(jain_index([0, 0]))


def _grid(n: int = 200, dt: float = 0.1) -> np.ndarray:
    return np.arange(1, n + 1) * dt


def test_convergence_time_of_a_step_response() -> None:
    # 0 until t = 2.0 s, then 10 (100 ms steps); final mean 10; 1 s trailing average.
    t = _grid()
    g = np.where(t <= 2.0 + 1e-9, 0.0, 10.0)
    # ±15 %: the average is >= 8.5 once 9 of its 10 samples are 10 -> the step ending at 2.9 s
    assert convergence_time(t, g, [], tolerance=0.15, window_s=1.0) == pytest.approx(2.9)
    # ±5 %: all 10 samples must be 10 -> the step ending at 3.0 s
    assert convergence_time(t, g, [], tolerance=0.05, window_s=1.0) == pytest.approx(3.0)


def test_convergence_time_excuses_handover_dips() -> None:
    # constant 10 with a 4-step outage (steps ending 10.0..10.3 s) after a handover at 9.95 s
    t = _grid()
    g = np.full(t.size, 10.0)
    g[(t > 9.95) & (t < 10.35)] = 0.0
    kw = {"tolerance": 0.15, "window_s": 1.0}
    # the 1 s average holds >= 2 zeros (below 8.5) for steps ending 10.1..11.1 s; a 2 s guard
    # excuses all of them, so the series converged at its first step
    assert convergence_time(t, g, [9.95], handover_guard_s=2.0, **kw) == pytest.approx(0.1)
    # a 1 s guard leaves the steps ending at 11.0 and 11.1 s: converged from 11.2 s on
    assert convergence_time(t, g, [9.95], handover_guard_s=1.0, **kw) == pytest.approx(11.2)


def test_convergence_time_is_nan_when_goodput_keeps_oscillating() -> None:
    t = _grid()
    g = np.where((t // 2.0) % 2 == 0, 0.0, 20.0)  # 2 s off, 2 s at 20
    assert math.isnan(convergence_time(t, g, []))
    assert math.isnan(convergence_time(t, np.zeros(t.size), []))


def _info(
    t: float,
    goodput: float,
    rtt: list[float],
    delivered: list[float],
    outage: list[int],
    ho: tuple[list[int], list[float]] = ([], []),
    completion: float = 0.0,
) -> dict:
    return {
        "sim_time_s": t,
        "goodput_bps": goodput,
        "delay_s": 0.05,
        "loss_rate": 0.01,
        "capacity_bps": 2 * goodput,
        "rtt_s": np.array(rtt),
        "cwnd_bytes": np.array([1e4, 2e4]),
        "delivered_bytes": np.array(delivered),
        "losses": {
            "outage": np.array(outage),
            "random": np.array([1, 0]),
            "overflow": np.array([0, 2]),
            "detected": np.array([1, 1]),
        },
        "handover_paths": np.array(ho[0]),
        "handover_times_s": np.array(ho[1]),
        "reorder_buffer_bytes": 3000.0,
        "hol_delay_s": 0.002,
        "completion_time_s": completion,
    }


def test_episode_metrics_from_infos() -> None:
    rec = EpisodeRecorder()
    # three 0.5 s steps; path 1 delivers nothing in step 2 (its RTT sample is not counted)
    rec.add(1.0, _info(0.5, 8e6, [0.040, 0.100], [5e5, 5e5], [0, 0]))
    rec.add(2.0, _info(1.0, 4e6, [0.060, 0.300], [2.5e5, 0.0], [3, 0], ([0], [0.8])))
    rec.add(
        3.0,
        _info(1.5, 12e6, [0.050, 0.120], [7.5e5, 0.0], [0, 0], completion=1.42),
        terminated=True,
    )
    m = rec.metrics(MetricsConfig(rtt_percentiles=[50.0, 100.0]))
    assert m["return"] == 6.0 and m["steps"] == 3 and m["terminated"] == 1.0
    assert m["goodput_mbps"] == pytest.approx((8 + 4 + 12) / 3)  # equal step lengths
    assert m["utilization"] == pytest.approx(0.5)
    assert m["completion_time_s"] == pytest.approx(1.42)
    # RTT samples of paths that delivered: 40, 100, 60, 50 ms
    assert m["rtt_p50_ms"] == pytest.approx(55.0)
    assert m["rtt_p100_ms"] == pytest.approx(100.0)
    assert m["loss_outage_pkts"] == 3 and m["loss_random_pkts"] == 3
    assert m["loss_overflow_pkts"] == 6 and m["loss_detected_pkts"] == 6
    assert m["handovers"] == 1
    assert m["jain_paths"] == pytest.approx(jain_index([1.5e6, 5e5]))
    assert math.isnan(m["jain_flows"])
    trace = rec.trace()
    assert len(trace) == 6 and set(trace["path"]) == {0, 1}
    ho = trace[trace["handover"]]
    assert list(ho["step"]) == [2] and list(ho["path"]) == [0]
    assert ho["handover_time_s"].iloc[0] == pytest.approx(0.8)
    assert math.isnan(m["follows_alternate"]) and trace["follows_alternate"].isna().all()


def test_the_share_of_steps_on_the_alternate_controller() -> None:
    # residual_alternate: the env reports per path which controller it followed in the step
    rec = EpisodeRecorder()
    for i, follows in enumerate(([1.0, 0.0], [1.0, 0.0], [0.0, 0.0], [1.0, 1.0])):
        info = _info(0.5 * (i + 1), 8e6, [0.04, 0.05], [5e5, 5e5], [0, 0])
        rec.add(1.0, {**info, "follows_alternate": np.array(follows)})
    assert rec.metrics()["follows_alternate"] == pytest.approx(4 / 8)
    trace = rec.trace()
    assert trace.groupby("path")["follows_alternate"].mean().tolist() == [0.75, 0.25]


def test_jain_over_competing_flows() -> None:
    rec = EpisodeRecorder()
    # our connection: 8 Mbit/s for 0.5 s = 500 kB per step; one cross flow gets 250 kB per step
    for k in (1, 2):
        info = _info(0.5 * k, 8e6, [0.04, 0.04], [2.5e5, 2.5e5], [0, 0])
        info["cross_traffic_rx_bytes"] = np.array([2.5e5])
        rec.add(0.0, info)
    m = rec.metrics()
    assert m["jain_flows"] == pytest.approx(jain_index([1e6, 5e5]))  # = 0.9
    # two flows delivered 750 kB a step: the fair share is 375 kB, we took 500 kB
    assert m["share_of_fair"] == pytest.approx(500 / 375)


def test_jain_over_flows_takes_each_flow_over_its_scheduled_time() -> None:
    # Jain, Chiu and Hawe (DEC-TR-301, 1984) define the index over throughputs: a peer that
    # joins for the second step and splits the link evenly then is rated 2.5e5 B / 0.5 s; by the
    # episode's bytes the same episode would score (7.5 + 2.5)^2 / (2 (7.5^2 + 2.5^2)) = 0.8.
    rec = EpisodeRecorder()
    for k, (ours, peer, sched) in enumerate(
        [(5e5, 0.0, [0.5, 0.0]), (2.5e5, 2.5e5, [0.5, 0.5])], start=1
    ):
        info = _info(0.5 * k, ours * 16, [0.04, 0.04], [ours / 2, ours / 2], [0, 0])
        info["flow_goodput_bytes"] = np.array([ours, peer])
        info["flow_scheduled_s"] = np.array(sched)
        rec.add(0.0, info)
    m = rec.metrics()
    assert m["jain_flows"] == pytest.approx(jain_index([7.5e5 / 1.0, 2.5e5 / 0.5]))  # 0.96
    # a flow never scheduled (it starts after the episode) is not counted as starved
    rec = EpisodeRecorder()
    info = _info(0.5, 8e6, [0.04, 0.04], [2.5e5, 2.5e5], [0, 0])
    info["flow_goodput_bytes"] = np.array([5e5, 5e5, 0.0])
    info["flow_scheduled_s"] = np.array([0.5, 0.5, 0.0])
    rec.add(0.0, info)
    assert rec.metrics()["jain_flows"] == pytest.approx(1.0)


def test_share_of_fair_counts_a_starved_connection_and_skips_idle_peers() -> None:
    rec = EpisodeRecorder()
    # step 1: a peer takes everything, we take nothing (fair share 300 kB, ours 0);
    # step 2: the peer is idle (not sharing), we take 300 kB (fair share 300 kB)
    for k, (ours, peer) in enumerate([(0.0, 6e5), (3e5, 0.0)], start=1):
        info = _info(0.5 * k, ours * 16, [0.04, 0.04], [ours / 2, ours / 2], [0, 0])
        info["flow_goodput_bytes"] = np.array([ours, peer])
        rec.add(0.0, info)
    assert rec.metrics()["share_of_fair"] == pytest.approx(3e5 / 6e5)


def test_unfinished_file_has_no_completion_time() -> None:
    rec = EpisodeRecorder()
    rec.add(0.0, _info(0.5, 1e6, [0.04, 0.04], [1e5, 1e5], [0, 0]), truncated=True)
    assert math.isnan(rec.metrics()["completion_time_s"])


def test_atomic_write_keeps_the_old_file_on_failure(tmp_path) -> None:
    target = tmp_path / "results.parquet"
    atomic_write_parquet(target, pd.DataFrame({"a": [1]}))

    def broken(tmp):
        tmp.write_bytes(b"partial")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, broken)
    assert pd.read_parquet(target)["a"].tolist() == [1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.parquet"]


def test_results_store_appends_and_reloads(tmp_path) -> None:
    store = ResultsStore(tmp_path)
    for seed, goodput in ((0, 10.0), (1, 14.0)):
        store.add(
            {
                "key": f"k{seed}",
                "policy": "CUBIC",
                "kind": "baseline",
                "scenario": "tiny",
                "seed": seed,
                "goodput_mbps": goodput,
            }
        )
    again = ResultsStore(tmp_path)
    assert again.done_keys() == {"k0", "k1"}
    s = summarize(again.frame)
    row = s[s["metric"] == "goodput_mbps"].iloc[0]
    # mean 12, sample std sqrt(8), t(0.975, 1) = 12.706 -> half width 12.706 * sqrt(8) / sqrt(2)
    assert row["mean"] == pytest.approx(12.0)
    assert row["ci95"] == pytest.approx(12.7062047 * math.sqrt(8) / math.sqrt(2), rel=1e-6)
