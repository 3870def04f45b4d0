"""Network-side benchmarks: packets per wall-clock second through LeoChannel/LeoNetDevice.

Run: ``LEOGYM_CORE_DIR=build/dev python -m benchmarks.bench_network [--sim-s 30] [--json out]``
(a core built with ``LEOGYM_TESTING=ON``: the flows and the probe are ``_core.testing``'s).

Measures, for saturating UDP and ns-3 TCP (NewReno) flows over one constant path, the packets
carried by the link per wall-clock second of ``Simulator::Run`` (both directions: data and
ACKs), the ns-3 events per second, and the same flows over ns-3's own PointToPointNetDevice for
comparison; the CPU cost per packet of each queue discipline against drop-tail (raw probe
packets into a standing queue); then the cost and the RSS growth of repeated
build/run/destroy cycles.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import psutil

from leogym.native import testing as load_testing
from leogym.simulation.native_config import synthetic_path


def _link_packets(r: dict) -> int:
    """Packets that crossed the link (delivered or lost on it), both directions."""
    total = 0
    for p in r["paths"]:
        for d in ("down", "up"):
            total += p[d]["tx_packets"]
    return total


def bench_flows(testing, sim_s: float) -> list[dict]:
    rows = []
    path = synthetic_path(sim_s + 1, rate_bps=50e6, delay_s=0.02, queue_packets=167)
    for kind, link in [("udp", "leo"), ("udp", "p2p"), ("tcp_bulk", "leo"), ("tcp_bulk", "p2p")]:
        r = testing.run_reference_flow(kind, [path], sim_s, link=link)
        pk = _link_packets(r) if link == "leo" else None
        rows.append(
            {
                "flow": kind,
                "link": link,
                "sim_s": sim_s,
                "wall_s": r["wall_seconds"],
                "goodput_mbps": r["goodput_bps"] / 1e6,
                "delivered_data_packets": r["rx_packets"],
                "data_packets_per_wall_s": r["rx_packets"] / r["wall_seconds"],
                "link_packets_per_wall_s": None if pk is None else pk / r["wall_seconds"],
                "events_per_wall_s": r["events"] / r["wall_seconds"],
                "sim_speedup": sim_s / r["wall_seconds"],
            }
        )
    return rows


def bench_probe(testing, n: int = 1_000_000) -> dict:
    path = synthetic_path(60.0, rate_bps=1e9, delay_s=0.02, loss=0.01, outages=[(10.0, 10.5)])
    t = np.arange(n) * 1e-5
    w0 = time.perf_counter()
    r = testing.probe_link(path, t, 1000)
    wall = time.perf_counter() - w0
    return {
        "probe_packets": n,
        "wall_s": wall,
        "packets_per_wall_s": n / wall,
        "delivered": int(np.sum(r["drop_cause"] == -1)),
    }


def bench_queues(testing, n: int = 400_000) -> list[dict]:
    """CPU per packet through one link direction with each queue discipline, against
    drop-tail: raw probe packets at 1.2 x a 100 Mbit/s link (a standing queue, so every AQM
    works: RED's average, CoDel's and PIE's sojourn drops)."""
    rate = 100e6
    t = np.arange(n) * (1000 * 8 / (1.2 * rate))
    rows = []
    base = None
    testing.probe_link(synthetic_path(2.0), t[: n // 10], 1000)  # warm-up (allocator pools)
    for disc in ("droptail", "red", "codel", "fq_codel", "pie", "dualpi2"):
        path = synthetic_path(float(t[-1]) + 1.0, rate_bps=rate, delay_s=0.02, queue_packets=500)
        path["queue"] = {"discipline": disc}
        c0 = time.process_time()
        r = testing.probe_link(path, t, 1000)
        cpu = time.process_time() - c0
        base = cpu if base is None else base
        rows.append(
            {
                "discipline": disc,
                "packets": n,
                "cpu_ns_per_packet": 1e9 * cpu / n,
                "vs_droptail": cpu / base,
                "delivered": int(np.sum(r["drop_cause"] == -1)),
            }
        )
    return rows


def bench_cycles(testing, cycles: int = 200) -> dict:
    paths = [synthetic_path(1.0, rate_bps=20e6, loss=0.01), synthetic_path(1.0, rate_bps=10e6)]
    proc = psutil.Process()
    for _ in range(20):  # warm-up (allocator pools, TypeId tables)
        testing.run_reference_flow("tcp_bulk", paths, 0.1)
    rss0 = proc.memory_info().rss
    w0 = time.perf_counter()
    for _ in range(cycles):
        testing.run_reference_flow("tcp_bulk", paths, 0.1)
    wall = time.perf_counter() - w0
    rss1 = proc.memory_info().rss
    return {
        "cycles": cycles,
        "ms_per_cycle": 1e3 * wall / cycles,
        "rss_growth_kib": (rss1 - rss0) / 1024,
        "rss_mib": rss1 / 2**20,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sim-s", type=float, default=30.0, help="simulated seconds per flow")
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args()
    testing = load_testing()
    out = {
        "flows": bench_flows(testing, args.sim_s),
        "probe": bench_probe(testing),
        "queues": bench_queues(testing),
        "cycles": bench_cycles(testing),
    }
    for row in out["flows"]:
        lp = row["link_packets_per_wall_s"]
        print(
            f"{row['flow']:8s} {row['link']:3s} goodput {row['goodput_mbps']:6.2f} Mb/s  "
            f"data pkts/s {row['data_packets_per_wall_s']:10.0f}  "
            f"link pkts/s {'-' if lp is None else f'{lp:10.0f}':>10s}  "
            f"events/s {row['events_per_wall_s']:10.0f}  x{row['sim_speedup']:.1f} real time"
        )
    print("probe   ", json.dumps(out["probe"]))
    for row in out["queues"]:
        print(
            f"queue {row['discipline']:8s} {row['cpu_ns_per_packet']:7.0f} ns CPU/packet  "
            f"x{row['vs_droptail']:.2f} drop-tail  delivered {row['delivered']}"
        )
    print("cycles  ", json.dumps(out["cycles"]))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
